"""The evaluation review: a run's evaluation read back for people, and the paired comparison.

What TFMA measured, by slice and against the serving model, the verdict, the curves,
and the HTML page that shows them. The gate (``components/gated_evaluator.py``) and
the report step use it in the pipeline; ``wide-deep-review`` and ``wide-deep-inspect``
use it after a run.
"""
