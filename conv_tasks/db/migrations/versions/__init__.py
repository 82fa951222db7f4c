"""Alembic revisions of the schema, one per change, applied in order by `conv-tasks db upgrade`.

Nothing imports from here: Alembic loads the revisions by path (and skips this file).
"""
