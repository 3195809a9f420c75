"""The browser edition's course-update notice (course_tools/labextension, part 5), outside a
browser: what the site's build records (course_tools/site/build.py course_versions: make
workspace's fingerprint of each notebook), the extension's rules run in node (when a copy is
of another version, the fresh copy's name, the catalog's words), and the catalog itself (every
message in both languages, with the same placeholders). The notice in the site:
tests/web/test_course_update_in_browser.py.

The node part is skipped, with the reason, where node is not installed.
"""
import json
import re

import pytest

from course_tools.notebook_files import ROOT, cells_digest, course_files
from course_tools.site import build as build_site

from .extension_rules import EXTENSION, NODE, STATIC, run_rules

CATALOG = STATIC / "messages.json"
needs_node = pytest.mark.skipif(NODE is None, reason="node not found: the extension's rules "
                                "are not run (apt-get install nodejs)")


def test_the_build_records_each_notebooks_version_as_make_workspace_does():
    names = course_files(ROOT)
    versions = build_site.course_versions(ROOT, names, "2026-11-29")
    notebooks = [name for name in names if name.endswith(".ipynb")]
    assert versions["date"] == "2026-11-29"
    assert sorted(versions["notebooks"]) == sorted(notebooks)
    for name in notebooks:
        assert versions["notebooks"][name] == cells_digest(json.loads((ROOT / name).read_text()))
    # outputs are not a version: a notebook run again is the same one
    lesson = json.loads((ROOT / notebooks[0]).read_text())
    for cell in lesson["cells"]:
        cell.pop("outputs", None)
    assert cells_digest(lesson) == versions["notebooks"][notebooks[0]]


@needs_node
def test_a_copy_of_another_version_is_told_and_no_other():
    versions = {"date": "2026-11-29", "notebooks": {"notebooks/05_g.ipynb": "new"}}
    path = "notebooks/05_g.ipynb"
    assert run_rules([
        ["updateState", [path, "old", versions]],
        ["updateState", [path, "new", versions]],
        ["updateState", [path, None, versions]],          # not marked: not known
        ["updateState", ["notebooks/mine.ipynb", "old", versions]],  # not the course's
        ["updateState", [path, "old", None]],             # a site without versions
    ]) == ["update", None, None, None, None]


@needs_node
def test_the_fresh_copy_goes_beside_under_a_new_name():
    assert run_rules([
        ["freshName", ["notebooks/05_graphs_and_leaves.ipynb", "2026-11-29", 1]],
        ["freshName", ["notebooks/05_graphs_and_leaves.ipynb", "2026-11-29", 2]],
        ["freshName", ["exercises/zh-CN/05_x.ipynb", "2026-12-01", 1]],
    ]) == ["notebooks/05_graphs_and_leaves (course update 2026-11-29).ipynb",
           "notebooks/05_graphs_and_leaves (course update 2026-11-29) 2.ipynb",
           "exercises/zh-CN/05_x (course update 2026-12-01).ipynb"]


@needs_node
def test_the_words_come_from_the_catalog_in_the_notebooks_language():
    catalog = json.loads(CATALOG.read_text())
    partial = {"en": catalog["en"], "zh-CN": {"update.close": catalog["zh-CN"]["update.close"]}}
    said = run_rules([
        ["languageOf", ["notebooks/05_g.ipynb"]],
        ["languageOf", ["notebooks/zh-CN/05_g.ipynb"]],
        ["say", [catalog, "en", "update.changed", {"date": "2026-11-29"}]],
        ["say", [catalog, "zh-CN", "update.made", {"name": "05 (course update 1).ipynb"}]],
        ["say", [partial, "zh-CN", "update.take", {}]],  # missing: the English words
    ])
    assert said[:2] == ["en", "zh-CN"]
    assert said[2] == catalog["en"]["update.changed"].replace("{date}", "2026-11-29")
    assert said[3] == catalog["zh-CN"]["update.made"].replace("{name}",
                                                              "05 (course update 1).ipynb")
    assert said[4] == catalog["en"]["update.take"]


