"""The dot of two vectors against torch 2.15, bit for bit: MKL's sdot and ddot, whose order
of additions the engine replays (engine/ops/linalg.py, ``_mkl_dot``; measured on an AMD
EPYC, whose MKL runs 4 accumulators of one 16-byte vector each).

- Fuzz 4438713: ``matmul`` of two float32 vectors near overflow, 1.5e19 in torch, 0 in the
  engine (numpy's BLAS), as the order decides which terms cancel before overflowing.
- Every length up to 100 and some beyond (blocks of 16 float32 or 8 float64 terms, their
  tails, 8,191 and 4,095: the longest replayed), at every alignment of either vector (the
  offset of its first element from a 16-byte boundary: MKL first adds single terms until
  y is aligned, and float32 with x still not aligned adds one term after another).
- Cancellation: +H and -H at two places, ones elsewhere (the sum tells where H and -H
  meet in the tree of additions); terms that overflow in one order and not in another.
- Zeros: a dot of -0.0 products is 0.0 (the sums start from +0); an empty dot is 0.
- inf and nan among the terms.
- Vectors with a stride (2, 3, or 0: a number expanded): float32 adds one term after
  another, float64 the even and the odd terms apart.
- The ops that reach MKL's dot: dot, vdot, matmul and ``@`` of two vectors, tensordot of
  two vectors, inner of two contiguous ones (inner of a strided vector multiplies and
  sums, as torch's tensordot does, and its graph shows it).
"""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402



def _torchs_dot_is_the_one_measured():
    """Whether this CPU's MKL adds as the one the replay was measured on (an Intel CPU may run
    other kernels): answers known from that order, asked of torch alone (not of the engine).
    +H and -H (H = 3e38) meet before a 1 joins them only where the order puts them together:
    with 9 aligned float32 terms t0 + t8 come first, t1 joins t5, t0 and t4 meet late."""
    def probe(n, plus, minus, one):
        values = torch.zeros(n)
        values[plus], values[minus], values[one] = 3e38, -3e38, 1.0
        return torch.dot(values, torch.ones(n)).item()
    return (probe(9, 0, 8, 4) == 1.0 and probe(9, 1, 5, 3) == 1.0 and
            probe(9, 0, 4, 8) == 0.0 and probe(4, 0, 2, 1) == 1.0 and
            torch.matmul(torch.tensor([0.7615942, 1.0, -1.0, -1.0]),
                         torch.tensor([-0.3, 3.4e38, -1.5e19, 3.4e38])).item() > 1e19)


pytestmark = [pytest.mark.torch, pytest.mark.skipif(
    not _torchs_dot_is_the_one_measured(),
    reason="this CPU's MKL adds a dot's terms in another order than the one the engine "
           "replays (measured on an AMD EPYC; DIFFERENCES.md, 'Sums, products')")]

ALIGNMENT = {"float32": 4, "float64": 2}  # elements in 16 bytes
LONGEST = {"float32": 8191, "float64": 4095}  # (from 32 KB MKL splits over its threads)
LENGTHS = list(range(101)) + [127, 128, 129, 255, 256, 257, 1000, 1023, 1025, 4095]


def mixed(rng, n, dtype):
    """Random values whose magnitudes span 2^-30 to 2^30: their sum's last bits show the
    order of additions (numpy's BLAS agrees with torch for about 6 float32 dots in 10)."""
    return (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(dtype)


def both(values, dtype):
    """The same values as an engine tensor and a torch tensor (fresh storages: offset 0)."""
    return (engine.tensor(values, dtype=getattr(engine, dtype)),
            torch.tensor(values, dtype=getattr(torch, dtype)))


def laid_out(values, offset, stride, dtype):
    """An engine and a torch view of ``values`` whose first element sits ``offset``
    elements into a fresh storage, every ``stride``-th (0: the first value, expanded)."""
    n = len(values)
    span = n * stride if stride else 1
    storage = np.zeros(offset + max(span, 1))
    if n:
        storage[offset:offset + span:max(stride, 1)] = values[:1] if stride == 0 else values
    views = []
    for tensor in both(storage, dtype):
        views.append(tensor[offset:offset + 1].expand(n) if stride == 0 else
                     tensor[offset:offset + n * stride:stride])
    return views


def assert_dot(x_values, y_values, dtype, x_offset=0, y_offset=0, x_stride=1, y_stride=1,
               op=lambda m, x, y: m.dot(x, y)):
    """op(x, y) the same in both, x and y laid out so (see laid_out)."""
    (ex, tx), (ey, ty) = (laid_out(x_values, x_offset, x_stride, dtype),
                          laid_out(y_values, y_offset, y_stride, dtype))
    parity.assert_same(op(engine, ex, ey), op(torch, tx, ty))


def test_the_fuzz_case():
    parity.run_both(lambda m: m.matmul(m.tensor([0.7615942, 1., -1., -1.]),
                                       m.tensor([-0.3, 3.4e38, -1.5e19, 3.4e38])))


@pytest.mark.parametrize("dtype,x_offset,y_offset", [
    (dtype, x_offset, y_offset) for dtype, lanes in ALIGNMENT.items()
    for x_offset in range(lanes) for y_offset in range(lanes)])
def test_every_length_at_every_alignment(dtype, x_offset, y_offset):
    rng = np.random.default_rng([x_offset, y_offset, len(dtype)])
    for n in LENGTHS + [LONGEST[dtype]]:
        # the offsets of the whole 64-byte line too: only their value modulo 16 bytes counts
        shift = ALIGNMENT[dtype] * int(rng.integers(0, 4))
        assert_dot(mixed(rng, n, dtype), mixed(rng, n, dtype), dtype, x_offset + shift,
                   y_offset)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [3, 5, 9, 12, 16, 17, 24, 31, 33, 47, 64, 65, 200, 1000])
