"""The one pipeline definition every runner uses, and the scoring pipeline beside it.

``create_pipeline`` trains, judges and pushes; ``create_scoring_pipeline`` scores a span
with the model the first one pushed.
"""

from __future__ import annotations

from tfx import v1 as tfx

import datasets
from components.atomic_pusher import AtomicPusher
from components.batch_scorer import BatchScorer
from components.cached_transform import CachedTransform
from components.curated_schema import PACKAGES_ROOT, CuratedSchema, sha256_of
from components.evaluation_report import EvaluationReport
from components.example_gen.component import ArrowCsvExampleGen
from components.gated_evaluator import GatedEvaluator
from components.gating_validator import GatingExampleValidator
from components.recording_tuner import RecordingTuner
from components.serving_baseline import ServingBaseline
from components.serving_check import ServingCheck
from components.steps_trainer import StepsTrainer
from data_layout import spans
from data_layout.csv_examples import integer_columns
from data_layout.splits import TEST, TRAIN, VALIDATION
from modules.preprocessing import DATASET_KEY
from modules.tuning import TUNING_KEY
from pipeline_def import node_ids
from pipeline_def.code_digest import CODE_DIGEST_KEY, run_fingerprint, step_code_digest
from pipeline_def.config import PipelineConfig
from pipeline_def.evaluation import eval_config
from pipeline_def.metadata_stores import metadata_connection
from startup import process

_artifacts = tfx.types.standard_artifacts
RuntimeParameter = tfx.dsl.experimental.RuntimeParameter


def _example_gen(config: PipelineConfig) -> ArrowCsvExampleGen:
    splits = [
        tfx.proto.SplitConfig.Split(name=name, hash_buckets=buckets)
        for name, buckets in config.split_buckets
    ]
    dataset = datasets.load(config.dataset)
    output = tfx.proto.Output(
        split_config=tfx.proto.SplitConfig(
            splits=splits, partition_feature_name=dataset.entity or None
        )
    )
    input_config = tfx.proto.Input(
        splits=[tfx.proto.Input.Split(name="single_split", pattern=config.input_pattern)]
    )
    return ArrowCsvExampleGen(
        input_base=RuntimeParameter(name=node_ids.DATA_ROOT, ptype=str, default=config.data_root),
        input_config=input_config,
        output_config=output,
        int_columns=integer_columns(PACKAGES_ROOT / config.curated_schema),
        span=RuntimeParameter(name=node_ids.SPAN, ptype=str, default=spans.span_text(config.span)),
        window=config.window,
        span_cache=config.span_cache,
        custom_config={CODE_DIGEST_KEY: step_code_digest(config.dataset)},
        test_period=dataset.test_period,
        entity_history=dataset.history_columns(),
    ).with_id(node_ids.EXAMPLE_GEN)


def _baseline(
    config: PipelineConfig,
) -> tuple[list[tfx.dsl.BaseNode], dict[str, tfx.types.BaseChannel]]:
    """What the candidate is judged against: its nodes, and the model and statistics.

    ServingBaseline reads the push destination on every orchestrator; on Vertex AI
    Pipelines the Resolver variant finds the latest blessed model and the latest
    statistics in ML-Metadata instead.
    """
    if not config.resolvers:
        serving = ServingBaseline(serving_dir=config.serving_dir).with_id(node_ids.SERVING_BASELINE)
        return [serving], {
            "model": serving.outputs["model"],
            "statistics": serving.outputs["statistics"],
        }
    model = tfx.dsl.Resolver(
        strategy_class=tfx.dsl.experimental.LatestBlessedModelStrategy,
        model=tfx.dsl.Channel(type=_artifacts.Model),
        model_blessing=tfx.dsl.Channel(type=_artifacts.ModelBlessing),
    ).with_id(node_ids.BASELINE_RESOLVER)
    statistics = tfx.dsl.Resolver(
        strategy_class=tfx.dsl.experimental.LatestArtifactStrategy,
        statistics=tfx.dsl.Channel(
            type=_artifacts.ExampleStatistics, producer_component_id=node_ids.STATISTICS_GEN
        ),
    ).with_id(node_ids.PREVIOUS_STATISTICS)
    return [model, statistics], {
        "model": model.outputs["model"],
        "statistics": statistics.outputs["statistics"],
    }


