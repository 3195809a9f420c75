"""Matrix products: mm, mv, dot, bmm, matmul, addmm, outer; svd and the norms (torch.norm
beside linalg.norm, as torch's dispatches to linalg's vector and matrix norms).
"""
import builtins
import math

import numpy as np

from ..fidelity import calls, dtypes, messages, signatures
from ..fidelity.messages import CPP_TYPE_NAMES, type_name
from ..fidelity.dtypes import from_numpy_dtype, scalar_type_name
from ..fidelity.size import dim_index, wrap_dim
from ..fidelity.floating import quietly
from ..fidelity.rounding import fma32
from ..core.forward import has_tangent, state as dual
from ..core.tangents import scaled_tangent, tangent_difference, tangent_sum
from ..core.grad_mode import mode as grad_mode
from ..core.backward import sum_to
from ..core.grad_mode import no_grad
from ..core.node import Node, SavedTensor, record
from ..core.tensor import Tensor, empty_strided, wrap
from .common import tensor_inputs
from .common import histories_read_first
from .common import (broadcast_error, named_arguments, named_result, not_implemented_for,
                     numpy_names,
                     out_dtype_is, out_of_results_dtype, overloads, refuse_saving_inference,
                     require_tensors, resize_out_first, takes_out)
from .views import UnsafeViewBackward0, view_strides
from .arithmetic import kept_for, mul
from .reduce import amax, amin, check_norm_dtypes, norm_backward, norm_jvp, norm_over_dims
from .views import permute
from .common import number_parameters


def _zero_if_missing(tangent, primal):
    """torch's tangent of zeros for an operand without one: its matrix products compute with
    it (0 times a nan is nan), where its mul and add skip it."""
    return primal.new_zeros(primal.shape) if tangent is None else tangent


def _product_jvp(product, a, b, tangent_a, tangent_b):
    """torch's tangent of a product: product(t_a, b) + product(a, t_b)."""
    return product(_zero_if_missing(tangent_a, a), b) + product(a, _zero_if_missing(tangent_b,
                                                                                    b))


def _affine_product_jvp(node, product, tangents, summed=False):
    """torch's tangent of beta * x + alpha * product(a, b) (addmm, addmv, baddbmm; addbmm's
    products ``summed`` over the batch): beta t_x + alpha product(t_a, b) + alpha
    product(a, t_b), a factor of 1 multiplying nothing."""
    (_, a, b), (tangent_x, tangent_a, tangent_b) = node.primals, tangents
    terms = [product(_zero_if_missing(tangent_a, a), b), product(a, _zero_if_missing(tangent_b,
                                                                                      b))]
    if summed:
        terms = [term.sum(0) for term in terms]
    first, second = (scaled_tangent(term, node.alpha) for term in terms)
    return tangent_sum(scaled_tangent(tangent_x, node.beta), first,
                       node.results[0]) + second

__all__ = ["addmm", "bmm", "cross", "dot", "ger", "inner", "matmul", "mm", "mv", "outer", "svd",
           "vdot"]

def _products(a, b, small_in_torchs_order=False):
    """a @ b in numpy; float16 accumulates in float32 (as torch's kernels do) and rounds once.
    ``small_in_torchs_order`` (mm, matmul, mv): a small float32 or float64 product that
    torch's kernel adds term by term is added so (``_adds_term_by_term``). (dot: see
    ``_vector_dot``.)"""
    if a.dtype != b.dtype:  # nothing to multiply (bmm checks no dtype then): mat2's dtype
        return np.matmul(a.astype(b.dtype), b)
    if a.dtype.char == "e":
        return quietly(lambda: np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(
            np.float16))
    result = quietly(np.matmul, a, b)  # (inf * 0 is nan, without a word, as in torch)
    if a.dtype.char in "fd" and a.size and b.size and (
            small_in_torchs_order and _adds_term_by_term(a, b) or
            a.dtype.char == "f" and _may_overflow(a, b)):
        result = np.array(result)  # (dot's is a numpy scalar)
        _overflow_as_torch(a, b, result)
    return result


def _batch_products(a, b):
    """a @ b batch by batch, as torch's bmm: a batch of small matrices (fewer than 400
    multiply-adds each: torch's threshold) in its plain loop, each term rounded and added one
    after another from +0 (measured: 300 of 300 random float32 and float64 batches; numpy's
    BLAS agrees on 29%); larger ones in numpy's BLAS, as torch's in its own. A 1-D operand is
    a row (left) or a column (right), as in matmul."""
    rows = a[None, :] if a.ndim == 1 else a
    columns = b[:, None] if b.ndim == 1 else b
    n, k, p = rows.shape[-2], rows.shape[-1], columns.shape[-1]
    if a.dtype != b.dtype or a.dtype.char not in "fd" or k * n * p >= 400:
        return _products(a, b)
    if k == 0:
        result = np.zeros(np.broadcast_shapes(rows.shape[:-2], columns.shape[:-2]) + (n, p),
                          a.dtype)
    else:
        with np.errstate(all="ignore"):  # (inf * 0 is nan, as in torch)
            terms = rows[..., :, :, None] * columns[..., None, :, :]  # (..., n, k, p)
            terms[..., 0, :] += 0.0  # (the sum starts from +0: a first term -0 gives +0)
            # accumulate adds one term after another (reduce would add them pairwise)
            result = np.ascontiguousarray(np.add.accumulate(terms, axis=-2)[..., -1, :])
    if b.ndim == 1:
        result = result[..., 0]
    return result[..., 0, :] if a.ndim == 1 else result


def _adds_term_by_term(a, b):
    """Whether torch rounds each term of a @ b and adds them one after another, as measured
    (3,000 random products of up to 5 rows, 39 terms, 15 columns, float32 and float64): every
    product of a single row, and most of up to 4 terms (all in float32 with up to 3 rows or
    11 columns); larger ones interleave their sums (numpy's BLAS fuses them: either way the
    last bit can differ, DIFFERENCES.md). Up to 16,384 terms: the replay is slower than BLAS
    (a row of 64 times a 64 x 10 matrix: 13 us, BLAS 7 us)."""
    if a.ndim > 2 or b.ndim > 2 or a.ndim == 1 and b.ndim == 1:  # (dot: _vector_dot)
        return False
    rows, columns, terms = (a.shape[0] if a.ndim == 2 else 1), (b.shape[1] if b.ndim == 2
                                                                 else 1), a.shape[-1]
    return (rows <= 3 or columns <= 11) and (rows == 1 or terms <= 4) and \
        rows * columns * terms <= 16384


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _may_overflow(a, b):
    """Whether a float32 sum of a @ b that torch adds term by term (see _overflow_as_torch)
    overflowed, or some order of its additions would: every term and partial sum is at most
    max|a| max|b| k, give or take the roundings, so half of float32's largest is the limit
    (an inf or a nan in either makes the bound not finite, and so says yes)."""
    if (a.shape[-2] if a.ndim >= 2 else 1) > 3 and (b.shape[-1] if b.ndim >= 2 else 1) > 11:
        return False
    bound = np.float64(np.abs(a).max()) * np.abs(b).max() * a.shape[-1]
    return not bound < _FLOAT32_MAX / 2


def _overflow_as_torch(a, b, result):
    """A float32 product near overflow: torch's kernel for a vector, or for few rows or
    columns (up to 3 and 11, measured), rounds each term before adding them one after
    another; numpy's BLAS fuses them (fma) and adds in its own order. They differ once a
    term or a partial sum overflows: a term of inf and one of -inf make nan, where the fused
    sum keeps the first inf, and 3e38 + 3e38 - 3e38 is inf, not 3e38. Its sum starts at +0
    (a sum of -0.0 terms is 0.0), as numpy's BLAS does elsewhere."""
    matrix_a = a if a.ndim >= 2 else a[None, :]
    matrix_b = b if b.ndim >= 2 else b[:, None]
    products = result if a.ndim >= 2 and b.ndim >= 2 else result.reshape(
        matrix_a.shape[-2], matrix_b.shape[-1])  # (a view: written through)
    terms = quietly(np.multiply, matrix_a[..., :, None, :],
                    np.swapaxes(matrix_b, -1, -2)[..., None, :, :])
    terms = np.broadcast_to(terms, products.shape + terms.shape[-1:])
    # (+ 0: the same sum from +0, which only turns a -0.0 into 0.0)
    products[...] = quietly(np.add.accumulate, terms, axis=-1)[..., -1] + products.dtype.type(0)


# MKL's sdot and ddot (oneMKL 2024.0, torch 2.15's BLAS) as measured on an AMD EPYC (its
# code for processors other than Intel's: the same with MKL_ENABLE_INSTRUCTIONS=SSE4_2, AVX2
# or AVX512; an Intel CPU may run other kernels, not measured): per dtype, the elements in
# one 16-byte vector (the alignment that matters), and the length (32 KB) from which MKL
# splits a dot over its threads, where the engine stops replaying it (see _vector_dot).
_MKL_DOT_LANES = {"f": 4, "d": 2}
_MKL_DOT_SPLIT = {"f": 8192, "d": 4096}


def _vector_dot(input, other):
    """torch's dot of two vectors (dot, and so vdot, matmul and tensordot of two 1-D tensors,
    inner of two contiguous ones): float32 and float64 go to MKL's sdot / ddot (MKL_VERBOSE
    shows them), whose order of additions is replayed (``_mkl_dot``): it depends on where
    each vector starts in memory, which the engine knows from the storage offset (torch's
    storages start on 64-byte boundaries). Other dtypes are torch's own loops (numpy's
    here); an empty dot is 0 in both.

    From 8,192 float32 (4,096 float64) terms numpy's BLAS adds them, in its own order (the
    last bits can differ: DIFFERENCES.md). There MKL splits a dot over its threads: with 2
    (torch's default on 2 cores) in two halves, the first ceil(n/2) long, each as below at
    its own alignment, then added, unless a stride is 0 (measured: 1,100 random dots of up
    to 3 million terms, bit for bit; not replayed, as MKL's own thread count would be
    needed); and the replay gets slow, 1.5 to 4 ns a term (numpy adds the rows of lanes
    one after another, and the terms of the sequential paths one by one) against numpy's
    BLAS's 0.1 to 0.4. engine.dot of n = 10, 100, 1,000, 4,095, 8,191 terms, in us, with
    the replay (with numpy's BLAS before, mostly the op's own checks): aligned float32 7,
    7, 8, 13, 19 (9, 7, 8, 7, 10); float32 at different alignments 7, 7, 10, 23, 36 (7, 7,
    8, 8, 9); float32 with a stride 3, 3, 6, 18, 50 (13, 13, 23, 32, 47: term by term
    already); float64 6, 7, 8, 21 (4, 3, 4, 5); float64 with a stride 4, 4, 7, 19 (4, 4, 4,
    5)."""
    a, b = input._data, other._data
    if a.dtype.char not in "fd" or not a.size:
        return _products(a, b)
    if a.shape[0] >= _MKL_DOT_SPLIT[a.dtype.char]:
        return quietly(np.dot, a, b)
    return quietly(_mkl_dot, a, b, input.storage_offset(), other.storage_offset())


