"""``python -m rgbench``: the ``rgbench`` command (rgbench.cli)."""

import sys

from .cli import main

sys.exit(main())
