"""Broken messages, published raw with kombu as a foreign client could: no message stops
the worker (issue 11 #1).

Not a broken payload but a broken message: a body that is not [args, kwargs,
embed], headers without an id, a task id that is a list, a time limit of
"xx", bytes that are not UTF-8, a gzip bomb, a content type that is not JSON.
Each is refused in one log line that never shows its body, the message is not
delivered again, and the caller gets a JSON refusal when the message named a
conv_tasks task and a task id it could be stored under. Then the worker
answers a ping, a plain request, and wrote no traceback.
"""

from __future__ import annotations

import bz2
import json
import pickle
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
from celery.exceptions import NotRegistered
from celery.result import AsyncResult
from fuzz_support import ANSWER_TIMEOUT, FuzzCluster, problems_of, shorten
from killers import nested

from conv_tasks.limits import MAX_MESSAGE_BYTES

LIST = "conv_tasks.stack.list"
# A marker in a body that must never reach the worker's log.
SECRET = "body-SECRET-7f3a"
EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}


def _body(args: Any = (), kwargs: Any = None, embed: Any = None) -> bytes:
    kwargs = {"tenant": "fuzz", "note": SECRET} if kwargs is None else kwargs
    return json.dumps([list(args), kwargs, EMBED if embed is None else embed]).encode()


def _bomb(compress: Callable[[], Any], megabytes: int = 200) -> bytes:
    """A few hundred kilobytes that expand to `megabytes` of JSON whitespace."""
    packer = compress()
    parts = [packer.compress(b"[[], {}, {}" + b" " * 1024)]
    chunk = b" " * 2**20
    parts += [packer.compress(chunk) for _ in range(megabytes)]
    parts.append(packer.compress(b"]") + packer.flush())
    return b"".join(parts)


@dataclass(frozen=True)
class Broken:
    """One raw message: its headers (beyond task and id), body, content type and encoding.

    `task_id`: the id header, given a fresh id (None: leave it out). `answered`:
    the caller gets a JSON refusal stored under the id. `says`: what the refusal holds.
    """

    id: str
    body: Callable[[], bytes | str] = _body
    headers: dict[str, Any] = field(default_factory=dict)
    task: Any = LIST
    task_id: Callable[[str], Any] | None = str
    content_type: str = "application/json"
    content_encoding: str = "utf-8"
    answered: bool = True
    says: str = ""