def _mkl_dot(a, b, offset_a, offset_b):
    """MKL's dot of x = a and y = b on one thread. Measured with +H, -H and ones at chosen
    places (the sum is n minus the size of the subtree where H and -H meet), which rebuilds
    the tree of additions for n up to 1,200 and checks any pair beyond; then bit for bit
    on random dots with mixed magnitudes, cancellations, near overflow, zeros of both signs,
    inf and nan: float32, 61,000 aligned ones of up to 5,000 terms and 25,400 at all 16
    alignments of up to 100,000; float64, 23,400 at all 8 alignments of up to a million;
    strided, 5,000 of each dtype. numpy's BLAS agrees with 57% of such float32 dots and 68%
    of float64 ones.

    Each product is rounded first (no fused multiply-add) and the sums start from +0
    (a dot of -0.0 products is 0.0). Vectors with a stride other than 1: float32 adds the
    terms one after another; float64 keeps two sums, of the even and of the odd terms,
    adding them at the end. Contiguous vectors: ``_mkl_dot_lanes``."""
    terms = np.multiply(a, b)
    if a.flags.c_contiguous and b.flags.c_contiguous:
        result = _mkl_dot_lanes(terms, offset_a, offset_b)
    elif a.dtype.char == "f":
        result = _sum_in_order(terms)
    else:
        result = _sum_in_order(terms[0::2]) + _sum_in_order(terms[1::2])
    return result + result.dtype.type(0)  # (the sums start at +0: -0.0 turns 0.0)


def _sum_in_order(terms):
    """terms added one after another (np.add.reduce would add them pairwise)."""
    return np.add.accumulate(terms)[-1] if terms.size else terms.dtype.type(0)


def _mkl_dot_lanes(terms, offset_x, offset_y):
    """The terms of MKL's dot of two contiguous vectors, added as its kernel adds them. It
    holds 4 accumulators of one 16-byte vector each (4 float32 or 2 float64 lanes), even
    where the CPU has AVX-512:

    * first single terms into lane 0 of the first accumulator, until y's next element is
      16-byte aligned (an offset of 1 float32: 3 terms);
    * float32 whose x is then not aligned too (x and y start at different offsets modulo 4
      elements): one vector of 4 terms, then every other term into lane 0, one by one;
    * otherwise blocks of 4 vectors, the k-th vector into the k-th accumulator; of the
      rest, float32 puts 2 vectors into the first two accumulators, then 1 vector into the
      first, then single terms into lane 0; float64 puts each vector into the first, then a
      single term into lane 0;
    * at the end ((acc0 + acc1) + acc2) + acc3, lane by lane, then the lanes: float32
      (l0 + l2) + (l1 + l3), float64 l0 + l1.

    E.g. 9 aligned float32 terms: ((((t0 + t8) + t4) + (t2 + t6)) + ((t1 + t5) + (t3 + t7))).
    Replayed as rows of 4 vectors (a single term or a vector left at the start of a row of
    zeros, which change no sum) added row after row: numpy reduces the rows of a row-major
    array one after another (pairwise only along its last axis)."""
    lanes = _MKL_DOT_LANES[terms.dtype.char]
    n, block = terms.shape[0], 4 * lanes
    peel = min(-offset_y % lanes, n)
    if (offset_x + peel) % lanes and lanes == 4:  # float32, x and y not both aligned
        first = terms[peel:peel + 4] if n - peel >= 4 else terms[:0]
        acc = np.zeros((4, 4), terms.dtype)
        acc[0, 0] = _sum_in_order(np.concatenate([terms[:peel], first[:1],
                                                  terms[peel + len(first):]]))
        acc[0, 1:len(first)] = first[1:]
    else:
        blocks, rest = divmod(n - peel, block)
        if lanes == 4:
            widths = [8] * (rest >= 8) + [4] * (rest % 8 >= 4) + [1] * (rest % 4)
        else:
            widths = [2] * (rest // 2) + [1] * (rest % 2)
        rows = np.zeros((peel + blocks + len(widths), block), terms.dtype)
        if peel:
            rows[:peel, 0] = terms[:peel]
        if blocks:
            rows[peel:peel + blocks] = terms[peel:peel + blocks * block].reshape(blocks, block)
        start = peel + blocks * block
        for row, width in enumerate(widths, peel + blocks):  # (at most 5 rows)
            rows[row, :width] = terms[start:start + width]
            start += width
        acc = np.add.reduce(rows, axis=0).reshape(4, lanes)
    vector = ((acc[0] + acc[1]) + acc[2]) + acc[3]
    if lanes == 4:
        vector = vector[:2] + vector[2:]  # (l0 + l2, l1 + l3)
    return vector[0] + vector[1]


def _matrix_products(a, b, small_in_torchs_order=False):
    """a @ b as torch's mm computes it (``a``'s batch dimensions, if any, folded into rows).

    Over a single term (a has one column) torch's gemm returns each product as it is, its
    sign of zero included, where numpy's BLAS adds it to +0 (0 * -1 is -0.0 in torch, 0.0 in
    numpy); with a single row or column torch's gemv adds to +0 too.
    """
    rows = math.prod(a.shape[:-1])
    if a.shape[-1] == 1 and rows > 1 and b.shape[-1] > 1 and a.dtype.char in "fd":
        return quietly(np.multiply, a, b)
    return _products(a, b, small_in_torchs_order)


def _scaled_sum(bias, beta, products, alpha, mat1, mat2):
    """beta * bias + alpha * products; beta = 0 ignores bias entirely (its nan and inf too),
    as BLAS does. float16 (``products`` still float32 sums): torch's kernel computes
    beta * bias + alpha * sum in float32 with one rounding of the product beta * bias (a fused
    multiply-add; measured: 3,600 of 3,600 random addmm, where rounding each step agrees on
    51%), then rounds to float16 once."""
    if bias.dtype.char == "e":
        scaled = np.float32(alpha) * products
        if beta != 0:
            bias32 = np.broadcast_to(bias, scaled.shape).astype(np.float32)
            scaled = fma32(np.full(scaled.shape, beta, np.float32), bias32, scaled)
        return scaled.astype(np.float16)
    number = products.dtype.type
    if alpha != 1:
        products = products * number(alpha)
    if beta == 0:
        return products  # (nothing added: a product's -0.0 stays)
    if beta != 1:
        bias = bias * number(beta)
    result = bias + products
    if alpha > 0 and products.dtype.char in "fd" and not bias.all() and \
            (np.signbit(bias) & (bias == 0)).any():  # (bias.all(): no zero at all, quickly)
        _keep_negative_zeros(result, np.broadcast_to(bias, result.shape), mat1, mat2)
    return result


def _keep_negative_zeros(result, bias, mat1, mat2):
    """torch's gemm adds the products to beta * bias itself: where that is -0.0 and every
    product is -0.0 too, the result stays -0.0 (numpy's +0.0 sum turns it into 0.0)."""
    rows, columns = np.nonzero((result == 0) & (bias == 0) & np.signbit(bias))
    if rows.size:
        each = mat1[rows, :] * mat2[:, columns].T  # (one line of products per such element)
        negative = ((each == 0) & np.signbit(each)).all(axis=1)
        result[rows[negative], columns[negative]] = -0.0


def _linear_products(x, weight_t):
    """``x @ weight_t``, where ``weight_t`` may be a transposed weight (F.linear's x @ W.T).

    For a short float32 batch, OpenBLAS is faster with the weight first: (W @ x.T).T, the same
    dot products added in the same order (the same bits, checked on random shapes; not so in
    float64, which keeps the plain product). Returned row-major, as torch's result.
    """
    rows, columns = x.shape[0], weight_t.shape[1]
    if x.dtype.char == "f" and 2 * rows <= columns and x.flags.c_contiguous and \
            weight_t.flags.f_contiguous and not weight_t.flags.c_contiguous and x.shape[1] > 1:
        return np.ascontiguousarray(_products(weight_t.T, x.T).T)
    return _matrix_products(x, weight_t)


def _check_mm(a, b, rows=None, op="mm", kernel=True):
    """torch's checks for (rows x m) @ (m2 x p), in torch's order: shapes, dtypes, and
    (``kernel``) the dtype its kernel takes."""
    (n, m), (m2, p) = a.shape, b.shape
    if m != m2:
        raise RuntimeError(f"{op}: mat1 and mat2 shapes cannot be multiplied "
                           f"({n if rows is None else rows}x{m} and {m2}x{p})")
    if a.dtype != b.dtype:
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{CPP_TYPE_NAMES[a.dtype.name]} != {CPP_TYPE_NAMES[b.dtype.name]}")
    if kernel and a.dtype.kind == "b" and _multiplies(n * p, m):
        raise not_implemented_for("addmm_impl_cpu_", a.dtype)


def _multiplies(outputs, inner):
    """Whether torch's kernel runs at all: an empty result, or an empty sum (inner size 0,
    the result is zeros), is settled before its dtype is looked at (bool then works too)."""
    return outputs != 0 and inner != 0


def _alpha_vanishes(alpha, np_dtype):
    """BLAS's quick return: a float32 or float64 product scaled by an alpha that is 0 in that
    type (1e-300 in float32) is not computed, so the result is beta * input alone, its -0.0
    kept and no nan or inf of the matrices in it (addmm, addmv, addbmm; float16's kernel, and
    baddbmm's and addr's, multiply anyway)."""
    return np_dtype.char in "fd" and np_dtype.type(alpha) == 0


def _check_mv(mat, vec):
    (n, m), (k,) = mat.shape, vec.shape
    if m != k:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{m}), vec ({k})")
    if mat.dtype != vec.dtype:
        raise _addmv_dtypes(vec.dtype, mat.dtype, vec.dtype)
    if mat.dtype.kind == "b" and mat.size:
        raise not_implemented_for("addmv_impl_cpu", mat.dtype)


def _addmv_dtypes(result, mat, vec):
    """torch's error when the result (out=), the matrix and the vector differ in dtype."""
    result, mat, vec = (scalar_type_name[from_numpy_dtype[d]] for d in (result, mat, vec))
    return RuntimeError(f"addmv input tensors must have the same dtype, but got {result}, {mat}, "
                        f"and {vec}")


