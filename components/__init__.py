"""Custom TFX components for what TFX itself does not provide, and their executors."""
