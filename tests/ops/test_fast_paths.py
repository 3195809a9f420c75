"""The engine's quick paths (made for bench/run.py) give exactly what the slow ones gave.

Each speed-up in the engine keeps a simple, exact path for the rare or unusual case; these
tests check the quick path against that exact path and against torch, bit for bit.
"""
import warnings

import numpy as np
import pytest

import engine
from engine.fidelity import floating
from engine.fidelity import rounding as _rounding

import parity


# ---------------------------------------------------------------- fma32
def _fma32_rounded_to_odd(a, b, c):
    """The reference: every element through the exact sum rounded to odd."""
    product = np.asarray(a, np.float32).astype(np.float64) * np.asarray(b, np.float32)
    total = _rounding._add_round_to_odd(product, np.asarray(c, np.float32).astype(np.float64))
    return np.asarray(total).astype(np.float32)


def _tricky_float32(rng, n):
    """Random magnitudes from subnormal to huge, with zeros of both signs, inf and nan."""
    x = rng.standard_normal(n).astype(np.float32)
    x *= (np.float32(10.0) ** rng.integers(-44, 38, n)).astype(np.float32)
    x[::7], x[1::11], x[2::13], x[3::17], x[4::19] = 0.0, -0.0, np.inf, -np.inf, np.nan
    return x


def _same_bits(x, y):
    assert x.dtype == y.dtype == np.float32 and x.shape == y.shape
    assert np.array_equal(np.isnan(x), np.isnan(y))
    assert np.array_equal(x[~np.isnan(x)].view(np.int32), y[~np.isnan(y)].view(np.int32))


@pytest.mark.parametrize("seed", range(6))
def test_fma32_matches_rounding_every_element_to_odd(seed):
    rng = np.random.default_rng(seed)
    a, b, c = (_tricky_float32(rng, 5000) for _ in range(3))
    with np.errstate(all="ignore"):
        _same_bits(_rounding.fma32(a, b, c), _fma32_rounded_to_odd(a, b, c))


def test_fma32_ties_and_subnormals_take_the_exact_path():
    # (1 + i/4096) * (1 + j/4096) with i*j odd is exactly halfway between two float32
    # numbers; a tiny c is lost in the float64 sum, which then breaks the tie wrongly
    rng = np.random.default_rng(1)
    a = (1 + rng.integers(1, 2**11, 20000) * 2.0**-12).astype(np.float32)
    b = (1 + rng.integers(1, 2**11, 20000) * 2.0**-12).astype(np.float32)
    c = (rng.standard_normal(20000) * 2.0**-60).astype(np.float32)
    expected = _fma32_rounded_to_odd(a, b, c)
    assert not np.array_equal(expected, (a.astype(np.float64) * b + c).astype(np.float32))
    _same_bits(_rounding.fma32(a, b, c), expected)
    tiny = (rng.standard_normal(20000) * 2.0**-130).astype(np.float32)  # float32 subnormals
    _same_bits(_rounding.fma32(tiny, np.float32(0.75), tiny), _fma32_rounded_to_odd(
        tiny, np.float32(0.75), tiny))


def test_fma32_goes_block_by_block_through_big_broadcast_arrays():
    # more elements than one block, blocks that end mid-row, a transposed operand,
    # and ties (which need the exact path) in every block
    rng = np.random.default_rng(3)
    rows, columns = 3, _rounding._BLOCK // 2 + 7
    a = (1 + rng.integers(1, 2**11, (columns, rows)) * 2.0**-12).astype(np.float32).T
    b = (1 + rng.integers(1, 2**11, columns) * 2.0**-12).astype(np.float32)
    c = (rng.standard_normal((rows, 1)) * 2.0**-60).astype(np.float32)
    result = _rounding.fma32(a, b, c)
    expected = _fma32_rounded_to_odd(a, b, c)
    assert result.shape == (rows, columns) and result.flags.c_contiguous
    assert not np.array_equal(expected, (a.astype(np.float64) * b + c).astype(np.float32))
    _same_bits(result, expected)


