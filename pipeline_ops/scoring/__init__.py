"""What ``wide-deep-score`` keeps of a run on this machine (``keeping``).

The skew report and statistics go under ``<output-dir>/scoring/``, and the run's record
into ML-Metadata.

The scoring itself is the ``scoring`` room's, which the Kubeflow step shares.
"""
