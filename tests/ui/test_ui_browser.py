"""The web view in a real browser: Debian's Chromium, headless, driven by Selenium, against
an edge (noauth: the tenant in the address) and real workers.

- the stacks list shows a failed stack under Needs attention;
- the stack page's graph has one node per resource, the failed one marked;
- an event written while the page is open appears within 2 s, without a reload;
- the history row of an update shows its counts;
- a hidden parameter's value appears nowhere in the pages or in any SSE message.
"""

from __future__ import annotations

from typing import Any

from browser import poll
from selenium.webdriver.common.by import By
from ui_stacks import Stacks, hidden_marker, secret_template

LIVE_SECONDS = 2.0


def _open(driver: Any, url: str) -> None:
    driver.get(url)
    assert poll(lambda: driver.execute_script("return document.readyState") == "complete", limit=30)


def _sse_open(driver: Any) -> bool:
    return bool(
        driver.execute_script(
            "var live = document.getElementById('live');"
            "var data = live && live['htmx-internal-data'];"
            "return !!(data && data.sseEventSource && data.sseEventSource.readyState === 1);"
        )
    )


def test_a_failed_stack_is_listed_under_needs_attention(
    driver: Any, noauth_edge: str, stacks: Stacks
) -> None:
    stacks.secret_stack("healthy", hidden_marker())
    stacks.failed_stack("broken")
    _open(driver, f"{noauth_edge}/ui/?tenant={stacks.tenant}")
    rows = driver.find_elements(By.CSS_SELECTOR, "#attention tr.stack")
    assert [row.get_attribute("data-stack") for row in rows] == ["broken"]
    assert "CREATE FAILED" in rows[0].text and "failed" in rows[0].text
    listed = driver.find_elements(By.CSS_SELECTOR, "#stacks tr.stack")
    assert sorted(row.get_attribute("data-stack") for row in listed) == ["broken", "healthy"]


def test_the_graph_draws_one_node_per_resource_and_marks_the_failed_one(
    driver: Any, noauth_edge: str, stacks: Stacks
) -> None:
    stack = stacks.failed_stack("broken")
    resources = {r["name"] for r in stacks.client.resources(stack["id"])}
    _open(driver, f"{noauth_edge}/ui/stacks/{stack['id']}?tenant={stacks.tenant}")
    nodes = driver.find_elements(By.CSS_SELECTOR, "#graph svg g.node")
    drawn = [node.get_attribute("data-node") for node in nodes]
    assert sorted(drawn) == sorted(resources) == ["bad", "good"]
    failed = [n.get_attribute("data-node") for n in nodes if "failed" in n.get_attribute("class")]
    assert failed == ["bad"]
    bad = next(n for n in nodes if n.get_attribute("data-node") == "bad")
    assert bad.get_attribute("data-status") == "CREATE_FAILED"
    assert "CREATE_FAILED" in bad.text  # the status in words, not colour alone


