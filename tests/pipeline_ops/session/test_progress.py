import io
import logging

from pipeline_ops.session.progress import CACHED, FAILED, RAN, ComponentProgress, component_line

log = logging.getLogger("absl")


def _record(msg: str, *args: object) -> logging.LogRecord:
    return log.makeRecord("absl", logging.INFO, __file__, 1, msg, args, None)


def test_one_line_per_component_with_state():
    out = io.StringIO()
    progress = ComponentProgress(out=out)
    for node, cached in (("CsvExampleGen", False), ("Transform", True)):
        progress.emit(_record("Component %s is running.", node))
        if cached:
            progress.emit(_record("A cached execution %d is used.", 7))
        progress.emit(_record("Component %s is finished.", node))
    progress.emit(_record("something else entirely %s", "x"))
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].split()[:2] == ["CsvExampleGen", RAN]
    assert lines[1].split()[:2] == ["Transform", CACHED]
    assert progress.timings["Transform"].state == CACHED
    assert [component_line(line) for line in lines] == [
        ("CsvExampleGen", RAN),
        ("Transform", CACHED),
    ]
    assert component_line("Run 2026-11-21T12:48:37 succeeded in 58.6 s.") is None


def test_the_running_component_is_the_failed_one():
    progress = ComponentProgress(out=io.StringIO())
    progress.emit(_record("Component %s is running.", "Trainer"))
    assert progress.fail_current() == "Trainer"
    assert progress.timings["Trainer"].state == FAILED
    assert progress.fail_current() is None


def test_the_executions_this_process_ran_or_reused_are_kept_in_order():
    progress = ComponentProgress(out=io.StringIO())
    progress.emit(_record("Component %s is running.", "CsvExampleGen"))
    progress.emit(_record("Going to run a new execution %d", 41))
    progress.emit(_record("Component %s is finished.", "CsvExampleGen"))
    progress.emit(_record("Component %s is running.", "Transform"))
    progress.emit(_record("A cached execution %d is used.", 42))
    progress.emit(_record("Component %s is finished.", "Transform"))
    assert progress.execution_ids == [41, 42]
