"""The TFX pipeline definition, its configuration, and the tools around its runs."""

import os

# TF 2.16 resolves tf.keras to Keras 3 unless this is set before TensorFlow's first
# use; TFX 1.16, TFT and TFMA need Keras 2 (see shared/STACK.md).
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
