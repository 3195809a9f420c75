"""course_tools/site/build.py's guard: a Pyodide package file is served only if its sha256 is
the one in the official pyodide-lock.json; any mismatch or missing file stops the build. And
what goes into the site besides: the course's wheel, the notebooks and what they link to."""
import hashlib
import json
import subprocess
import sys
import zipfile

import pytest

from course_tools.site import build as build_site
from exercises.checks import old_names

GOOD = b"numpy, as Pyodide built it"


def lock(data=GOOD):
    return {"numpy": {"name": "numpy", "file_name": "numpy-2.0.2-wasm32.whl",
                      "sha256": hashlib.sha256(data).hexdigest(), "depends": []}}


def archive(tmp_path, files):
    path = tmp_path / "source.whl"
    with zipfile.ZipFile(path, "w") as zipped:
        for name, data in files.items():
            zipped.writestr(f"pkg/assets/pyodide/{name}", data)
    return path


def test_a_matching_file_is_copied(tmp_path):
    source = archive(tmp_path, {"numpy-2.0.2-wasm32.whl": GOOD})
    dest = tmp_path / "out"
    dest.mkdir()
    lines = build_site.take_checked_files(source, "src", lock(), ["numpy"], dest)
    assert (dest / "numpy-2.0.2-wasm32.whl").read_bytes() == GOOD
    assert hashlib.sha256(GOOD).hexdigest() in lines[0]


def test_a_file_that_differs_stops_the_build(tmp_path):
    source = archive(tmp_path, {"numpy-2.0.2-wasm32.whl": GOOD + b" and one byte more"})
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(build_site.BuildError, match="differs from the official"):
        build_site.take_checked_files(source, "src", lock(), ["numpy"], dest)
    assert not list(dest.iterdir())


def test_a_missing_file_stops_the_build(tmp_path):
    source = archive(tmp_path, {"other.whl": GOOD})
    with pytest.raises(build_site.BuildError, match="has no numpy-2.0.2-wasm32.whl"):
        build_site.take_checked_files(source, "src", lock(), ["numpy"], tmp_path)


def test_the_lock_closure_follows_dependencies():
    packages = {"a": {"name": "a", "depends": ["B"]}, "b": {"name": "B", "depends": []},
                "c": {"name": "c", "depends": []}}
    assert build_site.closure(packages, ["a"]) == ["a", "b"]
    with pytest.raises(build_site.BuildError, match="not in Pyodide's lock"):
        build_site.closure(packages, ["zzz"])


def built_config(tmp_path, lock_names):
    import json

    config = tmp_path / "jupyter-lite.json"
    config.write_text(json.dumps({"jupyter-config-data": {}}))
    lock_file = tmp_path / "pyodide-lock.json"
    lock_file.write_text(json.dumps({"packages": {name: {} for name in lock_names}}))
    return config, lock_file


