"""The checkers' message catalogs: extract the template, update the translations, compile them.

    python -m course_tools.messages            # make messages: all three steps below
    python -m course_tools.messages --extract  # exercises/checks/locale/checks.pot from the code
    python -m course_tools.messages --update   # merge the template into every .po, compile .mo
    python -m course_tools.messages --compile  # .po -> .mo only
    python -m course_tools.messages --check    # is everything current and translated? (exit 1)

Standard library only (GNU gettext's xgettext/msgmerge/msgfmt are not needed): the messages
are the string literals passed to ``_``, ``n_`` and ``N_`` (exercises/checks/i18n.py) in
the files ``SOURCES`` lists, read with ``ast``. The template lists each message once, with
the files it comes from (no line numbers: moving code does not change the template). The
``.mo`` files are written the way GNU msgfmt writes them (sorted, no hash table), byte for
byte the same from the same ``.po``, so the test can compare a fresh compile with the
committed file.
"""
from __future__ import annotations

import argparse
import ast
import re
import string
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCALE = Path("exercises/checks/locale")
TEMPLATE = LOCALE / "checks.pot"
SOURCES = ("exercises/checks/*.py", "course_tools/workspace.py")
KEYWORDS = {"_": 1, "N_": 1, "n_": 2}  # function -> how many leading string arguments
HEADER = {
    "Project-Id-Version": "autograd-step-by-step",
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=UTF-8",
    "Content-Transfer-Encoding": "8bit",
}
PLURAL_FORMS = {"zh_CN": "nplurals=1; plural=0;"}


@dataclass
class Entry:
    msgid: str
    plural: str | None = None
    msgstr: list = field(default_factory=lambda: [""])
    references: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    comments: list = field(default_factory=list)  # translator comments ("# ...")

    @property
    def key(self):
        return self.msgid if self.plural is None else (self.msgid, self.plural)


# --- extracting ---------------------------------------------------------------------------

def source_files(root: Path = ROOT) -> list[Path]:
    files = []
    for pattern in SOURCES:
        files += sorted(root.glob(pattern))
    return [f for f in files if f.name != "i18n.py"]  # its docstring's examples are not messages


def placeholders(text: str) -> list:
    """The named placeholders of a ``str.format`` template, sorted."""
    return sorted({name for _, name, _, _ in string.Formatter().parse(text) if name})


def _literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def extract(root: Path = ROOT) -> list[Entry]:
    """Every message of the sources, once, in the order of first appearance."""
    entries: dict = {}
    for path in source_files(root):
        relative = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), relative)
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Name) and node.func.id in KEYWORDS]
        calls.sort(key=lambda node: (node.lineno, node.col_offset))
        for call in calls:
            count = KEYWORDS[call.func.id]
            if any(isinstance(arg, (ast.JoinedStr, ast.BinOp)) for arg in call.args[:count]):
                raise ValueError(f"{relative}:{call.lineno}: {call.func.id}() of an f-string or "
                                 f"an expression: its text cannot be in the catalog")
            texts = [_literal(arg) for arg in call.args[:count]]
            if len(texts) < count or None in texts:
                continue  # _(CONSTANT): the constant is marked where it is defined (N_)
            entry = Entry(texts[0], texts[1] if count == 2 else None,
                          ["", ""] if count == 2 else [""])
            if any(placeholders(text) for text in texts):
                entry.flags.append("python-brace-format")
            known = entries.setdefault(entry.key, entry)
            if relative not in known.references:
                known.references.append(relative)
    return list(entries.values())


# --- reading and writing .po files --------------------------------------------------------

def _quote(text: str) -> str:
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    lines = text.split("\n")
    if len(lines) == 1:
        return f'"{text}"'
    parts = [line + "\\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    return '""\n' + "\n".join(f'"{part}"' for part in parts)


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquote(text: str) -> str:
    text = text.strip()
    if not (text.startswith('"') and text.endswith('"')):
        raise ValueError(f"not a quoted string: {text}")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), text[1:-1])


def header_text(language: str | None) -> str:
    fields = dict(HEADER)
    if language:
        fields["Language"] = language
        fields["Plural-Forms"] = PLURAL_FORMS.get(language, "nplurals=2; plural=(n != 1);")
    return "".join(f"{name}: {value}\n" for name, value in fields.items())


