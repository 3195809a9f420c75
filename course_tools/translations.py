"""The translated editions kept in step with the English one (issue 30; the Chinese edition).

    python -m course_tools.translations status             # make translations-status
    python -m course_tools.translations check              # exit 1 on any problem (the test's)
    python -m course_tools.translations new 04_copying     # start notebooks/zh-CN/04_copying.ipynb
    python -m course_tools.translations new solutions/04_copying
    python -m course_tools.translations refresh 04_copying # code and outputs from the English

A translated notebook (``notebooks/zh-CN/NN_slug.ipynb``, ``solutions/zh-CN/...``;
``exercises/zh-CN/`` is written by course_tools/generate.py) has its English notebook's cells:
the same count, order, ids, types, tags and metadata, code cells identical but for the text
of their ``#`` comments (compared with comments removed by Python's tokenize), and in a
lesson the same outputs (the same engine, the same seeds). Each markdown cell is the
translation of the English cell with its id and records which English text it came from:
``metadata.translation.en_sha256``, the first 16 hex digits of the sha256 of that English
source (``fingerprint``). When the English cell changes, the fingerprint is old: the cell is
*stale*, and ``stale_diff`` finds the English text it was translated from in git history
(the last commit where the English cell had that fingerprint) to show what to translate.

Prose: an "also seen" term of TERMINOLOGY.md's table in a translated markdown cell is an error
unless the cell says it quotes (``TERMINOLOGY.md`` states the rule: 其他资料 or 原文 in the
cell, or 也称/也叫 right before the term).

Standard library only (json, tokenize, git): it runs before the course's environment too.
"""
from __future__ import annotations

import argparse
import copy
import difflib
import hashlib
import io
import json
import re
import subprocess
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from course_tools.notebook_files import (FOLDERS, ROOT, TRANSLATIONS, as_text,
                                         course_notebooks, edition_folder, english_counterpart)
from exercises.checks.answer_cells import checkers_called

LANGUAGE = "zh-CN"  # the one translation so far (notebook_files.TRANSLATIONS)
TERMINOLOGY = ROOT / "TERMINOLOGY.md"
# Folders whose translations are written by hand (exercises/zh-CN/ is generated).
TRANSLATED_BY_HAND = ("notebooks", "solutions")
# Lessons' outputs are compared with the English ones; solutions' and exercises' check cells
# speak the notebook's language (exercises/checks' catalogs), so theirs are not.
SAME_OUTPUTS = ("notebooks",)
QUOTING_ANYWHERE = ("其他资料", "原文")
QUOTING_BEFORE = ("也称", "也叫")


def fingerprint(source) -> str:
    """The first 16 hex digits of the sha256 of an English cell's source (one string)."""
    return hashlib.sha256(as_text(source).encode("utf-8")).hexdigest()[:16]


def recorded_fingerprint(cell: dict) -> str | None:
    return cell.get("metadata", {}).get("translation", {}).get("en_sha256")


def code_tokens(source: str):
    """A code cell's tokens without its comments (what must stay identical across editions);
    the source itself for a cell Python's tokenize cannot read (an IPython magic's line)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return source
    # A line break ends where its line's comment ended: only its line counts.
    return [(tok.type, tok.start[0]) if tok.type in (tokenize.NEWLINE, tokenize.NL) else
            (tok.type, tok.string, tok.start, tok.end) for tok in tokens
            if tok.type not in (tokenize.COMMENT, tokenize.ENDMARKER)]


def read(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write(path: Path, nb: dict) -> None:
    """As nbformat writes a notebook (one-space indent, sorted keys, a final newline)."""
    Path(path).write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                          encoding="utf-8")


def translated_notebooks(root: Path = ROOT, languages=TRANSLATIONS) -> list[str]:
    return course_notebooks(root, tuple(languages))


# --- the terminology table ---------------------------------------------------------------

@dataclass
class Term:
    english: str
    chosen: str
    also_seen: list


def terminology(path: Path = TERMINOLOGY) -> list[Term]:
    """TERMINOLOGY.md's table: (English, chosen, also seen) per row."""
    terms = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 3 or set(cells[0]) <= set("-: "):
            continue
        if cells[0] == "English":
            continue
        also = [term.strip() for term in re.split(r"[,，、]", cells[2]) if term.strip()]
        terms.append(Term(cells[0], cells[1], also))
    return terms


_CODE = re.compile(r"```.*?```|`[^`\n]*`|<code>.*?</code>", re.S)
_IGNORED_BEFORE = "“”\"'「」（）() "


