"""Debian's Chromium, headless, driven by Selenium through Debian's chromedriver.

Both paths are given and SE_OFFLINE is set, so Selenium Manager never looks for, nor
downloads, a driver or a browser (scripts/ensure-browser.sh installs the two packages).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

T = TypeVar("T")


@contextmanager
def chromium(width: int = 1400, height: int = 1000) -> Iterator[object]:
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",  # root in a container has no user namespaces for the sandbox
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--disable-extensions",
        "--no-first-run",
        "--lang=en-US",
        f"--window-size={width},{height}",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def poll(check: Callable[[], T | None], *, limit: float, every: float = 0.05) -> T | None:
    """`check()`'s first true answer within `limit` seconds, or None."""
    deadline = time.monotonic() + limit
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() >= deadline:
            return None
        time.sleep(every)
