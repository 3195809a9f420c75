"""torch.cross / torch.linalg.cross and the singular value decomposition against torch 2.15.

SVD: singular vectors are unique only up to sign, and numpy's LAPACK and torch's MKL pick
signs differently (for about a third of random matrices, measured), so U and Vh are compared
through invariants: singular values (to rounding), U @ diag(S) @ Vh = A, orthonormal columns,
|U| and |Vh| where the singular values are distinct, layouts, node names, and the gradients
of sign-independent functions (S, U ** 2, Vh ** 2), which must match torch's.
"""
import functools
import math
import warnings

import numpy as np
import pytest

import parity
from ops.test_indexing_ops_parity import check_gradients

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


# ====================================================================== cross
CROSS_SHAPES = [((3,), (3,)), ((2, 3), (2, 3)), ((4, 3), (1, 3)), ((1, 3), (4, 3)),
                ((2, 1, 3), (1, 5, 3)), ((0, 3), (0, 3)), ((0, 3), (1, 3))]


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "float16", "float32",
                                   "float64"])
@pytest.mark.parametrize("shapes", CROSS_SHAPES, ids=str)
def test_linalg_cross(shapes, dtype):
    a, b = (parity.make_tensor(s, dtype, seed=i) for i, s in enumerate(shapes))
    exact = dtype not in ("float32", "float64")  # torch's vectorised loop may fuse a * b - c * d
    parity.run_both(lambda m, a, b: m.linalg.cross(a, b), a, b, exact=exact)
    parity.run_both(lambda m, a, b: m.cross(a, b, dim=-1), a, b, exact=exact)
    parity.run_both(lambda m, a, b: a.cross(b, dim=len(shapes[0]) - 1), a, b, exact=exact)


CROSS_CASES = {
    "dim 0": lambda m, a, b: m.linalg.cross(a.T, b.T, dim=0),
    "axis=": lambda m, a, b: m.linalg.cross(a, b, axis=1),
    "torch.cross dim": lambda m, a, b: m.cross(a.T, b.T, dim=0),
    "transposed": lambda m, a, b: m.linalg.cross(a.T.contiguous().T, b),
    "out=": lambda m, a, b: m.linalg.cross(a, b, out=m.empty(2, 3)),
    "length 2": lambda m, a, b: m.linalg.cross(a[:, :2], b[:, :2]),
    "length 2 and 3": lambda m, a, b: m.linalg.cross(a.T[:2], b.T, dim=0),
    "dims differ": lambda m, a, b: m.linalg.cross(a[0], b),
    "no broadcast": lambda m, a, b: m.linalg.cross(a, m.cat([b, b, b])[:3]),
    "dim out of range": lambda m, a, b: m.linalg.cross(a, b, dim=2),
    "0-d": lambda m, a, b: m.linalg.cross(a[0, 0], b[0, 0]),
    "dtypes differ": lambda m, a, b: m.linalg.cross(a, b.double()),
    "bool": lambda m, a, b: m.linalg.cross(a > 0, b > 0),
    "number": lambda m, a, b: m.cross(a, 2),
    "torch.cross: dims differ": lambda m, a, b: m.cross(a[0], b, dim=0),
    "torch.cross: no dim of length 3": lambda m, a, b: m.cross(a[:, :2], b[:, :2], dim=None),
}


@pytest.mark.parametrize("name", list(CROSS_CASES))
def test_cross_rules_and_errors(name):
    a, b = parity.make_tensor((2, 3), "float32"), parity.make_tensor((2, 3), "float32", seed=1)
    parity.run_both(CROSS_CASES[name], a, b)


def test_torch_cross_without_dim_takes_the_first_dimension_of_length_3():
    a, b = parity.make_tensor((3, 3, 2), "float32"), parity.make_tensor((3, 3, 2), "float32", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity.run_both(lambda m, a, b: m.cross(a, b), a, b, exact=False)
        parity.run_both(lambda m, a, b: m.cross(a[:, :1], b[:1]), a, b)  # dim 0: 3 and 1
    engine.ops.linalg._cross_warned.clear()
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is "
                                         "deprecated.\nPlease either pass the dim explicitly"):
        engine.cross(engine.ones(3), engine.ones(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        engine.cross(engine.ones(3), engine.ones(3))  # once per process, as torch


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (2, 3)), ((4, 3), (1, 3)),
                                    ((2, 1, 3), (1, 2, 3))], ids=str)
def test_cross_gradients(shapes):
    a, b = (parity.make_tensor(s, "float64", seed=i, low=-2, high=2)
            for i, s in enumerate(shapes))
    check_gradients(lambda m, a, b: m.linalg.cross(a, b), a, b)


# ====================================================================== svd
SVD_SHAPES = [(3, 3), (4, 2), (2, 4), (1, 1), (5, 1), (2, 3, 2), (2, 2, 3), (0, 3), (3, 0),
              (6, 6)]


def _svd_values(shape, dtype, seed=0):
    return parity.make_tensor(shape, dtype, seed, low=-3, high=3)