def _deferred(a, b, c):
    """DeferredFma32's result of one call and whether it vouches for it."""
    fused = _rounding.DeferredFma32()
    with np.errstate(all="ignore"):
        return fused(a, b, c), fused.all_fused()


@pytest.mark.parametrize("seed", range(4))
def test_deferred_fma32_is_fma32_whenever_it_says_so(seed):
    """Its sums are fma32's wherever all_fused() vouches for them, and it refuses to vouch
    for tricky operands (subnormals, halfway sums) it cannot show exact."""
    rng = np.random.default_rng(seed)
    vouched = 0
    for size in (1, 3, 8, 40, 300):
        for _ in range(40):
            a, c = (_tricky_float32(rng, size) for _ in range(2))
            for b in (_tricky_float32(rng, size), np.float32(0.5), np.float32(1 / 3),
                      (1 + rng.integers(1, 2**11, size) * 2.0**-12).astype(np.float32)):
                result, sure = _deferred(a, b, c)
                if sure:
                    vouched += 1
                    with np.errstate(all="ignore"):
                        _same_bits(result, _fma32_rounded_to_odd(a, b, c))
    assert vouched > 100  # (zeros, normal numbers, inf and nan alone: most calls)


def test_deferred_fma32_refuses_an_inexact_halfway_sum_and_subnormals():
    # 2**-24 (1 + 2**-23) * (1 - 2**-23) = 2**-24 - 2**-70: added to 1 + 2**-23 the float64 sum
    # drops the 2**-70 and lands halfway, where it breaks to even: one float32 step too high
    a = np.full(3, 2.0**-24 * (1 + 2.0**-23), np.float32)
    b = np.full(3, 1 - 2.0**-23, np.float32)
    c = np.full(3, 1 + 2.0**-23, np.float32)
    result, sure = _deferred(a, b, c)
    assert not sure and not np.array_equal(result, _fma32_rounded_to_odd(a, b, c))
    # the same halfway sum, exact (b a power of two): vouched for, and right
    result, sure = _deferred(np.full(3, 2.0**-23, np.float32), np.float32(0.5), c)
    assert sure and np.array_equal(result, np.full(3, 1 + 2.0**-22, np.float32))
    assert not _deferred(np.full(2, 2.0**-70, np.float32), np.float32(2.0**-60),
                         np.zeros(2, np.float32))[1]
    # big calls do not wait: fma32 at once, nothing left to vouch for
    big = np.full(5000, 2.0**-24 * (1 + 2.0**-23), np.float32)
    result, sure = _deferred(big, np.full(5000, 1 - 2.0**-23, np.float32),
                             np.full(5000, 1 + 2.0**-23, np.float32))
    assert sure and np.array_equal(result, np.full(5000, 1 + 2.0**-23, np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_norm_moments_with_deferred_checks_are_the_careful_ones(dtype):
    """fidelity/moments.py runs its Welford loop with DeferredFma32 and again with fma32 when
    a sum cannot be vouched for: the same bits as fma32 all the way, on rows of every length
    class (tail only, one vector, chunks, stack levels), ties (integers), subnormals (1e-40),
    and a row that needs the fallback."""
    from engine.fidelity import moments
    rng = np.random.default_rng(7)
    for length in (1, 7, 8, 9, 16, 17, 100, 128, 129, 300, 1000):
        for scale, offset in ((1, 0), (1, 100), (1e-40, 0), (1e4, 3)):
            rows = rng.standard_normal((5, length)) * scale + offset
            rows[0] = np.round(rows[0])
            rows = rows.astype(dtype)
            with np.errstate(all="ignore"):
                careful = moments._moments(rows, _rounding.fma32_flat)
                quick = moments.rowwise_moments(rows)
            for got, expected in zip(quick, careful):
                assert got.dtype == expected.dtype == np.float32
                assert np.array_equal(got.view(np.int32), expected.view(np.int32)), (length, scale)


@pytest.mark.parametrize("shapes", [((), (), ()), ((3,), (), (3,)), ((), (4,), ()),
                                    ((2, 1), (3,), (4, 2, 3)), ((0,), (), (0,))])
def test_fma32_shapes_scalars_and_broadcasting(shapes):
    rng = np.random.default_rng(2)
    a, b, c = (_tricky_float32(rng, int(np.prod(s))).reshape(s) for s in shapes)
    with np.errstate(all="ignore"):
        result = _rounding.fma32(a, b, c)
        expected = _fma32_rounded_to_odd(a, b, c)
    assert isinstance(result, np.ndarray)
    _same_bits(result, expected)
    with np.errstate(all="ignore"):  # numpy scalars and Python numbers as operands
        _same_bits(_rounding.fma32(np.float32(1.5), 3.0, a),
                   _fma32_rounded_to_odd(np.float32(1.5), 3.0, a))


@pytest.mark.torch
@pytest.mark.parametrize("alpha", [-0.1, 0.3, 1e-3, -2.5])
def test_add_with_alpha_float32_matches_torch_bit_for_bit(alpha):
    # optimizer steps are p.add_(grad, alpha=-lr): torch rounds a fused multiply-add once
    x, y = parity.make_tensor((64, 33), "float32", 0), parity.make_tensor((64, 33), "float32", 1)
    parity.run_both(lambda m, x, y: m.add(x, y, alpha=alpha), x, y)
    parity.run_both(lambda m, x, y: x.add_(y, alpha=alpha), x, y)
    parity.run_both(lambda m, x, y: m.sub(x, y[0], alpha=alpha), x, y)


@pytest.mark.torch
def test_sgd_steps_on_a_big_weight_match_torch_bit_for_bit():
    import torch

    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((256, 784)).astype(np.float32)
    g0 = (rng.standard_normal((256, 784)) * 1e-2).astype(np.float32)
    results = []
    for m in (engine, torch):
        w = m.nn.Parameter(m.tensor(w0))
        optimizer = m.optim.SGD([w], lr=0.1)
        for _ in range(3):
            w.grad = m.tensor(g0)
            optimizer.step()
        results.append(w.detach().numpy())
    _same_bits(*results)


# ---------------------------------------------------------------- the optimizer's update
@pytest.fixture(params=["blas", "fma32"])
def axpy_path(request, monkeypatch):
    """Each test twice: through the BLAS saxpy (where this machine has a fused one) and through
    fma32 alone, as on a machine whose BLAS does not fuse."""
    from engine.fidelity import fused_axpy

    if request.param == "fma32":
        monkeypatch.setattr(fused_axpy, "_fused_saxpy", lambda: None)
    return request.param


def test_the_blas_path_is_checked_before_it_is_trusted():
    from engine.fidelity import fused_axpy

    saxpy = fused_axpy._fused_saxpy()
    assert fused_axpy.path().startswith("fma32" if saxpy is None else "BLAS")
    if fused_axpy._load_saxpy() is not None:
        # only a saxpy that fails the check is refused: here, one that rounds twice
        assert saxpy is not None or "fma32" in fused_axpy.path()


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 200, 4096 + 17])
def test_axpy_into_rounds_once_like_fma32(axpy_path, n):
    from engine.fidelity import fused_axpy

    rng = np.random.default_rng(n)
    with np.errstate(all="ignore"):
        for alpha in (-0.1, 3.0, -1e-20, 7e25):
            x, y = _tricky_float32(rng, n), _tricky_float32(rng, n)
            expected = _fma32_rounded_to_odd(x, np.float32(alpha), y)
            fused_axpy.axpy_into(alpha, x, y)
            _same_bits(y, expected)


