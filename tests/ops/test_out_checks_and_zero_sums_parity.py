"""Classes the fuzzer found in seeds 800000:820000, against torch 2.15.

* add/sub with out= and an alpha the result's dtype refuses: torch's kernel checks alpha
  after out was resized (fuzz 802689);
* logsumexp(out=) checks out's dtype before anything else (fuzz 805318);
* out= with an input that requires grad: autograd refuses before the op runs, so the op's
  own warnings (var's degrees of freedom) never come (fuzz 819589);
* a float32 product with an inf or a nan somewhere, which torch adds term by term: the sum
  starts at +0, so a row of -0.0 terms gives 0.0 (fuzz 801994).
"""
import warnings

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("dtype, alpha", [("int64", 0.5), ("int32", 2.5), ("uint8", 1.5),
                                          ("int64", True), ("float32", True)])
@pytest.mark.parametrize("other", ["tensor", "number", "broadcast"])
@pytest.mark.parametrize("out_shape", [(0,), (1, 2), (5,)])
def test_alpha_refused_after_out_resized(op, dtype, alpha, other, out_shape):
    x = parity.make_tensor((3, 2), dtype)[0:2:2]
    operand = {"tensor": x, "number": -1, "broadcast": parity.make_tensor((3, 1, 1), dtype)}
    out = parity.make_tensor(out_shape, dtype)

    def call(m, x, operand, out):
        getattr(m, op)(x, operand, alpha=alpha, out=out)
        return out

    parity.run_both(call, x, operand[other], out)  # (and out afterwards: resized, or not)


@pytest.mark.parametrize("dim", [(-1, 0), (0, 0), 0, (0,), 5, ()])
@pytest.mark.parametrize("shape", [(), (2, 2)])
@pytest.mark.parametrize("out_dtype", ["int32", "int64", "bool", "float32"])
def test_logsumexp_checks_out_dtype_first(dim, shape, out_dtype):
    x = parity.make_tensor(shape, "float32")
    out = parity.make_tensor((0,), out_dtype)
    parity.run_both(lambda m, x, out: m.logsumexp(x, dim=dim, keepdim=True, out=out), x, out)


def _refusal_and_warnings(m, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        error = parity.raised(lambda: call(m))
    return type(error).__name__, str(error).splitlines()[0] if error else None, \
        [str(w.message).split(" (Triggered")[0] for w in caught]


@pytest.mark.parametrize("call", [
    "m.var(c, -1, unbiased=True, out=m.zeros(0, dtype=c.dtype))",
    "m.std(c, 0, out=m.zeros(0, dtype=c.dtype))",
    "m.var(c, (), correction=3, out=m.zeros(0, dtype=c.dtype))",
    "m.std(c[:0], 0, out=m.zeros(0, dtype=c.dtype))",
])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("requires_grad", [True, False])
def test_autograd_refuses_out_before_the_op_warns(call, dtype, requires_grad):
    def run(m):
        c = m.tensor([-0.5], dtype=getattr(m, dtype), requires_grad=requires_grad)
        return eval(call, {"m": m, "c": c})  # noqa: S307 - the same call in both libraries

    assert _refusal_and_warnings(parity.engine, run) == _refusal_and_warnings(torch, run)


NAN, INF = float("nan"), float("inf")
PRODUCTS = {
    "rows of zeros, a nan row": ([[0.0, 0.0], [NAN, 1.0], [0.0, -0.0]], [[-2.0], [-2.5]]),
    "vector": ([[0.0, 0.0], [NAN, 1.0], [0.0, -0.0]], [-2.0, -2.5]),
    "two columns": ([[0.0, 0.0], [INF, 1.0], [0.0, -0.0]], [[-2.0, 1.0], [-2.5, 0.0]]),
    "batched (fuzz 801994)": ([[[0.0, 0.0], [2.0, 0.0]], [[1.0, NAN], [1.0, 0.0]]],
                              [[-2.0], [-2.5]]),
    "near overflow": ([[0.0, 3e38], [0.0, 0.0]], [[-1.0], [-0.0]]),
    "vector @ matrix": ([0.0, 0.0], [[-1.0, INF], [-2.0, 1.0]]),
    "dot": ([0.0, -0.0, 0.0], [-1.0, -3e38, -1.0]),
}


@pytest.mark.parametrize("name", list(PRODUCTS))
@pytest.mark.parametrize("op", ["matmul", "mm", "mv", "bmm", "dot"])
def test_a_sum_of_negative_zeros_is_zero_with_a_non_finite_value_around(name, op):
    a, b = (parity.engine.tensor(v) for v in PRODUCTS[name])
    if op == "bmm" and a.dim() == 2:
        a, b = a.unsqueeze(0), (b if b.dim() == 2 else b.unsqueeze(1)).unsqueeze(0)
    parity.run_both(lambda m, a, b: getattr(m, op)(a, b), a, b)
