import cProfile
import logging
import pstats
from pathlib import Path

from pipeline_ops.session.progress import CACHED_EXECUTION, FINISHED, RUNNING
from pipeline_ops.session.step_profiles import NOT_PROFILED, step_profiles

log = logging.getLogger("absl")


def _transform_work() -> int:
    return sum(i * i for i in range(200_000))


def _trainer_work() -> int:
    return len(sorted(range(100_000), key=lambda i: -i))


def _profiled_functions(path: Path) -> set[str]:
    return {name for _, _, name in pstats.Stats(str(path)).stats}


def test_each_component_is_profiled_between_its_records_and_a_failed_one_too(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="absl")  # as the run's log file sets it
    with step_profiles(tmp_path / "profile") as profiler:
        log.info(RUNNING, "Transform")
        _transform_work()
        log.info(FINISHED, "Transform")
        _trainer_work()  # between components: in no step's profile
        log.info(RUNNING, "Trainer")
        _trainer_work()  # and the step fails: no "finished" record
    folder = tmp_path / "profile"
    assert sorted(p.name for p in folder.iterdir()) == [
        "Trainer.prof", "Trainer.txt", "Transform.prof", "Transform.txt",
    ]  # fmt: skip
    assert "_transform_work" in _profiled_functions(folder / "Transform.prof")
    assert "_trainer_work" not in _profiled_functions(folder / "Transform.prof")
    assert "_trainer_work" in _profiled_functions(folder / "Trainer.prof")
    summary = (folder / "Transform.txt").read_text()
    assert summary.startswith("Transform: ") and "_transform_work" in summary
    assert profiler.written == [folder / "Transform.txt", folder / "Trainer.txt"]
    assert profiler not in logging.getLogger().handlers


def test_a_cached_step_leaves_nothing(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="absl")
    with step_profiles(tmp_path) as profiler:
        log.info(RUNNING, "SchemaGen")
        log.info(CACHED_EXECUTION, 7)
        log.info(FINISHED, "SchemaGen")
    assert list(tmp_path.iterdir()) == [] and profiler.written == []


def test_a_profiler_already_running_is_left_to_run_and_the_step_says_so(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="absl")
    outer = cProfile.Profile()
    outer.enable()
    try:
        with step_profiles(tmp_path):
            log.info(RUNNING, "Transform")
            _transform_work()
            log.info(FINISHED, "Transform")
    finally:
        outer.disable()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Transform.txt"]
    assert (tmp_path / "Transform.txt").read_text() == f"Transform: {NOT_PROFILED}\n"
    outer.dump_stats(tmp_path / "outer.prof")
    assert "_transform_work" in _profiled_functions(tmp_path / "outer.prof")


def test_without_a_folder_nothing_listens():
    handlers = list(logging.getLogger().handlers)
    with step_profiles(None) as profiler:
        log.info(RUNNING, "Transform")
        assert profiler is None and logging.getLogger().handlers == handlers
