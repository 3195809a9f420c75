"""Square matrices through their LU factorisation: det, slogdet, logdet, inverse, solve, and
matrix_power (built from matmul and inverse, as torch builds it).

torch factors with LAPACK's getrf (partial pivoting) and solves with getrs; the engine runs
the same algorithm in numpy (``_lu_factor``, ``_lu_solve``), so that it finds the same zero
pivots (torch's "The diagonal element 2 is zero" errors and ``info``) and the same infinities
for a singular matrix. Values are torch's bits for small matrices and agree to rounding beyond
(engine/ops/README.md, "Where values can differ").

det and slogdet factor A^T instead of A when A is row-major contiguous (the same memory is
then a column-major matrix, which LAPACK wants); inverse and solve factor A itself. The
pivots, and so the rounding and which diagonal element comes out zero, depend on it.
"""
import builtins
import math

import numpy as np

from ..fidelity import calls, dtypes, messages, signatures
from ..fidelity.dtypes import scalar_type_name
from ..fidelity.floating import quietly
from ..fidelity.size import contiguous_format
from ..core.grad_mode import mode as grad_mode
from ..core.node import Node, SavedTensor, record
from ..core.tensor import Tensor, empty_preserving_layout, empty_strided, wrap
from .common import histories_read_first
from .common import named_result, out_dtype_is, overloads, resize_out_first, takes_out, write_out
from .arithmetic import where
from .join import cat
from .linalg import linalg_svd, matmul

__all__ = ["det", "inverse", "logdet", "matrix_power", "slogdet"]


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix the operation cannot handle (a singular one)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"  # (torch._C's name for it)


_Slogdet = named_result("slogdet", ["sign", "logabsdet"])
_SlogdetOut = named_result("slogdet_out", ["sign", "logabsdet"])
_LinalgSlogdet = named_result("linalg_slogdet", ["sign", "logabsdet"])
_LinalgSlogdetOut = named_result("linalg_slogdet_out", ["sign", "logabsdet"])
_InvEx = named_result("linalg_inv_ex", ["inverse", "info"])
_InvExOut = named_result("linalg_inv_ex_out", ["inverse", "info"])
_SolveEx = named_result("linalg_solve_ex", ["result", "info"])
_SolveExOut = named_result("linalg_solve_ex_out", ["result", "info"])


# ====================================================================== checks
def _require_tensor(function, value, name, position):
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, "
                        f"not {messages.type_name(value)}")


def _square(A, name):
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    rows, cols = A._data.shape[-2:]
    if rows != cols:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {rows} "
                           f"by {cols} matrices")


def _floating(A, name, low_precision_kernel=None):
    """A float32/float64 input; float16 is refused by the op itself or, when torch lets it
    reach LAPACK, by the LU kernel (``low_precision_kernel``), which an empty A never calls."""
    dtype = A._data.dtype
    if dtype.kind != "f":
        raise NotImplementedError(f"{name}: Expected a floating point or complex tensor as "
                                  f"input. Got {scalar_type_name[A.dtype]}")
    if dtype.itemsize < 4:
        if low_precision_kernel is not None:
            if A._data.size == 0:  # (torch's LU kernel is not even called)
                return
            raise NotImplementedError(f'"{low_precision_kernel}" not implemented for '
                                      f"'{scalar_type_name[A.dtype]}'")
        raise NotImplementedError(f"{name}: Low precision dtypes not supported. Got "
                                  f"{scalar_type_name[A.dtype]}")


def _bool_argument(function, name, value):
    if value.__class__ is not builtins.bool:
        raise TypeError(f"{function}(): argument '{name}' must be bool, not "
                        f"{messages.type_name(value)}")


