"""The learner's workspace: their own copy of the course, which nothing else ever touches.

    python -m course_tools.workspace sync            # make workspace: copy what is missing
    python -m course_tools.workspace reset NOTEBOOK  # make reset NB=...: a fresh copy of one
    python -m course_tools.workspace progress        # make progress: exercises done so far
    python -m course_tools.workspace server          # make lab: a server already running here?
    python -m course_tools.workspace language zh-CN  # make lab-zh: the workspace's language

``workspace/`` (git-ignored) holds copies of the lessons, the exercise notebooks and the
solutions, laid out as in the repository (``workspace/notebooks/``, ``workspace/exercises/``,
``workspace/solutions/``), and of the documents a lesson links to
(``notebooks/DIFFERENCES.md``), so every link between them works. JupyterLab opens there, so a
learner's answers and the outputs of the lessons they run are saved there and nowhere else.

The rules that keep a learner's work safe:

- ``sync`` copies a file only when the workspace has no file of that name: it never
  overwrites. The first run copies everything, including exercise notebooks a learner
  already filled in before workspaces existed (their current files are copied).
- ``reset`` moves the learner's copy aside under a dated name, then copies the course's
  version: nothing is deleted.
- Nothing else writes into ``workspace/``: not the tests, not the generator, not
  ``make clean`` or ``make distclean``.

When the course changes (``git pull``), ``sync`` adds new notebooks and lists the notebooks
whose course version changed since they were copied; ``reset`` gives the new version of one.
The versions copied are recorded in ``workspace/.course-copies.json``.

When exercise notebooks were renamed (a new edition), the learner's notebooks under the old
names stay as they are, and ``sync`` creates each new exercise notebook with the answers it
finds in them (course_tools/editions.py).

The workspace holds both languages of the course: the Chinese edition's notebooks in
``workspace/notebooks/zh-CN/``, ``workspace/exercises/zh-CN/``, ``workspace/solutions/zh-CN/``
(issue 30), copied, reset and kept safe by the same rules. ``make lab-zh`` writes
``workspace/.course-language`` (``zh-CN``; ``make lab`` writes ``en``): ``make progress`` reads
that edition's exercise notebooks (the English one's where a lesson is not translated yet), and
the checkers' messages follow it.

What it prints is in the workspace's language (exercises/checks/i18n.py's
``course_language``: ``COURSE_LANGUAGE``, else the workspace's ``.course-language`` that
``make lab-zh`` writes, else the locale), through the checkers' message catalog.

Standard library only: it runs before (and without) the course's virtual environment.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from course_tools import editions
from course_tools.notebook_files import (ENGLISH, FOLDERS, LANGUAGE_FILE, LANGUAGES, ROOT,
                                         as_text, cells_digest, course_files, course_notebooks,
                                         edition_folder, exercises, language_of)
from exercises.checks.feedback import CORRECT, WRONG, label
from exercises.checks.i18n import N_, _, course_language, n_, speaking, translate
from exercises.checks.old_names import OLD_NOTEBOOKS

WORKSPACE = ROOT / "workspace"
RECORD = ".course-copies.json"
FIRST_LESSON = "notebooks/00_welcome.ipynb"


def first_lesson(language: str = ENGLISH, workspace: Path | None = None) -> str:
    """The lesson JupyterLab opens: lesson 00 of the workspace's edition, the English one's
    while the workspace has no translated lesson 00."""
    name = f"{edition_folder('notebooks', language)}/00_welcome.ipynb"
    if workspace is not None and not (Path(workspace) / name).is_file():
        return FIRST_LESSON
    return name


def _digest(path: Path) -> str:
    """``cells_digest`` of a notebook file (of its bytes, if it is not a notebook)."""
    try:
        return cells_digest(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, AttributeError):
        return hashlib.sha256(path.read_bytes()).hexdigest()


def _digests(path: Path) -> set:
    """The digests a copy of the course's file ``path`` may have recorded and still be of its
    current version: its own, and for a notebook, the one it had before its checkers'
    imports were renamed (nothing else changed; the old names still import them)."""
    try:
        return {_digest(path), editions.digest_before_the_move(
            json.loads(path.read_text(encoding="utf-8")))}
    except (ValueError, AttributeError):
        return {_digest(path)}


def _read_record(workspace: Path) -> dict:
    try:
        return json.loads((workspace / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_record(workspace: Path, record: dict) -> None:
    # Written next to, never over, a learner's file: it is the workspace's own bookkeeping.
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    (workspace / RECORD).write_text(text, encoding="utf-8")


@dataclass
class SyncReport:
    added: list
    updated_upstream: list  # copies whose course version changed since they were made
    carried: list = field(default_factory=list)  # editions.Carried: old answers in new notebooks
    old_edition: list = field(default_factory=list)  # old-edition notebooks in the workspace

    def edition_lines(self, workspace: Path) -> list[str]:
        """Where the answers of old-edition notebooks went (when new notebooks were made)."""
        return editions.report_lines(self.added, self.carried, self.old_edition, workspace)

    def lines(self, workspace: Path) -> list[str]:
        if len(self.added) > 5:
            per_folder = {f: sum(n.startswith(f + "/") for n in self.added) for f in FOLDERS}
            counts = _(", ").join(_("{count} in {folder}/", count=count, folder=folder)
                                  for folder, count in per_folder.items() if count)
            translated = sum(language_of(n) != ENGLISH for n in self.added)
            if translated:
                counts += _("; {count} of them the Chinese edition's, in zh-CN/ folders",
                            count=translated)
            documents = [Path(n).name for n in self.added if not n.endswith(".ipynb")]
            copied = n_("{n} notebook", "{n} notebooks", len(self.added) - len(documents))
            for name in documents:
                copied = _("{copied} and {name}", copied=copied, name=name)
            out = [_("Copied {copied} into {workspace}/ ({counts}). Your work is saved there; "
                     "nothing outside it is changed.", copied=copied, workspace=workspace,
                     counts=counts)]
        else:
            out = [_("added {notebook}", notebook=f"{workspace.name}/{name}")
                   for name in self.added]
        if not self.added:
            out.append(_("{workspace}/ has every notebook of the course; nothing copied.",
                         workspace=workspace.name))
        out += self.edition_lines(workspace)
        if self.updated_upstream:
            out.append(_("These notebooks have a newer version in the course than your copy "
                         "(your copy is untouched):"))
            out += [_("  {notebook}   (make reset NB={notebook} gives you the new one; yours is "
                      "kept under a dated name)", notebook=name)
                    for name in self.updated_upstream]
        return out


def sync(root: Path = ROOT, workspace: Path = WORKSPACE) -> SyncReport:
    """Copy every course notebook (and document) the workspace does not have yet; never
    overwrite. A new exercise notebook gets the learner's answers from old-edition
    notebooks, if any."""
    record = _read_record(workspace)
    added, updated, carried = [], [], []
    old_edition = editions.old_edition_notebooks(workspace)
    old_answers = editions.old_answers(workspace, old_edition)
    for name in course_files(root, LANGUAGES):  # both editions, the same rules
        source, target = root / name, workspace / name
        if target.exists():
            copied_from = record.get(name)
            if copied_from is not None and copied_from not in _digests(source):
                updated.append(name)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        # The earlier edition's notebooks were English: their answers go into the English
        # exercise notebooks only (a Chinese one starts blank, the learner's own to fill in).
        answers = editions.answers_for(source, old_answers) \
            if name.startswith("exercises/") and language_of(name) == ENGLISH else {}
        if answers:
            filled_in, numbers = editions.with_answers(source, answers)
            _write_new(target, filled_in, source)
            for old in dict.fromkeys(old for old, _ in answers.values()):
                carried.append(editions.Carried(old, name, [
                    numbers[checker] for checker, (o, _) in answers.items() if o == old]))
        else:
            _copy_new(source, target)
        record[name] = _digest(source)
        added.append(name)
    if added:
        _write_record(workspace, record)
    return SyncReport(added, updated, carried, old_edition)


def _write_new(target: Path, text: str, like: Path) -> None:
    """Write ``text`` to ``target``, which must not exist (as ``_copy_new``)."""
    with open(target, "x", encoding="utf-8") as out:
        out.write(text)
    shutil.copymode(like, target)


def _copy_new(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target``, which must not exist (exclusive create: a file that
    appears meanwhile is not overwritten either)."""
    with open(target, "xb") as out:
        out.write(source.read_bytes())
    shutil.copystat(source, target)