@needs_node
def test_a_copy_only_marked_with_its_version_is_still_the_courses_own():
    """Download my work and Import my work compare a stored notebook with the site's: the mark
    alone is no change of the learner's."""
    course = {"cells": [], "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4}
    marked = {**course, "metadata": {**course["metadata"],
                                     "autograd_step_by_step": {"copied_from": "abc"}}}
    edited = {**marked, "cells": [{"cell_type": "markdown", "source": "mine"}]}
    assert run_rules([["same", [marked, course]], ["same", [edited, course]]]) == [True, False]


def test_every_message_is_in_both_languages_with_the_same_placeholders():
    catalog = json.loads(CATALOG.read_text())
    assert set(catalog) == {"en", "zh-CN"}
    assert set(catalog["en"]) == set(catalog["zh-CN"])
    for key, english in catalog["en"].items():
        chinese = catalog["zh-CN"][key]
        assert chinese.strip() and chinese != english, key
        assert sorted(re.findall(r"\{(\w+)\}", english)) == \
            sorted(re.findall(r"\{(\w+)\}", chinese)), key
    code = EXTENSION.read_text()
    # every key the extension names (a progress state's through STATE_KEYS)
    used = set(re.findall(r'"((?:update|work|progress)\.[\w.]+)"', code))
    assert used == set(catalog["en"]), used ^ set(catalog["en"])


def test_the_progress_dialog_says_what_make_progress_says():
    """The site's "My progress" words are make progress's (course_tools/workspace.py and its
    translations in exercises/checks/locale), in both languages: the same learner reads both."""
    from course_tools import workspace
    from exercises.checks.i18n import translate

    catalog = json.loads(CATALOG.read_text())
    english = {
        "progress.state.done": workspace.DONE,
        "progress.state.not_quite": workspace.NOT_QUITE,
        "progress.state.unchecked": workspace.UNCHECKED,
        "progress.state.not_started": workspace.NOT_STARTED,
        "progress.total": "Total: {done} done, {not_quite} not quite, {not_started} not "
                          "started, of {total} exercises.",
        "progress.total_unchecked": "Total: {done} done, {not_quite} not quite, {unchecked} "
                                    "answered but not checked, {not_started} not started, of "
                                    "{total} exercises.",
        "progress.saved_outputs": "(Read from the check cells' saved outputs: save the "
                                  "notebook to update it.)",
    }
    for key, message in english.items():
        assert catalog["en"][key] == message, key
        assert catalog["zh-CN"][key] == translate(message, "zh-CN"), key
        assert translate(message, "zh-CN") != message, key  # the catalog has it translated


def test_the_sites_kernel_starts_with_the_local_kernels_warning_filters(tmp_path):
    """Lesson 13's first forward-mode call warns as torch does (torch.jit.script); the local
    kernel hides that notice with an exec_lines filter (course_tools/kernel), and the site's
    Pyodide kernel gets the same filter through PYTHONWARNINGS as Python starts."""
    import warnings

    from engine.autograd.forward_ad import JIT_SCRIPT_DEPRECATED

    assert build_site.kernel_warning_filters() == \
        "ignore:`torch.jit.script` is deprecated:FutureWarning"
    config, lock_file = tmp_path / "jupyter-lite.json", tmp_path / "pyodide-lock.json"
    config.write_text(json.dumps({"jupyter-config-data": {}}))
    lock_file.write_text(json.dumps({"packages": {n: {} for n in build_site.KERNEL_PRELOAD}}))
    build_site.configure(config, lock_file)
    options = json.loads(config.read_text())["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]["loadPyodideOptions"]
    value = options["env"]["PYTHONWARNINGS"]
    # what Python does with it at start (warnings._processoptions), here
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        warnings.simplefilter("always")
        warnings._processoptions(value.split(","))
        warnings.warn(JIT_SCRIPT_DEPRECATED, FutureWarning, stacklevel=1)
        warnings.warn("`torch.jit.trace` is deprecated, say", FutureWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["`torch.jit.trace` is deprecated, say"]


@pytest.mark.parametrize("line", [
    "__import__('warnings').filterwarnings('ignore', message=r'a.*b', category=FutureWarning)",
    "__import__('warnings').filterwarnings('ignore', message=r'a: b', category=FutureWarning)",
    "__import__('warnings').filterwarnings('ignore', message=r'a', category=FutureWarning, "
    "module='x')",
    "print('hello')",
])
def test_a_start_up_line_the_site_cannot_say_stops_the_build(tmp_path, line):
    config = tmp_path / "ipython_kernel_config.json"
    config.write_text(json.dumps({"IPKernelApp": {"exec_lines": [line]}}))
    with pytest.raises(build_site.BuildError):
        build_site.kernel_warning_filters(config)


def test_the_site_ships_the_course_extension_of_this_checkout(tmp_path):
    """`jupyter lite build` is given each extension's folder, the course's from this checkout,
    and takes none from the build tools' venv unasked (that venv may be shared, and its copy
    of the course's extension older)."""
    installed = tmp_path / "share" / "jupyter" / "labextensions"
    for name in build_site.SITE_EXTENSIONS:
        (installed / name).mkdir(parents=True)
        (installed / name / "package.json").write_text("{}")
    config = build_site.lite_config(tmp_path)["LiteBuildConfig"]
    assert config["ignore_sys_prefix"] == ["federated_extensions"]
    folders = config["federated_extensions"]
    assert str(build_site.LABEXTENSION) in folders
    assert str(installed / "autograd-step-by-step") not in folders
    assert len(folders) == len(build_site.SITE_EXTENSIONS)
    (installed / "jupyterlab_pygments" / "package.json").unlink()
    with pytest.raises(build_site.BuildError, match="jupyterlab_pygments"):
        build_site.lite_config(tmp_path)
