"""Headless Chromium (Debian's package) driven by Playwright against a live server.

We never run `playwright install`: the browser comes from /usr/bin/chromium.
Screenshots land in test-artifacts/ for CI to keep.
"""

import os
import shutil

import pytest

from tests.e2e.browser import ARTIFACTS

CHROMIUM = os.environ.get("QM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.fail(
            f"{CHROMIUM} is missing: make test (scripts/setup.sh) installs Debian's chromium package"
        )
    from playwright.sync_api import sync_playwright

    # Playwright's loop runs in this thread from here on, and the test database may
    # not be created yet (an e2e file run alone): let Django's ORM run here.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, request):
    # Playwright's sync API runs an event loop in this thread; Django must allow ORM calls here.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()
