"""What a worker says when RabbitMQ holds conv_tasks' queues otherwise (the replies are
RabbitMQ 3.10's own, as tests/integration/test_integration_quorum_queues.py gets them)."""

from __future__ import annotations

import pytest

from conv_tasks.broker.options import QueueType
from conv_tasks.broker.queue_check import mismatch_problem, vhost_of

CLASSIC_HELD = (
    "PRECONDITION_FAILED - inequivalent arg 'x-queue-type' for queue 'conv_tasks' in vhost "
    "'prod': received the value 'quorum' of type 'longstr' but current is none"
)
QUORUM_HELD = (
    "PRECONDITION_FAILED - inequivalent arg 'x-queue-type' for queue 'conv_tasks.nodes' in "
    "vhost 'prod': received none but current is the value 'quorum' of type 'longstr'"
)
EXCHANGE_HELD = (
    "PRECONDITION_FAILED - inequivalent arg 'type' for exchange 'conv_tasks.nodes' in vhost "
    "'prod': received 'topic' but current is 'direct'"
)


def test_a_classic_queue_where_quorum_is_wanted_names_the_setting_and_both_ways_out() -> None:
    problem = mismatch_problem(CLASSIC_HELD, QueueType.QUORUM, "prod")
    assert problem is not None and problem.path == "CONV_TASKS_RABBITMQ_QUEUE_TYPE"
    assert problem.message == (
        "is quorum, but RabbitMQ's queue 'conv_tasks' in vhost 'prod' is a classic queue; set "
        "CONV_TASKS_RABBITMQ_QUEUE_TYPE=classic, or move the queues to quorum queues "
        "(docs/operations/rabbitmq.md, 'Moving from classic queues')"
    )
    assert "\n" not in str(problem)


def test_a_quorum_queue_where_classic_is_wanted() -> None:
    problem = mismatch_problem(QUORUM_HELD, QueueType.CLASSIC, "prod")
    assert problem is not None
    assert problem.message.startswith(
        "is classic, but RabbitMQ's queue 'conv_tasks.nodes' in vhost 'prod' is a quorum queue; "
        "set CONV_TASKS_RABBITMQ_QUEUE_TYPE=quorum"
    )


def test_an_exchange_of_another_type_is_named_with_rabbitmqs_words() -> None:
    problem = mismatch_problem(EXCHANGE_HELD, QueueType.QUORUM, "prod")
    assert problem is not None and problem.path == "CONV_TASKS_RABBITMQ_QUEUE_TYPE"
    assert "exchange 'conv_tasks.nodes' in vhost 'prod' was declared otherwise" in problem.message
    assert "received 'topic' but current is 'direct'" in problem.message


@pytest.mark.parametrize(
    "reply",
    ["ACCESS_REFUSED - access to queue 'conv_tasks' in vhost 'prod' refused", "NOT_FOUND - x"],
)
def test_other_refusals_are_not_a_queue_type_problem(reply: str) -> None:
    assert mismatch_problem(reply, QueueType.QUORUM, "prod") is None


@pytest.mark.parametrize(
    ("url", "vhost"),
    [
        ("amqp://u:p@mq1:5672/conv_tasks", "conv_tasks"),
        ("amqp://u:p@mq1:5672//", "/"),
        ("amqp://mq1", "/"),
        ("amqp://u:p@mq1/a%2Fb;amqp://u:p@mq2/a%2Fb", "a/b"),
    ],
)
def test_the_vhost_named_in_messages(url: str, vhost: str) -> None:
    assert vhost_of(url) == vhost
