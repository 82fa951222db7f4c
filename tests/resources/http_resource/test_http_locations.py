"""ConvTasks::HTTP::Resource's URLs and headers: which are refused, and how an item's URL is
built."""

from __future__ import annotations

import pytest

from conv_tasks.resources.builtin.http import (
    DEFAULT_ITEM_URL,
    headers_problem,
    item_url,
    item_url_problem,
    url_problem,
)


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://example.test/x", "gopher://example.test/", "FILE:/etc/hosts"],
)
def test_a_scheme_other_than_http_or_https_is_refused_with_or_without_a_connection(
    url: str,
) -> None:
    for connected in (True, False):
        problem = url_problem(url, connected=connected)
        assert problem is not None and "is not allowed: use http or https" in problem, problem


def test_without_a_connection_a_url_is_absolute() -> None:
    assert url_problem("https://api.example.test/v1/items", connected=False) is None
    assert url_problem("HTTP://api.example.test/items", connected=False) is None
    for relative in ("items", "/items", "//api.example.test/items"):
        problem = url_problem(relative, connected=False)
        assert problem is not None and "must be an absolute http or https URL" in problem


def test_with_a_connection_a_url_is_a_path_never_another_host() -> None:
    assert url_problem("items", connected=True) is None
    assert url_problem("/v2/items?kind=a", connected=True) is None
    for elsewhere in ("https://elsewhere.test/items", "//elsewhere.test/items"):
        problem = url_problem(elsewhere, connected=True)
        assert problem is not None and "credentials to another host" in problem


def test_credentials_spaces_and_non_strings_are_refused() -> None:
    assert "holds credentials" in (url_problem("https://u:p@h.test/x", connected=False) or "")
    assert "holds credentials" in (url_problem("https://u@h.test/x", connected=False) or "")
    assert "spaces or control" in (url_problem("items\r\nHost: x", connected=True) or "")
    assert "must be a URL" in (url_problem(None, connected=True) or "")
    assert "must be a URL" in (url_problem("", connected=True) or "")


def test_an_item_url_puts_the_collection_and_the_escaped_id_in_its_template() -> None:
    assert item_url(DEFAULT_ITEM_URL, "https://h.test/items/", 7) == "https://h.test/items/7"
    assert item_url(DEFAULT_ITEM_URL, "items", "a b/c?d") == "items/a%20b%2Fc%3Fd"
    assert item_url("/things/{id}/", "items", "x") == "/things/x/"
    assert item_url("{url}/{id}?full=1", "v1/items", "x") == "v1/items/x?full=1"


def test_an_item_url_template_is_checked_like_a_url() -> None:
    assert item_url_problem(DEFAULT_ITEM_URL, connected=True) is None
    assert item_url_problem(DEFAULT_ITEM_URL, connected=False) is None
    assert "must hold {id}" in (item_url_problem("{url}/latest", connected=True) or "")
    assert "is not allowed" in (item_url_problem("file:///{id}", connected=False) or "")
    assert "another host" in (item_url_problem("https://x.test/{id}", connected=True) or "")
    assert item_url_problem("https://x.test/{id}", connected=False) is None


def test_headers_are_names_to_one_line_strings_and_never_the_engines_own() -> None:
    assert headers_problem({"X-Team": "ops", "Accept": "application/json"}) is None
    assert "is not a header name" in (headers_problem({"Bad Name": "x"}) or "")
    assert "on one line" in (headers_problem({"X-A": "a\r\nX-Injected: 1"}) or "")
    assert "on one line" in (headers_problem({"X-A": 3}) or "")
    assert "sent by conv_tasks" in (headers_problem({"idempotency-KEY": "mine"}) or "")
    assert "must map header names" in (headers_problem(["X-A"]) or "")
