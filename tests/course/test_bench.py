"""bench/run.py compares like with like: its numpy-by-hand MLP step is the same maths as the
engine's (and torch's) nn.Linear + cross_entropy + SGD step. No timings here (see bench/)."""
import importlib.util
import os
import pathlib

import numpy as np
import pytest

import engine

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "run.py"


@pytest.fixture(scope="module")
def bench():
    """bench/run.py as a module, without leaking what it sets for itself (BLAS threads in
    the environment, torch's thread count) into the other tests."""
    environment = dict(os.environ)
    try:
        import torch
        threads = torch.get_num_threads()
    except ModuleNotFoundError:
        torch = None
    spec = importlib.util.spec_from_file_location("bench_run", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    os.environ.clear()
    os.environ.update(environment)
    if torch is not None:
        torch.set_num_threads(threads)
    return module


def _after_steps(step, params, steps=2):
    losses = [step().item() for _ in range(steps)]
    return losses, [np.array(p, copy=True) for p in params]


@pytest.mark.parametrize("rounded_once", [False, True])
def test_numpy_by_hand_is_the_same_step_as_the_engines(bench, rounded_once):
    x, y, params = bench.mlp_data()
    numpy_losses, numpy_params = _after_steps(
        bench.mlp_step_numpy(x, y, params, rounded_once=rounded_once), params)
    step, model = bench.mlp_step_module(engine, *bench.mlp_data())
    engine_losses, _ = _after_steps(step, [])
    engine_params = [p.detach().numpy() for p in model.parameters()]
    np.testing.assert_allclose(engine_losses, numpy_losses, rtol=1e-5)
    for mine, by_hand in zip(engine_params, numpy_params):
        assert mine.dtype == by_hand.dtype == np.float32 and mine.shape == by_hand.shape
        np.testing.assert_allclose(mine, by_hand, rtol=1e-5, atol=1e-6)


@pytest.mark.torch
def test_the_engines_step_is_torchs_step(bench):
    import torch

    step, model = bench.mlp_step_module(engine, *bench.mlp_data())
    torch_step, torch_model = bench.mlp_step_module(torch, *bench.mlp_data())
    engine_losses, _ = _after_steps(step, [])
    torch_losses, _ = _after_steps(torch_step, [])
    np.testing.assert_allclose(engine_losses, torch_losses, rtol=1e-5)
    for mine, theirs in zip(model.parameters(), torch_model.parameters()):
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_the_benchmarks_graphs_have_the_sizes_they_claim(bench):
    from engine.viz import draw_graph

    for make in (bench.graph_own_leaves, bench.graph_shared_leaf, bench.graph_product_loop):
        source = draw_graph(make(500)).source
        boxes = {line.split()[0] for line in source.splitlines()
                 if "[" in line and "->" not in line and line.strip()[0].isalnum()}
        assert 450 <= len(boxes) <= 560, len(boxes)


def test_the_step_in_phases_runs_the_same_step(bench):
    phases = bench.mlp_phases(engine, *bench.mlp_data(), steps=2, repeat=1)
    assert list(phases) == ["forward", "backward", "update"]
    assert all(seconds > 0 for seconds in phases.values())


@pytest.mark.parametrize("library", ["engine", pytest.param("torch", marks=pytest.mark.torch)])
def test_the_hooked_step_is_the_plain_step_with_a_hook_per_layer(bench, library):
    tm = engine if library == "engine" else pytest.importorskip("torch")
    plain, _, _ = bench.mlp_steps_with_and_without_hooks(tm, *bench.mlp_data())
    _, hooked, calls = bench.mlp_steps_with_and_without_hooks(tm, *bench.mlp_data())
    plain_losses = [plain().item() for _ in range(2)]
    hooked_losses = [hooked().item() for _ in range(2)]
    assert plain_losses == hooked_losses  # (the hooks return the gradient unchanged)
    assert len(calls) == 2 * 3  # a hook on each of the three layers' outputs, every step
    step_losses, _ = _after_steps(bench.mlp_step_module(tm, *bench.mlp_data())[0], [])
    assert step_losses == plain_losses  # layer by layer: the benchmark's step
