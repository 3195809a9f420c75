"""Committed notebooks carry the metadata JupyterLab writes when it opens them, so a notebook a
learner only opens and reads is not marked changed (the tab's ●) and closing it asks nothing.

JupyterLab sets two keys on open: ``kernelspec`` from the kernel's installed spec (ipykernel's
says "Python 3 (ipykernel)") and ``language_info`` from the kernel's answer to kernel_info.
(The browser test opens every notebook and checks that no dirty mark appears.)
"""
import json
from pathlib import Path

import pytest
from jupyter_client.kernelspec import KernelSpecManager

from course_tools.execute import KERNELSPEC

ROOT = Path(__file__).resolve().parents[2]
# Both editions: a Chinese notebook (notebooks/zh-CN/, ...) is opened in JupyterLab the same way.
NOTEBOOKS = sorted(p.relative_to(ROOT) for folder in ("notebooks", "solutions", "exercises")
                   for where in (folder, f"{folder}/zh-CN")
                   for p in (ROOT / where).glob("[0-9]*.ipynb"))


def test_the_course_kernelspec_is_the_installed_one():
    spec = KernelSpecManager().get_kernel_spec(KERNELSPEC["name"])
    assert KERNELSPEC == {"name": KERNELSPEC["name"], "display_name": spec.display_name,
                          "language": spec.language}


def kernel_language_info():
    """What ipykernel answers to kernel_info (JupyterLab stores it as language_info)."""
    from ipykernel.ipkernel import IPythonKernel
    return json.loads(json.dumps(IPythonKernel.language_info))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 30


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=str)
def test_a_notebook_carries_what_jupyterlab_writes_on_open(notebook):
    metadata = json.loads((ROOT / notebook).read_text())["metadata"]
    assert metadata["kernelspec"] == KERNELSPEC
    info = kernel_language_info()
    # The version is the Python the notebooks were executed with (the course's .venv, as in
    # CI); a learner's JupyterLab on another Python writes its own (and marks the notebook
    # changed): the same version in every notebook, the rest exactly the kernel's.
    assert {k: v for k, v in metadata["language_info"].items() if k != "version"} == \
        {k: v for k, v in info.items() if k != "version"}
    assert metadata["language_info"]["version"] == COMMON_VERSION


def versions():
    return {json.loads((ROOT / nb).read_text())["metadata"]["language_info"]["version"]
            for nb in NOTEBOOKS}


COMMON_VERSION = sorted(versions())[0]


def test_every_notebook_was_executed_with_one_python():
    assert len(versions()) == 1, versions()
