"""Run the course's notebooks on real PyTorch and report every output that differs.

    python -m course_tools.compare_torch     # every notebook of both editions (make compare-torch)
    python -m course_tools.compare_torch notebooks/04_copying.ipynb ...

Each notebook is committed executed on the engine. Here it runs again with
``import engine as torch`` turned into ``import torch`` (and ``from engine[.nn|.optim|...]
import x`` into ``from torch...``), cells tagged ``engine-only`` skipped, and each cell's
outputs are compared with the saved ones, after the same sanitising as nbval
(``tests/nbval_sanitize.cfg``). The course's own tools stay imported as they are. The
``exercises`` checkers accept torch tensors, and the pictures (``engine.viz``:
``draw_graph``, ``make_dot``, ``draw_memory``) draw torch tensors too, so picture cells are
compared like any other. The widgets (``engine.widgets``) read the engine's insides: widget
cells are tagged ``engine-only``.

A cell tagged ``differs-from-torch`` is reported as explained (its notebook says why);
any other difference makes the exit status 1. The goal is none.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import os
import re
import sys
import time
from pathlib import Path

import nbformat

from course_tools.notebook_files import LANGUAGES, edition_folder

ROOT = Path(__file__).resolve().parent.parent
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
FOLDERS = ("notebooks", "solutions", "exercises")
SKIP_TAG = "engine-only"
EXPLAINED_TAG = "differs-from-torch"

# The engine's names for torch's own modules; engine.viz, engine.widgets are course tools.
_TORCH_MODULES = r"(?:\.(?:nn|optim|autograd|func|utils|linalg|random|cuda)(?:\.\w+)*)?"
_REWRITES = [
    (re.compile(r"^(\s*)import engine as torch\b", re.M), r"\1import torch"),
    (re.compile(rf"^(\s*)from engine({_TORCH_MODULES}) import\b", re.M), r"\1from torch\2 import"),
    (re.compile(rf"^(\s*)import engine({_TORCH_MODULES}) as\b", re.M), r"\1import torch\2 as"),
]
# Compared like nbval 0.11 compares them; pictures as bitmaps and widget views are not.
_COMPARED_MIME = ("text/plain", "text/html", "image/svg+xml", "text/latex")


def to_torch(source: str) -> str:
    """A code cell's source with the engine's imports replaced by torch's."""
    for pattern, replacement in _REWRITES:
        source = pattern.sub(replacement, source)
    return source


def read_sanitizers(path: Path = SANITIZE) -> list[tuple[re.Pattern, str]]:
    """The ``regex:``/``replace:`` pairs of an nbval sanitize file."""
    pairs, pattern = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("regex:"):
            pattern = re.compile(line[len("regex:"):].strip())
        elif line.startswith("replace:") and pattern is not None:
            pairs.append((pattern, line[len("replace:"):].strip()))
            pattern = None
    return pairs


def comparable(outputs, sanitizers) -> list[str]:
    """A cell's outputs as the texts nbval compares, sanitised.

    As in nbval, each stream is one text however the kernel split it, and stdout and stderr
    are compared apart: which of the two a kernel flushes first is a race (a warning raised
    before a print can arrive after it), not part of the output. Streams come first, then
    stdout before stderr, then the other outputs in their order."""
    streams, others = {}, []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            streams[output["name"]] = streams.get(output["name"], "") + output["text"]
        elif kind in ("execute_result", "display_data"):
            for mime in _COMPARED_MIME:
                if mime in output.get("data", {}):
                    data = output["data"][mime]
                    others.append(f"[{mime}]\n{''.join(data) if isinstance(data, list) else data}")
        elif kind == "error":
            others.append(f"[error]\n{output['ename']}: {output['evalue']}")
    texts = [f"[{name}]\n{text}" for name, text in sorted(streams.items(), reverse=True)] + others
    cleaned = []
    for text in texts:
        for pattern, replacement in sanitizers:
            text = pattern.sub(replacement, text)
        cleaned.append(text)
    return cleaned


