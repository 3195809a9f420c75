"""Build the course's browser edition (`make site`): a JupyterLite site that runs offline.

    .site-venv/bin/python -m course_tools.site.build      # what `make site` runs
    ... --root build/release/autograd-step-by-step --out build/release/site   # make release's

With ``--root`` the site is built from a release's folder (course_tools/grade/release.py)
instead of the repository: its notebooks, notes and course wheel are the release's.

Everything comes from the repository and from two registries (PyPI, npm), at the versions
pinned in course_tools/site/site.env; every downloaded archive is checked against
course_tools/site/inputs.sha256, and every Pyodide package file against the sha256 in the
official ``pyodide-lock.json`` of npm's ``pyodide`` package (a mismatch stops the build).
See README.md, "The course in a browser".

Steps:

1. download (once, into build/site-cache/): npm's ``pyodide`` core and ``@viz-js/viz``
   (``npm pack``), the Pyodide build of numpy, matplotlib and their dependencies (from the
   PyPI package named in course_tools/site/site.env: see PROVENANCE below), and the pure wheels of
   graphviz, ipywidgets, comm and jupyterlab_widgets; build the course's own pure wheel
   (``engine`` and ``exercises``);
2. lay out ``static/pyodide/``: the core, the package files the course needs (each checked
   against the official lock), the pure wheels, a pruned ``pyodide-lock.json`` that lists
   only those, and the WebAssembly Graphviz (``viz-3.31.0.js``) that engine/viz.py loads;
3. the notebooks, laid out as in a learner's workspace (notebooks/, exercises/, solutions/);
4. ``jupyter lite build --no-sourcemaps``, then the site's first page, and its size.
"""
from __future__ import annotations

import argparse
import ast
import datetime
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

from course_tools.notebook_files import (ENGLISH, LANGUAGES,  # standard library only
                                         cells_digest, course_files, course_notebooks)
from course_tools.site import read_only, site_kernel
from exercises.checks.i18n import CHINESE, SITE_VARIABLE

WEB = Path(__file__).resolve().parent
ROOT = WEB.parent.parent

# What the Pyodide kernel itself loads at start (jupyterlite-pyodide-kernel 0.6.1's worker:
# micropip, then piplite installs ssl, sqlite3, ipython, jedi, ...), and what the course
# imports. Their dependencies are added from the lock.
KERNEL_PACKAGES = ["micropip", "ssl", "sqlite3", "ipython", "jedi"]
COURSE_PACKAGES = ["numpy", "matplotlib"]
# The files of npm's pyodide package that the site serves (the rest are docs, types, maps).
PYODIDE_CORE = ["pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm",
                "python_stdlib.zip", "package.json"]
# What each pure wheel needs from the lock, and what it is imported as. ipywidgets needs
# widgetsnbextension only for classic Notebook; JupyterLite ships a stand-in.
PURE_WHEELS = {
    "graphviz": ([], ["graphviz"]),
    "comm": ([], ["comm"]),
    "jupyterlab-widgets": ([], ["jupyterlab_widgets"]),
    "ipywidgets": (["comm", "ipython", "jupyterlab-widgets", "traitlets"], ["ipywidgets"]),
}
# The course's wheel: loaded when a cell imports engine or exercises (Pyodide reads the
# imports of every cell). Not matplotlib (about 10 MB with its dependencies): a lesson that
# plots imports it in a cell, and engine.widgets loads it on demand
# (engine.viz.load_browser_packages), so a lesson that never plots never downloads it.
COURSE_WHEEL = ("autograd-step-by-step", ["numpy", "graphviz", "ipywidgets"],
                ["engine", "exercises"])
# Loaded by Pyodide itself as it starts, all at once (``loadPyodideOptions.packages``): the
# kernel's own packages, which jupyterlite-pyodide-kernel 0.6.1 otherwise installs one by one
# through piplite, and numpy with the course, which every lesson's first cell imports.
# Measured on lesson 00 (2 cores, 3 rounds each): kernel ready 14.7 -> 12.4 s, first cell
# 1.4 -> 0.9 s. Every name must be in the pruned lock (the build checks).
KERNEL_PRELOAD = ["micropip", "ssl", "sqlite3", "jedi", "ipython", "comm", "numpy",
                  COURSE_WHEEL[0]]
VIZ_FILE = "viz-{version}.js"  # engine/viz.py looks for it beside pyodide.js
LABEXTENSION = ROOT / "course_tools" / "labextension"
# The local kernel's start-up lines (make lab, nbval): the site's kernel gets the same warning
# filters (kernel_warning_filters).
KERNEL_CONFIG = ROOT / "course_tools" / "kernel" / "ipython_kernel_config.json"
# Each course notebook's version, for the course-update notice (course_versions).
COURSE_VERSIONS = "course-versions.json"

PROVENANCE = """\
Where every Pyodide file of this site comes from (written by course_tools/site/build.py):

- the core (pyodide.js, pyodide.mjs, pyodide.asm.js, pyodide.asm.wasm, python_stdlib.zip)
  and the official pyodide-lock.json: npm package pyodide@{pyodide}, archive sha256 {npm_sha}
  (checked against course_tools/site/inputs.sha256);
- the package files below: taken from the PyPI package {source} (archive sha256
  {source_sha}, checked against course_tools/site/inputs.sha256), a third-party
  repackaging of Pyodide's own build, used only because numpy and matplotlib for Pyodide
  {pyodide} are not published on a registry as browser wheels. Each file was checked against
  the sha256 that the official pyodide-lock.json above gives for it; the build stops on any
  mismatch. Switch to official browser wheels when they appear on PyPI;
- the pure wheels ({pure}): PyPI, pinned in course_tools/site/site.env, checked against
  course_tools/site/inputs.sha256;
- {course}: built from this repository (engine/ and exercises/).

Package files checked against the official lock:
{files}
"""


def say(text):
    print(f"[site] {text}", flush=True)


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_env(path):
    """course_tools/site/site.env: NAME=value lines."""
    values = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def run(*command, cwd=None):
    say("$ " + " ".join(str(c) for c in command))
    subprocess.run([str(c) for c in command], cwd=cwd, check=True)


class BuildError(RuntimeError):
    pass


