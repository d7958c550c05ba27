"""``python -m rigscout`` is the ``rigscout`` command."""

from rigscout.cli.entry import main

main()