def write_po(entries: list[Entry], language: str | None) -> str:
    """A .po file (a template when ``language`` is None) of ``entries``."""
    out = ['# The checkers\' messages (exercises/checks/). Made by `make messages`'
           + (": edit only the msgstr lines." if language else ": do not edit."),
           'msgid ""', "msgstr " + _quote(header_text(language)), ""]
    for entry in entries:
        out += [f"# {line}" for line in entry.comments]
        out += [f"#: {reference}" for reference in entry.references]
        if entry.flags:
            out.append("#, " + ", ".join(entry.flags))
        out.append("msgid " + _quote(entry.msgid))
        if entry.plural is None:
            out.append("msgstr " + _quote(entry.msgstr[0] if language else ""))
        else:
            out.append("msgid_plural " + _quote(entry.plural))
            forms = entry.msgstr if language else ["", ""]
            out += [f"msgstr[{i}] " + _quote(form if language else "")
                    for i, form in enumerate(forms)]
        out.append("")
    return "\n".join(out)


def read_po(text: str) -> tuple[dict, list[Entry]]:
    """(header fields, entries) of a .po file. Obsolete entries ("#~") are returned with the
    flag "obsolete" so that a check can refuse them."""
    entries, header = [], {}
    current, last, obsolete = None, None, False

    def finish():
        nonlocal current
        if current is not None:
            if current.msgid == "" and current.plural is None:
                for line in current.msgstr[0].splitlines():
                    name, _, value = line.partition(":")
                    header[name.strip()] = value.strip()
            else:
                if obsolete:
                    current.flags.append("obsolete")
                entries.append(current)
        current = None

    comments, references, flags = [], [], []
    for raw in text.splitlines() + [""]:
        line = raw.strip()
        if line.startswith("#~"):
            obsolete = True
            line = line[2:].strip()
        if not line:
            finish()
            obsolete = False
            continue
        if line.startswith("#:"):
            references += line[2:].split()
        elif line.startswith("#,"):
            flags += [flag.strip() for flag in line[2:].split(",") if flag.strip()]
        elif line.startswith("# "):
            comments.append(line[2:])  # a translator's comment (kept by --update)
        elif line.startswith("#"):
            pass  # "#." and other comments the tools write
        elif line.startswith("msgid_plural"):
            current.plural, last = _unquote(line[len("msgid_plural"):]), "plural"
        elif line.startswith("msgid"):
            finish()
            current = Entry(_unquote(line[len("msgid"):]), references=references,
                            flags=flags, comments=comments)
            current.msgstr = []
            comments, references, flags = [], [], []
            last = "msgid"
        elif line.startswith("msgstr"):
            match = re.match(r"msgstr(?:\[(\d+)\])?\s*(.*)", line)
            index = int(match.group(1) or 0)
            while len(current.msgstr) <= index:
                current.msgstr.append("")
            current.msgstr[index] = _unquote(match.group(2))
            last = ("msgstr", index)
        elif line.startswith('"'):
            if last == "msgid":
                current.msgid += _unquote(line)
            elif last == "plural":
                current.plural += _unquote(line)
            else:
                current.msgstr[last[1]] += _unquote(line)
        else:
            raise ValueError(f"cannot read this line of a .po file: {raw}")
    return header, entries


# --- compiling -----------------------------------------------------------------------------

def compile_mo(header_fields: dict, entries: list[Entry]) -> bytes:
    """The .mo file of a catalog: every translated entry (not fuzzy, not obsolete), the header
    first, sorted by message id, as GNU msgfmt writes it without a hash table."""
    header = "".join(f"{name}: {value}\n" for name, value in header_fields.items())
    pairs = {b"": header.encode("utf-8")}
    for entry in entries:
        if "fuzzy" in entry.flags or "obsolete" in entry.flags or not all(entry.msgstr):
            continue
        key = entry.msgid if entry.plural is None else f"{entry.msgid}\0{entry.plural}"
        pairs[key.encode("utf-8")] = "\0".join(entry.msgstr).encode("utf-8")
    keys = sorted(pairs)
    count = len(keys)
    start = 7 * 4 + 16 * count  # the header, then two tables of (length, offset) pairs
    ids = b"".join(key + b"\0" for key in keys)
    strs = b"".join(pairs[key] + b"\0" for key in keys)
    id_table, str_table, offset = [], [], start
    for key in keys:
        id_table += [len(key), offset]
        offset += len(key) + 1
    for key in keys:
        str_table += [len(pairs[key]), offset]
        offset += len(pairs[key]) + 1
    head = struct.pack("<7I", 0x950412DE, 0, count, 7 * 4, 7 * 4 + 8 * count, 0, start)
    return head + struct.pack(f"<{4 * count}I", *id_table, *str_table) + ids + strs


def catalogs(root: Path = ROOT) -> list[Path]:
    """Every translation (.po) of the checkers' messages."""
    return sorted((root / LOCALE).glob("*/LC_MESSAGES/checks.po"))


