"""Keras 2 (tf_keras) for the model code, set up once: import ``keras`` from here.

TF 2.16's autograph lists ``keras`` among the libraries it must not convert, but not
``tf_keras``, the Keras 2 package TFX 1.16 needs. Without that rule every Keras
internal reached from a ``tf.function`` is transpiled on first use: measured here,
15 s before a trivial model's first training step and 24 s for this project's
model, against 0.6 s with the rule. TF exposes no public hook for these rules, so
the rule TF already has for ``keras`` is added for ``tf_keras``.
"""

# TF_USE_LEGACY_KERAS is set by modules/__init__.py, which runs before this module.
import tf_keras as keras
from tensorflow.python.autograph.core import config as _autograph_config

# Runs once per process: Python imports a module only once.
_autograph_config.CONVERSION_RULES = (
    _autograph_config.DoNotConvert("tf_keras"),
    *_autograph_config.CONVERSION_RULES,
)

__all__ = ["keras"]