def _check_invariants(A, U, S, Vh, full, rtol):
    a = A.numpy().astype(np.float64)
    u, s, vh = (t.numpy().astype(np.float64) for t in (U, S, Vh))
    k = s.shape[-1]
    np.testing.assert_allclose(u[..., :k] * s[..., None, :] @ vh[..., :k, :], a, atol=rtol * 10)
    for q, axis in ((u, -2), (vh, -1)):
        gram = q.swapaxes(-1, -2) @ q if axis == -2 else q @ q.swapaxes(-1, -2)
        np.testing.assert_allclose(gram, np.broadcast_to(np.eye(gram.shape[-1]), gram.shape),
                                   atol=rtol * 10)
    assert np.all(np.diff(s, axis=-1) <= 0) and np.all(s >= 0)


@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SVD_SHAPES, ids=str)
def test_linalg_svd(shape, dtype, full_matrices):
    A = _svd_values(shape, dtype)
    e = engine.linalg.svd(A, full_matrices=full_matrices)
    t = torch.linalg.svd(parity.to_torch(A), full_matrices=full_matrices)
    assert type(e).__name__ == type(t).__name__ == "linalg_svd"
    assert e.__match_args__ == t.__match_args__
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for ei, ti in zip(e, t):  # shapes, dtypes and LAPACK's column-major layout
        assert tuple(ei.shape) == tuple(ti.shape) and str(ei.dtype) == str(ti.dtype)
        assert ei.stride() == ti.stride()
    np.testing.assert_allclose(e.S.numpy(), t.S.numpy(), rtol=rtol, atol=rtol)
    _check_invariants(A, *e, full_matrices, rtol)
    k = e.S.shape[-1]
    distinct = np.all(np.abs(np.diff(t.S.numpy(), axis=-1)) > 1e-3) if k > 1 else True
    if distinct and min(shape[-2:]) > 0:  # each singular vector is then fixed up to its sign
        np.testing.assert_allclose(np.abs(e.U.numpy()[..., :k]), np.abs(t.U.numpy()[..., :k]),
                                   atol=rtol * 100)
        np.testing.assert_allclose(np.abs(e.Vh.numpy()[..., :k, :]),
                                   np.abs(t.Vh.numpy()[..., :k, :]), atol=rtol * 100)
    parity.assert_same(engine.linalg.svdvals(A), torch.linalg.svdvals(parity.to_torch(A)),
                       exact=False, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("some", [True, False])
@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (2, 3, 3)], ids=str)
def test_torch_svd(shape, some):
    A = _svd_values(shape, "float64")
    e, t = engine.svd(A, some=some), torch.svd(parity.to_torch(A), some=some)
    assert type(e).__name__ == type(t).__name__ == "svd"
    assert e.__match_args__ == t.__match_args__
    for ei, ti in zip(e, t):
        assert tuple(ei.shape) == tuple(ti.shape) and ei.stride() == ti.stride()
    np.testing.assert_allclose(e.S.numpy(), t.S.numpy(), rtol=1e-12)
    _check_invariants(A, e.U, e.S, e.V.mT, not some, 1e-12)
    parity.run_both(lambda m, A: m.svd(A, compute_uv=False), A, exact=False)
    parity.run_both(lambda m, A: A.svd(compute_uv=False).S, A, exact=False)


SVD_ERRORS = {
    "1-d": lambda m, A: m.linalg.svd(A[0]),
    "svdvals 1-d": lambda m, A: m.linalg.svdvals(A[0]),
    "torch.svd 1-d": lambda m, A: m.svd(A[0]),
    "int": lambda m, A: m.linalg.svd(A.long()),
    "float16": lambda m, A: m.linalg.svd(A.half()),
    "driver": lambda m, A: m.linalg.svd(A, driver="gesvd"),
    "nan": lambda m, A: m.linalg.svd(A * float("nan")),
    "repr": lambda m, A: repr(m.linalg.svd(m.eye(2))),
    "svd repr": lambda m, A: repr(m.svd(m.eye(2) * 2)),
}


@pytest.mark.parametrize("name", list(SVD_ERRORS))
def test_svd_errors(name):
    parity.run_both(SVD_ERRORS[name], _svd_values((3, 3), "float32"))


def _sign_free(m, A, full_matrices):
    """A function of svd(A) that does not depend on the singular vectors' signs."""
    U, S, Vh = m.linalg.svd(A, full_matrices=full_matrices)
    k = S.shape[-1]
    weights = m.arange(1, k + 1, dtype=m.float64)
    return S.sum() + (U[..., :k] ** 2 * weights).sum() + (Vh[..., :k, :] ** 2).cumsum(-1).sum()


@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)], ids=str)
def test_svd_gradients(shape, full_matrices):
    A = _svd_values(shape, "float64")
    check_gradients(lambda m, A: _sign_free(m, A, full_matrices), A,
                    second_order=not full_matrices, rtol=1e-8)
    check_gradients(lambda m, A: m.linalg.svdvals(A), A, rtol=1e-8)
    check_gradients(lambda m, A: m.svd(A).S * 2, A, rtol=1e-8)


