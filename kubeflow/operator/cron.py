"""Cron expressions as Kubeflow Pipelines reads them, checked before any call.

KFP's API server parses a recurring run's cron with robfig/cron v1's ``cron.Parse``
(kubeflow/pipelines ``backend/src/apiserver/server/api_converter.go``, go.mod
``github.com/robfig/cron v1.2.0``): six fields with seconds first, the day of week
optional, or a descriptor (``@daily``, ``@every 1h``). A five-field crontab line reads
differently there ("0 * * * *" would fire every minute, seconds at 0), so a five-field
expression is taken as crontab and given KFP's seconds field, and the console shows
the expression KFP gets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# robfig/cron v1 parser.go: each field's name, bounds and, for months and days, names.
_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")


@dataclass(frozen=True)
class _Field:
    name: str
    low: int
    high: int
    names: tuple[str, ...] = ()  # names[i] stands for low + i
    question_mark: bool = False  # '?' (any) is allowed in the day fields only


_FIELDS = (
    _Field("second", 0, 59),
    _Field("minute", 0, 59),
    _Field("hour", 0, 23),
    _Field("day of month", 1, 31, question_mark=True),
    _Field("month", 1, 12, _MONTHS),
    _Field("day of week", 0, 6, _DAYS, question_mark=True),
)
_DESCRIPTORS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
# Go's time.ParseDuration, as @every takes it: e.g. 1h, 90m, 1h30m, 2.5h.
_DURATION = re.compile(r"(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+")


class CronError(ValueError):
    """A cron expression KFP would refuse or misread; the message names the field."""


def _value(text: str, field: _Field, expression: str) -> int:
    """One number or name of ``field``; CronError naming the field when out of range."""
    upper = text.upper()
    if upper in field.names:
        return field.low + field.names.index(upper)
    if not text.isdigit():
        raise CronError(f"cron {expression!r}: {field.name} {text!r} is not a number")
    value = int(text)
    if not field.low <= value <= field.high:
        raise CronError(
            f"cron {expression!r}: {field.name} {value} is outside {field.low}-{field.high}"
        )
    return value


def _check_range(part: str, field: _Field, expression: str) -> None:
    """One comma-separated part: ``*``, ``?``, ``a``, ``a-b``, each with an optional ``/step``."""
    base, _, step = part.partition("/")
    if step and (not step.isdigit() or int(step) == 0):
        raise CronError(f"cron {expression!r}: {field.name} step {step!r} is not above 0")
    if base == "?" and not field.question_mark:
        raise CronError(f"cron {expression!r}: '?' is for the day fields, not the {field.name}")
    if base in ("*", "?"):
        return
    low, _, high = base.partition("-")
    first = _value(low, field, expression)
    if high and _value(high, field, expression) < first:
        raise CronError(f"cron {expression!r}: {field.name} range {base!r} runs backwards")


def kfp_cron(expression: str) -> str:
    """``expression`` as KFP's six-field cron; CronError naming the field that is wrong.

    Five fields are crontab (minute hour day month weekday) and get second 0; six are
    KFP's own; a descriptor (``@daily``, ``@every 6h``) passes as it is.
    """
    text = " ".join(expression.split())
    if text.startswith("@"):
        if text in _DESCRIPTORS:
            return text
        every, _, duration = text.partition(" ")
        if every == "@every" and _DURATION.fullmatch(duration):
            return text
        raise CronError(
            f"cron {expression!r}: unknown descriptor; use one of {', '.join(_DESCRIPTORS)} "
            "or '@every <duration>' (e.g. @every 6h)"
        )
    fields = text.split(" ") if text else []
    if len(fields) == 5:
        fields = ["0", *fields]
    if len(fields) != 6:
        raise CronError(
            f"cron {expression!r} has {len(fields)} fields: give five (crontab: minute hour "
            "day-of-month month day-of-week) or six (KFP's, seconds first)"
        )
    for part_list, field in zip(fields, _FIELDS, strict=True):
        for part in part_list.split(","):
            _check_range(part, field, expression)
    return " ".join(fields)
