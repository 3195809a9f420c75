# ruff: noqa: E501 (tables of cases, one per line)
"""Fuzz round six (seeds 1020000:1040000 and after): each mismatch fixed as a class, against torch 2.15.

- 1029554: a tangent copied into an expanded primal's layout (make_dual, jvp of an expanded
  input): torch's copy refuses to write into memory that repeats itself; a tangent already
  laid out as the expanded primal needs no copy and passes. Empty primals get the tangent
  laid out as theirs too (strides, offset).
- 1026890: out='s dtype is checked where torch's kernels declare their result, before their
  later checks (gather, index_select, amax/amin, the products, cat, round, the linalg norms),
  and gather and index_select resize out= there, before their later errors.
- 1030182: std and var resize out= to the result's shape before refusing its dtype.
"""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch

DUAL = "fw = m.autograd.forward_ad\nx = m.tensor([-0.5, 0.0, -0.3])\n"

EXPANDED_DUAL_CASES = {
    "make_dual of an expanded primal, dense tangent": "with fw.dual_level():\n r = error(lambda: fw.make_dual(x.expand(2, 3), m.ones(2, 3)))",
    "make_dual of an expanded 0-d primal": "with fw.dual_level():\n r = error(lambda: fw.make_dual(m.tensor(1.).expand(3), m.ones(3)))",
    "make_dual, tangent expanded as the primal": "with fw.dual_level():\n d = fw.make_dual(x.expand(2, 3), m.ones(3).expand(2, 3))\n T = fw.unpack_dual(d).tangent\n r = [T, T.stride(), fw.unpack_dual(d.exp()).tangent]",
    "make_dual, tangent expanded from a larger storage": "with fw.dual_level():\n r = error(lambda: fw.make_dual(x.expand(2, 3), m.ones(5)[:3].expand(2, 3)))",
    "make_dual of an expand to one row": "with fw.dual_level():\n T = fw.unpack_dual(fw.make_dual(x[None].expand(1, 3), m.ones(1, 3))).tangent\n r = [T, T.stride()]",
    "make_dual of an empty expand": "with fw.dual_level():\n T = fw.unpack_dual(fw.make_dual(m.ones(1).expand(0), m.ones(0))).tangent\n r = [T, T.stride()]",
    "make_dual of an empty slice keeps its offset": "with fw.dual_level():\n T = fw.unpack_dual(fw.make_dual(m.ones(4)[4:], m.ones(0))).tangent\n r = [T, T.stride(), T.storage_offset()]",
    "dense primal, expanded tangent is copied": "with fw.dual_level():\n T = fw.unpack_dual(fw.make_dual(m.ones(2, 3), m.ones(3).expand(2, 3))).tangent\n r = [T, T.stride()]",
    "jvp at an expanded input": "r = error(lambda: m.func.jvp(lambda a: a * 2, (m.ones(1).expand(3),), (m.ones(3),)))",
    "jvp of the identity at an expanded input": "r = error(lambda: m.func.jvp(lambda a: a, (x.expand(2, 3),), (m.ones(2, 3),)))",
    "jvp of an expand": "r = m.func.jvp(lambda a: a.expand(2, 3), (x,), (m.ones(3),))",
    "in-place into an expanded dual": "with fw.dual_level():\n d = fw.make_dual(x, m.ones(3))\n r = [error(lambda: d.expand(2, 3).mul_(2)), error(lambda: d.expand(2, 3).exp_())]",
    "fill_ and zero_ of an expanded dual": "with fw.dual_level():\n d = fw.make_dual(x.clone(), m.ones(3))\n e = d.expand(2, 3)\n r = [e.fill_(2.0), fw.unpack_dual(d).tangent, e.zero_(), fw.unpack_dual(e).tangent]",
    "a dual written into an expanded tensor": "with fw.dual_level():\n d = fw.make_dual(m.ones(3), m.ones(3))\n w = m.ones(3).expand(2, 3)\n r = [error(lambda: w.add_(d)), error(lambda: w.copy_(d))]",
}


