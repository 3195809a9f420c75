"""notebooks/SOURCES.md maps every concept of the five source articles to where a lesson
teaches it. Lessons move (issue 16 moved many cells into Deeper parts), so the map's
references are checked: each `§N` is a numbered section of that lesson, and each quoted
title is one of its headings (or a collapsed box's summary)."""
import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[(\d\d)\]\((\d\d_\w+)\.ipynb\)([^\[|;]*)")


def titles(slug):
    nb = nbformat.read(ROOT / "notebooks" / f"{slug}.ipynb", as_version=4)
    found = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            found += [m[1].strip() for m in re.finditer(r"^#{2,4} (.*)$", cell.source, re.M)]
            found += re.findall(r"<summary>(.*?)</summary>", cell.source)
    return found


def plain(title):
    return re.sub(r"^\d+\.\s*", "", title).lower()


def test_every_reference_in_sources_names_a_real_section():
    text = (ROOT / "notebooks" / "SOURCES.md").read_text(encoding="utf-8")
    known, wrong, checked = {}, [], 0
    for number, line in enumerate(text.splitlines(), 1):
        for link in LINK.finditer(line):
            slug, where = link[2], link[3]
            headings = known.setdefault(slug, titles(slug))
            for section in re.findall(r"§(\d+)", where):
                checked += 1
                if not any(h.startswith(f"{section}. ") for h in headings):
                    wrong.append(f"line {number}: {slug} has no section {section}")
            for title in re.findall(r'"([^"]+)"', where):
                checked += 1
                if not any(plain(title) in plain(h) for h in headings):
                    wrong.append(f"line {number}: {slug} has no heading {title!r}")
    assert checked > 150, checked  # the map is read at all
    assert not wrong, "\n".join(wrong)