def _resolve(notebook: str, root: Path, workspace: Path) -> str:
    """``notebook`` as a course path ("exercises/04_copying.ipynb"). Accepts it with or
    without "workspace/" in front, and with or without ".ipynb"."""
    text = notebook.strip().replace("\\", "/")
    prefix = workspace.name + "/"
    if text.startswith(prefix):
        text = text[len(prefix):]
    names = course_files(root, LANGUAGES)
    if not text.endswith(".ipynb") and not any(n == text or n.endswith("/" + text)
                                               for n in names):
        text += ".ipynb"
    if text in names:
        return text
    matches = [name for name in names if name.endswith("/" + text)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ValueError(_("{notebook} is in more than one folder: say which one, e.g. "
                           "NB={example}", notebook=repr(notebook), example=matches[0]))
    stem = Path(text).name.removesuffix(".ipynb")
    if stem in OLD_NOTEBOOKS:
        now = " and ".join(f"{slug}.ipynb" for slug in OLD_NOTEBOOKS[stem])
        raise ValueError(_("{notebook} is from an earlier edition of the course: it is now "
                           "{now} (your copy under the old name is kept as it is)",
                           notebook=repr(notebook), now=now))
    raise ValueError(_("{notebook} is not a notebook of the course (they are in {folders}/, "
                       "e.g. NB=exercises/04_copying.ipynb)", notebook=repr(notebook),
                       folders=", ".join(FOLDERS)))


def aside_name(path: Path) -> Path:
    """A free name next to ``path`` for the learner's version: 04_copying.ipynb gives
    04_copying.yours-2026-11-25-1403.ipynb (then -2, -3, ... if that exists)."""
    stamp = time.strftime("%Y-%m-%d-%H%M")
    candidate = path.with_name(f"{path.stem}.yours-{stamp}{path.suffix}")
    number = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}.yours-{stamp}-{number}{path.suffix}")
        number += 1
    return candidate


