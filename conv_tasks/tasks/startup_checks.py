"""What stops beat as it starts: RabbitMQ holds conv_tasks' queues with another type than
CONV_TASKS_RABBITMQ_QUEUE_TYPE asks for (conv_tasks.broker.queue_check; a worker's consumer
says the same, conv_tasks.tasks.consumer). And a warning of kombu's that is not true of
conv_tasks' queues, left out of the worker's log.

Celery logs and ignores what a signal handler raises, so the check ends the process itself:
one critical log line naming the setting, then exit status 1.
"""

from __future__ import annotations

import logging

from celery import Celery

from conv_tasks.broker import TASK_QUEUE, BrokerKind, QueueType, broker_kind, check_queues
from conv_tasks.errors import InvalidInput
from conv_tasks.settings import Settings

log = logging.getLogger("conv_tasks.broker")
# What a worker or beat logs as it stops on queues of another type.
STOPS = "The %s stops. %s"
# Where kombu logs as it binds queues to Celery's delayed delivery exchanges.
DELAYED_DELIVERY_LOGGER = "kombu.transport.native_delayed_delivery"


def stop_unless_queues_match(app: Celery, settings: Settings, process: str) -> None:
    """Declare the app's queues on a RabbitMQ broker, once it answers (as often as Celery would
    try it); exit with one line if RabbitMQ refuses them."""
    if broker_kind(str(app.conf.broker_url)) is not BrokerKind.RABBITMQ:
        return
    connection = app.connection_for_write()
    try:
        try:
            connection.ensure_connection(max_retries=app.conf.broker_connection_max_retries)
        except connection.connection_errors:
            return  # Celery reports a broker it cannot reach
        check_queues(
            connection,
            list(app.amqp.queues.values()),
            QueueType(settings.rabbitmq_queue_type),
        )
    except InvalidInput as exc:
        log.critical(STOPS, process, exc)
        raise SystemExit(1) from None
    finally:
        connection.release()


class RequestExchangeNotice(logging.Filter):
    """Drops kombu's warning, as a worker binds its queues for native delayed delivery, that the
    request queue's exchange `conv_tasks` is direct and cannot delay a message.

    It is direct on purpose (a foreign caller's Celery declares it so); no request is ever sent
    with a countdown, and the node queue, which gets every countdown, has a topic exchange
    (conv_tasks.broker.options.conv_tasks_queues). A task sent to `conv_tasks` with a countdown
    would still be warned about, by Celery, as it is sent.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(f"Exchange {TASK_QUEUE} is a direct exchange")


def quiet_request_exchange_notice() -> None:
    """Install RequestExchangeNotice on kombu's delayed delivery logger (once)."""
    logger = logging.getLogger(DELAYED_DELIVERY_LOGGER)
    if not any(isinstance(f, RequestExchangeNotice) for f in logger.filters):
        logger.addFilter(RequestExchangeNotice())
