"""The ``tf.train.Example`` wire format, written by hand where the encoder leaves off.

tfx_bsl's encoder writes one Example per row; the CSV encoder (``data_layout.csv_examples``)
encodes each column on its own and joins the Features entries in key order, the order of
deterministic serialization, which TFX hashes to split. These are the bytes that joining
takes: a varint, an Example's header, a feature with no type.
"""

from __future__ import annotations


def varint(value: int) -> bytes:
    """``value`` as a protobuf varint: seven bits a byte, the high bit set but on the last."""
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def strip_header(example: bytes) -> bytes:
    """The Features content of a serialized Example (drop field tag and length)."""
    start = 1
    while example[start] & 0x80:
        start += 1
    return example[start + 1 :]


def features_contents(examples: list[bytes]) -> list[bytes]:
    """``_strip_header`` of each example; the common short case without a call each."""
    if max(map(len, examples), default=0) < 130:  # every length fits one varint byte
        return [e[2:] for e in examples]
    return [strip_header(e) for e in examples]


def untyped_feature(name: str) -> bytes:
    """The Features entry of a feature with no type (what CsvExampleGen writes)."""
    key = name.encode()
    entry = b"\n" + varint(len(key)) + key + b"\x12\x00"
    return b"\n" + varint(len(entry)) + entry


def examples_of(columns: list[list[bytes]]) -> list[bytes]:
    """Serialized Examples from their Features entries, column by column (in key order)."""
    examples = []
    for entries in zip(*columns, strict=True):
        features = b"".join(entries)
        examples.append(b"\n" + varint(len(features)) + features)
    return examples
