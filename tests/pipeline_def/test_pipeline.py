import dataclasses
import json

import pytest
from tfx import v1 as tfx
from tfx.utils import proto_utils
from tfx.v1.dsl.experimental import RuntimeParameter

import datasets
from components.cached_transform import ANALYZER_CACHE_DIR_KEY
from components.example_gen.keys import TEST_PERIOD_KEY
from components.gated_evaluator import SLICE_MIN_ROWS_KEY
from data_layout import spans
from pipeline_def import node_ids
from pipeline_def.config import PipelineConfig, Resources
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_def.orchestrate import local_ir
from pipeline_def.pipeline import create_pipeline
from startup import process


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> PipelineConfig:
    root = tmp_path_factory.mktemp("pipeline")
    return PipelineConfig.resolve(
        pipeline_root=str(root / "root"),
        data_root=str(root / "data"),
        serving_dir=str(root / "serving"),
        metadata=SqliteMetadata(str(root / "metadata.sqlite")),
    )


@pytest.fixture(scope="module")
def built(config):
    return create_pipeline(config)


def _upstream(pipeline) -> dict[str, set[str]]:
    return {c.id: {u.id for u in c.upstream_nodes} for c in pipeline.components}


def test_twelve_nodes_with_explicit_ids_in_data_flow_order(built):
    ids = [c.id for c in built.components]
    assert sorted(ids) == sorted(node_ids.NODE_IDS)
    assert len(ids) == 12
    position = {node: i for i, node in enumerate(ids)}
    for node, parents in _upstream(built).items():
        assert all(position[p] < position[node] for p in parents)


def test_edges(built):
    assert _upstream(built) == {
        node_ids.EXAMPLE_GEN: set(),
        node_ids.STATISTICS_GEN: {node_ids.EXAMPLE_GEN},
        node_ids.SCHEMA_GEN: {node_ids.STATISTICS_GEN},
        node_ids.CURATED_SCHEMA: set(),
        node_ids.SERVING_BASELINE: set(),
        node_ids.EXAMPLE_VALIDATOR: {
            node_ids.STATISTICS_GEN,
            node_ids.CURATED_SCHEMA,
            node_ids.SCHEMA_GEN,
            node_ids.SERVING_BASELINE,
        },
        # Transform waits for the validator: bad data stops the run before it.
        node_ids.TRANSFORM: {
            node_ids.EXAMPLE_GEN,
            node_ids.CURATED_SCHEMA,
            node_ids.EXAMPLE_VALIDATOR,
        },
        node_ids.TRAINER: {node_ids.EXAMPLE_GEN, node_ids.TRANSFORM, node_ids.SERVING_BASELINE},
        node_ids.EVALUATOR: {node_ids.EXAMPLE_GEN, node_ids.TRAINER, node_ids.SERVING_BASELINE},
        # The serving check asks the served candidate about the rows the Evaluator scored.
        node_ids.SERVING_CHECK: {node_ids.TRAINER, node_ids.EVALUATOR},
        # The Pusher requires both verdicts; it keeps the training data's statistics with
        # the model.
        node_ids.PUSHER: {
            node_ids.TRAINER,
            node_ids.EVALUATOR,
            node_ids.SERVING_CHECK,
            node_ids.STATISTICS_GEN,
        },
        # The report names the span it reviews.
        node_ids.REPORT: {node_ids.EXAMPLE_GEN, node_ids.EVALUATOR, node_ids.PUSHER},
    }


def test_config_reaches_the_components(built, config):
    by_id = {c.id: c for c in built.components}
    trainer = by_id[node_ids.TRAINER].exec_properties
    assert "hparams" in trainer["custom_config"]
    assert by_id[node_ids.TRANSFORM].exec_properties["preprocessing_fn"] == config.preprocessing_fn
    assert config.serving_dir in by_id[node_ids.PUSHER].exec_properties["push_destination"]
    assert by_id[node_ids.SERVING_BASELINE].exec_properties["serving_dir"] == config.serving_dir
    assert by_id[node_ids.REPORT].exec_properties["pipeline_name"] == config.pipeline_name
    assert built.metadata_connection_config.sqlite.filename_uri.endswith("metadata.sqlite")


