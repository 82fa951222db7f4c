"""get_file: puts the text of the files given with a template in place of its calls.

Done once when the template is loaded, so nothing later reads files. A call naming a
file that was not given is left in place for function_checks to report with its path.
It must never read the file system: files come only from the mapping it is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.template.functions import function_call

# The sections whose values may hold functions.
_SECTIONS = ("resources", "outputs")


def include_files(document: Mapping[str, Any], files: Mapping[str, str] | None) -> dict[str, Any]:
    """A copy of document with each get_file whose file is given replaced by its text."""
    if not files:
        return dict(document)  # nothing to put in: calls stay for function_checks to report
    result = dict(document)
    for section in _SECTIONS:
        if section in result:
            result[section] = _include(result[section], files)
    return result


def _include(value: Any, files: Mapping[str, str]) -> Any:
    call = function_call(value)
    if call is not None and call[0] == "get_file":
        name = call[1]
        if isinstance(name, str) and isinstance(files.get(name), str):
            return files[name]
        return value
    if isinstance(value, Mapping):
        return {k: _include(v, files) for k, v in value.items()}
    if isinstance(value, list):
        return [_include(v, files) for v in value]
    return value