def _curated_schema(config: PipelineConfig) -> CuratedSchema:
    """The shipped schema as an artifact, with the digest of this checkout's copy.

    The image is built from the checkout that compiles the pipeline; the step checks
    that the copy it ships is the one compiled.
    """
    digest = sha256_of(PACKAGES_ROOT / config.curated_schema)
    return CuratedSchema(source=config.curated_schema, sha256=digest).with_id(
        node_ids.CURATED_SCHEMA
    )


def _code_config(config: PipelineConfig) -> dict[str, object]:
    """The custom_config of the steps that run the model code: its dataset and code digest."""
    return {DATASET_KEY: config.dataset, CODE_DIGEST_KEY: step_code_digest(config.dataset)}


def _model_config(config: PipelineConfig) -> dict[str, object]:
    """The custom_config of the steps that train: hyperparameters, dataset, code digest."""
    return {**config.hparams.to_custom_config(), **_code_config(config)}


def _tuner(
    config: PipelineConfig, example_gen: ArrowCsvExampleGen, transform: CachedTransform
) -> RecordingTuner:
    """The search whose best values the Trainer takes: trials as long as its training.

    Trials learn on the train split and are ranked on the validation split, as early
    stopping is: the test split that blesses stays out of every choice.
    """
    custom_config = {
        **_model_config(config),
        TUNING_KEY: {"max_trials": config.tune_trials, "minutes": config.tune_minutes},
    }
    return RecordingTuner(
        examples=example_gen.outputs["examples"],
        transform_graph=transform.outputs["transform_graph"],
        tuner_fn=config.tuner_fn,
        train_args=tfx.proto.TrainArgs(splits=[TRAIN], num_steps=config.train_steps),
        eval_args=tfx.proto.EvalArgs(splits=[VALIDATION], num_steps=config.eval_steps),
        custom_config=custom_config,
    ).with_id(node_ids.TUNER)


def _evaluator(
    config: PipelineConfig,
    example_gen: ArrowCsvExampleGen,
    trainer: StepsTrainer,
    baseline: dict[str, tfx.types.BaseChannel],
) -> GatedEvaluator:
    """The Evaluator on the test split, gated overall and by the dataset's slice bound."""
    dataset = datasets.load(config.dataset)
    return GatedEvaluator(
        examples=example_gen.outputs["examples"],
        model=trainer.outputs["model"],
        baseline_model=baseline["model"],
        eval_config=eval_config(dataset, config.min_auc, config.max_auc_drop),
        min_auc=RuntimeParameter(name=node_ids.MIN_AUC, ptype=float, default=config.min_auc),
        example_splits=[TEST],
        slice_min_rows=dataset.slice_min_rows,
        max_error_rate_rise=dataset.max_error_rate_rise,
    ).with_id(node_ids.EVALUATOR)


def _schema_gen(statistics: tfx.components.StatisticsGen) -> tfx.components.SchemaGen:
    """SchemaGen, kept for people to compare with the curated schema (wide-deep-schema-review).

    Shapes are not inferred: every raw column stays optional, so a serving request
    that omits one still gets an answer.
    """
    return tfx.components.SchemaGen(
        statistics=statistics.outputs["statistics"], infer_feature_shape=False
    ).with_id(node_ids.SCHEMA_GEN)


