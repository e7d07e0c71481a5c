"""The Transform and Trainer module code: features, preprocessing, model, training, export."""

import os
import warnings

from modules import arrow_guard

# TF 2.16 and later resolve tf.keras to Keras 3 unless this is set before TensorFlow's
# first use of it; TFX, TFT and TFMA need Keras 2 (tf_keras, see
# docs/explanation/stack.md).
# The one place it is set: components and pipeline_def import this package first.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
# google-api-core warns on import that Python 3.10 is past its upstream support: on the
# legacy stack, whose host cannot run the current one (docs/explanation/stack.md), it
# says nothing to act on.
warnings.filterwarnings(
    "ignore",
    message="You are using a non-supported Python version",
    category=FutureWarning,
    module=r"google\.api_core\._python_version_support",
)

# No process of the product reads an untrusted Arrow file with pyarrow's CVE-2023-47248.
arrow_guard.close()
