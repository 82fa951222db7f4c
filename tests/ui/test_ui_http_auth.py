"""Signing in to the web view (tokens), its cookie, tenancy, operators and cross-site posts,
over HTTP against real workers."""

from __future__ import annotations

import time
from http.cookies import SimpleCookie

import httpx
from ui_edges import UI_SECRET, TokenEdge, signed_in
from ui_stacks import Stacks, hidden_marker

from conv_tasks.client import Client
from conv_tasks.edge import token_hash
from conv_tasks.ui import COOKIE_NAME, Session, SessionCodec


def _cookie_of(answer: httpx.Response) -> SimpleCookie:
    jar: SimpleCookie = SimpleCookie()
    jar.load(answer.headers["set-cookie"])
    return jar


def test_a_page_without_a_session_sends_the_browser_to_sign_in(token_edge: TokenEdge) -> None:
    with httpx.Client(base_url=token_edge.url, timeout=60) as http:
        answer = http.get("/ui/stacks/abc", params={"rstatus": "FAILED"})
        assert answer.status_code == 303
        assert (
            answer.headers["location"] == "/ui/login?next=%2Fui%2Fstacks%2Fabc%3Frstatus%3DFAILED"
        )
        form = http.get(answer.headers["location"])
        assert form.status_code == 200 and 'name="token"' in form.text
        assert 'value="/ui/stacks/abc?rstatus=FAILED"' in form.text
        fragment = http.get("/ui/stacks/abc/graph", headers={"HX-Request": "true"})
        assert fragment.status_code == 401 and "<html" not in fragment.text
        assert http.get("/ui/stacks/abc/events/stream").status_code == 401


def test_a_token_signs_in_and_the_cookie_names_the_tenant_only(token_edge: TokenEdge) -> None:
    with httpx.Client(base_url=token_edge.url, timeout=60) as http:
        answer = http.post("/ui/login", data={"token": token_edge.token, "next": "/ui/?name=x"})
        assert answer.status_code == 303 and answer.headers["location"] == "/ui/?name=x"
        morsel = _cookie_of(answer)[COOKIE_NAME]
        assert morsel["httponly"] and morsel["samesite"] == "Strict" and morsel["path"] == "/ui/"
        assert int(morsel["max-age"]) > 0
        value = morsel.value
        assert token_edge.token not in value and token_hash(token_edge.token) not in value
        http.cookies.set(COOKIE_NAME, value)
        listed = http.get("/ui/")
        assert listed.status_code == 200 and token_edge.tenant in listed.text
        assert token_edge.token not in listed.text

        out = http.post("/ui/logout")
        assert out.status_code == 303 and out.headers["location"] == "/ui/login"
        assert _cookie_of(out)[COOKIE_NAME]["max-age"] == "0"
        http.cookies.clear()
        assert http.get("/ui/").status_code == 303


def test_a_wrong_token_is_refused_with_a_page_that_does_not_repeat_it(
    token_edge: TokenEdge,
) -> None:
    wrong = "wrong-" + hidden_marker()
    with httpx.Client(base_url=token_edge.url, timeout=60) as http:
        for data in ({"token": wrong}, {"token": ""}, {}):
            answer = http.post("/ui/login", data=data)
            assert answer.status_code == 401, answer.text
            assert "set-cookie" not in answer.headers and wrong not in answer.text
            assert "token" in answer.text.lower()
    assert wrong not in token_edge.log.read_text()


def _forged(session: Session, secret: str = UI_SECRET) -> str:
    return SessionCodec(secret.encode()).dump(session)


def test_tampered_forged_or_expired_cookies_get_no_page(token_edge: TokenEdge) -> None:
    with signed_in(token_edge, token_edge.token) as good:
        value = good.cookies[COOKIE_NAME]
        _refused_all(token_edge, value)
        # The real one still works: nothing was changed by the others.
        assert good.get("/ui/").status_code == 200


