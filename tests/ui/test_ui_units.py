"""The web view's pure parts, without services: session cookies, strict query strings,
routes, how statuses and durations are said, the configuration it refuses to start with."""

from __future__ import annotations

import base64
import json

import pytest

from conv_tasks.edge import (
    ApiConfigError,
    ApiFault,
    Identity,
    StaticTokens,
    authorize,
    token_expiry,
    token_hash,
)
from conv_tasks.errors import InvalidInput
from conv_tasks.settings import Settings
from conv_tasks.ui import Session, SessionCodec, ui_config
from conv_tasks.ui.errors import UiError
from conv_tasks.ui.login import safe_next
from conv_tasks.ui.query import Query, with_params
from conv_tasks.ui.routes import route, stack_path
from conv_tasks.ui.views import badge, cli_commands, duration, page_of

SECRET = b"s" * 32
NOW = 1_800_000_000.0


def _session(**changes: object) -> Session:
    fields: dict[str, object] = {"tenant": "acme", "expires_at": NOW + 60, "mode": "tokens"}
    fields.update(changes)
    return Session(**fields)  # type: ignore[arg-type]


def test_a_cookie_reads_back_as_the_session_it_was_made_from() -> None:
    codec = SessionCodec(SECRET)
    made = _session(fingerprint=codec.fingerprint(token_hash("tok")))
    assert codec.load(codec.dump(made), now=NOW, mode="tokens") == made


def test_a_cookie_holds_neither_the_token_nor_its_hash() -> None:
    codec = SessionCodec(SECRET)
    token = "the-token-itself-0123456789"
    cookie = codec.dump(_session(fingerprint=codec.fingerprint(token_hash(token))))
    payload = base64.urlsafe_b64decode(cookie.split(".")[1] + "==").decode()
    assert token not in cookie and token not in payload
    assert token_hash(token) not in payload and token_hash(token)[:32] not in payload


@pytest.mark.parametrize(
    "spoil",
    [
        lambda c: c[:-2] + ("AA" if not c.endswith("AA") else "BB"),  # the mac
        lambda c: c.replace("v1.", "v2.", 1),
        lambda c: c + ".x",
        lambda c: "",
        lambda c: "v1." + "A" * 5000 + ".x",
        lambda c: "v1.\u00e9\u00e9.x",
    ],
)
def test_an_altered_cookie_reads_as_no_session(spoil: object) -> None:
    codec = SessionCodec(SECRET)
    cookie = codec.dump(_session())
    assert codec.load(spoil(cookie), now=NOW, mode="tokens") is None  # type: ignore[operator]


def test_a_cookie_whose_tenant_was_changed_keeps_no_session() -> None:
    codec = SessionCodec(SECRET)
    version, payload, mac = codec.dump(_session()).split(".")
    body = json.loads(base64.urlsafe_b64decode(payload + "=="))
    body["t"] = "*"
    forged = base64.urlsafe_b64encode(json.dumps(body).encode()).rstrip(b"=").decode()
    assert codec.load(f"{version}.{forged}.{mac}", now=NOW, mode="tokens") is None


def test_an_expired_a_foreign_or_another_mode_s_cookie_reads_as_no_session() -> None:
    codec = SessionCodec(SECRET)
    assert codec.load(codec.dump(_session(expires_at=NOW - 1)), now=NOW, mode="tokens") is None
    other = SessionCodec(b"o" * 32)
    assert codec.load(other.dump(_session()), now=NOW, mode="tokens") is None
    assert codec.load(codec.dump(_session()), now=NOW, mode="keystone") is None


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(ValueError):
        SessionCodec(b"short")


def test_the_edge_refuses_to_serve_the_view_with_tokens_and_no_secret() -> None:
    with pytest.raises(ApiConfigError, match="CONV_TASKS_UI_SECRET"):
        ui_config(Settings(api_auth="tokens"))
    with pytest.raises(ApiConfigError, match="CONV_TASKS_UI=0"):
        ui_config(Settings(api_auth="keystone"))
    assert len(ui_config(Settings(api_auth="noauth")).secret) >= 32  # a random one
    given = ui_config(Settings(api_auth="tokens", ui_secret="x" * 40))
    assert given.secret == b"x" * 40 and "x" * 40 not in repr(given)


