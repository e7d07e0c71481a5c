"""The TFX pipeline definition: its configuration, its nodes, and its local compilation."""
