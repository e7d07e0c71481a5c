"""``create_pipeline``: the one pipeline definition every runner uses."""

from __future__ import annotations

import hashlib

from tfx import v1 as tfx

from components.arrow_csv_example_gen import ArrowCsvExampleGen
from components.atomic_pusher import AtomicPusher
from components.evaluation_report import EvaluationReport
from components.gating_validator import GatingExampleValidator
from components.latest_or_none import LatestOrNoneStrategy
from pipeline_def.config import CURATED_SCHEMA_DIR, PipelineConfig
from pipeline_def.evaluation import eval_config
from pipeline_def.node_ids import (
    BASELINE_RESOLVER,
    CURATED_SCHEMA,
    EVALUATOR,
    EXAMPLE_GEN,
    EXAMPLE_VALIDATOR,
    PREVIOUS_STATISTICS,
    PUSHER,
    REPORT,
    SCHEMA_GEN,
    STATISTICS_GEN,
    TRAINER,
    TRANSFORM,
)
from pipeline_def.store import metadata_connection


def _example_gen(config: PipelineConfig) -> ArrowCsvExampleGen:
    splits = [
        tfx.proto.SplitConfig.Split(name=name, hash_buckets=buckets)
        for name, buckets in config.split_buckets
    ]
    output = tfx.proto.Output(split_config=tfx.proto.SplitConfig(splits=splits))
    input_config = tfx.proto.Input(
        splits=[tfx.proto.Input.Split(name="single_split", pattern=config.input_pattern)]
    )
    return ArrowCsvExampleGen(
        input_base=config.data_root, input_config=input_config, output_config=output
    )


def _baseline_resolver() -> tfx.dsl.Resolver:
    """The latest blessed model (and its blessing), to evaluate the candidate against."""
    return tfx.dsl.Resolver(
        strategy_class=tfx.dsl.experimental.LatestBlessedModelStrategy,
        model=tfx.dsl.Channel(type=tfx.types.standard_artifacts.Model),
        model_blessing=tfx.dsl.Channel(type=tfx.types.standard_artifacts.ModelBlessing),
    ).with_id(BASELINE_RESOLVER)


def _previous_statistics_resolver(local: bool) -> tfx.dsl.Resolver:
    """The newest statistics StatisticsGen published before this run, for drift.

    Cluster orchestrators compile only TFX's built-in strategies; with them the first
    run, which has no previous statistics, records a failed (skipped) resolver step.
    """
    return tfx.dsl.Resolver(
        strategy_class=(
            LatestOrNoneStrategy if local else tfx.dsl.experimental.LatestArtifactStrategy
        ),
        statistics=tfx.dsl.Channel(
            type=tfx.types.standard_artifacts.ExampleStatistics,
            producer_component_id=STATISTICS_GEN,
        ),
    ).with_id(PREVIOUS_STATISTICS)


def _curated_schema(schema_dir: str) -> tfx.dsl.Importer:
    """The shipped schema as an artifact, re-imported exactly when its content changes.

    The digest is of this checkout's schema, the one a Kubeflow image is built with;
    with it as a property the Importer reuses the artifact (and downstream nodes
    their cache) while the content is unchanged, and registers a new one otherwise.
    """
    digest = hashlib.sha256((CURATED_SCHEMA_DIR / "schema.pbtxt").read_bytes()).hexdigest()
    return tfx.dsl.Importer(
        source_uri=schema_dir,
        artifact_type=tfx.types.standard_artifacts.Schema,
        reimport=False,
        custom_properties={"sha256": digest},
    ).with_id(CURATED_SCHEMA)


def _validation(
    config: PipelineConfig,
    statistics_gen: tfx.components.StatisticsGen,
    schema_gen: tfx.components.SchemaGen,
) -> tuple[tfx.dsl.Importer, tfx.dsl.Resolver | None, GatingExampleValidator]:
    """The curated schema, the previous run's statistics, and the validator using both."""
    # SchemaGen's inference is kept for people to compare with the curated schema
    # (python -m pipeline_def.schema_review); the data is judged by the curated one.
    curated_schema = _curated_schema(config.schema_dir)
    local = config.metadata is not None  # None: the orchestrator provides the store
    previous = _previous_statistics_resolver(local) if config.resolvers else None
    example_validator = GatingExampleValidator(
        statistics=statistics_gen.outputs["statistics"],
        schema=curated_schema.outputs["result"],
        previous_statistics=previous.outputs["statistics"] if previous else None,
    ).with_id(EXAMPLE_VALIDATOR)
    # SchemaGen first even when the validator stops the run: its inference of the
    # rejected data is what people compare with the curated schema.
    example_validator.add_upstream_node(schema_gen)
    return curated_schema, previous, example_validator


