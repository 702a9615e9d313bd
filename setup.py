"""The one packaging fact pyproject.toml cannot state: scripts/*.py go into the wheel as rgbench/scripts/.

The package is scripts/rgbench/ (found below, with every subpackage); the scripts beside it are the
entry points the ``rgbench`` subcommands run (rgbench/cli_main.py), so they are shipped inside the
package, where ``rgbench.cli_main.scripts_dir`` finds them. Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages("scripts", include=["rgbench", "rgbench.*"]), "rgbench.scripts"],
    package_dir={"": "scripts", "rgbench.scripts": "scripts"},
)