def _raise_for_info(info, name, batched, singular):
    """torch's check of LAPACK's info: the first batch element whose factorisation met a zero
    pivot (``singular(k)`` says it, k counted from 1)."""
    failed = np.flatnonzero(info)
    if failed.size:
        where_ = f"(Batch element {failed[0]}): " if batched else ""
        raise LinAlgError(f"{name}: {where_}{singular(builtins.int(info.flat[failed[0]]))}")


def _inversion_failed(k):
    return (f"The diagonal element {k} is zero, the inversion could not be completed because "
            "the input matrix is singular.")


def _solver_failed(k):
    return "The solver failed because the input matrix is singular."


# ====================================================================== LAPACK's algorithms
def _factored_matrix(A):
    """What torch hands getrf: A^T (the same memory) when A is row-major contiguous, else A.
    Returns the matrices and whether they are transposed."""
    transposed = A.is_contiguous()
    data = A._data
    return (np.swapaxes(data, -1, -2) if transposed else data), transposed


def _lu_factor(matrices):
    """getrf on each matrix of (..., n, n): (LU, pivots (from 1, int32), info).

    Column after column: the largest |value| at or below the diagonal becomes the pivot
    (rows swapped), the column below it is scaled by the pivot's reciprocal (divided, for a
    pivot too small to invert), and the rest updated; a zero pivot sets info (the first one)
    and leaves its column as it is, as LAPACK does. This gives torch's (MKL's) bits for every
    one of 300 random matrices of each size 2 to 8 tried, float32 and float64."""
    shape = matrices.shape
    n = shape[-1]
    count = math.prod(shape[:-2])
    lu = np.array(matrices, copy=True).reshape(count, n, n)
    pivots = np.zeros((count, n), np.int32)
    info = np.zeros(count, np.int32)
    batch = np.arange(count)
    smallest = np.finfo(lu.dtype).tiny
    with np.errstate(all="ignore"):
        for k in range(n):
            p = k + np.argmax(np.abs(lu[:, k:, k]), axis=1)
            pivots[:, k] = p + 1
            row = lu[batch, k].copy()
            lu[batch, k] = lu[batch, p]
            lu[batch, p] = row
            pivot = lu[:, k, k]
            zero = pivot == 0
            info[zero & (info == 0)] = k + 1
            below = lu[:, k + 1:, k]
            if n <= 4 and k == n - 2:  # (MKL's kernel for small matrices divides the last one)
                scaled = below / pivot[:, None]
            else:
                scaled = np.where((np.abs(pivot) >= smallest)[:, None],
                                  below * (1 / pivot)[:, None], below / pivot[:, None])
            lu[:, k + 1:, k] = np.where(zero[:, None], below, scaled)
            lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k, None] * lu[:, k, None, k + 1:]
    return lu.reshape(shape), pivots.reshape(shape[:-1]), info.reshape(shape[:-2])


def _swap_rows(x, pivots, order):
    batch = np.arange(x.shape[0])
    for k in order:
        p = pivots[:, k] - 1
        row = x[batch, k].copy()
        x[batch, k] = x[batch, p]
        x[batch, p] = row


def _lu_solve(lu, pivots, b, adjoint):
    """getrs: X with A X = b (``adjoint``: A^T X = b), A = P L U as _lu_factor gives it;
    lu, pivots and b already broadcast to one batch shape."""
    n = lu.shape[-1]
    shape = b.shape
    count = math.prod(shape[:-2])
    lu, pivots = lu.reshape(count, n, n), pivots.reshape(count, n)
    x = np.array(b, lu.dtype, copy=True).reshape(count, n, shape[-1])
    with np.errstate(all="ignore"):
        if not adjoint:  # P^T b, then L (unit) row by row, then U
            _swap_rows(x, pivots, range(n))
            for i in range(1, n):  # (each row's sum subtracted at once: MKL's bits for 1,469 of
                # 1,469 random 3 x 3 solves, where subtracting column by column gave 980)
                x[:, i] = x[:, i] - _dot(lu[:, i, :i], x[:, :i])
            for i in reversed(range(n)):  # (row by row, times 1 / U's diagonal: MKL's bits
                # for every matrix up to 3 x 3 tried)
                x[:, i] = (x[:, i] - _dot(lu[:, i, i + 1:], x[:, i + 1:])) * \
                    (1 / lu[:, i, i, None])
        else:  # U^T, then L^T (unit), row by row, then P (MKL's bits up to 3 x 3 too)
            for i in range(n):
                x[:, i] = (x[:, i] - _dot(lu[:, :i, i], x[:, :i])) * (1 / lu[:, i, i, None])
            for i in reversed(range(n)):
                x[:, i] -= _dot(lu[:, i + 1:, i], x[:, i + 1:])
            _swap_rows(x, pivots, reversed(range(n)))
    return x.reshape(shape)


