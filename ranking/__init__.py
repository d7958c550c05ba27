"""Normalize titles against the catalog, and rank listings per landed dollar."""
