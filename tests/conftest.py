"""Shared test helpers.

torch is optional: it is the oracle that parity tests compare the engine with.
Without it (the learner's default install) those tests skip; `make oracle` installs it.
Use either the fixture::

    def test_add_matches_torch(torch_or_skip):
        torch = torch_or_skip
        ...

or the marker ``@pytest.mark.torch`` on tests that import torch themselves.
"""
import importlib.util
import sys

import pytest

TORCH_SKIP_REASON = "torch not installed: parity tests skipped"


def torch_available():
    return importlib.util.find_spec("torch") is not None


@pytest.fixture(scope="session")
def torch_or_skip():
    """The real ``torch`` module, or skip the test when it is not installed."""
    return pytest.importorskip("torch", reason=TORCH_SKIP_REASON)


def pytest_collection_modifyitems(config, items):
    if torch_available():
        return
    skip = pytest.mark.skip(reason=TORCH_SKIP_REASON)
    for item in items:
        if item.get_closest_marker("torch") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _restore_global_settings():
    """A test that changes the default dtype or print options must not leak them into the
    next test (in the engine, and in torch when a test has imported it)."""
    yield
    import engine

    engine.set_default_dtype(engine.float32)
    engine.set_printoptions(profile="default", sci_mode=None)
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "set_default_dtype"):
        torch.set_default_dtype(torch.float32)
        torch.set_printoptions(profile="default", sci_mode=None)


@pytest.fixture(autouse=True)
def _no_autograd_state_left_behind():
    """A test that leaves a forward-AD level open or grad mode switched fails itself, and the
    state is put back, rather than failing the tests that run after it (a level left open by
    the fuzzer's nested_forward family once failed 158 later tests of make test)."""
    yield
    left = _autograd_state_left_behind()
    if left:
        pytest.fail("the test left " + " and ".join(left) + " behind (now reset)")


def _autograd_state_left_behind():
    """What the engine (and torch, once imported) are left with that a test must not leave:
    each one reset."""
    from engine.core import forward  # (imported once; later a dictionary look-up)
    from engine.core.grad_mode import mode

    left = []
    if forward.state.levels:
        left.append(f"the engine's forward-AD levels {forward.state.levels}")
        while forward.state.levels:
            forward.exit_level(forward.state.level)
    if not mode.grad_enabled or mode.inference:
        left.append("the engine's grad mode off" if not mode.grad_enabled
                    else "the engine in inference mode")
        mode.set(True, inference=False)
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "is_grad_enabled"):
        return left
    forward_ad = sys.modules.get("torch.autograd.forward_ad")
    if forward_ad is not None and forward_ad._current_level >= 0:
        left.append("torch's forward-AD level open")
        forward_ad.exit_dual_level()
    if not torch.is_grad_enabled():
        left.append("torch's grad mode off")
        torch.set_grad_enabled(True)
    return left
