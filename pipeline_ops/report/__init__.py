"""A run's evaluation review, read from ML-Metadata, as terminal text."""
