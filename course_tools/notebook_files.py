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
# The editions of the course (issue 30): "en" is the English one, in the folders themselves;
# every other edition has the same file names one folder down, in a folder named after its
# language (notebooks/zh-CN/04_copying.ipynb, solutions/zh-CN/..., exercises/zh-CN/...).
# The format of a translated notebook: notebooks/AUTHORING.md, "The Chinese edition".
ENGLISH = "en"
TRANSLATIONS = ("zh-CN",)
LANGUAGES = (ENGLISH,) + TRANSLATIONS
# The file in a learner's workspace that names its language (make lab-zh writes "zh-CN"):
# exercises/checks/i18n.course_language reads it (make progress: what it reads and says).
LANGUAGE_FILE = ".course-language"
NOTEBOOK_NAME = re.compile(r"\d\d_[A-Za-z0-9_]+\.ipynb")
# Files a lesson links to, copied beside the notebooks wherever the course goes (a learner's
# workspace, the browser edition), when the course has them.
DOCUMENTS = ("notebooks/DIFFERENCES.md",)
EXERCISE_TAG = "exercise"
# "## Exercise 4.1: title", and the Chinese edition's "## 练习 4.1：标题" (a full-width colon).
# (The browser edition's copy of this rule is in the course's JupyterLab extension, for its
# progress view; tests/web/test_progress_rules.py runs both over both editions' notebooks.)
_HEADING = re.compile(r"^#+\s*(?:Exercise\s+|练习\s*)(\d+\.\d+)\s*[:：]?\s*(.*)$", re.MULTILINE)


def edition_folder(folder: str, language: str = ENGLISH) -> str:
    """Where ``language``'s notebooks of ``folder`` are: "notebooks", "notebooks/zh-CN"."""
    return folder if language == ENGLISH else f"{folder}/{language}"


def course_notebooks(root: Path = ROOT, languages: tuple = (ENGLISH,)) -> list[str]:
    """The course's notebooks, relative to the repository ("notebooks/00_welcome.ipynb"),
    of the editions in ``languages``: the English one unless asked (the site and the
    release's checks are the English edition's; the workspace asks for ``LANGUAGES``)."""
    found = []
    for language in languages:
        for folder in FOLDERS:
            where = edition_folder(folder, language)
            for path in sorted((root / where).glob("*.ipynb")):
                if NOTEBOOK_NAME.fullmatch(path.name):
                    found.append(f"{where}/{path.name}")
    return found


def course_files(root: Path = ROOT, languages: tuple = (ENGLISH,)) -> list[str]:
    """The course's notebooks and the documents among ``DOCUMENTS`` it has (the documents
    are shared: a Chinese lesson links to ../DIFFERENCES.md)."""
    return course_notebooks(root, languages) + [name for name in DOCUMENTS
                                                if (root / name).is_file()]


def language_of(name: str) -> str:
    """The edition a course path belongs to: "zh-CN" for "exercises/zh-CN/04_copying.ipynb"."""
    parts = Path(name).parts
    return next((part for part in parts[:-1] if part in TRANSLATIONS), ENGLISH)


def english_counterpart(name: str) -> str:
    """The English notebook a translated one translates ("notebooks/zh-CN/x" -> "notebooks/x")."""
    parts = [part for part in Path(name).parts[:-1] if part not in TRANSLATIONS]
    return Path(*parts, Path(name).name).as_posix()


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