def test_svd_graph():
    for m in (torch, engine):
        A = m.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], requires_grad=True)
        U, S, Vh = m.linalg.svd(A, full_matrices=False)
        assert U.grad_fn is S.grad_fn is Vh.grad_fn
        assert U.grad_fn.name() == "LinalgSvdBackward0"
        assert U.grad_fn._saved_full_matrices is False
        assert U.grad_fn._saved_S_sym_argsize_minus_1 == 2
        assert m.svd(A).V.grad_fn.name() == "TransposeBackward0"


# ---------------------------------------------------------------- linalg.norm & co
def _batch(m):
    return m.arange(24.).reshape(2, 3, 4).sub(11).mul(0.37).requires_grad_()


NORMS = {
    "vector_norm": lambda m, x: m.linalg.vector_norm(x),
    "vector_norm ord 3 over two dims": lambda m, x: m.linalg.vector_norm(x, 3, dim=(0, 2)),
    "vector_norm inf, keepdim": lambda m, x: m.linalg.vector_norm(x, math.inf, -1, True),
    "vector_norm 0": lambda m, x: m.linalg.vector_norm(x, 0),
    "vector_norm in float64": lambda m, x: m.linalg.vector_norm(x, dtype=m.float64),
    "vector_norm of ints": lambda m, x: m.linalg.vector_norm(m.arange(3)),
    "vector_norm 'fro'": lambda m, x: m.linalg.vector_norm(x, "fro"),
    "norm": lambda m, x: m.linalg.norm(x),
    "norm over a dim": lambda m, x: m.linalg.norm(x, dim=1, keepdim=True),
    "norm 'fro' over two dims": lambda m, x: m.linalg.norm(x, "fro", dim=(0, 2)),
    "norm 'nuc'": lambda m, x: m.linalg.norm(x, "nuc", dim=(2, 0)),
    "norm ord of 3-d without dim": lambda m, x: m.linalg.norm(x, 2),
    "norm of 1-d 'fro'": lambda m, x: m.linalg.norm(m.ones(3), "fro"),
    "norm of 1-d ord 1": lambda m, x: m.linalg.norm(m.ones(3), 1),
    "norm of 2-d ord -1": lambda m, x: m.linalg.norm(x[0], -1),
    "norm with three dims": lambda m, x: m.linalg.norm(x, dim=(0, 1, 1)),
    "matrix_norm": lambda m, x: m.linalg.matrix_norm(x),
    "matrix_norm of 1-d": lambda m, x: m.linalg.matrix_norm(m.ones(3)),
    "matrix_norm order 3": lambda m, x: m.linalg.matrix_norm(x, 3),
    "matrix_norm order 'abc'": lambda m, x: m.linalg.matrix_norm(x, "abc"),
    "matrix_norm one dim": lambda m, x: m.linalg.matrix_norm(x, dim=(0,)),
    "matrix_norm same dims": lambda m, x: m.linalg.matrix_norm(x, dim=(1, 1)),
}
for _order in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
    NORMS[f"matrix_norm {_order} dims (2, 0)"] = functools.partial(
        lambda m, x, order: m.linalg.matrix_norm(x, order, dim=(2, 0)), order=_order)
for _order in ("nuc", 1, 2, -math.inf):
    NORMS[f"matrix_norm {_order} keepdim"] = functools.partial(
        lambda m, x, order: m.linalg.matrix_norm(x, order, dim=(0, 2), keepdim=True),
        order=_order)


@pytest.mark.parametrize("case", NORMS)
def test_linalg_norms_values_graphs_and_gradients(case):
    def run(m):
        x = _batch(m)
        y = NORMS[case](m, x)
        names = [type(n).__name__ for n, _ in y.grad_fn.next_functions if n is not None] \
            if y.grad_fn is not None else []
        if y.requires_grad:
            y.sum().backward()
        return y, type(y.grad_fn).__name__, names, x.grad
    parity.run_both(run, exact=False)


# ============================================================ det, slogdet, inverse, solve
# LU with partial pivoting (LAPACK's getrf), replayed in numpy: values within rounding of torch's
# MKL, the same zero pivots (errors, info) and the same infinities for singular matrices.
SQUARE_SHAPES = [(1, 1), (2, 2), (3, 3), (5, 5), (2, 3, 3), (2, 1, 4, 4), (0, 0), (2, 0, 0),
                 (0, 3, 3), (8, 8)]
SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
SINGULAR_3 = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]


def _square(shape, dtype, seed=0):
    return parity.make_tensor(shape, dtype, seed, low=-3, high=3)


def _tolerance(dtype):
    return (1e-4, 1e-5) if dtype == "float32" else (1e-10, 1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SQUARE_SHAPES, ids=str)