BROKEN = [
    # The body is not [args, kwargs, embed].
    Broken("body-42", lambda: b"42", says="must be a list"),
    Broken("body-null", lambda: b"null", says="must be a list"),
    Broken("body-object", lambda: b'{"tenant": "t"}', says="must be a list"),
    Broken("body-two-items", lambda: b'[[], {"tenant": "t"}]', says="must be a list"),
    Broken("kwargs-a-list", lambda: _body(kwargs=["t"]), says="keyword arguments"),
    Broken("args-a-string", lambda: b'["t", {}, {}]', says="positional arguments"),
    Broken("positional-args", lambda: _body(args=["t"], kwargs={}), says="keyword arguments only"),
    Broken("embed-a-number", lambda: _body(embed=5), says="third item"),
    Broken("callbacks-not-signatures", lambda: _body(embed={"callbacks": [5]}), says="callbacks"),
    Broken("chord-not-a-signature", lambda: _body(embed={"chord": "x"}), says="chord"),
    # The body cannot be decoded.
    Broken("not-utf-8", lambda: b'[[], {"tenant": "\xff\xfe"}, {}]', says="not UTF-8"),
    Broken("not-json", lambda: b'[[], {"tenant": ', says="could not be decoded"),
    Broken("empty-body", lambda: b"", says="must be a list"),
    Broken("json-nested-900", lambda: _body(kwargs=nested(900)), says="MAX_MESSAGE_DEPTH"),
    Broken("json-unclosed-million", lambda: b"[" * 1_000_000, says="MAX_MESSAGE_DEPTH"),
    # An open string of escaped quotes: the nesting scan tried every quote to the end of the
    # text, and took hours over two megabytes, in the worker's main process.
    Broken(
        "json-open-string-of-escaped-quotes",
        lambda: b'[[], {"tenant": "' + b'\\"' * 1_000_000,
        says="could not be decoded",
    ),
    Broken(
        "json-past-max-message-bytes",
        lambda: _body(kwargs={"tenant": "x" * MAX_MESSAGE_BYTES}),
        says="MAX_MESSAGE_BYTES",
    ),
    Broken(
        "json-integer-5000-digits",
        lambda: b'[[], {"tenant": 1' + b"0" * 5000 + b"}, {}]",
        says="could not be decoded",
    ),
    Broken(
        "gzip-bomb",
        lambda: _bomb(lambda: zlib.compressobj(9), megabytes=300),
        headers={"compression": "application/x-gzip"},
        says="MAX_MESSAGE_BYTES",
    ),
    Broken(
        "bzip2-bomb",
        lambda: _bomb(lambda: bz2.BZ2Compressor(9), megabytes=12),
        headers={"compression": "application/x-bz2"},
        says="MAX_MESSAGE_BYTES",
    ),
    Broken(
        "gzip-garbage",
        lambda: b"\x78\x9c not zlib at all",
        headers={"compression": "application/x-gzip"},
        says="not valid zlib",
    ),
    Broken(
        "unknown-compression",
        headers={"compression": "application/x-nope"},
        says="could not be decoded",
    ),
    # A body that is not JSON at all.
    Broken(
        "pickle",
        lambda: pickle.dumps(((), {"tenant": "t"}, {})),
        content_type="application/x-python-serialize",
        content_encoding="binary",
        says="application/json only",
    ),
    Broken(
        "yaml",
        lambda: b"- []\n- {tenant: t}\n- {}\n",
        content_type="application/x-yaml",
        says="application/json only",
    ),
    Broken(
        "raw-bytes",
        lambda: b"\x00\x01\x02",
        content_type="application/data",
        content_encoding="binary",
        says="application/json only",
    ),
    # Headers Celery trusted.
    Broken("no-id", task_id=None, answered=False),
    Broken("id-a-list", task_id=lambda tid: [tid], answered=False),
    Broken("id-a-mapping", task_id=lambda tid: {"id": tid}, answered=False),
    Broken("id-empty", task_id=lambda tid: "", answered=False),
    Broken("id-300-chars", task_id=lambda tid: tid * 9, answered=False),
    Broken("no-task", task=None, answered=False),
    Broken("task-a-number", task=5, answered=False),
    Broken("timelimit-xx", headers={"timelimit": "xx"}, says="timelimit"),
    Broken("timelimit-negative", headers={"timelimit": [-1, None]}, says="timelimit"),
    Broken("timelimit-strings", headers={"timelimit": ["1", "2"]}, says="timelimit"),
    Broken("timelimit-huge", headers={"timelimit": [None, 10**30]}, says="timelimit"),
    Broken("retries-negative", headers={"retries": -1}, says="retries"),
    Broken("retries-a-string", headers={"retries": "1"}, says="retries"),
    Broken("eta-not-a-date", headers={"eta": "not-a-date"}, says="invalid ETA"),
    Broken("expires-not-a-date", headers={"expires": "soon"}, says="invalid expires"),
    # Refused, but unanswered: the sender asked for no result.
    Broken("ignore-result-a-string", headers={"ignore_result": "yes"}, answered=False),
    Broken("stamped-headers-a-number", headers={"stamped_headers": 5}, says="stamped_headers"),
    Broken("parent-id-a-list", headers={"parent_id": [1]}, says="parent_id"),
    Broken("headers-nested-200", headers={"deep": nested(200)}, says="MAX_MESSAGE_DEPTH"),
    # Tasks that are not conv_tasks', and conv_tasks tasks given arguments they do not take:
    # each failed with a TypeError traceback in a pool child.
    Broken("foreign-task", task="tasks.add", answered=False),
    *(
        Broken(
            f"celery-{name}",
            lambda: _body(args=[5], kwargs={}),
            task=f"celery.{name}",
            answered=False,
        )
        for name in (
            "group",
            "chain",
            "chord",
            "chord_unlock",
            "map",
            "starmap",
            "chunks",
            "accumulate",
        )
    ),
    Broken(
        "celery-backend-cleanup-with-arguments",
        lambda: _body(args=[1], kwargs={}),
        task="celery.backend_cleanup",
        answered=False,
    ),
    Broken(
        "health-ping-unknown-argument",
        lambda: _body(kwargs={"echo": "x", "zzz": 1}),
        task="conv_tasks.health.ping",
        says="does not take these arguments",
    ),
    Broken(
        "beat-watchdog-with-arguments",
        lambda: _body(kwargs={"stack": "s"}),
        task="conv_tasks.beat.watchdog",
        says="does not take these arguments",
    ),
    Broken(
        "beat-collect-templates-positional",
        lambda: _body(args=[1], kwargs={}),
        task="conv_tasks.beat.collect_templates",
        says="keyword arguments only",
    ),
]


