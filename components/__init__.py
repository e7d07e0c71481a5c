"""Custom TFX components for what TFX itself does not provide."""

import modules  # noqa: F401 - Keras 2 before TensorFlow loads (modules/__init__.py)