def test_det_slogdet_inverse_values_and_layouts(shape, dtype):
    A = _square(shape, dtype)
    rtol, atol = _tolerance(dtype)
    close = dict(exact=False, rtol=rtol, atol=atol)
    for fn in (lambda m, A: m.det(A), lambda m, A: m.linalg.det(A), lambda m, A: A.det(),
               lambda m, A: m.slogdet(A), lambda m, A: m.linalg.slogdet(A),
               lambda m, A: A.slogdet(), lambda m, A: m.logdet(A), lambda m, A: A.logdet(),
               lambda m, A: m.inverse(A), lambda m, A: m.linalg.inv(A), lambda m, A: A.inverse(),
               lambda m, A: m.linalg.inv_ex(A), lambda m, A: m.linalg.inv(A.mT),
               lambda m, A: m.linalg.inv(A.mT.contiguous().mT)):
        parity.run_both(fn, A, **close)
    if len(shape) > 2:
        parity.run_both(lambda m, A: m.linalg.inv(A[:1].expand(*A.shape)), A, **close)


@pytest.mark.parametrize("n", [-5, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("shape", [(3, 3), (2, 2, 2), (0, 0), (0, 2, 2)], ids=str)
def test_matrix_power(shape, n):
    A = _square(shape, "float64", seed=1) / 2
    for fn in (lambda m, A: m.matrix_power(A, n), lambda m, A: m.linalg.matrix_power(A, n),
               lambda m, A: A.matrix_power(n), lambda m, A: m.matrix_power(A.mT, n)):
        parity.run_both(fn, A, exact=False, rtol=1e-10, atol=1e-12)
    if n >= 0:
        ints = parity.make_tensor(shape, "int64", low=-3, high=3)
        parity.run_both(lambda m, A: m.matrix_power(A, n), ints)


def test_singular_matrices():
    for values in (SINGULAR, SINGULAR_3, [[0.0, 0.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]]):
        for dtype in ("float32", "float64"):
            S = engine.tensor(values, dtype=getattr(engine, dtype))
            batch = engine.stack([S, S, S * 0 + engine.eye(S.shape[0], dtype=S.dtype)])
            for A in (S, batch, S.mT, batch.mT):
                for fn in (lambda m, A: m.det(A), lambda m, A: m.slogdet(A),
                           lambda m, A: m.logdet(A), lambda m, A: m.linalg.inv_ex(A),
                           lambda m, A: m.linalg.inv(A), lambda m, A: m.inverse(A),
                           lambda m, A: m.linalg.inv_ex(A, check_errors=True),
                           lambda m, A: m.matrix_power(A, -2),
                           lambda m, A: m.linalg.solve(A, m.ones(A.shape[-1], dtype=A.dtype)),
                           lambda m, A: m.linalg.solve_ex(A, m.ones(A.shape[:-1],
                                                                    dtype=A.dtype))):
                    parity.run_both(fn, A)


SQUARE_ERRORS = {
    "det 1-d": lambda m: m.det(m.ones(3)),
    "det 2x3": lambda m: m.linalg.det(m.ones(2, 3)),
    "det long": lambda m: m.det(m.ones(2, 2, dtype=m.long)),
    "det long 2x3": lambda m: m.det(m.ones(2, 3, dtype=m.long)),
    "det half": lambda m: m.linalg.det(m.ones(2, 2, dtype=m.half)),
    "det number": lambda m: m.det(2.0),
    "det out=": lambda m: m.det(m.eye(2), out=m.empty(0)),
    "linalg.det out=": lambda m: m.linalg.det(m.eye(3).expand(2, 3, 3), out=m.empty(0)),
    "linalg.det out= dtype": lambda m: m.linalg.det(m.eye(2), out=m.empty(0, dtype=m.double)),
    "logdet 2x3": lambda m: m.logdet(m.ones(2, 3)),
    "logdet long": lambda m: m.logdet(m.ones(2, 2, dtype=m.long)),
    "logdet half": lambda m: m.logdet(m.ones(2, 2, dtype=m.half)),
    "logdet negative": lambda m: m.logdet(m.diag(m.tensor([1.0, -1.0]))),
    "logdet 1-d": lambda m: m.logdet(m.ones(3)),
    "slogdet 2x3": lambda m: m.slogdet(m.ones(2, 3)),
    "slogdet long": lambda m: m.linalg.slogdet(m.ones(2, 2, dtype=m.long)),
    "slogdet half": lambda m: m.slogdet(m.ones(2, 2, dtype=m.half)),
    "slogdet out=": lambda m: m.slogdet(m.eye(2), out=(m.empty(0), m.empty(0))),
    "linalg.slogdet out=": lambda m: m.linalg.slogdet(m.eye(2), out=(m.empty(0), m.empty(0))),
    "slogdet out= dtype": lambda m: m.linalg.slogdet(m.eye(2), out=(m.empty(0),
                                                                    m.empty(0, dtype=m.long))),
    "slogdet huge": lambda m: m.slogdet(m.eye(2) * 1e30),
    "det huge": lambda m: m.det(m.eye(2) * 1e30),
    "det tiny": lambda m: m.det(m.eye(2) * 1e-30),
    "det nan": lambda m: m.det(m.tensor([[float("nan"), 1.0], [1.0, 1.0]])),
    "inv 2x3": lambda m: m.inverse(m.ones(2, 3)),
    "inv 1-d": lambda m: m.linalg.inv(m.ones(3)),
    "inv long": lambda m: m.linalg.inv(m.ones(2, 2, dtype=m.long)),
    "inv half": lambda m: m.inverse(m.ones(2, 2, dtype=m.half)),
    "inv_ex long": lambda m: m.linalg.inv_ex(m.ones(2, 2, dtype=m.long)),
    "inv_ex check_errors int": lambda m: m.linalg.inv_ex(m.eye(2), check_errors=1),
    "inv out=": lambda m: m.linalg.inv(m.eye(2) * 2, out=m.empty(0)),
    "inv out= of its shape": lambda m: m.linalg.inv(m.eye(2) * 2, out=m.empty(2, 2)),
    "inv out= batch": lambda m: m.inverse(m.eye(3).expand(2, 3, 3), out=m.empty(2, 3, 3)),
    "inv out= resized": lambda m: m.inverse(m.eye(3), out=m.empty(2)),
    "inv out= dtype": lambda m: m.inverse(m.eye(2), out=m.empty(0, dtype=m.double)),
    "inv_ex out=": lambda m: m.linalg.inv_ex(m.eye(2), out=(m.empty(0),
                                                            m.empty(0, dtype=m.int32))),
    "inv_ex out= info dtype": lambda m: m.linalg.inv_ex(m.eye(2), out=(m.empty(0), m.empty(0))),
    "inv inf": lambda m: m.inverse(m.tensor([[1.0, 1.0], [1.0, float("inf")]])),
    "inv nan": lambda m: m.inverse(m.tensor([[1.0, float("nan")], [1.0, 1.0]])),
    "matrix_power 2x3": lambda m: m.matrix_power(m.ones(2, 3), 2),
    "matrix_power 1-d": lambda m: m.linalg.matrix_power(m.ones(3), 2),
    "matrix_power float n": lambda m: m.matrix_power(m.ones(2, 2), 2.0),
    "matrix_power method float n": lambda m: m.ones(2, 2).matrix_power(2.0),
    "matrix_power bool n": lambda m: m.ones(2, 2).matrix_power(True),
    "linalg.matrix_power float n": lambda m: m.linalg.matrix_power(m.ones(2, 2), 2.0),
    "matrix_power tensor n": lambda m: m.ones(2, 2).matrix_power(m.tensor(3)),
    "matrix_power long -1": lambda m: m.matrix_power(m.ones(2, 2, dtype=m.long), -1),
    "matrix_power half -1": lambda m: m.matrix_power(m.ones(2, 2, dtype=m.half), -1),
    "matrix_power half 5": lambda m: m.matrix_power(m.ones(2, 2, dtype=m.half), 5),
    "matrix_power bool": lambda m: m.matrix_power(m.ones(2, 2, dtype=m.bool), 2),
    "matrix_power keyword n": lambda m: m.linalg.matrix_power(m.eye(2) * 3, n=2),
    "matrix_power out=": lambda m: m.matrix_power(m.ones(2, 2, 2), 5, out=m.empty(0)),
    "matrix_power out= 0": lambda m: m.matrix_power(m.ones(2, 2, 2), 0,
                                                    out=m.empty(0, dtype=m.double)),
    "matrix_power out= 1 long": lambda m: m.matrix_power(m.ones(2, 2), 1,
                                                         out=m.empty(0, dtype=m.long)),
    "matrix_power out= long input": lambda m: m.matrix_power(m.ones(2, 2, dtype=m.long), 2,
                                                             out=m.empty(0)),
    "matrix_power out= transposed": lambda m: m.matrix_power(m.ones(2, 2), 2,
                                                             out=m.empty(2, 2).T),
    "matrix_power out= -1": lambda m: m.linalg.matrix_power(m.eye(2) * 2, -1, out=m.empty(0)),
    "matrix_power out= -3": lambda m: m.linalg.matrix_power(m.eye(2) * 2, -3, out=m.empty(0)),
    "solve 2x3 B": lambda m: m.linalg.solve(m.eye(3), m.ones(2, 3)),
    "solve right vector": lambda m: m.linalg.solve(m.eye(3), m.ones(3), left=False),
    "solve right 3x2": lambda m: m.linalg.solve(m.eye(3), m.ones(3, 2), left=False),
    "solve dtypes": lambda m: m.linalg.solve(m.eye(3), m.ones(3, 2, dtype=m.double)),
    "solve long": lambda m: m.linalg.solve(m.eye(3).long(), m.ones(3).long()),
    "solve half": lambda m: m.linalg.solve(m.eye(3).half(), m.ones(3).half()),
    "solve 0-d B": lambda m: m.linalg.solve(m.eye(3), m.tensor(1.0)),
    "solve number B": lambda m: m.linalg.solve(m.eye(3), 1.0),
    "solve 2x3 A": lambda m: m.linalg.solve(m.ones(2, 3), m.ones(2)),
    "solve 1-d A": lambda m: m.linalg.solve(m.ones(3), m.ones(3)),
    "solve batch of vectors": lambda m: m.linalg.solve(m.eye(3).expand(2, 3, 3) * 2,
                                                       m.ones(2, 3)),
    "solve batch, one vector": lambda m: m.linalg.solve(m.eye(3).expand(2, 3, 3) * 2,
                                                        m.ones(3)),
    "solve 4x3 B": lambda m: m.linalg.solve(m.eye(3).expand(2, 3, 3), m.ones(4, 3)),
    "solve out=": lambda m: m.linalg.solve(m.eye(3) * 2, m.ones(3, 2), out=m.empty(0)),
    "solve out= dtype": lambda m: m.linalg.solve(m.eye(3), m.ones(3), out=m.empty(0).long()),
    "solve empty": lambda m: m.linalg.solve(m.zeros(2, 0, 0), m.ones(2, 0, 3)),
    "solve empty batch": lambda m: m.linalg.solve(m.zeros(0, 3, 3), m.ones(3, 2)),
    "solve no columns": lambda m: m.linalg.solve(m.eye(3), m.ones(3, 0)),
    "solve_ex check_errors": lambda m: m.linalg.solve_ex(m.tensor(SINGULAR), m.ones(2),
                                                         check_errors=True),
    "solve_ex out=": lambda m: m.linalg.solve_ex(m.eye(2) * 2, m.ones(2),
                                                 out=(m.empty(0), m.empty(0, dtype=m.int32))),
    "solve keywords": lambda m: m.linalg.solve(A=m.eye(2) * 2, B=m.ones(2)),
    "det keyword": lambda m: m.linalg.det(A=m.eye(2) * 2),
    "torch.det keyword": lambda m: m.det(input=m.eye(2) * 2),
    "logdet keyword": lambda m: m.logdet(input=m.eye(2) * 2),
    "matrix_power keywords": lambda m: m.matrix_power(input=m.eye(2) * 2, n=3),
    "matrix_power no n": lambda m: m.ones(2, 2).matrix_power(),
    "torch.matrix_power no n": lambda m: m.matrix_power(m.ones(2, 2)),
    "matrix_power n None": lambda m: m.matrix_power(m.ones(2, 2), None),
    "det two arguments": lambda m: m.det(m.ones(2, 2), 1),
    "inverse keyword": lambda m: m.inverse(input=m.eye(2) * 2),
    "slogdet keyword": lambda m: m.slogdet(input=m.eye(2) * 2),
    "repr inv_ex": lambda m: repr(m.linalg.inv_ex(m.eye(2) * 2)),
    "repr slogdet": lambda m: repr(m.linalg.slogdet(m.eye(2) * 2)),
    "requires grad out=": lambda m: m.linalg.inv(m.eye(2).requires_grad_(), out=m.empty(0)),
}


@pytest.mark.parametrize("name", list(SQUARE_ERRORS))
def test_square_matrix_rules_and_errors(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (out= resized: its own tests)
        parity.run_both(SQUARE_ERRORS[name], exact=False)


def test_linalg_error_type():
    assert issubclass(engine.linalg.LinAlgError, RuntimeError)
    with pytest.raises(engine.linalg.LinAlgError) as caught:
        engine.inverse(engine.tensor(SINGULAR))
    assert type(caught.value).__name__ == type(torch.linalg.LinAlgError("")).__name__


SOLVE_SHAPES = [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3)), ((2, 3, 3), (3, 1)),
                ((3, 3), (2, 3, 4)), ((1, 3, 3), (2, 3, 2)), ((4, 4), (4,))]


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", SOLVE_SHAPES, ids=str)
def test_solve(shapes, dtype, left):
    A, B = _square(shapes[0], dtype), _square(shapes[1], dtype, seed=1)
    rtol, atol = _tolerance(dtype)
    if not left:
        B = B.mT if B.dim() > 1 else B
    parity.run_both(lambda m, A, B: m.linalg.solve(A, B, left=left), A, B, exact=False,
                    rtol=rtol, atol=atol)
    parity.run_both(lambda m, A, B: m.linalg.solve_ex(A, B, left=left), A, B, exact=False,
                    rtol=rtol, atol=atol)
    parity.run_both(lambda m, A, B: m.linalg.solve(A.mT, B, left=left), A, B, exact=False,
                    rtol=rtol, atol=atol)


GRADIENTS = {
    "det": lambda m, A: m.det(A),
    "det of a transpose": lambda m, A: m.linalg.det(A.mT),
    "logdet of A A^T": lambda m, A: m.logdet(A.matmul(A.mT)),
    "slogdet": lambda m, A: m.linalg.slogdet(A).logabsdet,
    "slogdet both": lambda m, A: m.slogdet(A).logabsdet + m.slogdet(A).sign,
    "inverse": lambda m, A: m.inverse(A),
    "inv of a transpose": lambda m, A: m.linalg.inv(A.mT),
    "inv_ex": lambda m, A: m.linalg.inv_ex(A).inverse,
    "matrix_power 3": lambda m, A: m.matrix_power(A, 3),
    "matrix_power 6": lambda m, A: m.linalg.matrix_power(A, 6),
    "matrix_power -2": lambda m, A: m.matrix_power(A, -2),
    "matrix_power 0": lambda m, A: m.matrix_power(A, 0),
    "matrix_power 1": lambda m, A: A.matrix_power(1),
    "solve": lambda m, A: m.linalg.solve(A, A[..., 0, :].exp()),
    "solve right": lambda m, A: m.linalg.solve(A, A.sin(), left=False),
    "solve transposed": lambda m, A: m.linalg.solve(A.mT, A.sin()),
}


@pytest.mark.parametrize("shape", [(3, 3), (2, 2, 2), (1, 1)], ids=str)
@pytest.mark.parametrize("name", list(GRADIENTS))
def test_square_matrix_gradients(name, shape):
    A = _square(shape, "float64", seed=2) + engine.eye(shape[-1], dtype=engine.float64) * 3
    check_gradients(GRADIENTS[name], A, rtol=1e-8)


@pytest.mark.parametrize("fn", [lambda m, A: m.det(A), lambda m, A: m.slogdet(A).logabsdet,
                                lambda m, A: m.logdet(A)], ids=["det", "slogdet", "logdet"])
@pytest.mark.parametrize("values", [SINGULAR, SINGULAR_3, [[0.0, 0.0], [0.0, 0.0]]], ids=str)
def test_singular_gradients(values, fn):
    def run(m):
        A = m.tensor(values, dtype=m.float64, requires_grad=True)
        fn(m, A).sum().backward()
        B = m.tensor(values, dtype=m.float64).mT.requires_grad_()
        fn(m, B).sum().backward()
        return A.grad, B.grad
    parity.run_both(run, exact=False)


def test_det_second_derivative_of_a_singular_matrix_goes_through_the_svd():
    def run(m):
        A = m.tensor(SINGULAR_3, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(m.det(A), A, create_graph=True)
        (h,) = m.autograd.grad(g.sum(), A)
        return g, h
    parity.run_both(run, exact=False, check_repr=False, rtol=1e-8, atol=1e-12)


def test_square_matrix_graphs():
    for m in (torch, engine):
        A = m.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=m.float64, requires_grad=True)
        d = m.det(A)
        assert d.grad_fn.name() == "LinalgDetBackward0"
        assert d.grad_fn._saved_result is not None
        assert m.logdet(A).grad_fn.name() == "WhereBackward0"
        sign, logabsdet = m.slogdet(A)
        assert sign.grad_fn is logabsdet.grad_fn
        assert sign.grad_fn.name() == "LinalgSlogdetBackward0"
        assert m.linalg.inv_ex(A).inverse.grad_fn.name() == "LinalgInvExBackward0"
        assert m.linalg.inv_ex(A).info.grad_fn is None
        assert m.linalg.solve(A, A[0]).grad_fn.name() == "LinalgSolveExBackward0"
        (g,) = m.autograd.grad(m.det(A), A, create_graph=True)
        assert g.grad_fn.name() == "LinalgSolveExBackward0"
        (g,) = m.autograd.grad(m.inverse(A).sum(), A, create_graph=True)
        assert g.grad_fn.name() == "NegBackward0"
        assert m.matrix_power(A, 0).grad_fn.name().endswith("CopyBackwards")
        assert m.matrix_power(A, 1).grad_fn.name() == "CloneBackward0"
        assert m.matrix_power(A.expand(2, 2, 2), 2).grad_fn.name() == "UnsafeViewBackward0"


def _node_names(node, depth=0):
    if node is None or depth > 4:
        return []
    return [node.name()] + [name for child, _ in node.next_functions
                            for name in _node_names(child, depth + 1)]


@pytest.mark.parametrize("count", [1, 2])
def test_det_second_derivative_of_a_batch_mixing_singular_matrices(count):
    def run(m):
        A = m.tensor([SINGULAR, [[2.0, 1.0], [1.0, 3.0]]] * count, dtype=m.float64,
                     requires_grad=True)
        (g,) = m.autograd.grad(m.det(A).sum(), A, create_graph=True)
        (h,) = m.autograd.grad((g * g).sum(), A)
        return g, h, [name for name in _node_names(g.grad_fn) if "Reshape" not in name]
    parity.run_both(run, exact=False, check_repr=False, rtol=1e-8, atol=1e-12)


def test_forward_mode():
    def run(m):
        A = m.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=m.float64)
        with m.autograd.forward_ad.dual_level():
            dual = m.autograd.forward_ad.make_dual(A, m.ones(2, 2, dtype=m.float64))
            return [m.autograd.forward_ad.unpack_dual(f(dual)).tangent
                    for f in (m.det, m.inverse, lambda a: m.slogdet(a).logabsdet,
                              lambda a: m.linalg.solve(a, a[0]),
                              lambda a: m.matrix_power(a, -2))]
    parity.run_both(run, exact=False, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [-4, -1, 0, 1, 2, 4, 5])