def _validator(
    statistics: tfx.components.StatisticsGen,
    curated_schema: CuratedSchema,
    baseline: dict[str, tfx.types.BaseChannel],
    schema_gen: tfx.components.SchemaGen,
) -> GatingExampleValidator:
    """The data judged by the curated schema, and its drift from the baseline's statistics."""
    validator = GatingExampleValidator(
        statistics=statistics.outputs["statistics"],
        schema=curated_schema.outputs["schema"],
        previous_statistics=baseline["statistics"],
    ).with_id(node_ids.EXAMPLE_VALIDATOR)
    # SchemaGen first even when the validator stops the run: its inference of the
    # rejected data is what people compare with the curated schema.
    validator.add_upstream_node(schema_gen)
    return validator


def _transform(
    config: PipelineConfig,
    example_gen: ArrowCsvExampleGen,
    curated_schema: CuratedSchema,
    validator: GatingExampleValidator,
) -> CachedTransform:
    """Transform, which only analyzes, and only data the validator let through.

    The Trainer applies its graph to the raw examples in tf.data, through the same
    layer serving uses (no materialized copy to write). A window's spans are analyzed
    one by one, reusing an earlier run's analysis of the spans it analyzed (the
    analyzer cache, a folder under the pipeline root).
    """
    transform = CachedTransform(
        examples=example_gen.outputs["examples"],
        schema=curated_schema.outputs["schema"],
        preprocessing_fn=config.preprocessing_fn,
        analyzer_cache_dir=config.analyzer_cache if config.transform_cache else "",
        disable_statistics=not config.transform_statistics,
        custom_config=_code_config(config),
    ).with_id(node_ids.TRANSFORM)
    # Bad data stops the run here: nothing learns from what the validator rejected.
    transform.add_upstream_node(validator)
    return transform


def _trainer(
    config: PipelineConfig,
    example_gen: ArrowCsvExampleGen,
    transform: CachedTransform,
    tuner: RecordingTuner | None,
    baseline: dict[str, tfx.types.BaseChannel],
) -> StepsTrainer:
    """The Trainer: the Tuner's best values when it ran, warm-started from the baseline."""
    return StepsTrainer(
        examples=example_gen.outputs["examples"],
        transform_graph=transform.outputs["transform_graph"],
        run_fn=config.run_fn,
        train_steps=RuntimeParameter(
            name=node_ids.TRAIN_STEPS, ptype=int, default=config.train_steps
        ),
        eval_steps=config.eval_steps,
        custom_config=_model_config(config),
        hyperparameters=tuner.outputs["best_hyperparameters"] if tuner else None,
        base_model=baseline["model"] if config.warm_start else None,
    ).with_id(node_ids.TRAINER)


def _serving_check(
    config: PipelineConfig, trainer: StepsTrainer, evaluator: GatedEvaluator
) -> ServingCheck:
    """The blessed candidate asked, as a model server serves it, what the Evaluator asked."""
    return ServingCheck(
        model=trainer.outputs["model"],
        evaluation=evaluator.outputs["evaluation"],
        model_blessing=evaluator.outputs["blessing"],
        dataset=config.dataset,
    ).with_id(node_ids.SERVING_CHECK)


def _pusher(
    config: PipelineConfig,
    trainer: StepsTrainer,
    evaluator: GatedEvaluator,
    serving_check: ServingCheck,
    statistics: tfx.components.StatisticsGen,
) -> AtomicPusher:
    """The push of a model blessed and served right, its training statistics with it."""
    return AtomicPusher(
        model=trainer.outputs["model"],
        model_blessing=evaluator.outputs["blessing"],
        infra_blessing=serving_check.outputs["blessing"],
        statistics=statistics.outputs["statistics"],
        allow_older=config.allow_older,
        run_fingerprint=run_fingerprint(config),
        push_destination=tfx.proto.PushDestination(
            filesystem=tfx.proto.PushDestination.Filesystem(base_directory=config.serving_dir)
        ),
    ).with_id(node_ids.PUSHER)


