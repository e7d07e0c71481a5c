"""Custom TFX components for what TFX itself does not provide."""

from typing import Any

import modules  # noqa: F401 - Keras 2 before TensorFlow loads (modules/__init__.py)


def __getattr__(name: str) -> Any:
    """``components.HtmlReport``, the name Kubeflow steps import the report's artifact by.

    TFX's Kubeflow compiler takes a custom artifact type name only as
    ``<namespace>.<Title>``, and its entry point imports the class by that name, so the
    class must be an attribute of this package. It is imported on first use: the
    package itself stays free of TFX for the tools that read ML-Metadata.
    """
    if name == "HtmlReport":
        from components.evaluation_report import HtmlReport

        return HtmlReport
    raise AttributeError(f"module 'components' has no attribute {name!r}")
