"""Graph pictures drawn by the page, where Python cannot draw them (no Graphviz `dot`, or the
browser edition in a browser without WebAssembly JSPI): engine/viz.py sends the DOT under
``viz.DOT_MIME`` and the course's JupyterLab extension (course_tools/labextension/) lays it
out with @viz-js/viz. Here: real JupyterLab in headless Chromium, with the extension as it is
in this checkout, on a notebook whose saved outputs are what the engine sends without `dot`.

Needs viz.js, which `make site` downloads and puts into the site (build/site/static/pyodide/),
so it lives in tests/web/ and runs with `make test-site`, after `make site`;
AUTOGRAD_VIZ_JS=path/to/viz.js names another copy. Skipped, with the reason, without it,
Chromium or playwright.
"""
import importlib.util
import json
import os
import shutil
import tarfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

import engine as torch
import engine.viz as viz
from course_tools import browser_check

ROOT = browser_check.ROOT
VIZ_VERSION = viz.VIZ_JS.removeprefix("viz-").removesuffix(".js")


def find_viz_js():
    """viz.js's text, from the environment, the built site or the site's download cache."""
    named = os.environ.get("AUTOGRAD_VIZ_JS")
    if named:
        return Path(named).read_bytes()
    built = ROOT / "build" / "site" / "static" / "pyodide" / viz.VIZ_JS
    if built.exists():
        return built.read_bytes()
    packed = ROOT / "build" / "site-cache" / f"viz-js-viz-{VIZ_VERSION}.tgz"
    if packed.exists():
        with tarfile.open(packed) as tar:
            return tar.extractfile("package/dist/viz.js").read()
    return None


def skip_reason():
    if not Path(browser_check.CHROMIUM).exists():
        return f"Chromium not found at {browser_check.CHROMIUM}: browser test skipped"
    if importlib.util.find_spec("playwright") is None:
        return "playwright not installed: browser test skipped (`make test-browser` installs it)"
    if find_viz_js() is None:
        return (f"no {viz.VIZ_JS} (run `make site`, or set AUTOGRAD_VIZ_JS): the page's "
                "Graphviz cannot be tested")
    return None


def in_the_browser(test):
    return pytest.mark.browser(
        pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))(test))

EXTENSION = "autograd-step-by-step"


def test_the_extension_and_the_engine_agree_on_names():
    source = "\n".join(path.read_text() for path in
                       (ROOT / "course_tools" / "labextension" / "static").glob("*.js"))
    assert f'"{viz.DOT_MIME}"' in source
    assert f'"{viz.VIZ_JS}"' in source
    package = json.loads((ROOT / "course_tools" / "labextension" / "package.json").read_text())
    assert package["jupyterlab"]["_build"]["mimeExtension"] == "./mimeExtension"


def pictures_without_dot(monkeypatch, tmp_path):
    """The bundles the engine sends where `dot` is missing: a graph, a wide graph (scaled to
    fit, as _fit_width does), and a memory picture (left to right)."""
    monkeypatch.setenv("PATH", str(tmp_path / "no-dot"))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w + x).sum()
    leaves = [torch.tensor([float(i)], requires_grad=True) for i in range(4)]
    wide = sum(leaf.exp() * leaf for leaf in leaves)
    pictures = [viz.draw_graph(y, names={"x": x, "w": w}),
                viz.draw_graph(wide),
                viz.draw_memory(x=x, v=x.detach()[:1], c=x.clone())]
    bundles = [picture._repr_mimebundle_() for picture in pictures]
    for picture, bundle in zip(pictures, bundles):
        assert list(bundle) == [viz.DOT_MIME, "text/plain"]
        assert bundle["text/plain"] == picture.summary
    return bundles


MEASURE_ALL_JS = """() => [...document.querySelectorAll('.autograd-dot')].map(view => {
    const svg = view.querySelector('svg'), pre = view.querySelector('pre');
    return {svg: svg !== null, text: pre ? pre.textContent : null,
            labels: svg ? [...svg.querySelectorAll('text')].map(t => t.textContent) : []}; })"""


@pytest.fixture(scope="module")
def lab_with_extension():
    from playwright.sync_api import sync_playwright

    # This checkout's extension, with viz.js beside it, in the server's data folder: found
    # before the copy installed in the venv when the venv's folders do not come first, and
    # read as a page loads.
    prefer = os.environ.get("JUPYTER_PREFER_ENV_PATH")
    os.environ["JUPYTER_PREFER_ENV_PATH"] = "0"
    try:
        lab = browser_check.JupyterLab(folders=())
    finally:
        if prefer is None:
            del os.environ["JUPYTER_PREFER_ENV_PATH"]
        else:
            os.environ["JUPYTER_PREFER_ENV_PATH"] = prefer
    with lab, sync_playwright() as playwright:
        installed = lab.tmp / "data" / "labextensions" / EXTENSION
        shutil.copytree(ROOT / "course_tools" / "labextension", installed)
        (installed / "static" / viz.VIZ_JS).write_bytes(find_viz_js())
        browser = browser_check.Browser(playwright, lab.tmp / "chromium")
        try:
            yield lab, browser
        finally:
            browser.close()