def _dot(row, x):
    """sum_k row[b, k] x[b, k, :] as MKL's triangular solve adds it: BLAS's order (fused),
    and a sum of zeros keeps their sign (-0.0 for -0.0 products alone), where BLAS's sum
    from +0.0 would not."""
    total = np.matmul(row[:, None, :], x)[:, 0]
    zero = total == 0
    if zero.any() and row.shape[1]:
        products = row[:, :, None] * x
        exact = products[:, 0]
        for k in range(1, products.shape[1]):  # (np.add.reduce starts from +0.0)
            exact = exact + products[:, k]
        total = np.where(zero, exact, total)
    return total


def _lu_solve_sided(lu, pivots, b, left, adjoint):
    """X A = b (``left`` False) is A^T X^T = b^T."""
    if left:
        return _lu_solve(lu, pivots, b, adjoint)
    return np.swapaxes(_lu_solve(lu, pivots, np.swapaxes(b, -1, -2), not adjoint), -1, -2)


def _broadcast_factors(lu, pivots, batch):
    n = lu.shape[-1]
    return (np.broadcast_to(lu, batch + (n, n)), np.broadcast_to(pivots, batch + (n,)))


def _column_major(values):
    """``values`` in a fresh tensor laid out as torch's LAPACK results: row-major batches of
    column-major matrices (ATen's batched_matrix_contiguous_strides)."""
    shape = values.shape
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= builtins.max(n, 1)
    if len(shape) >= 2:
        strides[-1], strides[-2] = builtins.max(shape[-2], 1), 1
    result = empty_strided(shape, strides, values.dtype)
    np.copyto(result._data, values)
    return result


def _determinant_parts(A):
    """(LU, pivots, the permutation's sign) of A's factorisation (A^T's when contiguous)."""
    matrices, _ = _factored_matrix(A)
    lu, pivots, info = _lu_factor(matrices)
    n = lu.shape[-1]
    swaps = (pivots != np.arange(1, n + 1, dtype=np.int32)).sum(-1)
    return lu, pivots, np.where(swaps % 2 == 1, -1, 1)


def _row_major(values):
    """A row-major copy (np.ascontiguousarray would turn a 0-d array into a 1-d one)."""
    return np.array(values, order="C")


def _diagonal(lu):
    return np.diagonal(lu, 0, -2, -1)


# ====================================================================== det
def _det_out(out, A):
    """linalg.det's out= is of A's dtype exactly."""
    if isinstance(A, Tensor):
        out_dtype_is(out, A._data.dtype)


@takes_out(name="_linalg_det", before=_det_out)
def linalg_det(A):
    """The determinant of each square matrix: the product of U's diagonal from A = P L U,
    times the sign of the row swaps."""
    _require_tensor("linalg_det", A, "A", 1)
    _square(A, "linalg.det")
    _floating(A, "linalg.det", "lu_cpu")
    lu, pivots, sign = _determinant_parts(A)
    product = np.multiply.reduce(_diagonal(lu), axis=-1) if lu.shape[-1] else \
        np.ones(lu.shape[:-2], lu.dtype)
    result = wrap(_row_major(quietly(np.multiply, sign.astype(lu.dtype), product)))
    LU, pivots = wrap(lu), wrap(pivots)
    return record(LinalgDetBackward0, result, (A,), saved=(A, LU, pivots), saved_output=True)


