"""What each ``rgbench`` subcommand does: one module per subcommand, its docstring the ``--help``
description and ``run(args) -> int`` the command (the exit status), given the options rgbench/cli.py
parsed; ``common`` holds what they share."""
