"""engine/viz.py in the browser edition: where `dot` cannot run (Pyodide), pictures are drawn
by the WebAssembly Graphviz, and any failure there still falls back to text. The real thing
runs in tests/web/test_site.py (in Chromium); here the browser path is simulated in CPython.
"""
import pytest

import engine as torch
import engine.viz as viz


def picture():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    return viz.draw_graph((x * 3).sum())


def test_regular_python_uses_dot_and_monospace():
    assert not viz.IN_BROWSER
    assert viz.FONT == "monospace"
    assert "fontname=monospace" in picture().source


def test_in_the_browser_the_wasm_graphviz_draws_the_same_dot(monkeypatch):
    drawn = []

    def fake_render(source):
        drawn.append(source)
        return '<svg width="100pt" height="50pt" viewBox="0 0 100 50"><text>ok</text></svg>'

    monkeypatch.setattr(viz, "IN_BROWSER", True)
    monkeypatch.setattr(viz, "_browser_svg", fake_render)
    shown = picture()
    bundle = shown._repr_mimebundle_()
    assert bundle["image/svg+xml"].startswith("<svg")
    assert bundle["text/plain"] == shown.summary
    assert drawn == [shown.source]


def test_in_the_browser_a_failure_falls_back_to_text(monkeypatch):
    def broken(source):
        raise RuntimeError("viz.js could not be loaded")

    monkeypatch.setattr(viz, "IN_BROWSER", True)
    monkeypatch.setattr(viz, "_browser_svg", broken)
    shown = picture()
    bundle = shown._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    assert "Graphviz failed: viz.js could not be loaded" in bundle["text/plain"]
    assert shown.summary in bundle["text/plain"]


def test_outside_pyodide_the_browser_renderer_is_not_importable():
    with pytest.raises(ImportError):
        viz._browser_svg("digraph { a }")


def test_outside_pyodide_loading_packages_does_nothing():
    viz.load_browser_packages("matplotlib")  # no pyodide here, and nothing to do


class FakePromise:
    """pyodide_js.loadPackage's answer: resolved by run_sync (JSPI) or by resolve() (the
    page, later)."""

    def __init__(self, names, loaded):
        self.names, self.loaded, self.callbacks = names, loaded, []

    def then(self, callback):
        self.callbacks.append(callback)

    def resolve(self):
        self.loaded.extend(self.names)
        for callback in self.callbacks:
            callback(None)


def fake_pyodide(monkeypatch, loaded, jspi=True):
    """pyodide_js.loadPackage and pyodide.ffi as the Pyodide kernel has them (simulated): a
    package can be imported once loaded; ``jspi=False``: run_sync raises as it does there."""
    import sys
    import types

    promises = []
    pyodide_js = types.ModuleType("pyodide_js")

    def load_package(names):
        promises.append(FakePromise(tuple(names), loaded))
        return promises[-1]

    pyodide_js.loadPackage = load_package
    ffi = types.ModuleType("pyodide.ffi")
    ffi.to_js = list
    ffi.create_once_callable = lambda function: function

    def run_sync(promise):
        if not jspi:
            raise RuntimeError("WebAssembly stack switching not supported in this JavaScript "
                               "runtime")
        promise.resolve()

    ffi.run_sync = run_sync
    pyodide = types.ModuleType("pyodide")
    pyodide.ffi = ffi
    for name, module in {"pyodide_js": pyodide_js, "pyodide": pyodide,
                         "pyodide.ffi": ffi}.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(viz, "IN_BROWSER", True)
    monkeypatch.setattr(viz, "_can_run_sync", lambda: jspi)
    monkeypatch.setattr(viz, "_imported", lambda name: False)
    monkeypatch.setattr(viz, "_loaded", set())
    monkeypatch.setattr(viz, "_loading", {})
    return promises


def test_in_the_browser_a_widget_figure_loads_matplotlib_first(monkeypatch):
    """The course's wheel does not pull matplotlib in (a lesson that never plots never
    downloads it): the descent playground's figure asks Pyodide for it before importing it."""
    from engine.widgets import DescentPlayground

    loaded = []
    fake_pyodide(monkeypatch, loaded)
    playground = DescentPlayground("quadratic", steps=3)  # draws its figure
    assert loaded and set(loaded) == {"matplotlib"}
    assert type(playground.model.figure()).__name__ == "Figure"
    assert bytes(playground.image.value).startswith(b"\x89PNG")