def _check_bmm(a, b, batch, m, k):
    if m != k:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch}, {m}] but got: [{batch}, {k}].")
    rows, columns = (a.shape[-2] if a.ndim > 1 else 1), (b.shape[-1] if b.ndim > 1 else 1)
    if not _multiplies(batch * rows * columns, m):
        return  # (torch's bmm looks at neither dtype then; its result has mat2's)
    if a.dtype.kind == "b":  # (torch picks the kernel by the first operand's dtype first)
        raise not_implemented_for("bmm", a.dtype)
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name[from_numpy_dtype[a.dtype]]} "
                           f"but found {scalar_type_name[from_numpy_dtype[b.dtype]]}")


def _check_matmul_out(result, out, *args):
    """out= for matrix products: the dtype must be the result's own (no casting)."""
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype "
                           f"{CPP_TYPE_NAMES[result._data.dtype.name]}, but got "
                           f"{CPP_TYPE_NAMES[out._data.dtype.name]} instead")


def _check_mv_out(result, out, mat, vec):
    if out._data.dtype != result._data.dtype:
        raise _addmv_dtypes(out._data.dtype, mat._data.dtype, vec._data.dtype)


def _check_dot_out(result, out, input, other):
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(f"result dtype {scalar_type_name[out.dtype]} does not match input "
                           f"dtype {scalar_type_name[input.dtype]}")


def _mm_out_first(out, *args, **kwargs):
    _product_out_first(out, *args, batched=False, **kwargs)


def _bmm_out_first(out, *args, **kwargs):
    _product_out_first(out, *args, batched=True, **kwargs)


def _product_out_first(out, *args, batched=False, **kwargs):
    """torch declares a product's result (and checks out='s dtype) once the operands' shapes
    fit, before it compares their dtypes or looks for a kernel: mm's of mat1's dtype, bmm's
    of mat2's, addmm's (whose dtypes it compares first) of theirs; dot and vdot check out=
    before anything else; matmul as the product it turns into."""
    named = named_arguments(("input", "mat2"), args, kwargs)
    a, b = named.get("input"), named.get("mat2")
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        return
    x, y = a._data.shape, b._data.shape
    if not batched and len(x) == 2 and len(y) == 2 and x[1] == y[0]:
        out_dtype_is(out, a._data.dtype)
    elif batched and len(x) == 3 and len(y) == 3 and x[0] == y[0] and x[2] == y[1]:
        out_dtype_is(out, b._data.dtype)


def _dot_out_first(out, *args, **kwargs):
    input = named_arguments(("input",), args, kwargs).get("input")
    if isinstance(input, Tensor) and out._data.dtype != input._data.dtype:
        raise RuntimeError(f"result dtype {scalar_type_name[out.dtype]} does not match input "
                           f"dtype {scalar_type_name[input.dtype]}")


def _addmm_out_first(out, *args, **kwargs):
    named = named_arguments(("input", "mat1", "mat2"), args, kwargs)
    operands = [named.get(name) for name in ("input", "mat1", "mat2")]
    if all(isinstance(t, Tensor) for t in operands) and len({t.dtype for t in operands}) == 1:
        _product_out_first(out, operands[1], operands[2])


def _matmul_out_first(out, *args, **kwargs):
    """matmul: 1-D @ 1-D is dot's rule; a matrix or a batch of them times a matrix is folded
    into mm (input's dtype); times a batch, bmm (other's dtype)."""
    named = named_arguments(("input", "other"), args, kwargs)
    a, b = named.get("input"), named.get("other")
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        return
    x, y = a._data.shape, b._data.shape
    if len(x) == 1 and len(y) == 1:
        _dot_out_first(out, a)
    elif len(x) >= 1 and len(y) >= 2 and x[-1] == y[-2]:
        out_dtype_is(out, (a if len(y) == 2 else b)._data.dtype)


def _check_any_product_out(result, out, input, other):
    """matmul's out= rule is that of the product it turns into: dot, mv, or mm and bmm."""
    if other._data.ndim == 1:
        (_check_dot_out if input._data.ndim == 1 else _check_mv_out)(result, out, input, other)
    else:
        _check_matmul_out(result, out)


@takes_out(check=_check_matmul_out, before=_addmm_out_first)
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """out = beta * input + alpha * (mat1 @ mat2)  (F.linear's bias + x @ W.T)"""
    require_tensors("addmm", mat1, mat2, "mat2", "mat1", 2)
    refuse_saving_inference((input, mat1, mat2), (kept_for(mat2, mat1), kept_for(mat1, mat2)))
    # torch compares the dtypes first, the bias's first (F.linear on int input), then the
    # dimensions, the shapes, whether the bias broadcasts, and last whether its kernel
    # takes the dtype (bool: not when there is nothing to multiply)
    for name, tensor in (("self", input), ("mat1", mat1)):
        if tensor.dtype is not mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{scalar_type_name[tensor.dtype]} and "
                               f"{scalar_type_name[mat2.dtype]}")
    for name, matrix in (("self", mat1), ("mat2", mat2)):  # torch calls mat1 self here
        if matrix._data.ndim != 2:
            raise RuntimeError(f"addmm: {name} must be a matrix, got {matrix._data.ndim}-D "
                               "tensor")
    (n, m), p = mat1._data.shape, mat2._data.shape[1]
    _check_mm(mat1._data, mat2._data, op="addmm", kernel=False)
    bias = input._data
    if not _expands_to(bias.shape, (n, p)):
        with no_grad():
            input.expand((n, p))  # torch's error: input does not broadcast
    if _multiplies(n * p, m) and not _alpha_vanishes(alpha, mat1._data.dtype):
        if bias.dtype.kind == "b":
            raise not_implemented_for("addmm_impl_cpu_", bias.dtype)
        products = _unrounded_products(mat1._data, mat2._data) if bias.dtype.char == "e" \
            else _linear_products(mat1._data, mat2._data)
        result = wrap(quietly(_scaled_sum, bias, beta, products, alpha, mat1._data, mat2._data))
    else:
        result = wrap(_bias_alone(bias, beta, (n, p)))
    # each matrix is kept only if the other one needs a gradient (its formula reads it)
    return record(AddmmBackward0, result, (input, mat1, mat2),
                  saved=(kept_for(mat2, mat1), kept_for(mat1, mat2)), alpha=alpha, beta=beta,
                  mat1_sym_sizes=mat1._data.shape, mat1_sym_strides=mat1.stride(),
                  mat2_sym_sizes=mat2._data.shape, mat2_sym_strides=mat2.stride())


def _bias_alone(bias, beta, shape):
    """addmm with nothing to multiply (an empty result, or inner size 0): torch's kernel
    returns beta * bias (zeros for beta 0, whatever the bias holds), scaled in place in the
    bias's dtype, so a number beta that does not fit it is refused."""
    if beta == 0 or 0 in shape:
        return np.zeros(shape, bias.dtype)
    scaled_type = dtypes.result_type(wrap(bias), beta)
    if scaled_type.numpy_dtype != bias.dtype:
        raise RuntimeError(f"result type {scalar_type_name[scaled_type]} can't be cast to the "
                           f"desired output type {scalar_type_name[from_numpy_dtype[bias.dtype]]}")
    scaled = bias if beta == 1 else quietly(np.multiply, bias, bias.dtype.type(beta))
    return np.array(np.broadcast_to(scaled, shape), order="C")  # (row-major, as torch's)


def _expands_to(shape, target):
    """Can ``expand`` stretch ``shape`` to ``target`` (numpy then broadcasts it alike)?"""
    return len(shape) <= len(target) and all(
        n == m or n == 1 for n, m in zip(reversed(shape), reversed(target)))


def _column_major(sizes, strides):
    return strides[0] == 1 and strides[1] == sizes[0]


def _mat1_grad(grad, mat2, sizes, strides, batched=False):
    """d/dA of A @ B = grad @ B.T, computed as (B @ grad.T).T when A is column-major (a
    transposed matrix), as torch does: the gradient then has A's layout, and no copy is needed.
    ``batched``: grad has a leading batch dim (autograd.grad's is_grads_batched)."""
    if batched:
        return (mat2 @ grad.mT).mT if _column_major(sizes, strides) else grad @ mat2.mT
    if _column_major(sizes, strides):
        return mat2.mm(grad.t()).t()
    return grad.mm(mat2.t())


def _mat2_grad(grad, mat1, sizes, strides, batched=False):
    """d/dB of A @ B = A.T @ grad, computed as (grad.T @ A).T when B is column-major (as
    ``weight.t()`` in ``F.linear``): the weight's gradient comes back row-major, like the weight."""
    if batched:
        return (grad.mT @ mat1).mT if _column_major(sizes, strides) else mat1.mT @ grad
    if _column_major(sizes, strides):
        return grad.t().mm(mat1).t()
    return mat1.t().mm(grad)


class AddmmBackward0(Node):
    """out = beta * x + alpha * A @ B:  d/dx = beta,  d/dA = alpha * grad @ B.T,
    d/dB = alpha * A.T @ grad"""

    _saved_names = ("mat1", "mat2")
    alpha: float
    beta: float
    mat1_sym_sizes: tuple
    mat1_sym_strides: tuple
    mat2_sym_sizes: tuple
    mat2_sym_strides: tuple

    def jvp(self, *tangents):
        """Forward mode, torch's formula: beta t_x + alpha t_A @ B + alpha A @ t_B."""
        return _affine_product_jvp(self, mm, tangents)

    def backward(self, grad, batched=False):
        a, b = self.saved_tensors

        def scaled(g, factor):
            return g if factor == 1 else g * factor
        grad_a = None if b is None else _mat1_grad(grad, b, self.mat1_sym_sizes,
                                                   self.mat1_sym_strides, batched)
        grad_b = None if a is None else _mat2_grad(grad, a, self.mat2_sym_sizes,
                                                   self.mat2_sym_strides, batched)
        return (scaled(grad, self.beta), None if grad_a is None else scaled(grad_a, self.alpha),
                None if grad_b is None else scaled(grad_b, self.alpha))

    def batched_backward(self, grad):  # (autograd.grad's is_grads_batched: a leading batch dim)
        return self.backward(grad, batched=True)


