"""Run notebooks top to bottom and save their outputs, without this machine's paths.

    python -m course_tools.execute notebooks/04_copying.ipynb solutions/04_copying.ipynb

Used by ``make execute`` and by ``python -m course_tools.generate --execute``. Each notebook
runs in its own folder with the ``python3`` kernel, like ``jupyter nbconvert --execute
--inplace`` with no widget state and no timings; cells tagged ``raises-exception`` may
raise, any other error stops the run and leaves the file as it was.

Before saving, every text output (streams, error name, message and traceback lines,
``text/plain``, ``text/html``, ...) has the paths of the machine it ran on replaced by
stable placeholders, so the committed notebooks are the same on every machine
(tests/course/test_committed_outputs.py checks that none is left):

* a cell's file and line, which a warning names (``/tmp/ipykernel_12345/678.py:3``)
  -> ``<cell>``: ``tests/nbval_sanitize.cfg`` makes the same replacement in a fresh run,
  so strict nbval compares the rest of the warning;
* a folder of installed packages (``.../site-packages``, ``.../dist-packages``)
  -> ``<site-packages>``;
* this course's folder -> ``<course>``, Python's standard library -> ``<stdlib>``,
  the temporary folder -> ``<tmp>``, the home folder -> ``~``.
"""
from __future__ import annotations

import argparse
import html
import os
import re
import sys
import sysconfig
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent

# The file IPython's kernel compiles a cell into, <temp folder>/ipykernel_<pid>/<hash>.py,
# and the line a warning names in it: exactly the [kernel-cell-files] entry of
# tests/nbval_sanitize.cfg, so that strict nbval turns a fresh run into the saved text.
CELL_LINE = re.compile(r"\S*ipykernel_\d+[/\\]\d+\.py:\d+")
CELL_FILE = re.compile(r"""(?:[A-Za-z]:)?[/\\][^\s"'<>]*?ipykernel_\d+[/\\]\d+\.py""")
CELL_PLACEHOLDER = "<cell>"
_START = r"(?<![\w.~/\\-])"  # a path starts here, not inside a longer one
PACKAGES = re.compile(_START + r"""(?:[A-Za-z]:)?[/\\][^\s"'<>()]*?[/\\](?:site|dist)-packages"""
                      r"(?=[/\\])")
ANSI = re.compile(r"(\x1b\[[0-9;]*[A-Za-z])")  # colours of tracebacks, split off first
# Binary outputs (base64): no text to rewrite, and a pattern could match by chance.
BINARY = ("image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf")
MARKUP = ("text/html", "image/svg+xml")  # placeholders written as &lt;cell&gt; there


def _prefixes(root: Path = ROOT) -> list[tuple[re.Pattern, str]]:
    """(pattern, placeholder) for this machine's folders, the longest first."""
    paths = sysconfig.get_paths()
    named = {
        str(root): "<course>",
        paths["stdlib"]: "<stdlib>",
        paths["platstdlib"]: "<stdlib>",
        tempfile.gettempdir(): "<tmp>",
        os.path.expanduser("~"): "~",
    }
    found = []
    for folder, placeholder in named.items():
        for spelling in {folder, os.path.realpath(folder)}:
            if len(spelling.strip("/\\")) > 2:  # never "/" or "C:\\" itself
                found.append((spelling.rstrip("/\\"), placeholder))
    found.sort(key=lambda pair: -len(pair[0]))
    return [(re.compile(_START + re.escape(folder) + r"(?=[/\\])"), placeholder)
            for folder, placeholder in found]


def _scrub_plain(text: str, prefixes, markup: bool) -> str:
    def put(placeholder):
        return html.escape(placeholder) if markup else placeholder

    text = CELL_LINE.sub(put(CELL_PLACEHOLDER), text)
    text = CELL_FILE.sub(put(CELL_PLACEHOLDER), text)
    text = PACKAGES.sub(put("<site-packages>"), text)
    for pattern, placeholder in prefixes:
        text = pattern.sub(put(placeholder), text)
    return text


def scrub_text(text: str, prefixes=None, markup: bool = False) -> str:
    """``text`` with this machine's paths replaced by placeholders (escaped for HTML when
    ``markup``); colour codes are left as they are."""
    if prefixes is None:
        prefixes = _prefixes()
    parts = ANSI.split(text)
    parts[::2] = [_scrub_plain(part, prefixes, markup) for part in parts[::2]]
    return "".join(parts)


def _scrub_value(value, prefixes, markup=False):
    if isinstance(value, str):
        return scrub_text(value, prefixes, markup)
    if isinstance(value, list):
        return [_scrub_value(item, prefixes, markup) for item in value]
    return value


def scrub_outputs(nb, root: Path = ROOT) -> int:
    """Replace machine paths in every output of ``nb`` (in place); return how many outputs
    changed."""
    prefixes = _prefixes(root)
    changed = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            original = repr(output)
            if output.get("output_type") == "stream":
                output["text"] = _scrub_value(output.get("text", ""), prefixes)
            elif output.get("output_type") == "error":
                for key in ("ename", "evalue", "traceback"):
                    if key in output:
                        output[key] = _scrub_value(output[key], prefixes)
            data = output.get("data", {})
            for mime, value in data.items():
                if mime not in BINARY:
                    data[mime] = _scrub_value(value, prefixes, mime in MARKUP)
            changed += repr(output) != original
    return changed


# The kernelspec JupyterLab writes into a notebook when it opens it (ipykernel's installed
# spec, "Python 3 (ipykernel)"): every notebook the course writes carries exactly this, so a
# committed notebook a learner only opens and reads is not marked changed (the tab's ●) and
# closing it asks nothing. tests/course/test_notebook_metadata.py checks it against the
# installed spec; nbclient writes language_info (the other key JupyterLab sets) from the kernel.
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def render(nb) -> str:
    """The notebook as text, exactly as the course writes it to disk (here and in the
    generator)."""
    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def execute(path: Path, timeout: int = 600) -> None:
    """Run the notebook at ``path`` in its folder and save it with its outputs, scrubbed."""
    from nbclient import NotebookClient  # only here: generating and --check run no kernel

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=False,
                   record_timing=False,
                   resources={"metadata": {"path": str(path.resolve().parent)}}).execute()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    scrub_outputs(nb)
    path.write_bytes(render(nb).encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m course_tools.execute",
        description="Run notebooks in place, saving their outputs without machine paths.")
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.notebooks:
        print(f"executing {path}", flush=True)
        execute(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