def also_seen_errors(source: str, terms: list[Term]) -> list[str]:
    """The "also seen" terms a translated markdown cell uses without saying it quotes."""
    prose = _CODE.sub(" ", source)
    if any(marker in prose for marker in QUOTING_ANYWHERE):
        return []
    found = []
    for term in terms:
        for other in term.also_seen:
            for match in re.finditer(re.escape(other), prose):
                before = prose[:match.start()].rstrip(_IGNORED_BEFORE)
                if not before.endswith(QUOTING_BEFORE):
                    found.append(f"{other!r} (the course writes {term.chosen!r} for "
                                 f"{term.english!r}; 也叫/也称 before it, or 原文/其他资料 in "
                                 f"the cell, when quoting)")
                    break
    return found


# --- comparing a translation with its English notebook -------------------------------------

@dataclass
class Report:
    """What one translated notebook needs."""

    name: str
    english: str
    problems: list = field(default_factory=list)  # structure, code, outputs, terms: errors
    stale: list = field(default_factory=list)  # (cell id, recorded fingerprint, current one)
    untranslated: list = field(default_factory=list)  # cell ids still in English


def _metadata_without(metadata: dict, keys) -> dict:
    return {key: value for key, value in metadata.items() if key not in keys}


def _outputs(cell: dict) -> list:
    """A code cell's outputs without execution counts (those follow the run, not the code)."""
    return [{k: v for k, v in output.items() if k != "execution_count"}
            for output in cell.get("outputs", [])]


def compare(name: str, root: Path = ROOT, terms: list[Term] | None = None) -> Report:
    """Check translated notebook ``name`` ("notebooks/zh-CN/04_copying.ipynb") against its
    English counterpart."""
    english_name = english_counterpart(name)
    report = Report(name, english_name)
    if not (root / english_name).is_file():
        report.problems.append(f"no English notebook {english_name}")
        return report
    nb, english = read(root / name), read(root / english_name)
    terms = terminology(root / "TERMINOLOGY.md") if terms is None else terms
    folder = Path(english_name).parts[0]
    generated = {"exercise_generated"}  # the generator's record names the solution it read
    language = nb.get("metadata", {}).get("course", {}).get("language")
    if language != Path(name).parts[1]:
        report.problems.append(f'metadata "course": {{"language": "{Path(name).parts[1]}"}} '
                               f"missing (found {language!r})")
    if _metadata_without(nb.get("metadata", {}), {"course"} | generated) != \
            _metadata_without(english.get("metadata", {}), {"course"} | generated):
        report.problems.append("notebook metadata differs from the English notebook's "
                               "(other than course.language)")
    cells, english_cells = nb.get("cells", []), english.get("cells", [])
    ids, english_ids = [c.get("id") for c in cells], [c.get("id") for c in english_cells]
    if ids != english_ids:
        added = [i for i in english_ids if i not in ids]
        removed = [i for i in ids if i not in english_ids]
        report.problems.append(f"cells differ from the English notebook's ({len(cells)} vs "
                               f"{len(english_cells)}; English only: {added}; here only: "
                               f"{removed}; or in another order): run `python -m "
                               f"course_tools.translations refresh {name}`")
        return report
    for cell, en in zip(cells, english_cells):
        where = f"cell {cell.get('id')}"
        if cell.get("cell_type") != en.get("cell_type"):
            report.problems.append(f"{where}: a {cell.get('cell_type')} cell, in English a "
                                   f"{en.get('cell_type')} cell")
            continue
        if _metadata_without(cell.get("metadata", {}), {"translation"}) != \
                en.get("metadata", {}):
            report.problems.append(f"{where}: metadata (tags, ...) differs from the English "
                                   f"cell's")
        source, en_source = as_text(cell.get("source")), as_text(en.get("source"))
        if cell.get("cell_type") == "code":
            if code_tokens(source) != code_tokens(en_source):
                report.problems.append(f"{where}: code differs from the English cell's (only "
                                       f"the text of # comments may): {en_source[:60]!r}")
            elif folder in SAME_OUTPUTS and not checkers_called(en_source) and \
                    _outputs(cell) != _outputs(en):
                report.problems.append(f"{where}: outputs differ from the English cell's "
                                       f"(refresh copies them)")
            if recorded_fingerprint(cell) is not None:
                report.problems.append(f"{where}: a code cell with a translation fingerprint")
            continue
        if cell.get("cell_type") != "markdown":
            continue
        recorded = recorded_fingerprint(cell)
        if recorded is None:
            report.problems.append(f"{where}: no metadata.translation.en_sha256")
        elif recorded != fingerprint(en_source):
            report.stale.append((cell.get("id"), recorded, fingerprint(en_source)))
        if source == en_source and re.search(r"[A-Za-z]{2,}\W+[A-Za-z]{2,}\W+[A-Za-z]{2,}",
                                             _CODE.sub(" ", source)):
            report.untranslated.append(cell.get("id"))
        for error in also_seen_errors(source, terms):
            report.problems.append(f"{where}: {error}")
    return report


# --- a stale cell's English diff, from git history ---------------------------------------