def nplurals(language: str) -> int:
    forms = PLURAL_FORMS.get(language, "nplurals=2;")
    return int(re.search(r"nplurals=(\d+)", forms).group(1))


def mo_path(po: Path) -> Path:
    return po.with_suffix(".mo")


def language_of(po: Path) -> str:
    return po.parents[1].name


def compiled(po: Path) -> bytes:
    header, entries = read_po(po.read_text(encoding="utf-8"))
    return compile_mo(header, entries)


def merge(template: list[Entry], old: list[Entry]) -> tuple[list[Entry], list[Entry]]:
    """The template's entries with the translations ``old`` has for them, and the old entries
    the template no longer has (dropped: no obsolete entries are kept)."""
    known = {entry.key: entry for entry in old}
    merged = []
    for entry in template:
        previous = known.pop(entry.key, None)
        if previous is not None:
            entry.msgstr = list(previous.msgstr) or entry.msgstr
            entry.comments = list(previous.comments)
        merged.append(entry)
    return merged, list(known.values())


# --- the commands --------------------------------------------------------------------------

def do_extract(root: Path = ROOT) -> Path:
    path = root / TEMPLATE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(write_po(extract(root), None), encoding="utf-8")
    return path


def do_update(root: Path = ROOT) -> list[str]:
    notes = []
    template = extract(root)
    for po in catalogs(root):
        _, old = read_po(po.read_text(encoding="utf-8"))
        forms = nplurals(language_of(po))
        fresh = [Entry(e.msgid, e.plural, [""] * (1 if e.plural is None else forms),
                       list(e.references), list(e.flags)) for e in template]
        merged, dropped = merge(fresh, old)
        po.write_text(write_po(merged, language_of(po)), encoding="utf-8")
        missing = sum(not all(e.msgstr) for e in merged)
        notes.append(f"{po.relative_to(root)}: {len(merged)} messages, {missing} to translate, "
                     f"{len(dropped)} no longer used (removed)")
        mo_path(po).write_bytes(compiled(po))
    return notes


def do_compile(root: Path = ROOT) -> list[str]:
    for po in catalogs(root):
        mo_path(po).write_bytes(compiled(po))
    return [f"compiled {mo_path(po).relative_to(root)}" for po in catalogs(root)]


def problems(root: Path = ROOT) -> list[str]:
    """What is out of date or missing in the catalogs (empty when all is well)."""
    found = []
    template_path = root / TEMPLATE
    template = extract(root)
    expected = write_po(template, None)
    if not template_path.exists() or template_path.read_text(encoding="utf-8") != expected:
        found.append(f"{TEMPLATE} is not current: run `make messages`")
    for entry in template:
        if entry.plural is not None and placeholders(entry.msgid) != placeholders(entry.plural):
            found.append(f"the singular and plural of {entry.msgid!r} have other placeholders")
    for po in catalogs(root):
        name = po.relative_to(root)
        _, entries = read_po(po.read_text(encoding="utf-8"))
        by_key = {entry.key: entry for entry in entries}
        for entry in entries:
            if "fuzzy" in entry.flags:
                found.append(f"{name}: fuzzy entry {entry.msgid!r}")
            if "obsolete" in entry.flags or entry.key not in {e.key for e in template}:
                found.append(f"{name}: entry no longer used {entry.msgid!r}")
        for entry in template:
            translated = by_key.get(entry.key)
            if translated is None or not all(translated.msgstr):
                found.append(f"{name}: not translated: {entry.msgid!r}")
                continue
            wanted = placeholders(entry.msgid)
            for form in translated.msgstr:
                if placeholders(form) != wanted:
                    found.append(f"{name}: placeholders {placeholders(form)} in the "
                                 f"translation of {entry.msgid!r}, not {wanted}")
        mo = mo_path(po)
        if not mo.exists() or mo.read_bytes() != compiled(po):
            found.append(f"{mo.relative_to(root)} does not match its .po: run `make messages`")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_tools.messages",
                                     description="The checkers' message catalogs.")
    group = parser.add_mutually_exclusive_group()
    for option in ("extract", "update", "compile", "check"):
        group.add_argument(f"--{option}", action="store_true")
    args = parser.parse_args(argv)
    if args.check:
        found = problems()
        for problem in found:
            print(problem)
        print(f"{len(found)} problems" if found else "the catalogs are current and complete")
        return 1 if found else 0
    if args.extract or not (args.update or args.compile):
        print(f"wrote {do_extract().relative_to(ROOT)}")
    if args.update or not (args.extract or args.compile):
        for note in do_update():
            print(note)
    if args.compile:
        for note in do_compile():
            print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