def test_where_big_terms_meet(n, dtype):
    """+H at i, -H at j and ones elsewhere: the ones added to a partial sum that holds H
    vanish, so the sum is n minus the size of the subtree where H and -H meet."""
    big = 3e38 if dtype == "float32" else 1e300
    rng = np.random.default_rng(n)
    for _ in range(20):
        i, j = rng.choice(n, 2, replace=False)
        values = np.ones(n)
        values[i], values[j] = big, -big
        offsets = rng.integers(0, ALIGNMENT[dtype], 2)
        assert_dot(values, np.ones(n), dtype, *offsets)


OVERFLOW_POOL = {"float32": [0.0, 1.0, -0.3, 1.5e19, -1.5e19, 3e38, -3e38, 3.4e38, -1.7e38],
                 "float64": [0.0, 1.0, -0.3, 1e154, -1e154, 1.7e308, -1.7e308, 9e307]}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_terms_near_overflow(dtype):
    parity.run_both(lambda m: m.dot(m.tensor([3e38, 3e38, -3e38, 0.]), m.ones(4)))
    parity.run_both(lambda m: m.dot(m.tensor([3e38, 3e38, -3e38]), m.ones(3)))
    rng = np.random.default_rng(len(dtype))
    for n in [2, 4, 5, 8, 9, 16, 17, 40, 100]:
        for _ in range(10):
            values = rng.choice(OVERFLOW_POOL[dtype], n)
            other = rng.choice([1.0, -1.0, 0.5, 2.0], n)
            offsets = rng.integers(0, ALIGNMENT[dtype], 2)
            assert_dot(values, other, dtype, *offsets)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("stride", [1, 2, 0])
def test_negative_zero_products_sum_to_zero(stride, dtype):
    for n in range(1, 40):
        for offsets in [(0, 0), (1, 0), (0, 1), (3, 2)]:
            assert_dot(np.full(n, -0.0), np.ones(n), dtype, *offsets, x_stride=stride)
            assert_dot(np.zeros(n), -np.ones(n), dtype, *offsets, y_stride=stride)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_empty_dots(dtype):
    parity.run_both(lambda m: m.dot(m.zeros(0, dtype=getattr(m, dtype)),
                                    m.zeros(0, dtype=getattr(m, dtype))))
    parity.run_both(lambda m: m.ones(5, dtype=getattr(m, dtype))[3:3] @
                    m.ones(2, dtype=getattr(m, dtype))[1:1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inf_and_nan(dtype):
    rng = np.random.default_rng(7)
    for n in [1, 2, 3, 5, 8, 17, 33, 100]:
        for _ in range(10):
            values = rng.choice([0.0, -0.0, 1.0, -2.5, 1e30], n)
            values[rng.integers(0, n, 2)] = rng.choice([np.inf, -np.inf, np.nan], 2)
            other = rng.choice([1.0, -1.0, 0.0], n)
            offsets = rng.integers(0, ALIGNMENT[dtype], 2)
            assert_dot(values, other, dtype, *offsets)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("strides", [(2, 1), (1, 2), (3, 3), (0, 1), (1, 0), (0, 0), (2, 0)])
def test_strided_vectors(strides, dtype):
    rng = np.random.default_rng(strides)
    for n in [1, 2, 3, 4, 7, 8, 9, 16, 33, 100, 1000, LONGEST[dtype]]:
        assert_dot(mixed(rng, n, dtype), mixed(rng, n, dtype), dtype, *rng.integers(0, 4, 2),
                   *strides)


OPS = {
    "vdot": lambda m, x, y: m.vdot(x, y),
    "matmul": lambda m, x, y: m.matmul(x, y),
    "@": lambda m, x, y: x @ y,
    "inner": lambda m, x, y: m.inner(x, y),
    "tensordot": lambda m, x, y: m.tensordot(x, y, 1),
    "dot out=": lambda m, x, y: m.dot(x, y, out=m.empty((), dtype=x.dtype)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(OPS))
def test_the_ops_that_reach_mkls_dot(name, dtype):
    rng = np.random.default_rng(len(name))
    for n in [3, 9, 17, 33, 100]:
        offsets = rng.integers(0, ALIGNMENT[dtype], 2)
        assert_dot(mixed(rng, n, dtype), mixed(rng, n, dtype), dtype, *offsets, op=OPS[name])


def graph(tensor):
    """The names of the nodes behind a result, breadth first."""
    names, nodes = [], [tensor.grad_fn]
    while nodes:
        node = nodes.pop(0)
        if node is not None:
            names.append(type(node).__name__)
            nodes += [edge[0] for edge in node.next_functions]
    return names


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inner_of_a_strided_vector_multiplies_and_sums(dtype):
    rng = np.random.default_rng(3)
    for n in [2, 5, 33, 100]:
        assert_dot(mixed(rng, n, dtype), mixed(rng, n, dtype), dtype, 1, 0, x_stride=2,
                   op=lambda m, x, y: m.inner(x, y))
    names = []
    for m in (engine, torch):
        x = m.arange(20.).requires_grad_()
        names.append([graph(m.inner(a, b)) for a, b in [(x[::2], x[:10]), (x[:10], x[:10]),
                                                        (x[:1].expand(3), x[:3])]])
    assert names[0] == names[1]