def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout.decode("utf-8", "replace")


def english_text_with(english_name: str, cell_id: str, wanted: str, root: Path = ROOT):
    """(commit, source) of the English cell ``cell_id`` as it was when its fingerprint was
    ``wanted``: the newest commit of ``english_name`` where it had it (renames followed);
    None when git has no such version."""
    log = _git(root, "log", "--follow", "--format=%H", "--name-only", "--", english_name)
    if not log:
        return None
    commit = None
    for line in log.splitlines():
        if re.fullmatch(r"[0-9a-f]{40}", line):
            commit = line
            continue
        if not line.strip() or commit is None:
            continue
        text = _git(root, "show", f"{commit}:{line.strip()}")
        if text is None:
            continue
        try:
            cells = json.loads(text).get("cells", [])
        except ValueError:
            continue
        for cell in cells:
            if cell.get("id") == cell_id and fingerprint(cell.get("source")) == wanted:
                return commit, as_text(cell.get("source"))
    return None


def stale_diff(report: Report, cell_id: str, recorded: str, root: Path = ROOT) -> str:
    """The English diff a stale cell needs translated: from the text its fingerprint names to
    the English cell's current text."""
    english = read(root / report.english)
    now = next(as_text(c.get("source")) for c in english["cells"] if c.get("id") == cell_id)
    found = english_text_with(report.english, cell_id, recorded, root)
    if found is None:
        return (f"(no version of {report.english} in git history has cell {cell_id} with "
                f"fingerprint {recorded}: compare the translation with the English text "
                f"below)\n" + now)
    commit, then = found
    diff = difflib.unified_diff(then.splitlines(), now.splitlines(),
                                f"{report.english} @ {commit[:10]} (translated from)",
                                f"{report.english} (now)", lineterm="")
    return "\n".join(diff)


# --- status --------------------------------------------------------------------------------

def status(root: Path = ROOT, language: str = LANGUAGE, diffs: bool = False) -> tuple[list, int]:
    """(lines, problems): per translated notebook its stale and untranslated cells and
    errors, and the English notebooks not translated yet."""
    lines, problems = [], 0
    terms = terminology(root / "TERMINOLOGY.md")
    translated = translated_notebooks(root, (language,))
    for name in translated:
        report = compare(name, root, terms)
        count = len(report.problems) + len(report.stale) + len(report.untranslated)
        problems += count
        lines.append(f"{'ok' if not count else 'NEEDS WORK':>10}  {name}"
                     + (f": {len(report.stale)} stale, {len(report.untranslated)} untranslated, "
                        f"{len(report.problems)} other problems" if count else ""))
        for cell_id, recorded, now in report.stale:
            lines.append(f"      stale cell {cell_id}: translated from {recorded}, the English "
                         f"is now {now}")
            if diffs:
                lines += ["        " + line for line in
                          stale_diff(report, cell_id, recorded, root).splitlines()]
        for cell_id in report.untranslated:
            lines.append(f"      untranslated cell {cell_id} (still the English text)")
        lines += [f"      {problem}" for problem in report.problems]
    missing = []
    for name in course_notebooks(root):
        folder = name.split("/")[0]
        target = f"{edition_folder(folder, language)}/{Path(name).name}"
        if folder in TRANSLATED_BY_HAND and not (root / target).is_file():
            missing.append(target)
    if missing:
        lines.append(f"Not translated yet ({len(missing)}; `python -m course_tools.translations "
                     f"new NAME` starts one):")
        lines += [f"  {name}" for name in missing]
    lines.append(f"{len(translated)} translated notebooks ({language}), "
                 f"{problems} cells or problems to look at.")
    return lines, problems


# --- new and refresh ---------------------------------------------------------------------

def resolve(name: str, language: str = LANGUAGE, root: Path = ROOT) -> tuple[str, str]:
    """(English notebook, its translation) for "04_copying", "solutions/04_copying",
    "notebooks/zh-CN/04_copying.ipynb", ..."""
    text = name.strip().replace("\\", "/")
    if not text.endswith(".ipynb"):
        text += ".ipynb"
    english = english_counterpart(text)
    if "/" not in english:
        english = f"notebooks/{english}"
    folder = english.split("/")[0]
    if folder not in FOLDERS:
        raise ValueError(f"{name!r}: a notebook of {', '.join(FOLDERS)}/")
    if folder == "exercises":
        raise ValueError(f"{name!r}: exercises/{language}/ is written from solutions/{language}/"
                         f" by `make exercises`; translate solutions/{Path(english).name}")
    if not (root / english).is_file():
        raise ValueError(f"{english} does not exist")
    return english, f"{edition_folder(folder, language)}/{Path(english).name}"


def _start_markdown(cell: dict) -> dict:
    """An English markdown cell as a translation starts: its text, and its fingerprint."""
    cell = copy.deepcopy(cell)
    cell.setdefault("metadata", {})["translation"] = {"en_sha256": fingerprint(cell["source"])}
    return cell