# ------------------------------------------------------------------ 1. downloads
def download(env, cache, pip):
    """Fetch what is not cached yet; check every archive against course_tools/site/inputs.sha256."""
    cache.mkdir(parents=True, exist_ok=True)
    wanted = {}
    for line in (WEB / "inputs.sha256").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            digest, name = line.split()
            wanted[name] = digest
    npm = {f"pyodide-{env['PYODIDE_VERSION']}.tgz": f"pyodide@{env['PYODIDE_VERSION']}",
           f"viz-js-viz-{env['VIZ_VERSION']}.tgz": f"@viz-js/viz@{env['VIZ_VERSION']}"}
    for name, spec in npm.items():
        if not (cache / name).exists():
            run("npm", "pack", "--silent", spec, cwd=cache)
    specs = [env["PYODIDE_PACKAGES_FROM"], *env["SITE_WHEELS"].split()]
    missing = [spec for spec in specs if not list(cache.glob(_wheel_glob(spec)))]
    if missing:
        run(*pip, "download", "--no-deps", "--only-binary", ":all:", "-q",
            "--disable-pip-version-check", "-d", cache, *missing)
    found = {}
    for name, digest in wanted.items():
        path = cache / name
        if not path.exists():
            raise BuildError(f"{name} was not downloaded (see course_tools/site/inputs.sha256)")
        if sha256(path) != digest:
            raise BuildError(f"{name}: sha256 {sha256(path)} is not the pinned {digest}"
                             " (course_tools/site/inputs.sha256)")
        found[name] = path
    for spec in specs:
        if not list(cache.glob(_wheel_glob(spec))):
            raise BuildError(f"no wheel for {spec} in {cache}")
    say(f"inputs checked against course_tools/site/inputs.sha256: {len(found)} archives")
    return found


def _wheel_glob(spec):
    name, _, version = spec.partition("==")
    return f"{re.sub(r'[-_.]+', '_', name)}-{version}-*.whl"


def course_wheel(pip, out, root=ROOT):
    """The course (engine/ and exercises/) as a pure wheel, built from the repository (or from
    ``root``, a release's folder: its checkers without their reference answers)."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("autograd_step_by_step-*.whl"):
        old.unlink()
    # A copy, so that the build leaves nothing (build/, *.egg-info) in the repository.
    src = out / "src"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.ipynb")
    for package in ("engine", "exercises"):
        shutil.copytree(root / package, src / package, ignore=ignore)
    run(*pip, "wheel", "--no-deps", "-q", "--disable-pip-version-check", "-w", out, src)
    shutil.rmtree(src)
    (wheel,) = out.glob("autograd_step_by_step-*.whl")
    return wheel


# ------------------------------------------------------------- 2. static/pyodide
# The course's wheel gets its bytecode (``__pycache__/*.cpython-312.pyc``, beside the sources,
# which lessons and tracebacks show), compiled by the site's own Pyodide under Node.js (npm's
# node; the magic number is that Python's, whatever Python runs the build), as unchecked-hash
# pycs (PEP 552: used as they are, whatever the files' dates after unpacking). Without them
# `import engine` compiles about 150 modules in WebAssembly as the first cell runs: lesson 00's
# first two cells in Pyodide under Node.js (loaded, then the course wheel unpacked and
# imported) took 11.9-13.2 s with the sources alone and 2.7-4.1 s with the bytecode (3 runs
# with it, 2 without; 2 cores under a load average of 20; the wheel grows from 0.6 to 1.8 MB).
COMPILE_JS = r"""
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [indexURL, wheel, script] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL });
pyodide.FS.writeFile("/tmp/in.whl", new Uint8Array(readFileSync(wheel)));
pyodide.runPython(readFileSync(script, "utf8"));
writeFileSync(wheel, pyodide.FS.readFile("/tmp/out.whl"));
"""
COMPILE_PY = r"""
import base64, hashlib, importlib.util, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

source = zipfile.ZipFile("/tmp/in.whl")
record = next(name for name in source.namelist() if name.endswith(".dist-info/RECORD"))
rows = []
with zipfile.ZipFile("/tmp/out.whl", "w", zipfile.ZIP_DEFLATED) as out:
    def add(name, data, date_time):
        out.writestr(zipfile.ZipInfo(name, date_time), data, zipfile.ZIP_DEFLATED)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{name},sha256={digest},{len(data)}")

    for info in source.infolist():
        if info.filename == record:
            continue
        data = source.read(info)
        add(info.filename, data, info.date_time)
        if info.filename.endswith(".py"):
            code = compile(data, info.filename, "exec", dont_inherit=True)
            pyc = _code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
            folder, _, name = info.filename.rpartition("/")
            add(f"{folder}/__pycache__/{name[:-3]}.{sys.implementation.cache_tag}.pyc", pyc,
                info.date_time)
    rows.append(f"{record},,")
    out.writestr(zipfile.ZipInfo(record, source.getinfo(record).date_time),
                 "\n".join(rows) + "\n", zipfile.ZIP_DEFLATED)
"""


def add_bytecode(pyodide_dir, wheel):
    """Compile the wheel's modules with the Pyodide in ``pyodide_dir`` (COMPILE_JS above),
    in place; how many pyc files it holds then."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise BuildError("Node.js is needed to compile the course's wheel for Pyodide "
                         "(Debian/Ubuntu: sudo apt-get install nodejs npm)")
    with tempfile.TemporaryDirectory(prefix="site-compile-") as scripts:
        scripts = Path(scripts)
        (scripts / "compile.mjs").write_text(COMPILE_JS)
        (scripts / "compile.py").write_text(COMPILE_PY)
        try:
            subprocess.run([node, scripts / "compile.mjs", f"{pyodide_dir.resolve()}/",
                            wheel.resolve(), scripts / "compile.py"],
                           check=True, capture_output=True, text=True)
        except subprocess.CalledProcessError as error:
            raise BuildError(f"compiling the course's wheel in Pyodide failed: "
                             f"{error.stderr[-2000:]}") from None
    with zipfile.ZipFile(wheel) as zipped:
        return sum(name.endswith(".pyc") for name in zipped.namelist())


def wheel_version(path):
    return path.name.split("-")[1]


def lock_entry(name, path, depends, imports):
    return {"name": name, "version": wheel_version(path), "file_name": path.name,
            "install_dir": "site", "sha256": sha256(path), "package_type": "package",
            "imports": imports, "depends": depends, "unvendored_tests": False}


