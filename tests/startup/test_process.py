"""A prepared process: what ``startup.process.prepare`` leaves in place."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from startup import process

# Counts the listings of installed distributions while Google's clients load after
# prepare(), and two asked for after: google-api-core 2.29 (the legacy stack) asks for
# one at each client's import, 2.44 (the current one) not at these.
_COUNT = """
import importlib.metadata

calls = []
listing = importlib.metadata.packages_distributions

def counted():
    calls.append(1)
    return listing()

importlib.metadata.packages_distributions = counted
from startup import process

process.prepare()
process.prepare()
import google.api_core, google.pubsub_v1, google.cloud.bigquery_storage_v1
listed = [importlib.metadata.packages_distributions() for _ in range(2)]
print(len(calls), "pubsub" in str(listed[1].get("google")))
"""


@pytest.mark.slow  # starts a process that imports TensorFlow
def test_the_installed_distributions_are_listed_once_however_many_clients_load() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _COUNT], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["1", "True"]


def test_dills_pickles_leave_every_loggers_level_cache_in_place() -> None:
    from apache_beam.internal import pickler

    process.prepare()  # as the conftest did: a second call changes nothing
    other = logging.getLogger("tests.startup.cached")
    dill_logger = logging.getLogger("dill")
    level = dill_logger.level
    pickler.set_library(pickler.USE_DILL)  # the legacy stack's default, the current's choice
    try:
        other.isEnabledFor(logging.INFO)
        assert other._cache  # the answer is kept until some logger's level is set
        assert pickler.loads(pickler.dumps(len))("ab") == 2
        assert other._cache, "a pickle set the dill logger's level it already had"
        dill_logger.setLevel(logging.DEBUG)
        assert dill_logger.level == logging.DEBUG and not other._cache  # a change still takes
    finally:
        logging.Logger.setLevel(dill_logger, level)
        pickler.set_library(pickler.DEFAULT_PICKLE_LIB)


# TFX's Vertex AI extensions stay unloaded until a name is read from them, and then
# are the real modules, wherever they are reached from.
_DEFERRED = """
import inspect, sys
from startup import process

process.prepare()
from tfx import v1

inspect.getmodule(len)  # reads every module's file
print("google.cloud.aiplatform" in sys.modules)
print(v1.extensions.google_cloud_ai_platform.Pusher.__module__)
from tfx.v1.extensions import google_cloud_big_query
print("google.cloud.aiplatform" in sys.modules, v1.extensions is sys.modules["tfx.v1.extensions"])
print(type(v1.extensions) is type(sys), google_cloud_big_query.__name__)
"""


@pytest.mark.slow  # starts a process that imports TFX
def test_tfxs_cloud_extensions_load_only_when_a_name_is_read_from_them() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _DEFERRED], capture_output=True, text=True, check=True, timeout=300
    )
    assert done.stdout.splitlines() == [
        "False",
        "tfx.extensions.google_cloud_ai_platform.pusher.component",
        "True True",
        "True tfx.v1.extensions.google_cloud_big_query",
    ]
