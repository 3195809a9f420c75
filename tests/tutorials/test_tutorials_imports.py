"""PyTorch's tutorials as a learner pastes them, import statements and all, run with PyTorch and
with the engine registered as ``torch`` (``sys.modules["torch"] = engine``, what
engine/_aliasing.py makes work): everything they print must be the same.

Each program in ``programs/`` is our code making the calls of one tutorial in its order, on
small made-up data. A program runs in a fresh interpreter for each library (the engine's run
must not see PyTorch's modules); printed memory addresses (``<... object at 0x...>``) are
the only text set aside.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import parity
from tests.tutorials.test_tutorials import _same_up_to_last_digits

pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch

PROGRAMS = Path(__file__).parent / "programs"
ROOT = Path(__file__).resolve().parents[2]
AS_ENGINE = parity.AS_TORCH
RUN = "import runpy, sys\nrunpy.run_path(sys.argv[1], run_name='__main__')\n"
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")


def _printed(program, prelude):
    environment = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    done = subprocess.run([sys.executable, "-c", prelude + RUN, str(program)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=environment)
    assert done.returncode == 0, done.stderr[-3000:]
    return ADDRESS.sub(" at 0x...>", done.stdout)


@pytest.mark.parametrize("program", sorted(p.name for p in PROGRAMS.glob("*.py")))
def test_the_tutorial_prints_as_with_torch(program):
    expected = _printed(PROGRAMS / program, "")
    got = _printed(PROGRAMS / program, AS_ENGINE)
    assert _same_up_to_last_digits(got, expected), (got, expected)
    assert expected.count("\n") >= 3  # the program printed something to compare


def _in_a_fresh_interpreter(code):
    done = subprocess.run([sys.executable, "-c", AS_ENGINE + code], cwd=ROOT, text=True,
                          capture_output=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


def test_import_statements_find_the_engines_modules():
    lines = _in_a_fresh_interpreter(
        "import torch, torch.nn as nn, torch.nn.functional as F, torch.autograd.forward_ad\n"
        "from torch.utils.data import DataLoader\n"
        "from torch.func import vmap\n"
        "from torch.optim.lr_scheduler import StepLR\n"
        "print(torch is engine, nn is engine.nn, F is engine.nn.functional)\n"
        "print(DataLoader is engine.utils.data.DataLoader, vmap is engine.func.vmap)\n"
        "print(StepLR is engine.optim.lr_scheduler.StepLR)\n"
        "print(torch.autograd.forward_ad is engine.autograd.forward_ad)\n"
        "print(F.relu(nn.Linear(2, 2)(torch.ones(2))).shape)\n"
        "print(engine.nn.__spec__.name, engine.nn.functional.__name__)\n"
        "print(sorted(n for n in sys.modules if n.startswith('torch.'))[:3])\n"
        "print(any(n.startswith('torch.core') for n in sys.modules))\n")
    assert lines == ["True True True", "True True", "True", "True", "torch.Size([2])",
                     "engine.nn engine.nn.functional",
                     "['torch.autograd', 'torch.autograd.forward_ad', 'torch.func']", "False"]


def test_a_module_the_engine_lacks_is_pythons_error():
    lines = _in_a_fresh_interpreter(
        "for name in ('torch.utils.tensorboard', 'torch.nosuch', 'torch.nn.nosuch'):\n"
        "    try:\n"
        "        __import__(name)\n"
        "    except ModuleNotFoundError as error:\n"
        "        print(error.name, '|', error)\n")
    assert lines == ["torch.utils.tensorboard | No module named 'torch.utils.tensorboard'",
                     "torch.nosuch | No module named 'torch.nosuch'",
                     "torch.nn.nosuch | No module named 'torch.nn.nosuch'"]


def test_with_pytorch_as_torch_the_finder_answers_nothing():
    import importlib

    import torch

    import engine
    from engine._aliasing import TorchNamesTheEngine
    assert sys.modules["torch"] is torch and engine is not torch
    assert TorchNamesTheEngine().find_spec("torch.nn") is None
    assert importlib.import_module("torch.nn.functional") is torch.nn.functional
