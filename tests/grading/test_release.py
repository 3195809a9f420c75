"""`make release`: the course without its solutions (course_tools/grade/release.py)."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from course_tools.grade import gradescope, release, sandbox
from grading import leaks

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    out = tmp_path_factory.mktemp("release")
    return release.release(out)


def test_no_solution_anywhere_in_the_release(released):
    folder, archive = released
    regions = leaks.solution_regions()
    assert len(regions) > 40  # the check reads the solutions it means to look for
    answers = "\n".join(leaks.cell_sources(p.read_text(encoding="utf-8"))
                        for p in sorted((ROOT / "solutions").glob("*.ipynb")))
    assert all(leaks.found(region, answers) for region in regions)  # (the search finds a leak)
    assert not leaks.found("with a:\n    b\nc", "with a:\n    b\n    c")  # (indents count)
    files = leaks.files_of(folder)
    with zipfile.ZipFile(archive) as zipped:
        zipped_files = {name.split("/", 1)[1]: zipped.read(name) for name in zipped.namelist()}
    assert zipped_files == files
    assert not [name for name in files if name.startswith(("solutions/", "tests/", "bench/"))]
    # A few answers are the very lines a lesson teaches (a training step): the lessons are
    # handed out in every case, so those are not leaks; every other region is looked for.
    taught = leaks.taught(regions)
    assert len(taught) <= 10, taught  # a handful of lines, not whole answers
    found, read = leaks.leaks(files, [region for region in regions if region not in taught])
    assert not found
    assert read >= len(files)


def test_the_leak_search_reads_every_kind_of_file():
    """A region is found in a notebook, in JSON's strings (JupyterLite's all.json), in an HTML
    page's highlighted code, in a JavaScript string and inside a zip inside a wheel; a stub
    that differs from it only in an indent is not."""
    region = "def f(x):\n    y = x * 2\n    return y"
    nb = {"cells": [{"cell_type": "code", "source": ["def f(x):\n", "    y = x * 2\n",
                                                      "    return y\n"]}]}
    contents = {"content": [{"name": "a.ipynb", "content": nb}]}
    page = ('<pre><span class="k">def</span> <span class="nf">f</span>(x):\n'
            '    y <span class="o">=</span> x <span class="o">*</span> 2\n'
            '    <span class="k">return</span> y</pre>')
    script = 'var s = "def f(x):\\n    y = x * 2\\n    return y\\n";'
    inner, outer = io.BytesIO(), io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zipped:
        zipped.writestr("pkg/a.py", "# a\n" + region + "\n")
    with zipfile.ZipFile(outer, "w") as zipped:
        zipped.writestr("pkg/data.zip", inner.getvalue())
    files = {"files/a.ipynb": json.dumps(nb).encode(), "api/contents/all.json":
             json.dumps(contents).encode(), "read/a/index.html": page.encode(),
             "build/x.js": script.encode(), "static/pyodide/course.whl": outer.getvalue(),
             "ok.ipynb": json.dumps({"cells": [{"source": region.replace("    y", "y")}]}).encode()}
    found, _ = leaks.leaks(files, [region])
    assert sorted(place.split(":")[0] for place in found) == [
        "api/contents/all.json (its strings)", "build/x.js (its string literals)",
        "files/a.ipynb (its strings)", "read/a/index.html (without tags)",
        "static/pyodide/course.whl!pkg/data.zip!pkg/a.py"]


def test_a_file_that_only_looks_like_a_zip_is_read_as_what_it_is():
    """zipfile.is_zipfile looks for an end record's signature anywhere near the end: bytecode
    in the course's wheel (the site compiles it) can hold one. Such a file is no archive; it
    is read like any other file, and the search goes on."""
    region = "def f(x):\n    y = x * 2\n    return y"
    fake = b"PK\x05\x06" + b"\xff" * 18  # an end record pointing before the file's start
    assert zipfile.is_zipfile(io.BytesIO(fake))
    outer = io.BytesIO()
    with zipfile.ZipFile(outer, "w") as zipped:
        zipped.writestr("pkg/__pycache__/a.cpython-312.pyc", b"\0bytecode" + fake)
        zipped.writestr("pkg/a.py", region + "\n")
    found, _ = leaks.leaks({"course.whl": outer.getvalue(),
                            "notes.txt": region.encode() + b"\n" + fake}, [region])
    assert sorted(place.split(":")[0] for place in found) == ["course.whl!pkg/a.py", "notes.txt"]


def test_the_learner_has_what_the_notebooks_need(released):
    folder, _ = released
    for needed in ("notebooks/04_copying.ipynb", "exercises/04_copying.ipynb",
                   "exercises/checks/copying.py", "engine/__init__.py", "Makefile",
                   "pyproject.toml", "course_tools/workspace.py"):
        assert (folder / needed).is_file(), needed
    assert not (folder / "course_tools" / "grade").exists()


def test_nbgrader_metadata_on_answer_and_check_cells(released):
    folder, _ = released
    nb = json.loads((folder / "exercises" / "04_copying.ipynb").read_text(encoding="utf-8"))
    meta = {c["id"]: c["metadata"].get("nbgrader") for c in nb["cells"]}
    assert meta["answer_04_snapshot"] == {"grade": False, "grade_id": "answer_04_snapshot",
                                          "locked": False, "schema_version": 3,
                                          "solution": True, "task": False}
    assert meta["check_04_snapshot"] == {"grade": True, "grade_id": "check_04_snapshot",
                                         "locked": True, "points": 1, "schema_version": 3,
                                         "solution": False, "task": False}
    assert sum(m is not None for m in meta.values()) == 12


def test_released_checkers_still_check(released):
    """The reference answers (``right=``) are left out of the released checkers; what the
    notebooks import still works."""
    folder, _ = released
    text = (folder / "exercises" / "checks" / "copying.py").read_text(encoding="utf-8")
    assert "right=" not in text and "@checker\ndef check_04_snapshot" in text
    source = (ROOT / "exercises" / "checks" / "copying.py").read_text(encoding="utf-8")
    assert "right=" in source  # the course keeps them, for its tests
    # imported as a learner's notebook imports it, in a fresh interpreter from the release
    # (in this one the course's own copy has already registered the same checker names)
    probe = subprocess.run(
        [sys.executable, "-c", "from exercises.checks.copying import check_04_snapshot; "
                               "print(check_04_snapshot(...).status)"],
        cwd=folder, env={**os.environ, "PYTHONPATH": str(folder)}, capture_output=True,
        text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert probe.stdout.split()[-1] == "not_done"


def test_solutions_on_request(tmp_path):
    folder, _ = release.release(tmp_path, solutions=True)
    nb = json.loads((folder / "solutions" / "04_copying.ipynb").read_text(encoding="utf-8"))
    meta = {c["id"]: c["metadata"].get("nbgrader") for c in nb["cells"]}
    assert meta["answer_04_snapshot"]["solution"] and meta["check_04_snapshot"]["locked"]
    assert "### BEGIN SOLUTION" in "".join(next(c["source"] for c in nb["cells"]
                                                if c["id"] == "answer_04_snapshot"))


@pytest.mark.slow
def test_gradescope_autograder_in_a_simulated_layout(tmp_path):
    """`make gradescope`'s zip, unpacked as Gradescope does (/autograder/source), and its
    run_autograder run on a submission (AUTOGRADER points at the simulated /autograder; the
    course's .venv stands in for the one setup.sh makes)."""
    archive = gradescope.build(tmp_path / "zip")
    autograder = tmp_path / "autograder"
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(autograder / "source")
        assert "run_autograder" in zipped.namelist() and "setup.sh" in zipped.namelist()
        assert not [n for n in zipped.namelist() if n.startswith("solutions/")]
    run = autograder / "source" / "run_autograder"
    run.chmod(0o755)
    (autograder / "submission").mkdir()
    (autograder / "submission" / "04_copying.ipynb").write_bytes(
        (ROOT / "solutions" / "04_copying.ipynb").read_bytes())
    env = {**os.environ, "AUTOGRADER": str(autograder),
           "PYTHON": str(ROOT / ".venv" / "bin" / "python")}
    subprocess.run([str(run)], env=env, check=True, capture_output=True, timeout=600)
    results = json.loads((autograder / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 6 and len(results["tests"]) == 6


@pytest.mark.slow
@pytest.mark.skipif(not sandbox.bwrap_works(), reason="bubblewrap (bwrap) is not installed")
def test_gradescope_autograder_at_gradescopes_own_paths(tmp_path):
    """As in Gradescope's container: the unpacked zip bound at /autograder (bubblewrap), no
    AUTOGRADER variable, nothing of this repository visible but the Python that setup.sh
    would have made (PYTHON); a submission of two notebooks, one worked and one untouched,
    the worked one in an exercises/ folder beside the lesson of the same name."""
    archive = gradescope.build(tmp_path / "zip")
    autograder = tmp_path / "autograder"
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(autograder / "source")
    (autograder / "source" / "run_autograder").chmod(0o755)
    (autograder / "submission").mkdir()
    for folder, name, where in (("notebooks", "04_copying.ipynb", "notebooks"),
                                ("solutions", "04_copying.ipynb", "exercises"),
                                ("exercises", "05_graphs_and_leaves.ipynb", ".")):
        (autograder / "submission" / where).mkdir(parents=True, exist_ok=True)
        (autograder / "submission" / where / name).write_bytes((ROOT / folder / name).read_bytes())
    system = [d for d in ("/usr", "/bin", "/lib", "/lib64", "/sbin", "/etc") if Path(d).exists()]
    binds = [arg for d in (*system, sys.base_prefix, sys.prefix) for arg in ("--ro-bind", d, d)]
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER"}
    done = subprocess.run(["bwrap", "--tmpfs", "/", "--proc", "/proc", "--dev", "/dev",
                           "--tmpfs", "/tmp", "--unshare-net", "--die-with-parent", *binds,
                           "--bind", str(autograder), "/autograder", "--chdir", "/",
                           "--setenv", "PYTHON", sys.executable,
                           "/autograder/source/run_autograder"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((autograder / "results" / "results.json").read_text(encoding="utf-8"))
    assert [t["score"] for t in results["tests"]] == [1] * 6 + [0] * 7, done.stdout
    assert results["score"] == 6 and results["max_score"] == 13
    assert all(t["name"][0] in "45" and t["output"] for t in results["tests"])


def test_the_release_site_is_built_from_the_released_folder(released, tmp_path):
    """`make release`'s browser edition is `make site`'s build run on the released folder
    (``--root``): its contents are the release's notebooks (no solutions/, unless released)
    and its wheel the released checkers. The build itself (minutes) is tested after
    `make release` by tests/web/test_release_site.py."""
    from course_tools.notebook_files import LANGUAGES, course_files
    from course_tools.site import build as build_site

    folder, _ = released
    contents = course_files(folder, LANGUAGES)  # both editions, as the site lays out
    assert "exercises/04_copying.ipynb" in contents and "notebooks/04_copying.ipynb" in contents
    assert not [name for name in contents if name.startswith("solutions/")]
    assert [name for name in course_files(ROOT) if name.startswith("solutions/")]
    lite = tmp_path / "lite"
    lite.mkdir()
    files = build_site.lay_out_lite(lite, folder)
    assert sorted(p.relative_to(files).as_posix() for p in files.rglob("*") if p.is_file()) \
        == sorted(contents)
    command = release.site_command(folder, tmp_path / "site")
    assert command[1:4] == ["-m", "course_tools.site.build", "--root"]
    assert Path(command[4]) == folder.resolve()
    with_solutions, _ = release.release(tmp_path / "with", solutions=True)
    assert "solutions/04_copying.ipynb" in course_files(with_solutions)


def test_a_one_line_answer_counts_as_a_whole_line_and_where_allowed_not_at_all():
    region = "snapshot = w.detach().clone()"
    files = {"a.py": b"x = 1\nsnapshot = w.detach().clone()\n",
             "b.py": b"my_snapshot = w.detach().clone()  # not the line\n",
             "c.py": b"    snapshot = w.detach().clone()\n"}
    found, _ = leaks.leaks(files, [region], allowed={})
    assert sorted(f.split(":")[0] for f in found) == ["a.py", "c.py"]
    found, _ = leaks.leaks(files, [region], allowed={region: "c.py"})
    assert [f.split(":")[0] for f in found] == ["a.py"]
