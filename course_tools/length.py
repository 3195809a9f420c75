"""How long the course takes: main-path words and code cells per lesson, and the time.

The main path is what a lesson's summary and exercises need. Optional depth is markdown in a
collapsed <details> box (a Predict answer, an "If you read older tutorials" note) and everything
in a part whose "## " title says "Deeper", up to the next "## " title.

The estimate uses issue 16's rates: about 150 words a minute of reading, about 40 seconds per
code cell to predict, run and read its output. Exercises are not counted (they are timed apart).

    .venv/bin/python -m course_tools.length      # the table (works right after `make lab`)
    .venv/bin/python -m course_tools.length --zh # the Chinese edition beside the English

The Chinese edition (notebooks/zh-CN/, issue 30) is measured in characters (Chinese text has
no spaces to count words by): its main path is found the same way, a "## 深入：" title
starting a Deeper part.

It needs only what `make lab` installs (nbformat comes with JupyterLab), never the test tools.
"""
import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
# The gallery (99_gallery.ipynb) shows pictures to browse; it is not a lesson.
NOT_LESSONS = ("99_gallery",)
# Lessons from 12 on are the advanced part, for after the course's five-hour main path
# (lessons 00-11, README's course map): the table lists them, the total leaves them out.
FIRST_ADVANCED = 12
DETAILS = re.compile(r"<details>.*?</details>", re.S)
WORDS_PER_MINUTE = 150
SECONDS_PER_CODE_CELL = 40


TITLE = re.compile(r"^## (.*)$", re.M)
DEEPER_ZH = "深入"  # "## Deeper: ..." in the Chinese edition (its format: "## 深入：...")
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _parts(nb):
    """(cell or markdown piece, in a Deeper part?) for every cell; a markdown cell with
    "## " titles inside it is cut at each title, so that a title counts wherever it is."""
    deeper = False
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            yield cell, deeper
            continue
        starts = [0] + [m.start() for m in TITLE.finditer(cell.source) if m.start() > 0]
        for begin, end in zip(starts, starts[1:] + [len(cell.source)]):
            piece = cell.source[begin:end]
            title = TITLE.match(piece)
            if title:
                deeper = "deeper" in title[1].lower() or title[1].startswith(DEEPER_ZH)
            yield nbformat.v4.new_markdown_cell(piece), deeper


def main_path_words(nb) -> tuple[int, int]:
    """(main-path words, optional words) of a lesson's markdown."""
    main = optional = 0
    for cell, deeper in _parts(nb):
        if cell.cell_type != "markdown":
            continue
        if deeper:
            optional += len(cell.source.split())
        else:
            main += len(DETAILS.sub(" ", cell.source).split())
            optional += sum(len(box.split()) for box in DETAILS.findall(cell.source))
    return main, optional


def main_path_characters(nb) -> tuple[int, int]:
    """(main-path Chinese characters, optional ones) of a translated lesson's markdown: the
    Han characters (punctuation, Latin words and code are not counted)."""
    main = optional = 0
    for cell, deeper in _parts(nb):
        if cell.cell_type != "markdown":
            continue
        if deeper:
            optional += len(HAN.findall(cell.source))
        else:
            main += len(HAN.findall(DETAILS.sub(" ", cell.source)))
            optional += sum(len(HAN.findall(box)) for box in DETAILS.findall(cell.source))
    return main, optional


def main_path_code_cells(nb) -> tuple[int, int]:
    """(code cells on the main path, code cells in Deeper parts); empty cells do not count."""
    main = optional = 0
    for cell, deeper in _parts(nb):
        if cell.cell_type == "code" and cell.source.strip():
            if deeper:
                optional += 1
            else:
                main += 1
    return main, optional


def minutes(words: int, code_cells: int) -> float:
    return words / WORDS_PER_MINUTE + code_cells * SECONDS_PER_CODE_CELL / 60


def lesson_length(path) -> dict:
    nb = nbformat.read(path, as_version=4)
    words, optional_words = main_path_words(nb)
    cells, optional_cells = main_path_code_cells(nb)
    exercises = 0
    solutions = ROOT / "solutions" / Path(path).name
    if solutions.exists():
        exercises = sum("exercise" in c.metadata.get("tags", [])
                        for c in nbformat.read(solutions, as_version=4).cells)
    return {"words": words, "optional words": optional_words, "code cells": cells,
            "optional code cells": optional_cells, "exercises": exercises,
            "minutes": minutes(words, cells)}


def table(slugs) -> str:
    rows = ["| lesson | main-path words | optional words | main-path code cells "
            "| optional code cells | exercises | main path, min |", "|---|" + "---:|" * 6]
    total = dict.fromkeys(["words", "optional words", "code cells", "optional code cells",
                           "exercises", "minutes"], 0)
    advanced = dict.fromkeys(total, 0)
    for slug in slugs:
        length = lesson_length(ROOT / "notebooks" / f"{slug}.ipynb")
        for key in total:
            (advanced if is_advanced(slug) else total)[key] += length[key]
        rows.append(f"| {slug} | " + " | ".join(
            f"{length[k]:,.0f}" for k in total) + " |")
    rows.append("| **total, 00-11** | " + " | ".join(f"**{total[k]:,.0f}**" for k in total)
                + " |")
    rows.append(f"\nEstimated main path: {total['minutes'] / 60:.1f} h "
                f"({total['words']:,} words at {WORDS_PER_MINUTE} a minute, "
                f"{total['code cells']} code cells at {SECONDS_PER_CODE_CELL} s each).")
    if advanced["minutes"]:
        rows.append(f"The advanced part (lessons {FIRST_ADVANCED} on) adds "
                    f"{advanced['minutes']:.0f} min.")
    return "\n".join(rows)


def is_advanced(slug: str) -> bool:
    """True for a lesson of the advanced part ("12_hooks_and_saved_tensors", ...)."""
    return int(slug[:2]) >= FIRST_ADVANCED


def lessons(root=ROOT) -> list[str]:
    """The lessons' slugs, in order ("00_welcome", ...)."""
    return [path.stem for path in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))
            if path.stem not in NOT_LESSONS]


def translation_table(slugs, language: str = "zh-CN") -> str:
    """Each lesson's English main-path words beside its translation's main-path characters
    (the issue's closing note); "not yet" for a lesson not translated."""
    rows = [f"| lesson | English main-path words | {language} main-path characters "
            f"| {language} optional characters |", "|---|---:|---:|---:|"]
    for slug in slugs:
        words, _ = main_path_words(nbformat.read(ROOT / "notebooks" / f"{slug}.ipynb",
                                                 as_version=4))
        path = ROOT / "notebooks" / language / f"{slug}.ipynb"
        if path.exists():
            main, optional = main_path_characters(nbformat.read(path, as_version=4))
            rows.append(f"| {slug} | {words:,} | {main:,} | {optional:,} |")
        else:
            rows.append(f"| {slug} | {words:,} | not yet | |")
    return "\n".join(rows)


if __name__ == "__main__":
    import sys

    print(translation_table(lessons()) if "--zh" in sys.argv[1:] else table(lessons()))