@takes_out(check=_check_matmul_out, before=_mm_out_first)
def mm(input, mat2):
    """out = input @ mat2 for two matrices (n x m) @ (m x p)"""
    require_tensors("mm", input, mat2, "mat2")
    refuse_saving_inference((input, mat2), (kept_for(mat2, input), kept_for(input, mat2)))
    if input._data.ndim != 2:
        raise RuntimeError(f"mm: self must be a matrix, got {input._data.ndim}-D tensor")
    if mat2._data.ndim != 2:
        raise RuntimeError(f"mm: mat2 must be a matrix, got {mat2._data.ndim}-D tensor")
    _check_mm(input._data, mat2._data)
    result = wrap(_matrix_products(input._data, mat2._data, small_in_torchs_order=True))
    # each matrix is kept only if the other one needs a gradient (its formula reads it)
    return record(MmBackward0, result, (input, mat2),
                  saved=(kept_for(mat2, input), kept_for(input, mat2)),
                  self_sym_sizes=input._data.shape, self_sym_strides=input.stride(),
                  mat2_sym_sizes=mat2._data.shape, mat2_sym_strides=mat2.stride())


class MmBackward0(Node):
    """out = A @ B:  d/dA = grad @ B^T,  d/dB = A^T @ grad (the layouts choose the formulas)"""

    _saved_names = ("self", "mat2")
    self_sym_sizes: tuple
    self_sym_strides: tuple
    mat2_sym_sizes: tuple
    mat2_sym_strides: tuple

    def jvp(self, tangent_a, tangent_b):
        """Forward mode, torch's formula: t_a @ B + A @ t_b."""
        return _product_jvp(mm, *self.primals, tangent_a, tangent_b)

    def backward(self, grad):
        a, b = self.saved_tensors
        return (None if b is None else _mat1_grad(grad, b, self.self_sym_sizes,
                                                  self.self_sym_strides),
                None if a is None else _mat2_grad(grad, a, self.mat2_sym_sizes,
                                                  self.mat2_sym_strides))

    def batched_backward(self, grad):  # (autograd.grad's is_grads_batched: a leading batch dim)
        a, b = self.saved_tensors
        return (None if b is None else _mat1_grad(grad, b, self.self_sym_sizes,
                                                  self.self_sym_strides, True),
                None if a is None else _mat2_grad(grad, a, self.mat2_sym_sizes,
                                                  self.mat2_sym_strides, True))


@takes_out(check=_check_mv_out)
def mv(input, vec):
    """out = input @ vec for a matrix and a vector"""
    require_tensors("mv", input, vec, "vec")
    refuse_saving_inference((input, vec), (kept_for(vec, input), kept_for(input, vec)))
    mat, v = input._data, vec._data
    if mat.ndim == 0:  # torch sizes the result by mat.size(0) first
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if mat.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {mat.ndim}, {v.ndim}")
    _check_mv(mat, v)
    result = wrap(_products(mat, v, small_in_torchs_order=True))
    return record(MvBackward0, result, (input, vec),
                  saved=(kept_for(vec, input), kept_for(input, vec)))


class MvBackward0(Node):
    """out = A @ v:  d/dA = outer(grad, v),  d/dv = A^T @ grad"""

    _saved_names = ("self", "vec")

    def jvp(self, tangent_a, tangent_v):
        """Forward mode, torch's formula: t_A @ v + A @ t_v."""
        return _product_jvp(mv, *self.primals, tangent_a, tangent_v)

    def backward(self, grad):
        a, v = self.saved_tensors  # each kept only if the other needs a gradient
        return (None if v is None else grad.unsqueeze(1) * v,
                None if a is None else a.t().mv(grad))

    def batched_backward(self, grad):  # (autograd.grad's is_grads_batched: a leading batch dim)
        a, v = self.saved_tensors
        return (None if v is None else grad.unsqueeze(2) * v,
                None if a is None else grad @ a)


@takes_out(check=_check_dot_out, before=_dot_out_first)
def dot(input, tensor):
    """out = sum(input * tensor) for two vectors of the same length"""
    require_tensors("dot", input, tensor, "tensor")
    refuse_saving_inference((input, tensor), (kept_for(tensor, input), kept_for(input, tensor)))
    a, b = input._data, tensor._data
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{scalar_type_name[input.dtype]} and {scalar_type_name[tensor.dtype]}")
    n, k = a.shape[0], b.shape[0]
    if n != k:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{k}] to "
                           f"have the same number of elements, but got {n} and {k} elements "
                           "respectively")
    if a.dtype.kind == "b":
        raise not_implemented_for("dot", a.dtype)
    result = wrap(_vector_dot(input, tensor))
    return record(DotBackward0, result, (input, tensor),
                  saved=(kept_for(tensor, input), kept_for(input, tensor)))


class DotBackward0(Node):
    """out = sum(a * b):  d/da = grad * b,  d/db = grad * a"""

    _saved_names = ("self", "tensor")

    def jvp(self, tangent_a, tangent_b):
        """Forward mode, torch's formula: dot(t_a, b) + dot(a, t_b)."""
        return _product_jvp(dot.without_out, *self.primals, tangent_a, tangent_b)

    def backward(self, grad):
        a, b = self.saved_tensors  # each kept only if the other needs a gradient
        return None if b is None else grad * b, None if a is None else grad * a

    def batched_backward(self, grad):
        return self.backward(grad.unsqueeze(1))


@takes_out(check=_check_dot_out, before=_dot_out_first)
def vdot(input, other):
    """out = sum(input * other) for two vectors (for real numbers, dot)"""
    require_tensors("vdot", input, other)
    result = dot.without_out(input, other)
    if result.grad_fn is not None:
        result.grad_fn.__class__ = VdotBackward0
    return result


class VdotBackward0(Node):
    """out = sum(a * b):  d/da = grad * b,  d/db = grad * a"""

    _saved_names = ("self", "other")
    backward = DotBackward0.backward


def inner(input, other):
    """out[i..., j...] = sum over the last dimension of input[i..., :] * other[j..., :]
    (for vectors, dot); a number multiplies. Built as torch builds it (tensordot): each
    operand permuted and reshaped to a matrix, one mm, reshaped to the result; two vectors
    a dot if both are contiguous, else a product summed."""
    require_tensors("inner", input, other)
    if input._data.ndim == 0 or other._data.ndim == 0:
        return mul(input, other)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input._data.shape)} and {list(other._data.shape)}")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    da, db = input._data.ndim, other._data.ndim
    contracted = input._data.shape[-1]
    if contracted == 1:  # torch sums a dimension of size 1 away first
        input = input.sum(-1, keepdim=True)
    first = permute(input, list(range(da - 1)) + [-1])
    second = permute(other, [-1] + list(range(db - 1)))
    shape = input._data.shape[:-1] + other._data.shape[:-1]
    if da == 1 and db == 1:  # (tensordot's full contraction)
        if first.is_contiguous() and second.is_contiguous():
            return dot(first, second).reshape(shape)
        # torch multiplies and sums a strided vector (MKL_VERBOSE: no sdot), as tensordot
        return (first.squeeze() * second.squeeze()).sum(dtype=first.dtype).reshape(shape)
    rows, columns = math.prod(input._data.shape[:-1]), math.prod(other._data.shape[:-1])
    return mm(first.reshape(rows, contracted), second.reshape(contracted, columns)).reshape(shape)


@takes_out(check=_check_matmul_out, before=_bmm_out_first)
def bmm(input, mat2):
    """out[b] = input[b] @ mat2[b] for two batches of matrices"""
    require_tensors("bmm", input, mat2, "mat2")
    refuse_saving_inference((input, mat2), (kept_for(mat2, input), kept_for(input, mat2)))
    a, b = input._data, mat2._data
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _check_bmm(a, b, a.shape[0], a.shape[2], b.shape[1])
    result = wrap(_batch_products(a, b))
    return record(BmmBackward0, result, (input, mat2),
                  saved=(kept_for(mat2, input), kept_for(input, mat2)))


class BmmBackward0(Node):
    """out[i] = A[i] @ B[i]:  d/dA = grad @ B^T,  d/dB = A^T @ grad, batch by batch"""

    _saved_names = ("self", "mat2")

    def jvp(self, tangent_a, tangent_b):
        """Forward mode, torch's formula: t_A @ B + A @ t_B, batch by batch."""
        return _product_jvp(bmm, *self.primals, tangent_a, tangent_b)

    def backward(self, grad):
        a, b = self.saved_tensors  # each kept only if the other needs a gradient
        return None if b is None else grad.bmm(b.mT), None if a is None else a.mT.bmm(grad)


def _foldable(tensor, transposed=False):
    """Whether torch's matmul folds ``tensor``'s batch dimensions into rows: when viewing it
    as (rows, last dimension) needs no copy (dimensions of size 1 do not matter)."""
    if tensor._data.size == 0:
        return True
    shape, strides = list(tensor._data.shape), list(tensor.stride())
    if transposed:  # the strides of tensor.mT
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    rows = (math.prod(shape[:-1]), shape[-1])
    return view_strides(tuple(shape), tuple(strides), rows) is not None


def _should_fold(input, other):
    """torch's choice, when recording: fold the larger operand's batch into one mm / mv.

    It folds whenever the smaller operand requires grad (its gradient is then one mm,
    not a bmm summed over the batch), even if the fold has to copy.
    """
    larger_first = input._data.ndim >= other._data.ndim
    big, small = (input, other) if larger_first else (other, input)
    if big._data.ndim < 3 or small._data.ndim > 2:
        return False
    if small.requires_grad:
        return True
    if input._data.ndim == 2:
        return False  # the result would need a transposed copy
    return _foldable(big, transposed=not larger_first)


def unsafe_view(tensor, shape):
    """A fresh result seen with another shape (torch's _unsafe_view: no copy, no view)."""
    result = wrap(tensor._data.reshape(shape))
    return record(UnsafeViewBackward0, result, (tensor,), self_sym_sizes=tensor._data.shape)


def _recorded_matmul(input, other):
    """matmul of 3-D and larger operands built from differentiable pieces, as torch does.

    Recording torch's decomposition gives the same graph: e.g. (2, 3, 4) @ (4, 5) is
    a view to (6, 4), one mm, and an _unsafe_view back to (2, 3, 5).
    """
    da, db = input._data.ndim, other._data.ndim
    if _should_fold(input, other):
        transpose = db > da  # the larger operand is other: compute (other^T @ input^T)^T
        big = other.mT if transpose else input
        small = (input.t() if da == 2 else input) if transpose else other
        rows = big._data.shape[:-1]
        folded = big.reshape(math.prod(rows), big._data.shape[-1])
        if small._data.ndim == 1:
            return unsafe_view(folded.mv(small), rows)
        result = unsafe_view(folded.mm(small), rows + small._data.shape[1:])
        return result.mT.contiguous() if transpose else result
    n, m = (input._data.shape[-2] if da > 1 else 1), input._data.shape[-1]
    k, p = (other._data.shape[-2], other._data.shape[-1]) if db > 1 else (other._data.shape[0], 1)
    a_batch, b_batch = input._data.shape[:-2], other._data.shape[:-2]
    if da == 3 and db == 3 and a_batch[0] != b_batch[0]:
        # a batch of one that requires grad is squeezed so that the matmul folds
        if a_batch[0] == 1 and input.requires_grad:
            return _recorded_matmul(input.squeeze(0), other)
        if b_batch[0] == 1 and other.requires_grad:
            return _recorded_matmul(input, other.squeeze(0))
    try:
        batch = np.broadcast_shapes(a_batch, b_batch)
    except ValueError:
        raise broadcast_error(np.empty(a_batch), np.empty(b_batch)) from None
    count = math.prod(batch)
    left = input.expand(batch + (n, m)).reshape(count, n, m)
    if db == 1:
        right = other.expand(batch + (k,)).reshape(count, k).unsqueeze(2)
    else:
        right = other.expand(batch + (k, p)).reshape(count, k, p)
    product = left.bmm(right)
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    return unsafe_view(product.squeeze(-1) if db == 1 else product, shape)