def reset(notebook: str, root: Path = ROOT, workspace: Path = WORKSPACE) -> tuple[str, Path | None]:
    """A fresh copy of one course notebook in the workspace. The learner's copy, if any, is
    moved aside first (``aside_name``); returns (the notebook, where the old copy went)."""
    name = _resolve(notebook, root, workspace)
    source, target = root / name, workspace / name
    moved = None
    if target.exists():
        moved = aside_name(target)
        target.rename(moved)
    target.parent.mkdir(parents=True, exist_ok=True)
    _copy_new(source, target)
    record = _read_record(workspace)
    record[name] = _digest(source)
    _write_record(workspace, record)
    return name, moved


# --- progress ------------------------------------------------------------------------------

# An exercise's state, in English; progress() says it in the workspace's language.
DONE, NOT_QUITE, UNCHECKED, NOT_STARTED = N_("done"), N_("not quite"), \
    N_("answered, not checked"), N_("not started")


def _saying(status: str) -> set:
    """How a check cell's saved output starts for a verdict, in each edition's language."""
    return {label(status, chosen) for chosen in LANGUAGES}


# The words of answer_cells.FIX_FIRST ("the answer cell above raised an error (...)") that a
# saved output is searched for, in each language (tests/course/test_messages.py checks that
# each language's FIX_FIRST holds them; the extension's "My work" page looks for the same).
RAISED = N_("raised an error")


