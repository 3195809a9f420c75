"""The time to the first result (issue 28, course_tools/site/first_result.py): the floor it is
measured against is built from the course site's own pins and holds nothing of the course; what
the command measures up to; what the site's first page says from the last measurement."""
import hashlib
import json
from pathlib import Path

import pytest

from course_tools.site import build, first_result

ROOT = Path(__file__).resolve().parents[2]
SITE, FLOOR = first_result.SITES["course"], first_result.SITES["floor"]


def test_the_floor_has_the_kernel_and_numpy_and_nothing_of_the_course():
    assert "numpy" in build.FLOOR_PACKAGES and "matplotlib" not in build.FLOOR_PACKAGES
    assert set(build.FLOOR_PRELOAD) <= set(build.KERNEL_PRELOAD)
    assert build.COURSE_WHEEL[0] not in build.FLOOR_PRELOAD
    # the site starts with everything the floor starts with: the same start-up, plus the course
    assert set(build.KERNEL_PRELOAD) - set(build.FLOOR_PRELOAD) == {build.COURSE_WHEEL[0]}
    assert build.FLOOR_EXTENSIONS == ("@jupyterlite/pyodide-kernel-extension",)
    cells = build.floor_notebook()["cells"]
    assert [c["source"] for c in cells] == build.FLOOR_CELLS
    assert "import numpy" in cells[0]["source"]


def test_what_is_run_until_the_first_output():
    lesson = json.loads((ROOT / first_result.NOTEBOOKS["course"]).read_text())
    cells = first_result.cells_to_first_output(lesson)
    code = [c for c in lesson["cells"] if c["cell_type"] == "code"]
    # lesson 00: `import engine as torch` (no output), then the first tensor shown
    assert [lesson["cells"][i] for i in cells] == code[:len(cells)]
    assert not any(lesson["cells"][i]["outputs"] for i in cells[:-1])
    assert lesson["cells"][cells[-1]]["outputs"]
    assert "import engine" in "".join(lesson["cells"][cells[0]]["source"])
    floor = build.floor_notebook()
    assert first_result.cells_to_first_output(floor) == [0, 1]


def test_the_summary_takes_medians_of_the_runs_that_worked():
    runs = [{"shown": 3.0, "kernel": 12.0, "first_output": 14.0},
            {"shown": 4.0, "kernel": 14.0, "first_output": 18.0},
            {"shown": 2.0, "kernel": 10.0, "first_output": 11.0},
            {"problem": "TimeoutError"}]
    row = first_result.summarise({"course/first": runs})["course/first"]
    assert row["runs"] == 3 and row["problems"] == ["TimeoutError"]
    assert (row["shown"], row["kernel"], row["first_output"]) == (3.0, 12.0, 14.0)
    assert row["first_output_range"] == [11.0, 18.0]


def record(course=20.4, floor=17.0, again=9.6):
    return {"runs": 5, "date": "2026-11-29", "machine": "x86_64, 2 cores",
            "results": {"chromium": {"course/first": {"first_output": course},
                                     "floor/first": {"first_output": floor},
                                     "course/again": {"first_output": again}}}}


def test_the_first_page_states_the_measured_time(tmp_path):
    path = tmp_path / "first_result.json"
    path.write_text(json.dumps(record()))
    sentence = build.first_result_sentence(path)
    assert "first result 20 s after it was opened" in sentence
    assert "numpy alone took 17 s" in sentence and "2 cores" in sentence
    assert "10 s when opened again" in sentence
    saved = {**record(), "load_average": {"before": [16.2, 18, 17], "after": [18.9, 18, 17]}}
    path.write_text(json.dumps(saved))
    assert "2 cores under a load average of 16-19" in build.first_result_sentence(path)
    assert "few seconds" not in sentence
    assert "{first_result}" in (build.WEB / "index.html").read_text()
    assert "takes a few seconds" not in (build.WEB / "index.html").read_text()
    assert "Firefox" not in sentence and "WebKit" not in sentence  # timed in Chromium only
    saved["results"]["firefox"] = {"course/first": {"first_output": 6.8}}
    saved["results"]["webkit"] = {"course/first": {"first_output": 18.4}}
    path.write_text(json.dumps(saved))
    assert build.first_result_sentence(path).endswith(
        "; in the same run, Firefox ESR 7 s and WebKit (Safari's engine) 18 s.")


