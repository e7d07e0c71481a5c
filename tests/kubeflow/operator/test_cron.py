"""Cron expressions as KFP's robfig/cron v1 reads them, refused before any call."""

from __future__ import annotations

import re

import pytest

from kubeflow.operator.cron import CronError, kfp_cron


@pytest.mark.parametrize(
    ("given", "kfp"),
    [
        ("0 * * * *", "0 0 * * * *"),  # crontab: hourly; KFP would read it as every minute
        ("30 6 * * MON-FRI", "0 30 6 * * MON-FRI"),
        ("0 0 6 1 */3 ?", "0 0 6 1 */3 ?"),  # six fields are KFP's own
        ("0  0 1,15 jan,jul *", "0 0 0 1,15 jan,jul *"),
        ("@daily", "@daily"),
        ("@every 1h30m", "@every 1h30m"),
    ],
)
def test_crontab_gains_kfps_seconds_and_kfps_own_pass(given, kfp):
    assert kfp_cron(given) == kfp


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("61 * * * *", "minute 61 is outside 0-59"),
        ("0 24 * * *", "hour 24 is outside 0-23"),
        ("0 0 0 * *", "day of month 0 is outside 1-31"),
        ("0 0 1 13 *", "month 13 is outside 1-12"),
        ("0 0 * * 7", "day of week 7 is outside 0-6"),
        ("0 0 * * FUN", "day of week 'FUN' is not a number"),
        ("0 5-2 * * *", "hour range '5-2' runs backwards"),
        ("*/0 * * * *", "minute step '0' is not above 0"),
        ("? * * * *", "'?' is for the day fields, not the minute"),
        ("* * *", "has 3 fields"),
        ("", "has 0 fields"),
        ("@fortnightly", "unknown descriptor"),
        ("@every soon", "unknown descriptor"),
    ],
)
def test_a_malformed_cron_names_the_field(given, message):
    with pytest.raises(CronError, match=re.escape(message)):
        kfp_cron(given)
