"""The TFX pipeline definition: its configuration, its nodes, and how it is orchestrated."""