def det(input):
    """torch.det: linalg.det without out=."""
    _require_tensor("det", input, "input", 1)
    return linalg_det.without_out(input)


class LinalgDetBackward0(Node):
    """det(A):  d/dA = det(A) A^-T, solved with A's LU factors (a zero pivot replaced by
    epsilon, so that a singular matrix still gets the limit's gradient); with create_graph,
    through linalg.solve (differentiable), or the SVD where A is (nearly) singular."""

    _saved_names = ("A", "LU", "pivots", "result")

    def backward(self, grad):
        A, LU, pivots, det_ = self.saved_tensors
        if A._data.shape[-1] == 1:  # d det / dA of a 1 x 1 matrix is 1, whatever A holds
            return grad.unsqueeze(-1).unsqueeze(-1)
        if grad_mode.grad_enabled:
            return _det_backward_differentiable(grad, det_, A, pivots)
        epsilon = np.finfo(LU._data.dtype).eps
        lu = LU._data + 0.0  # (torch adds a diagonal matrix: every -0.0 of LU becomes 0.0)
        diagonal = _diagonal(lu).copy()
        diagonal[diagonal == 0] = epsilon
        n = lu.shape[-1]
        np.einsum("...ii->...i", lu)[...] = diagonal
        d = _diagonal_right_side(quietly(np.multiply, grad._data, det_._data), n)
        return _column_major(_lu_solve(lu, pivots._data, d, adjoint=not A.is_contiguous()))


def _diagonal_right_side(values, n):
    """Matrices with ``values`` on the diagonal and +0.0 elsewhere (diag_embed's zeros: a
    product with an identity would give -0.0 next to a negative value)."""
    d = np.zeros(values.shape + (n, n), values.dtype)
    np.einsum("...ii->...i", d)[...] = values[..., None]
    return d


def _diagonal_matrices(values, pivots):
    """diag_embed(values.unsqueeze(-1).expand_as(pivots)).mT, as torch builds its right side."""
    return values.unsqueeze(-1).expand(*pivots.shape).diag_embed().mT


def _det_backward_differentiable(grad, det_, A, pivots):
    """torch's masked_fmap: the SVD's formula where |det| < 100 eps, solve's elsewhere, each
    on its part of the batch, written into one result (two index_put_) when the batch mixes them."""
    d = _diagonal_matrices(grad * det_, pivots)
    epsilon = np.finfo(A._data.dtype).eps
    singular = np.abs(det_._data) < 100 * epsilon
    if not singular.any():
        return linalg_solve(A.mT, d)
    if singular.all():
        return _det_backward_singular(A, grad)
    mask, regular = wrap(singular), wrap(~singular)
    result = empty_preserving_layout(A)  # (torch's empty_like(A): A's strides)
    result._data[...] = 0
    parts = (_det_backward_singular(A[mask], grad[mask]), linalg_solve(A[regular].mT, d[regular]))
    for where_, part in zip((mask, regular), parts):
        result[where_] = part  # (a part of one matrix is viewed without its leading 1, as torch)
    return result


def _det_backward_singular(A, grad):
    """The cofactors of a (nearly) singular A from its SVD: U diag(prod_{j != i} S_j) Vh,
    times det(U) det(Vh)."""
    U, S, Vh = linalg_svd(A)
    alpha = linalg_det(U) * linalg_det(Vh)
    D = _prod_safe_zeros_backward((grad * alpha).unsqueeze(-1), S)
    return (U * D.unsqueeze(-2)).matmul(Vh)


