"""Carrying a learner's answers into a new edition of the course (``make workspace``).

When exercise notebooks are renamed (a new edition), the learner's notebooks under the old
names stay in the workspace as they are, and the workspace tool's ``sync`` creates each new
exercise notebook with the answers it finds in them: an answer cell whose source the learner
changed from the stub is carried to the new notebook's answer cell of the same exercise
(matched by the answer cell's id, ``answer_NN_name``, or else by the checker its check cell
calls). The report says which old notebook's answers went where.

The old names themselves (notebooks, checkers, modules) are in
``exercises/checks/old_names.py``, beside the checkers: an old notebook's import runs in the
learner's kernel, where the course's tools are not. Standard library only, as the workspace
tool.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from course_tools.notebook_files import answer_cells, as_text, cells_digest, exercises
from exercises.checks.answer_cells import checkers_called
from exercises.checks.old_names import MODULE_PREFIX, MOVED_MODULES, OLD_NOTEBOOKS, RENAMED_CHECKERS


@dataclass
class Carried:
    """Answers of an old-edition exercise notebook, written into a new one."""

    old: str  # "exercises/03_copying.ipynb"
    new: str  # "exercises/04_copying.ipynb"
    exercises: list  # the new numbers, ["4.1", "4.3"]


def old_edition_notebooks(workspace: Path) -> list[str]:
    """The workspace's notebooks named as in an earlier edition ("exercises/03_copying.ipynb")."""
    return [f"{folder}/{slug}.ipynb" for folder in ("exercises", "notebooks", "solutions")
            for slug in OLD_NOTEBOOKS if (workspace / folder / f"{slug}.ipynb").is_file()]


def old_answers(workspace: Path, old_edition: list[str]) -> dict[str, tuple[str, str]]:
    """new checker name -> (old notebook, the learner's answer source) for every answer cell
    of an old-edition exercise notebook (stubs included; ``answers_for`` leaves those out)."""
    found = {}
    for old in old_edition:
        if not old.startswith("exercises/"):
            continue
        try:
            nb = json.loads((workspace / old).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not a notebook any more: nothing to carry, and it stays as it is
        for name, cell in answer_cells(nb).items():
            new_name = RENAMED_CHECKERS.get(name)
            if new_name is not None:
                found.setdefault(new_name, (old, as_text(cell.get("source"))))
    return found


def answers_for(source: Path, old: dict) -> dict[str, tuple[str, str]]:
    """The old answers (``old_answers``) that belong in course notebook ``source``: checker
    name -> (old notebook, answer), only answers the learner changed from the stub."""
    nb = json.loads(source.read_text(encoding="utf-8"))
    wanted = {}
    for name, cell in answer_cells(nb).items():
        if name in old:
            notebook, answer = old[name]
            if answer.strip() != as_text(cell.get("source")).strip():
                wanted[name] = (notebook, answer)
    return wanted


def with_answers(source: Path, answers: dict) -> tuple[str, dict]:
    """Course notebook ``source`` with the answer cells' sources replaced (their outputs
    cleared), as text; and checker name -> the exercise's number ("4.3")."""
    nb = json.loads(source.read_text(encoding="utf-8"))
    cells = answer_cells(nb)
    numbers = {}
    for number, _title, _answer, check in exercises(nb):
        for name in checkers_called(as_text(check.get("source"))):
            numbers.setdefault(name, number)
    for name, (_old, answer) in answers.items():
        cell = cells[name]
        cell["source"] = answer.splitlines(keepends=True)
        cell["outputs"] = []
        cell["execution_count"] = None
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", numbers


def report_lines(added: list, carried: list, old_edition: list, workspace: Path) -> list[str]:
    """Where the answers of old-edition notebooks went (when new notebooks were made)."""
    new_exercises = [n for n in added if n.startswith("exercises/")]
    if not old_edition or not new_exercises:
        return []
    out = ["The course has a new edition: lesson 2 is now two lessons (2 and 3), and the "
           "lessons after it moved up (3 is now 4, ..., 9 is now 11).",
           f"Your notebooks of the earlier edition are kept in {workspace.name}/ as they "
           f"were (nothing in them was changed):"]
    others = [old for old in old_edition if not old.startswith("exercises/")]
    for old in old_edition:
        went = [c for c in carried if c.old == old]
        if not old.startswith("exercises/"):
            continue
        if not went:
            out.append(f"  {workspace.name}/{old}: no answers to carry over (none was "
                       f"changed from the start, or the new notebook was already there)")
            continue
        out.append(f"  {workspace.name}/{old}: your answers are now in")
        out += [f"      {workspace.name}/{c.new} (Exercise {', '.join(c.exercises)})"
                for c in went]
    if others:
        folders = " and ".join(sorted({f"{workspace.name}/{o.split('/')[0]}/" for o in others}))
        out.append(f"  and {plural(len(others), 'lesson or solution notebook')} of the "
                   f"earlier edition in {folders}, next to the new ones")
    out.append("Run the new notebooks' answer and check cells to see your answers checked "
               "again.")
    return out


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# --- the checkers' modules renamed (exercises/checks/old_names.py, MOVED_MODULES) ----------

_OLD_NAME_OF = {new: old for old, new in MOVED_MODULES.items() if old.startswith(MODULE_PREFIX)}
_CHECKER_IMPORT = re.compile(r"^from (exercises\.checks\.\w+) import (\([^)]*\)|.*)", re.MULTILINE)


def with_old_module_names(source: str) -> str:
    """A cell's source with its checkers' imports as they were written before the modules
    moved into ``exercises.checks`` (``from exercises.checks_04_copying import (...``), the
    names after the parenthesis aligned again as the course writes them."""
    def old_import(match):
        old = _OLD_NAME_OF.get(match[1])
        if old is None:
            return match[0]
        aligned_now, aligned_then = (" " * len(f"from {name} import (") for name in (match[1], old))
        return f"from {old} import " + match[2].replace("\n" + aligned_now, "\n" + aligned_then)

    return _CHECKER_IMPORT.sub(old_import, source)


def digest_before_the_move(nb: dict) -> str:
    """The cells digest ``nb`` had before its checkers' modules were renamed: a learner's copy
    made then (the workspace records this digest) is not an older version of the notebook."""
    cells = [dict(cell, source=with_old_module_names(as_text(cell.get("source"))))
             if cell.get("cell_type") == "code" else cell for cell in nb.get("cells", [])]
    return cells_digest({"cells": cells})
