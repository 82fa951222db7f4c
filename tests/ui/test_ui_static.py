"""The vendored scripts are the files VENDORED.md names, with the hashes it gives."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import conv_tasks.ui

STATIC = Path(conv_tasks.ui.__file__).parent / "static"


def test_vendored_files_match_their_noted_versions_and_hashes() -> None:
    notes = (STATIC / "VENDORED.md").read_text()
    rows = re.findall(
        r"^\| `([^`]+)` \| `([^`]+)` \| ([0-9.]+) \| ([^|]+) \| `([0-9a-f]{64})` \|$", notes, re.M
    )
    assert {row[0] for row in rows} == {"htmx.min.js", "sse.min.js"}
    for name, package, version, licence, digest in rows:
        data = (STATIC / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, name
        assert "0BSD" in licence
        assert version.count(".") == 2 and package
    assert b"htmx" in (STATIC / "htmx.min.js").read_bytes()[:2000]
    assert b'defineExtension("sse"' in (STATIC / "sse.min.js").read_bytes()
