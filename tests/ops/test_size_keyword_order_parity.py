"""torch's parser checks a size list's first element, then the other arguments' types, and
unpacks the list's other elements last: ``y.expand((1, 'a'), implicit=r)`` names implicit,
``torch.zeros((1, 'a'), dtype=r)`` names dtype (fuzz 5275421: the engine named the size)."""
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _r(m):
    return m.max(m.ones(2, 2), 0)


CALLS = {
    "expand, implicit": lambda m: m.ones(1, 3).expand((1, "a"), implicit=_r(m)),
    "expand, first element wrong": lambda m: m.ones(1, 3).expand(("a", 1), implicit=_r(m)),
    "expand, varargs": lambda m: m.ones(1, 3).expand(1, "a", implicit=_r(m)),
    "expand, a float and an int": lambda m: m.ones(1, 3).expand([2, 3.5], implicit=2),
    "expand, size=": lambda m: m.ones(1, 3).expand(size=(1, "a"), implicit=_r(m)),
    "expand, fine": lambda m: m.ones(1, 3).expand((2, 3), implicit=True),
    "zeros, dtype": lambda m: m.zeros((1, "a"), dtype=_r(m)),
    "zeros, requires_grad": lambda m: m.zeros((1, "a"), requires_grad=_r(m)),
    "zeros, varargs": lambda m: m.zeros(1, "a", dtype=3),
    "ones, dtype": lambda m: m.ones((1, "a"), dtype=_r(m)),
    "empty, dtype": lambda m: m.empty((1, "a"), dtype=_r(m)),
    "empty, size=": lambda m: m.empty(size=(1, "a"), requires_grad=2),
    "full, dtype": lambda m: m.full((1, "a"), 2.0, dtype=_r(m)),
    "new_zeros, dtype": lambda m: m.ones(1).new_zeros((1, "a"), dtype=_r(m)),
    "new_zeros, requires_grad": lambda m: m.ones(1).new_zeros((1, "a"), requires_grad=_r(m)),
    "new_ones, dtype": lambda m: m.ones(1).new_ones((1, "a"), dtype=_r(m)),
    "new_empty, dtype": lambda m: m.ones(1).new_empty((1, "a"), dtype=_r(m)),
    "new_full, dtype": lambda m: m.ones(1).new_full((1, "a"), 2.0, dtype=_r(m)),
    "zeros, both fine": lambda m: m.zeros((1, 2), dtype=m.float64, requires_grad=True),
    "zeros, a float dtype": lambda m: m.zeros((1, 2.5), dtype=float),
}


def _outcome(m, call):
    try:
        result = call(m)
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return type(error).__name__, str(error)
    return "ok", tuple(result.shape), str(result.dtype), result.requires_grad


@pytest.mark.parametrize("name", list(CALLS))
def test_other_arguments_checked_before_the_sizes_other_elements(name):
    assert _outcome(engine, CALLS[name]) == _outcome(torch, CALLS[name])
