"""The TFX pipeline definition: its configuration, its nodes, and how it is orchestrated."""

import modules  # noqa: F401 - Keras 2 before TensorFlow loads (modules/__init__.py)
