"""The course's notebooks as files: which there are, and what their cells say, read as JSON.

Shared by the workspace tool, the editions, the generator, the browser check and the site
build. Standard library only: the workspace tool runs without the course's environment.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from exercises.checks.answer_cells import checkers_called

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("notebooks", "exercises", "solutions")
NOTEBOOK_NAME = re.compile(r"\d\d_[A-Za-z0-9_]+\.ipynb")
# Files a lesson links to, copied beside the notebooks wherever the course goes (a learner's
# workspace, the browser edition), when the course has them.
DOCUMENTS = ("notebooks/DIFFERENCES.md",)
EXERCISE_TAG = "exercise"
_HEADING = re.compile(r"^#+\s*Exercise\s+(\d+\.\d+)\s*:?\s*(.*)$", re.MULTILINE)


def course_notebooks(root: Path = ROOT) -> list[str]:
    """The course's notebooks, relative to the repository ("notebooks/00_welcome.ipynb")."""
    found = []
    for folder in FOLDERS:
        for path in sorted((root / folder).glob("*.ipynb")):
            if NOTEBOOK_NAME.fullmatch(path.name):
                found.append(f"{folder}/{path.name}")
    return found


def course_files(root: Path = ROOT) -> list[str]:
    """The course's notebooks and the documents among ``DOCUMENTS`` it has."""
    return course_notebooks(root) + [name for name in DOCUMENTS if (root / name).is_file()]


def as_text(value) -> str:
    """A cell's source (or an output's text) as one string, however the file stores it."""
    return "".join(value) if isinstance(value, list) else (value or "")


def tags(cell: dict) -> list:
    return cell.get("metadata", {}).get("tags", [])


def cells_digest(nb: dict) -> str:
    """A fingerprint of a notebook's cells, their types and sources (not outputs or
    metadata): running a notebook again is not a new version of it, typing into it is."""
    cells = [[cell.get("cell_type"), as_text(cell.get("source"))] for cell in nb.get("cells", [])]
    return hashlib.sha256(json.dumps(cells).encode("utf-8")).hexdigest()


def answer_cells(nb: dict) -> dict[str, dict]:
    """checker name -> the answer cell its check cell judges: the cell with the id
    ``answer_NN_name``, or else (a notebook without ids) the code cell tagged ``exercise``
    between the check cell and the check before it, or the code cell right before it."""
    code = [cell for cell in nb.get("cells", []) if cell.get("cell_type") == "code"]
    by_id = {cell.get("id"): cell for cell in code}
    found = {}
    for index, cell in enumerate(code):
        if EXERCISE_TAG in tags(cell):
            continue
        for name in checkers_called(as_text(cell.get("source"))):
            answer = by_id.get("answer_" + name.removeprefix("check_"))
            if answer is None:
                before = []
                for earlier in reversed(code[:index]):
                    if checkers_called(as_text(earlier.get("source"))) and \
                            EXERCISE_TAG not in tags(earlier):
                        break
                    before.append(earlier)
                tagged = [c for c in before if EXERCISE_TAG in tags(c)]
                answer = tagged[0] if tagged else (before[0] if before else None)
            if answer is not None:
                found.setdefault(name, answer)
    return found


def exercises(nb: dict) -> list[tuple]:
    """(number, title, answer cell, check cell) for every exercise of a notebook."""
    found, heading, answer = [], ("?", ""), {}
    for cell in nb.get("cells", []):
        source = as_text(cell.get("source"))
        if cell.get("cell_type") == "markdown":
            match = _HEADING.search(source)
            if match:
                heading = (match[1], match[2].strip())
        elif cell.get("cell_type") == "code":
            if EXERCISE_TAG in tags(cell):
                answer = cell
            elif checkers_called(source):
                found.append((*heading, answer, cell))
    return found
