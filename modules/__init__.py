"""The Transform and Trainer module code: features, preprocessing, model, training, export."""

import os

# Keras 2 (tf_keras) throughout, as TFT and TFMA expect, whoever imports us first.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
