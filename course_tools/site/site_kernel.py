"""What the site's Pyodide kernel finds ready, so that a learner sees what the local course shows
(course_tools/site/build.py calls these):

1. matplotlib's font cache. Pyodide 0.27.7's matplotlib 3.8.4 ships ``matplotlib/fontlist.json``
   with ``_version`` 390 while its FontManager wants 330, so every kernel's first matplotlib
   import rebuilt the cache and wrote "Matplotlib is building the font cache; this may take a
   moment." under the plotting cell (the local course builds its cache during setup). The
   build makes the cache with the site's own Pyodide and matplotlib under Node.js, puts it in
   a small wheel of its own, and has Pyodide install that wheel just after matplotlib's
   (``lock_with_font_cache``); matplotlib's own wheel is served as the official lock has it.

2. the notebooks' kernel metadata. JupyterLab writes the running kernel's ``kernelspec`` and
   ``language_info`` into a notebook when it opens; the committed ones are the local
   ipykernel's, so in the site every notebook turned "changed" (●) a few seconds after it was
   opened, and closing a lesson one had only read asked to save it. The site's copies carry
   the Pyodide kernel's values instead (``with_site_kernel_metadata``); the repository's
   notebooks, and so the local JupyterLab, are unchanged.
"""
from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path


class SiteKernelError(RuntimeError):
    pass


# ------------------------------------------------------------------ 1. matplotlib's font cache
# The distribution that carries the cache. In the site's lock it takes matplotlib's place (the
# name "matplotlib" and its import names) and depends on matplotlib's own wheel, renamed
# OFFICIAL_MATPLOTLIB: whatever asks for matplotlib (a cell's `import matplotlib`, engine.viz's
# loadPackage("matplotlib"), a package that depends on it) gets both, and Pyodide installs a
# package only after its dependencies, so this file replaces the stale one.
FONT_CACHE_DIST = "autograd_step_by_step_matplotlib_fonts"
OFFICIAL_MATPLOTLIB = "matplotlib-official"
FONT_CACHE_FILE = "matplotlib/fontlist.json"

FONT_CACHE_JS = r"""
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [indexURL, out] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL });
await pyodide.loadPackage("matplotlib");
const path = pyodide.runPython(`
import json, pathlib
import matplotlib
import matplotlib.font_manager as font_manager

path = pathlib.Path(matplotlib.__file__).parent / "fontlist.json"
written = json.loads(path.read_text())
if written["_version"] != font_manager.FontManager.__version__:
    raise RuntimeError(f"{path}: version {written['_version']}, matplotlib wants "
                       f"{font_manager.FontManager.__version__}")
if not written["ttflist"]:
    raise RuntimeError(f"{path}: no font found")
str(path)
`);
writeFileSync(out, pyodide.FS.readFile(path));
"""


