"""The Transform and Trainer module code: features, preprocessing, model, training, export."""

import os

# TF 2.16 resolves tf.keras to Keras 3 unless this is set before TensorFlow's first
# use of it; TFX 1.16, TFT and TFMA need Keras 2 (tf_keras, see shared/STACK.md).
# The one place it is set: components and pipeline_def import this package first.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
