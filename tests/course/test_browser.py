"""The course in a real browser: every notebook of notebooks/ and solutions/ opened in
JupyterLab by headless Chromium, all cells run, and what a learner sees checked (errors only
where tagged, pictures, plots, live widgets); see course_tools/browser_check.py.

One JupyterLab server and one browser serve all the notebooks, one after another.
Skipped, with the reason, when Chromium (/usr/bin/chromium) or playwright is missing:
`make test-browser` installs both (Chromium with apt-get as root).
"""
import importlib.util
import json
import urllib.parse
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from course_tools import browser_check


def skip_reason():
    if not Path(browser_check.CHROMIUM).exists():
        return (f"Chromium not found at {browser_check.CHROMIUM}: browser test skipped"
                " (install it with `sudo apt-get install chromium`, or run `make test-browser`"
                " as root)")
    if importlib.util.find_spec("playwright") is None:
        return "playwright not installed: browser test skipped (`make test-browser` installs it)"
    return None


pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(skip_reason() is not None, reason=str(skip_reason()))]


# One server and one browser for all the notebooks; module scope closes them as soon as the
# last browser test is done (`make test` goes on with nbval).
@pytest.fixture(scope="module")
def lab_and_browser():
    from playwright.sync_api import sync_playwright

    with browser_check.JupyterLab(expose_app=True) as lab, sync_playwright() as playwright:
        browser = browser_check.Browser(playwright, lab.tmp / "chromium")
        try:
            yield lab, browser
        finally:
            browser.close()


@pytest.mark.parametrize("notebook", browser_check.course_notebooks(), ids=str)
def test_notebook_runs_in_jupyterlab(lab_and_browser, notebook):
    lab, browser = lab_and_browser
    report = browser_check.check_notebook(lab, browser, notebook)
    print(report)
    assert report.ok, str(report)
    assert report.screenshot.stat().st_size > 0


EXERCISES = sorted(p.relative_to(browser_check.ROOT)
                   for p in (browser_check.ROOT / "exercises").glob("[0-9]*.ipynb"))


@pytest.mark.parametrize("notebook", EXERCISES, ids=str)
def test_an_exercise_notebook_opens_unchanged(lab_and_browser, notebook):
    """A learner opens an exercise notebook: no ● on its tab before they type anything (the
    lessons and solutions are checked the same way in test_notebook_runs_in_jupyterlab)."""
    lab, browser = lab_and_browser
    page = browser.page
    lab.start_kernel(notebook, "python3")
    browser_check.open_notebook(page, lab, notebook)
    try:
        browser_check.wait_until(lambda: browser_check.status_idle(page),
                                 browser_check.KERNEL_IDLE, "the kernel to be idle")
        problems = []
        browser_check.check_not_dirty(page, problems)
        assert problems == []
    finally:
        browser_check.close_notebook(page)
        lab.shutdown_kernels(notebook)


def check_made_up_notebook(lab, browser, tmp_path, name, cells, metadata=None):
    """Check a notebook of these ``cells`` (saved with their outputs, as committed), with
    lesson 00's metadata unless given."""
    if metadata is None:
        metadata = json.loads(
            (browser_check.ROOT / "notebooks" / "00_welcome.ipynb").read_text())["metadata"]
    committed = new_notebook(metadata=metadata, cells=cells)
    nbformat.write(committed, tmp_path / f"{name}.ipynb")
    notebook = Path("notebooks") / f"zz_{name}_browser_check.ipynb"
    nbformat.write(committed, lab.root / notebook)
    return browser_check.check_notebook(lab, browser, notebook, artifacts=tmp_path,
                                        committed=tmp_path / f"{name}.ipynb")


def test_the_check_catches_a_broken_notebook(lab_and_browser, tmp_path):
    """Errors where none are saved, a tagged cell that no longer raises and a missing
    picture are each reported."""
    lab, browser = lab_and_browser
    report = check_made_up_notebook(lab, browser, tmp_path, "broken", [
        new_code_cell("x = 1", metadata={"tags": ["raises-exception"]}, outputs=[
            new_output("error", ename="ValueError", evalue="gone", traceback=[])]),
        new_code_cell("1 + 1", outputs=[new_output(
            "execute_result", data={"image/svg+xml": "<svg/>", "text/plain": "2"},
            execution_count=2)]),
        new_code_cell("1 / 0"),
    ])
    problems = "\n".join(report.problems)
    assert not report.ok
    assert "should raise ValueError, got no error" in problems
    assert "0 graph pictures shown, the saved notebook has 1" in problems
    assert "raised ZeroDivisionError: division by zero" in problems
    assert report.screenshot.stat().st_size > 0


def test_the_check_catches_a_notebook_marked_changed_on_open(lab_and_browser, tmp_path):
    """A notebook saved with the kernelspec the course used to commit ("Python 3"; JupyterLab
    writes "Python 3 (ipykernel)" when it opens it) is reported as marked changed (●)."""
    lab, browser = lab_and_browser
    metadata = json.loads(
        (browser_check.ROOT / "notebooks" / "00_welcome.ipynb").read_text())["metadata"]
    metadata["kernelspec"]["display_name"] = "Python 3"
    report = check_made_up_notebook(lab, browser, tmp_path, "dirty",
                                    [new_code_cell("1 + 1", outputs=[new_output(
                                        "execute_result", data={"text/plain": "2"},
                                        execution_count=1)])], metadata)
    assert report.problems == ["marked changed (●) after opening, before anything ran: its "
                               "metadata differs from what JupyterLab writes on open"]


