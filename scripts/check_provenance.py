#!/usr/bin/env python3
"""`rgbench provenance` (rgbench/cli.py), at the path the docs, the workflows and older Makefiles name."""

import sys

from rgbench.cli import run_script

if __name__ == "__main__":
    sys.exit(run_script("provenance"))
