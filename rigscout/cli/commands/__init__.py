"""The commands of ``rigscout``, by topic; each module lists its own in ``COMMANDS``."""