def _push_and_report(
    config: PipelineConfig, trainer: tfx.components.Trainer, evaluator: tfx.components.Evaluator
) -> tuple[AtomicPusher, tfx.types.BaseNode]:
    """The Pusher (a blessed model only) and the evaluation report of every run."""
    pusher = AtomicPusher(
        model=trainer.outputs["model"],
        model_blessing=evaluator.outputs["blessing"],
        push_destination=tfx.proto.PushDestination(
            filesystem=tfx.proto.PushDestination.Filesystem(base_directory=config.serving_dir)
        ),
    ).with_id(PUSHER)
    report = EvaluationReport(
        evaluation=evaluator.outputs["evaluation"],
        blessing=evaluator.outputs["blessing"],
        pushed_model=pusher.outputs["pushed_model"],
    ).with_id(REPORT)
    return pusher, report


def create_pipeline(config: PipelineConfig) -> tfx.dsl.Pipeline:
    """The TFX pipeline: ExampleGen through Pusher, as the config describes."""
    example_gen = _example_gen(config).with_id(EXAMPLE_GEN)
    statistics_gen = tfx.components.StatisticsGen(examples=example_gen.outputs["examples"]).with_id(
        STATISTICS_GEN
    )
    # Shapes are not inferred: every raw column stays optional, so a serving
    # request that omits one still gets an answer.
    schema_gen = tfx.components.SchemaGen(
        statistics=statistics_gen.outputs["statistics"], infer_feature_shape=False
    ).with_id(SCHEMA_GEN)
    curated_schema, previous, example_validator = _validation(config, statistics_gen, schema_gen)
    # Transform only analyzes; the Trainer applies its graph to the raw examples in
    # tf.data, through the same layer serving uses (no materialized copy to write).
    transform = tfx.components.Transform(
        examples=example_gen.outputs["examples"],
        schema=curated_schema.outputs["result"],
        preprocessing_fn=config.preprocessing_fn,
        materialize=False,
        disable_statistics=not config.transform_statistics,
        # The cache only pays off when later runs analyze the same spans again, and
        # this pipeline reads one span per run: writing it would cost every run.
        disable_analyzer_cache=True,
    ).with_id(TRANSFORM)
    # Bad data stops the run here: nothing learns from what the validator rejected.
    transform.add_upstream_node(example_validator)
    trainer = tfx.components.Trainer(
        run_fn=config.run_fn,
        examples=example_gen.outputs["examples"],
        transform_graph=transform.outputs["transform_graph"],
        train_args=tfx.proto.TrainArgs(num_steps=config.train_steps),
        eval_args=tfx.proto.EvalArgs(num_steps=config.eval_steps),
        custom_config=config.hparams.to_custom_config(),
    ).with_id(TRAINER)
    baseline = _baseline_resolver() if config.resolvers else None
    evaluator = tfx.components.Evaluator(
        examples=example_gen.outputs["examples"],
        model=trainer.outputs["model"],
        baseline_model=baseline.outputs["model"] if baseline else None,
        eval_config=eval_config(config.min_auc, config.max_auc_drop if baseline else None),
    ).with_id(EVALUATOR)
    pusher, report = _push_and_report(config, trainer, evaluator)
    return tfx.dsl.Pipeline(
        pipeline_name=config.pipeline_name,
        pipeline_root=config.pipeline_root,
        components=[
            node
            for node in (
                example_gen,
                statistics_gen,
                schema_gen,
                curated_schema,
                previous,
                example_validator,
                transform,
                trainer,
                baseline,
                evaluator,
                pusher,
                report,
            )
            if node is not None
        ],
        enable_cache=config.enable_cache,
        metadata_connection_config=(
            metadata_connection(config.metadata) if config.metadata else None
        ),
        beam_pipeline_args=list(config.beam_pipeline_args),
    )