def test_without_jspi_the_playground_draws_once_matplotlib_arrives(monkeypatch):
    """Safari, Firefox without a flag: Python cannot wait for the package. The playground says
    in one sentence that its picture is on its way (no traceback), and draws it when Pyodide
    has loaded matplotlib; its static fallback is words until then."""
    from engine import widgets
    from engine.widgets import DescentPlayground

    loaded = []
    promises = fake_pyodide(monkeypatch, loaded, jspi=False)
    playground = DescentPlayground("quadratic", steps=3)
    second = DescentPlayground("rosenbrock", steps=3)
    assert len(promises) == 1  # one load, however many widgets wait for it
    assert bytes(playground.image.value) == b""
    assert widgets.MATPLOTLIB_LOADING in playground.caption.value
    bundle = playground.model._repr_mimebundle_()
    assert list(bundle) == ["text/plain"] and widgets.MATPLOTLIB_LOADING in bundle["text/plain"]
    with pytest.raises(RuntimeError, match="Loading matplotlib"):
        playground.model.figure()
    promises[0].resolve()  # the page has loaded it: the widgets draw
    assert bytes(playground.image.value).startswith(b"\x89PNG")
    assert bytes(second.image.value).startswith(b"\x89PNG")
    assert viz.load_browser_packages("matplotlib") and len(promises) == 1
    assert widgets.MATPLOTLIB_LOADING not in playground.caption.value
    assert "image/png" in playground.model._repr_mimebundle_()


def test_without_jspi_the_steppers_picture_goes_to_the_page_as_dot(monkeypatch):
    """The stepper's picture sits in a widget's HTML: without JSPI it holds the DOT in an
    element the course's extension draws (DOT_HTML_CLASS), the text until then."""
    import html
    import re

    from engine.widgets import BackwardStepper

    fake_pyodide(monkeypatch, [], jspi=False)
    monkeypatch.setattr(viz, "_browser_svg", lambda source: pytest.fail("no JSPI: no wait"))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    stepper = BackwardStepper((x * 3).sum())
    shown = stepper.view.value
    assert shown.startswith(f'<div class="{viz.DOT_HTML_CLASS}" data-dot="')
    dot = html.unescape(re.search(r'data-dot="([^"]*)"', shown).group(1))
    assert dot.startswith("digraph") and "MulBackward0" in dot
    assert f"fontname={viz.BROWSER_FONT}" in dot
    assert f'data-max-width-px="{viz.MAX_WIDTH_PX}"' in shown
    assert "<pre>" in shown  # the text, until the page has drawn it



def test_in_a_browser_without_jspi_the_page_draws_the_dot(monkeypatch):
    """Safari, Firefox: Python cannot wait for the WebAssembly Graphviz, so the output carries
    the DOT for the course's extension to lay out, and text/plain stays the summary."""
    def never(source):
        raise AssertionError("no synchronous call into JavaScript without JSPI")

    monkeypatch.setattr(viz, "IN_BROWSER", True)
    monkeypatch.setattr(viz, "_can_run_sync", lambda: False)
    monkeypatch.setattr(viz, "_browser_svg", never)
    shown = picture()
    bundle = shown._repr_mimebundle_()
    assert list(bundle) == [viz.DOT_MIME, "text/plain"]
    assert bundle["text/plain"] == shown.summary
    assert f"fontname={viz.BROWSER_FONT}" in bundle[viz.DOT_MIME]["dot"]
    assert "SumBackward0" in bundle[viz.DOT_MIME]["dot"]


def test_jspi_is_the_browsers_feature_not_the_calls(monkeypatch):
    """Whether Python may wait for the page's Graphviz is asked of the browser (WebAssembly's
    Suspending and promising: Chromium has them; Safari and Firefox without a flag do not),
    not of pyodide.ffi.can_run_sync(), which says False inside calls where waiting works (the
    stepper's pictures in the site, drawn as its widget is made)."""
    import sys
    import types

    for features, expected in (({"Suspending": 1, "promising": 1}, True),
                               ({"promising": 1}, False), ({}, False)):
        fake_js = types.ModuleType("js")
        fake_js.WebAssembly = types.SimpleNamespace(**features)
        monkeypatch.setitem(sys.modules, "js", fake_js)
        assert viz._can_run_sync() is expected, features
    monkeypatch.delitem(sys.modules, "js")
    monkeypatch.setattr("builtins.__import__", _refusing("js"))
    assert viz._can_run_sync() is True  # (not in a browser)


def _refusing(name):
    real = __builtins__["__import__"] if isinstance(__builtins__, dict) else __builtins__.__import__

    def importer(module, *args, **kwargs):
        if module == name:
            raise ImportError(module)
        return real(module, *args, **kwargs)
    return importer
