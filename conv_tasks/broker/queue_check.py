"""RabbitMQ holds conv_tasks' queues with the type the settings ask for, or one line says not.

A queue's type is fixed when RabbitMQ first declares it, and RabbitMQ refuses
to declare it again with another one (PRECONDITION_FAILED, "inequivalent arg
'x-queue-type'"). Left alone, a worker would stop with a traceback ending in
RabbitMQ's words, beat would log the refusal at each publish, and the CLI would
print a traceback; none of them names the setting. So beat declares
conv_tasks' queues once as it starts (`check_queues`), the worker's consumer
and the CLI turn the refusal into one line (`refusal`), each naming
CONV_TASKS_RABBITMQ_QUEUE_TYPE. The only module of conv_tasks.broker that talks
to a broker; it never shows the broker's URL.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import unquote, urlsplit

from amqp.exceptions import PreconditionFailed
from kombu import Connection, Queue

from conv_tasks.broker.options import QUEUE_TYPE_SETTING, QueueType
from conv_tasks.errors import InvalidInput, Problem

# RabbitMQ's reply when a declaration differs from what it holds, e.g. "PRECONDITION_FAILED -
# inequivalent arg 'x-queue-type' for queue 'conv_tasks' in vhost 'v': received the value
# 'quorum' of type 'longstr' but current is none".
_INEQUIVALENT = re.compile(
    r"inequivalent arg '(?P<arg>[^']*)' for (?P<kind>queue|exchange) '(?P<name>[^']*)'"
    r"(?: in vhost '[^']*')?: (?P<detail>.*)"
)
_MOVING = "docs/operations/rabbitmq.md, 'Moving from classic queues'"


def _declared_type(detail: str) -> QueueType:
    """The type RabbitMQ holds, from the end of its reply: 'current is none' is classic."""
    current = detail.rsplit("current is", 1)[-1]
    return QueueType.QUORUM if "quorum" in current else QueueType.CLASSIC


def mismatch_problem(reply_text: str, wanted: QueueType, vhost: str) -> Problem | None:
    """What to tell the operator about RabbitMQ's refusal `reply_text`, or None if it is not
    a declaration that differs from what RabbitMQ holds."""
    found = _INEQUIVALENT.search(reply_text)
    if found is None:
        return None
    kind, name, arg = found["kind"], found["name"], found["arg"]
    if kind == "queue" and arg == "x-queue-type":
        held = _declared_type(found["detail"])
        if held is not wanted:
            return Problem(
                QUEUE_TYPE_SETTING,
                f"is {wanted}, but RabbitMQ's queue {name!r} in vhost {vhost!r} is a {held} "
                f"queue; set {QUEUE_TYPE_SETTING}={held}, or move the queues to {wanted} "
                f"queues ({_MOVING})",
            )
    return Problem(
        QUEUE_TYPE_SETTING,
        f"is {wanted}, but RabbitMQ's {kind} {name!r} in vhost {vhost!r} was declared "
        f"otherwise ({arg}: {found['detail'].strip()}); see {_MOVING}",
    )


def refusal(exc: BaseException, wanted: QueueType, broker_url: str) -> InvalidInput | None:
    """RabbitMQ's refusal `exc` of a declaration as the error naming the setting; None if `exc`
    is anything else."""
    if not isinstance(exc, PreconditionFailed):
        return None
    problem = mismatch_problem(str(exc.reply_text), wanted, vhost_of(broker_url))
    return None if problem is None else InvalidInput([problem], what="configuration")


def vhost_of(url: str) -> str:
    """The virtual host an amqp:// URL names (`/` when it names none); of a list of URLs
    separated by `;` (a cluster's nodes), the first one's."""
    return unquote(urlsplit(url.split(";", 1)[0]).path[1:]) or "/"


def check_queues(connection: Connection, queues: Sequence[Queue], wanted: QueueType) -> None:
    """Declare `queues` (and their exchanges) on `connection` as the workers will; raise
    InvalidInput naming the setting when RabbitMQ holds one of them otherwise."""
    for queue in queues:
        channel = connection.channel()
        try:
            queue.bind(channel).declare()
        except PreconditionFailed as exc:
            error = refusal(exc, wanted, connection.as_uri())
            if error is None:
                raise
            raise error from None
        finally:
            channel.close()
