"""The documentation site (``make docs``), built and opened in a real browser.

The session fixture runs the same Sphinx build as ``make docs`` (warnings are errors) into
``docs/_build/html``; after ``make lint`` (which builds it) the build is incremental and takes
seconds. Then:

* every name in every package's ``__all__`` has a reference page, and every gallery example has
  its page and figure;
* headless Chromium (Debian's, driven by Playwright, as in tests/test_report_site.py) opens the
  reference page of ``ExactBoostClassifier`` and the gallery example that uses it, checks that
  the page renders its documentation, that the figure loads (``naturalWidth > 0``), that no page
  logs a console error, and saves screenshots under ``docs/_build/screenshots/``.

Without Chromium or Playwright the browser test is skipped, saying so; with
``BOOSTCM_REQUIRE_BROWSER=1`` (set by .ci/run) it fails instead.
"""

from __future__ import annotations

import fcntl
import importlib
import os
import pkgutil
import subprocess
import sys

import pytest
from conftest import REPO
from site_browser import CHROMIUM_ARGS, chromium_path, require_browser

import boostcm

HTML = REPO / "docs" / "_build" / "html"
SCREENSHOTS = REPO / "docs" / "_build" / "screenshots"
EXAMPLE = "plot_exactboost_vs_surrogate"


@pytest.fixture(scope="session")
def site():
    """The built site: ``make docs``'s command, incremental when a build is already there."""
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q"]
    env = dict(os.environ, MPLBACKEND="Agg")
    HTML.parent.mkdir(parents=True, exist_ok=True)
    # one build at a time (pytest-xdist workers each run this fixture): the others wait, then
    # find the build current
    with open(HTML.parent / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = subprocess.run(
            [*cmd, "docs", str(HTML)], cwd=REPO, env=env, capture_output=True, text=True
        )
    if proc.returncode != 0:
        pytest.fail(f"the documentation build failed:\n{(proc.stdout + proc.stderr)[-6000:]}")
    return HTML


def _public_names():
    for module in pkgutil.iter_modules(boostcm.__path__):
        if module.name.startswith("_"):
            continue
        package = importlib.import_module(f"boostcm.{module.name}")
        for name in getattr(package, "__all__", []):
            yield f"boostcm.{module.name}.{name}"


def test_every_public_name_has_a_reference_page(site):
    names = list(_public_names())
    assert len(names) > 100  # the packages' __all__ were found
    missing = [n for n in names if not (site / "api" / "generated" / f"{n}.html").is_file()]
    assert not missing, missing
    index = (site / "api" / "index.html").read_text()
    assert all(f"generated/{n}.html" in index for n in names)


def test_every_gallery_example_ran_and_drew_a_figure(site):
    scripts = sorted((REPO / "examples").glob("plot_*.py"))
    assert len(scripts) >= 6
    for script in scripts:
        page = site / "auto_examples" / f"{script.stem}.html"
        assert page.is_file(), page
        figure = site / "_images" / f"sphx_glr_{script.stem}_001.png"
        assert figure.is_file() and figure.stat().st_size > 5000, figure
        assert f"sphx_glr_{script.stem}_001.png" in page.read_text()


@pytest.fixture
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
        )
        page = chromium.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
        yield page, errors
        chromium.close()


def _images(page):
    return page.eval_on_selector_all(
        "img", "els => els.map(e => [e.getAttribute('src'), e.complete && e.naturalWidth > 0])"
    )


def test_reference_page_and_gallery_example_in_a_browser(site, browser):
    page, errors = browser
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = "boostcm.exactboost.ExactBoostClassifier"
    reference = site / "api" / "generated" / f"{name}.html"
    page.goto(reference.as_uri(), wait_until="load")
    assert "ExactBoostClassifier" in page.title()
    # the class, its parameters and its methods are rendered from the docstring
    assert page.locator(f'dt[id="{name}"]').count() == 1
    assert page.locator(f'dt[id="{name}.fit"]').count() == 1
    text = page.inner_text("article[role=main]").lower()  # the theme upper-cases headings
    assert "parameters" in text and "n_estimators" in text and "attributes" in text
    # the gallery's example that uses the class is linked from its page
    link = page.locator(f'article[role=main] a[href*="auto_examples/{EXAMPLE}.html"]')
    assert link.count() >= 1
    page.screenshot(path=str(SCREENSHOTS / "reference_ExactBoostClassifier.png"), full_page=True)
    assert not errors, errors

    link.first.click()
    page.wait_for_load_state("load")
    assert f"auto_examples/{EXAMPLE}.html" in page.url
    figures = [(src, ok) for src, ok in _images(page) if src and f"sphx_glr_{EXAMPLE}_001" in src]
    assert figures and all(ok for _, ok in figures), _images(page)
    width = page.eval_on_selector("img.sphx-glr-single-img", "e => e.naturalWidth")
    assert width > 100
    assert "ExactBoost" in page.inner_text("article[role=main]")
    page.screenshot(path=str(SCREENSHOTS / f"gallery_{EXAMPLE}.png"), full_page=True)
    assert not errors, errors
