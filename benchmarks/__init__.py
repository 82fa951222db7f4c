"""Benchmarks of conv_tasks: the traversal planner and the engine against a bare Celery hop."""
