"""The report in a real browser (Debian chromium + chromedriver through Selenium), served on loopback.

Checks at 1400 px and 390 px wide: the summary and a paper section render, every image loads, no console errors, no
horizontal page scroll; screenshots land in the test's output folder. ``ICML26_SCREENSHOTS=docs pytest
tests/test_report_browser.py`` also writes them to ``docs/`` (the README's pictures).
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from icml26.harness import run_claim
from icml26.report import write_report
from icml26.store import ResultStore

CHROMIUM, DRIVER = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="needs Debian chromium and chromium-driver")]
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    store = ResultStore(out)
    for slug, claim in (("hankel", "kappa_free_rate"), ("hankel", "recovery_rate"), ("hankel", "faster_than_baselines")):
        store.append(run_claim(slug, claim, budget="smoke"))
    write_report(out)
    handler = functools.partial(_Quiet, directory=str(out / "report"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield out, f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                f"--user-data-dir={profile}", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--metrics-recording-only"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield drv
    drv.quit()


@pytest.mark.parametrize("width", [1400, 390])
def test_report_renders_at_desktop_and_phone_width(served, browser, width):
    from selenium.webdriver.common.by import By

    out, url = served
    browser.set_window_size(width, 900)
    browser.get(url)
    summary = browser.find_element(By.ID, "summary")
    assert summary.is_displayed() and "claims" in summary.text
    section = browser.find_element(By.ID, "hankel")
    assert section.is_displayed() and "hankel" in section.text
    assert browser.find_elements(By.CSS_SELECTOR, "#papers tr[data-slug='hankel']")
    imgs = browser.find_elements(By.TAG_NAME, "img")
    assert imgs, "the hankel figures are in the page"
    for img in imgs:
        browser.execute_script("arguments[0].scrollIntoView(); arguments[0].loading = 'eager';", img)
    browser.execute_script("window.scrollTo(0, 0)")
    broken = browser.execute_script(
        "return Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
    assert not broken, f"images that did not load: {broken}"
    assert all(i.get_attribute("alt") for i in imgs), "every figure has alt text"
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    scroll_w, client_w = browser.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert scroll_w <= client_w, f"horizontal page scroll at {width} px: {scroll_w} > {client_w}"
    shot = out / f"report-{width}.png"
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    if os.environ.get("ICML26_SCREENSHOTS"):
        dest = ROOT / os.environ["ICML26_SCREENSHOTS"]
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, dest / ("report-summary.png" if width == 1400 else "report-phone.png"))
        if width == 1400:
            browser.execute_script("document.getElementById('hankel').scrollIntoView()")
            browser.save_screenshot(str(dest / "report-paper.png"))
