"""Print the engine's and torch's loss curves for the same seeded 200-step run.

    .venv/bin/python bench/training_curve.py

Uses the run defined in tests/nn_optim/test_training_parity.py (a 3-8-1 MLP on 64 seeded
points, MSE loss, SGD with momentum; and Adam on a classification variant).
"""
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import engine  # noqa: E402
from nn_optim.test_training_parity import train  # noqa: E402

try:
    import torch
except ImportError:
    sys.exit("torch is not installed: run `make oracle` first")

for optimizer_name, task in (("SGD", "regression"), ("Adam", "classification")):
    expected, _ = train(torch, 200, optimizer_name, task)
    got, _ = train(engine, 200, optimizer_name, task)
    print(f"\n{optimizer_name} on {task}: step | torch loss | engine loss | relative difference")
    for step in (0, 1, 2, 5, 10, 20, 50, 100, 150, 199):
        diff = abs(got[step] - expected[step]) / abs(expected[step])
        print(f"{step:4d} | {expected[step]:.8f} | {got[step]:.8f} | {diff:.1e}")
    print(f"max relative difference over 200 steps: "
          f"{np.max(np.abs(got - expected) / np.abs(expected)):.1e}")
