"""conv_tasks: a convergence engine for declarative stacks on Celery, Redis and PostgreSQL."""

__version__ = "0.1.0"