def new(name: str, language: str = LANGUAGE, root: Path = ROOT) -> Path:
    """Write the starting copy of a translation (the English notebook, outputs included, each
    markdown cell with its fingerprint, the notebook's language); never over a file."""
    english, target = resolve(name, language, root)
    path = root / target
    if path.exists():
        raise FileExistsError(f"{target} exists: `refresh` brings it up to date with the English")
    nb = read(root / english)
    nb["cells"] = [_start_markdown(c) if c.get("cell_type") == "markdown" else c
                   for c in nb["cells"]]
    nb["metadata"]["course"] = {"language": language}
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8") as out:
        out.write(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return path


def refresh(name: str, language: str = LANGUAGE, root: Path = ROOT) -> tuple[Path, list[str]]:
    """Bring a translation's cells in step with the English notebook: code cells, outputs,
    metadata and order from the English (a code cell whose tokens did not change keeps its
    translated comments), every translated markdown cell kept as it is (a stale one is
    listed, not changed), English markdown cells new since then added untranslated."""
    english_name, target = resolve(name, language, root)
    path = root / target
    nb, english = read(path), read(root / english_name)
    mine = {cell.get("id"): cell for cell in nb["cells"]}
    cells, notes = [], []
    for en in english["cells"]:
        cell_id, old = en.get("id"), mine.get(en.get("id"))
        if en.get("cell_type") == "markdown":
            if old is None or old.get("cell_type") != "markdown":
                cells.append(_start_markdown(en))
                notes.append(f"new cell {cell_id}: the English text, to translate")
                continue
            kept = copy.deepcopy(old)
            kept["metadata"] = dict(copy.deepcopy(en.get("metadata", {})),
                                    translation=old.get("metadata", {}).get("translation", {}))
            if recorded_fingerprint(kept) != fingerprint(en["source"]):
                notes.append(f"stale cell {cell_id}: the English changed since it was "
                             f"translated (`make translations-status` shows the diff)")
            cells.append(kept)
            continue
        cell = copy.deepcopy(en)
        if old is not None and old.get("cell_type") == "code" and \
                code_tokens(as_text(old["source"])) == code_tokens(as_text(en["source"])):
            cell["source"] = old["source"]  # the translated comments
        elif old is not None and en.get("cell_type") == "code":
            notes.append(f"code cell {cell_id}: the English code now (its comments too)")
        elif old is None:
            notes.append(f"new cell {cell_id} ({en.get('cell_type')})")
        if target.startswith(("solutions/", "exercises/")) and old is not None and \
                old.get("cell_type") == "code" and checkers_called(as_text(en["source"])):
            cell["outputs"] = old.get("outputs", [])  # a check speaks the notebook's language
        cells.append(cell)
    gone = [cell_id for cell_id in mine if cell_id not in {c.get("id") for c in english["cells"]}]
    notes += [f"removed cell {cell_id} (the English notebook has no such cell now)"
              for cell_id in gone]
    english["cells"] = cells
    english.setdefault("metadata", {})["course"] = {"language": language}
    write(path, english)
    return path, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_tools.translations",
                                     description="The translated editions, kept in step.")
    parser.add_argument("--language", default=LANGUAGE, choices=TRANSLATIONS)
    commands = parser.add_subparsers(dest="command", required=True)
    status_parser = commands.add_parser("status", help="stale and untranslated cells")
    status_parser.add_argument("--diff", action="store_true", help="each stale cell's English diff")
    commands.add_parser("check", help="as status, with diffs; exit 1 when anything needs work")
    for command, text in (("new", "start a translation from the English notebook"),
                          ("refresh", "code cells and outputs from the English notebook")):
        sub = commands.add_parser(command, help=text)
        sub.add_argument("notebooks", nargs="+", help="04_copying, solutions/04_copying, ...")
    args = parser.parse_args(argv)
    if args.command in ("status", "check"):
        lines, problems = status(language=args.language,
                                 diffs=args.command == "check" or args.diff)
        print("\n".join(lines))
        return 1 if problems and args.command == "check" else 0
    status_code = 0
    for name in args.notebooks:
        try:
            if args.command == "new":
                path = new(name, args.language)
                print(f"wrote {path.relative_to(ROOT)}: translate its markdown cells (each "
                      f"keeps its metadata.translation.en_sha256)")
            else:
                path, notes = refresh(name, args.language)
                print(f"refreshed {path.relative_to(ROOT)}")
                print("\n".join(f"  {note}" for note in notes))
        except (ValueError, FileExistsError, FileNotFoundError) as error:
            print(f"error: {error}", file=sys.stderr)
            status_code = 2
    return status_code


if __name__ == "__main__":
    sys.exit(main())
