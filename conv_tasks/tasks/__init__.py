"""The Celery tasks: public stack API, graph nodes and beat jobs.

Tasks are thin: parse the JSON payload, call the engine, return JSON.
"""
