"""Which language a check speaks, and its words in that language (gettext catalogs).

Standard library only: the workspace tool (``make progress``) reads the checkers' words
without the course's environment.

Every message a learner reads goes through the catalog as one whole sentence with named
placeholders, never assembled from English fragments::

    _("{what} has shape {shape}, which is not the shape expected here", what=what, shape=s)
    n_("a list of {n} value", "a list of {n} values", count)

The English text is the message id (so English needs no catalog and reads exactly as
written); ``locale/zh_CN/LC_MESSAGES/checks.po`` holds the Chinese, compiled to the ``.mo``
the standard ``gettext`` module reads (``python -m course_tools.messages``: extract the
template, update the catalog, compile; tests/course/test_messages.py checks all three).
A constant defined at import time is marked with ``N_`` (extracted, not translated) and
translated where it is used: ``_(NODE_FORM)``.

The language is decided each time a message is made (a dictionary look-up and a
``getcwd``), so nothing is fixed at import:

1. ``COURSE_LANGUAGE`` when set ("zh-CN", "zh_CN", "zh" or "en");
2. otherwise Chinese when the current directory has a folder ``zh-CN`` on its path: the
   Chinese notebooks live in notebooks/zh-CN/, exercises/zh-CN/ and solutions/zh-CN/, and
   Jupyter, nbval (its kernel's ``cwd`` is the notebook's folder) and JupyterLite's Pyodide
   kernel (it changes into ``/drive/<the notebook's folder>`` when its drive is mounted)
   start the kernel in the notebook's folder;
   English when that folder is one of the course's (notebooks/, exercises/, solutions/);
3. otherwise ``COURSE_SITE_LANGUAGE``: the browser edition's kernel has no drive where the
   browser gives JupyterLite no service worker (a private window in Firefox) and then stays in
   /home/pyodide, so the Chinese site's kernel is started with ``COURSE_SITE_LANGUAGE=zh-CN``
   (course_tools/site/build.py): the notebooks it lists are the Chinese ones;
4. otherwise English.

The workspace tool speaks the workspace's language instead (``course_language``), set for
one command with ``speaking(...)``.
"""
from __future__ import annotations

import contextlib
import gettext
import os
import string
from pathlib import Path

__all__ = ["CHINESE", "ENGLISH", "LANGUAGES", "N_", "course_language", "every_translation", "fill",
           "language", "n_", "normalise", "speaking", "translate", "translations", "_"]

DOMAIN = "checks"
LOCALE_DIR = Path(__file__).resolve().with_name("locale")
ENGLISH, CHINESE = "en", "zh-CN"
LANGUAGES = (ENGLISH, CHINESE)
# gettext's folder name for each language that has a catalog (English is the message ids).
CATALOGS = {CHINESE: "zh_CN"}
# The folder each edition's notebooks live in (notebooks/zh-CN/, exercises/zh-CN/, ...).
EDITION_FOLDERS = {"zh-CN": CHINESE}
# The course's folders: a kernel in one of them, outside a zh-CN folder, runs an English notebook.
COURSE_FOLDERS = ("notebooks", "exercises", "solutions")
# Written into a learner's workspace by `make lab-zh`: the workspace's language.
MARKER = ".course-language"
VARIABLE = "COURSE_LANGUAGE"
# The language of a browser edition's kernel when no folder says it (step 3 above).
SITE_VARIABLE = "COURSE_SITE_LANGUAGE"

_override: list = []  # speaking(...): the language of the workspace tool's command
_loaded: dict = {}


def normalise(text) -> str | None:
    """A language name as the course writes it: "zh-CN", "zh_CN.UTF-8", "zh" and "zh-Hans"
    give "zh-CN"; any other non-empty name ("en", "en_US.UTF-8", "C") gives "en" (the
    course has no other edition); an empty or missing name gives None."""
    if not isinstance(text, str) or not text.strip():
        return None
    name = text.strip().split(".")[0].replace("_", "-").lower()
    return CHINESE if name == "zh" or name.startswith("zh-") else ENGLISH


