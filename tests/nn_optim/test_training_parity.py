"""A small training run gives the same loss curve as PyTorch, step by step.

Same seed, same data, same model: the engine's random numbers, initialisation,
forward, backward and optimiser steps all follow torch's, so the two loss curves
agree to float32 rounding for the whole run.
"""
import numpy as np
import pytest

import engine

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch


def train(m, steps, optimizer_name="SGD", task="regression"):
    """The loss at every step of a seeded run, using library ``m`` (torch or engine)."""
    m.manual_seed(0)
    inputs = m.randn(64, 3)
    if task == "regression":
        targets = inputs @ m.tensor([[1.5], [-2.0], [0.5]]) + 0.1 * m.randn(64, 1)
        loss_fn = m.nn.MSELoss()
    else:
        targets = (inputs.sum(1, keepdim=True) > 0).float()
        loss_fn = m.nn.BCEWithLogitsLoss()
    model = m.nn.Sequential(m.nn.Linear(3, 8), m.nn.ReLU(), m.nn.Linear(8, 1))
    if optimizer_name == "SGD":
        optimizer = m.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    else:
        optimizer = m.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return np.array(losses), [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("optimizer_name, task", [("SGD", "regression"),
                                                  ("Adam", "classification")])
def test_200_steps_follow_torchs_loss_curve(optimizer_name, task):
    expected, torch_params = train(torch, 200, optimizer_name, task)
    got, engine_params = train(engine, 200, optimizer_name, task)
    assert expected[-1] < expected[0] / 2  # the run really trains
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    for e, t in zip(engine_params, torch_params):
        np.testing.assert_allclose(e, t, rtol=1e-4, atol=1e-5)


def test_the_first_steps_agree_to_float32_rounding():
    expected, _ = train(torch, 5)
    got, _ = train(engine, 5)
    np.testing.assert_allclose(got, expected, rtol=2e-6)
