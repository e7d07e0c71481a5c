"""A standard component's spec with parameters or inputs of its own added.

Several components here are TFX's own with one thing more (a run-time parameter, an
optional input): their specs are the standard spec, extended.
"""

from __future__ import annotations

from tfx.types import component_spec


def extended(
    base: type[component_spec.ComponentSpec],
    parameters: dict[str, component_spec.ExecutionParameter] | None = None,
    inputs: dict[str, component_spec.ChannelParameter] | None = None,
) -> type[component_spec.ComponentSpec]:
    """A ComponentSpec class with ``base``'s parameters, inputs and outputs, and these added."""

    class Extended(component_spec.ComponentSpec):
        PARAMETERS = {**base.PARAMETERS, **(parameters or {})}
        INPUTS = {**base.INPUTS, **(inputs or {})}
        OUTPUTS = base.OUTPUTS
        TYPE_ANNOTATION = getattr(base, "TYPE_ANNOTATION", None)

    return Extended