def _fix_first() -> set:
    """``RAISED`` in each language."""
    return {translate(RAISED, chosen) for chosen in LANGUAGES}


def _verdict(outputs: list) -> str | None:
    """What a check cell's saved outputs say: done, not quite, or None (no verdict). A
    notebook of either edition is read (its check said it in its own language)."""
    shown = ""
    for output in outputs:
        data = output.get("data", {})
        shown += as_text(data.get("text/plain")) + as_text(output.get("text"))
    if any(saying in shown for saying in _saying(CORRECT)):
        return DONE
    if any(saying in shown for saying in _saying(WRONG) | _fix_first()):
        return NOT_QUITE
    return None


def exercise_states(path: Path, original: Path) -> list[tuple[str, str, str]]:
    """(number, title, state) for every exercise of a learner's exercise notebook, read from
    the saved outputs of its check cells (no kernel needed), against the course's copy
    (``original``). A check's saved verdict counts only when it is the learner's: not the
    course's own output, and not older than the answer cell's last run."""
    mine = exercises(json.loads(path.read_text(encoding="utf-8")))
    course = exercises(json.loads(original.read_text(encoding="utf-8")))
    states = []
    for index, (number, title, answer, check) in enumerate(mine):
        blank, course_check = (course[index][2], course[index][3]) if index < len(course) \
            else ({}, {})
        untouched = as_text(answer.get("source")).strip() == as_text(blank.get("source")).strip()
        verdict = _verdict(check.get("outputs", []))
        ran_after_check = _ran_later(answer, check)
        if check.get("outputs") == course_check.get("outputs") or ran_after_check:
            verdict = None  # the course's verdict on its stub, or one older than the answer
        if untouched and verdict != DONE:
            state = NOT_STARTED
        else:
            state = verdict or UNCHECKED
        states.append((number, title, state))
    return states


def _ran_later(first: dict, second: dict) -> bool:
    """Whether cell ``first`` last ran after cell ``second`` (by their execution counts)."""
    a, b = first.get("execution_count"), second.get("execution_count")
    return isinstance(a, int) and isinstance(b, int) and a > b


def progress_notebooks(root: Path, language: str) -> list[str]:
    """The exercise notebooks ``make progress`` reads for a workspace in ``language``: that
    edition's, and the English one's where a lesson has no translation yet."""
    found = []
    for name in course_notebooks(root):
        if not name.startswith("exercises/"):
            continue
        translated = f"{edition_folder('exercises', language)}/{Path(name).name}"
        found.append(translated if (root / translated).is_file() else name)
    return found


def progress(root: Path = ROOT, workspace: Path = WORKSPACE) -> list[str]:
    """The lines ``make progress`` prints (for the workspace's language, ``.course-language``)."""
    lines, totals = [], {DONE: 0, NOT_QUITE: 0, UNCHECKED: 0, NOT_STARTED: 0}
    for name in progress_notebooks(root, course_language(workspace)):
        path = workspace / name
        if not path.exists():
            count = len(exercise_states(root / name, root / name))
            lines.append(_("{notebook}: not in your workspace yet (make workspace adds it)",
                           notebook=name))
            totals[NOT_STARTED] += count
            continue
        states = exercise_states(path, root / name)
        lines.append(f"{workspace.name}/{name}")
        width = max((_width(f"{n} {t}") for n, t, _state in states), default=0)
        for number, title, state in states:
            title = f"{number} {title}".replace("`", "")
            lines.append(f"  {title}{' ' * (width - _width(title))}  {_(state)}")
            totals[state] += 1
    total = sum(totals.values())
    values = dict(done=totals[DONE], not_quite=totals[NOT_QUITE], unchecked=totals[UNCHECKED],
                  not_started=totals[NOT_STARTED])
    if totals[UNCHECKED]:
        lines.append(_("Total: {done} done, {not_quite} not quite, {unchecked} answered but "
                       "not checked, {not_started} not started, of {total} exercises.",
                       total=total, **values))
    else:
        del values["unchecked"]
        lines.append(_("Total: {done} done, {not_quite} not quite, {not_started} not started, "
                       "of {total} exercises.", total=total, **values))
    lines.append(_("(Read from the check cells' saved outputs: save the notebook to update it.)"))
    return lines


