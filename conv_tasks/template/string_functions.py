"""The results of the functions that build strings: str_replace (and its strict forms),
list_join, str_split, digest and make_url, with Heat's behaviour for each variant.

Pure: each takes arguments already evaluated and returns a value or raises Unresolvable.
It must never look at parameters or other resources.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib import parse as urlparse

from conv_tasks.template.unresolvable import Unresolvable


def _json(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError) as exc:
        raise Unresolvable(f"a value cannot be turned into JSON: {exc}") from None


def replacement_text(value: Any, key: str, variant: str, allow_empty: bool) -> str:
    """How a str_replace param value is put into the template."""
    empty = Unresolvable(f"param '{key}' has no value or an empty one, which is not allowed")
    if value is None:
        if not allow_empty:
            raise empty
        return ""
    if isinstance(value, str | int | float | bool):
        # str(), as Heat does: a boolean reads True or False.
        text = str(value)
    elif variant == "json" and isinstance(value, Mapping | list | tuple):
        if not allow_empty and len(value) == 0:
            raise empty
        text = _json(value)
    else:
        kinds = "strings, numbers, lists or maps" if variant == "json" else "strings or numbers"
        raise Unresolvable(f"params must be {kinds}; '{key}' is not")
    if not allow_empty and not text:
        raise empty
    return text


def str_replace(
    template: Any, params: Any, variant: str, *, strict: bool = False, allow_empty: bool = True
) -> str:
    """template with every param key replaced: longer keys first, equal lengths in
    alphabetical order, and no replacement ever replaced again."""
    if not isinstance(template, str):
        raise Unresolvable("'template' must be a string")
    if not isinstance(params, Mapping) or not all(isinstance(k, str) and k for k in params):
        raise Unresolvable("'params' must be a mapping with non-empty string keys")
    keys = sorted(sorted(params), key=len, reverse=True)
    values = {key: replacement_text(params[key], key, variant, allow_empty) for key in keys}
    found: set[str] = set()

    def replace(text: str, remaining: list[str]) -> str:
        if not remaining:
            return text
        key, rest = remaining[0], remaining[1:]
        pieces = text.split(key)
        if len(pieces) > 1:
            found.add(key)
        return values[key].join(replace(piece, rest) for piece in pieces)

    result = replace(template, keys)
    missing = [key for key in keys if key not in found]
    if strict and missing:
        raise Unresolvable("these params are not in the template: " + ", ".join(missing))
    return result


def list_join(delimiter: Any, lists: Sequence[Any], variant: str) -> str:
    if not isinstance(delimiter, str):
        raise Unresolvable("the delimiter must be a string")
    items: list[str] = []
    for i, value in enumerate(lists, start=1):
        if value is None:
            continue
        if not isinstance(value, list | tuple):
            raise Unresolvable(f"argument {i} must be a list")
        items.extend(_join_item(item, variant) for item in value)
    return delimiter.join(items)


def _join_item(item: Any, variant: str) -> str:
    if item is None:
        return ""
    if isinstance(item, str):
        return item
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int | float):
        # Heat refuses numbers here; conv_tasks always joined them, and still does.
        return str(item)
    if variant == "multiple" and isinstance(item, Mapping | list | tuple):
        return _json(item)
    kinds = "strings, numbers, maps or lists" if variant == "multiple" else "strings or numbers"
    raise Unresolvable(f"items to join must be {kinds}, not {item!r:.80}")


def str_split(delimiter: Any, text: Any, index: Any = None) -> Any:
    if text is None:
        return None
    if not isinstance(delimiter, str) or not isinstance(text, str):
        raise Unresolvable("the delimiter and the string must be strings")
    if delimiter == "":
        raise Unresolvable("the delimiter must not be empty")
    pieces = text.split(delimiter)
    if index is None:
        return pieces
    try:
        position = int(index)
    except (TypeError, ValueError):
        raise Unresolvable(f"the index must be an integer, not {index!r:.40}") from None
    if not -len(pieces) <= position < len(pieces):
        raise Unresolvable(
            f"index {position} is out of range: the string splits into {len(pieces)} items "
            f"(0 to {len(pieces) - 1})"
        )
    return pieces[position]


def digest(algorithm: Any, value: Any) -> str:
    if not isinstance(algorithm, str) or not isinstance(value, str):
        raise Unresolvable("the algorithm and the value must be strings")
    if algorithm.lower() not in hashlib.algorithms_available:
        raise Unresolvable(f"unknown algorithm '{algorithm}'")
    try:
        data = value.encode("latin-1")  # as Heat does, so digests match Heat's
    except UnicodeEncodeError:
        raise Unresolvable(
            "the value has characters outside Latin-1, which Heat's digest cannot hash"
        ) from None
    try:
        hasher = hashlib.new(algorithm.lower())
        hasher.update(data)
        return hasher.hexdigest()
    except (TypeError, ValueError) as exc:
        # Listed by hashlib but not usable here (OpenSSL policy, or a variable-length
        # digest such as shake_128 that needs a length).
        raise Unresolvable(f"algorithm '{algorithm}' cannot be used: {exc}") from None


def make_url(parts: Any) -> str:
    if not isinstance(parts, Mapping):
        raise Unresolvable("the argument must be a mapping of URL parts")
    for key, value in parts.items():
        if key == "query":
            if not isinstance(value, Mapping):
                raise Unresolvable("'query' must be a map")
        elif key == "port":
            try:
                port = int(value)
            except (TypeError, ValueError):
                raise Unresolvable(f"invalid port {value!r:.40}") from None
            if isinstance(value, bool) or not 0 < port <= 65535:
                raise Unresolvable(f"invalid port {port}: it must be from 1 to 65535")
        elif not isinstance(value, str):
            raise Unresolvable(f"'{key}' must be a string")
    scheme = parts.get("scheme", "")
    if ":" in scheme:
        raise Unresolvable("'scheme' must not contain ':'")
    path = urlparse.quote(parts.get("path", ""))
    query = urlparse.urlencode(parts.get("query", {})).replace("%2F", "/")
    fragment = urlparse.quote(parts.get("fragment", ""))
    return urlparse.urlunsplit((scheme, _netloc(parts), path, query, fragment))


def _netloc(parts: Mapping[str, Any]) -> str:
    username = urlparse.quote(parts.get("username", ""), safe="")
    password = urlparse.quote(parts.get("password", ""), safe="")
    userinfo = ""
    if username or password:
        userinfo = username + (":" + password if password else "") + "@"
    host = parts.get("host", "")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = urlparse.quote(host, safe=":")
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    port = parts.get("port", "")
    return userinfo + host + (f":{port}" if port not in ("", None) else "")