def _headers(case: Broken, task_id: str) -> dict[str, Any]:
    headers: dict[str, Any] = {"lang": "py", "argsrepr": "()", "kwargsrepr": "{}"}
    if case.task is not None:
        headers["task"] = case.task
    if case.task_id is not None:
        headers["id"] = case.task_id(task_id)
        headers["root_id"] = task_id
    return {**headers, **case.headers}


def _unacknowledged(cluster: FuzzCluster) -> int:
    """Messages the broker holds for a worker that took them and has not acknowledged."""
    store = redis.Redis.from_url(cluster.app.conf.broker_url)
    return int(store.hlen("unacked"))


@pytest.mark.parametrize("case", BROKEN, ids=lambda case: case.id)
def test_broken_message_is_refused_and_the_worker_goes_on(
    cluster: FuzzCluster, case: Broken
) -> None:
    task_id = str(uuid.uuid4())
    before = cluster.row_counts()
    cluster.publish(
        case.body(),
        _headers(case, task_id),
        content_type=case.content_type,
        content_encoding=case.content_encoding,
        correlation_id=task_id,
    )
    if case.answered:
        answer = AsyncResult(task_id, app=cluster.app).get(timeout=ANSWER_TIMEOUT)
        problems = problems_of(answer)
        assert answer["error"] == "invalid_payload", shorten(answer)
        assert [p["path"] for p in problems] == [""], shorten(answer)
        assert case.says in answer["message"], shorten(answer, 2000)
    # The next request is answered: the broken message neither stopped the worker nor stands
    # in front of the queue.
    assert cluster.call(LIST, {"tenant": "fuzz-next"}) == {"ok": True, "stacks": []}
    assert cluster.row_counts() == before
    cluster.assert_healthy(f"after the {case.id} message")
    logged = cluster.log_since_mark()
    assert logged.count("refused a message") == 1, logged[-3000:]
    assert SECRET not in logged, "the refused message's body reached the log"
    # Rejected, not left to come back after the visibility timeout.
    assert _unacknowledged(cluster) == 0


def test_unknown_task_gets_not_registered(cluster: FuzzCluster) -> None:
    task_id = str(uuid.uuid4())
    cluster.publish(_body(), {"task": "conv_tasks.stack.nope", "id": task_id, "lang": "py"})
    result = AsyncResult(task_id, app=cluster.app)
    with pytest.raises(NotRegistered):
        result.get(timeout=ANSWER_TIMEOUT)
    cluster.assert_healthy("after a message for an unknown task")
    assert _unacknowledged(cluster) == 0


def test_lone_surrogate_escaped_in_raw_json_is_refused_by_field(cluster: FuzzCluster) -> None:
    """JSON can carry "\\ud800", which decodes to text that is not Unicode."""
    task_id = str(uuid.uuid4())
    body = b'[[], {"tenant": "\\ud800", "stack": "\\udfff\\ud800"}, {}]'
    cluster.publish(body, {"task": "conv_tasks.stack.show", "id": task_id, "lang": "py"})
    answer = AsyncResult(task_id, app=cluster.app).get(timeout=ANSWER_TIMEOUT)
    problems = problems_of(answer)
    assert {p["path"] for p in problems} == {"tenant", "stack"}, shorten(answer)
    assert all("surrogate" in p["message"] for p in problems), shorten(answer)
    cluster.assert_healthy("after lone surrogates")


def test_a_storm_of_broken_messages_leaves_the_worker_serving(cluster: FuzzCluster) -> None:
    """Every broken message above, three times over, in one go; then a plain request."""
    before = cluster.row_counts()
    for _ in range(3):
        for case in BROKEN:
            if "bomb" in case.id or "past-max" in case.id or "million" in case.id:
                continue  # the big ones once is enough (above)
            task_id = str(uuid.uuid4())
            cluster.publish(
                case.body(),
                _headers(case, task_id),
                content_type=case.content_type,
                content_encoding=case.content_encoding,
            )
    assert cluster.call(LIST, {"tenant": "fuzz-after-storm"}, timeout=60) == {
        "ok": True,
        "stacks": [],
    }
    assert cluster.row_counts() == before
    cluster.assert_healthy("after a storm of broken messages")
