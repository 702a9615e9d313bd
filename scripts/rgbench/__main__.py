"""``python -m rgbench``: the ``rgbench`` command (rgbench.cli_main)."""

import sys

from .cli_main import main

sys.exit(main())
