"""Test helpers shared by several test packages: local stand-ins for outside services."""