@takes_out(check=_check_any_product_out, before=_matmul_out_first)
def matmul(input, other):
    """out = input @ other: dot, matrix-vector, matrix-matrix or batched, by the dims.

    As torch: 1-D operands count as a row (left) or a column (right); a batch of
    matrices times a matrix or vector is folded into one big mm/mv; everything else
    broadcasts the batch dimensions and multiplies batch by batch.
    """
    require_tensors("matmul", input, other)
    refuse_saving_inference((input, other), (kept_for(other, input), kept_for(input, other)))
    a, b = input._data, other._data
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        if grad_mode.grad_enabled and (input._requires_grad or other._requires_grad) or \
                dual.active and (has_tangent(input) or has_tangent(other)):  # (forward mode too)
            return input.unsqueeze(0).mm(other).squeeze_(0)  # recorded as torch does
        _check_mm(a[None], b)
        result = wrap(_products(a, b, small_in_torchs_order=True))
        result._bump_version()  # torch's squeeze_(0) of a (1, p) product
        return result
    if da == 2 and db == 2:
        return mm(input, other)
    if grad_mode.grad_enabled and (input._requires_grad or other._requires_grad) or \
            dual.active and (has_tangent(input) or has_tangent(other)):
        return _recorded_matmul(input, other)
    if _should_fold(input, other):  # one mm / mv on the larger operand's rows, as torch
        big, small = (a, b) if da >= db else (np.swapaxes(b, -1, -2), a if da == 1 else a.T)
        rows = math.prod(big.shape[:-1])  # (b^T's rows times a^T when a is the smaller)
        if small.ndim == 1:
            _check_mv(big.reshape(rows, big.shape[-1]), small)
        else:
            _check_mm(big.reshape(rows, big.shape[-1]), small, rows)
            return wrap(np.ascontiguousarray(_matrix_products(a, b)))  # (row-major, as torch's)
        return wrap(np.ascontiguousarray(_products(a, b)))
    # batched: the batch dimensions broadcast; a 1-D operand is a row / a column
    a_batch, b_batch = a.shape[:-2], b.shape[:-2]
    try:
        batch = np.broadcast_shapes(a_batch, b_batch)
    except ValueError:
        raise broadcast_error(np.empty(a_batch), np.empty(b_batch)) from None
    m, k = a.shape[-1], (b.shape[0] if db == 1 else b.shape[-2])
    _check_bmm(a, b, math.prod(batch), m, k)
    return wrap(np.ascontiguousarray(_batch_products(a, b)))


def outer(input, vec2):
    """out[i, j] = input[i] * vec2[j]"""
    require_tensors("outer", input, vec2, "vec2")
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got "
                               f"{t._data.ndim}-D")
    return mul(input.reshape(-1, 1), vec2)


ger = outer


# ====================================================================== cross product
def _check_cross(input, other, dim):
    axis = _check_cross_shapes(input, other, dim)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name[input.dtype]} but found "
                           f"{scalar_type_name[other.dtype]}")
    if input._data.dtype == np.bool_:
        raise not_implemented_for("cross", input._data.dtype)
    return axis


def _check_cross_shapes(input, other, dim):
    if input._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    axis = wrap_dim(dim, input._data.ndim) if input._data.ndim else dim_index(dim, 0)
    a, b = input._data.shape[axis], other._data.shape[axis]
    if a != 3 or b != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a} "
                           f"and {b}")
    try:  # (torch broadcasts before it compares the dtypes)
        np.broadcast_shapes(input._data.shape, other._data.shape)
    except ValueError:
        raise broadcast_error(input._data, other._data) from None
    return axis


def _linalg_cross_out(out, *args, **kwargs):
    """linalg.cross declares its result (input's dtype, the broadcast shape) once the shapes
    are checked: an out= of another dtype is refused, and out resized, before the operands'
    dtypes are compared."""
    named = named_arguments(("input", "other", "dim"), args, kwargs)
    input, other = named.get("input"), named.get("other")
    if not (isinstance(input, Tensor) and isinstance(other, Tensor)):
        return  # (the op's own argument errors)
    _check_cross_shapes(input, other, named.get("dim", -1))
    out_dtype_is(out, input._data.dtype)
    resize_out_first(out, np.broadcast_shapes(input._data.shape, other._data.shape))


@takes_out(before=_linalg_cross_out)
@numpy_names
def linalg_cross(input, other, *, dim=-1):
    """out = input x other, the cross product of 3-vectors along dim (the others broadcast):
    (a2 b3 - a3 b2, a3 b1 - a1 b3, a1 b2 - a2 b1)"""
    require_tensors("linalg_cross", input, other)
    refuse_saving_inference((input, other), (kept_for(input, other), kept_for(other, input)))
    axis = _check_cross(input, other, dim)
    a, b = input._data, other._data
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    # integers wrap around, and inf - inf is nan, as in torch: without numpy's warnings
    with np.errstate(all="ignore"):
        if a.dtype == np.float32:  # torch's kernel fuses each first product into the
            # difference (a_i b_j - a_j b_i with one rounding of a_i b_j), so x.cross(x) is
            # the rounding residue of a_j b_i, not 0 (fuzz 1045921)
            x, y = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
            result = np.moveaxis(np.stack([fma32(x[i], y[j], -(x[j] * y[i]))
                                           for i, j in ((1, 2), (2, 0), (0, 1))]), 0, axis)
        else:
            result = np.cross(a, b, axis=axis).astype(a.dtype, copy=False)
    return record(LinalgCrossBackward0, wrap(np.ascontiguousarray(result)), (input, other),
                  saved=(kept_for(input, other), kept_for(other, input)), dim=axis)


class LinalgCrossBackward0(Node):
    """out = input x other:  d/d input = other x grad,  d/d other = grad x input"""

    _saved_names = ("other", "self")
    dim: int

    def backward(self, grad):
        other, input = self.saved_tensors
        return (None if other is None else linalg_cross(other, grad, dim=self.dim),
                None if input is None else linalg_cross(grad, input, dim=self.dim))


_cross_warned = []


def _cross(input, other, dim=None):
    """torch.cross: linalg.cross along dim; without dim (deprecated) along the first dimension
    of length 3."""
    # (torch's parser checks the arguments one by one, left to right, before keywords it does
    # not know: x.cross(False, dims=0) names 'other'; overloads gives its messages)
    require_tensors("cross", input, other)
    if dim is None:
        dim = _default_cross_dim(input, warn=True)
    return linalg_cross(input, other, dim=dim)


def _cross_with_out(input, other, dim=None, *, out=None):
    if out is None:
        return _cross(input, other, dim)
    # torch's cross with out= is linalg.cross's, dim aside: no warning, linalg_cross's
    # messages (its out= dtype first, its autograd refusal)
    require_tensors("cross", input, other)
    if dim is None:
        dim = _default_cross_dim(input, warn=False)
    return linalg_cross(input, other, dim=dim, out=out)


_cross_with_out.__name__ = _cross_with_out.__qualname__ = _cross.__name__ = "cross"
_cross_with_out.__doc__ = _cross.__doc__
_cross_with_out.without_out = numpy_names(_cross)  # (the method, which takes no out=)
cross = overloads("(Tensor input, Tensor other, int? dim = None, *, Tensor out = None)")(
    numpy_names(_cross_with_out))


def _default_cross_dim(input, warn):
    """torch.cross without dim: the first dimension of length 3, picked in input alone before
    linalg.cross checks the operands. Deprecated: torch warns once per process, but not with
    out= (another kernel)."""
    if warn and not _cross_warned:
        _cross_warned.append(True)
        messages.warn_from_learner(messages.CROSS_WITHOUT_DIM)
    dim = next((d for d, n in enumerate(input._data.shape) if n == 3), None)
    if dim is None:
        raise RuntimeError("no dimension of size 3 in input")
    return dim


# ====================================================================== singular values
_LinalgSvd = named_result("linalg_svd", ["U", "S", "Vh"])
_Svd = named_result("svd", ["U", "S", "V"])


def _check_svd_input(A):
    if A._data.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    if A._data.dtype.kind != "f":
        raise NotImplementedError(f"linalg.svd: Expected a floating point or complex tensor as "
                                  f"input. Got {scalar_type_name[A.dtype]}")
    if A._data.dtype == np.float16:
        raise not_implemented_for("linalg_svd_cpu", A._data.dtype)
    if not np.isfinite(A._data).all():
        raise RuntimeError("linalg.svd: The algorithm failed to converge because the input "
                           "matrix contained non-finite values.")


def _lapack_layout(array):
    """``array`` laid out as LAPACK writes matrices, column by column (torch returns U and Vh
    so); a batch of them one after the other."""
    rows, cols = array.shape[-2:]
    strides, step = [1, builtins.max(rows, 1)], rows * cols  # (LAPACK: a leading dim >= 1)
    for n in reversed(array.shape[:-2]):
        strides.insert(0, step)
        step *= n
    result = empty_strided(array.shape, strides, array.dtype)
    np.copyto(result._data, array)
    return result


def linalg_svd(A, full_matrices=True, *, driver=None):
    """A = U @ diag(S) @ Vh: U and Vh have orthonormal columns / rows, S >= 0 descending.
    Singular vectors are unique only up to sign: LAPACK libraries (numpy's, torch's MKL)
    may return -u and -v where another returns u and v."""
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    _check_svd_input(A)
    u, s, vh = np.linalg.svd(A._data, full_matrices=full_matrices)
    U, S, Vh = _lapack_layout(u), wrap(np.ascontiguousarray(s)), _lapack_layout(vh)
    record(LinalgSvdBackward0, (U, S, Vh), (A,), full_matrices=full_matrices,
           S_sym_argsize_minus_1=s.shape[-1])
    if S.grad_fn is not None:  # the node keeps U, S and Vh, its outputs
        S.grad_fn._saved = tuple(SavedTensor(t, True) for t in (U, S, Vh))
    return _LinalgSvd(U, S, Vh)