def test_axpy_into_with_ties_and_subnormals(axpy_path):
    from engine.fidelity import fused_axpy

    rng = np.random.default_rng(5)
    x = (1 + rng.integers(1, 2**11, 4100) * 2.0**-12).astype(np.float32)
    y = (rng.standard_normal(4100) * 2.0**-60).astype(np.float32)
    y[::3] = (rng.standard_normal(1367) * 2.0**-130).astype(np.float32)  # subnormals
    alpha = float(np.float32(1 + 3 * 2.0**-12))  # alpha * x often exactly halfway
    expected = _fma32_rounded_to_odd(x, np.float32(alpha), y)
    fused_axpy.axpy_into(alpha, x, y)
    _same_bits(y, expected)


@pytest.mark.torch
@pytest.mark.parametrize("shape", [(256, 784), (10, 256), (10,), (3, 64), ()])
def test_optimizer_update_in_place_matches_torch_bit_for_bit(axpy_path, shape):
    # p.add_(g, alpha=-lr) on float32 tensors of one shape: the update's quick way
    p = parity.make_tensor(shape, "float32", 0)
    g = parity.make_tensor(shape, "float32", 1)
    parity.run_both(lambda m, p, g: p.add_(g, alpha=-0.1), p, g)
    parity.run_both(lambda m, p, g: -p._version + p.add_(g, alpha=0.7)._version, p, g)
    parity.run_both(lambda m, p, g: m.nn.Parameter(p).add_(g, alpha=-0.1), p, g)