def test_the_slice_bound_judges_slices_of_the_size_the_dataset_declares(config, monkeypatch):
    declared = dataclasses.replace(datasets.load(config.dataset), slice_min_rows=250)
    monkeypatch.setattr(datasets, "load", lambda name: declared)
    by_id = {c.id: c for c in create_pipeline(config).components}
    assert by_id[node_ids.EVALUATOR].exec_properties[SLICE_MIN_ROWS_KEY] == 250


def _split_config(config: PipelineConfig) -> tfx.proto.SplitConfig:
    by_id = {c.id: c for c in create_pipeline(config).components}
    output = by_id[node_ids.EXAMPLE_GEN].exec_properties["output_config"]
    return proto_utils.json_to_proto(output, tfx.proto.Output()).split_config


def test_the_splits_are_keyed_by_the_entity_the_dataset_declares(config, monkeypatch):
    assert not _split_config(config).HasField("partition_feature_name")  # the taxi: none
    declared = dataclasses.replace(datasets.load(config.dataset), entity="company")
    monkeypatch.setattr(datasets, "load", lambda name: declared)
    assert _split_config(config).partition_feature_name == "company"


def test_the_test_split_is_the_newest_period_the_dataset_declares(config, monkeypatch):
    def test_period() -> str:
        built = create_pipeline(config)
        example_gen = {c.id: c for c in built.components}[node_ids.EXAMPLE_GEN]
        return example_gen.exec_properties[TEST_PERIOD_KEY]

    assert test_period() == ""  # the taxi: a hashed test split
    declared = dataclasses.replace(datasets.load(config.dataset), test_period="trip_start_day")
    monkeypatch.setattr(datasets, "load", lambda name: declared)
    assert test_period() == "trip_start_day"


def test_transform_is_given_the_analyzer_cache_folder_only_when_the_cache_is_on(config):
    def cache_dir(**settings: object) -> str:
        built = create_pipeline(dataclasses.replace(config, **settings))
        return {c.id: c for c in built.components}[node_ids.TRANSFORM].exec_properties[
            ANALYZER_CACHE_DIR_KEY
        ]

    assert cache_dir() == ""
    assert cache_dir(transform_cache=True) == f"{config.pipeline_root}/analyzer-cache"


def test_data_root_span_steps_and_auc_bound_are_run_time_parameters_with_the_config_defaults(
    built, config
):
    by_id = {c.id: c for c in built.components}
    found = {
        (node, key): (value.name, value.default)
        for node in (node_ids.EXAMPLE_GEN, node_ids.TRAINER, node_ids.EVALUATOR)
        for key, value in by_id[node].exec_properties.items()
        if isinstance(value, RuntimeParameter)
    }
    assert found == {
        (node_ids.EXAMPLE_GEN, "input_base"): (node_ids.DATA_ROOT, config.data_root),
        (node_ids.EXAMPLE_GEN, "requested_span"): (node_ids.SPAN, spans.LATEST_TEXT),
        (node_ids.TRAINER, "train_steps"): (node_ids.TRAIN_STEPS, config.train_steps),
        (node_ids.EVALUATOR, "min_auc"): (node_ids.MIN_AUC, config.min_auc),
    }


def test_the_steps_that_read_the_serving_folder_are_never_cached_locally(config):
    ir = local_ir(config)
    caching = {
        n.pipeline_node.node_info.id: n.pipeline_node.execution_options.caching_options.enable_cache
        for n in ir.nodes
    }
    assert caching == {node: node not in node_ids.UNCACHED for node in node_ids.NODE_IDS}
    assert node_ids.UNCACHED == (node_ids.SERVING_BASELINE, node_ids.SERVING_CHECK, node_ids.PUSHER)


def test_config_is_frozen_and_validated(config):
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.train_steps = 5  # type: ignore[misc]
    with pytest.raises(ValueError, match="min_auc"):
        dataclasses.replace(config, min_auc=1.5)
    with pytest.raises(ValueError, match="train_steps"):
        dataclasses.replace(config, train_steps=0)
    with pytest.raises(ValueError, match="resources"):
        dataclasses.replace(config, resources=(Resources(node_ids.TRAINER, cpu=0, memory_gb=4),))


