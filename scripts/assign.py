#!/usr/bin/env python3
"""Entry point of the planned second grades: see rgbench.review.commands (``--help``)."""

from __future__ import annotations

import sys

from rgbench.review.commands import assign_main as main

if __name__ == "__main__":
    sys.exit(main())