def open_pictures(lab, page, monkeypatch, tmp_path):
    bundles = pictures_without_dot(monkeypatch, tmp_path)
    metadata = json.loads((ROOT / "notebooks" / "00_welcome.ipynb").read_text())["metadata"]
    cells = [new_code_cell(f"picture_{i}", outputs=[new_output(
        "execute_result", data=bundle, execution_count=i + 1)])
        for i, bundle in enumerate(bundles)]
    notebook = Path(f"zz_dot_pictures_{len(list(lab.root.glob('zz_*')))}.ipynb")
    nbformat.write(new_notebook(metadata=metadata, cells=cells), lab.root / notebook)
    page.goto(lab.url(notebook))
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for()
    browser_check.show_file_browser(page)
    return bundles


@in_the_browser
def test_the_page_draws_the_dot_as_svg_that_fits(lab_with_extension, monkeypatch, tmp_path):
    lab, browser = lab_with_extension
    page = browser.page
    bundles = open_pictures(lab, page, monkeypatch, tmp_path)

    def drawn():
        views = page.evaluate(MEASURE_ALL_JS)
        done = len(views) == len(bundles) and all(v["svg"] or v["text"] for v in views)
        return views if done else None

    views = browser_check.wait_until(drawn, 60, "the pictures to be drawn")
    assert [view["text"] for view in views] == [None] * len(bundles)  # no text fallback
    assert {"MulBackward0", "AddBackward0", "SumBackward0", "x", "legend"} <= set(
        views[0]["labels"])
    assert "ExpBackward0" in views[1]["labels"]
    assert any(label.startswith("storage 0") for label in views[2]["labels"])
    problems = []
    for i, element in enumerate(page.locator(".autograd-dot svg").element_handles()):
        measured = element.evaluate(browser_check.MEASURE_JS)
        problems += browser_check.picture_problems(measured, f"picture {i}")
        assert measured["width"] > 100
    assert problems == []
    # the wide graph was scaled down to the output width, as _fit_width does with `dot`
    wide = page.locator(".autograd-dot svg").nth(1).evaluate(browser_check.MEASURE_JS)
    assert wide["width"] == pytest.approx(viz.MAX_WIDTH_PX, abs=1)
    assert page.locator(".autograd-dot svg").nth(1).get_attribute("width") == "630.00pt"
    # text/plain is what a front end without the extension shows; here it is not shown
    assert page.locator(".jp-OutputArea-output pre", has_text="Graph: ").count() == 0
    assert browser.page_errors == []
    browser_check.screenshot(page, browser_check.ARTIFACTS / "dot_pictures_in_jupyterlab.png")


@in_the_browser
def test_without_viz_js_the_page_shows_the_text_and_says_why(lab_with_extension, monkeypatch,
                                                            tmp_path):
    lab, browser = lab_with_extension
    page = browser.context.new_page()
    try:
        page.route(f"**/{viz.VIZ_JS}", lambda route: route.abort())
        bundles = open_pictures(lab, page, monkeypatch, tmp_path)

        def shown():
            views = page.evaluate(MEASURE_ALL_JS)
            return views if len(views) == len(bundles) and all(v["text"] for v in views) \
                else None

        views = browser_check.wait_until(shown, 60, "the text pictures")
        for view, bundle in zip(views, bundles):
            assert view["text"] == (bundle[viz.DOT_MIME]["text"] + "\n(this page could not "
                                    f"load Graphviz ({viz.VIZ_JS}))")
    finally:
        page.close()


@in_the_browser
def test_locally_the_file_menu_has_no_browser_edition_work_items(lab_with_extension,
                                                                  monkeypatch, tmp_path):
    """The extension's Download/Import my work and My progress are the browser edition's
    (JupyterLite keeps the work in the browser); locally the work is files in workspace/, and
    `make progress` is there: the File menu does not offer them."""
    lab, browser = lab_with_extension
    page = browser.page
    open_pictures(lab, page, monkeypatch, tmp_path)
    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Save").first.wait_for()
    labels = page.locator(".lm-Menu-itemLabel").all_inner_texts()
    page.keyboard.press("Escape")
    assert not [label for label in labels if "my work" in label or "My progress" in label]
    assert browser.page_errors == []
