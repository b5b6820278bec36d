"""Checkers built from a model value: explicit exploration, reports, the CLI."""
