"""Compare the curated schema with what SchemaGen inferred from the latest run's data.

    python -m pipeline_def.schema_review [--output-dir DIR | --metadata URI]
                                         [--proposal FILE]

SchemaGen runs in every pipeline run, but the data is judged by the curated schema
in ``pipeline_def/schema/``. This command writes the newest inference as a
proposal (``<output-dir>/schema_proposal.pbtxt`` by default) and prints, feature by
feature, where it differs from the curated schema, for a person to review before
editing the curated one. Exit codes: 0 no difference, 1 differences, 2 no store or
no SchemaGen output.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from modules import datasets
from pipeline_def import node_ids as ids
from pipeline_def.quiet import quiet_libraries
from pipeline_def.runs import list_runs
from pipeline_def.store import SqliteMetadata, add_store_arguments, metadata_for, open_store

EXIT_SAME, EXIT_DIFFERENT, EXIT_NOT_FOUND = 0, 1, 2
SCHEMA_FILE = "schema.pbtxt"


def _required(feature) -> bool:  # noqa: ANN001 - a tensorflow_metadata Feature proto
    return feature.HasField("value_count") and feature.value_count.min >= 1


def _domain_values(schema, feature) -> set[str]:  # noqa: ANN001 - metadata protos
    if feature.HasField("string_domain"):
        return set(feature.string_domain.value)
    if feature.domain:
        named = [d for d in schema.string_domain if d.name == feature.domain]
        return set(named[0].value) if named else set()
    return set()


def differences(curated, inferred) -> list[str]:  # noqa: ANN001 - Schema protos
    """Feature-level differences, one line each: + new in the data, - gone, ~ changed."""
    ours = {f.name: f for f in curated.feature}
    theirs = {f.name: f for f in inferred.feature}
    lines = [f"+ {name}: in the data ({_type(theirs[name])}), not in the curated schema"
             for name in sorted(set(theirs) - set(ours))]  # fmt: skip
    lines += [
        f"- {name}: in the curated schema, not in the data"
        for name in sorted(set(ours) - set(theirs))
    ]
    for name in sorted(set(ours) & set(theirs)):
        a, b = ours[name], theirs[name]
        if a.type != b.type:
            lines.append(f"~ {name}: type {_type(a)} (curated) but {_type(b)} in the data")
        if _required(a) and not _required(b):
            lines.append(f"~ {name}: required (curated) but some cells are empty in the data")
        new_values = _domain_values(inferred, b) - _domain_values(curated, a)
        if _domain_values(curated, a) and new_values:
            lines.append(
                f"~ {name}: values outside the curated domain: {', '.join(sorted(new_values))}"
            )
    return lines


def _type(feature) -> str:  # noqa: ANN001 - a Feature proto
    from tensorflow_metadata.proto.v0 import schema_pb2

    return schema_pb2.FeatureType.Name(feature.type)


def latest_inferred_schema_uri(args: argparse.Namespace) -> str:
    """The schema directory SchemaGen wrote in the newest run that has one."""
    store = metadata_for(args.output_dir, args.metadata)
    if isinstance(store, SqliteMetadata) and not Path(store.path).is_file():
        raise LookupError(f"no metadata store at {store.path}: run the pipeline first")
    for run in list_runs(open_store(store), args.pipeline_name):
        schema = run.output(ids.SCHEMA_GEN, "schema")
        if schema is not None:
            return schema.uri
    raise LookupError("no run has a SchemaGen output yet: run the pipeline first")


def review(args: argparse.Namespace, out: TextIO) -> int:
    """Write the proposal, print the differences; the exit code."""
    import tensorflow_data_validation as tfdv

    uri = latest_inferred_schema_uri(args)
    inferred = tfdv.load_schema_text(str(Path(uri) / SCHEMA_FILE))
    curated_path = datasets.schema_path(args.dataset)
    curated = tfdv.load_schema_text(str(curated_path))
    proposal = args.proposal or args.output_dir / "schema_proposal.pbtxt"
    proposal.parent.mkdir(parents=True, exist_ok=True)
    tfdv.write_schema_text(inferred, str(proposal))
    lines = differences(curated, inferred)
    print(f"Inferred schema: {uri}\nProposal written to {proposal}", file=out)
    if not lines:
        print("The curated schema agrees with the data's inferred schema.", file=out)
        return EXIT_SAME
    print(f"{len(lines)} difference(s) from {curated_path}:", file=out)
    for line in lines:
        print(f"  {line}", file=out)
    return EXIT_DIFFERENT


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m pipeline_def.schema_review", description=__doc__.split("\n\n")[0]
    )
    add_store_arguments(parser)
    parser.add_argument("--proposal", type=Path, default=None)
    parser.add_argument("--dataset", default=datasets.DEFAULT, help="whose curated schema")
    parser.add_argument("--pipeline-name", default=None, help="default: the dataset's")
    args = parser.parse_args(argv)
    quiet_libraries()
    try:
        args.pipeline_name = args.pipeline_name or datasets.load(args.dataset).pipeline_name
        return review(args, sys.stdout)
    except (LookupError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_NOT_FOUND


if __name__ == "__main__":
    sys.exit(main())
