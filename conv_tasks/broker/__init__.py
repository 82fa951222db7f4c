"""The Celery broker: which one a URL names, its settings, and our fix to kombu's Redis transport.

Redis and RabbitMQ both carry conv_tasks' task messages; `options` decides,
from the broker URL alone, what each needs. Nothing here connects to a broker.
"""
