"""PostgreSQL persistence: models, sessions, repositories and migrations.

This package is the only place in conv_tasks that speaks SQL.
"""
