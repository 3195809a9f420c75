"""What a learner's terminal and notebooks show when a kernel starts (make lab, make test,
make execute, make compare-torch): the course's kernel configuration
(course_tools/kernel/ipython_kernel_config.json, copied into .venv/etc/ipython/ by the
Makefile) keeps the kernel's own start-up warning out of the terminal ("running over TCP
without encryption": the kernel and JupyterLab talk on 127.0.0.1, this machine), while what a
cell warns still reaches the notebook; matplotlib's font cache is built during setup."""
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "course_tools" / "kernel" / "ipython_kernel_config.json"
WARNING = "without encryption"


def _run_a_cell(tmp_path, profile_config):
    """Start a kernel (IPython's profile folder in tmp_path, with ``profile_config`` as its
    kernel configuration if given), run a cell that warns; its stderr and the cell's output."""
    from jupyter_client.manager import KernelManager

    ipython_dir = tmp_path / "ipython"
    (ipython_dir / "profile_default").mkdir(parents=True)
    if profile_config is not None:
        shutil.copy(profile_config, ipython_dir / "profile_default" /
                    "ipython_kernel_config.json")
    km = KernelManager(kernel_name="python3")
    outputs = []
    with open(tmp_path / "stderr.txt", "w") as stderr:
        km.start_kernel(stderr=stderr, stdout=stderr, env={
            **os.environ, "IPYTHONDIR": str(ipython_dir)})
        try:
            kc = km.client()
            kc.start_channels()
            kc.wait_for_ready(timeout=120)
            kc.execute_interactive("import warnings; warnings.warn('from a cell')", timeout=60,
                                   output_hook=lambda msg: outputs.append(msg["content"]))
            kc.stop_channels()
        finally:
            km.shutdown_kernel(now=True)
    return (tmp_path / "stderr.txt").read_text(), json.dumps(outputs)


@pytest.mark.slow
def test_the_kernel_keeps_its_tcp_warning_out_of_the_terminal_but_not_a_cells_warning(
        tmp_path):
    # the profile's configuration wins over .venv/etc/ipython's (which `make test` installs):
    # the kernel's default level, WARN, shows what the course's file is there to hide
    default = tmp_path / "warn.json"
    default.write_text(json.dumps({"IPKernelApp": {"log_level": "WARN"}}))
    default_stderr, default_outputs = _run_a_cell(tmp_path / "default", default)
    assert WARNING in default_stderr  # (what the configuration is for: still there without it)
    stderr, outputs = _run_a_cell(tmp_path / "course", CONFIG)
    assert WARNING not in stderr, stderr
    assert "from a cell" in outputs and "from a cell" in default_outputs


def test_the_makefile_installs_the_kernel_configuration_and_the_font_cache():
    makefile = (ROOT / "Makefile").read_text()
    assert "KERNEL_CONFIG := $(VENV)/etc/ipython/ipython_kernel_config.json" in makefile
    assert re.search(r"^\$\(KERNEL_CONFIG\): course_tools/kernel/ipython_kernel_config\.json",
                     makefile, re.M)
    for target in ("lab", "test", "test-browser", "execute", "compare-torch"):
        line = re.search(rf"^{target}:(.*)##", makefile, re.M).group(1)
        assert "$(KERNEL_CONFIG)" in line and "$(FONT_CACHE)" in line, target
    config = json.loads(CONFIG.read_text())
    assert list(config) == ["IPKernelApp"] and config["IPKernelApp"]["log_level"] == "ERROR"
    # besides, only filters of one torch warning each (what they hide: the test below)
    assert set(config["IPKernelApp"]) <= {"log_level", "exec_lines"}
    one_torch_warning = "__import__('warnings').filterwarnings('ignore', message=r'`torch"
    for line in config["IPKernelApp"].get("exec_lines", []):
        assert line.startswith(one_torch_warning), line


def test_ipython_reads_the_venvs_configuration_folder():
    """The folder the Makefile writes into is one IPython reads kernel configuration from."""
    from IPython.core.application import ENV_CONFIG_DIRS

    assert str(Path(sys.prefix) / "etc" / "ipython") in ENV_CONFIG_DIRS


def test_the_kernel_hides_only_torchs_jit_notice():
    """torch 2.15's first forward-mode call warns that ``torch.jit.script`` (which torch uses
    inside) is deprecated, and the engine says the same as torch: a notice about torch's own
    insides, which the course's kernel keeps out of lesson 13 (its first cell is
    ``import engine as torch`` alone). Nothing else is hidden: another FutureWarning, and the
    engine's own warnings, still show; and the set-up leaves no name in the notebook."""
    import warnings

    import engine
    from engine.autograd.forward_ad import JIT_SCRIPT_DEPRECATED

    lines = json.loads(CONFIG.read_text())["IPKernelApp"]["exec_lines"]
    namespace = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for line in lines:
            exec(line, namespace)  # noqa: S102 - what the kernel runs at start
        warnings.warn(JIT_SCRIPT_DEPRECATED, FutureWarning, stacklevel=1)
        warnings.warn("`torch.jit.trace` is deprecated, say", FutureWarning, stacklevel=1)
        engine.nn.functional.mse_loss(engine.ones(3), engine.ones(1))  # the engine's warning
    shown = [str(w.message) for w in caught]
    assert JIT_SCRIPT_DEPRECATED not in shown
    assert "`torch.jit.trace` is deprecated, say" in shown
    assert any("target size" in message for message in shown), shown
    assert set(namespace) == {"__builtins__"}