def _refused_all(token_edge: TokenEdge, value: str) -> None:
    codec = SessionCodec(UI_SECRET.encode())
    fingerprint = codec.fingerprint(token_hash(token_edge.token))
    later = time.time() + 3600
    bad_values = [
        value[:-3] + ("xyz" if not value.endswith("xyz") else "abc"),
        value.replace(".", "..", 1),
        "garbage",
        # Signed with another secret; as an operator; expired; under another mode; with a
        # fingerprint of no token in the file.
        _forged(Session(token_edge.tenant, later, "tokens", fingerprint), "x" * 40),
        _forged(Session("*", later, "tokens", fingerprint)),
        _forged(Session(token_edge.tenant, time.time() - 5, "tokens", fingerprint)),
        _forged(Session(token_edge.tenant, later, "noauth", fingerprint)),
        _forged(Session(token_edge.tenant, later, "tokens", "0" * 32)),
    ]
    with httpx.Client(base_url=token_edge.url, timeout=60) as http:
        for bad in bad_values:
            http.cookies.set(COOKIE_NAME, bad)
            answer = http.get("/ui/")
            assert answer.status_code == 303, (bad, answer.text)
            assert answer.headers["location"].startswith("/ui/login")
            form = http.get("/ui/login")
            assert "session has ended or its cookie is not valid" in form.text
            assert http.get("/ui/", headers={"HX-Request": "true"}).status_code == 401


def test_another_tenant_s_stack_is_not_found_exactly_as_a_missing_one(
    token_edge: TokenEdge, workers: object
) -> None:
    theirs = Stacks(Client(tenant=token_edge.other_tenant, timeout=60))
    stack = theirs.secret_stack(f"theirs-{time.monotonic_ns()}", hidden_marker())
    missing_id = "00000000-0000-4000-8000-000000000000"
    with signed_in(token_edge, token_edge.token) as mine:
        for path in ("", "/history", "/template", "/graph", "/resources/first", "/events/stream"):
            foreign = mine.get(f"/ui/stacks/{stack['id']}{path}")
            missing = mine.get(f"/ui/stacks/{missing_id}{path}")
            assert foreign.status_code == missing.status_code == 404, (path, foreign.text)
            assert foreign.text.replace(stack["id"], missing_id) == missing.text
        assert mine.get("/ui/", params={"tenant": token_edge.other_tenant}).status_code == 404


def test_an_operator_sees_every_tenant_s_stacks(token_edge: TokenEdge, workers: object) -> None:
    name = f"everyone-{time.monotonic_ns()}"
    for tenant in (token_edge.tenant, token_edge.other_tenant):
        Stacks(Client(tenant=tenant, timeout=60)).failed_stack(name)
    theirs = Client(tenant=token_edge.other_tenant, timeout=60).get(name)
    with signed_in(token_edge, token_edge.operator_token) as operator:
        listed = operator.get("/ui/", params={"name": name})
        assert listed.status_code == 200, listed.text
        assert "of every tenant" in listed.text
        # Each stack twice: under Needs attention and in the list.
        assert listed.text.count(f'data-stack="{name}"') == 4
        for tenant in (token_edge.tenant, token_edge.other_tenant):
            assert f"tenant={tenant}" in listed.text
        shown = operator.get(
            f"/ui/stacks/{theirs['id']}", params={"tenant": token_edge.other_tenant}
        )
        assert shown.status_code == 200 and 'data-resource="bad"' in shown.text
        needs = operator.get(f"/ui/stacks/{theirs['id']}")
        assert needs.status_code == 400 and "tenant" in needs.text
        one = operator.get("/ui/", params={"name": name, "tenant": token_edge.tenant})
        assert one.text.count(f'data-stack="{name}"') == 2
    # On the Heat API too, an operator's token reads any tenant's stacks (reader: only reads).
    with httpx.Client(base_url=token_edge.url, timeout=60) as http:
        headers = {"X-Auth-Token": token_edge.operator_token}
        heat = http.get(f"/v1/{token_edge.other_tenant}/stacks", headers=headers)
        assert heat.status_code == 200 and name in heat.text
        refused = http.post(f"/v1/{token_edge.other_tenant}/stacks", headers=headers, json={})
        assert refused.status_code == 403


def test_sign_in_and_out_from_another_site_are_refused(token_edge: TokenEdge) -> None:
    with httpx.Client(base_url=token_edge.url, timeout=60) as http:
        data = {"token": token_edge.token}
        for headers in (
            {"Origin": "http://evil.example"},
            {"Origin": "null"},
            {"Referer": "http://evil.example/page"},
        ):
            answer = http.post("/ui/login", data=data, headers=headers)
            assert answer.status_code == 403, answer.text
            assert "set-cookie" not in answer.headers
            assert http.post("/ui/logout", headers=headers).status_code == 403
        own = token_edge.url.removeprefix("http://")
        same = http.post("/ui/login", data=data, headers={"Origin": f"http://{own}"})
        assert same.status_code == 303 and COOKIE_NAME in same.headers["set-cookie"]
