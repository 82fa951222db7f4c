"""The conv-tasks command line, in the style of `openstack stack ...`.

main.py is the entry point (the group and the console script's `main`);
context.py the Context every command gets from the options before its name;
failures.py how a command ends (one line and an exit code); commands/ the
commands, one module per noun; render/ how answers are printed.

The CLI is a client: it must never decide what the engine decides, nor send SQL
or Redis commands itself. It asks through conv_tasks.client; the commands that
act in process (`template validate`, `resource-type`, `db upgrade|purge`) call
the engine's, resources' and db's own functions. Starting it must stay cheap:
`conv-tasks --help` loads neither the Celery app nor rich, so this package
imports and exports nothing itself; other packages import conv_tasks.cli.main
(the `cli` group) or conv_tasks.cli.render (what the demo prints with).
"""
