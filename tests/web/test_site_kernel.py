"""course_tools/site/site_kernel.py: matplotlib's font cache in the site's lock, and the site's
notebooks carrying the Pyodide kernel's metadata (their effect in a browser is checked in
tests/web/test_lesson_13_in_site.py and test_site_notebooks_stay_unchanged.py)."""
import json
import zipfile

import pytest

from course_tools.site import build as build_site
from course_tools.site import site_kernel

MATPLOTLIB = {"name": "matplotlib", "version": "3.8.4", "file_name": "matplotlib-3.8.4-wasm.whl",
              "imports": ["pylab", "mpl_toolkits", "matplotlib"], "depends": ["numpy"],
              "sha256": "a" * 64}


def packages():
    return {"matplotlib": dict(MATPLOTLIB),
            "numpy": {"name": "numpy", "imports": ["numpy"], "depends": []},
            "seaborn-like": {"name": "seaborn-like", "imports": ["sl"],
                             "depends": ["matplotlib"]}}


def cache_entry(tmp_path):
    wheel = site_kernel.font_cache_wheel(b'{"_version": 330}', "3.8.4", tmp_path)
    return wheel, build_site.lock_entry(site_kernel.FONT_CACHE_DIST, wheel, [], [])


def test_the_font_cache_wheel_holds_the_cache_and_a_record_of_it(tmp_path):
    wheel, _ = cache_entry(tmp_path)
    assert wheel.name == f"{site_kernel.FONT_CACHE_DIST}-3.8.4-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        assert archive.testzip() is None
        names = archive.namelist()
        assert archive.read("matplotlib/fontlist.json") == b'{"_version": 330}'
        record = archive.read(f"{site_kernel.FONT_CACHE_DIST}-3.8.4.dist-info/RECORD").decode()
    assert [n for n in names if not n.startswith(f"{site_kernel.FONT_CACHE_DIST}-3.8.4.dist-info/")
            ] == ["matplotlib/fontlist.json"]
    assert "matplotlib/fontlist.json,sha256=" in record
    assert build_site.wheel_version(wheel) == "3.8.4"


def test_whatever_asks_for_matplotlib_gets_the_cache_installed_after_it(tmp_path):
    """By package name (engine.viz's loadPackage, another package's depends) or by import
    name (a cell's import): the cache's entry, which depends on matplotlib's own, so Pyodide
    installs matplotlib's wheel first and the cache over its stale file."""
    wheel, entry = cache_entry(tmp_path)
    locked = site_kernel.lock_with_font_cache(packages(), entry)
    mine, official = locked["matplotlib"], locked[site_kernel.OFFICIAL_MATPLOTLIB]
    assert mine["file_name"] == wheel.name and mine["name"] == "matplotlib"
    assert mine["imports"] == MATPLOTLIB["imports"]
    assert mine["depends"] == [site_kernel.OFFICIAL_MATPLOTLIB]
    # matplotlib's own file, as checked against the official lock, under its new name only
    assert official == {**MATPLOTLIB, "name": site_kernel.OFFICIAL_MATPLOTLIB, "imports": []}
    owners = [name for name, e in locked.items() if "matplotlib" in e["imports"]]
    assert owners == ["matplotlib"]
    assert build_site.closure(locked, ["seaborn-like"]) == [
        "matplotlib", site_kernel.OFFICIAL_MATPLOTLIB, "numpy", "seaborn-like"]
    with pytest.raises(site_kernel.SiteKernelError, match="no matplotlib"):
        site_kernel.lock_with_font_cache({"numpy": packages()["numpy"]}, entry)


def test_the_site_notebooks_carry_the_pyodide_kernels_metadata(tmp_path):
    committed = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {},
                            "source": ["# Été ✅"]}],
                 "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)",
                                             "language": "python", "name": "python3"},
                              "language_info": {"name": "python", "version": "3.11.7"},
                              "autograd": {"kept": True}},
                 "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "notebooks").mkdir()
    path = tmp_path / "notebooks" / "00_x.ipynb"
    path.write_text(json.dumps(committed))
    (tmp_path / "notes.md").write_text("not a notebook")
    assert site_kernel.with_site_kernel_metadata(tmp_path) == 1
    written = json.loads(path.read_text())
    assert written["metadata"] == {"kernelspec": site_kernel.SITE_KERNELSPEC,
                                   "language_info": site_kernel.SITE_LANGUAGE_INFO,
                                   "autograd": {"kept": True}}
    assert written["cells"] == committed["cells"]
    assert path.read_text() == json.dumps(written, indent=1, sort_keys=True,
                                          ensure_ascii=False) + "\n"
    assert site_kernel.with_site_kernel_metadata(tmp_path) == 0  # already so: left alone
