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