def svg_cell(width, view_width, font_size):
    """A cell that shows an SVG ``width`` pt wide, drawn from ``view_width`` units, its text
    ``font_size`` units tall; saved with the same output."""
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}pt" height="30pt" '
           f'viewBox="0.00 0.00 {view_width}.00 30.00"><text x="4" y="20" '
           f'font-size="{font_size}.00">picture</text></svg>')
    return new_code_cell(f"from IPython.display import SVG\nSVG({svg!r})", outputs=[new_output(
        "execute_result", data={"image/svg+xml": svg, "text/plain": "<SVG>"},
        execution_count=1)])


def test_the_check_catches_pictures_that_do_not_fit(lab_and_browser, tmp_path):
    """A picture wider than its output area (1,600 px; JupyterLab then cuts it off), and one
    squeezed until its text is 2 px tall, are reported; one that fits is not."""
    lab, browser = lab_and_browser
    report = check_made_up_notebook(lab, browser, tmp_path, "wide", [
        svg_cell(300, 300, 14), svg_cell(1200, 1200, 14), svg_cell(300, 3000, 14)])
    problems = "\n".join(report.problems)
    assert "picture 1 is 1600 px wide, wider than its output area (8" in problems
    assert "picture 1 is cut off" in problems
    assert "picture 2 is scaled down too far to read: its smallest text is 1.9 px" in problems
    assert "picture 0" not in problems
    assert len(report.problems) == 3, problems


def test_readouts_must_read_as_numbers():
    """What a slider's readout may show (checked on every widget by check_readouts)."""
    readable = ["0.001", "0.0015", "−1.80", "30", "1", "0"]
    garbage = ["1e-3", "1.00e-3", "1.00m", "0.00e+0", "", "NaN"]
    assert all(browser_check.READOUT.fullmatch(text) for text in readable)
    assert not any(browser_check.READOUT.fullmatch(text) for text in garbage)


def test_smallest_text_of_a_picture():
    graphviz = ('<svg width="630pt" height="90pt" viewBox="0.00 0.00 700.00 100.00">'
                '<g id="graph0" class="graph" transform="scale(1 1) rotate(0) translate(4 96)">'
                '<text font-size="11.00">a</text><text font-size="10.00">b</text>')
    assert browser_check.smallest_text_px(graphviz, 840) == pytest.approx(12.0)
    assert browser_check.smallest_text_px('<svg width="10pt"><text>a</text>', 10) is None
    encoded = "data:image/svg+xml," + urllib.parse.quote(graphviz)
    assert browser_check.svg_source(encoded) == graphviz


# --- a check never judges an answer edited since it ran (the course's JupyterLab extension) --

RUN_CELL = """async ([index, source]) => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  if (source !== null) {
    notebook.model.cells.get(index).sharedModel.setSource(source);  // as if typed
  }
  notebook.activeCellIndex = index;
  notebook.deselectAll();
  await window.jupyterapp.commands.execute("notebook:run-cell");
}"""
SHOWN = """(index) => {
  const cell = window.jupyterapp.shell.currentWidget.content.model.cells.get(index);
  const texts = [];
  for (let i = 0; i < cell.outputs.length; i++) {
    const output = cell.outputs.get(i).toJSON();
    texts.push(output.data ? (output.data["text/plain"] || "") : (output.text || output.ename));
  }
  return [cell.executionState, cell.executionCount, texts.join("\\n")];
}"""
CELL_IDS = """() => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
  return Array.from({length: cells.length}, (_, i) => cells.get(i).id);
}"""


def test_a_check_never_judges_an_answer_edited_since_it_ran(lab_and_browser):
    """In JupyterLab, as a learner does it: answer, check, edit the answer without running
    it, check again; then an answer cell that raises."""
    lab, browser = lab_and_browser
    page = browser.page
    notebook = Path("exercises") / "04_copying.ipynb"
    browser_check.open_notebook(page, lab, notebook)
    try:
        browser_check.wait_until(lambda: browser_check.status_idle(page),
                                 browser_check.KERNEL_IDLE, "the kernel to be idle")
        assert page.evaluate(
            "() => window.jupyterapp.isPluginActivated('autograd-step-by-step:answer-cells')")
        ids = page.evaluate(CELL_IDS)
        answer, check = ids.index("answer_04_does_b_change"), ids.index("check_04_does_b_change")
        runs = []

        def run(index, source=None):
            """Run one cell (with a new source, as if typed) and return what it shows."""
            page.evaluate(RUN_CELL, [index, source])
            runs.append(index)

            def finished():
                state, count, text = page.evaluate(SHOWN, index)
                return state == "idle" and count == len(runs) and (text,)

            return browser_check.wait_until(finished, 60, f"cell {index} to run")[0]

        right = 'prediction = {"b1": True, "b2": False, "b3": True, "b4": False, "b5": True}'
        run(1)  # the imports
        run(answer, right)
        assert run(check).startswith("✅ Correct")
        edited = right.replace("True", "False", 1)
        page.evaluate("([i, s]) => window.jupyterapp.shell.currentWidget.content.model.cells"
                      ".get(i).sharedModel.setSource(s)", [answer, edited])
        assert run(check) == ("⚠️ Not checked yet: the answer cell above was changed after it "
                              "last ran: run it, then run this check again.")
        run(answer)
        assert run(check).startswith("❌ Not quite: your prediction for b1")
        run(answer, right + "\nprint(undefined_name)")
        assert run(check).startswith("⚠️ Not checked yet: the answer cell above raised an error "
                                     "(NameError)")
    finally:
        browser_check.close_notebook(page)
        lab.shutdown_kernels(notebook)