@pytest.mark.parametrize("name", EXPANDED_DUAL_CASES)
def test_a_tangent_is_not_copied_into_an_expanded_primal(name):
    parity.assert_same_snippet(DUAL + EXPANDED_DUAL_CASES[name])


# 1026890: torch checks out='s dtype as a kernel declares its result, before the checks that
# come after that in its kernel (gather's index, a product's operand dtypes, cat's shapes ...),
# and some kernels resize out= there, before their later errors.
B, I64, I32, F64 = "torch.tensor([[True, False]])", "dtype=torch.int64", "dtype=torch.int32", "dtype=torch.float64"
OUT_FIRST_CASES = [
    f"torch.gather({B}, -1, torch.tensor([0]), out=torch.zeros(0, {I64}))",
    f"torch.gather({B}, 1, torch.tensor([[0.]]), out=torch.zeros(0, {I64}))",
    f"torch.gather({B}, 1, torch.tensor([[7]]), out=torch.zeros(0, {I64}))",
    f"torch.gather({B}, 0, torch.tensor([[0, 0, 0]]), out=torch.zeros(0, {I64}))",
    f"torch.gather({B}, 5, torch.tensor([[0]]), out=torch.zeros(0, {I64}))",
    f"torch.gather(input={B}, dim=1, index=torch.tensor([[0.]]), out=torch.zeros(0, {I64}))",
    f"torch.index_select({B}, 1, torch.tensor([9]), out=torch.zeros(0, {I64}))",
    f"torch.index_select(torch.tensor(True), 0, torch.tensor([3]), out=torch.zeros(0, {I64}))",
    f"torch.index_select(torch.tensor(True), 0, torch.tensor([0, 0]), out=torch.zeros(0, {I64}))",
    f"torch.index_select(torch.tensor(True), 0, torch.tensor([0., 0.]), out=torch.zeros(0, {I64}))",
    f"torch.index_select({B}, 1, torch.tensor([[0]]), out=torch.zeros(0, {I64}))",
    f"torch.index_select({B}, 1, torch.tensor([0.]), out=torch.zeros(0, {I64}))",
    f"torch.amax(torch.ones(2, 3), 5, out=torch.zeros(0, {I32}))",
    f"torch.amax(torch.ones(2, 3), (0, 0), out=torch.zeros(0, {I32}))",
    f"torch.amin(torch.zeros(0, 3), 0, out=torch.zeros(0, {I32}))",
    f"torch.amax(torch.ones(2, 3), 'a', out=torch.zeros(0, {I32}))",
    f"torch.mm(torch.ones(2, 3), torch.ones(3, 2, {I32}), out=torch.zeros(0, {I32}))",
    f"torch.mm(torch.ones(2, 3, {F64}), torch.ones(3, 2), out=torch.zeros(0))",
    f"torch.mm(torch.ones(2, 3, dtype=torch.bool), torch.ones(3, 2, dtype=torch.bool), out=torch.zeros(0, {I32}))",
    f"torch.mm(torch.ones(2, 3, {I32}), torch.ones(2, 2), out=torch.zeros(0, {I32}))",
    f"torch.mm(torch.ones(2, 3), torch.ones(3), out=torch.zeros(0, {I32}))",
    f"torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 3, 2, {F64}), out=torch.zeros(0, {I32}))",
    f"torch.bmm(torch.ones(2, 2, 3, {F64}), torch.ones(2, 3, 2), out=torch.zeros(0, {I32}))",
    f"torch.bmm(torch.ones(2, 2, 3, {F64}), torch.ones(2, 3, 2), out=torch.zeros(0))",
    f"torch.bmm(torch.ones(2, 3), torch.ones(3, 2), out=torch.zeros(0, {I32}))",
    f"torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 2, 2), out=torch.zeros(0, {I32}))",
    f"torch.addmm(torch.ones(5, 2), torch.ones(2, 3), torch.ones(3, 2), out=torch.zeros(0, {I32}))",
    f"torch.addmm(torch.ones(2, 2), torch.ones(2, 3), torch.ones(3, 2, {F64}), out=torch.zeros(0, {I32}))",
    f"torch.dot(torch.ones(2), torch.ones(3), out=torch.zeros(0, {F64}))",
    f"torch.dot(torch.ones(2, 2), torch.ones(2), out=torch.zeros(0, {I32}))",
    f"torch.dot(torch.ones(2), torch.ones(2, {F64}), out=torch.zeros(0, {I32}))",
    f"torch.vdot(torch.ones(2), torch.ones(3), out=torch.zeros(0, {I32}))",
    f"torch.matmul(torch.ones(2), torch.ones(3), out=torch.zeros(0, {I32}))",
    f"torch.matmul(torch.ones(2, 3), torch.ones(3, 2, {F64}), out=torch.zeros(0, {I32}))",
    f"torch.matmul(torch.ones(2, 2, 3), torch.ones(3, 2, {F64}), out=torch.zeros(0, {I32}))",
    f"torch.matmul(torch.ones(2, 2, 3), torch.ones(2, 3, 2, {F64}), out=torch.zeros(0, {I32}))",
    f"torch.matmul(torch.ones(3), torch.ones(3, 2, {F64}), out=torch.zeros(0, {I32}))",
    f"torch.matmul(torch.ones(2, 3, 2), torch.ones(2), out=torch.zeros(0, {I32}))",
    f"torch.matmul(torch.ones(2, 3), torch.ones(2, 3), out=torch.zeros(0, {I32}))",
    "torch.cat([torch.ones(2, 3), torch.ones(2, 2)], out=torch.zeros(0, dtype=torch.bool))",
    f"torch.cat([torch.ones(2, 3), torch.ones(3)], out=torch.zeros(0, {I32}))",
    f"torch.cat([torch.ones(2, 3), torch.tensor(1.)], out=torch.zeros(0, {I32}))",
    f"torch.cat([torch.ones(2, 3), torch.ones(2, 3, {F64})], 5, out=torch.zeros(0, {I32}))",
    f"torch.cat(tensors=[torch.ones(0), torch.ones(2, 2)], dim=1, out=torch.zeros(0, {I32}))",
    f"torch.stack([torch.ones(2, 3), torch.ones(2, 2)], out=torch.zeros(0, {I32}))",
    f"torch.round(torch.ones(2, 3), out=torch.zeros(0, {I32}))",
    f"torch.round(torch.ones(2, 3), decimals=2, out=torch.zeros(0, {F64}))",
    f"torch.round(torch.ones(2, 3, {F64}), decimals=1, out=torch.zeros(0))",
    f"torch.round(torch.ones(2, 3, {I32}), out=torch.zeros(0, {I64}))",
    f"torch.round(torch.ones(2, 3, dtype=torch.bool), decimals=1, out=torch.zeros(0, {I64}))",
    f"torch.round(torch.ones(2, 3, {I32}), decimals=2, out=torch.zeros(0, {I32}))",
    f"torch.linalg.vector_norm(torch.ones(2, 3), out=torch.zeros(0, {F64}))",
    "torch.linalg.vector_norm(torch.ones(2, 3), dim=1, out=torch.zeros(0, dtype=torch.float16))",
    f"torch.linalg.vector_norm(torch.ones(2, 3), dim=5, out=torch.zeros(0, {F64}))",
    f"torch.linalg.matrix_norm(torch.ones(2, 3), out=torch.zeros(0, {F64}))",
    f"torch.linalg.matrix_norm(torch.ones(2, 3), ord='nuc', out=torch.zeros(0, {F64}))",
    f"torch.linalg.norm(torch.ones(2, 3), out=torch.zeros(0, {I64}))",
    f"torch.linalg.norm(torch.ones(2, 3), dim=1, out=torch.zeros(0, {F64}))",
]


