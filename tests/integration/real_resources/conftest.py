"""The services the stack of real resources acts on, each of its own, and private conv_tasks
workers whose connections name them (test_real_resources.py says what runs)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The worlds of the three kinds' own tests, and the private services they share.
for folder in (
    HERE.parent / "http_resource",
    HERE.parent / "celery_task",
    HERE.parents[1] / "chaos",
):
    sys.path.insert(0, str(folder))