def matplotlib_font_cache(pyodide_dir):
    """matplotlib's fontlist.json as matplotlib itself writes it on its first import, in the
    Pyodide of ``pyodide_dir`` (its lock's matplotlib, under Node.js)."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise SiteKernelError("Node.js is needed to build matplotlib's font cache for the "
                              "site (Debian/Ubuntu: sudo apt-get install nodejs npm)")
    with tempfile.TemporaryDirectory(prefix="site-font-cache-") as work:
        work = Path(work)
        (work / "font_cache.mjs").write_text(FONT_CACHE_JS)
        try:
            subprocess.run([node, work / "font_cache.mjs", f"{Path(pyodide_dir).resolve()}/",
                            work / "fontlist.json"], check=True, capture_output=True, text=True)
        except subprocess.CalledProcessError as error:
            raise SiteKernelError("building matplotlib's font cache in Pyodide failed: "
                                  f"{error.stderr[-2000:]}") from None
        return (work / "fontlist.json").read_bytes()


def _record_row(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def font_cache_wheel(cache, version, out_dir):
    """A pure wheel holding only ``matplotlib/fontlist.json`` (``cache``), versioned as the
    matplotlib it was made by; its path."""
    name = f"{FONT_CACHE_DIST}-{version}"
    wheel = Path(out_dir) / f"{name}-py3-none-any.whl"
    files = {
        FONT_CACHE_FILE: cache,
        f"{name}.dist-info/METADATA": (
            f"Metadata-Version: 2.1\nName: {FONT_CACHE_DIST}\nVersion: {version}\n"
            "Summary: matplotlib's font cache for the course's browser edition, made by "
            "course_tools/site/site_kernel.py\n").encode(),
        f"{name}.dist-info/WHEEL": (b"Wheel-Version: 1.0\nGenerator: course_tools.site\n"
                                    b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
    }
    record = f"{name}.dist-info/RECORD"
    rows = [_record_row(path, data) for path, data in files.items()] + [f"{record},,"]
    files[record] = ("\n".join(rows) + "\n").encode()
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(zipfile.ZipInfo(path, (2024, 1, 1, 0, 0, 0)), data,
                             zipfile.ZIP_DEFLATED)
    return wheel


def lock_with_font_cache(packages, cache_entry):
    """The lock's packages with the font cache's wheel (``cache_entry``, a lock entry) in
    matplotlib's place: it is "matplotlib" (matplotlib's import names too) and depends on
    matplotlib's own entry, kept as it was under the name OFFICIAL_MATPLOTLIB (no import
    names: they are the cache's now). Nothing else in the lock may depend on matplotlib's own
    entry by its old name (it would get the cache wheel instead, and could form a cycle)."""
    if "matplotlib" not in packages:
        raise SiteKernelError("the site's lock has no matplotlib")
    official = packages["matplotlib"]
    if FONT_CACHE_DIST in official["depends"]:
        raise SiteKernelError("the lock's matplotlib already depends on the font cache")
    changed = {name: entry for name, entry in packages.items() if name != "matplotlib"}
    changed[OFFICIAL_MATPLOTLIB] = {**official, "name": OFFICIAL_MATPLOTLIB, "imports": []}
    changed["matplotlib"] = {**cache_entry, "name": "matplotlib",
                             "imports": list(official["imports"]),
                             "depends": [OFFICIAL_MATPLOTLIB]}
    return dict(sorted(changed.items()))


# ------------------------------------------------------------------ 2. the notebooks' metadata
# What JupyterLab writes into a notebook opened in the site (jupyterlite-pyodide-kernel 0.6.1:
# its kernel spec; its kernel_info reply's language_info, which says "3.8" whatever Python
# Pyodide runs). Read in the built site (tests/web/test_site_notebooks_stay_unchanged.py
# opens notebooks and checks that none turns changed).
SITE_KERNELSPEC = {"display_name": "Python (Pyodide)", "language": "python", "name": "python"}
SITE_LANGUAGE_INFO = {"codemirror_mode": {"name": "python", "version": 3},
                      "file_extension": ".py", "mimetype": "text/x-python", "name": "python",
                      "nbconvert_exporter": "python", "pygments_lexer": "ipython3",
                      "version": "3.8"}


def with_site_kernel_metadata(files_dir):
    """Give every notebook under ``files_dir`` (the site's copies) the Pyodide kernel's
    kernelspec and language_info, in nbformat's own layout; how many were rewritten."""
    rewritten = 0
    for path in sorted(Path(files_dir).rglob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        metadata = notebook.setdefault("metadata", {})
        if metadata.get("kernelspec") == SITE_KERNELSPEC and \
                metadata.get("language_info") == SITE_LANGUAGE_INFO:
            continue
        metadata["kernelspec"] = dict(SITE_KERNELSPEC)
        metadata["language_info"] = json.loads(json.dumps(SITE_LANGUAGE_INFO))
        path.write_text(json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False)
                        + "\n", encoding="utf-8")
        rewritten += 1
    return rewritten
