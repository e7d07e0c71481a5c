"""Compare the curated schema with what SchemaGen inferred from the latest run's data.

    wide-deep-schema-review [--output-dir DIR | --metadata URI] [--dataset NAME]
                            [--proposal FILE]

SchemaGen runs in every pipeline run, but the data is judged by the curated schema
in ``datasets/NAME/schema.pbtxt``. This command writes the newest inference as a
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

import datasets
from pipeline_def import node_ids
from pipeline_ops import commands
from pipeline_ops.cli import scaffold
from pipeline_ops.cli.scaffold import CommandError
from pipeline_ops.metadata.runs import list_runs

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
    store, where = scaffold.open_existing_store(args)
    for run in list_runs(store, args.pipeline_name):
        schema = run.output(node_ids.SCHEMA_GEN, "schema")
        if schema is not None:
            return schema.uri
    raise CommandError(
        f"no run of {args.pipeline_name} in {where} has a SchemaGen output yet: "
        "run the pipeline first"
    )


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
        return commands.EXIT_OK
    print(f"{len(lines)} difference(s) from {curated_path}:", file=out)
    for line in lines:
        print(f"  {line}", file=out)
    return commands.EXIT_FAILED


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    parser = scaffold.parser_for(commands.SCHEMA_REVIEW, __doc__)
    scaffold.add_read_options(parser)
    parser.add_argument("--proposal", type=Path, default=None)
    args = parser.parse_args(argv)

    def body() -> int:
        scaffold.resolve_read_options(args)
        return review(args, sys.stdout)

    return scaffold.execute(body)


if __name__ == "__main__":
    sys.exit(main())
