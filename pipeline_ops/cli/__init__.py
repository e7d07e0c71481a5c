"""The commands people type, each on one scaffold (store options, exit codes, quiet imports)."""