def test_the_last_measurement_is_committed_and_complete():
    saved = json.loads(first_result.RESULTS.read_text())
    chromium = saved["results"]["chromium"]
    for key in ("course/first", "floor/first"):
        assert chromium[key]["runs"] >= 3, key
        assert chromium[key]["first_output"] > chromium[key]["kernel"] > 0, key
    assert chromium["ratio"] == round(chromium["course/first"]["first_output"]
                                      / chromium["floor/first"]["first_output"], 2)
    assert saved["versions"] == first_result.site_versions(), \
        "the site's pins changed since the last `make first-result`"
    build.first_result_sentence()  # the first page can say it


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.skipif(not (SITE / "jupyter-lite.json").exists()
                    or not (FLOOR / "jupyter-lite.json").exists(),
                    reason="build/site/ or build/floor-site/ not built (`make site floor-site`)")
def test_the_built_floor_has_the_site_pins_and_nothing_of_the_course():
    def config(site):
        return json.loads((site / "jupyter-lite.json").read_text())["jupyter-config-data"]

    site, floor = config(SITE), config(FLOOR)
    assert [e["name"] for e in floor["federated_extensions"]] == list(build.FLOOR_EXTENSIONS)
    kernel = "@jupyterlite/pyodide-kernel-extension"
    versions = {name: {e["name"]: e.get("version") for e in c["federated_extensions"]}[kernel]
                for name, c in (("site", site), ("floor", floor))}
    assert versions["site"] == versions["floor"]
    settings = floor["litePluginSettings"][f"{kernel}:kernel"]
    assert settings["loadPyodideOptions"]["packages"] == build.FLOOR_PRELOAD
    assert settings["disablePyPIFallback"] is True
    for name in ("pyodide.asm.wasm", "pyodide.js", "python_stdlib.zip"):
        assert digest(SITE / "static/pyodide" / name) == digest(FLOOR / "static/pyodide" / name)
    site_lock = json.loads((SITE / "static/pyodide/pyodide-lock.json").read_text())["packages"]
    floor_lock = json.loads((FLOOR / "static/pyodide/pyodide-lock.json").read_text())["packages"]
    assert set(floor_lock) < set(site_lock)
    assert {name: site_lock[name]["sha256"] for name in floor_lock} == \
        {name: entry["sha256"] for name, entry in floor_lock.items()}
    assert not {build.COURSE_WHEEL[0], "ipywidgets", "graphviz", "matplotlib"} & set(floor_lock)
    assert (FLOOR / "files" / build.FLOOR_NOTEBOOK).exists()


def test_the_compile_script_adds_unchecked_pycs_that_python_uses(tmp_path, monkeypatch):
    """build.COMPILE_PY (which the build runs inside Pyodide) run here on a small wheel: a
    pyc beside each module, in RECORD, used as it is (the source changed after it: the
    pyc's value is what imports)."""
    import subprocess
    import sys
    import zipfile

    wheel = tmp_path / "in.whl"
    with zipfile.ZipFile(wheel, "w") as zipped:
        zipped.writestr("small/__init__.py", "VALUE = 1\n")
        zipped.writestr("small-0.1.dist-info/RECORD", "")
    script = build.COMPILE_PY.replace("/tmp/in.whl", str(wheel)).replace(
        "/tmp/out.whl", str(tmp_path / "out.whl"))
    subprocess.run([sys.executable, "-c", script], check=True)
    with zipfile.ZipFile(tmp_path / "out.whl") as zipped:
        zipped.extractall(tmp_path / "site")
        record = zipped.read("small-0.1.dist-info/RECORD").decode()
    tag = sys.implementation.cache_tag
    assert f"small/__pycache__/__init__.{tag}.pyc,sha256=" in record
    (tmp_path / "site" / "small" / "__init__.py").write_text("VALUE = 2\n")
    shown = subprocess.run([sys.executable, "-c", "import small; print(small.VALUE)"],
                           cwd=tmp_path / "site", capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "1"


@pytest.mark.skipif(not (SITE / "jupyter-lite.json").exists(),
                    reason="build/site/ not built (`make site`)")
def test_the_site_course_wheel_holds_bytecode_for_every_module():
    import zipfile

    (wheel,) = (SITE / "static" / "pyodide").glob("autograd_step_by_step-*.whl")
    with zipfile.ZipFile(wheel) as zipped:
        names = set(zipped.namelist())
        modules = [n for n in names if n.endswith(".py")]
        for module in modules:
            folder, _, name = module.rpartition("/")
            pyc = f"{folder}/__pycache__/{name[:-3]}.cpython-312.pyc"
            assert pyc in names, module
        data = zipped.read(pyc)
    # PEP 552: flags 0b01, a hash-based pyc that is not checked against its source
    assert int.from_bytes(data[4:8], "little") == 0b01
    assert len(modules) > 100


@pytest.mark.skipif(not (SITE / "jupyter-lite.json").exists(),
                    reason="build/site/ not built (`make site`)")
def test_the_built_first_page_states_the_last_measurement():
    import html

    page = (SITE / "index.html").read_text()
    assert "{first_result}" not in page
    assert html.escape(build.first_result_sentence()) in page
