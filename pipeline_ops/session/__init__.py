"""A local run's session: pre-flight checks, per-step progress, the log file and the summary."""
