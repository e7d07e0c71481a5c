"""Drafting a dataset declaration from a CSV file: the table, the rules, the written draft."""