@pytest.mark.torch
def test_in_place_adds_that_the_quick_way_leaves_to_add(axpy_path):
    # overlapping memory, other dtypes and layouts, broadcasting, autograd: torch's answers
    x = parity.make_tensor((4, 64), "float32", 0)
    y = parity.make_tensor((4, 64), "float32", 1)
    parity.run_both(lambda m, x: x.add_(x, alpha=-0.5), x)
    parity.run_both(lambda m, x: x[1:].add_(x[:-1], alpha=-0.5), x)
    parity.run_both(lambda m, x, y: x.add_(y.t().contiguous().t(), alpha=2.5), x, y)
    parity.run_both(lambda m, x, y: x.add_(y[0], alpha=2.5), x, y)
    parity.run_both(lambda m, x, y: x.add_(y.double(), alpha=2.5), x, y)
    parity.run_both(lambda m, x, y: x.add_(y, alpha=0.0), x, y)
    parity.run_both(lambda m, x, y: x.add_(y, alpha=1e-40), x, y)
    parity.run_both(lambda m, x, y: x.add_(y, alpha=1e39), x, y)
    parity.run_both(lambda m, x, y: x.requires_grad_().add_(y, alpha=-0.1), x, y)
    parity.run_both(lambda m, x, y: x.add_(y.requires_grad_(), alpha=-0.1).grad_fn.name(), x, y)
    parity.run_both(lambda m, x, y: (x.requires_grad_() * 1).add_(y, alpha=-0.1).grad_fn.name(),
                    x, y)

    def in_inference_mode(m, x, y):
        with m.inference_mode():
            inference = m.ones(4, 64)
        return x.add_(inference, alpha=-0.1), inference.add_(y, alpha=-0.1)
    parity.run_both(in_inference_mode, x, y)

    def leaf_under_no_grad(m, x, y):
        x.requires_grad_()
        version = x._version
        with m.no_grad():
            x.add_(y, alpha=-0.1)
        return x, x._version - version, x.is_leaf
    parity.run_both(leaf_under_no_grad, x, y)


# ---------------------------------------------------------------- sum of a few elements
@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", range(1, 9))
def test_sum_of_a_few_elements_adds_in_torchs_order(dtype, n):
    # fewer than 4 elements take a quick path: added in order from 0 (so never -0.0)
    for seed in range(20):
        x = parity.make_tensor((n,), dtype, seed)
        parity.run_both(lambda m, x: x.sum(), x)
        parity.run_both(lambda m, x: x[::2].sum(), x)  # not contiguous
    parity.run_both(lambda m, x: x.sum(), engine.tensor([-0.0] * n, dtype=getattr(engine, dtype)))