def _report(
    config: PipelineConfig,
    example_gen: ArrowCsvExampleGen,
    evaluator: GatedEvaluator,
    pusher: AtomicPusher,
) -> EvaluationReport:
    """The run's evaluation report: metrics, blessing and push."""
    return EvaluationReport(
        evaluation=evaluator.outputs["evaluation"],
        blessing=evaluator.outputs["blessing"],
        pushed_model=pusher.outputs["pushed_model"],
        examples=example_gen.outputs["examples"],
        pipeline_name=config.pipeline_name,
    ).with_id(node_ids.REPORT)


def _pipeline(
    config: PipelineConfig, nodes: list[tfx.dsl.BaseNode], name: str = "", cache: bool = True
) -> tfx.dsl.Pipeline:
    """The nodes as pipeline ``name`` (default: the config's), its root, store, Beam arguments."""
    beam_args = list(config.beam_pipeline_args)
    if beam_args:
        # Beam's workers prepared as this process was. With no arguments Beam runs in this
        # process, already prepared, so none is added then: the compiled spec's Beam steps
        # keep no arguments, and a process not prepared (startup.beam_local) is given no
        # reason for TFX to package itself (tfx/utils/dependency_utils.py).
        beam_args.append(process.BEAM_WORKER_ARG)
    return tfx.dsl.Pipeline(
        pipeline_name=name or config.pipeline_name,
        pipeline_root=config.pipeline_root,
        components=nodes,
        enable_cache=config.enable_cache and cache,
        metadata_connection_config=(
            metadata_connection(config.metadata) if config.metadata else None
        ),
        beam_pipeline_args=beam_args,
    )


def create_pipeline(config: PipelineConfig) -> tfx.dsl.Pipeline:
    """The TFX pipeline: ExampleGen through the evaluation report, as the config describes."""
    example_gen = _example_gen(config)
    statistics = tfx.components.StatisticsGen(examples=example_gen.outputs["examples"]).with_id(
        node_ids.STATISTICS_GEN
    )
    schema_gen = _schema_gen(statistics)
    curated_schema = _curated_schema(config)
    baseline_nodes, baseline = _baseline(config)
    validator = _validator(statistics, curated_schema, baseline, schema_gen)
    transform = _transform(config, example_gen, curated_schema, validator)
    tuner = _tuner(config, example_gen, transform) if config.tune else None
    trainer = _trainer(config, example_gen, transform, tuner, baseline)
    evaluator = _evaluator(config, example_gen, trainer, baseline)
    serving_check = _serving_check(config, trainer, evaluator)
    pusher = _pusher(config, trainer, evaluator, serving_check, statistics)
    nodes = [
        example_gen,
        statistics,
        schema_gen,
        curated_schema,
        *baseline_nodes,
        validator,
        transform,
        *([tuner] if tuner else []),
        trainer,
        evaluator,
        serving_check,
        pusher,
        _report(config, example_gen, evaluator, pusher),
    ]
    return _pipeline(config, nodes)


def create_scoring_pipeline(config: PipelineConfig) -> tfx.dsl.Pipeline:
    """The scoring pipeline: the serving model scores a span of the data root.

    Batch prediction scheduled like training: ServingBaseline finds the model serving
    now, and BatchScorer scores the span the ``span`` run-time parameter names (the
    newest by default) of the ``data_root`` one. Nothing is cached: both read what is
    not among their inputs.
    """
    serving = ServingBaseline(serving_dir=config.serving_dir).with_id(node_ids.SERVING_BASELINE)
    scorer = BatchScorer(
        model=serving.outputs["model"],
        data_root=RuntimeParameter(name=node_ids.DATA_ROOT, ptype=str, default=config.data_root),
        span=RuntimeParameter(name=node_ids.SPAN, ptype=str, default=spans.span_text(config.span)),
        dataset=config.dataset,
    ).with_id(node_ids.BATCH_SCORER)
    return _pipeline(config, [serving, scorer], config.scoring_pipeline_name, cache=False)
