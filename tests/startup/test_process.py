"""A prepared process: what ``startup.process.prepare`` leaves in place."""

from __future__ import annotations

import subprocess
import sys

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


def test_the_installed_distributions_are_listed_once_however_many_clients_load() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _COUNT], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["1", "True"]