def test_ui_settings_are_read_and_checked() -> None:
    read = Settings.from_env(
        {
            "CONV_TASKS_UI_SECRET": "y" * 32,
            "CONV_TASKS_UI_SESSION_TTL": "2h",
            "CONV_TASKS_UI_MAX_STREAMS": "7",
            "CONV_TASKS_UI_HEARTBEAT": "5s",
            "CONV_TASKS_UI": "0",
        }
    )
    assert (read.ui_session_ttl, read.ui_max_streams, read.ui_heartbeat) == (7200.0, 7, 5.0)
    assert not read.ui_enabled and "y" * 32 not in repr(read)
    with pytest.raises(InvalidInput) as refused:
        Settings.from_env(
            {"CONV_TASKS_UI_SECRET": "short-secret", "CONV_TASKS_UI_MAX_STREAMS": "0"}
        )
    text = str(refused.value)
    assert "CONV_TASKS_UI_SECRET" in text and "short-secret" not in text
    assert "CONV_TASKS_UI_MAX_STREAMS" in text


def test_an_operator_identity_acts_for_every_tenant_and_a_reader_only_reads() -> None:
    operator = StaticTokens({token_hash("op"): Identity("*", reader=True)})
    identity = operator.identify("", {"x-auth-token": "op"})
    assert identity.all_tenants
    authorize(identity, "anyone", "GET")
    with pytest.raises(ApiFault) as refused:
        authorize(identity, "anyone", "POST")
    assert refused.value.status == 403
    with pytest.raises(ApiFault) as hidden:
        authorize(Identity("a"), "b", "GET")
    assert hidden.value.status == 404


def test_keystone_s_token_expiry_is_read_from_its_token_data() -> None:
    assert token_expiry({"token": {"expires_at": "2030-01-01T00:00:00.000000Z"}}) == 1893456000.0
    assert token_expiry({"access": {"token": {"expires": "2030-01-01T00:00:00Z"}}}) == 1893456000.0
    assert token_expiry({"token": {"expires_at": "soon"}}) is None
    assert token_expiry(None) is None


def test_query_strings_are_read_strictly() -> None:
    query = Query.parse(b"name=caf%C3%A9&tag=a,b&tag=c&limit=20&status=failed&flag=1")
    assert query.text("name") == "café"
    assert query.names("tag") == ["a", "b", "c"]
    assert query.number("limit", default=50, low=1, high=500) == 20
    assert query.choices("status", ["FAILED", "COMPLETE"]) == ["FAILED"]
    assert query.flag("flag") and not query.flag("other")
    for raw, words in [
        (b"name=%FF", "not UTF-8"),
        (b"name=\xff", "not UTF-8"),
        (b"%FF=1", "not UTF-8"),
        (b"name=" + b"x" * 2000, "longer than"),
    ]:
        with pytest.raises(UiError) as refused:
            Query.parse(raw)
        assert refused.value.status == 400 and words in refused.value.message
    bad = Query.parse(b"limit=0&status=NOPE&name=" + b"x" * 300 + b"&marker=a%00b&flag=maybe")
    for read in (
        lambda: bad.number("limit", default=50, low=1, high=500),
        lambda: bad.choices("status", ["FAILED"]),
        lambda: bad.text("name"),
        lambda: bad.name("marker"),
        lambda: bad.flag("flag"),
    ):
        with pytest.raises(UiError) as refused:
            read()
        assert refused.value.status == 400


def test_routes_name_the_pages_and_refuse_the_rest() -> None:
    assert route("GET", "/ui/").name == "stacks"
    assert route("GET", "/ui").name == "home_redirect"
    assert route("GET", "/ui/stacks/abc").params == {"stack": "abc"}
    assert route("GET", "/ui/stacks/abc/resources/web").params == {
        "stack": "abc",
        "resource": "web",
    }
    assert route("GET", "/ui/stacks/abc/events/stream").name == "events_stream"
    assert (
        route("POST", "/ui/login").name == "login"
        and route("GET", "/ui/login").name == "login_form"
    )
    for method, path, status in [
        ("GET", "/ui/nothing", 404),
        ("GET", "/ui/stacks/", 404),
        ("GET", "/ui/stacks/abc/nothing", 404),
        ("POST", "/ui/", 405),
        ("GET", "/ui/logout", 405),
        ("DELETE", "/ui/stacks/abc", 405),
    ]:
        with pytest.raises(UiError) as refused:
            route(method, path)
        assert refused.value.status == status
    assert stack_path("a b", "resources", "x/y") == "/ui/stacks/a%20b/resources/x%2Fy"


