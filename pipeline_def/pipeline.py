"""``create_pipeline``: the one pipeline definition every runner uses."""

from __future__ import annotations

from tfx import v1 as tfx

from pipeline_def.config import MysqlMetadata, PipelineConfig, SqliteMetadata
from pipeline_def.evaluation import eval_config

# Node ids, in data-flow order; MLMD records, the console and run_summary.json use them.
EXAMPLE_GEN = "CsvExampleGen"
STATISTICS_GEN = "StatisticsGen"
SCHEMA_GEN = "SchemaGen"
EXAMPLE_VALIDATOR = "ExampleValidator"
TRANSFORM = "Transform"
TRAINER = "Trainer"
BASELINE_RESOLVER = "LatestBlessedModelResolver"
EVALUATOR = "Evaluator"
PUSHER = "Pusher"
NODE_IDS: tuple[str, ...] = (
    EXAMPLE_GEN,
    STATISTICS_GEN,
    SCHEMA_GEN,
    EXAMPLE_VALIDATOR,
    TRANSFORM,
    TRAINER,
    BASELINE_RESOLVER,
    EVALUATOR,
    PUSHER,
)


def metadata_connection(
    store: SqliteMetadata | MysqlMetadata,
) -> tfx.orchestration.metadata.ConnectionConfigType:
    """The ML-Metadata connection config for a store named in the pipeline config."""
    if isinstance(store, SqliteMetadata):
        return tfx.orchestration.metadata.sqlite_metadata_connection_config(store.path)
    return tfx.orchestration.metadata.mysql_metadata_connection_config(
        host=store.host,
        port=store.port,
        database=store.database,
        username=store.user,
        password=store.password,
    )


def _example_gen(config: PipelineConfig) -> tfx.components.CsvExampleGen:
    splits = [
        tfx.proto.SplitConfig.Split(name=name, hash_buckets=buckets)
        for name, buckets in config.split_buckets
    ]
    output = tfx.proto.Output(split_config=tfx.proto.SplitConfig(splits=splits))
    input_config = tfx.proto.Input(
        splits=[tfx.proto.Input.Split(name="single_split", pattern=config.input_pattern)]
    )
    return tfx.components.CsvExampleGen(
        input_base=config.data_root, input_config=input_config, output_config=output
    )


def _baseline_resolver() -> tfx.dsl.Resolver:
    """The latest blessed model (and its blessing), to evaluate the candidate against."""
    return tfx.dsl.Resolver(
        strategy_class=tfx.dsl.experimental.LatestBlessedModelStrategy,
        model=tfx.dsl.Channel(type=tfx.types.standard_artifacts.Model),
        model_blessing=tfx.dsl.Channel(type=tfx.types.standard_artifacts.ModelBlessing),
    ).with_id(BASELINE_RESOLVER)


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
    example_validator = tfx.components.ExampleValidator(
        statistics=statistics_gen.outputs["statistics"], schema=schema_gen.outputs["schema"]
    ).with_id(EXAMPLE_VALIDATOR)
    # Transform only analyzes; the Trainer applies its graph to the raw examples in
    # tf.data, through the same layer serving uses (no materialized copy to write).
    transform = tfx.components.Transform(
        examples=example_gen.outputs["examples"],
        schema=schema_gen.outputs["schema"],
        preprocessing_fn=config.preprocessing_fn,
        materialize=False,
        disable_statistics=not config.transform_statistics,
    ).with_id(TRANSFORM)
    trainer = tfx.components.Trainer(
        run_fn=config.run_fn,
        examples=example_gen.outputs["examples"],
        transform_graph=transform.outputs["transform_graph"],
        train_args=tfx.proto.TrainArgs(num_steps=config.train_steps),
        eval_args=tfx.proto.EvalArgs(num_steps=config.eval_steps),
        custom_config=config.hparams.to_custom_config(),
    ).with_id(TRAINER)
    baseline = _baseline_resolver() if config.baseline_resolver else None
    evaluator = tfx.components.Evaluator(
        examples=example_gen.outputs["examples"],
        model=trainer.outputs["model"],
        baseline_model=baseline.outputs["model"] if baseline else None,
        eval_config=eval_config(config.min_auc, config.max_auc_drop if baseline else None),
    ).with_id(EVALUATOR)
    pusher = tfx.components.Pusher(
        model=trainer.outputs["model"],
        model_blessing=evaluator.outputs["blessing"],
        push_destination=tfx.proto.PushDestination(
            filesystem=tfx.proto.PushDestination.Filesystem(base_directory=config.serving_dir)
        ),
    ).with_id(PUSHER)
    return tfx.dsl.Pipeline(
        pipeline_name=config.pipeline_name,
        pipeline_root=config.pipeline_root,
        components=[
            node
            for node in (
                example_gen,
                statistics_gen,
                schema_gen,
                example_validator,
                transform,
                trainer,
                baseline,
                evaluator,
                pusher,
            )
            if node is not None
        ],
        enable_cache=config.enable_cache,
        metadata_connection_config=(
            metadata_connection(config.metadata) if config.metadata else None
        ),
        beam_pipeline_args=list(config.beam_pipeline_args),
    )
