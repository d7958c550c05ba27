"""``python -m rigscout`` is the ``rigscout`` command."""

from rigscout.cli.main import cli

cli()