class LinalgSvdBackward0(Node):
    """U, S, Vh = svd(A):  gA = U [sym(U^T gU) / E * S + S * sym(Vh gVh^T) / E + diag(gS)] Vh
    (+ the parts of gU, gVh outside U's and V's columns), E[i, j] = S[j]^2 - S[i]^2"""

    num_outputs = 3
    _saved_names = ("U", "S", "Vh")
    full_matrices: bool
    S_sym_argsize_minus_1: int

    def backward(self, gU, gS, gVh):
        U, S, Vh = self.saved_tensors
        if U.grad_fn is self:  # saved outputs come back as output 0; S and Vh are 1 and 2
            S._output_nr, Vh._output_nr = 1, 2
        k = self.S_sym_argsize_minus_1
        if self.full_matrices:  # only the first k singular vectors enter A
            U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
            gU = None if gU is None else gU.narrow(-1, 0, k)
            gVh = None if gVh is None else gVh.narrow(-2, 0, k)
        return _svd_backward(gU, gS, gVh, U, S, Vh)


def _svd_backward(gU, gS, gVh, U, S, Vh):
    """torch's svd_backward (FunctionsManual.cpp) for real matrices."""
    m, n = U._data.shape[-2], Vh._data.shape[-1]
    if gU is None and gVh is None:
        if gS is None:
            return None
        return U.matmul(gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)).matmul(Vh)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + _eye_like(S)  # 1 on the diagonal: no 0 / 0
    UhgU = None if gU is None else _skew(U.mT.matmul(gU))
    VhgV = None if gVh is None else _skew(Vh.matmul(gVh.mT))
    if UhgU is not None and VhgV is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif VhgV is None:
        gA = (UhgU / E) * S.unsqueeze(-2)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + gS.unsqueeze(-1) * _eye_like(S)
    if m > n and gU is not None:  # gU's part outside U's columns
        gUSinv = gU / S.unsqueeze(-2)
        gA = U.matmul(gA) + gUSinv - U.matmul(U.mT.matmul(gUSinv))
        return gA.matmul(Vh)
    if m < n and gVh is not None:  # gVh's part outside Vh's rows
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA.matmul(Vh) + SinvgVh - SinvgVh.matmul(Vh.mT).matmul(Vh)
        return U.matmul(gA)
    return U.matmul(gA.matmul(Vh)) if m >= n else U.matmul(gA).matmul(Vh)


def _skew(X):
    return X - X.mT


def _eye_like(S):
    return wrap(np.eye(S._data.shape[-1], dtype=S._data.dtype))


def linalg_svdvals(A, *, driver=None):
    """The singular values of A, descending (svd's S)."""
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    _check_svd_input(A)
    if not A.requires_grad:
        return wrap(np.ascontiguousarray(np.linalg.svd(A._data, compute_uv=False)))
    return linalg_svd(A, full_matrices=False).S


@number_parameters("svd", {"some": "bool", "compute_uv": "bool"})
def svd(input, some=True, compute_uv=True):
    """torch.svd (deprecated in torch for linalg.svd): U, S, V with V = Vh.mT (a view)."""
    if input._data.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input._data.ndim} dimensions instead")
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    if not compute_uv:  # torch returns zero matrices for U and V then
        m, n = input._data.shape[-2:]
        zeros = wrap(np.zeros(input._data.shape[:-2] + (m, m), input._data.dtype))
        U, Vh = zeros, wrap(np.zeros(input._data.shape[:-2] + (n, n), input._data.dtype))
    return _Svd(U, S, Vh.mT)


# ---------------------------------------------------------------- norms
def _norm_out(result, out, name):
    """linalg.norm's and matrix_norm's out= is of the result's dtype exactly."""
    if out.dtype is not result.dtype:
        raise RuntimeError(f"{name} expected out tensor dtype {scalar_type_name[result.dtype]} "
                           f"but got: {scalar_type_name[out.dtype]}")


@overloads("(Tensor input, Number ord = 2, tuple of ints[1]? dim = None, bool keepdim = False, *, "
           "torch.dtype dtype = None, Tensor out = None)")
@takes_out(check=out_of_results_dtype)  # (its kernel writes its own dtype only)
def linalg_vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """torch.linalg.vector_norm: (sum |x|^ord)^(1/ord) over dim (every element by default);
    its node is LinalgVectorNormBackward0 in ops/reduce.py, as for x.norm()."""
    return norm_over_dims(x, ord, dim, keepdim, dtype=dtype)


@overloads("(Tensor input, Number ord, tuple of ints dim = {-2,-1}, bool keepdim = False, *, "
           "torch.dtype dtype = None, Tensor out = None)",
           "(Tensor input, str ord = \"fro\", tuple of ints dim = {-2,-1}, bool keepdim = False, "
           "*, torch.dtype dtype = None, Tensor out = None)")
@takes_out(check=lambda result, out, *args: _norm_out(result, out, "linalg.matrix_norm"))
def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002
    """torch.linalg.matrix_norm, built from other ops as torch builds it: 'fro' is the vector
    2-norm of the matrix; 1 / inf the largest column / row sum of |A| (-1 / -inf the smallest);
    'nuc' the sum of the singular values, 2 / -2 the largest / smallest."""
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    rows, cols = _matrix_norm_checks(A, ord, dims, dtype)
    if ord == "fro":
        return norm_over_dims(A, 2, dims, keepdim, dtype=dtype)
    largest = ord == "nuc" or ord > 0
    if ord in ("nuc", 2, -2):  # from the singular values, the two dims moved to the end
        order = [d for d in range(A.dim()) if d not in (rows, cols)] + [rows, cols]
        values = linalg_svdvals(permute(A if dtype is None else A.to(dtype), order))
        result = values.sum(-1) if ord == "nuc" else _extreme(values, -1, False, largest)
        if keepdim:
            back = [order.index(d) for d in range(A.dim())]
            result = permute(result.unsqueeze(-1).unsqueeze(-1), back)
        return result
    summed, picked = (cols, rows) if abs(ord) == math.inf else (rows, cols)
    if not keepdim and summed < picked:
        picked -= 1
    sums = norm_over_dims(A, 1, (summed,), keepdim, dtype=dtype)
    return _extreme(sums, picked, keepdim, largest)


def _extreme(values, dim, keepdim, largest):
    """amax or amin over dim; torch's matrix norms take the largest of no values as 0 (a
    constant: no graph), the smallest of none is refused as amin refuses it."""
    if largest and values._data.shape[dim] == 0:
        shape = list(values._data.shape)
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
        return wrap(np.zeros(shape, values._data.dtype))
    return (amax if largest else amin)(values, dim, keepdim)


def _matrix_norm_checks(A, ord, dims, dtype):  # noqa: A002
    """torch's checks, in its order: the order, A (a matrix of floats; float32 or float64 for
    the orders read from singular values), the two dims, the dtype asked for."""
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order "
                           f"{ord if isinstance(ord, str) else format(ord, 'g')} not supported.")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    check_norm_dtypes(A, "linalg.matrix_norm", None)
    if ord in ("nuc", 2, -2) and A.dtype is dtypes.float16:
        raise NotImplementedError("linalg.matrix_norm: Low precision dtypes not supported. Got "
                                  "Half")
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dims)}")
    rows, cols = (wrap_dim(d, A.dim()) for d in dims)
    if rows == cols:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({rows}, {cols})")
    check_norm_dtypes(A, "linalg.matrix_norm", dtype)
    return rows, cols


@overloads("(Tensor input, Number? ord = None, tuple of ints[1]? dim = None, bool keepdim = "
           "False, *, torch.dtype dtype = None, Tensor out = None)",
           "(Tensor input, str ord, tuple of ints[1]? dim = None, bool keepdim = False, *, "
           "torch.dtype dtype = None, Tensor out = None)")
@takes_out(check=lambda result, out, *args: _norm_out(result, out, "linalg.norm"))
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """torch.linalg.norm: a matrix norm when ord is a string, or a number with two dims (or a
    2-D input and no dim); otherwise a vector norm (ord None: the 2-norm of every element)."""
    dims = None if dim is None else tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dims is not None:
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                               f"Got [{', '.join(str(d) for d in dims)}]")
    elif ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.dim()}D.")
    if isinstance(ord, str) or ord is not None and (
            len(dims) == 2 if dims is not None else A.dim() == 2):
        return linalg_matrix_norm(A, ord, (0, 1) if dims is None else dims, keepdim,
                                  dtype=dtype)
    return linalg_vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


# ---------------------------------------------------------------- torch.norm
__all__ += ["norm"]  # noqa: PLE0604 (kept beside the ops)


_NO_INPUT = object()  # (torch.norm(None) reads None.layout: None is an input)


def norm(input=_NO_INPUT, /, p="fro", dim=None, keepdim=False, *given, out=None, dtype=None,
         **unknown):
    """out = (sum |x|^p)^(1/p) over dim; 'fro' and the default are the 2-norm"""
    # (torch's norm and Tensor.norm are Python: Python's own TypeError for another keyword;
    # torch.norm passes out= on to linalg.vector_norm, Tensor.norm takes none; its fifth
    # positional argument is out, Tensor.norm's is dtype; Tensor.norm's first is self)
    if given:
        out, dtype = _norm_positionals(given, out, dtype)
    method = (unknown or out is not None) and calls.called_as_method()
    if "input" in unknown and not method:
        if input is not _NO_INPUT:
            raise TypeError("norm() got multiple values for argument 'input'")
        input = unknown.pop("input")
    if input is _NO_INPUT and not unknown:
        raise TypeError("norm() missing 1 required positional argument: 'input'")
    if unknown or (method and out is not None):
        key = "out" if method and out is not None else next(iter(unknown))
        raise TypeError(f"{'Tensor.norm' if method else 'norm'}() got an unexpected keyword "
                        f"argument '{key}'")
    if not isinstance(input, Tensor) and not hasattr(input, "__engine_vmap__"):
        input.layout  # noqa: B018 (torch.norm reads it first: Python's AttributeError of a list)
    # (torch's parser reads ord and dim before out; torch.norm hands them on by position)
    if p is not None and not isinstance(p, str) and not signatures.fits(p, "Number"):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type_name(p)}")
    if isinstance(p, Tensor):  # (read as its value, a Python number: a float16 3 is 3.0)
        p = p.item()
    if isinstance(p, str) and not (p == "fro" and (  # (torch.norm's test, len() and all)
            dim is None or isinstance(dim, builtins.int) or len(dim) <= 2)):
        # (torch.norm hands a p named by a string, but "fro" over at most two dims, on to
        # matrix_norm at once: its parser's errors, its checks)
        dims = list(range(input._data.ndim)) if dim is None else \
            [dim] if isinstance(dim, builtins.int) else dim
        return linalg_matrix_norm.as_function(input, p, dims, keepdim, dtype=dtype,
                                              **({} if out is None else {"out": out}))
    # (from here on a vector norm: p is a number, None or "fro" over at most two dims)
    signatures.int_list_checked("linalg_vector_norm", "dim", dim, " (position 3)",
                                unpack=False)
    if not isinstance(keepdim, builtins.bool):
        raise TypeError(f"linalg_vector_norm(): argument 'keepdim' (position 4) must be bool, "
                        f"not {type_name(keepdim)}")
    signatures.int_list_checked("linalg_vector_norm", "dim", dim, " (position 3)")
    if out is not None:
        return _norm_into(input, p, dim, keepdim, dtype, out=out)
    if p is None:  # (torch.norm reads None as its default)
        p = 2.0
    if p == "fro":  # (as torch.norm: the vector 2-norm)
        p = 2
    if not signatures.fits(p, "Number"):  # (torch's parser)
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type_name(p)}")
    # (torch.norm hands an int dim, or a bool, on as a list of one)
    return norm_over_dims(input, p, [dim] if isinstance(dim, builtins.int) else dim, keepdim,
                          dtype=dtype)