def _from_folder(path: str) -> str | None:
    """The edition of a notebook whose kernel runs in ``path``: a ``zh-CN`` folder's, else
    English inside a course folder (notebooks/, exercises/, solutions/), else None (a folder
    that says nothing: the site's kernel without its drive, a learner's own folder)."""
    parts = Path(path).parts
    for part in parts:
        if part in EDITION_FOLDERS:
            return EDITION_FOLDERS[part]
    return ENGLISH if any(part in COURSE_FOLDERS for part in parts) else None


def language() -> str:
    """The language of a message made now (see the module's docstring)."""
    if _override:
        return _override[-1]
    chosen = normalise(os.environ.get(VARIABLE))
    if chosen is not None:
        return chosen
    try:
        here = os.getcwd()
    except OSError:  # the current folder was removed: no edition to read from it
        here = ""
    return _from_folder(here) or normalise(os.environ.get(SITE_VARIABLE)) or ENGLISH


def course_language(workspace) -> str:
    """The language of a learner's workspace, for the workspace tool (``make progress``):
    ``COURSE_LANGUAGE`` when set; else what ``<workspace>/.course-language`` says (written
    by ``make lab-zh``); else the locale's language (``LC_ALL``, ``LC_MESSAGES``, ``LANG``);
    else English."""
    chosen = normalise(os.environ.get(VARIABLE))
    if chosen is not None:
        return chosen
    try:
        chosen = normalise(Path(workspace, MARKER).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        chosen = None
    if chosen is not None:
        return chosen
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable)
        if value:
            return normalise(value) or ENGLISH
    return ENGLISH


@contextlib.contextmanager
def speaking(chosen: str):
    """Every message made inside the ``with`` is in ``chosen`` (a language name)."""
    _override.append(normalise(chosen) or ENGLISH)
    try:
        yield
    finally:
        _override.pop()


def translations(chosen: str) -> gettext.NullTranslations:
    """The catalog of a language (English: none, the message ids are English)."""
    found = _loaded.get(chosen)
    if found is None:
        catalog = CATALOGS.get(chosen)
        found = gettext.translation(DOMAIN, LOCALE_DIR, languages=[catalog], fallback=True) \
            if catalog else gettext.NullTranslations()
        _loaded[chosen] = found
    return found


def translate(message: str, chosen: str | None = None) -> str:
    """``message`` (an English message id) in ``chosen``, or in ``language()``."""
    return translations(chosen or language()).gettext(message)


def every_translation(message: str) -> set:
    """``message`` in every language of the course (reading what any edition wrote)."""
    return {translations(chosen).gettext(message) for chosen in LANGUAGES}


def _ideograph(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff" or "\u3400" <= char <= "\u4dbf"


def _latin(char: str) -> bool:
    return " " < char < "\x7f"


def _spaced(left: str, right: str) -> bool:
    """Whether a space goes between two pieces: a Chinese character next to a Latin letter,
    digit or sign (``共 3 个``, ``x 的形状``), as Chinese technical writing spaces them."""
    if not left or not right:
        return False
    a, b = left[-1], right[0]
    return (_ideograph(a) and _latin(b)) or (_latin(a) and _ideograph(b))


def fill(template: str, values: dict) -> str:
    """``template.format(**values)``, with a space where a Chinese word of the template meets
    a Latin value (or the reverse): a name, a number, a shape. English text has no Chinese
    characters, so nothing changes there; a value's own text is never changed."""
    out = ""
    for literal, name, spec, conversion in string.Formatter().parse(template):
        if literal:
            out += (" " if _spaced(out, literal) else "") + literal
        if name is None:
            continue
        value = format(values[name] if conversion is None else
                       {"r": repr, "s": str, "a": ascii}[conversion](values[name]), spec or "")
        out += (" " if _spaced(out, value) else "") + value
    return out


def _(message: str, /, **values) -> str:
    """``message`` in the current language, its ``{placeholders}`` filled with ``values``."""
    text = translate(message)
    return fill(text, values) if values else text


def n_(singular: str, plural: str, n: int, /, **values) -> str:
    """The singular or plural message for the count ``n`` (placeholder ``{n}``), in the
    current language (Chinese has one form for every count)."""
    text = translations(language()).ngettext(singular, plural, n)
    return fill(text, dict(values, n=n))


def N_(message: str) -> str:
    """Marks a constant for the catalog; translate it where it is used: ``_(CONSTANT)``."""
    return message
