# ruff: noqa: E501 (tables of cases, one per line)
"""Fuzz round eight (seeds 2000000:2020000, run without the AVX2 pins on an AVX-512 CPU): each
mismatch fixed as a class, against torch 2.15.

- 2000181: autograd.grad's outputs and inputs are sequences (torch's tuple() of them): None
  for either raises tuple()'s TypeError, before anything checks the graph.
- 2012051: torch's autograd reads an op's inputs' nodes before the kernel runs, so a view
  whose history cannot be rewritten (an output of split/chunk/unbind changed through its base)
  raises before the kernel warns (std/var with no degrees of freedom, where with a uint8
  condition).
"""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


GRAD_ARGUMENTS = {
    "inputs None": "m.autograd.grad(y, None)",
    "outputs None": "m.autograd.grad(None, x)",
    "inputs a number": "m.autograd.grad(y, 3)",
    "outputs a number": "m.autograd.grad(2, x)",
    "output without a graph, inputs None": "m.autograd.grad(m.randint(0, 1, (1, 1)), None)",
    "inputs None, grad_outputs given": "m.autograd.grad(y, None, grad_outputs=m.ones(()))",
    "inputs None by keyword": "m.autograd.grad(outputs=y, inputs=None)",
}


@pytest.mark.parametrize("name", GRAD_ARGUMENTS)
def test_grad_takes_its_outputs_and_inputs_as_sequences(name):
    parity.assert_same_snippet("x = m.tensor(1.5, requires_grad=True)\ny = x * 2\n"
                               f"r = error(lambda: {GRAD_ARGUMENTS[name]})", warnings_too=True)


def test_grad_takes_a_list_or_a_generator_of_inputs():
    parity.assert_same_snippet("x = m.tensor(1.5, requires_grad=True)\ny = x * x\n"
                               "r = [m.autograd.grad(y, [x], retain_graph=True),"
                               " m.autograd.grad([y], (t for t in [x]))]")


STALE_VIEW_CALLS = {
    "std, one element": "m.std(b)",
    "var, one element": "b.var()",
    "var over a dim": "m.var(b, 0)",
    "std, correction 2": "b.std(correction=2)",
    "std, unbiased False": "b.std(unbiased=False)",
    "where, uint8 condition": "m.where(m.tensor([1], dtype=m.uint8), b, 0.0)",
    "where, uint8 condition, view second": "m.where(m.tensor([0], dtype=m.uint8), 1.0, b)",
    "std, grad off": "m.no_grad().__enter__() or m.std(b)",
}


@pytest.mark.parametrize("name", STALE_VIEW_CALLS)
@pytest.mark.parametrize("split", ["w.chunk(2, 0)", "w.split(1)", "w.unbind(0)"])
def test_a_view_that_cannot_be_rebased_raises_before_the_kernel_warns(name, split):
    code = ("y = m.tensor([0.0, 2.0], requires_grad=True)\nw = y.sqrt()\n"
            f"a, b = {split}\nw[:1] = 0.0\n"
            f"r = [error(lambda: {STALE_VIEW_CALLS[name]})]\nm.set_grad_enabled(True)\n")
    parity.assert_same_snippet(code, warnings_too=True)


def test_an_ordinary_view_changed_through_its_base_still_warns_once_and_records():
    parity.assert_same_snippet(
        "y = m.tensor([0.0, 2.0], requires_grad=True)\nw = y.sqrt()\nb = w[1:]\nw[:1] = 0.0\n"
        "s = m.std(b)\nr = [s.isnan(), s.grad_fn.name(), b.grad_fn.name()]", warnings_too=True)
