#!/usr/bin/env python3
"""`rgbench metrics` (rgbench/cli.py), at the path the docs, the workflows and older Makefiles name."""
from rgbench.cli import run_script

if __name__ == "__main__":
    raise SystemExit(run_script("metrics"))
