"""Fuzz 1000000:1020000's new mismatches, each a class, against torch 2.15.

- 1002008: the gradient of a legacy empty 1-D input that cat skipped is empty (shape [0]),
  not a slice of the other inputs' shape.
- 1005322: index_fill_ checks its value's dimensions and its index's dtype before it warns
  about an expanded tensor (the rest after), as torch.
- 1011412: cross of inf/nan: no numpy RuntimeWarning where torch is silent.
"""
import warnings

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


@pytest.mark.parametrize("others, dim", [((0, 1, 2), 1), ((2, 3), 0), ((2, 3), 1),
                                         ((0,), 0), ((3,), 0)])
def test_cat_skips_a_legacy_empty_input_and_gives_it_an_empty_gradient(others, dim):
    def call(m, x, y):
        joined = m.cat([x, y, x], dim=dim)
        joined.sum().backward()
        return joined, x.grad, y.grad

    parity.run_both(call, parity.make_tensor((0,), "float32").requires_grad_(),
                    parity.make_tensor(others, "float32").requires_grad_())


def _warnings_of(m, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call(m)
            outcome = "ok"
        except Exception as error:  # noqa: BLE001 - the error is part of the answer
            outcome = f"{type(error).__name__}: {error}"
    return outcome, [str(w.message).split(" (Triggered")[0] for w in caught]


@pytest.mark.parametrize("source", [
    "a.index_fill_(0, m.tensor([1.0]), 5)", "a.index_fill_(0, m.tensor([[1]]), 5)",
    "a.index_fill_(5, m.tensor([1]), 5)", "a.index_fill_(0, m.tensor([7]), 5)",
    "a.index_fill_(0, m.tensor([1]), m.tensor([5]))", "a.index_fill_(0, m.tensor([1]), 5)",
    "a.index_fill_(1, m.tensor([0, 2]), m.tensor(-1))"])
def test_index_fill_checks_before_it_warns_about_an_expanded_tensor(source):
    def call(m):
        a = m.tensor([1, 2, 3]).expand(2, 3)
        exec(source, {"m": m, "a": a})

    assert _warnings_of(parity.engine, call) == _warnings_of(torch, call)


def test_cross_of_inf_and_nan_is_silent_as_torchs():
    def call(m):
        c = m.tensor([[float("-inf"), float("inf"), float("nan")]] * 3)
        return m.cross(c, m.ones_like(c), dim=1), m.linalg.cross(c, c)

    engine_outcome = _warnings_of(parity.engine, call)
    assert engine_outcome == _warnings_of(torch, call) == ("ok", [])
    parity.run_both(call)
