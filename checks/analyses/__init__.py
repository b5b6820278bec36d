"""Analyses built on the engines: verdicts, noninterference, reaction orders, comparison, minimisation,
seeded defects and proofs. Game knowledge reaches them only through the model's typed declarations."""