# ---------------------------------------------------------------- nodes made cheaply
@pytest.mark.torch
def test_nodes_made_cheaply_still_show_what_torch_shows():
    import torch

    for m in (engine, torch):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        y = a * 2
        node = y.grad_fn
        assert node.metadata == {} and node.metadata is node.metadata  # made once, kept
        node.metadata["note"] = 1
        assert y.grad_fn.metadata == {"note": 1}
        leaf_node = node.next_functions[0][0]
        assert leaf_node.next_functions == () and leaf_node.metadata == {}
        assert leaf_node.variable is a
    e = engine.tensor([[1.0], [2.0]], requires_grad=True)
    assert (e * 1).grad_fn.next_functions[0][0]._input_meta == (((2, 1), np.dtype(np.float32)),)


# ---------------------------------------------------------------- quietly
def test_quietly_silences_numpy_for_that_call_only():
    """The context-variable path of fidelity.floating.quietly is np.errstate(all="ignore"),
    nested calls included, and the caller's numpy keeps its warnings afterwards."""
    values = np.array([0.0, 1.0, np.inf, -np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(floating.quietly(np.divide, values, values)[0])
        nested = floating.quietly(lambda: floating.quietly(np.subtract, values, values)
                                  + np.multiply(values, 0))
        assert np.isnan(nested[2:]).all()
        with pytest.raises(RuntimeWarning, match="invalid value encountered in divide"):
            np.divide(values, values)  # outside: numpy warns as usual
    assert np.geterr() == {"divide": "warn", "over": "warn", "under": "ignore",
                           "invalid": "warn"}


def test_quietly_runs_a_ufunc_silently_in_every_thread_and_under_any_user_state():
    """A ufunc takes the silent-context path (one context per thread, never entered twice):
    silent whatever numpy state the caller set, which it keeps afterwards."""
    import threading

    values = np.array([0.0, 1.0, np.inf], np.float32)
    seen = []

    def divide():
        seen.append(floating.quietly(np.divide, values, values))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            assert np.isnan(floating.quietly(np.divide, values, values)[0])
            with pytest.raises(FloatingPointError):
                np.divide(values, values)  # the caller's state is untouched
            assert np.geterr()["divide"] == "raise"
        threads = [threading.Thread(target=divide) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(seen) == 4 and all(np.isnan(s[0]) for s in seen)
        # a ufunc inside a quietly call (already silent) is called directly
        inside = floating.quietly(lambda: floating.quietly(np.multiply, values, np.inf))
        assert np.isnan(inside[0])
        # silent_runner()(ufunc, ...) is quietly(ufunc, ...) with one call fewer
        assert np.isnan(floating.silent_runner()(np.divide, values, values)[0])
        assert floating.quietly(floating.silent_runner) is floating.quietly  # (inside: itself)
        assert floating.silent_runner() is not floating.quietly


# ---------------------------------------------------------------- fastpath: x + y & co
_GENERAL = {"add": engine.Tensor.add, "sub": engine.Tensor.sub, "mul": engine.Tensor.mul,
            "div": engine.Tensor.div}
_OPERATOR = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
             "div": lambda x, y: x / y}


def _operands(case, dtype, grads):
    rng = np.random.default_rng(0)
    shapes = {"same": ((2, 3), (2, 3)), "broadcast": ((4, 3), (3,)), "0-d": ((), ()),
              "empty": ((0, 3), (0, 3)), "transposed": ((3, 2), (3, 2)),
              "column": ((3, 1), (1, 4))}[case]
    made = []
    for shape, grad in zip(shapes, grads):
        data = rng.standard_normal(shape).astype(dtype)
        if data.size:
            data.flat[0] = 0.0
        if case == "transposed":
            leaf = engine.tensor(data.T.copy(), requires_grad=grad)
            made.append(leaf.t())  # a view: not row-major
        else:
            made.append(engine.tensor(data, requires_grad=grad))
    if case == "same" and grads[0]:
        made[0] = made[0] * 1.0  # a non-leaf operand
    return made


def _node_summary(node, leaves):
    if node is None:
        return None
    return (type(node).__name__, getattr(node, "alpha", None), node._input_meta,
            [(type(n).__name__, nr, next((i for i, leaf in enumerate(leaves)
                                          if getattr(n, "variable", None) is leaf), None))
             for n, nr in node.next_functions],
            [None if s is None else ([i for i, t in enumerate(leaves) if t is s.tensor],
                                     s.version, s.is_output) for s in node._saved])


def _summary(result, leaves):
    data = result._data
    return (data.dtype, data.shape, result.stride(), data.tobytes(), result.requires_grad,
            result.is_leaf, _node_summary(result.grad_fn, leaves))


@pytest.mark.parametrize("op", sorted(_GENERAL))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", ["same", "broadcast", "0-d", "empty", "transposed", "column"])
@pytest.mark.parametrize("grads", [(False, False), (True, False), (False, True), (True, True)])
def test_operators_on_two_float_tensors_give_what_the_general_op_gives(op, dtype, case, grads):
    from engine.ops import fastpath

    calls = []
    real = fastpath.connect  # (the one function that wires a node, as record's is wired)
    fastpath.connect = lambda *args: calls.append(args) or real(*args)
    try:
        for mode in ("grad", "no_grad", "inference"):
            x, y = _operands(case, dtype, grads)
            context = {"grad": engine.enable_grad, "no_grad": engine.no_grad,
                       "inference": engine.inference_mode}[mode]
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                with context():
                    quick, general = _OPERATOR[op](x, y), _GENERAL[op](x, y)
            assert quick.is_inference() == general.is_inference() == (mode == "inference")
            assert _summary(quick, (x, y)) == _summary(general, (x, y))
            if quick.requires_grad:
                assert quick.grad_fn._sequence_nr + 1 == general.grad_fn._sequence_nr
                for result in (quick, general):
                    result.sum().backward(retain_graph=True)
                    grads_now = [None if t.grad is None else t.grad._data.tobytes()
                                 for t in (x, y) if t.is_leaf]
                    for t in (x, y):
                        if t.is_leaf:
                            t.grad = None
                    if result is quick:
                        quick_grads = grads_now
                assert quick_grads == grads_now
    finally:
        fastpath.connect = real
    assert len(calls) == (1 if any(grads) else 0)  # the quick path did record (grad mode only)


def test_anything_else_takes_the_general_op():
    """Numbers, integers, float16, mixed dtypes, operands that do not broadcast."""
    from engine.ops import fastpath

    calls = []
    real = fastpath.connect
    fastpath.connect = lambda *args: calls.append(args) or real(*args)
    try:
        f = engine.tensor([1.0, 2.0], requires_grad=True)
        for other in (2, 2.5, True, np.float32(2), engine.tensor([1, 2]),
                      engine.tensor([1.0, 2.0], dtype=engine.float64, requires_grad=True),
                      engine.tensor([1.0, 2.0], dtype=engine.float16)):
            for op in ("add", "sub", "mul", "div"):
                if op == "sub" and other is True:
                    with pytest.raises(NotImplementedError, match="with a bool tensor"):
                        f - other
                    continue
                quick, general = _OPERATOR[op](f, other), _GENERAL[op](f, other)
                assert quick.dtype == general.dtype and quick.tolist() == general.tolist()
                assert type(quick.grad_fn) is type(general.grad_fn)
        h = engine.tensor([1.0, 2.0], dtype=engine.float16, requires_grad=True)
        assert (h * engine.tensor(3.0, dtype=engine.float16)).dtype == engine.float16
        assert not calls
        with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size "
                                               r"of tensor b \(3\) at non-singleton dimension 0"):
            f + engine.ones(3)
        with pytest.raises(TypeError):
            f + "2"
    finally:
        fastpath.connect = real


def test_operators_record_what_anomaly_mode_records():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (anomaly mode's warning that it is on)
        with engine.autograd.detect_anomaly():
            x = engine.tensor([1.0, 2.0], requires_grad=True)
            y = x * x
    assert "traceback_" in y.grad_fn.metadata


# ---------------------------------------------------------------- relu's backward
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("layout", ["row-major", "transposed", "expanded grad", "0-d", "1-d"])
def test_relu_backward_quick_way_is_where_bit_for_bit(dtype, layout):
    from engine.ops import unary

    rng = np.random.default_rng(3)
    shape = {"0-d": (), "1-d": (7,)}.get(layout, (3, 4))
    data = rng.standard_normal(shape).astype(dtype)
    if data.ndim:
        data.flat[:4] = [0.0, -0.0, np.nan, np.inf][:data.size]
    x = engine.tensor(data)
    result = x.relu() if layout != "transposed" else x.t().relu()
    grad = engine.tensor(rng.standard_normal(result.shape).astype(dtype))
    if layout == "expanded grad":
        grad = engine.tensor(rng.standard_normal(4).astype(dtype)).expand(3, 4)
    with engine.no_grad():
        quick = unary.threshold_backward(result, grad)
        general = unary.where(result <= 0, 0.0, grad)
    assert quick._data.tobytes() == general._data.tobytes()
    assert (quick.dtype, quick.shape, quick.stride()) == (general.dtype, general.shape,
                                                         general.stride())
    # with create_graph the gradient is recorded (torch's node, linked to the result too)
    leaf = engine.tensor(data, requires_grad=True)
    outer = engine.tensor(np.ones(shape, dtype), requires_grad=True)
    (g,) = engine.autograd.grad(leaf.relu(), leaf, outer, create_graph=True)
    assert type(g.grad_fn).__name__ == "ThresholdBackwardBackward0"


# ---------------------------------------------------------------- fma32 by powers of two
@pytest.mark.parametrize("seed", range(4))
def test_fma32_power_of_two_is_fma32_bit_for_bit(seed):
    """Rows scaled by powers of two (a mean loss's log-softmax gradient), zeros of both signs,
    products that turn subnormal or overflow, inf and nan: the quick way or not, fma32's
    bits."""
    rng = np.random.default_rng(seed)
    a = _tricky_float32(rng, 4096).reshape(64, 64)
    c = _tricky_float32(rng, 4096).reshape(64, 64)
    quick_ones = 0
    for b in ((-np.float32(2.0) ** -rng.integers(0, 40, (64, 1))).astype(np.float32),
              (np.float32(2.0) ** rng.integers(-149, 128, (64, 1))).astype(np.float32),
              np.zeros((64, 1), np.float32), np.full((64, 1), -0.0, np.float32),
              np.full((64, 1), np.float32(1 / 64)), np.full((64, 1), np.float32(0.1)),
              np.full((64, 1), np.inf, np.float32), np.full((64, 1), np.nan, np.float32)):
        for a_part in (a, np.abs(a[:, :8]) + np.float32(0.5), rng.random((64, 8), np.float32)):
            c_part = c[:, :a_part.shape[1]]
            with np.errstate(all="ignore"):
                expected = _rounding.fma32(a_part, b, c_part)
                quick = _rounding.fma32_power_of_two(a_part, b, c_part)
                quick_ones += np.array_equal(quick, a_part * b + c_part, equal_nan=True)
            _same_bits(quick, expected)
    assert quick_ones > 4  # (some of them did take the quick way)


def test_log_softmax_backward_of_a_mean_loss_matches_torch_bit_for_bit():
    """The gradient a mean cross-entropy sends back (-1/batch at each target), through
    log_softmax's backward given torch's own forward result (the forward's SLEEF log is not
    replayed: see test_softmax_order_parity.py), bit for bit, batches of powers of two or not."""
    torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
    from engine.ops.reduce import _log_softmax_backward_data

    rng = np.random.default_rng(0)
    for batch, classes in ((64, 10), (32, 1000), (100, 7), (1, 3), (8, 1), (16, 9)):
        for scale in (1.0, 4.0, 30.0):
            x = (rng.standard_normal((batch, classes)) * scale).astype(np.float32)
            x[0, 0] = -150.0  # (an exp that underflows)
            output = torch.log_softmax(torch.tensor(x), 1)
            grad = np.zeros((batch, classes), np.float32)
            grad[np.arange(batch), rng.integers(0, classes, batch)] = np.float32(-1 / batch)
            expected = torch._log_softmax_backward_data(torch.tensor(grad), output, 1,
                                                        torch.float32).numpy()
            got = _log_softmax_backward_data(engine.tensor(grad), engine.tensor(output.numpy()),
                                             1)._data
            assert got.tobytes() == expected.tobytes(), (batch, classes, scale)


# ---------------------------------------------------------------- x.sum(dims, keepdim)
def _sum_cases():
    x = engine.arange(24.0).reshape(2, 3, 4)
    return x, [(), (0,), (-1,), ((0, 2),), ([1],), ((0, 2), True), (1, False), ([],),
               ((),), (-3, True)]


@pytest.mark.parametrize("name", ["sum", "mean"])
@pytest.mark.parametrize("grad", [False, True])
def test_sum_and_mean_methods_skip_the_parser_with_what_it_would_give(name, grad):
    from engine.fidelity import signatures

    x, cases = _sum_cases()
    x.requires_grad_(grad)
    general = getattr(engine, name)
    real, calls = signatures.Signature.parse, []
    signatures.Signature.parse = lambda *args, **kw: calls.append(args) or real(*args, **kw)
    try:
        for args in cases:
            kwargs = {}
            if len(args) == 2 and args[1] is True:
                args, kwargs = args[:1], {"keepdim": True}
            quick = getattr(x, name)(*args, **kwargs)
            assert not calls, args
            expected = general(x, *args, **kwargs)
            assert _summary(quick, (x,)) == _summary(expected, (x,))
            calls.clear()
    finally:
        signatures.Signature.parse = real


@pytest.mark.parametrize("args, kwargs", [
    ((True,), {}), ((0, 1), {}), ((0, 1.0), {}), ((np.int64(0),), {}), ((None,), {}),
    ((0,), {"dim": 1}), ((), {"dim": 0}), ((0,), {"keepdim": 1}), ((0,), {"dtype": engine.float64}),
    ((0, True, engine.float64), {}), ((0,), {"axis": 1}), ((5,), {}), (((0, 0),), {}),
    ((engine.tensor(0),), {}), (((0, 1.5),), {}), (("a",), {})], ids=repr)
def test_other_sum_calls_take_the_parser_and_say_what_torch_says(args, kwargs):
    x = engine.arange(6.0).reshape(2, 3)
    torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
    t = torch.arange(6.0).reshape(2, 3)

    def torch_args(values):
        return tuple(torch.tensor(0) if isinstance(v, engine.Tensor) else
                     torch.float64 if v is engine.float64 else v for v in values)

    for name in ("sum", "mean"):
        results = []
        for call in (lambda name=name: getattr(x, name)(*args, **kwargs),
                     lambda name=name: getattr(t, name)(*torch_args(args), **{
                         k: torch.float64 if v is engine.float64 else v
                         for k, v in kwargs.items()})):
            try:
                value = call()
                results.append(("ok", value.tolist(), str(value.dtype).split(".")[-1]))
            except Exception as error:  # noqa: BLE001 - compared with torch's
                results.append((type(error).__name__, str(error).split("\n")[0]))
        assert results[0] == results[1], (name, args, kwargs)