def test_matrix_power_out_with_an_input_that_requires_grad(n):
    parity.run_both(lambda m: m.matrix_power(m.eye(2, requires_grad=True) * 2, n,
                                             out=m.empty(0)), exact=False)


@pytest.mark.parametrize("shapes", [((0, 0), (0,)), ((2, 0, 0), (2, 0, 3)), ((0, 2, 2), (2, 1)),
                                    ((2, 2), (2, 0)), ((2, 2), (2,))], ids=str)
def test_float16_reaches_the_lu_kernel_only_when_not_empty(shapes):
    A, B = (engine.zeros(s, dtype=engine.float16) for s in shapes)
    parity.run_both(lambda m, A, B: m.linalg.solve(A, B), A, B)
    parity.run_both(lambda m, A: m.det(A), A)
    parity.run_both(lambda m, A: m.linalg.inv(A), A)


OUT_WITH_GRAD = {
    "linalg.det": lambda m, A: m.linalg.det(A, out=m.empty(0)),
    "slogdet": lambda m, A: m.slogdet(A, out=(m.empty(0), m.empty(0))),
    "linalg.slogdet": lambda m, A: m.linalg.slogdet(A, out=(m.empty(0), m.empty(0))),
    "solve": lambda m, A: m.linalg.solve(A, m.ones(2), out=m.empty(0)),
    "solve_ex": lambda m, A: m.linalg.solve_ex(A, m.ones(2), out=(m.empty(0),
                                                                  m.empty(0, dtype=m.int32))),
    "inv_ex": lambda m, A: m.linalg.inv_ex(A, out=(m.empty(0), m.empty(0, dtype=m.int32))),
    "solve long 3x2": lambda m, A: m.linalg.solve(m.ones(3, 2).long(), m.ones(3).long()),
    "solve float, long": lambda m, A: m.linalg.solve(m.ones(3, 2), m.ones(3).long()),
    "solve half, float": lambda m, A: m.linalg.solve(m.ones(3, 3).half(), m.ones(3)),
    "solve half shapes": lambda m, A: m.linalg.solve(m.ones(3, 3).half(), m.ones(2, 2).half()),
}


