"""Write the exercise notebooks from the solution notebooks (the one source of truth).

    python -m course_tools.generate --execute   # write, run exercises/NN_*.ipynb (make exercises)
    python -m course_tools.generate --check     # exit 1, list what differs (make check-exercises)
    python -m course_tools.generate 04_copying  # only the exercise notebooks whose names match

Each ``solutions/NN_*.ipynb`` gives ``exercises/NN_*.ipynb`` (same name), and each translated
solution ``solutions/zh-CN/NN_*.ipynb`` gives ``exercises/zh-CN/NN_*.ipynb`` the same way (the
Chinese edition, issue 30: its markdown cells keep their translation fingerprints, the
notebook its ``course.language``). In code cells
tagged ``exercise``, every region between nbgrader-style markers::

    ### BEGIN SOLUTION
    ### STUB answer = ...
    answer = torch.tensor([1.0, 2.0])
    ### END SOLUTION

becomes ``# YOUR CODE HERE`` followed by the region's ``### STUB`` lines (without the
marker and the one space after it; ``...`` when the region has none), indented like the
``### BEGIN SOLUTION`` line and the ``### STUB`` lines. In the solution the ``### STUB`` lines
are plain comments. A ``### STUB`` line is copied as it is, its trailing ``#`` comment
included, so a translated solution (solutions/zh-CN/) may translate that comment; the code
before it stays the English edition's.

A learner types at the ``# YOUR CODE HERE`` line's indentation, so the stub must start there
(deeper lines only inside a block the stub opens, as a ``def``'s body): a stub that starts
deeper, or an exercise cell that no longer compiles when a line is added at that indentation
before or after the stub, is an error (the learner would get an ``IndentationError`` for a
correct line).
Everything else is copied unchanged, and every output and execution count is cleared;
``--execute`` then runs each notebook written (the exercise notebooks are committed executed,
so nbval checks what each checker says on an unsolved stub).
Markers outside a code cell tagged ``exercise``, unmatched or nested markers, and tagged
code cells without a region are errors, so no solution can leak by mistake.

The output is deterministic (nbformat's JSON layout, no timestamps). ``--check`` compares
everything but outputs and execution counts (those are nbval's job), and an exercise notebook
whose cells already match is left alone, outputs included. Exercise notebooks without a
solution are removed (``--check`` lists them).
"""
from __future__ import annotations

import argparse
import ast
import copy
import re
import sys
from pathlib import Path
from typing import NamedTuple

import nbformat

from course_tools.execute import KERNELSPEC, execute, render
from course_tools.notebook_files import TRANSLATIONS, cells_digest
from exercises.checks.answer_cells import checkers_called

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"

TAG = "exercise"
BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = "### STUB"
YOUR_CODE = "# YOUR CODE HERE"
DEFAULT_STUB = "..."
PATTERN = "[0-9][0-9]_*.ipynb"

_MARKER = re.compile(r"^(\s*)(### BEGIN SOLUTION|### END SOLUTION|### STUB)(.*)$")


class MarkerError(ValueError):
    """A solution notebook's markers are malformed."""


def make_exercise_source(source: str, where: str = "cell") -> str:
    """A tagged cell's source with each solution region replaced by its stub."""
    out, region, stubs, indent = [], None, [], ""
    placed = []  # (line numbers of BEGIN and the first STUB, BEGIN's indentation, the stub's
    #             start and end in out)
    first_stub = None
    lines = source.split("\n")
    for number, line in enumerate(lines, 1):
        m = _MARKER.match(line)
        marker = m[2] if m else None
        rest = m[3] if m else ""
        if marker == BEGIN:
            if region is not None:
                raise MarkerError(f"{where}, line {number}: {BEGIN} inside another region")
            if rest.strip():
                raise MarkerError(f"{where}, line {number}: text after {BEGIN}")
            region, stubs, indent, first_stub = number, [], m[1], None
        elif marker == END:
            if region is None:
                raise MarkerError(f"{where}, line {number}: {END} without {BEGIN}")
            out.append(indent + YOUR_CODE)
            start = len(out)
            out.extend(stubs or [indent + DEFAULT_STUB])
            placed.append((region, first_stub or region, indent, start, len(out)))
            region = None
        elif marker == STUB:
            if region is None:
                raise MarkerError(f"{where}, line {number}: {STUB} outside a solution region")
            if not rest.startswith(" ") or not rest.strip():
                raise MarkerError(f"{where}, line {number}: write '{STUB} <code>'")
            stubs.append(m[1] + rest[1:].rstrip())
            first_stub = first_stub or number
        elif region is None:
            out.append(line)
    if region is not None:
        raise MarkerError(f"{where}, line {region}: {BEGIN} without {END}")
    problem = _compile_problem("\n".join(out)) if placed else None
    if problem:
        raise MarkerError(f"{where}: the exercise cell would not run: {problem}")
    for number, stub_number, indent, start, end in placed:
        _check_stub_indentation(out, number, stub_number, indent, start, end, where)
    return "\n".join(out)


