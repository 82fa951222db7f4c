"""Incremental readers of what a client sends to Redis and to PostgreSQL.

The counting proxies (benchmarks/proxies.py) feed every chunk a client sends
through one of these and learn which commands it carried, however the bytes
were split into TCP segments. They only read; they never change or hold back
a byte, and never look at what the server answers. Pure: no sockets here.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

CRLF = b"\r\n"


@dataclass(frozen=True)
class Command:
    """One complete request: a Redis command name, or the kind of a PostgreSQL message."""

    name: str
    # For Redis: whether an argument contains the reader's marker (a task name in a message).
    marked: bool = False


class RespCommandReader:
    """Splits a Redis client's byte stream (RESP arrays of bulk strings) into commands.

    Linear in the bytes fed, whatever the segmentation: a bulk string that is not
    complete yet is waited for, not parsed again.
    """

    def __init__(self, marker: bytes = b"") -> None:
        self._buf = bytearray()
        self._args_left = 0
        self._bulk_len = -1  # -1: the next thing is a "$<len>" header
        self._name: str | None = None
        self._marked = False
        self._marker = marker

    def feed(self, data: bytes) -> list[Command]:
        buf = self._buf
        buf += data
        pos = 0
        done: list[Command] = []
        while True:
            if self._args_left == 0:
                end = buf.find(CRLF, pos)
                if end < 0:
                    break
                line = bytes(buf[pos:end])
                pos = end + 2
                if line.startswith(b"*"):
                    self._args_left = int(line[1:])
                    self._name, self._marked, self._bulk_len = None, False, -1
                elif line.strip():  # an inline command: words on one line
                    done.append(Command(line.split()[0].decode("latin-1").upper()))
            elif self._bulk_len < 0:
                end = buf.find(CRLF, pos)
                if end < 0:
                    break
                self._bulk_len = int(bytes(buf[pos + 1 : end]))
                pos = end + 2
            else:
                stop = pos + self._bulk_len
                if len(buf) < stop + 2:
                    break
                if self._name is None:
                    self._name = bytes(buf[pos:stop]).decode("latin-1").upper()
                elif self._marker and buf.find(self._marker, pos, stop) >= 0:
                    self._marked = True
                pos = stop + 2
                self._bulk_len = -1
                self._args_left -= 1
                if self._args_left == 0:
                    done.append(Command(self._name or "", self._marked))
        del buf[:pos]
        return done


# Codes of the untyped requests a PostgreSQL client may send before its startup message.
SSL_REQUEST = 80877103
GSSENC_REQUEST = 80877104
CANCEL_REQUEST = 80877102
_CONTROL = {"BEGIN": "begin", "START": "begin", "COMMIT": "commit", "END": "commit"}
_CONTROL |= {"ROLLBACK": "rollback", "ABORT": "rollback"}


def query_kind(sql: str) -> str:
    """'begin', 'commit', 'rollback' for transaction control, else 'statement'."""
    words = sql.lstrip(" \t\r\n(").split(None, 1)
    return _CONTROL.get(words[0].upper(), "statement") if words else "empty"


class PgMessageReader:
    """Splits a PostgreSQL client's byte stream (protocol 3) into message kinds.

    Kinds: 'startup', 'ssl-request' (the stream is unreadable after an accepted
    one, so the caller should ask for sslmode=disable), 'cancel', 'password',
    'begin'/'commit'/'rollback'/'statement' for simple-query ('Q') messages,
    'parse'/'bind'/'execute'/'sync' for the extended protocol, 'terminate', or
    the message's type letter.
    """

    _TYPED = {"p": "password", "P": "parse", "B": "bind", "E": "execute", "S": "sync"}
    _TYPED |= {"X": "terminate", "D": "describe", "C": "close", "H": "flush"}

    def __init__(self) -> None:
        self._buf = bytearray()
        self._started = False
        self.opaque = False

    def feed(self, data: bytes) -> list[Command]:
        if self.opaque:
            return []
        buf = self._buf
        buf += data
        pos = 0
        done: list[Command] = []
        while not self.opaque:
            if not self._started:
                if len(buf) - pos < 8:
                    break
                (length, code) = struct.unpack_from("!ii", buf, pos)
                if len(buf) - pos < length:
                    break
                pos += length
                if code in (SSL_REQUEST, GSSENC_REQUEST):
                    # Whether the server accepted is in its answer, which we do not read.
                    done.append(Command("ssl-request"))
                    self.opaque = True
                elif code == CANCEL_REQUEST:
                    done.append(Command("cancel"))
                else:
                    done.append(Command("startup"))
                    self._started = True
                continue
            if len(buf) - pos < 5:
                break
            kind = chr(buf[pos])
            (length,) = struct.unpack_from("!i", buf, pos + 1)
            if len(buf) - pos < length + 1:
                break
            if kind == "Q":
                body = bytes(buf[pos + 5 : pos + 1 + length]).rstrip(b"\0")
                done.append(Command(query_kind(body.decode("utf-8", "replace"))))
            else:
                done.append(Command(self._TYPED.get(kind, kind)))
            pos += length + 1
        del buf[:pos]
        return done
