"""Graphviz's `dot`, run once per drawing: DOT in on stdin, SVG out on stdout.

It runs in a subprocess with a deadline (a graph too large for it must not hold a thread of
the edge's pool for minutes), with no shell and a fixed argument list: nothing of the graph
is ever on its command line. Debian's graphviz package provides it
(scripts/ensure-graphviz.sh installs it).
"""

from __future__ import annotations

import subprocess

from conv_tasks.ui.graph.errors import GraphRenderError

DOT = "dot"
# Seconds dot may take. A focused graph (300 nodes at most by default) takes well under one.
DOT_TIMEOUT_SECS = 20.0
# How much of dot's complaint a GraphRenderError repeats.
MAX_STDERR_CHARS = 400


def run_dot(source: str, *, binary: str = DOT, timeout: float = DOT_TIMEOUT_SECS) -> bytes:
    """The SVG dot lays `source` out as; GraphRenderError when dot is missing, fails or runs
    past `timeout` seconds (it is killed then)."""
    try:
        done = subprocess.run(
            [binary, "-Tsvg"],
            input=source.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise GraphRenderError(
            f"Cannot draw the graph: Graphviz's {binary!r} command is not installed "
            "(Debian's graphviz package: scripts/ensure-graphviz.sh installs it)."
        ) from None
    except PermissionError:
        raise GraphRenderError(
            f"Cannot draw the graph: Graphviz's {binary!r} command cannot be run here."
        ) from None
    except subprocess.TimeoutExpired:
        raise GraphRenderError(
            f"Cannot draw the graph: Graphviz's {binary!r} took longer than {timeout:g} s "
            "to lay it out, and was stopped."
        ) from None
    if done.returncode != 0 or not done.stdout:
        said = done.stderr.decode("utf-8", "replace").strip()[:MAX_STDERR_CHARS]
        raise GraphRenderError(
            f"Cannot draw the graph: Graphviz's {binary!r} failed (exit status "
            f"{done.returncode}): {said or 'it wrote nothing'}"
        )
    return done.stdout
