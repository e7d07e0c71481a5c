"""A resolver strategy for an optional input: the newest artifact, or none yet.

TFX's LatestArtifactStrategy returns None when the store holds no artifact, which
the local orchestrator records as a failed resolver execution on every first run
(and `inspect runs` would show a successful run as failed). This one resolves to
an empty list instead; the consumer treats the input as absent.
"""

from __future__ import annotations

from ml_metadata.metadata_store import metadata_store
from tfx import v1 as tfx


class LatestOrNoneStrategy(tfx.dsl.experimental.ResolverStrategy):
    """The newest artifact (highest id) of each channel; an empty list when there is none."""

    def resolve_artifacts(
        self,
        store: metadata_store.MetadataStore,
        input_dict: dict[str, list[tfx.dsl.Artifact]],
    ) -> dict[str, list[tfx.dsl.Artifact]]:
        """Keep only the newest artifact per channel."""
        return {key: sorted(found, key=lambda a: a.id)[-1:] for key, found in input_dict.items()}