def _prod_safe_zeros_backward(grad, values):
    """grad times the product of the other values along the last dim, without dividing."""
    if values._data.size == 0:
        return grad.expand_as(values)
    ones = wrap(np.ones(values._data.shape[:-1] + (1,), values._data.dtype))
    n = values._data.shape[-1]
    before = cat([ones, values.narrow(-1, 0, n - 1)], -1).cumprod(-1)
    after = cat([ones, values.narrow(-1, 1, n - 1).flip((-1,))], -1).cumprod(-1).flip((-1,))
    return grad * (before * after)


# ====================================================================== slogdet, logdet
def _slogdet_values(A):
    lu, pivots, permutation = _determinant_parts(A)
    diagonal = _diagonal(lu)
    signs = np.multiply.reduce(np.sign(diagonal), axis=-1) if lu.shape[-1] else \
        np.ones(lu.shape[:-2], lu.dtype)
    sign = _row_major(quietly(np.multiply, signs, permutation.astype(lu.dtype)))
    logs = wrap(np.abs(diagonal)).log()._data  # (the engine's log: torch's bits in float32)
    logabsdet = _row_major(np.add.reduce(logs, axis=-1) if lu.shape[-1] else
                                     np.zeros(lu.shape[:-2], lu.dtype))
    return wrap(sign), wrap(logabsdet), wrap(lu), wrap(pivots)


def _slogdet(A, name, result_type):
    _square(A, name)
    _floating(A, name)
    sign, logabsdet, LU, pivots = _slogdet_values(A)
    results = record(LinalgSlogdetBackward0, (sign, logabsdet), (A,), saved=(A, LU, pivots))
    if sign.grad_fn is not None:  # the node keeps sign, its output
        sign.grad_fn._saved = sign.grad_fn._saved + (SavedTensor(sign, True),)
    return result_type(*results)


def _slogdet_out(out, A, name, out_type):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
    result = _slogdet(A, name, _LinalgSlogdet)
    for target in out:
        out_dtype_is(target, A._data.dtype)
    return out_type(*(write_out(r, t) for r, t in zip(result, out)))


def linalg_slogdet(A, *, out=None):
    """(sign, log|det|) of each square matrix, from its LU factors: log|det| stays finite
    where det itself would overflow or underflow."""
    _require_tensor("linalg_slogdet", A, "A", 1)
    if out is not None:
        _refuse_grad("_linalg_slogdet", A)
        return _slogdet_out(out, A, "linalg.slogdet", _LinalgSlogdetOut)
    return _slogdet(A, "linalg.slogdet", _LinalgSlogdet)


def slogdet(input, *, out=None):
    """torch.slogdet: linalg.slogdet, as a torch.return_types.slogdet."""
    _require_tensor("slogdet", input, "input", 1)
    if out is not None:
        _refuse_grad("_linalg_slogdet", input)
        return _slogdet_out(out, input, "linalg.slogdet", _SlogdetOut)
    return _slogdet(input, "linalg.slogdet", _Slogdet)


class LinalgSlogdetBackward0(Node):
    """(sign, log|det A|):  d log|det| / dA = A^-T (sign's gradient is zero), solved with
    A's LU factors; with create_graph, through linalg.solve."""

    num_outputs = 2
    _saved_names = ("A", "LU", "pivots", "sign")

    def backward(self, grad_sign, grad_logabsdet=None):
        if grad_logabsdet is None:
            return None
        A, LU, pivots = self.saved_tensors[:3]  # (and sign, which the formula does not read)
        if grad_mode.grad_enabled:
            return linalg_solve(A.mT, _diagonal_matrices(grad_logabsdet, pivots))
        n = LU._data.shape[-1]
        d = _diagonal_right_side(grad_logabsdet._data, n)
        return _column_major(_lu_solve(LU._data, pivots._data, d,
                                       adjoint=not A.is_contiguous()))