def test_sign_in_goes_on_only_to_a_page_of_the_view() -> None:
    assert safe_next("/ui/stacks/x?tenant=a") == "/ui/stacks/x?tenant=a"
    for elsewhere in ("https://evil.example/", "//evil.example/ui/", "/v1/x", "/ui/\r\nX: y", ""):
        assert safe_next(elsewhere) == "/ui/"


def test_statuses_are_told_by_an_icon_and_words_not_colour_alone() -> None:
    failed, running, done = badge("CREATE_FAILED"), badge("UPDATE_IN_PROGRESS"), badge("X")
    assert (failed.icon, failed.text, failed.css) == ("\u2716", "CREATE FAILED", "failed")
    assert running.css == "in-progress" and running.icon != failed.icon
    assert done.text == "X" and done.icon
    paused, resumed = badge("SUSPEND_COMPLETE"), badge("RESUME_COMPLETE")
    assert (paused.text, paused.css, paused.label) == ("SUSPEND COMPLETE", "suspended", "suspended")
    assert paused.icon not in (failed.icon, running.icon, badge("CREATE_COMPLETE").icon)
    assert resumed.css == "complete" and badge("SUSPEND_FAILED").css == "failed"


def test_durations_pages_and_commands() -> None:
    assert [duration(s) for s in (None, 0.25, 42, 90, 3725, 200000)] == [
        "\u2013", "0.2 s", "42 s", "1 min 30 s", "1 h 02 min", "2 d 07 h"
    ]  # fmt: skip
    chunk = page_of(list(range(250)), 3, 100)
    assert (list(chunk.items)[:1], chunk.pages, chunk.first, chunk.last) == ([200], 3, 201, 250)
    assert page_of([], 9, 100).number == 1
    assert cli_commands("id-1", "default")[0] == "conv-tasks stack show id-1"
    assert cli_commands("id-1", "a b")[0] == "conv-tasks --tenant 'a b' stack show id-1"
    assert with_params("/ui/", {"a": None, "b": "", "c": ["x", "y"], "d": 1}) == "/ui/?c=x&c=y&d=1"


def test_the_view_and_the_edge_never_load_the_engine_or_the_database() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from conv_tasks.server import edge_app\n"
        "from conv_tasks.settings import Settings\n"
        "import conv_tasks.ui, conv_tasks.ui.graph\n"
        "from conv_tasks.ui.rendering import environment\n"
        "[environment().get_template(t) for t in environment().list_templates()]\n"
        "app = edge_app('127.0.0.1', Settings())\n"
        "assert app.ui is not None\n"
        "print(sorted(m for m in sys.modules if m.startswith(('conv_tasks.engine', "
        "'conv_tasks.db', 'conv_tasks.tasks', 'sqlalchemy'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout


def _get(app: object, path: str) -> tuple[int, dict[str, str], bytes]:
    """One GET through the ASGI app, in process: its status, headers and body."""
    import anyio

    sent: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1")],
        "scheme": "http",
        "server": ("127.0.0.1", 8004),
        "client": ("127.0.0.1", 1),
    }
    anyio.run(app, scope, receive, send)  # type: ignore[arg-type]
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}  # type: ignore[attr-defined]
    body = b"".join(m.get("body", b"") for m in sent[1:])  # type: ignore[misc]
    return int(start["status"]), headers, body  # type: ignore[call-overload]


def test_the_edge_serves_the_view_unless_it_is_turned_off() -> None:
    from conv_tasks.server import edge_app

    served = edge_app("127.0.0.1", Settings())
    status, _, body = _get(served, "/ui/login")
    assert status == 200 and b'name="tenant"' in body
    assert _get(served, "/ui/static/htmx.min.js")[0] == 200
    status, headers, _ = _get(served, "/ui/nothing")
    assert status == 404 and headers["content-type"].startswith("text/html")
    bare = edge_app("127.0.0.1", Settings(ui_enabled=False))
    status, _, body = _get(bare, "/ui/login")
    assert status == 404 and json.loads(body)["error"]["type"] == "NotFound"


def test_a_stream_slot_is_given_back_once() -> None:
    from conv_tasks.ui.event_stream import StreamSlots

    slots = StreamSlots(2)
    first, second = slots.take(), slots.take()
    assert first is not None and second is not None and slots.take() is None
    first.release()
    first.release()  # the stream's end and the response's both release it
    assert slots.open == 1
    third = slots.take()
    assert third is not None and slots.take() is None
