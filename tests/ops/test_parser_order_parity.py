"""torch's argument parser for cross and permute, against torch 2.15 (fuzz 913878).

torch's parser reads a call's arguments left to right against the overload's parameters,
then the keywords it does not know: ``x.cross(False, dims=0)`` names 'other' before 'dims'.
cross and permute go through ``ops.common.overloads`` (torch's parser) instead of checks of
their own; permute's method packs its ints (``x.permute(0, 1)`` is ``x.permute((0, 1))``)
and names the first argument that is no int, the function refuses the packed form.
"""
import itertools

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch

CROSS_CALLS = [
    "x.cross(False, dims=0)", "m.cross(x, False, dims=0)", "x.cross(o, dims=0)",
    "x.cross(o, 1, dim=1)", "x.cross(o, 1, 2)", "m.cross(x, o, 1, 2)", "x.cross(o, 1, 2, 3)",
    "x.cross()", "m.cross(x)", "m.cross()", "x.cross(o, other=o)", "x.cross(other=o, dim=1)",
    "x.cross(other=1, dim=1)", "m.cross(x, other=1)", "m.cross(x, input=o)",
    "m.cross(x, o, 1, out=None)", "m.cross(1, o)", "m.cross(1, 2)", "m.cross(input=x, other=o)",
    "m.cross(x, o, foo=1)", "x.cross(o, foo=1, dim=1.5)", "x.cross(1.5, dim='a')",
    "x.cross(o, 1, out=None)", "m.cross(x, o, dim=1, axis=1)", "m.cross(x, o, 1, out=1)",
    "x.cross(o, m.tensor(1))", "x.cross(o, m.tensor(1.))", "x.cross(o, m.tensor([1]))",
    "m.cross(x, o, dim=-1, out=None)", "x.cross(None)", "x.cross(o, None)", "x.cross([o])",
]


@pytest.mark.filterwarnings("ignore:Using torch.cross without specifying the dim arg")
@pytest.mark.parametrize("source", CROSS_CALLS)
def test_cross_arguments_checked_in_torchs_order(source):
    def call(m, x, o):
        return eval(source, {"m": m, "x": x, "o": o})

    parity.run_both(call, parity.make_tensor((2, 3), "float32"),
                    parity.make_tensor((2, 3), "float32", seed=1))


# every kind of value in each position of each form (method with ints one by one or a
# tuple/list, function, dims=)
_VALUES = ["0", "1", "-1", "1.5", "0.0", "-0.0", "True", "None", "'a'", "1+2j", "[0]", "(1, 0)",
           "m.tensor(1)", "m.tensor(1.)", "m.tensor([1, 0])", "m.tensor(1, dtype=m.uint8)",
           "m.tensor(1., requires_grad=True)", "float('nan')", "1e100"]
PERMUTE_CALLS = []
for _a, _b in itertools.product(_VALUES[:12], repeat=2):
    PERMUTE_CALLS += [f"x.permute({_a}, {_b})", f"x.permute(({_a}, {_b}))",
                      f"m.permute(x, [{_a}, {_b}])", f"x.permute(dims=({_a}, {_b}))"]
for _a in _VALUES:
    PERMUTE_CALLS += [f"x.permute({_a})", f"m.permute(x, {_a})", f"x.permute(dims={_a})",
                      f"x.permute(1, {_a})", f"m.permute(x, (1, {_a}))"]
PERMUTE_CALLS += [
    "x.permute()", "m.permute(x)", "x.permute(dim=(0, 1))", "x.permute(0, 1, dims=(0, 1))",
    "x.permute(0, 1, 2)", "x.permute(0, 0)", "m.permute(x, 1, 0)", "m.permute(x, (1, 0), 1)",
    "m.permute(input=x, dims=(1, 0))", "m.permute(None, (0,))", "m.permute(input=1, dims=(0,))",
    "x.permute(*[0, 1.5])", "x.permute(((1, 0),))", "x.permute((0, 1), foo=1)",
    "m.permute(x, dims=(1, 0), foo=2)", "x.permute(-2, -1)", "x.permute(2, 0)",
]


@pytest.mark.parametrize("source", PERMUTE_CALLS)
def test_permute_parses_as_torch(source):
    def call(m, x):
        return eval(source, {"m": m, "x": x})

    parity.run_both(call, parity.make_tensor((2, 3), "float32"))


def test_permute_still_records_its_node():
    def call(m, x):
        y = x.permute(1, 0)
        y.sum().backward()
        return y, x.grad, type(y.grad_fn).__name__

    parity.run_both(call, parity.make_tensor((2, 3), "float32").requires_grad_())