def logdet(input):
    """log(det(A)): slogdet's log|det|, nan where the determinant is negative."""
    _require_tensor("logdet", input, "input", 1)
    _square(input, "logdet")
    _floating(input, "logdet")
    sign, logabsdet = _slogdet(input, "linalg.slogdet", _LinalgSlogdet)
    return where(sign == -1.0, math.nan, logabsdet)


def _refuse_grad(name, A):
    if grad_mode.grad_enabled and A.requires_grad:
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")


# ====================================================================== inverse
def _inverse(A, name):
    """(inverse, info): A^-1 = solve(A, I), with torch's layout (column-major matrices)."""
    _square(A, name)
    _floating(A, name)
    lu, pivots, info = _lu_factor(A._data)  # (A itself: only det and slogdet factor A^T)
    n = lu.shape[-1]
    identity = np.broadcast_to(np.eye(n, dtype=lu.dtype), lu.shape)
    inverse = _column_major(_lu_solve(lu, pivots, identity, adjoint=False))
    record(LinalgInvExBackward0, inverse, (A,), saved_output=True)
    return inverse, info


def _laid_out_write(result, out):
    """out= of a LAPACK result: out's own layout when it has the result's shape, else resized
    to the result's (column-major) layout; its dtype exactly the result's."""
    out_dtype_is(out, result._data.dtype)
    shape = result._data.shape
    if out._data.shape != shape:
        resize_out_first(out, shape)
        fresh = _column_major(result._data)
        out._data, out._stride, out._storage = fresh._data, fresh._stride, fresh._storage
    np.copyto(out._data, result._data)
    out._bump_version()
    return out


def linalg_inv(A, *, out=None):
    """The inverse of each square matrix; a singular one raises torch.linalg.LinAlgError."""
    _require_tensor("linalg_inv", A, "A", 1)
    if out is not None:
        _refuse_grad("linalg_inv_ex", A)  # (torch's inv with out= runs inv_ex's)
    inverse, info = _inverse(A, "linalg.inv")
    _raise_for_info(info, "linalg.inv", A._data.ndim > 2, _inversion_failed)
    return inverse if out is None else _laid_out_write(inverse, out)


def inverse(input, *, out=None):
    """torch.inverse: linalg.inv."""
    _require_tensor("inverse", input, "input", 1)
    return linalg_inv(input, out=out)


def _inverse_method(input):
    return linalg_inv(input)


_inverse_method.__name__ = "inverse"
inverse.without_out = _inverse_method  # (the method: x.inverse(), without out=)
inverse = overloads("(Tensor input, *, Tensor out = None)")(inverse)


def linalg_inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info): info is LAPACK's, 0 or the (1-based) index of a zero pivot; a
    singular matrix's inverse holds infinities (or nan) instead of raising."""
    _require_tensor("linalg_inv_ex", A, "A", 1)
    _bool_argument("linalg_inv_ex", "check_errors", check_errors)
    if out is not None:
        _refuse_grad("linalg_inv_ex", A)
    inverse_, info = _inverse(A, "linalg.inv")
    if check_errors:
        _raise_for_info(info, "linalg.inv_ex", A._data.ndim > 2, _inversion_failed)
    info = wrap(_row_major(info))
    if out is None:
        return _InvEx(inverse_, info)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
    out_dtype_is(out[1], np.dtype(np.int32))
    return _InvExOut(_laid_out_write(inverse_, out[0]), write_out(info, out[1]))


class LinalgInvExBackward0(Node):
    """B = A^-1:  d/dA = -B^T grad B^T"""

    _saved_names = ("inverse",)

    def backward(self, grad, grad_info=None):
        (inverse_,) = self.saved_tensors
        return -matmul(inverse_.mT, matmul(grad, inverse_.mT))


# ====================================================================== solve
def _is_vector_rhs(A_shape, B_shape):
    """numpy's rule, which torch keeps: B is a vector (or a batch of them) when it is 1-d or
    has A's shape without its last dim."""
    return len(B_shape) == 1 or (len(A_shape) - 1 == len(B_shape) and
                                 tuple(B_shape) == tuple(A_shape[:-1]))


