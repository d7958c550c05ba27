"""Benchmarks: each module has ``run(...) -> dict`` comparing rigscout against a baseline in the
same run. ``python -m bench`` runs them all; ``python -m bench parse normalize`` runs some."""
