"""A table of orders as a spreadsheet or a database exports it, for the drafting tests.

Some status cells are empty (orders not yet judged), money is written with thousands
separators and currency signs (US and European habits), and the times as exports
write them: ISO timestamps, US and European dates, the month billed (a few distinct
dates), unix seconds. The label (late)
depends on the amount and the hour, so that a model has something to learn.
"""

from __future__ import annotations

import datetime
import random
from pathlib import Path

from csv_habits import csv_text

HEADER = [
    "status", "amount", "betrag", "ordered at", "shipped", "geliefert", "billed", "created",
    "channel",
]  # fmt: skip
START = datetime.datetime(2023, 1, 1, tzinfo=datetime.timezone.utc)
# About this share of the status cells is empty.
UNLABELLED_SHARE = 0.05


def _european(amount: float) -> str:
    """``amount`` as a German spreadsheet writes it: 1.234,56 €."""
    us = f"{amount:,.2f}"
    return us.replace(",", " ").replace(".", ",").replace(" ", ".") + " €"


def _dollars(amount: float) -> str:
    """``amount`` as an accounting export writes it: $1,234.56, refunds in parentheses."""
    return f"(${-amount:,.2f})" if amount < 0 else f"${amount:,.2f}"


def orders(rows: int, seed: int = 0) -> list[list[str]]:
    """``rows`` orders, each a row of cells under ``HEADER``."""
    rng = random.Random(seed)
    table = []
    for _ in range(rows):
        amount = round(rng.lognormvariate(6, 1.3), 2) * (-1 if rng.random() < 0.03 else 1)
        when = START + datetime.timedelta(minutes=rng.randrange(60 * 24 * 700))
        shipped = when + datetime.timedelta(days=rng.randrange(1, 20))
        late = rng.random() < 0.15 + 0.5 * (amount > 1000) + 0.3 * (when.hour >= 18)
        status = "" if rng.random() < UNLABELLED_SHARE else ("late" if late else "on time")
        table.append([
            status, _dollars(amount), _european(amount), when.strftime("%Y-%m-%d %H:%M:%S"),
            shipped.strftime("%m/%d/%Y"), shipped.strftime("%d.%m.%Y"),
            shipped.strftime("%Y-%m-01"), str(int(when.timestamp())),
            rng.choice(["web", "shop", "phone"]),
        ])  # fmt: skip
    return table


def write_export(path: Path, rows: list[list[str]]) -> Path:
    """The rows as a spreadsheet's "CSV UTF-8": a byte-order mark and CRLF line ends."""
    path.write_bytes(b"\xef\xbb\xbf" + csv_text(HEADER, rows, lineterminator="\r\n").encode())
    return path