def skipped(cell) -> bool:
    return SKIP_TAG in cell.metadata.get("tags", [])


def run_on_torch(path: Path, timeout: int = 600):
    """The notebook executed with torch in place of the engine (engine-only cells empty)."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if skipped(cell):
            cell.source = ""
        else:
            cell.source = to_torch(cell.source)
    NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                   store_widget_state=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def compare(path: Path, sanitizers) -> dict:
    """Compare one notebook's saved (engine) outputs with a fresh run on torch."""
    saved = nbformat.read(path, as_version=4)
    fresh = run_on_torch(path)
    report = {"cells": 0, "skipped": 0, "same": 0, "differ": [], "explained": []}
    for index, (old, new) in enumerate(zip(saved.cells, fresh.cells)):
        if old.cell_type != "code":
            continue
        report["cells"] += 1
        tags = old.metadata.get("tags", [])
        if skipped(old):
            report["skipped"] += 1
            continue
        expected = comparable(old.outputs, sanitizers)
        got = comparable(new.outputs, sanitizers)
        if expected == got:
            report["same"] += 1
            continue
        diff = "\n".join(difflib.unified_diff(
            "\n".join(expected).splitlines(), "\n".join(got).splitlines(),
            "engine (saved)", "torch", lineterm="", n=1))
        entry = (index, old.source.split("\n", 1)[0], diff)
        report["explained" if EXPLAINED_TAG in tags else "differ"].append(entry)
    return report


def notebooks(args: list[str], root: Path = ROOT) -> list[Path]:
    """The notebooks named, or every notebook of both editions: the Chinese ones
    (notebooks/zh-CN/, ...) hold the English code and outputs and run from their own folder,
    so torch must give their outputs too (their check cells speak Chinese: compared the same)."""
    if args:
        return [Path(a).resolve() for a in args]
    found = []
    for language in LANGUAGES:
        for folder in FOLDERS:
            found += sorted((root / edition_folder(folder, language)).glob("[0-9][0-9]_*.ipynb"))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="default: every notebook of the course")
    parser.add_argument("--quiet", action="store_true", help="no per-cell diffs")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="notebooks run at once, each in its own kernel (default: one "
                             "per CPU)")
    args = parser.parse_args(argv)
    try:
        import torch
    except ModuleNotFoundError:
        print("compare-torch needs PyTorch: run `make oracle` (installs torch==2.15.0).",
              file=sys.stderr)
        return 2
    sanitizers = read_sanitizers()
    paths = notebooks(args.notebooks)
    print(f"Comparing {len(paths)} notebooks with torch {torch.__version__}")
    totals = {"cells": 0, "skipped": 0, "same": 0, "differ": 0, "explained": 0}
    start = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(max(1, args.jobs)) as pool:
        reports = pool.map(compare, paths, [sanitizers] * len(paths))
        for path, report in zip(paths, reports):  # in order, each as soon as it is ready
            for key in totals:
                value = report[key]
                totals[key] += len(value) if isinstance(value, list) else value
            name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            status = "ok" if not report["differ"] else f"{len(report['differ'])} DIFFER"
            print(f"{status:>9}  {name}: {report['same']} of {report['cells']} code cells "
                  f"the same, {report['skipped']} skipped (engine-only), "
                  f"{len(report['explained'])} explained", flush=True)
            for kind in ("differ", "explained"):
                for index, first_line, diff in report[kind]:
                    print(f"    cell {index} ({kind}): {first_line}")
                    if not args.quiet:
                        print("      " + diff.replace("\n", "\n      "))
    print(f"\nTotal ({time.perf_counter() - start:.0f} s): {totals['cells']} code cells, "
          f"{totals['same']} the same on torch, {totals['skipped']} skipped (engine-only), "
          f"{totals['explained']} explained differences, {totals['differ']} unexplained "
          f"differences.")
    return 1 if totals["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
