"""A wrong argument type raises torch's TypeError with torch's first line, called as a method
or as a function: torch numbers a method's arguments without self (``t.add("a")``: position
1; ``torch.add(t, "a")``: position 2) and leaves self out of "got (...)"; a dimension that is
not an integer names the operation and the argument (never Python's "'float' object has no
attribute '__index__'" or numpy's "only integer scalar arrays ..."). See
engine/fidelity/calls.py."""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch

ONE_DIM = ("sum nansum mean prod max min amax amin argmax argmin var std logsumexp cumsum "
           "cumprod all any count_nonzero sort argsort softmax log_softmax squeeze unsqueeze "
           "flatten unbind flip var_mean std_mean").split()
CASES = {f"{form} {name}({bad})": (form, name, value)
         for name in ONE_DIM for form in ("method", "function")
         for bad, value in (("1.5", 1.5), ("'a'", "a"), ("ndarray", np.ones(1)))}
CALLS = {
    "t.add(ndarray)": lambda m, t: t.add(np.ones(2)),
    "add(t, ndarray)": lambda m, t: m.add(t, np.ones(2)),
    "t.sub('a')": lambda m, t: t.sub("a"),
    "t.div(ndarray)": lambda m, t: t.div(np.ones(2)),
    "t.mm('a')": lambda m, t: t.mm("a"),
    "mm(t, 'a')": lambda m, t: m.mm(t, "a"),
    "t.matmul(ndarray)": lambda m, t: t.matmul(np.ones(2)),
    "t.eq('a')": lambda m, t: t.eq("a"),
    "eq(t, 'a')": lambda m, t: m.eq(t, "a"),
    "t.clamp('a')": lambda m, t: t.clamp("a"),
    "t.lerp('a', 0.5)": lambda m, t: t.lerp("a", 0.5),
    "t.prod(1.5)": lambda m, t: t.prod(1.5),
    "prod(t, 1.5)": lambda m, t: m.prod(t, 1.5),
    "t.transpose(1.5, 0)": lambda m, t: t.transpose(1.5, 0),
    "t.select(1.5, 0)": lambda m, t: t.select(1.5, 0),
    "t.narrow(1.5, 0, 1)": lambda m, t: t.narrow(1.5, 0, 1),
    "t.topk(1, 1.5)": lambda m, t: t.topk(1, 1.5),
    "t.topk(1, 5)": lambda m, t: t.topk(1, 5),
    "t.chunk(1, 1.5)": lambda m, t: t.chunk(1, 1.5),
    "t.index_select(1.5, index)": lambda m, t: t.index_select(1.5, m.tensor([0])),
    "t.gather(1.5, index)": lambda m, t: t.gather(1.5, m.tensor([[0]])),
    "t.size(1.5)": lambda m, t: t.size(1.5),
    "t.stride('a')": lambda m, t: t.stride("a"),
    "cat([t, t], 1.5)": lambda m, t: m.cat([t, t], 1.5),
    "stack([t, t], 1.5)": lambda m, t: m.stack([t, t], 1.5),
    "t.mul_('a')": lambda m, t: t.mul_("a"),
    "t.add_(ndarray)": lambda m, t: t.add_(np.ones(2)),
    "t.eq_('a')": lambda m, t: t.eq_("a"),
    "t.cumsum_(1.5)": lambda m, t: t.cumsum_(1.5),
    "t.clamp_('a')": lambda m, t: t.clamp_("a"),
    "t.view_as('a')": lambda m, t: t.view_as("a"),
    "t.reshape_as('a')": lambda m, t: t.reshape_as("a"),
    "t.expand_as(3)": lambda m, t: t.expand_as(3),
    "t.masked_fill(mask, 'a')": lambda m, t: t.masked_fill(t > 0, "a"),
    "t.where(mask, 'a')": lambda m, t: t.where(t > 0, "a"),
    "t.type_as('a')": lambda m, t: t.type_as("a"),
}


def first_line(module, call):
    t = module.ones(2, 2)
    with pytest.raises(Exception) as raised:
        call(module, t)
    return type(raised.value).__name__, str(raised.value).split("\n")[0]


@pytest.mark.parametrize("case", CASES)
def test_a_dimension_of_the_wrong_type(case):
    form, name, value = CASES[case]

    def call(module, t):
        if form == "method":
            return getattr(t, name)(value)
        return getattr(module, name)(t, value)

    if form == "function" and name in ("var_mean", "std_mean"):
        pytest.skip("the engine has these only as methods")
    assert first_line(__import__("engine"), call) == first_line(torch, call)


@pytest.mark.parametrize("case", CALLS)
def test_an_argument_of_the_wrong_type(case):
    assert first_line(__import__("engine"), CALLS[case]) == first_line(torch, CALLS[case])
