"""notebooks/DIFFERENCES.md is the one list of where the engine differs from PyTorch (issue 24):
lesson 00, the README and ``help(engine)`` lead to it, and every difference the fuzzer lets
pass as documented (tests/fuzz/known.py) is one of its items."""
import re
from pathlib import Path

import nbformat

import engine
from tests.fuzz.known import DOCUMENTED, KNOWN

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "notebooks" / "DIFFERENCES.md"


def _items():
    """The titles of the document's items: ``- **Title.** What the engine does ...``."""
    return re.findall(r"^- \*\*(.+?)\.\*\* ", DOCUMENT.read_text(encoding="utf-8"), re.M)


def test_the_document_lists_differences_by_section():
    text = DOCUMENT.read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)$", text, re.M)
    assert len(sections) >= 8, sections
    # 39 items when the list moved out of engine/__init__.py; fixes remove some, slowly
    assert len(_items()) >= 30, "most of the list is gone: an edit cut it short?"
    assert len(set(_items())) == len(_items()), "two items share a title"


def test_lesson_00_links_the_document():
    lesson = nbformat.read(ROOT / "notebooks" / "00_welcome.ipynb", as_version=4)
    markdown = "\n".join(c.source for c in lesson.cells if c.cell_type == "markdown")
    assert "](DIFFERENCES.md)" in markdown  # a relative link: the file sits beside the lesson


def test_the_readme_links_the_document():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](notebooks/DIFFERENCES.md)" in readme


def test_help_engine_names_the_document():
    assert "notebooks/DIFFERENCES.md" in engine.__doc__


def test_every_difference_the_fuzzer_allows_as_documented_is_in_the_document():
    documented = [entry for entry in KNOWN if entry.owner == DOCUMENTED]
    assert documented, "tests/fuzz/known.py has no documented entries to check"
    items = set(_items())
    missing = [f"{entry.reason[:60]}...: {entry.difference!r}" for entry in documented
               if entry.difference not in items]
    assert not missing, "not an item of notebooks/DIFFERENCES.md:\n" + "\n".join(missing)


def test_help_engine_lists_what_still_differs_in_the_tutorials():
    """Issue 27: what the tutorials (tests/tutorials/) still print or do differently is in
    ``help(engine)`` and in its own section of the document."""
    text = DOCUMENT.read_text(encoding="utf-8")
    section = text.split("## Running PyTorch's tutorials\n", 1)[1].split("\n## ", 1)[0]
    titles = re.findall(r"^- \*\*(.+?)\.\*\* ", section, re.M)
    assert titles == ["`from torch import nn` after `import engine as torch`",
                      "Datasets and `torchvision`", "The last printed digit of a float32",
                      "`type(x)` and the classes' module"]
    for said in ("from torch import nn", "nn = torch.nn", "torchvision", "last digit",
                 "type(x)", "Running PyTorch's tutorials"):
        assert said in engine.__doc__, said