def test_a_new_event_appears_live_and_the_update_s_history_shows_its_counts(
    driver: Any, noauth_edge: str, stacks: Stacks
) -> None:
    marker = hidden_marker()
    stack = stacks.secret_stack("live", marker)
    stack_url = f"{noauth_edge}/ui/stacks/{stack['id']}?tenant={stacks.tenant}"
    _open(driver, stack_url)
    assert poll(lambda: _sse_open(driver), limit=20), "the page never opened its event stream"
    driver.execute_script(
        "window.notReloaded = true; window.sseData = [];"
        "document.body.addEventListener('htmx:sseBeforeMessage',"
        " function (e) { window.sseData.push(e.detail.data); });"
    )
    last = max(int(e["id"]) for e in stacks.client.events(stack["id"]))

    template = secret_template()
    template["resources"]["extra"] = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "new"},
    }
    stacks.client.update(stack["id"], template, {"greeting": "changed"}, existing_parameters=True)
    written = poll(lambda: stacks.client.events(stack["id"], after_id=last), limit=60)
    assert written, "the update wrote no event"
    first_new = int(written[0]["id"])
    shown = poll(
        lambda: driver.find_elements(By.ID, f"event-{first_new}"), limit=LIVE_SECONDS, every=0.02
    )
    assert shown, f"event {first_new} was not shown within {LIVE_SECONDS} s of being written"
    assert driver.execute_script("return window.notReloaded === true")

    done = stacks.client.wait(stack["id"], timeout=120)
    assert done["status"] == "UPDATE_COMPLETE", done
    everything = [int(e["id"]) for e in stacks.client.events(stack["id"], after_id=last)]
    assert poll(
        lambda: all(driver.find_elements(By.ID, f"event-{i}") for i in everything), limit=10
    ), "not every event of the update reached the page"
    assert driver.execute_script("return window.notReloaded === true")
    messages = driver.execute_script("return window.sseData")
    assert len(messages) >= len(everything)
    assert all(marker not in m for m in messages)
    assert marker not in driver.page_source

    history = stacks.client.history(stack["id"])["operations"]
    update = next(op for op in history if op["action"] == "UPDATE")
    assert update["counts"]["created"] == 1 and update["counts"]["updated"] >= 1, update
    _open(driver, f"{noauth_edge}/ui/stacks/{stack['id']}/history?tenant={stacks.tenant}")
    row = driver.find_element(By.CSS_SELECTOR, 'tr.operation[data-action="UPDATE"]')
    shown_counts = {
        cell.get_attribute("data-count"): int(cell.text)
        for cell in row.find_elements(By.CSS_SELECTOR, "td[data-count]")
    }
    assert shown_counts == update["counts"]
    assert "UPDATE" in row.text and "COMPLETE" in row.text


def test_a_hidden_value_appears_nowhere_in_the_pages(
    driver: Any, noauth_edge: str, stacks: Stacks
) -> None:
    marker = hidden_marker()
    stack = stacks.secret_stack("vaulted", marker)
    base = f"{noauth_edge}/ui/stacks/{stack['id']}"
    tenant = f"tenant={stacks.tenant}"
    pages = []
    for url in (
        f"{noauth_edge}/ui/?{tenant}",
        f"{base}?{tenant}",
        f"{base}?{tenant}&cleanup=1",
        f"{base}/history?{tenant}",
        f"{base}/template?{tenant}",
        f"{base}/resources/vault?{tenant}",
    ):
        _open(driver, url)
        pages.append(driver.page_source)
    _open(driver, f"{base}?{tenant}")
    driver.find_element(By.CSS_SELECTOR, 'tr[data-resource="vault"] a').click()
    assert poll(lambda: driver.find_elements(By.CSS_SELECTOR, "#drawer .resource-drawer"), limit=10)
    pages.append(driver.page_source)
    assert 'data-property="value"' in pages[-1] and "******" in pages[-1]
    for source in pages:
        assert marker not in source


def test_a_big_stack_s_page_opens_before_its_graph_and_fetches_it(
    driver: Any, noauth_edge: str, stacks: Stacks
) -> None:
    size = 600  # above INLINE_GRAPH_LIMIT
    resources = {f"n{i:03d}": {"type": "OS::Heat::None"} for i in range(size)}
    made = stacks.client.create(
        "big", {"heat_template_version": "2018-08-31", "resources": resources}
    )
    done = stacks.client.wait(made["stack_id"], timeout=300)
    assert done["status"] == "CREATE_COMPLETE", done
    _open(driver, f"{noauth_edge}/ui/stacks/{done['id']}?tenant={stacks.tenant}")
    rows = driver.find_elements(By.CSS_SELECTOR, "#resource-table tr.resource")
    assert len(rows) == 100  # a page of the table
    assert "1\u2013100 of 600" in driver.find_element(By.ID, "resources").text
    drawn = poll(lambda: driver.find_elements(By.CSS_SELECTOR, "#graph .graph-tools"), limit=60)
    assert drawn, "the graph was never fetched"
    tools = driver.find_element(By.CSS_SELECTOR, "#graph .graph-tools").text
    assert "of 600 nodes drawn" in tools
    note = driver.find_elements(By.ID, "graph-note")
    assert note and "failed" in note[0].text  # only failed and in-progress ones, and none is
    driver.find_element(By.CSS_SELECTOR, '#resources a[rel="next"]').click()
    assert poll(
        lambda: "101\u2013200 of 600" in driver.find_element(By.ID, "resources").text, limit=30
    )