def _norm_positionals(given, out, dtype):
    """torch.norm(input, p, dim, keepdim, out, dtype); Tensor.norm(p, dim, keepdim, dtype)"""
    method = calls.called_as_method()
    names = ("dtype",) if method else ("out", "dtype")
    if len(given) > len(names):
        raise TypeError(f"{'Tensor.norm' if method else 'norm'}() takes from 1 to "
                        f"{4 + len(names)} positional arguments but {4 + len(given)} were given")
    keywords = {"out": out, "dtype": dtype}
    for name, value in zip(names, given):
        if keywords[name] is not None:
            raise TypeError(f"{'Tensor.norm' if method else 'norm'}() got multiple values for "
                            f"argument '{name}'")
        keywords[name] = value
    return keywords["out"], keywords["dtype"]


def _norm_into(input, p, dim, keepdim, dtype):
    return norm(input, p, dim, keepdim, dtype=dtype)


_norm_into = takes_out(_norm_into, check=out_of_results_dtype, name="linalg_vector_norm")


# ---------------------------------------------------------------- torch.dist
__all__ += ["dist"]  # noqa: PLE0604 (kept beside the ops)


@overloads("(Tensor input, Tensor other, Number p = 2)")
def dist(input, other, p=2):
    """out = the p-norm of input - other (broadcast): torch.norm(input - other, p)"""
    with no_grad():
        difference = input - other
        if not difference.dtype.is_floating_point:  # (torch's at::norm, in its words)
            raise NotImplementedError(f"norm(): input dtype should be either floating point or "
                                      f"complex. Got {scalar_type_name[difference.dtype]} "
                                      f"instead.")
        result = norm(difference, p)
    return record(DistBackward0, wrap(result._data), (input, other), saved=(input, other),
                  saved_output=True, p=p)


class DistBackward0(Node):
    """out = |x - y|_p:  d/dx = the p-norm's gradient at x - y, d/dy = its negative"""

    _saved_names = ("self", "other", "result")
    p: float

    def backward(self, grad):
        x, y, result = self.saved_tensors
        gradient = norm_backward(grad, x - y, result, self.p)
        if gradient is None:  # (p = 0: torch's formula negates its undefined gradient)
            if self.next_functions[1][0] is not None:
                raise RuntimeError("Expected a proper Tensor but got None (or an undefined "
                                   "Tensor in C++) for argument #0 'self'")
            return None, None
        return sum_to(gradient, tuple(x.shape)), sum_to(-gradient, tuple(y.shape))

    def jvp(self, tangent_self, tangent_other):
        """Forward mode, torch's formula: norm_jvp(x - y, t_x - t_y, p, out) over every dim."""
        (x, y), (out,) = self.primals, self.results
        difference = x - y
        tangent = tangent_difference(tangent_self, tangent_other, difference)
        return norm_jvp(difference, tangent, out, self.p)



# ---------------------------------------------------------------- torch.renorm
__all__ += ["renorm"]  # noqa: PLE0604 (kept beside the ops)


def _renorm_checks(input, p, maxnorm):
    """torch's, in its order (its meta function)"""
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if not maxnorm >= 0:  # (C++'s double, as %g prints it)
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got "
                           f"{builtins.float(maxnorm):g}")
    if input._data.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got "
                           f"{input._data.ndim} dimensions")


def _renorm_out_first(out, *args, **kwargs):
    """torch's structured renorm: its checks, then out's dtype (the input's), then out resized
    to the input's shape; the kernel's errors (an integer input's norm) come after that."""
    named = named_arguments(("input", "p", "dim", "maxnorm"), args, kwargs)
    input, p, maxnorm = named.get("input"), named.get("p"), named.get("maxnorm")
    if not (isinstance(input, Tensor) and signatures.fits(p, "Number") and
            signatures.fits(maxnorm, "Number") and signatures.fits(named.get("dim"), "int")):
        return  # (torch's parser refuses the call first: the op says so)
    _renorm_checks(input, p, maxnorm)
    out_dtype_is(out, input._data.dtype)
    resize_out_first(out, input._data.shape)


@takes_out(before=_renorm_out_first)
@overloads("(Tensor input, Number p, int dim, Number maxnorm)")
def renorm(input, p, dim, maxnorm):
    """out = input, each slice along dim whose p-norm is above maxnorm scaled down to it:
    times maxnorm / (norm + 1e-7), the norm taken over every other dim (row-major result)"""
    _renorm_checks(input, p, maxnorm)
    dims = _all_dims_but(dim, input._data.ndim)
    half = input._data.dtype.char == "e"  # (its norm and factor in float32, as torch's kernel)
    with no_grad():
        norm = norm_over_dims(input, p, dims, True, dtype=dtypes.float32 if half else None)._data
    number = norm.dtype.type
    with np.errstate(all="ignore"):
        factor = np.where(norm > number(maxnorm), number(maxnorm) / (norm + number(1e-7)),
                          number(1))
        result = wrap(np.ascontiguousarray(input._data * factor.astype(input._data.dtype)))
    return record(RenormBackward0, result, (input,), saved=(input,), p=p,
                  dim=dims, maxnorm=maxnorm)


def _all_dims_but(dim, ndim):
    kept = wrap_dim(dim, ndim)
    return tuple(d for d in range(ndim) if d != kept)


class RenormBackward0(Node):
    """out = x * maxnorm / (norm + 1e-7) where norm > maxnorm (else x), norm over dim:
    d/dx = maxnorm / (norm + 1e-7) * (grad - x' / (norm + 1e-7) * sum(x grad)) there (x' the
    norm's gradient at x), grad elsewhere; torch's norms and sums here in float64 for float32"""

    _saved_names = ("self",)
    p: float
    dim: tuple
    maxnorm: float

    def backward(self, grad):
        (x,) = self.saved_tensors
        wide = {dtypes.float32: dtypes.float64, dtypes.float16: dtypes.float32}.get(
            x.dtype, x.dtype)  # (torch's accumulate type on CPU)
        norm = norm_over_dims(x, self.p, self.dim, True, dtype=wide)
        total = (x * grad).sum(self.dim, True, dtype=wide)
        norm_gradient = norm_backward(total, x, norm, self.p, self.dim, True)
        inverse = (norm + 1e-7).reciprocal()
        scaled = self.maxnorm * inverse * (grad - inverse * norm_gradient)
        return scaled.to(grad.dtype).where(norm > self.maxnorm, grad)


# ---------------------------------------------------------------- beta * input + alpha * product
__all__ += ["addmv", "addr", "addbmm", "baddbmm"]  # noqa: PLE0604 (kept beside the ops)


def _require_input(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{messages.type_name(input)}")


def _scalars_fit(input, beta, alpha):
    """addr refuses a float beta/alpha for an integer (or bool) result, beta first."""
    if input._data.dtype.kind in "iub":
        for name, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, builtins.float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                                   "floating point number.")


def _combined(bias, beta, products, alpha, np_dtype):
    """beta * bias + alpha * products, rounded once to ``np_dtype`` (float16's products and
    sum stay in float32 until then, as torch's kernels); beta 0 ignores bias (its nan too),
    as BLAS does; bools are or-ed; integers take beta and alpha truncated."""
    if np_dtype.kind == "b":
        kept = np.zeros((), bool) if not beta else bias
        return np.logical_or(kept, np.logical_and(products, builtins.bool(alpha)))
    number = products.dtype.type
    if np_dtype.kind in "iu":
        beta, alpha = builtins.int(beta), builtins.int(alpha)

        def number(value):  # (wrapped into the type, as C++'s conversion: -1 is 255 for uint8)
            return np.array(value, np.int64).astype(products.dtype)[()]
    if alpha != 1:
        products = quietly(np.multiply, products, number(alpha))
    if beta == 0:
        values = products
    else:
        scaled = bias if beta == 1 else quietly(np.multiply, bias.astype(products.dtype),
                                                number(beta))
        values = quietly(np.add, scaled, products)
    return np.ascontiguousarray(values.astype(np_dtype))


def _unrounded_products(a, b):
    """a @ b; float16 as float32 sums, not yet rounded (torch rounds the whole result once)."""
    if a.dtype.char == "e":
        return quietly(np.matmul, a.astype(np.float32), b.astype(np.float32))
    return _products(a, b)


def _expand_bias(input, shape):
    if not _expands_to(input._data.shape, shape):
        with no_grad():
            input.expand(shape)  # torch's error: input does not broadcast


@overloads("(Tensor input, Tensor mat, Tensor vec, *, Number beta = 1, Number alpha = 1, "
           "Tensor out = None)")