@pytest.mark.parametrize("call", OUT_FIRST_CASES)
def test_out_dtype_checked_where_torch_checks_it(call):
    parity.assert_same_snippet(f"r = error(lambda: {call.replace('torch.', 'm.')})")


OUT_RESIZED_CASES = {
    "gather: out resized before index's dtype": "m.gather(m.ones(2, 3), 1, m.tensor([[0.]]), out=o)",
    "gather: before the shapes": "m.gather(m.tensor([[1, 2]]), 0, m.tensor([[0, 0, 0]]), out=o)",
    "gather": "m.gather(m.ones(2, 3), 1, m.tensor([[0]]), out=o)",
    "index_select: before the bounds": "m.index_select(m.tensor([1.]), 0, m.tensor([3]), out=o)",
    "index_select: not before a 0-d input's index": "m.index_select(m.tensor(1.), 0, m.tensor([0, 0]), out=o)",
    "index_select": "m.index_select(m.ones(2, 3), 1, m.tensor([2, 0]), out=o)",
}


@pytest.mark.parametrize("name", OUT_RESIZED_CASES)
def test_out_resized_where_torch_resizes_it(name):
    parity.assert_same_snippet(f"o = m.ones(2, 2)\nr = [error(lambda: {OUT_RESIZED_CASES[name]}), o.shape]",
                               warnings_too=True)


