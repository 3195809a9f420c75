"""Looking for the solutions in what a release hands out: the folder, the zip and the browser
edition (tests/grading/test_release.py, tests/web/test_release_site.py).

A solution region is the code between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` in a
solutions/ notebook (its ``### STUB`` lines left out: those are handed out). It is found in a
file when its lines appear there one after another, each indented as in the region relative
to the first. Every file is read the way a person (or a program) would get the code back out
of it: a notebook or any JSON (JupyterLite's ``api/contents/all.json``, mkdocs' search index)
by its strings, an HTML page without its tags (highlighted code is split by ``<span>``s), a
JavaScript or other text file as it is and also by its string literals that hold a ``\\n``,
escapes undone (code kept in a string), and a zip or wheel member by member, nested archives
included.
"""
from __future__ import annotations

import html
import io
import json
import re
import textwrap
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REGION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.DOTALL)
MARKER = "### BEGIN SOLUTION"
ESCAPED = " (its string literals)"


def solution_regions(root: Path = ROOT) -> list[str]:
    """Every solution region's code (its ### STUB lines left out), dedented. The English
    solutions' regions are the Chinese ones' too (solutions/zh-CN/: code identical but for
    comments, tests/course/test_translations.py), so a released Chinese answer is found."""
    regions = []
    for path in sorted((root / "solutions").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            for region in REGION.findall(source):
                code = textwrap.dedent("\n".join(
                    line.rstrip() for line in region.splitlines()
                    if line.strip() and "### STUB" not in line))
                if code:
                    regions.append(code)
    return regions


def stripped(code: str) -> str:
    return "\n".join(line.strip() for line in code.splitlines())


def json_text(value) -> str:
    """A JSON document's strings, one after another: a list of strings (a notebook cell's
    source, an output's text) joined as the notebook joins it, anything else line by line."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        if value and all(isinstance(item, str) for item in value):
            return "".join(value)
        return "\n".join(json_text(item) for item in value)
    if isinstance(value, dict):
        return "\n".join(json_text(item) for item in value.values())
    return ""


def cell_sources(text: str) -> str:
    """A notebook's cell sources as they read in the notebook; any other file's text as is."""
    try:
        nb = json.loads(text)
        return "\n".join("".join(c.get("source", "")) for c in nb.get("cells", []))
    except (ValueError, AttributeError):
        return text


class Haystack:
    """A text to search for many regions: its stripped lines computed once."""

    def __init__(self, text: str):
        self.lines = [line.rstrip() for line in text.splitlines() if line.strip()]
        self.normalised = "\n".join(line.strip() for line in self.lines)

    def has(self, region: str) -> bool:
        wanted = region.splitlines()
        if stripped(region) not in self.normalised:
            return False  # (a quick first look)
        first = wanted[0].strip()
        for start in range(len(self.lines) - len(wanted) + 1):
            window = self.lines[start:start + len(wanted)]
            if window[0].strip() == first and \
                    textwrap.dedent("\n".join(window)).splitlines() == wanted:
                return True
        return False


def found(region: str, text: str) -> bool:
    """Whether ``region`` is in ``text`` (a notebook's cell sources, or any file's text): a
    whole block found at any indent; a fix-the-bug stub that differs from its answer only in
    where a line is indented is not the answer."""
    return Haystack(cell_sources(text)).has(region)


def readings(name: str, data: bytes) -> list[tuple[str, str]]:
    """(where, text) for every way ``data`` (a file called ``name``) gives text back: see the
    module's docstring. Binary files that are not archives give none."""
    if zipfile.is_zipfile(io.BytesIO(data)):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                found_texts = []
                for member in archive.infolist():
                    if not member.is_dir():
                        found_texts += readings(f"{name}!{member.filename}",
                                                archive.read(member))
                return found_texts
        except zipfile.BadZipFile:
            pass  # is_zipfile only looks for an end record's signature: a .pyc may hold one
    if b"\0" in data[:8192]:
        return []  # WebAssembly, pictures, fonts: no source code to read back
    text = data.decode("utf-8", errors="replace")
    texts = [(name, text)]
    if name.endswith((".json", ".ipynb")):
        try:
            texts.append((f"{name} (its strings)", json_text(json.loads(text))))
            return texts  # (its strings read exactly: no escapes to undo by hand)
        except ValueError:
            pass
    if name.endswith((".html", ".htm", ".svg")):
        texts.append((f"{name} (without tags)", html.unescape(re.sub(r"<[^>]*>", "", text))))
    if "\\n" in text:
        literals = [_unescape(match.group(2)) for match in _LITERAL.finditer(text)]
        if literals:
            texts.append((f"{name}{ESCAPED}", "\n".join(literals)))
    return texts


# a quoted string literal (JavaScript, Python) with at least one \n escape in it
_LITERAL = re.compile(r"""(["'])((?:(?!\1)[^\\\n]|\\.)*?\\n(?:(?!\1)[^\\\n]|\\.)*)\1""")
_ESCAPES = {"n": "\n", "t": "\t", "r": ""}


def _unescape(literal: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), literal)


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# Answers that a released file states on purpose, and where: each with why it is not a leak.
ALLOWED = {
    # check_02_distances' reference computation, the one-line answer that the checker's own
    # hint spells out ("x[:, None, :] - y[None, :, :] ... then square and add up the last
    # dimension"): the hint gives the approach by design
    "return ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)":
        "exercises/checks/shapes_indexing_broadcasting.py",
}


def leaks(files: dict[str, bytes], regions: list[str],
          allowed: dict[str, str] = ALLOWED) -> tuple[list[str], int]:
    """Where any of ``regions`` (or a solution marker in a notebook) is found among ``files``
    (name -> bytes); and how many texts were read (archives' members and second readings
    included). A one-line region counts when a line is exactly it (stripped); ``allowed``
    (region -> the file, or archive member, that may state it) is left out."""
    found_leaks, read = [], 0
    for name, data in files.items():
        for where, text in readings(name, data):
            read += 1
            if MARKER in text and (where.endswith(".ipynb") or "(its strings)" in where):
                found_leaks.append(f"{where}: a solution marker")
            haystack = Haystack(text)
            place = where.split(" (")[0]
            found_leaks += [f"{where}: {region[:60]!r}" for region in regions
                            if not place.endswith(allowed.get(region, "\0"))
                            and haystack.has(region)]
    return found_leaks, read


def taught(regions: list[str], root: Path = ROOT) -> list[str]:
    """The regions a lesson itself teaches (the lessons are handed out in every case)."""
    lessons = Haystack("\n".join(cell_sources(p.read_text(encoding="utf-8"))
                                 for p in sorted((root / "notebooks").glob("*.ipynb"))))
    return [region for region in regions if lessons.has(region)]
