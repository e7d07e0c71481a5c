"""Keras 2 (tf_keras) for the model code, set up once: import ``keras`` from here.

TF 2.16's autograph (the legacy stack) lists ``keras`` among the libraries it must
not convert, but not ``tf_keras``, the Keras 2 package TFX needs. Without that rule
every Keras internal reached from a ``tf.function`` is transpiled on first use:
measured here, 15 s before a trivial model's first training step and 24 s for this
project's model, against 0.6 s with the rule. TF exposes no public hook for these
rules, so where its own list lacks ``tf_keras`` the rule it has for ``keras`` is added
for ``tf_keras``; TF 2.21 (the current stack) lists it itself, and is left alone.
``tests/modules/test_keras_setup.py`` shows autograph's answer with and without it.
"""

# Keras 2 is chosen before TensorFlow loads by startup.process.prepare, which every
# process of the product calls first.
import tf_keras as keras
from tensorflow.python.autograph.core import config as _autograph_config

_TF_KERAS = "tf_keras"


def autograph_skips(module: str) -> bool:
    """Whether TF's autograph rules leave ``module``'s code unconverted."""
    for rule in _autograph_config.CONVERSION_RULES:
        if rule.matches(module):
            return isinstance(rule, _autograph_config.DoNotConvert)
    return False


# Runs once per process: Python imports a module only once.
if not autograph_skips(_TF_KERAS):
    _autograph_config.CONVERSION_RULES = (
        _autograph_config.DoNotConvert(_TF_KERAS),
        *_autograph_config.CONVERSION_RULES,
    )

__all__ = ["keras"]
