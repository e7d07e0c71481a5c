"""What every process of the product does first, before TensorFlow or pyarrow load.

``process.prepare()`` chooses Keras 2 (``TF_USE_LEGACY_KERAS``) and refuses where it came
too late, and applies the Arrow guard (``arrow_guard.py``). The commands' scaffold, the
Kubeflow entry point, the harness, every program of ``scripts/`` and ``benchmarks/`` and
the tests' ``conftest.py`` call it first. It imports nothing of the project's other rooms.
"""
