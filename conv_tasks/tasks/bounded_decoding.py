"""Bounded decoding of message bodies: JSON and decompression with size and nesting limits.

kombu's own decoders have no limits. A JSON body nested 900 levels deep
decodes, and then breaks the worker's prefork pool, whose pickling of it
recurses past Python's limit; a few kilobytes of gzip can expand to
gigabytes in the worker's main process. A worker installs these decoders in
kombu's place (`install()`), so such a body fails to decode and the consumer
refuses the message (conv_tasks.tasks.consumer).

The limits are conv_tasks.limits.MAX_MESSAGE_BYTES and MAX_MESSAGE_DEPTH: larger
than the payload limits, so a payload just past one of those still reaches its
task and is refused there, naming it. This module must never build a value
nested deeper than MAX_MESSAGE_DEPTH, nor decode or decompress more than
MAX_MESSAGE_BYTES.
"""

from __future__ import annotations

import bz2
import lzma
import re
import zlib
from collections.abc import Callable
from itertools import accumulate
from typing import Any

from kombu import compression, serialization
from kombu.utils.json import dumps as kombu_dumps
from kombu.utils.json import loads as kombu_loads

from conv_tasks.limits import MAX_MESSAGE_BYTES, MAX_MESSAGE_DEPTH

JSON_CONTENT_TYPE = "application/json"


class BodyRefused(ValueError):
    """A message body breaks a limit, or cannot be decoded at all; the message says which."""


# A JSON string (escapes included), and the brackets outside strings. A string left open runs
# to the end of the text: the pattern matches at every quote it is tried at, so the scan is
# linear. (Had it to fail at an open quote, it would be tried again at each later quote, each
# time to the end: a body of `"\"\"\"...` took minutes for a few hundred kilobytes.)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_nesting(text: str) -> int:
    """How deeply the arrays and objects of a JSON text nest, found without parsing it."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _text(data: bytes | bytearray | memoryview | str) -> str:
    if len(data) > MAX_MESSAGE_BYTES:
        raise BodyRefused(
            f"the message body is {len(data)} bytes, more than the limit of {MAX_MESSAGE_BYTES}"
            " (MAX_MESSAGE_BYTES)"
        )
    if isinstance(data, str):
        return data
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyRefused(f"the message body is not UTF-8 text ({exc.reason})") from None


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """kombu's JSON decoding, for a body within MAX_MESSAGE_BYTES and MAX_MESSAGE_DEPTH only."""
    text = _text(data)
    depth = json_nesting(text)
    if depth > MAX_MESSAGE_DEPTH:
        raise BodyRefused(
            f"the message body is nested {depth} levels deep, "
            f"more than the limit of {MAX_MESSAGE_DEPTH} (MAX_MESSAGE_DEPTH)"
        )
    return kombu_loads(text)


def _bounded(name: str, make: Callable[[], Any]) -> Callable[[bytes], bytes]:
    def decompress(body: bytes) -> bytes:
        decompressor = make()
        try:
            # Never more than one byte past the limit, however much the data would expand to.
            out = decompressor.decompress(bytes(body), MAX_MESSAGE_BYTES + 1)
        except (OSError, ValueError, EOFError, zlib.error) as exc:
            raise BodyRefused(f"the message body is not valid {name} data ({exc})") from None
        if len(out) > MAX_MESSAGE_BYTES:
            raise BodyRefused(
                "the message body expands to more than the limit of "
                f"{MAX_MESSAGE_BYTES} bytes (MAX_MESSAGE_BYTES)"
            )
        if not decompressor.eof:
            raise BodyRefused(f"the message body is incomplete {name} data")
        return out

    return decompress


_BOUNDED = {
    "application/x-gzip": _bounded("zlib", zlib.decompressobj),
    "application/x-bz2": _bounded("bzip2", bz2.BZ2Decompressor),
    "application/x-lzma": _bounded("lzma", lzma.LZMADecompressor),
}


def _refuse_compression(content_type: str) -> Callable[[bytes], bytes]:
    def decompress(_body: bytes) -> bytes:
        raise BodyRefused(f"messages compressed with {content_type} are not accepted")

    return decompress


def install() -> None:
    """Put the bounded decoders in place of kombu's, for every message this process decodes.

    Encoding is unchanged. A compression kombu knows and this module does not
    bound is refused rather than decompressed without a limit.
    """
    serialization.register(
        "json", kombu_dumps, loads, content_type=JSON_CONTENT_TYPE, content_encoding="utf-8"
    )
    for content_type in compression.encoders():
        encoder, _ = compression.get_encoder(content_type)
        decoder = _BOUNDED.get(content_type) or _refuse_compression(content_type)
        compression.register(encoder, decoder, content_type)