@takes_out
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """out = beta * input + alpha * (mat @ vec)"""
    _require_input("addmv", input)
    require_tensors("addmv", mat, vec, "vec", "mat", 2)
    refuse_saving_inference((input, mat, vec), (kept_for(vec, mat), kept_for(mat, vec)))
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input._data.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, "
                           f"{mat._data.ndim}, {vec._data.ndim}")
    (n, m), k = mat._data.shape, vec._data.shape[0]
    if m != k or (input._data.ndim and input._data.shape[0] not in (1, n)):
        size = input._data.shape[0] if input._data.ndim else 1
        raise RuntimeError(f"size mismatch, got input ({size}), mat ({n}x{m}), vec ({k})")
    names = [scalar_type_name[t.dtype] for t in (input, mat, vec)]
    if len(set(names)) > 1:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {names[0]}, "
                           f"{names[1]}, and {names[2]}")
    if mat._data.dtype.kind == "b" and n:
        raise not_implemented_for("addmv_impl_cpu", mat._data.dtype)
    bias = input._data
    if bias.dtype == np.float16 and beta not in (0, 1):  # (torch's gemv scales y in place first)
        bias, beta = quietly(np.multiply, bias, np.float16(beta)), 1
    if _alpha_vanishes(alpha, mat._data.dtype):
        result = wrap(_bias_alone(bias, beta, (n,)))
    else:
        result = wrap(_combined(bias, beta, _unrounded_products(mat._data, vec._data),
                                alpha, mat._data.dtype))
    return record(AddmvBackward0, result, (input, mat, vec),
                  saved=(kept_for(vec, mat), kept_for(mat, vec)), alpha=alpha, beta=beta)


class AddmvBackward0(Node):
    """out = beta * x + alpha * A @ v:  d/dx = beta,  d/dA = alpha * outer(grad, v),
    d/dv = alpha * A.T @ grad"""

    _saved_names = ("mat", "vec")
    alpha: float
    beta: float

    def jvp(self, *tangents):
        """Forward mode, torch's formula: beta t_x + alpha t_A @ v + alpha A @ t_v."""
        return _affine_product_jvp(self, mv, tangents)

    def backward(self, grad):
        mat, vec = self.saved_tensors
        return (_times(grad, self.beta),
                None if vec is None else _times(grad.outer(vec), self.alpha),
                None if mat is None else _times(mat.t().mv(grad), self.alpha))


def _times(grad, factor):
    return grad if factor == 1 else grad * factor


@overloads("(Tensor input, Tensor vec1, Tensor vec2, *, Number beta = 1, Number alpha = 1, "
           "Tensor out = None)")
@takes_out
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """out = beta * input + alpha * outer(vec1, vec2)"""
    _require_input("addr", input)
    require_tensors("addr", vec1, vec2, "vec2")
    refuse_saving_inference((input, vec1, vec2), (kept_for(vec2, vec1), kept_for(vec1, vec2)))
    for name, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got "
                               f"{vec._data.ndim}-D")
    shape = (vec1._data.shape[0], vec2._data.shape[0])
    _expand_bias(input, shape)
    np_dtype = dtypes.promote_types(dtypes.promote_types(input.dtype, vec1.dtype),
                                    vec2.dtype).numpy_dtype
    _scalars_fit(wrap(np.zeros((), np_dtype)), beta, alpha)
    a, b = vec1._data.astype(np_dtype), vec2._data.astype(np_dtype)
    bias = input._data.astype(np_dtype)
    if np_dtype.kind == "b":
        values = np.logical_or(np.logical_and(bias, builtins.bool(beta)),
                               a[:, None] & b[None, :] & builtins.bool(alpha))
    else:  # torch's kernel: beta * self + alpha * vec1 * vec2, (alpha * vec1) first
        def number(value):  # (an integer wrapped into the type: -1 is 255 for uint8)
            if np_dtype.kind in "iu":
                return np.array(value, np.int64).astype(np_dtype)[()]
            return np_dtype.type(value)
        scaled = a if alpha == 1 else quietly(np.multiply, a, number(alpha))
        products = quietly(np.multiply, scaled[:, None], b[None, :])
        values = products if beta == 0 else quietly(
            np.add, bias if beta == 1 else quietly(np.multiply, bias, number(beta)), products)
    result = wrap(np.ascontiguousarray(np.broadcast_to(values, shape), np_dtype))
    return record(AddrBackward0, result, (input, vec1, vec2),
                  saved=(kept_for(vec2, vec1), kept_for(vec1, vec2)), alpha=alpha, beta=beta)


class AddrBackward0(Node):
    """out = beta * x + alpha * outer(u, v):  d/dx = beta,  d/du = alpha * grad @ v,
    d/dv = alpha * grad.T @ u"""

    _saved_names = ("vec1", "vec2")
    alpha: float
    beta: float

    def backward(self, grad):
        vec1, vec2 = self.saved_tensors
        return (_times(grad, self.beta),
                None if vec2 is None else _times(grad.mv(vec2), self.alpha),
                None if vec1 is None else _times(grad.t().mv(vec1), self.alpha))


def _batches(name, batch1, batch2):
    require_tensors(name, batch1, batch2, "batch2")
    for which, batch in (("batch1", batch1), ("batch2", batch2)):
        if batch._data.ndim != 3:
            raise RuntimeError(f"{which} must be a 3D tensor")
    (count, n, m), (count2, m2, p) = batch1._data.shape, batch2._data.shape
    return count, n, m, count2, m2, p


@overloads("(Tensor input, Tensor batch1, Tensor batch2, *, Number beta = 1, Number alpha = 1, "
           "Tensor out = None)")
@takes_out
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """out = beta * input + alpha * (the sum over b of batch1[b] @ batch2[b])"""
    _require_input("addbmm", input)
    require_tensors("addbmm", batch1, batch2, "batch2")
    refuse_saving_inference((input, batch1, batch2),
                            (kept_for(batch2, batch1), kept_for(batch1, batch2)))
    if batch1._data.ndim >= 2 and batch2._data.ndim >= 3:  # (torch expands input first)
        _expand_bias(input, (batch1._data.shape[1], batch2._data.shape[2]))
    count, n, m, count2, m2, p = _batches("addbmm", batch1, batch2)
    if count != count2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {count} "
                           f"and {count2}")
    if m != m2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{m} and {m2}x{p})")
    for name, tensor in (("self", input), ("self", batch1)):
        if tensor.dtype is not batch2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{scalar_type_name[tensor.dtype]} and "
                               f"{scalar_type_name[batch2.dtype]}")
    if batch1._data.dtype.kind == "b" and n * p and m and count:
        raise not_implemented_for("addmm_impl_cpu_", batch1._data.dtype)
    # torch adds batch after batch with addmm_ (beta for the first only), rounding each step
    np_dtype = batch1._data.dtype
    values = np.array(np.broadcast_to(input._data, (n, p)), np_dtype)
    multiplied = count and not _alpha_vanishes(alpha, np_dtype)
    if not multiplied:  # (torch scales input alone: no batch, or each addmm_ returns at once)
        values = _bias_alone(values, beta, (n, p))
    # (each batch's products as addmm's: one term keeps its -0.0)
    for k in range(count if multiplied else 0):
        products = _matrix_products(batch1._data[k], batch2._data[k]) if np_dtype.char in "fd" \
            else _unrounded_products(batch1._data[k], batch2._data[k])
        values = _combined(values, beta if k == 0 else 1, products, alpha, np_dtype)
    result = wrap(values)
    return record(AddbmmBackward0, result, (input, batch1, batch2),
                  saved=(kept_for(batch2, batch1), kept_for(batch1, batch2)), alpha=alpha,
                  beta=beta, batch1_sym_argsize_0=count)


class AddbmmBackward0(Node):
    """out = beta * x + alpha * sum_b A[b] @ B[b]:  d/dx = beta,  d/dA[b] = alpha * grad @
    B[b].T,  d/dB[b] = alpha * A[b].T @ grad"""

    _saved_names = ("batch1", "batch2")
    alpha: float
    batch1_sym_argsize_0: int
    beta: float

    def jvp(self, *tangents):
        """Forward mode, torch's formula: beta t_x + alpha sum_b t_A[b] @ B[b] + alpha
        sum_b A[b] @ t_B[b]."""
        return _affine_product_jvp(self, bmm, tangents, summed=True)

    def backward(self, grad):
        batch1, batch2 = self.saved_tensors
        spread = grad.unsqueeze(0).expand(self.batch1_sym_argsize_0, *grad.shape)
        return (_times(grad, self.beta),
                None if batch2 is None else _times(spread.bmm(batch2.mT), self.alpha),
                None if batch1 is None else _times(batch1.mT.bmm(spread), self.alpha))


@overloads("(Tensor input, Tensor batch1, Tensor batch2, *, Number beta = 1, Number alpha = 1, "
           "Tensor out = None)")
@takes_out
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """out[b] = beta * input[b] + alpha * batch1[b] @ batch2[b]"""
    _require_input("baddbmm", input)
    require_tensors("baddbmm", batch1, batch2, "batch2")
    refuse_saving_inference((input, batch1, batch2),
                            (kept_for(batch2, batch1), kept_for(batch1, batch2)))
    if batch1._data.ndim >= 2 and batch2._data.ndim >= 3:  # (torch expands input first)
        _expand_bias(input, batch1._data.shape[:2] + batch2._data.shape[2:3])
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input "
                           f"{CPP_TYPE_NAMES[input._data.dtype.name]}, batch1: "
                           f"{CPP_TYPE_NAMES[batch1._data.dtype.name]}, batch2: "
                           f"{CPP_TYPE_NAMES[batch2._data.dtype.name]}")
    count, n, m, count2, m2, p = _batches("baddbmm", batch1, batch2)
    if count2 != count or m2 != m:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{count}, {m}] but got: [{count2}, {m2}].")
    if batch1.dtype is not batch2.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name[batch1.dtype]} but found "
                           f"{scalar_type_name[batch2.dtype]}")
    if batch1._data.dtype.kind == "b" and count * n * p and m:
        raise not_implemented_for("baddbmm", batch1._data.dtype)
    result = wrap(_combined(input._data, beta, _unrounded_products(batch1._data, batch2._data),
                            alpha, batch1._data.dtype))
    return record(BaddbmmBackward0, result, (input, batch1, batch2),
                  saved=(kept_for(batch2, batch1), kept_for(batch1, batch2)), alpha=alpha,
                  beta=beta)


class BaddbmmBackward0(Node):
    """out[b] = beta * x[b] + alpha * A[b] @ B[b]:  d/dx = beta,  d/dA = alpha * grad @ B.T,
    d/dB = alpha * A.T @ grad, batch by batch"""

    _saved_names = ("batch1", "batch2")
    alpha: float
    beta: float

    def jvp(self, *tangents):
        """Forward mode, torch's formula: beta t_x + alpha t_A @ B + alpha A @ t_B."""
        return _affine_product_jvp(self, bmm, tangents)

    def backward(self, grad):
        batch1, batch2 = self.saved_tensors
        return (_times(grad, self.beta),
                None if batch2 is None else _times(grad.bmm(batch2.mT), self.alpha),
                None if batch1 is None else _times(batch1.mT.bmm(grad), self.alpha))

histories_read_first(globals(), [name for name in __all__ if name not in (
    "outer", "ger", "inner", "matmul")])


# torch.svd(None): torch's TypeError
tensor_inputs(globals(), ["svd"])
