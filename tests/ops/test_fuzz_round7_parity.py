# ruff: noqa: E501 (tables of cases, one per line)
"""Fuzz round seven (seeds 1050000:1060000 and after): each mismatch fixed as a class, against torch 2.15.

- 1050151: sub(a, b, alpha) is add with -alpha, negated as the number given: an integer
  alpha 0 stays 0, so -0.0 - 0 * b is 0.0 (a float 0.0 turns -0.0); the backward formulas of
  sub and rsub are torch's -grad * alpha (grad * -alpha differs in a zero's sign).
- 1051403: std and var warn about their degrees of freedom before anything refuses an
  inference leaf; only their two-pass kernel (a full reduction of a non-empty, non-float16
  tensor, through mean()) refuses it with sum()'s words.
- probes: out= of the ops whose iterator wants one dtype (abs, neg, sign, sgn, floor, ceil,
  trunc, frac, bitwise_not) is refused before their kernel's dtype errors; the binary bitwise
  ops check that out can hold the result type before they look for a kernel; nan_to_num
  takes out=; cross and linalg.cross check out='s dtype (and resize it) after the shapes,
  before the operands' dtypes, and torch.cross with out= neither warns nor names itself.
"""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


# 1050151: the sign of zero in sub/rsub with alpha, forward and backward
SUB_CASES = {
    "sub, integer alpha 0": "r = m.sub(a, b, alpha=0)",
    "sub, float alpha 0.0": "r = m.sub(a, b, alpha=0.0)",
    "sub, negative zero alpha": "r = m.sub(a, b, alpha=-0.0)",
    "sub, the deprecated overload": "r = m.sub(a, 0, 0.5)",
    "sub, number other": "r = [m.sub(a, 0.5, alpha=0), m.sub(a, -0.0, alpha=0), m.sub(a, 0.0, alpha=2)]",
    "sub, float64 and float16": "r = [m.sub(a.double(), b, alpha=0), m.sub(a.half(), b.half(), alpha=0)]",
    "sub_, in place": "c = a.clone()\nc.sub_(b, alpha=0)\nr = c",
    "rsub, integer alpha 0": "r = [m.rsub(a, b, alpha=0), m.rsub(a, -0.0, alpha=0)]",
    "integer tensors": "r = m.sub(m.tensor([3, -2]), m.tensor([1, 5]), alpha=0)",
}


@pytest.mark.parametrize("name", SUB_CASES)
def test_sub_with_alpha_keeps_torchs_zero_signs(name):
    parity.assert_same_snippet("a = m.tensor([-0.0, 0.0, -1.0, 3.0])\nb = m.tensor([0.0, -0.0, 0.0, -0.0])\n"
                               + SUB_CASES[name], warnings_too=True)


@pytest.mark.parametrize("alpha", ["0", "0.0", "-0.0", "2", "-0.5"])
@pytest.mark.parametrize("call", ["m.sub(y, x, alpha=ALPHA)", "m.rsub(x, y, alpha=ALPHA)",
                                  "m.rsub(x, 2.0, alpha=ALPHA)", "m.add(y, x, alpha=ALPHA)"])
def test_sub_backward_keeps_torchs_zero_signs(call, alpha):
    parity.assert_same_snippet(
        "x = m.tensor([1.0, -2.0, 0.0, -0.0], requires_grad=True)\ny = m.tensor([1.0, -2.0, 0.0, 3.0])\n"
        f"{call.replace('ALPHA', alpha)}.backward(m.tensor([1.0, -1.0, 0.0, -0.0]))\nr = x.grad")


# 1051403: std/var of an inference leaf outside inference_mode: the warning first, and only
# the two-pass kernel refuses
@pytest.mark.parametrize("leaf", ["m.full((), 1.5, requires_grad=True)",
                                  "m.full((1, 2), 1.5, requires_grad=True)",
                                  "m.full((3,), 1.5, requires_grad=True, dtype=m.float16)",
                                  "m.zeros((0, 2), requires_grad=True)",
                                  "m.full((2, 3), 1.5, requires_grad=True, dtype=m.float64)"])
@pytest.mark.parametrize("call", ["m.std(d)", "m.var(d)", "m.std(d, 0)", "m.var(d, -1)",
                                  "m.std(d, 0, keepdim=True)", "m.var(d, None, correction=2)"])
def test_std_of_an_inference_leaf_warns_first(leaf, call):
    code = f"with m.inference_mode():\n d = {leaf}\nr = error(lambda: {call})"
    (torch_scope, torch_warned), (engine_scope, engine_warned) = (
        parity.run_snippet(code, m) for m in (torch, parity.engine))
    assert engine_warned == torch_warned
    expected, got = (parity.snippet_facts(scope["r"]) for scope in (torch_scope, engine_scope))
    if got != expected:
        # notebooks/DIFFERENCES.md, "Inference tensors outside inference_mode": where torch's
        # kernel skips autograd, the engine records as for any tensor, and refuses to save one
        assert torch_scope["r"] is None, expected  # (torch computed a result)
        assert got[0] == "RuntimeError" and got[1].startswith("Inference tensors cannot be saved")