def _solve(A, B, left, name):
    """(X, LU, pivots, info) with A X = B (``left``) or X A = B."""
    _require_tensor("linalg_solve", A, "A", 1)
    _require_tensor("linalg_solve", B, "B", 2)
    if A._data.dtype.kind != "f":  # (torch's order: A's dtype, B's, then the shapes)
        _floating(A, "linalg.solve")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A "
                           f"of type {scalar_type_name[A.dtype]} and B of type "
                           f"{scalar_type_name[B.dtype]} instead")
    _square(A, "linalg.solve")
    vector = _is_vector_rhs(A._data.shape, B._data.shape)
    b = B._data[..., None] if vector else B._data
    if b.ndim < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    n = A._data.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{b.shape[-2]}x{b.shape[-1]})")
    batch = np.broadcast_shapes(A._data.shape[:-2], b.shape[:-2])
    _floating(A, "linalg.solve", "lu_cpu")
    lu, pivots, info = _lu_factor(A._data)
    b = np.broadcast_to(b, batch + b.shape[-2:])
    lu_b, pivots_b = _broadcast_factors(lu, pivots, batch)
    x = _lu_solve_sided(lu_b, pivots_b, b, left, adjoint=False)
    if vector:
        x = x[..., 0]
    result = _column_major(x) if left or vector else _column_major(np.swapaxes(x, -1, -2)).mT
    return result, wrap(lu), wrap(pivots), info


def _solve_recorded(A, B, left, name, check_errors):
    result, LU, pivots, info = _solve(A, B, left, name)
    if check_errors:
        _raise_for_info(info, f"torch.{name}", info.ndim > 0, _solver_failed)
    record(LinalgSolveExBackward0, result, (A, B), saved=(A, LU, pivots), saved_output=True,
           left=left)
    return result, wrap(_row_major(info))


def linalg_solve(A, B, *, left=True, out=None):
    """X with A X = B (or X A = B with left=False), for a batch of square A; B a matrix or,
    as numpy decides, a vector."""
    if out is not None:
        for value in (A, B):
            if isinstance(value, Tensor):
                _refuse_grad("_linalg_solve_ex", value)
        result = _solve_recorded(A, B, left, "linalg.solve", check_errors=True)[0]
        return _laid_out_write(result, out)
    return _solve_recorded(A, B, left, "linalg.solve", check_errors=True)[0]


def linalg_solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """(result, info): solve without raising for a singular A (info says which)."""
    _bool_argument("linalg_solve_ex", "check_errors", check_errors)
    if out is not None:
        for value in (A, B):
            if isinstance(value, Tensor):
                _refuse_grad("_linalg_solve_ex", value)
    result, info = _solve_recorded(A, B, left, "linalg.solve_ex", check_errors)
    if out is None:
        return _SolveEx(result, info)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
    out_dtype_is(out[1], np.dtype(np.int32))
    return _SolveExOut(_laid_out_write(result, out[0]), write_out(info, out[1]))


class LinalgSolveExBackward0(Node):
    """X = A^-1 B:  d/dB = A^-T grad,  d/dA = -(d/dB) X^T  (X A = B: d/dB = grad A^-T,
    d/dA = -X^T d/dB); with create_graph d/dB comes from linalg.solve (differentiable)."""

    _saved_names = ("A", "LU", "pivots", "result")
    left: bool

    def backward(self, grad):
        A, LU, pivots, X = self.saved_tensors
        vector = _is_vector_rhs(LU._data.shape, X._data.shape)
        grad_m = grad.unsqueeze(-1) if vector else grad
        X_m = X.unsqueeze(-1) if vector else X
        if grad_mode.grad_enabled:
            gB = linalg_solve(A.mT, grad_m, left=self.left)
        else:
            batch = grad_m._data.shape[:-2]
            lu, pivots_b = _broadcast_factors(LU._data, pivots._data,
                                              np.broadcast_shapes(batch, LU._data.shape[:-2]))
            gB = _column_major(_lu_solve_sided(lu, pivots_b, grad_m._data, self.left,
                                               adjoint=True))
        gA = -gB.matmul(X_m.mT) if self.left else -X_m.mT.matmul(gB)
        return gA, gB.squeeze(-1) if vector else gB


