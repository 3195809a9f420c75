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