LEARNER_LINE = "pass"  # any statement a learner might add beside the stub


def _spaces(indent: str) -> str:
    if indent.strip(" "):
        return repr(indent)  # tabs: say exactly what is there
    return f"{len(indent)} space{'' if len(indent) == 1 else 's'}"


def _check_stub_indentation(out: list[str], number: int, stub_number: int, indent: str,
                            start: int, end: int, where: str) -> None:
    """Raise MarkerError unless a learner's line at the ``# YOUR CODE HERE`` indentation
    fits before and after the stub placed at ``out[start:end]`` (region opened on line
    ``number``, first STUB on ``stub_number``): the stub starts at that indentation and the
    cell still compiles."""
    first = out[start]
    first_indent = first[:len(first) - len(first.lstrip())]
    if first_indent != indent:
        raise MarkerError(
            f"{where}, line {stub_number}: the stub starts at {_spaces(first_indent)} but "
            f"{YOUR_CODE} (the {BEGIN} line) is at {_spaces(indent)}, where a learner types: "
            f"write '{indent}{STUB} {first.lstrip()}' (one space after {STUB})")
    advice = {"before": f"indent the {STUB} lines so that the stub starts there",
              "after": "the stub and the code after it must end at that indentation"}
    for position, place in ((start, "before"), (end, "after")):
        trial = out[:position] + [indent + LEARNER_LINE] + out[position:]
        problem = _compile_problem("\n".join(trial))
        if problem:
            raise MarkerError(
                f"{where}, line {number}: a learner's line at {_spaces(indent)} (the "
                f"{YOUR_CODE} line's indentation) {place} the stub would not run: {problem}; "
                f"{advice[place]}")


def _compile_problem(source: str) -> str | None:
    """Why an exercise cell's source does not compile as the kernel would run it, or None."""
    from IPython.core.inputtransformer2 import TransformerManager  # magics and !commands
    try:
        compile(TransformerManager().transform_cell(source), "<cell>", "exec",
                flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as error:
        return f"{type(error).__name__}: {error.msg} (line {error.lineno})"
    return None


def _has_markers(source: str) -> bool:
    return any(_MARKER.match(line) for line in source.split("\n"))


def assign_cell_ids(nb, name: str = "notebook") -> None:
    """Give each check cell the id of its checker (``check_04_snapshot``) and the exercise
    cell before it ``answer_04_snapshot``: a check then finds its answer cell by id in
    JupyterLab (exercises/checks/answer_cells.py). Other cells keep their ids."""
    previous_code = None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        called = next(iter(checkers_called(cell.source)), None)
        if called is not None and TAG not in cell.metadata.get("tags", []):
            if previous_code is None or TAG not in previous_code.metadata.get("tags", []):
                raise MarkerError(f"{name}, cell {index}: the check cell calling {called} must "
                                  f"come right after its code cell tagged '{TAG}'")
            cell.id = called
            previous_code.id = "answer_" + called.removeprefix("check_")
        previous_code = cell
    ids = [cell.id for cell in nb.cells]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise MarkerError(f"{name}: cell ids used twice: {', '.join(repeated)} (a checker "
                          f"called by two check cells?)")


def make_exercise_notebook(solution, name: str = "notebook", folder: str = "solutions"):
    """The exercise notebook for a solution notebook (a new object; the input is unchanged);
    ``folder`` is where the solution is ("solutions/zh-CN" for a Chinese one)."""
    nb = copy.deepcopy(solution)
    for index, cell in enumerate(nb.cells):
        where = f"{name}, cell {index}"
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        tagged = TAG in cell.get("metadata", {}).get("tags", [])
        if cell.cell_type == "code":
            if tagged:
                if not _has_markers(source):
                    raise MarkerError(f"{where}: tagged '{TAG}' but has no {BEGIN} region")
                source = make_exercise_source(source, where)
            elif _has_markers(source):
                raise MarkerError(f"{where}: solution markers in a cell not tagged '{TAG}'")
            cell.source = source
            cell.outputs = []
            cell.execution_count = None
        elif _has_markers(source):
            raise MarkerError(f"{where}: solution markers in a {cell.cell_type} cell")
    assign_cell_ids(nb, name)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)  # as JupyterLab writes it on open
    # What the generator wrote, so that it can tell a learner's edits from its own output.
    nb.metadata[FINGERPRINT] = {"solution": f"{folder}/{name}", "cells_sha256": cells_digest(nb)}
    return nb


