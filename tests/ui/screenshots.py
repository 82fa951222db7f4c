"""`make ui-screenshots`: the web view's pages as PNGs for docs/operations/web-view.md.

Run by pytest (explicitly: the name is not a test module's, so `make test` never runs it)
for the fixtures the browser tests use: real workers, an edge with tokens, Debian's headless
Chromium. It makes a few stacks as an operator would meet them (one updated, one that failed,
one with a nested stack), signs in with a token, and saves each page to UI_SCREENSHOTS
(docs/operations/img by default).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from browser import chromium, poll
from selenium.webdriver.common.by import By
from ui_edges import TokenEdge
from ui_stacks import FAILING_TEMPLATE

from conv_tasks.client import Client

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("UI_SCREENSHOTS") or ROOT / "docs" / "operations" / "img")


def _web(size: int) -> dict[str, Any]:
    resources: dict[str, Any] = {
        "network": {"type": "OS::Heat::TestResource", "properties": {"value": "net-1"}},
        "database": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["network", "output"]}},
        },
        "cache": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": f"cache for {size} web servers"},
            "depends_on": ["network"],
        },
    }
    for n in range(size):
        resources[f"web{n}"] = {
            "type": "OS::Heat::TestResource",
            "properties": {
                "value": {"get_attr": ["database", "output"]},
                "wait_secs": 0.2,
            },
            "depends_on": ["cache"],
        }
    resources["balancer"] = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "lb"},
        "depends_on": [f"web{n}" for n in range(size)],
    }
    return {
        "heat_template_version": "2018-08-31",
        "description": "a web tier",
        "parameters": {"db_password": {"type": "string", "hidden": True, "default": "x"}},
        "resources": resources,
        "outputs": {"url": {"value": {"get_attr": ["balancer", "output"]}}},
    }


def _shoot(driver: Any, name: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.body.scrollHeight")
    driver.set_window_size(1400, min(max(int(height) + 40, 700), 2600))
    driver.save_screenshot(str(OUT / f"{name}.png"))


def test_take_the_screenshots(token_edge: TokenEdge) -> None:
    client = Client(tenant=token_edge.tenant, timeout=60)
    web = client.create("web-tier", _web(3), tags=["prod", "web"])
    client.wait(web["stack_id"], timeout=120)
    client.update("web-tier", _web(4), tags=["prod", "web"])
    client.wait(web["stack_id"], timeout=120)
    broken = client.create("payments", FAILING_TEMPLATE, disable_rollback=True, tags=["prod"])
    client.wait(broken["stack_id"], timeout=120)
    for name in ("batch-jobs", "reports"):
        made = client.create(name, _web(1), tags=["batch"])
        client.wait(made["stack_id"], timeout=120)
    slow = _web(1)
    slow["resources"]["web0"]["properties"]["wait_secs"] = 120
    client.create("migration", slow, timeout_mins=30, tags=["batch"])

    with chromium() as driver:
        driver.get(f"{token_edge.url}/ui/login")
        _shoot(driver, "web-view-login")
        driver.find_element(By.ID, "token").send_keys(token_edge.token)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        assert poll(lambda: driver.find_elements(By.ID, "attention"), limit=20)
        _shoot(driver, "web-view-stacks")

        driver.get(f"{token_edge.url}/ui/stacks/{web['stack_id']}")
        assert poll(lambda: driver.find_elements(By.CSS_SELECTOR, "#graph svg"), limit=20)
        _shoot(driver, "web-view-stack")

        driver.find_element(By.CSS_SELECTOR, 'tr[data-resource="database"] a').click()
        assert poll(
            lambda: driver.find_elements(By.CSS_SELECTOR, "#drawer .resource-drawer"), limit=20
        )
        driver.execute_script("document.getElementById('resources').scrollIntoView()")
        _shoot(driver, "web-view-drawer")

        driver.get(f"{token_edge.url}/ui/stacks/{broken['stack_id']}/history")
        _shoot(driver, "web-view-history-failed")
        driver.get(f"{token_edge.url}/ui/stacks/{web['stack_id']}/history")
        _shoot(driver, "web-view-history")