def closure(packages, names):
    """The packages and everything they depend on, by the lock's own names."""
    key = {}
    for lock_name, entry in packages.items():
        for alias in (lock_name, entry["name"], entry["name"].lower().replace("_", "-")):
            key[alias] = lock_name
    found, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in key:
            raise BuildError(f"{name} is not in Pyodide's lock")
        name = key[name]
        if name not in found:
            found.add(name)
            todo += packages[name]["depends"]
    return sorted(found)


def take_checked_files(source, source_name, packages, needed, dest):
    """Copy each needed package's file from the archive ``source`` into ``dest``, only if
    its sha256 is the one the official lock (``packages``) gives: any mismatch or missing
    file stops the build. Returns one line per file, for PROVENANCE.txt."""
    checked = []
    with zipfile.ZipFile(source) as archive:
        members = {info.filename.rsplit("/", 1)[-1]: info for info in archive.infolist()
                   if "/pyodide/" in info.filename and not info.is_dir()}
        for name in needed:
            entry = packages[name]
            member = members.get(entry["file_name"])
            if member is None:
                raise BuildError(f"{source_name} has no {entry['file_name']} ({name})")
            data = archive.read(member)
            digest = hashlib.sha256(data).hexdigest()
            if digest != entry["sha256"]:
                raise BuildError(
                    f"{entry['file_name']} from {source_name}: sha256 {digest} differs from "
                    f"the official pyodide-lock.json ({entry['sha256']}): refusing to build")
            (dest / entry["file_name"]).write_bytes(data)
            checked.append(f"  {entry['file_name']}  sha256 {digest}")
    return checked