# 1030182: std and var compute into out= resized to the result's shape: an out= that cannot
# hold the result is refused after it was resized (mean, sum and the others before, or not).
REDUCTION_OUT_CASES = [
    "m.std(input=a, keepdims=False, correction=2, out=u)", "m.std(a, out=u)", "m.var(a, out=u)",
    "m.var(a, 0, out=u)", "m.var(a[None], 1, keepdim=True, out=u)", "m.std(a, correction=1.5, out=u)",
    "m.var(a, 5, out=u)", "m.var(m.tensor([1, 2]), out=u)", "m.std(a, 0, out=v)", "m.std(a, out=w)",
    "m.mean(a, out=u)", "m.mean(a, 0, out=u)", "m.logsumexp(a, 0, out=u)", "m.prod(a, 0, out=u)",
    "m.amax(a, out=u)", "m.linalg.vector_norm(a, out=u)", "m.softmax(a, 0, out=u)",
]


@pytest.mark.parametrize("out", ["m.zeros(0, dtype=m.int64)", "m.zeros(5, dtype=m.bool)",
                                 "m.zeros(2, 2, dtype=m.float16)"])
@pytest.mark.parametrize("call", REDUCTION_OUT_CASES)
def test_std_and_var_resize_out_before_refusing_its_dtype(call, out):
    parity.assert_same_snippet(
        f"a = m.tensor([0.25, 1.0, 1.0])\nu = {out}\nv = m.zeros(0, dtype=m.float16)\n"
        f"w = m.zeros(3, dtype=m.float64)\nr = [error(lambda: {call}), u.shape, str(u.dtype), v, w]",
        warnings_too=True)


# 1045921: torch's float32 cross fuses each first product into the difference: x.cross(x) is
# a rounding residue, not 0.
@pytest.mark.parametrize("dim", [0, -1, 1])
@pytest.mark.parametrize("same", [True, False])
def test_float32_cross_rounds_as_torchs_fused_kernel(dim, same):
    x = parity.make_tensor((3, 3, 3), "float32", low=-3, high=3).exp()
    y = x if same else parity.make_tensor((3, 3, 3), "float32", seed=1, low=-3, high=3)
    parity.run_both(lambda m, a, b: (m.cross(a, b, dim), m.linalg.cross(a, b, dim=dim)), x, y)
