"""``python -m rigscout`` is the ``rigscout`` command."""

from rigscout.cli import cli

cli()