# ====================================================================== matrix_power
def _matrix_power_out(out, input, *args, **kwargs):
    """out= checked as torch's kernel checks it: a dtype input's result casts to safely, then
    resized to input's shape before anything is computed."""
    if not isinstance(input, Tensor):
        return
    if not dtypes.can_cast(input.dtype, out.dtype):
        raise RuntimeError(f"matrix_power: Expected result to be safely castable from "
                           f"{scalar_type_name[input.dtype]} dtype, but got result with dtype "
                           f"{scalar_type_name[out.dtype]}")


def _power_argument(function, n):
    if n.__class__ is builtins.int:
        return n
    if signatures.is_int(n):  # (torch's int: a numpy integer, a 0-d integer tensor too)
        return n.__index__()
    raise TypeError(f"{function}(): argument 'n' (position {calls.position(2)}) must be int, "
                    f"not {messages.type_name(n)}")


def _matrix_power(input, n, out, function):
    """torch's steps, whose own out= checks apply: out= with an input that requires grad is
    refused by the matmul or inverse that writes it, and allowed where out is copied into."""
    n = _power_argument(function, n)
    _square(input, "linalg.matrix_power")
    if out is not None:
        _matrix_power_out(out, input)
        resize_out_first(out, input._data.shape)
    if n == 0:
        identity = wrap(np.broadcast_to(np.eye(input._data.shape[-1], dtype=input._data.dtype),
                                        input._data.shape).copy())
        if out is not None:
            return out.copy_(identity)
        return input.clone(memory_format=contiguous_format).copy_(identity)
    if n == 1:
        return out.copy_(input) if out is not None else input.clone(memory_format=contiguous_format)
    if n == -1:
        return linalg_inv(input, out=out)
    a = linalg_inv(input) if n < 0 else input
    n = abs(n)
    if n == 2:
        return matmul(a, a, out=out)
    if n == 3:
        return matmul(matmul(a, a), a, out=out)
    # torch's binary decomposition: square z, multiply result by it at each set bit
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else matmul(z, z)
        if bit:
            if out is not None and n <= 0:
                return out.copy_(z) if result is None else matmul(result, z, out=out)
            result = z if result is None else matmul(result, z)
    return result


def linalg_matrix_power(A, n, *, out=None):
    """A @ A @ ... (n times; A^-1 to the |n| for negative n; the identity for 0)."""
    _require_tensor("linalg_matrix_power", A, "input", 1)
    return _matrix_power(A, n, out, "linalg_matrix_power")


def matrix_power(input, n, *, out=None):
    """torch.matrix_power: linalg.matrix_power."""
    _require_tensor("matrix_power", input, "input", 1)
    return _matrix_power(input, n, out, "matrix_power")


def _matrix_power_method(input, n):
    return _matrix_power(input, n, None, "matrix_power")


_matrix_power_method.__name__ = "matrix_power"
matrix_power.without_out = _matrix_power_method
matrix_power = overloads("(Tensor input, int n, *, Tensor out = None)")(matrix_power)


def _slogdet_method(input):
    return _slogdet(input, "linalg.slogdet", _Slogdet)


_slogdet_method.__name__ = "slogdet"
slogdet.without_out = _slogdet_method
slogdet = overloads("(Tensor input, *, tuple of Tensors out = None)")(slogdet)
det = overloads("(Tensor input)")(det)
logdet = overloads("(Tensor input)")(logdet)

histories_read_first(globals(), __all__)
