"""README's numbers that drift as the course changes are kept in step with measurements: each
lesson's main-path minutes and the total (course_tools/length.py, `make length`), how many
notebooks the browser test opens, and, where the browser edition has been built (`make
site`), how many files it has. (Issue 28: README said 22 notebooks, 26 min for lesson 05 and
4.8 h while the course had grown.)"""
import re
from pathlib import Path

import pytest

from course_tools import browser_check, length

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SITE = ROOT / "build" / "site"

# | 05 | [Computational graphs ...](notebooks/05_graphs_and_leaves.ipynb) | ... | 28 min |
LESSON_ROW = re.compile(r"^\| (\d\d) \| \[[^\]]*\]\(notebooks/(\w+)\.ipynb\) \|.*\| (\d+) min \|$",
                        re.MULTILINE)


def test_every_lesson_has_a_row_with_its_minutes():
    rows = {slug: int(minutes) for _, slug, minutes in LESSON_ROW.findall(README)}
    assert sorted(rows) == length.lessons()
    measured = {slug: round(length.lesson_length(ROOT / "notebooks" / f"{slug}.ipynb")
                            ["minutes"]) for slug in rows}
    assert rows == measured, "README's lesson table: update the minutes from `make length`"


def test_the_main_path_total():
    total = sum(length.lesson_length(ROOT / "notebooks" / f"{slug}.ipynb")["minutes"]
                for slug in length.lessons() if not length.is_advanced(slug))
    stated = re.search(r"main path of lessons 00-\d\d takes about \d+ hours \(([\d.]+) h",
                       README)
    assert stated, "README no longer states the main path's hours"
    assert stated.group(1) == f"{total / 60:.1f}"


def test_the_browser_test_notebook_count():
    stated = re.search(r"the (\d+)\s+notebooks (?:take|took) ", README)
    assert stated, "README no longer states how many notebooks the browser test opens"
    assert int(stated.group(1)) == len(browser_check.course_notebooks())


@pytest.mark.skipif(not SITE.is_dir(), reason="build/site/ not built (`make site`): its file "
                    "count is checked after a build")
def test_the_site_file_count():
    stated = re.search(r"The site is \*\*(\d+) MB in (\d+) files\*\*", README)
    assert stated, "README no longer states the site's size"
    files = [path for path in SITE.rglob("*") if path.is_file()]
    assert int(stated.group(2)) == len(files)
    # megabytes as the build reports them (10^6 bytes), to the nearest one
    assert int(stated.group(1)) == round(sum(path.stat().st_size for path in files) / 1e6)


def test_the_first_result_against_the_floor():
    """README's time to the first result (issue 28) is the last `make first-result`'s
    (bench/first_result.json, course_tools/site/first_result.py)."""
    import json

    saved = json.loads((ROOT / "bench" / "first_result.json").read_text())
    chromium = saved["results"]["chromium"]
    words = (r"lesson 00's first output came after \*\*([\d.]+) s\*\* on the course's site and "
             r"\*\*([\d.]+) s\*\* on the floor \(\*\*([\d.]+)x\*\*")
    stated = re.search(words.replace(" ", r"\s+"), README)
    assert stated, "README no longer states the first result against the floor"
    assert [float(x) for x in stated.groups()] == [chromium["course/first"]["first_output"],
                                                   chromium["floor/first"]["first_output"],
                                                   chromium["ratio"]], \
        "README's first-result numbers: update them from bench/first_result.json"
    flat = " ".join(README.split())
    assert f"measured {saved['date']}" in flat and f"medians of {saved['runs']} runs" in flat
