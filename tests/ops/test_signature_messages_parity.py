"""torch's argument parser's messages against torch 2.15: "invalid combination of arguments -
got (...)" (which keywords, in which order), "takes from # to # positional arguments", and the
calls no overload of torch's takes.

torch copies a call's keywords into a C++ unordered_map before printing them, so its list
follows the map's hash order, not the call's (fidelity/messages.py keyword_order): each case
below names its keywords in several orders, with input= among them or not.
"""
import itertools

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch

REDUCTIONS = ["mean", "sum", "prod", "min", "max", "std", "var", "all", "any", "nansum",
              "amax", "argmax"]
KEYWORD_SETS = [("keepdim",), ("keepdims",), ("dims",), ("unbiased", "keepdim"),
                ("unbiased", "correction"), ("stable", "descending"), ("out", "keepdim"),
                ("axis", "foo", "keepdim"), ("dtype", "unbiased", "keepdim", "out")]
_VALUES = {"keepdim": True, "keepdims": False, "dims": 0, "unbiased": False, "correction": 2,
           "stable": False, "descending": True, "axis": 0, "foo": 1.5, "dtype": None}


def _cases():
    for op, keys in itertools.product(REDUCTIONS, KEYWORD_SETS):
        if op in ("all", "any", "nansum") and keys == ("out", "keepdim"):
            continue  # (a call torch takes: the engine's all, any and nansum take no out=)
        for order in list(itertools.permutations(keys))[:3]:
            yield op, order


@pytest.mark.parametrize("form", ["input=", "positional", "method"])
@pytest.mark.parametrize("op,keys", list(_cases()), ids=lambda v: "-".join(v) if
                         isinstance(v, tuple) else v)
def test_keywords_listed_in_torchs_order(op, keys, form):
    def call(m, x):
        kwargs = {k: (m.empty(0) if k == "out" else _VALUES[k]) for k in keys}
        if form == "method":
            return getattr(x, op)(**kwargs)
        if form == "positional":
            return getattr(m, op)(x, **kwargs)
        return getattr(m, op)(**{"input": x, **kwargs})

    parity.run_both(call, parity.make_tensor((2, 3), "float32"), exact=False)


@pytest.mark.parametrize("order", list(itertools.permutations(["input", "dim", "keepdim",
                                                                "foo"], 3)))
def test_input_keyword_among_others(order):
    def call(m, x):
        values = {"input": x, "dim": 0, "keepdim": True, "foo": 1}
        return m.mean(**{k: values[k] for k in order})

    parity.run_both(call, parity.make_tensor((2, 3), "float32"), exact=False)