def test_fuzz_1051403_std_backward_of_an_inference_leaf():
    parity.assert_same_snippet("with m.inference_mode():\n d = m.full((), 1.5, requires_grad=True)\n"
                               "r = error(lambda: d.std().backward())", warnings_too=True)


# probes: out= dtypes checked where torch's iterator checks them
UNARY_SAME_DTYPE = ["abs", "absolute", "neg", "negative", "sign", "sgn", "floor", "ceil", "trunc",
                    "fix", "frac", "round", "bitwise_not", "nan_to_num"]
DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]


@pytest.mark.parametrize("out_dtype", DTYPES)
@pytest.mark.parametrize("input_dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("op", UNARY_SAME_DTYPE)
def test_unary_out_of_another_dtype_is_refused_first(op, input_dtype, out_dtype):
    parity.assert_same_snippet(
        f"o = m.zeros(0, dtype=m.{out_dtype})\n"
        f"r = [error(lambda: m.{op}(m.ones(2, 3, dtype=m.{input_dtype}), out=o)), o.shape]",
        warnings_too=True)


@pytest.mark.parametrize("out_dtype", DTYPES)
@pytest.mark.parametrize("operands", ["m.ones(2, 3), m.ones(2, 3)", "m.ones(2, 3), 1.5",
                                      "m.ones(2, 3, dtype=m.int64), 1.5", "m.ones(2, 3, dtype=m.bool), 1",
                                      "m.ones(2, 3), m.ones(4)", "m.ones(2, 3, dtype=m.int32), m.ones(3, dtype=m.int64)"])
@pytest.mark.parametrize("op", ["bitwise_and", "bitwise_or", "bitwise_xor"])
def test_bitwise_out_must_hold_the_result_type_first(op, operands, out_dtype):
    parity.assert_same_snippet(
        f"o = m.zeros(0, dtype=m.{out_dtype})\nr = [error(lambda: m.{op}({operands}, out=o)), o.shape]",
        warnings_too=True)


CROSS_OPERANDS = ["a, d", "a, a", "a, c", "c, c", "b, b", "i, i", "i, a", "a, m.ones(3)", "a, m.ones(3, 3)"]


@pytest.mark.parametrize("out", ["m.empty(2, 3, dtype=m.int64)", "m.empty(2, 3)", "m.empty(2, 3, dtype=m.float64)",
                                 "m.empty(0, dtype=m.int32)", "m.empty(5)", "m.empty(5, dtype=m.bool)"])
@pytest.mark.parametrize("call", ["m.cross(OPERANDS, dim=1, out=o)", "m.cross(OPERANDS, out=o)",
                                  "m.linalg.cross(OPERANDS, out=o)", "m.linalg.cross(OPERANDS, dim=0, out=o)"])
@pytest.mark.parametrize("operands", CROSS_OPERANDS)
def test_cross_out_dtype_checked_after_the_shapes(operands, call, out):
    parity.assert_same_snippet(
        "a = m.ones(2, 3)\nd = m.ones(2, 3, dtype=m.float64)\nc = m.ones(2, 4)\n"
        "b = m.ones(2, 3, dtype=m.bool)\ni = m.ones(2, 3, dtype=m.int64)\n"
        f"o = {out}\nr = [error(lambda: {call.replace('OPERANDS', operands)}), o.shape, str(o.dtype)]",
        warnings_too=True)


CROSS_CALLS = {
    "without dim and out=: no warning": "r = m.cross(a, a, out=m.empty(2, 3))",
    "out= and a tensor that requires grad: linalg_cross's words": "r = error(lambda: m.cross(a, g, out=m.empty(2, 3)))",
    "the method takes no out=": "r = error(lambda: a.cross(g, out=m.empty(2, 3)))",
    "the method, numpy's axis": "r = a.cross(g, axis=1)",
    "an unknown keyword": "r = error(lambda: m.cross(a, g, dims=1))",
    "a number operand with out=": "r = error(lambda: m.cross(a, 2, out=m.empty(2, 3)))",
    "vmap": "r = m.vmap(lambda x: m.cross(x, x * 2 + 1, dim=0))(a)",
    "backward": "r = m.autograd.grad(m.cross(a, g, dim=1).sum(), g)",
}


@pytest.mark.parametrize("name", CROSS_CALLS)
def test_cross_with_and_without_out(name):
    parity.assert_same_snippet("a = m.arange(6.).reshape(2, 3)\ng = m.ones(2, 3, requires_grad=True)\n"
                               + CROSS_CALLS[name], warnings_too=True)
