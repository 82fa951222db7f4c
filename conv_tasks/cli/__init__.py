"""The conv-tasks command line, in the style of `openstack stack ...`.

main.py is the entry point (the group and the console script's `main`);
context.py the Context every command gets from the options before its name;
failures.py how a command ends (one line and an exit code); commands/ the
commands, one module per noun; render/ how answers are printed; demo.py is
`make demo` (`python -m conv_tasks.cli.demo`).

The CLI is a client: it must never decide what the engine decides, nor send SQL
or Redis commands itself. It asks through conv_tasks.client; the commands that
act in process (`template validate`, `resource-type`, `db upgrade|purge`) call
the engine's, resources' and db's own functions. Starting it must stay cheap:
`conv-tasks --help` loads neither the Celery app nor rich, so this face exports
only the group and its console script (main.py, which the script loads anyway).
"""

from conv_tasks.cli.main import cli, main

__all__ = ["cli", "main"]