FINGERPRINT = "exercise_generated"


def edition_of(folder: Path) -> str:
    """"zh-CN/" for a translated edition's folder (solutions/zh-CN), "" for the English one."""
    return f"{folder.name}/" if folder.name in TRANSLATIONS else ""


def exercise_text(solution_path: Path) -> str:
    solution = nbformat.read(solution_path, as_version=4)
    folder = "solutions/" + edition_of(solution_path.parent)
    return render(make_exercise_notebook(solution, name=solution_path.name,
                                         folder=folder.rstrip("/")))


def without_outputs(text: str) -> str:
    """A notebook's text with every output and execution count cleared."""
    nb = nbformat.reads(text, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return render(nb)


def _selected(name: str, only: list[str] | None, edition: str = "") -> bool:
    """Whether ``name`` (of the edition ``edition``, "" or "zh-CN/") is one of ``only``:
    "04" and "04_copying" select both editions' notebooks, "zh-CN/04" the Chinese one."""
    return not only or any(part in edition + name for part in only)


def safe_to_replace(current: str, new: str) -> bool:
    """True when replacing exercise notebook text ``current`` by ``new`` loses nothing a
    person wrote: its cells are the ones the generator last wrote (recorded in it), or the
    ones it would write now. Outputs do not count: running the notebook again makes them."""
    nb = nbformat.reads(current, as_version=4)
    digest = cells_digest(nb)
    recorded = nb.metadata.get(FINGERPRINT, {}).get("cells_sha256")
    return digest == recorded or (new is not None
                                  and digest == cells_digest(nbformat.reads(new, as_version=4)))


class Refused(NamedTuple):
    """An exercise notebook the generator left alone because a person changed its cells."""

    name: str
    action: str  # "overwrite" or "remove"


def sync(solutions: Path = SOLUTIONS, exercises: Path = EXERCISES, *,
         check: bool = False, only: list[str] | None = None, force: bool = False,
         refused: list | None = None) -> list[str]:
    """Write (or with ``check``, only compare) every exercise notebook, or those whose
    names contain one of ``only``; return the names of the notebooks that were (or would
    be) written or removed. ``force`` writes them even when their cells are unchanged
    (to run them again after a checker's message changed).

    A notebook whose cells someone edited (a learner's answers, typed into ``exercises/``)
    is never overwritten or removed: it is appended to ``refused`` instead (a ``Refused``)."""
    changed = []
    refused = [] if refused is None else refused
    edition = edition_of(exercises)
    wanted = {}
    for path in sorted(solutions.glob(PATTERN)):
        wanted[path.name] = exercise_text(path)
    for name, text in wanted.items():
        if not _selected(name, only, edition):
            continue
        target = exercises / name
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current is None or without_outputs(current) != text or (force and not check):
            if current is not None and not safe_to_replace(current, text):
                refused.append(Refused(name, "overwrite"))
                continue
            changed.append(name)
            if not check:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(text.encode("utf-8"))
    for target in sorted(exercises.glob(PATTERN)):
        if target.name not in wanted and _selected(target.name, only, edition):
            if not safe_to_replace(target.read_text(encoding="utf-8"), None):
                refused.append(Refused(target.name, "remove"))
                continue
            changed.append(target.name)
            if not check:
                target.unlink()
    return changed


def refusal_message(refusal: Refused, exercises: Path = EXERCISES) -> str:
    """Why a notebook was left alone, and how to go on without losing anything."""
    path = exercises / refusal.name
    verb = "overwritten" if refusal.action == "overwrite" else "removed"
    lines = [f"{path}: left alone (not {verb}): its cells are not the ones the generator "
             f"wrote, so they may hold someone's answers."]
    edition = edition_of(exercises)
    root = exercises.parent.parent if edition else exercises.parent
    copy_in_workspace = root / "workspace" / "exercises" / edition / refusal.name
    if copy_in_workspace.exists() and copy_in_workspace.read_bytes() == path.read_bytes():
        lines.append(f"  The same file is in {copy_in_workspace}, so nothing is lost if you "
                     f"put the committed version back: git checkout -- {path}")
    else:
        lines.append(f"  To keep it, move it out of {exercises}/ first (`make workspace` copies "
                     f"exercise notebooks into workspace/exercises/ when they are not there yet), "
                     f"then run this again.")
    return "\n".join(lines)


def editions(solutions: Path, exercises: Path) -> list[tuple[Path, Path]]:
    """(solutions folder, exercises folder) of every edition present: the English one and
    each translation's (solutions/zh-CN -> exercises/zh-CN) that has either folder."""
    pairs = [(solutions, exercises)]
    for language in TRANSLATIONS:
        if (solutions / language).is_dir() or (exercises / language).is_dir():
            pairs.append((solutions / language, exercises / language))
    return pairs


def fix_solution_ids(solutions: Path = SOLUTIONS) -> int:
    """Give the check and answer cells of every solution notebook the ids the exercise
    notebooks get (``check_NN_name`` / ``answer_NN_name``), so a check finds its answer cell
    by id in the solutions too (a translation's have the English ids already: unchanged)."""
    for path in sorted(solutions.glob(PATTERN)):
        nb = nbformat.read(path, as_version=4)
        before = render(nb)
        try:
            assign_cell_ids(nb, path.name)
        except MarkerError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        if render(nb) != before:
            path.write_bytes(render(nb).encode("utf-8"))
            print(f"wrote {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m course_tools.generate",
        description="Write exercises/NN_*.ipynb from solutions/NN_*.ipynb.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 and list the notebooks that differ")
    parser.add_argument("--execute", action="store_true",
                        help="run each exercise notebook written, saving its outputs")
    parser.add_argument("--force", action="store_true",
                        help="write (and with --execute run) even the notebooks that match")
    parser.add_argument("--fix-ids", action="store_true",
                        help="give the check and answer cells of solutions/ their ids, then stop")
    parser.add_argument("names", nargs="*",
                        help="only notebooks whose names contain one of these (e.g. 03)")
    parser.add_argument("--solutions", type=Path, default=SOLUTIONS)
    parser.add_argument("--exercises", type=Path, default=EXERCISES)
    args = parser.parse_args(argv)
    if args.fix_ids:
        return fix_solution_ids(args.solutions)  # the English ids; translations copy them
    refused: list[tuple[Path, Refused]] = []
    changed: list[Path] = []
    try:
        for solutions, exercises in editions(args.solutions, args.exercises):
            mine: list[Refused] = []
            changed += [exercises / name for name in sync(
                solutions, exercises, check=args.check, only=args.names, force=args.force,
                refused=mine)]
            refused += [(exercises, refusal) for refusal in mine]
    except MarkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for exercises, refusal in refused:
        print(refusal_message(refusal, exercises), file=sys.stderr)
    if args.check:
        if changed:
            print("Exercise notebooks out of sync with solutions/ (`make exercises` writes "
                  "them):", file=sys.stderr)
            for target in changed:
                print(f"  {target}", file=sys.stderr)
        if changed or refused:
            return 1
        print("Exercise notebooks are in sync with solutions/.")
        return 0
    for target in changed:
        if not target.exists():
            print(f"removed {target} (no solution)")
            continue
        print(f"wrote {target}")
        if args.execute:
            execute(target)
            print(f"executed {target}")
    if not changed and not refused:
        print("Exercise notebooks already up to date.")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
