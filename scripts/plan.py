#!/usr/bin/env python3
"""`rgbench plan` (rgbench/cli.py), at the path the docs name."""
from rgbench.cli import run_script

if __name__ == "__main__":
    raise SystemExit(run_script("plan"))