def _width(text: str) -> int:
    """The columns ``text`` takes in a terminal: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


# --- a server already running here --------------------------------------------------------

def set_language(workspace: Path, language: str) -> None:
    """Record the workspace's language (``make lab`` / ``make lab-zh``) in ``LANGUAGE_FILE``:
    the workspace's own bookkeeping, as ``RECORD``, never a learner's file."""
    if language not in LANGUAGES:
        raise ValueError(f"{language!r}: one of {', '.join(LANGUAGES)}")
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / LANGUAGE_FILE).write_text(language + "\n", encoding="utf-8")


def running_server(workspace: Path = WORKSPACE) -> str | None:
    """The URL (with its token) of a Jupyter server already serving ``workspace``, if any,
    opening the first lesson of the workspace's language."""
    try:
        from jupyter_server.serverapp import list_running_servers
    except ImportError:
        return None
    wanted = workspace.resolve()
    for info in list_running_servers():
        root_dir = info.get("root_dir") or info.get("notebook_dir") or ""
        if root_dir and Path(root_dir).resolve() == wanted:
            lesson = first_lesson(course_language(workspace), workspace)
            url = info.get("url", "").rstrip("/") + "/lab/tree/" + lesson
            token = info.get("token")
            return f"{url}?token={token}" if token else url
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_tools.workspace",
                                     description="The learner's own copy of the course.")
    parser.add_argument("--workspace", type=Path, default=WORKSPACE)
    parser.add_argument("--root", type=Path, default=ROOT)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("sync", help="copy the notebooks the workspace does not have yet")
    reset_parser = commands.add_parser("reset", help="a fresh copy of one notebook")
    reset_parser.add_argument("notebook", nargs="?", default="")
    commands.add_parser("progress", help="which exercises are done")
    commands.add_parser("server", help="the URL of a server already running on the workspace")
    language_parser = commands.add_parser(
        "language", help="record the workspace's language; print the first lesson to open")
    language_parser.add_argument("language", choices=LANGUAGES)
    args = parser.parse_args(argv)
    with speaking(course_language(args.workspace)):
        return _command(args)


def _command(args) -> int:
    if args.command == "sync":
        for line in sync(args.root, args.workspace).lines(args.workspace):
            print(line)
        return 0
    if args.command == "reset":
        if not args.notebook:
            print(_("Say which notebook, e.g. make reset NB=exercises/04_copying.ipynb"),
                  file=sys.stderr)
            return 2
        try:
            name, moved = reset(args.notebook, args.root, args.workspace)
        except ValueError as error:
            print(_("error: {error}", error=error), file=sys.stderr)
            return 2
        if moved is not None:
            kept = moved.relative_to(args.workspace)
            print(_("Your version is kept as {path}", path=f"{args.workspace.name}/{kept}"))
        print(_("Fresh copy: {path}", path=f"{args.workspace.name}/{name}"))
        print(_("If this notebook is open in JupyterLab, close its tab without saving and open "
                "it again, or JupyterLab may save the old version over the fresh one."))
        return 0
    if args.command == "progress":
        if not args.workspace.exists():
            print(_("No workspace yet: `make lab` (or `make workspace`) makes one."))
            return 0
        for line in progress(args.root, args.workspace):
            print(line)
        return 0
    if args.command == "language":
        set_language(args.workspace, args.language)
        print(first_lesson(args.language, args.workspace))
        return 0
    url = running_server(args.workspace)
    if url is None:
        return 1
    print(url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