def test_the_vertex_variant_resolves_the_baseline_and_drift_reference_instead(config):
    built = create_pipeline(dataclasses.replace(config, resolvers=True))
    ids = [c.id for c in built.components]
    assert node_ids.SERVING_BASELINE not in ids
    assert {node_ids.BASELINE_RESOLVER, node_ids.PREVIOUS_STATISTICS} <= set(ids)
    upstream = _upstream(built)
    assert node_ids.BASELINE_RESOLVER in upstream[node_ids.EVALUATOR]
    assert node_ids.PREVIOUS_STATISTICS in upstream[node_ids.EXAMPLE_VALIDATOR]


def _beam_args_by_node(pipeline) -> dict[str, list[str]]:
    from tfx.dsl.compiler.compiler import Compiler
    from tfx.proto.orchestration import executable_spec_pb2, pipeline_pb2

    deployment = pipeline_pb2.IntermediateDeploymentConfig()
    Compiler().compile(pipeline).deployment_config.Unpack(deployment)
    found = {}
    for node, spec in deployment.executor_specs.items():
        if spec.Is(executable_spec_pb2.BeamExecutableSpec.DESCRIPTOR):
            beam = executable_spec_pb2.BeamExecutableSpec()
            spec.Unpack(beam)
            found[node] = list(beam.beam_pipeline_args)
    return found


def test_beam_arguments_reach_every_beam_component(config):
    flink = ("--runner=FlinkRunner", "--flink_master=localhost:8081", "--parallelism=4")
    built = create_pipeline(dataclasses.replace(config, beam_pipeline_args=flink))
    by_node = _beam_args_by_node(built)
    assert set(by_node) == {
        node_ids.EXAMPLE_GEN,
        node_ids.STATISTICS_GEN,
        node_ids.TRANSFORM,
        node_ids.EVALUATOR,
    }
    # And the option that has each Beam worker prepared as this process was.
    assert all(args == [*flink, process.BEAM_WORKER_ARG] for args in by_node.values())


def test_without_beam_arguments_none_is_added(built):
    # Beam then runs in the step's own process; an argument would have TFX package itself.
    assert all(args == [] for args in _beam_args_by_node(built).values())


def test_the_split_that_blesses_chooses_nothing(built):
    """Train learns, validation chooses (early stopping), test alone is evaluated."""
    by_id = {c.id: c for c in built.components}
    split_config = json.loads(by_id[node_ids.EXAMPLE_GEN].exec_properties["output_config"])
    assert [s["name"] for s in split_config["split_config"]["splits"]] == [
        "train",
        "validation",
        "test",
    ]
    trainer = by_id[node_ids.TRAINER].exec_properties
    assert json.loads(trainer["train_args"])["splits"] == ["train"]
    assert json.loads(trainer["eval_args"])["splits"] == ["validation"]
    assert json.loads(by_id[node_ids.EVALUATOR].exec_properties["example_splits"]) == ["test"]


def test_split_buckets_must_name_the_three_splits(config):
    with pytest.raises(ValueError, match="must name train, validation and test"):
        dataclasses.replace(config, split_buckets=(("train", 2), ("eval", 1)))
    with pytest.raises(ValueError, match="positive counts"):
        dataclasses.replace(config, split_buckets=(("train", 3), ("validation", 0), ("test", 1)))


def test_tuning_is_off_by_default_and_feeds_the_trainer_when_on(built, config):
    assert node_ids.TUNER not in {c.id for c in built.components}
    tuned = create_pipeline(dataclasses.replace(config, tune=True, tune_trials=3, tune_minutes=2))
    ids = [c.id for c in tuned.components]
    assert sorted(ids) == sorted(node_ids.node_ids(tune=True))
    upstream = _upstream(tuned)
    assert upstream[node_ids.TUNER] == {node_ids.EXAMPLE_GEN, node_ids.TRANSFORM}
    assert node_ids.TUNER in upstream[node_ids.TRAINER]
    by_id = {c.id: c for c in tuned.components}
    tuner = by_id[node_ids.TUNER].exec_properties
    assert json.loads(tuner["custom_config"])["tuning"] == {"max_trials": 3, "minutes": 2}
    assert json.loads(tuner["train_args"])["splits"] == ["train"]
    assert json.loads(tuner["eval_args"])["splits"] == ["validation"]
    trainer_input = by_id[node_ids.TRAINER].inputs["hyperparameters"]
    assert trainer_input.producer_component_id == node_ids.TUNER
    with pytest.raises(ValueError, match="tune_trials"):
        dataclasses.replace(config, tune_trials=0)