@pytest.mark.parametrize("name", list(OUT_WITH_GRAD))
def test_out_with_grad_and_solve_check_order(name):
    parity.run_both(OUT_WITH_GRAD[name], engine.eye(2).requires_grad_())


@pytest.mark.parametrize("contiguous", [True, False])
def test_singular_gradient_zero_signs(contiguous):
    def run(m):
        A = m.tensor([[[4.0, 0.0], [1.0, 0.0]], [[-1.0, 0.0], [1.0, 0.0]]], dtype=m.float64,
                     requires_grad=True)
        B = A.flip(-1) if contiguous else A.mT
        m.det(B).sum().backward()
        m.slogdet(B).logabsdet.sum().backward()
        return A.grad
    parity.run_both(run)


@pytest.mark.parametrize("values", [[[0.0]], [[2.0]], [[[2.0]], [[0.0]]]], ids=str)
def test_det_gradient_of_a_1x1_matrix_is_one(values):
    def run(m):
        A = m.tensor(values, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(m.det(A.mT).sum(), A, create_graph=True)
        m.det(A).sum().backward()
        return g, A.grad
    parity.run_both(run)


def test_det_second_derivative_of_a_mixed_batch_keeps_the_input_layout():
    def run(m):
        A = m.tensor([[[1.0, 0.0], [1.0, 4.0]], [[0.0, -1.0], [0.0, 0.0]]], dtype=m.float64,
                     requires_grad=True)
        (g,) = m.autograd.grad(m.det(A.mT).sum(), A, create_graph=True)
        (g * g).sum().backward()
        return g, A.grad
    parity.run_both(run, exact=False, check_repr=False)


@pytest.mark.parametrize("values", [[[-1.0, 0.0], [0.0, 4.0]], [[2.0, 0.0], [0.0, -1.0]],
                                    [[1.0, 1.0, 4.0], [0.0, 1.0, 4.0], [4.0, -1.0, 1.0]],
                                    [[0.0, 0.0], [0.0, 0.0]]], ids=str)
def test_gradient_zero_signs_through_transposed_matrices(values):
    """LU's -0.0 (0 / -1): torch's det backward adds a diagonal to LU (-0.0 becomes 0.0), and
    MKL's triangular solves keep the sign of a sum of zero products (fuzz 2501414, 2501722)."""
    def run(m):
        A = m.tensor(values, dtype=m.float64, requires_grad=True)
        B = m.tensor(values, dtype=m.float64, requires_grad=True)
        m.det(A.mT).sum().backward()
        m.slogdet(B.mT).logabsdet.sum().backward()
        return A.grad, B.grad, m.linalg.solve(A.detach().mT, A.detach().mT[..., :1, :],
                                              left=False)
    parity.run_both(run)