def lay_out_pyodide(env, inputs, cache, wheels, dest, wanted=KERNEL_PACKAGES + COURSE_PACKAGES,
                    pure_wheels=None):
    """static/pyodide/: the core, the checked package files (``wanted`` and what they depend
    on), the pure wheels (``pure_wheels``: those of SITE_WHEELS, all by default), the course's
    wheel, the pruned lock. ``wheels`` None (the floor): no course, no Graphviz."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    npm_archive = inputs[f"pyodide-{env['PYODIDE_VERSION']}.tgz"]
    with tarfile.open(npm_archive) as tar:
        for name in PYODIDE_CORE:
            (dest / name).write_bytes(tar.extractfile(f"package/{name}").read())
        lock = json.load(tar.extractfile("package/pyodide-lock.json"))
    if lock["info"]["version"] != env["PYODIDE_VERSION"]:
        raise BuildError(f"npm's lock is for Pyodide {lock['info']['version']}")
    # the official lock, for Pyodide to start with (add_bytecode); the pruned one replaces it
    (dest / "pyodide-lock.json").write_text(json.dumps(lock))
    packages = lock["packages"]
    needed = closure(packages, wanted)

    source_name = env["PYODIDE_PACKAGES_FROM"]
    (source,) = cache.glob(_wheel_glob(source_name))
    checked = take_checked_files(source, source_name, packages, needed, dest)
    say(f"{len(checked)} Pyodide package files match the official pyodide-lock.json")

    pruned = {name: packages[name] for name in needed}
    pure = []
    for spec in env["SITE_WHEELS"].split():
        name = spec.split("==")[0].lower().replace("_", "-")
        if pure_wheels is not None and name not in pure_wheels:
            continue
        (path,) = cache.glob(_wheel_glob(spec))
        depends, imports = PURE_WHEELS[name]
        shutil.copy(path, dest / path.name)
        pruned[name] = lock_entry(name, dest / path.name, depends, imports)
        pure.append(path.name)
    if wheels is None:
        lock["packages"] = pruned
        (dest / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))
        return len(pruned)
    name, depends, imports = COURSE_WHEEL
    shutil.copy(wheels, dest / wheels.name)
    say(f"{wheels.name}: {add_bytecode(dest, dest / wheels.name)} modules compiled by Pyodide")
    pruned[name] = lock_entry(name, dest / wheels.name, depends, imports)
    lock["packages"] = pruned
    (dest / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))

    with tarfile.open(inputs[f"viz-js-viz-{env['VIZ_VERSION']}.tgz"]) as tar:
        viz = tar.extractfile("package/dist/viz.js").read()
    (dest / VIZ_FILE.format(version=env["VIZ_VERSION"])).write_bytes(viz)

    (dest / "PROVENANCE.txt").write_text(PROVENANCE.format(
        pyodide=env["PYODIDE_VERSION"], npm_sha=sha256(npm_archive), source=source_name,
        source_sha=sha256(source), pure=", ".join(pure), course=wheels.name,
        files="\n".join(checked)))
    return len(pruned)


def add_matplotlib_font_cache(dest):
    """matplotlib's font cache, made by the site's own Pyodide, in a wheel that Pyodide installs
    just after matplotlib's (course_tools/site/site_kernel.py): a kernel's first plot no longer
    rebuilds it and says so under the cell. Changes the lock in ``dest`` and adds to its
    PROVENANCE.txt."""
    lock_path = dest / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text())
    official = lock["packages"]["matplotlib"]
    cache = site_kernel.matplotlib_font_cache(dest)
    wheel = site_kernel.font_cache_wheel(cache, official["version"], dest)
    lock["packages"] = site_kernel.lock_with_font_cache(
        lock["packages"], lock_entry(site_kernel.FONT_CACHE_DIST, wheel, [], []))
    lock_path.write_text(json.dumps(lock, indent=1, sort_keys=True))
    with open(dest / "PROVENANCE.txt", "a") as provenance:
        provenance.write(
            f"\n{wheel.name} (sha256 {sha256(wheel)}): matplotlib's font cache "
            f"({site_kernel.FONT_CACHE_FILE}, {len(cache)} bytes), written by matplotlib "
            f"{official['version']} itself in this site's Pyodide under Node.js: the one in "
            f"{official['file_name']} has a version its own matplotlib does not accept. The lock "
            f"names it matplotlib and matplotlib's file {site_kernel.OFFICIAL_MATPLOTLIB} "
            "(the file itself as checked above).\n")
    say(f"{wheel.name}: matplotlib's font cache, {len(cache)} bytes")


# --------------------------------------------------------------- 3. the lite folder
def lay_out_lite(lite, root=ROOT):
    """jupyter-lite.json, the settings, and the notebooks and the documents they link to
    (as in a learner's workspace)."""
    shutil.copy(WEB / "overrides.json", lite / "overrides.json")
    files = lite / "files"
    shutil.rmtree(files, ignore_errors=True)
    # Both editions (notebooks/zh-CN/, ...: the Chinese site, build/site/zh-CN/, serves the
    # same files), as in a learner's workspace: links between them work.
    for relative in course_files(root, LANGUAGES):
        (files / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / relative, files / relative)
    return files


def lite_config(prefix=Path(sys.prefix)):
    """`jupyter lite build`'s configuration (jupyter_lite_config.json in the lite folder): the
    JupyterLab extensions the site ships (SITE_EXTENSIONS), each named by its folder, the
    course's from this checkout, the others as installed in the build tools' venv; none taken
    from the venv unasked. So a venv shared between checkouts (or an older copy of the
    course's extension in it) never decides which extension the site ships."""
    installed = prefix / "share" / "jupyter" / "labextensions"
    folders = [LABEXTENSION if name == "autograd-step-by-step" else installed / name
               for name in SITE_EXTENSIONS]
    missing = [str(folder) for folder in folders if not (folder / "package.json").exists()]
    if missing:
        raise BuildError(f"JupyterLab extensions the site needs are not installed: {missing}")
    return {"LiteBuildConfig": {"ignore_sys_prefix": ["federated_extensions"],
                                "federated_extensions": [str(f) for f in folders]}}


def configure(path, lock, preload=KERNEL_PRELOAD):
    """The built jupyter-lite.json, with course_tools/site/jupyter-lite.json's settings on top
    (no PyPI fallback: every package comes from the site) and the packages Pyodide loads as it
    starts (``KERNEL_PRELOAD``, each checked against the site's ``lock``)."""
    config = json.loads(path.read_text())
    packages = json.loads(lock.read_text())["packages"]
    missing = [name for name in preload if name not in packages]
    if missing:
        raise BuildError(f"packages to preload that the site's lock lacks: {missing}")
    ours = json.loads((WEB / "jupyter-lite.json").read_text())["jupyter-config-data"]
    data = config["jupyter-config-data"]
    for key, value in ours.items():
        if isinstance(value, dict):
            for plugin, settings in value.items():
                data.setdefault(key, {}).setdefault(plugin, {}).update(settings)
        else:
            data[key] = value
    kernel = data["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    if kernel.get("disablePyPIFallback") is not True or not kernel["pyodideUrl"].startswith("./"):
        raise BuildError(f"{path}: the kernel would load packages from elsewhere: {kernel}")
    options = kernel.setdefault("loadPyodideOptions", {})
    options["packages"] = list(preload)
    options.setdefault("env", {})["PYTHONWARNINGS"] = kernel_warning_filters()
    path.write_text(json.dumps(config, indent=2, sort_keys=True))


def kernel_warning_filters(config=KERNEL_CONFIG):
    """The local kernel's start-up warning filters (its exec_lines, each
    ``__import__('warnings').filterwarnings('ignore', message=r'...', category=...)``) as the
    value of PYTHONWARNINGS, which the Pyodide kernel's Python reads as it starts
    (``loadPyodideOptions.env``: jupyterlite-pyodide-kernel runs no start-up code of ours, and
    the filters must be in place before a cell runs). Python's -W syntax matches the start of
    a message literally, so each filter's regular expression must be a literal text with
    escaped dots, and hold no ':' or ','; anything else stops the build."""
    lines = json.loads(config.read_text())["IPKernelApp"].get("exec_lines", [])
    filters = []
    for line in lines:
        call = ast.parse(line, mode="eval").body
        keywords = {k.arg: k.value for k in getattr(call, "keywords", [])}
        try:
            assert isinstance(call, ast.Call) and call.func.attr == "filterwarnings"
            action = ast.literal_eval(call.args[0])
            pattern = ast.literal_eval(keywords["message"])
            category = keywords["category"].id
        except (AssertionError, AttributeError, IndexError, KeyError, ValueError) as error:
            raise BuildError(f"{config.name}: not a warning filter the site's kernel can "
                             f"take: {line!r} ({error!r})") from None
        text = re.sub(r"\\(.)", r"\1", pattern)  # \. -> .
        unescaped = re.sub(r"\\.", "", pattern)
        if re.search(r"[.^$*+?{}\[\]()|]", unescaped) or re.search("[:,]", text) or \
                set(keywords) != {"message", "category"}:
            raise BuildError(f"{config.name}: the filter {line!r} is not one PYTHONWARNINGS "
                             "can say (a literal message start, no ':' or ',')")
        filters.append(f"{action}:{text}:{category}")
    return ",".join(filters)


def course_versions(root, names, date):
    """What the site's course-update notice compares (course_tools/labextension, part 5): each
    course notebook's version, as make workspace fingerprints it (cells_digest: its cells'
    types and sources, not outputs), and the date a fresh copy of a changed one is named by."""
    return {"date": date, "notebooks": {
        name: cells_digest(json.loads((root / name).read_text(encoding="utf-8")))
        for name in names if name.endswith(".ipynb")}}


# The JupyterLab extensions the site ships: the widgets' manager, the Pyodide kernel, the
# course's own and Pygments' colours. `jupyter lite build` takes every extension installed in
# the build tools' venv, and mkdocs-jupyter brings jupytext's, built for a newer JupyterLab than
# the site's: it failed to load in every browser (module federation error RUNTIME-012 on
# @jupyterlab/docregistry), and the site has no use for it.
SITE_EXTENSIONS = ("@jupyter-widgets/jupyterlab-manager", "@jupyterlite/pyodide-kernel-extension",
                   "autograd-step-by-step", "jupyterlab_pygments")


def keep_only_course_extensions(out, keep=SITE_EXTENSIONS):
    """Remove every JupyterLab extension but ``keep`` from the built site: its files,
    its entry in jupyter-lite.json and its settings' schema; the names removed."""
    config_path = out / "jupyter-lite.json"
    config = json.loads(config_path.read_text())
    data = config["jupyter-config-data"]
    shipped = [extension["name"] for extension in data.get("federated_extensions", [])]
    missing = [name for name in keep if name not in shipped]
    if missing:
        raise BuildError(f"the site lacks JupyterLab extensions it needs: {missing}")
    removed = [name for name in shipped if name not in keep]
    data["federated_extensions"] = [extension for extension in data["federated_extensions"]
                                    if extension["name"] in keep]
    config_path.write_text(json.dumps(config, indent=2, sort_keys=True))
    schemas = out / "build" / "schemas" / "all_federated.json"
    if schemas.exists():
        kept = [schema for schema in json.loads(schemas.read_text())
                if schema.get("id", "").split(":")[0] not in removed]
        schemas.write_text(json.dumps(kept))
    for name in removed:
        shutil.rmtree(out / "extensions" / name, ignore_errors=True)
    return removed


def title(path):
    """A notebook's first heading, without its '# '."""
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip().replace("`", "")
    return path.stem


FIRST_RESULT = ROOT / "bench" / "first_result.json"  # course_tools/site/first_result.py's


def first_result_sentence(path=FIRST_RESULT):
    """What the first page says of the wait for a lesson's first result: the last measurement
    (``make first-result``), in Chromium, the course against the floor."""
    if not path.exists():
        raise BuildError(f"{path.relative_to(ROOT)} is missing: `make first-result` measures "
                         "what the site's first page states")
    record = json.loads(path.read_text())
    chromium = record["results"]["chromium"]
    course, floor = chromium["course/first"], chromium["floor/first"]
    again = chromium["course/again"]["first_output"]
    cores = record["machine"].split(", ")[-1]
    loads = [value[0] for value in (record.get("load_average") or {}).values() if value]
    if loads:  # how busy the machine was (1-minute load average, before and after)
        cores += f" under a load average of {min(loads):.0f}" + (
            f"-{max(loads):.0f}" if round(max(loads)) != round(min(loads)) else "")
    return (f"Python, numpy and the course start in the page: on a first visit, lesson 00 "
            f"showed its first result {course['first_output']:.0f} s after it was opened "
            f"(median of {record['runs']} runs in Chromium on {cores}, measured "
            f"{record['date']}; JupyterLite with numpy alone took {floor['first_output']:.0f} "
            f"s on the same machine)" + (f", and {again:.0f} s when opened again, the "
                                         "browser having kept the files" if again else "")
            + other_engines_clause(record) + ".")


ENGINE_NAMES = {"firefox": "Firefox ESR", "webkit": "WebKit (Safari's engine)"}


def other_engines_clause(record):
    """The first visit's first result in the other engines of the same run, if it timed them
    (``make first-result BROWSERS="chromium firefox webkit"``)."""
    timed = [f"{ENGINE_NAMES[engine]} {results['course/first']['first_output']:.0f} s"
             for engine, results in record["results"].items()
             if engine in ENGINE_NAMES and "course/first" in results]
    return f"; in the same run, {' and '.join(timed)}" if timed else ""


def first_page(out, root=ROOT):
    """The site's first page (course_tools/site/index.html): what runs here, where the
    learner's work is kept and how to download it, and a link to every lesson and exercise
    notebook."""
    def links(folder):
        return "\n".join(
            f'<li><a href="lab/index.html?path={relative}">{html.escape(title(root / relative))}'
            "</a></li>"
            for relative in course_notebooks(root) if relative.startswith(folder))
    page = (WEB / "index.html").read_text()
    # JupyterLite's apps read the configuration of every folder up to the root from its
    # index.html: keep the built one's <script id="jupyter-config-data">.
    built = (out / "index.html").read_text()
    config = re.search(r'<script\s+id="jupyter-config-data".*?</script>', built, re.S)
    if config is None:
        raise BuildError("the built index.html has no jupyter-config-data")
    page = page.replace("</head>", config.group(0) + "\n</head>")
    page = page.replace("{lessons}", links("notebooks/")).replace("{exercises}",
                                                                   links("exercises/"))
    page = page.replace("{first_result}", html.escape(first_result_sentence()))
    (out / "index.html").write_text(page)


MKDOCS_YML = """\
# Written by course_tools/site/build.py: the read-only HTML edition of the lessons (mkdocs-jupyter).
site_name: "{site_name}"
docs_dir: docs
site_dir: {site_dir}
use_directory_urls: true
theme:
  name: material
  language: {theme_language}
  font: false   # no web fonts: the site asks no other host for anything
plugins:
  - search
  - mkdocs-jupyter:
      execute: false
      include_source: true
nav:
  - "{home}": index.md
{nav}
"""

# The words of each edition's read-only site (its navigation, its first page, the line above
# each notebook), and where it goes under read/.
READ_ONLY_WORDS = {
    ENGLISH: {
        "folder": "", "site_name": "Autograd, Step by Step (read-only)", "theme_language": "en",
        "home": "The course, read-only",
        "sections": ("Lessons", "Exercises", "Worked answers"), "notes": "Notes",
        "kinds": ("lesson, exercise notebook and worked answer", "lesson and exercise notebook"),
        "index": "# Autograd, Step by Step: the course, read-only\n\nEach {kinds} as the course "
                 "saved it, outputs and pictures included. To run one, open it [in your browser]"
                 "(../index.html) (JupyterLite): every page links to its runnable copy.\n",
        "other": "\n中文版 (the Chinese edition): [只读页面](zh-CN/)\n",
        "runnable": "*Read-only copy, with the outputs saved in the course.* [**Run it in your "
                    "browser**]({link}) (JupyterLite).",
    },
    CHINESE: {
        "folder": "zh-CN", "site_name": "Autograd, Step by Step（只读版）", "theme_language": "zh",
        "home": "只读版课程", "sections": ("课程", "练习", "参考答案"), "notes": "",
        "kinds": ("课程、练习 notebook 和参考答案", "课程和练习 notebook"),
        "index": "# Autograd, Step by Step：只读版课程\n\n这里是课程保存下来的每一篇{kinds}，"
                 "连同输出和图一起。想运行其中一篇，请[在浏览器中打开](../../zh-CN/index.html)"
                 "（JupyterLite）：每一页都链接到它可以运行的那一份。\n",
        "other": "\nEnglish edition（英文版）：[read-only pages](../)\n",
        "runnable": "*只读副本，输出是课程保存下来的。* [**在浏览器中运行**]({link})"
                    "（JupyterLite）。",
    },
}


def read_only_html(out, work, root=ROOT, language=ENGLISH):
    """build/site/read/ (the Chinese edition: read/zh-CN/): every lesson, exercise notebook and
    worked answer as a static page with its saved outputs and pictures, each linking to its copy
    in JupyterLite, their links to each other (and to the notes beside the lessons, and the
    other edition's pages) pointing at these pages (course_tools/site/read_only.py;
    mkdocs-jupyter, offline). The English edition is built first: the Chinese one goes inside
    its folder."""
    words = READ_ONLY_WORDS[language]
    read = work / ("read-" + language)
    shutil.rmtree(read, ignore_errors=True)
    docs = read / "docs"
    (docs / "exercises").mkdir(parents=True)
    (docs / "solutions").mkdir()
    notebooks = course_notebooks(root, (language,))
    notes = sorted(p.relative_to(root).as_posix() for p in (root / "notebooks").glob("*.md")
                   if p.name not in ("README.md", "AUTHORING.md"))
    # what a page may link to: every edition's pages (lesson 00 links to its other edition's)
    has_page = set(course_notebooks(root, LANGUAGES) + notes).__contains__
    sections = {"notebooks": [], "exercises": [], "solutions": []}
    for relative in notebooks:
        notebook = json.loads((root / relative).read_text())
        for cell in notebook["cells"]:
            if cell["cell_type"] == "markdown":
                source = read_only.unlink_absent("".join(cell["source"]), relative,
                                                 lambda path: (root / path).is_file())
                cell["source"] = read_only.rewrite_links(source, relative, has_page)
        notebook["cells"].insert(0, {
            "cell_type": "markdown", "id": "open-in-jupyterlite", "metadata": {},
            "source": [words["runnable"].format(link=read_only.runnable_link(relative))]})
        (docs / read_only.source_of(relative)).write_text(json.dumps(notebook))
        sections[relative.split("/")[0]].append(relative)
    if language != ENGLISH:
        notes = []  # the English edition's pages: the Chinese ones link to them
    for relative in notes:
        text = read_only.unlink_absent((root / relative).read_text(), relative,
                                       lambda path: (root / path).is_file())
        text = read_only.rewrite_links(text, relative, has_page)
        (docs / read_only.source_of(relative)).write_text(text)
    nav, items = [], []
    for folder, heading in zip(("notebooks", "exercises", "solutions"), words["sections"]):
        if not sections[folder]:
            continue  # a release without solutions
        nav.append(f'  - "{heading}":')
        items.append(f"\n## {heading}\n")
        for relative in sections[folder]:
            label = title(root / relative).replace('"', "'")
            source = read_only.source_of(relative)
            nav.append(f'    - "{label}": {source}')
            items.append(f"- [{label}]({source})")
    if notes:
        nav.append(f'  - "{words["notes"]}":')
    for relative in notes:
        nav.append(f'    - "{Path(relative).stem}": {read_only.source_of(relative)}')
    kinds = words["kinds"][0 if sections["solutions"] else 1]
    other = [edition for edition in LANGUAGES if edition != language
             and course_notebooks(root, (edition,))]
    (docs / "index.md").write_text(words["index"].format(kinds=kinds)
                                   + (words["other"] if other else "") + "\n".join(items) + "\n")
    site_dir = out / "read" / words["folder"] if words["folder"] else out / "read"
    (read / "mkdocs.yml").write_text(MKDOCS_YML.format(
        site_name=words["site_name"], theme_language=words["theme_language"],
        home=words["home"], site_dir=site_dir, nav="\n".join(nav)))
    os.environ["NO_MKDOCS_2_WARNING"] = "1"  # a banner about a successor tool, not about us
    # (from read/: mkdocs-jupyter keeps a cache in the current folder)
    run(Path(sys.executable).parent / "mkdocs", "build", "--quiet", "-f", read / "mkdocs.yml",
        cwd=read)
    # (mkdocs's 404 page links from the server's root: wrong for a site under read/; the
    # server's own 404 serves instead)
    (site_dir / "404.html").unlink(missing_ok=True)
    notebook_pages = {out / "read" / read_only.page_of(relative) / "index.html"
                      for relative in notebooks}
    for page in site_dir.rglob("*.html"):
        if language == ENGLISH and page.is_relative_to(out / "read" / "zh-CN"):
            continue
        text = page.read_text()
        # mkdocs-jupyter adds a script tag for mermaid diagrams from a CDN; no lesson has one
        cleaned = re.sub(r'<script[^>]+src="https?://[^"]*mermaid[^"]*"[^>]*>\s*</script>', "",
                         text)
        if page in notebook_pages:
            try:
                cleaned = read_only.headings_in_toc(cleaned)
            except read_only.ReadOnlyError as error:
                raise BuildError(f"{page.relative_to(out)}: {error}") from None
        if cleaned != text:
            page.write_text(cleaned)
    return len(notebooks)


# ---------------------------------------------------------------- the Chinese site
# build/site/zh-CN/ (issue 30): the same JupyterLite, with its menus in Chinese and the Chinese
# notebooks listed on its first page, beside the English one. Both serve one set of files (the
# notebooks of both editions under files/, laid out as in a learner's workspace, so that every
# link between them works, lesson 00's to its other edition's too) and share everything big:
# JupyterLab (build/, extensions/), Pyodide and its packages (static/pyodide/), the language
# pack (api/translations/). Only the pages that start JupyterLab are copied into zh-CN/, and
# zh-CN/jupyter-lite.json (read on top of the site's: JupyterLite merges the configuration of
# every folder from the page up to the site's root) gives the Chinese JupyterLab:
# - its own browser storage, so the learner's work in one edition never mixes with, nor
#   overwrites, the other's (a notebook of either edition can be opened in both);
# - the zh_CN locale, so the menus are Chinese without the learner choosing it;
# - a kernel started with COURSE_SITE_LANGUAGE=zh-CN (exercises/checks/i18n.py: the checkers'
#   language where the kernel has no drive to tell the notebook's folder);
# - "courseLanguage" (the course's extension: its progress view reads exercises/zh-CN/).
CHINESE_FOLDER = CHINESE
# JupyterLite's apps (each a folder with the pages that start it)
LITE_APPS = ("lab", "tree", "notebooks", "edit", "consoles", "repl", "doc")
# Fixed names (JupyterLite's default is "JupyterLite Storage - <baseUrl>", the English site's).
CHINESE_STORAGE = {"contentsStorageName": "JupyterLite Storage - autograd-step-by-step zh-CN",
                   "settingsStorageName": "JupyterLite Settings - autograd-step-by-step zh-CN"}
CHINESE_SETTINGS = {"@jupyterlab/translation-extension:plugin": {"locale": "zh_CN"}}
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"


def has_chinese_edition(root):
    return bool(course_notebooks(root, (CHINESE,)))


def one_folder_deeper(text, depth):
    """A page of an app folder ``depth`` folders below the site's root, copied one folder
    deeper (into zh-CN/): each relative reference that climbed to the site's root climbs one
    folder more ("../build/" -> "../../build/", data-jupyter-lite-root=".." -> "../..")."""
    up = "../" * depth

    def deeper(match):
        return match.group(1) + "../" + match.group(2)

    text = re.sub(r'(["\'(])(' + re.escape(up) + r')(?!\.\./)', deeper, text)
    return re.sub(r'(data-jupyter-lite-root=")(' + re.escape(up.rstrip("/")) + r')"',
                  lambda m: f'{m.group(1)}../{m.group(2)}"', text)


def chinese_apps(out):
    """zh-CN/<app>/: JupyterLite's start pages and their settings, one folder deeper, each
    app's URL under zh-CN/ (JupyterLab's router keeps the learner in the Chinese site)."""
    dest = out / CHINESE_FOLDER
    for app in LITE_APPS:
        if not (out / app).is_dir():
            continue
        for page in (out / app).rglob("*"):
            # (not the apps' favicon.ico and package.json: the site's own serve)
            if not page.is_file() or page.name not in ("index.html", "jupyter-lite.json",
                                                       "jupyter-lite.ipynb"):
                continue
            target = dest / page.relative_to(out)
            target.parent.mkdir(parents=True, exist_ok=True)
            depth = len(page.relative_to(out).parts) - 1
            if page.suffix == ".html":
                target.write_text(one_folder_deeper(page.read_text(), depth))
            elif page.name == "jupyter-lite.json":
                config = json.loads(page.read_text())
                data = config.get("jupyter-config-data", {})
                for key, value in data.items():
                    if key == "appUrl":
                        data[key] = f"/{CHINESE_FOLDER}{value}"
                    elif key.endswith("Url") and isinstance(value, str) and \
                            value.startswith("../"):
                        data[key] = "../" + value
                target.write_text(json.dumps(config, indent=2, sort_keys=True))
            else:
                shutil.copy(page, target)


def chinese_config(out):
    """zh-CN/jupyter-lite.json: what the Chinese JupyterLab changes (above)."""
    site = json.loads((out / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = json.loads(json.dumps(site["litePluginSettings"][KERNEL_PLUGIN]))
    # (JupyterLite merges a plugin's settings one level deep: loadPyodideOptions whole)
    options = kernel.setdefault("loadPyodideOptions", {})
    options.setdefault("env", {})[SITE_VARIABLE] = CHINESE
    data = {"appName": site.get("appName", "JupyterLite") + "（中文版）",
            "courseLanguage": CHINESE, **CHINESE_STORAGE,
            "settingsOverrides": CHINESE_SETTINGS,
            "litePluginSettings": {KERNEL_PLUGIN: {"loadPyodideOptions": options}}}
    translations = out / "api" / "translations" / "zh_CN.json"
    if not translations.exists():
        raise BuildError("the site has no zh_CN language pack (api/translations/zh_CN.json): "
                         "jupyterlab-language-pack-zh-CN and jupyterlab_server must be in "
                         ".site-venv (course_tools/site/requirements.txt)")
    config = {"jupyter-lite-schema-version": 0, "jupyter-config-data": data}
    (out / CHINESE_FOLDER / "jupyter-lite.json").write_text(
        json.dumps(config, indent=2, sort_keys=True, ensure_ascii=False))
    # JupyterLite asks every folder for a jupyter-lite.ipynb too (a 404 on the console): none
    # of ours has settings in it
    (out / CHINESE_FOLDER / "jupyter-lite.ipynb").write_text(json.dumps(
        {"cells": [], "nbformat": 4, "nbformat_minor": 5, "metadata": {"jupyter-lite": {
            "jupyter-lite-schema-version": 0, "jupyter-config-data": {}}}}, indent=1))


def first_result_values(path=FIRST_RESULT):
    """The numbers first_result_sentence states (the last `make first-result`), for a first
    page that says them in its own words (course_tools/site/index.zh-CN.html: {course}, ...)."""
    record = json.loads(path.read_text())
    chromium = record["results"]["chromium"]
    loads = [value[0] for value in (record.get("load_average") or {}).values() if value]
    again = chromium["course/again"]["first_output"]
    if not loads or not again:
        raise BuildError(f"{path.relative_to(ROOT)} lacks the load average or the second "
                         "visit's time that the Chinese first page states")
    load = f"{min(loads):.0f}" + (f"-{max(loads):.0f}"
                                  if round(max(loads)) != round(min(loads)) else "")
    return {"course": f"{chromium['course/first']['first_output']:.0f}",
            "floor": f"{chromium['floor/first']['first_output']:.0f}",
            "again": f"{again:.0f}", "runs": str(record["runs"]),
            "cores": re.sub(r"\D", "", record["machine"].split(", ")[-1]),
            "load": load, "date": record["date"]}


def chinese_first_page(out, root=ROOT):
    """zh-CN/index.html (course_tools/site/index.zh-CN.html): the Chinese first page, its
    lessons and exercises (links into zh-CN/lab/), the measured wait (first_result_values).
    It carries an empty jupyter-config-data: JupyterLite reads one from every folder's
    index.html up to the site's root."""
    def links(folder):
        return "\n".join(
            f'<li><a href="lab/index.html?path={relative}">{html.escape(title(root / relative))}'
            "</a></li>"
            for relative in course_notebooks(root, (CHINESE,)) if relative.startswith(folder))
    page = (WEB / "index.zh-CN.html").read_text()
    values = {"lessons": links("notebooks/"), "exercises": links("exercises/"),
              **first_result_values()}
    for name, value in values.items():
        page = page.replace("{" + name + "}", value)
    left = re.findall(r"\{[a-z_]+\}", page)
    if left:
        raise BuildError(f"index.zh-CN.html: placeholders without a value: {left}")
    (out / CHINESE_FOLDER / "index.html").write_text(page)


def chinese_site(out, root=ROOT):
    """build/site/zh-CN/ (above), after `jupyter lite build` and the English first page."""
    chinese_apps(out)
    chinese_config(out)
    chinese_first_page(out, root)


# ------------------------------------------------------------------- the floor
# The floor of the time to the first result (issue 28; course_tools/site/first_result.py):
# what any JupyterLite site with the Pyodide kernel and numpy takes, built from the same pins
# as the course's site (JupyterLite, the Pyodide kernel, Pyodide and its checked files), with
# the same start-up the course's site has (the kernel's packages and numpy preloaded: a bare
# site without it only starts slower), and nothing of the course: no course wheel, no widgets,
# no Graphviz, no JupyterLab extension but the kernel's. One notebook, lesson 00's first two
# cells in numpy.
FLOOR_PACKAGES = [*KERNEL_PACKAGES, "numpy"]
FLOOR_WHEELS = ["comm"]  # the kernel's own (the 0.6.1 kernel's piplite has none to install)
FLOOR_PRELOAD = [name for name in KERNEL_PRELOAD if name in FLOOR_PACKAGES + FLOOR_WHEELS]
FLOOR_EXTENSIONS = ("@jupyterlite/pyodide-kernel-extension",)
FLOOR_NOTEBOOK = "notebooks/00_floor.ipynb"
FLOOR_CELLS = ["import numpy as np",
               "x = np.array([1.0, 2.0, 3.0])\ny = (x * x).sum()\ny"]


def floor_notebook():
    """The floor's notebook (nbformat 4, no outputs)."""
    cells = [{"cell_type": "code", "execution_count": None, "id": f"floor-{index}",
              "metadata": {}, "outputs": [], "source": source}
             for index, source in enumerate(FLOOR_CELLS)]
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"display_name": "Python (Pyodide)",
                                        "language": "python", "name": "python"}}}


def build_floor(env, inputs, cache, work, out):
    """build/floor-site/: a bare JupyterLite + Pyodide kernel + numpy site (above)."""
    lite = work / "floor-lite"
    shutil.rmtree(lite, ignore_errors=True)
    lite.mkdir(parents=True)
    count = lay_out_pyodide(env, inputs, cache, None, lite / "static" / "pyodide",
                            wanted=FLOOR_PACKAGES, pure_wheels=FLOOR_WHEELS)
    say(f"floor: pruned pyodide-lock.json: {count} packages")
    shutil.copy(WEB / "overrides.json", lite / "overrides.json")
    files = lite / "files"
    (files / FLOOR_NOTEBOOK).parent.mkdir(parents=True)
    (files / FLOOR_NOTEBOOK).write_text(json.dumps(floor_notebook(), indent=1))
    shutil.rmtree(out, ignore_errors=True)
    run(Path(sys.executable).parent / "jupyter", "lite", "build", "--lite-dir", lite,
        "--contents", files, "--output-dir", out, "--no-sourcemaps", cwd=lite)
    configure(out / "jupyter-lite.json", lite / "static" / "pyodide" / "pyodide-lock.json",
              FLOOR_PRELOAD)
    keep_only_course_extensions(out, FLOOR_EXTENSIONS)


def folder_size(path):
    files = [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "site")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "site-work",
                        help="downloads (kept between builds) and the staged lite folder")
    parser.add_argument("--cache", type=Path,
                        help="where the downloads are kept (default: WORK/cache)")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the course to build from: this repository, or a release's folder "
                        "(make release: no solutions, checkers without their reference answers)")
    parser.add_argument("--floor", action="store_true",
                        help="build the floor instead (build/floor-site/: JupyterLite, the "
                        "Pyodide kernel and numpy only; course_tools/site/first_result.py)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    started = time.monotonic()
    env = read_env(WEB / "site.env")
    venv_bin = Path(sys.executable).parent
    pip = [sys.executable, "-m", "pip"]
    cache = args.cache or args.work / "cache"
    lite = args.work / "lite"
    lite.mkdir(parents=True, exist_ok=True)
    inputs = download(env, cache, pip)
    if args.floor:
        out = args.out if args.out != ROOT / "build" / "site" else ROOT / "build" / "floor-site"
        build_floor(env, inputs, cache, args.work, out)
        size, count = folder_size(out)
        say(f"built the floor {out} in {time.monotonic() - started:.0f} s: "
            f"{size / 1e6:.1f} MB in {count} files")
        return 0
    wheel = course_wheel(pip, args.work / "wheel", root)
    count = lay_out_pyodide(env, inputs, cache, wheel, lite / "static" / "pyodide")
    say(f"pruned pyodide-lock.json: {count} packages")
    add_matplotlib_font_cache(lite / "static" / "pyodide")
    files = lay_out_lite(lite, root)
    say(f"{site_kernel.with_site_kernel_metadata(files)} notebooks given the Pyodide kernel's "
        "metadata (none turns changed on opening)")
    (lite / "jupyter_lite_config.json").write_text(json.dumps(lite_config(), indent=1))
    shutil.rmtree(args.out, ignore_errors=True)
    jupyter = venv_bin / "jupyter"
    run(jupyter, "lite", "build", "--lite-dir", lite, "--contents", files,
        "--output-dir", args.out, "--no-sourcemaps", cwd=lite)
    configure(args.out / "jupyter-lite.json", lite / "static" / "pyodide" / "pyodide-lock.json")
    removed = keep_only_course_extensions(args.out)
    if removed:
        say(f"left out JupyterLab extensions the site does not use: {', '.join(removed)}")
    first_page(args.out, root)
    if has_chinese_edition(root):
        chinese_site(args.out, root)
    versions = course_versions(root, course_files(root, LANGUAGES),
                               datetime.datetime.now(datetime.timezone.utc).date().isoformat())
    (args.out / COURSE_VERSIONS).write_text(json.dumps(versions, indent=1, sort_keys=True))
    say(f"read-only HTML: {read_only_html(args.out, args.work, root)} notebooks in "
        f"{args.out.name}/read/")
    if has_chinese_edition(root):
        say(f"read-only HTML, Chinese: {read_only_html(args.out, args.work, root, CHINESE)} "
            f"notebooks in {args.out.name}/read/zh-CN/")
    shutil.copy(lite / "static" / "pyodide" / "PROVENANCE.txt", args.out / "PROVENANCE.txt")
    size, count = folder_size(args.out)
    say(f"built {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out} "
        f"in {time.monotonic() - started:.0f} s: {size / 1e6:.1f} MB in {count} files")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BuildError, site_kernel.SiteKernelError, subprocess.CalledProcessError) as error:
        print(f"make site: error: {error}", file=sys.stderr)
        sys.exit(1)
