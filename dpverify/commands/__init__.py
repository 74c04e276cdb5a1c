"""Sub-commands of the ``dpverify`` CLI.

Each module in this package defines ``register(subparsers)``, which adds one or
more sub-parsers and sets ``handler=`` (a function ``args -> CommandResult``)
with ``parser.set_defaults``.  :mod:`dpverify.cli` discovers the modules, so a
new sub-command is a new file here.  Handlers raise dpverify errors for bad
input; the CLI turns them into one line and exit code 2.
"""

__all__: list[str] = []