def test_the_kernel_preloads_its_packages_from_the_site(tmp_path):
    import json

    config, lock_file = built_config(tmp_path, build_site.KERNEL_PRELOAD + ["matplotlib"])
    build_site.configure(config, lock_file)
    kernel = json.loads(config.read_text())["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["disablePyPIFallback"] is True
    assert kernel["loadPyodideOptions"]["packages"] == build_site.KERNEL_PRELOAD
    assert "matplotlib" not in build_site.KERNEL_PRELOAD  # on demand only


def test_a_preloaded_package_missing_from_the_lock_stops_the_build(tmp_path):
    config, lock_file = built_config(tmp_path, ["micropip"])
    with pytest.raises(build_site.BuildError, match="preload"):
        build_site.configure(config, lock_file)


def test_the_site_course_wheel_does_not_depend_on_matplotlib():
    """A lesson that never plots never downloads matplotlib (engine.widgets loads it on
    demand, tests/web/test_viz_in_browser.py)."""
    name, depends, imports = build_site.COURSE_WHEEL
    assert "matplotlib" not in depends and "numpy" in depends
    assert "matplotlib" in build_site.COURSE_PACKAGES  # on the site, loaded when asked for


def test_the_site_holds_the_notebooks_and_what_they_link_to(tmp_path):
    """As in a learner's workspace: notebooks/, exercises/, solutions/, and DIFFERENCES.md
    beside the lessons when the course has it (lesson 00 links to it)."""
    root = tmp_path / "course"
    for name in ("notebooks/00_welcome.ipynb", "exercises/01_x.ipynb", "solutions/01_x.ipynb",
                 "notebooks/AUTHORING.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("{}")
    lite = tmp_path / "lite"
    lite.mkdir()
    files = build_site.lay_out_lite(lite, root)
    assert sorted(str(p.relative_to(files)) for p in files.rglob("*.*")) == [
        "exercises/01_x.ipynb", "notebooks/00_welcome.ipynb", "solutions/01_x.ipynb"]
    (root / "notebooks" / "DIFFERENCES.md").write_text("# Differences from PyTorch\n")
    files = build_site.lay_out_lite(lite, root)
    assert (files / "notebooks" / "DIFFERENCES.md").read_text() == "# Differences from PyTorch\n"


@pytest.mark.slow
def test_the_course_wheel_holds_the_checkers_and_their_old_names(tmp_path):
    """The browser edition's kernel imports the course from this wheel: engine, and the
    exercises' one package with the old module names; not the course's tools. An old
    notebook's import works from the wheel alone."""
    wheel = build_site.course_wheel([sys.executable, "-m", "pip"], tmp_path / "wheel")
    with zipfile.ZipFile(wheel) as zipped:
        names = set(zipped.namelist())
        zipped.extractall(tmp_path / "site-packages")
    for needed in ["engine/__init__.py", "engine/core/tensor.py", "exercises/__init__.py",
                   "exercises/checks/__init__.py", "exercises/checks/old_names.py",
                   "exercises/checks/answer_cells.py", "exercises/checks/feedback.py",
                   "exercises/checks/toolkit.py",
                   *(module.replace(".", "/") + ".py"
                     for module in old_names.CHECKER_MODULES.values())]:
        assert needed in names, needed
    assert not [n for n in names if n.startswith("course_tools/") or n.endswith(".ipynb")]
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "import exercises\n"
            "from exercises.checks_04_copying import check_04_snapshot\n"
            "from exercises.checks_03_copying import check_03_snapshot\n"
            "print(exercises.__file__)\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "site-packages")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "earlier edition" in done.stdout
    assert done.stdout.strip().endswith(str(tmp_path / "site-packages" / "exercises" /
                                            "__init__.py"))


def built_site(tmp_path, names):
    """A built site's skeleton: jupyter-lite.json, the extensions' folders and their schemas."""
    out = tmp_path / "site"
    (out / "build" / "schemas").mkdir(parents=True)
    extensions = [{"name": name, "load": "static/remoteEntry.js"} for name in names]
    (out / "jupyter-lite.json").write_text(json.dumps(
        {"jupyter-config-data": {"appName": "x", "federated_extensions": extensions}}))
    (out / "build" / "schemas" / "all_federated.json").write_text(json.dumps(
        [{"id": f"{name}:plugin", "raw": "{}", "schema": {}} for name in names]))
    for name in names:
        (out / "extensions" / name / "static").mkdir(parents=True)
        (out / "extensions" / name / "package.json").write_text("{}")
    return out


def test_the_site_ships_only_the_course_extensions(tmp_path):
    """jupytext's extension (brought by mkdocs-jupyter into the build tools' venv) failed to
    load in the site's JupyterLab in every browser: it is left out, everywhere it was."""
    out = built_site(tmp_path, [*build_site.SITE_EXTENSIONS, "jupyterlab-jupytext"])
    assert build_site.keep_only_course_extensions(out) == ["jupyterlab-jupytext"]
    config = json.loads((out / "jupyter-lite.json").read_text())["jupyter-config-data"]
    assert [e["name"] for e in config["federated_extensions"]] == list(build_site.SITE_EXTENSIONS)
    schemas = json.loads((out / "build" / "schemas" / "all_federated.json").read_text())
    assert [s["id"] for s in schemas] == [f"{n}:plugin" for n in build_site.SITE_EXTENSIONS]
    assert sorted(p.name for p in (out / "extensions").iterdir()) == sorted(
        n.split("/")[0] for n in build_site.SITE_EXTENSIONS)
    assert config["appName"] == "x"


def test_a_site_without_a_course_extension_stops_the_build(tmp_path):
    out = built_site(tmp_path, ["@jupyter-widgets/jupyterlab-manager", "jupyterlab-jupytext"])
    with pytest.raises(build_site.BuildError, match="autograd-step-by-step"):
        build_site.keep_only_course_extensions(out)
