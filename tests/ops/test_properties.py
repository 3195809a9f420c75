"""Property-based tests (hypothesis): random shapes, dtypes, values and op sequences.

The other parity tests walk fixed tables (SHAPES, BROADCAST_PAIRS, seeded values); here
hypothesis draws the shapes (0-d, size 1, size 0, broadcast pairs), the dtypes, the
values (nan, inf, -0.0, subnormals, the integer extremes) and short sequences of
operations, runs each draw with the engine and with torch 2.15, and compares what a
learner can observe: values, dtypes, shapes, strides, memory sharing, ``grad_fn``
names and gradients (``parity.run_both`` / ``assert_same``, exact unless the op is a
reduction or a transcendental, see tests/ops/test_ops_parity.py for why).

The draws are derandomized (the same examples on every run, so CI is deterministic)
and hypothesis's example database is off (nothing is written into the repository).
"""
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.extra import numpy as hnp

import engine
from parity import DTYPES, FLOAT_DTYPES, TORCH_SKIP_REASON, assert_same, run_both, to_torch

# With database=None hypothesis still caches the constants it reads in the source code, in
# .hypothesis/ by default (from the first @given on): keep that out of the repository.
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "autograd-step-by-step-hypothesis")

torch = pytest.importorskip("torch", reason=TORCH_SKIP_REASON)
from ops.test_ops_parity import (ALL_BINARY, REDUCTIONS, UNARY, _ATOL_OPS,  # noqa: E402
                                 _ROUNDING_DIVISION, _UNARY_ULP, _reduction_kwargs)

pytestmark = [
    pytest.mark.torch,
    # both libraries warn alike about these (random draws hit them): not the subject here
    pytest.mark.filterwarnings("ignore:The use of `x.T` on tensors:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0:UserWarning"),
]

# Where a result has no elements, two things are not compared: its strides (torch's
# TensorIterator leaves internal choices there, nothing can be read through them) and
# memory sharing (every empty storage sits at address 0, so all of them "share").

# Each test gets a fixed list of examples; on 2 busy cores the file takes 30-60 s.
PROPERTY = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)
broadcast_pairs = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                    min_side=0, max_side=3)
dtype_names = st.sampled_from(DTYPES)
float_dtype_names = st.sampled_from(FLOAT_DTYPES)


def _elements(dtype_name, moderate=False, negative_zero=True):
    """Values of a dtype: every float (nan, inf, -0.0, subnormals), or -3..3 if moderate."""
    dtype = np.dtype(dtype_name)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return st.integers(-3, 3).filter(lambda v: v >= info.min) if moderate else \
            st.integers(int(info.min), int(info.max))
    width = dtype.itemsize * 8
    floats = st.floats(-3, 3, width=width) if moderate else st.floats(width=width)
    return floats if negative_zero else floats.map(lambda v: v + 0.0)  # -0.0 + 0.0 is 0.0


def _tensor(array):
    """An engine tensor of ``array`` with the strides torch.empty gives (numpy gives arrays
    of size 0 strides of 0, and from_numpy keeps them, as torch does)."""
    result = engine.empty(array.shape, dtype=getattr(engine, array.dtype.name))
    return result.copy_(engine.from_numpy(array))


def arrays(dtype_name, shape, moderate=False, negative_zero=True):
    """Engine tensors of a dtype and shape (run_both gives torch a copy of each)."""
    return hnp.arrays(np.dtype(dtype_name), shape,
                      elements=_elements(dtype_name, moderate, negative_zero)).map(_tensor)


# ====================================================================== elementwise
@PROPERTY
@given(data=st.data(), name=st.sampled_from(sorted(UNARY)), dtype=dtype_names, shape=shapes)
def test_unary_ops(data, name, dtype, shape):
    # (clamp with a tensor bound is torch.maximum: signed zeros tie by position, see below)
    x = data.draw(arrays(dtype, shape, negative_zero=name != "clamp_tensor"))
    run_both(UNARY[name], x, exact=name not in _UNARY_ULP, check_layout=0 not in shape)


@PROPERTY
@given(data=st.data(), name=st.sampled_from(sorted(ALL_BINARY)), dtypes=st.tuples(
    dtype_names, dtype_names), shapes=broadcast_pairs)
def test_binary_ops_with_broadcasting_and_promotion(data, name, dtypes, shapes):
    # moderate values for rounding divisions: when the quotient overflows, torch's own
    # vectorised loop and its scalar tail disagree (see tests/ops/test_ops_parity.py)
    moderate = name in _ROUNDING_DIVISION or name == "pow"
    # maximum(0.0, -0.0): torch's vectorised loop returns the second, its scalar tail the
    # first, by position in memory; numpy always the second. Not a question for the engine.
    negative_zero = name not in ("maximum", "minimum")
    a = data.draw(arrays(dtypes[0], shapes.input_shapes[0], moderate, negative_zero))
    b = data.draw(arrays(dtypes[1], shapes.input_shapes[1], moderate, negative_zero))
    run_both(ALL_BINARY[name], a, b, exact=name not in _ATOL_OPS,
             check_layout=0 not in shapes.result_shape)


@PROPERTY
@given(data=st.data(), name=st.sampled_from(["add", "sub", "mul", "truediv", "maximum"]),
       dtype=dtype_names, shape=shapes,
       scalar=st.one_of(st.booleans(), st.integers(-5, 5), st.floats(-5, 5, width=32)),
       scalar_first=st.booleans())
def test_binary_ops_with_python_numbers(data, name, dtype, shape, scalar, scalar_first):
    x = data.draw(arrays(dtype, shape, negative_zero=name != "maximum"))
    op = ALL_BINARY[name]
    if name == "maximum":  # (torch.maximum wants two tensors: the number becomes 0-d)
        scalar = scalar + 0 if isinstance(scalar, float) else scalar  # no -0.0 ties (above)
        run_both(lambda m, x: op(m, x, m.tensor(scalar)), x, check_layout=0 not in shape)
    elif scalar_first:
        run_both(lambda m, x: op(m, scalar, x), x, check_layout=0 not in shape)
    else:
        run_both(lambda m, x: op(m, x, scalar), x, check_layout=0 not in shape)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # torch converts silently: so must we
@PROPERTY
@given(data=st.data(), source=dtype_names, target=dtype_names, shape=shapes)
def test_dtype_conversions(data, source, target, shape):
    # float -> int of nan, inf or out-of-range values is undefined in C++: not drawn
    moderate = np.dtype(source).kind == "f" and np.dtype(target).kind in "iu"
    x = data.draw(arrays(source, shape, moderate))
    nonempty = 0 not in shape
    run_both(lambda m, x, d: x.to(d), x, getattr(engine, target), check_sharing=nonempty)
    run_both(lambda m, x, d: x.to(d, copy=True), x, getattr(engine, target),
             check_sharing=nonempty)


@PROPERTY
@given(data=st.data(), dtype=dtype_names, shape=shapes)
def test_from_numpy_keeps_numpys_strides_and_memory(data, dtype, shape):
    array = data.draw(hnp.arrays(np.dtype(dtype), shape, elements=_elements(dtype)))
    view = array[data.draw(hnp.basic_indices(shape, min_dims=0, allow_newaxis=True))]
    results = []
    for m in (engine, torch):
        try:
            x = m.from_numpy(view)
        except (TypeError, ValueError) as error:  # numpy scalars, negative strides
            results.append((type(error), str(error)))
            continue
        shared = x.numel() == 0 or np.shares_memory(x.numpy(), view)
        # (of an empty array torch keeps numpy's strides of 0: a known difference)
        stride = x.stride() if x.numel() else None
        results.append((tuple(x.shape), stride, x.storage_offset(), x.is_contiguous(),
                        shared, str(x.dtype), x.numpy().tobytes()))
    assert results[0] == results[1]


# ====================================================================== reductions
@PROPERTY
@given(data=st.data(), name=st.sampled_from(sorted(REDUCTIONS)), dtype=dtype_names,
       shape=shapes)
def test_reductions(data, name, dtype, shape):
    moderate = name not in ("amax", "amin", "argmax", "argmin", "max", "min", "all", "any",
                            "count_nonzero")
    x = data.draw(arrays(dtype, shape, moderate))
    kwargs = data.draw(st.sampled_from(_reduction_kwargs(name, len(shape))))
    run_both(lambda m, x, k: REDUCTIONS[name](m, x, **k), x, kwargs, exact=False)


# ====================================================================== views
def _view_step(shape):
    """A strategy for one view operation that is valid for ``shape``: (name, args)."""
    ndim = len(shape)
    steps = [st.just(("unsqueeze", (0,))), st.just(("flatten", ())), st.just(("t", ()))
             if ndim <= 2 else st.just(("mT", None)), st.just(("contiguous", ())),
             st.just(("clone", ())), st.just(("detach", ())), st.just(("reshape", (-1,)))]
    if ndim:
        dim = st.integers(-ndim, ndim - 1)
        steps += [
            st.tuples(st.just("transpose"), st.tuples(dim, dim)),
            st.tuples(st.just("squeeze"), st.tuples(dim)),
            st.tuples(st.just("unsqueeze"), st.tuples(st.integers(-ndim - 1, ndim))),
            st.just(("permute", tuple(reversed(range(ndim))))),
            st.just(("T", None)),
            st.tuples(st.just("select"), st.tuples(dim, st.integers(-1, 0)))
            .filter(lambda s: shape[s[1][0]] > 0),
            st.tuples(st.just("narrow"), dim.flatmap(
                lambda d: st.tuples(st.just(d), st.integers(0, shape[d]))
                .flatmap(lambda ds: st.tuples(st.just(ds[0]), st.just(ds[1]),
                                              st.integers(0, shape[ds[0]] - ds[1]))))),
            st.tuples(st.just("expand"), st.just((2, *[-1] * ndim))),
            st.tuples(st.just("view"), st.just((-1,))),  # may fail: then it must fail alike
            st.tuples(st.just("slice"), st.tuples(dim, st.integers(1, 3))),
        ]
    return st.one_of(steps)


def _apply(m, x, steps):
    for name, args in steps:
        if args is None:
            x = getattr(x, name)  # a property: .T, .mT
        elif name == "slice":
            dim, step = args
            x = x[(slice(None),) * (dim % x.dim()) + (slice(None, None, step),)]
        else:
            x = getattr(x, name)(*args)
    return x


@st.composite
def view_sequences(draw):
    """(start shape, steps): up to 4 view steps, each valid for the shape it gets."""
    start = shape = draw(shapes)
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        step = draw(_view_step(shape))
        steps.append(step)
        try:  # the oracle says what the step does to the shape (or that it fails)
            shape = tuple(_apply(torch, torch.empty(shape), [step]).shape)
        except (RuntimeError, IndexError, ValueError):
            break  # a failing step ends the sequence: the engine must fail alike
    return start, steps


@PROPERTY
@given(data=st.data(), dtype=dtype_names, sequence=view_sequences())
def test_view_sequences_share_memory_like_torch(data, dtype, sequence):
    """Strides, storage offsets and which results share memory with the input."""
    start, steps = sequence
    x = data.draw(arrays(dtype, start))
    run_both(lambda m, x: _apply(m, x, steps), x, check_sharing=0 not in start)
    # writing through the result shows in the input exactly when they share memory
    def write(m, x):
        y = _apply(m, x, steps)
        if y.numel() and y.stride() and min(y.stride()) == 0:
            return x  # (torch refuses to write into an expanded tensor)
        y.fill_(1) if y.dtype == m.bool else y.fill_(7)
        return x
    run_both(write, x)


# ====================================================================== indexing
@PROPERTY
@given(data=st.data(), dtype=dtype_names, shape=shapes)
def test_basic_indexing_gives_views_like_torch(data, dtype, shape):
    x = data.draw(arrays(dtype, shape))
    index = data.draw(hnp.basic_indices(shape, min_dims=0, allow_newaxis=True))
    nonempty = 0 not in shape
    run_both(lambda m, x: x[index], x, check_sharing=nonempty)

    def assign(m, x):  # (run_both's torch copy starts at version 1: count the increase)
        before = x._version
        x[index] = 1
        return x, x._version - before
    run_both(assign, x)


@PROPERTY
@given(data=st.data(), dtype=dtype_names, shape=hnp.array_shapes(min_dims=1, max_dims=3,
                                                                 min_side=1, max_side=4))
def test_advanced_indexing_copies_like_torch(data, dtype, shape):
    x = data.draw(arrays(dtype, shape))
    index = data.draw(hnp.integer_array_indices(shape, result_shape=hnp.array_shapes(
        min_dims=0, max_dims=2, max_side=3)))
    index = tuple(engine.tensor(i.tolist(), dtype=engine.int64) for i in index)
    run_both(lambda m, x, i: x[i], x, index, check_sharing=True)
    mask = data.draw(hnp.arrays(np.bool_, shape[:data.draw(st.integers(1, len(shape)))]))
    mask = _tensor(mask)
    run_both(lambda m, x, k: x[k], x, mask, check_sharing=True)

    def assign(m, x, k):
        before = x._version
        x[k] = 0
        return x, x._version - before
    run_both(assign, x, mask)


# ====================================================================== autograd
# Differentiable steps: ``cur`` is the running result, ``b`` the second leaf. Ties are
# drawn on purpose (0 for relu and abs, the clamp bounds, equal values for maximum):
# they test torch's choice of subgradient.
GRAD_STEPS = {
    "neg": lambda m, cur, b: -cur,
    "tanh": lambda m, cur, b: cur.tanh(),
    "sigmoid": lambda m, cur, b: m.sigmoid(cur),
    "sin": lambda m, cur, b: cur.sin(),
    "relu": lambda m, cur, b: cur.relu(),
    "abs": lambda m, cur, b: cur.abs(),
    "square": lambda m, cur, b: cur ** 2,
    "clamp": lambda m, cur, b: cur.clamp(-1, 1),
    "scale": lambda m, cur, b: cur * 2.5,
    "divide by a number": lambda m, cur, b: cur / 3,
    "sum keepdim": lambda m, cur, b: cur.sum(-1, keepdim=True),
    "mean": lambda m, cur, b: cur.mean(),
    "amax": lambda m, cur, b: cur.amax(0),
    "transpose": lambda m, cur, b: cur.transpose(0, -1),
    "movedim": lambda m, cur, b: cur.movedim(0, -1),
    "unsqueeze": lambda m, cur, b: cur.unsqueeze(0),
    "select": lambda m, cur, b: cur[0],
    "slice": lambda m, cur, b: cur[..., ::2],
    "reshape": lambda m, cur, b: cur.reshape(-1),
    "expand": lambda m, cur, b: cur.expand(2, *cur.shape),
    "add": lambda m, cur, b: cur + b,
    "sub from": lambda m, cur, b: b - cur,
    "mul": lambda m, cur, b: cur * b,
    "div": lambda m, cur, b: cur / (b.abs() + 1),
    "maximum": lambda m, cur, b: m.maximum(cur, b),
    "where": lambda m, cur, b: m.where(cur > 0, cur, b),
}
# A reduction over a dimension of a non-contiguous tensor keeps numpy's layout in the
# engine, where torch's result is row-major (a known difference: notebooks/DIFFERENCES.md).
REDUCING = {"sum keepdim", "amax"}
_TOLERANCE = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12)}
_grad_values = st.one_of(st.sampled_from([0.0, 1.0, -1.0, 0.5]), st.floats(-3, 3, width=32))


def _assert_same_strides_where_they_matter(e, t):
    """Strides of dimensions longer than 1: after a transpose, elementwise results differ
    on the others (a known difference: notebooks/DIFFERENCES.md)."""
    if t.numel():
        assert [s for s, n in zip(e.stride(), e.shape) if n > 1] == \
            [s for s, n in zip(t.stride(), t.shape) if n > 1], (e.stride(), t.stride())


def _run_steps(m, a, b, steps):
    cur = a
    for name in steps:
        cur = GRAD_STEPS[name](m, cur, b)
    return cur


@st.composite
def grad_programs(draw):
    """(leaf dtypes, leaf shapes, steps): up to 5 steps, each valid where it is applied."""
    dtypes = draw(st.tuples(float_dtype_names.filter(lambda d: d != "float16"),
                            float_dtype_names.filter(lambda d: d != "float16")))
    shapes_ = draw(broadcast_pairs).input_shapes
    a = torch.zeros(shapes_[0], requires_grad=True)
    b = torch.zeros(shapes_[1], requires_grad=True)
    steps = []
    for _ in range(draw(st.integers(1, 5))):
        name = draw(st.sampled_from(sorted(GRAD_STEPS)))
        try:  # the oracle decides whether the step applies to the shapes reached
            _run_steps(torch, a, b, [*steps, name])
        except (RuntimeError, IndexError, ValueError):
            continue
        steps.append(name)
    return dtypes, shapes_, steps


@PROPERTY
@given(data=st.data(), program=grad_programs())
def test_op_sequences_record_and_differentiate_like_torch(data, program):
    from ops.test_autograd_parity import _graph

    dtypes, shapes_, steps = program
    values = [data.draw(hnp.arrays(np.dtype(d), s, elements=_grad_values))
              for d, s in zip(dtypes, shapes_)]
    ea, eb = (_tensor(v).requires_grad_() for v in values)
    ta, tb = (to_torch(e.detach()).requires_grad_() for e in (ea, eb))
    eout, tout = _run_steps(engine, ea, eb, steps), _run_steps(torch, ta, tb, steps)
    # results are only as precise as the coarsest dtype they went through (a float32
    # sigmoid added to a float64 number is a float64 with float32's error)
    tolerance = _TOLERANCE["float32" if "float32" in dtypes else "float64"]
    assert_same(eout, tout, exact=False, check_layout=False, **tolerance)
    if not REDUCING & set(steps):
        _assert_same_strides_where_they_matter(eout, tout)
    assert _graph(eout) == _graph(tout)
    upstream = data.draw(hnp.arrays(np.float64, tuple(tout.shape), elements=_grad_values))
    upstream = _tensor(upstream).to(eout.dtype)
    eout.backward(upstream)
    tout.backward(to_torch(upstream))
    for e, t in ((ea, ta), (eb, tb)):
        assert (e.grad is None) == (t.grad is None)
        if t.grad is not None:
            assert_same(e.grad, t.grad, exact=False, check_layout=False, **tolerance)
            if not REDUCING & set(steps):
                _assert_same_strides_where_they_matter(e.grad, t.grad)


# ====================================================================== what these tests found
@pytest.mark.parametrize("make", [
    lambda: np.zeros((3, 4))[:1, :1], lambda: np.zeros((4, 3), np.int16)[1:2],
    lambda: np.zeros((3, 1), bool), lambda: np.zeros((4, 6))[::2, 1::3],
    lambda: np.zeros((2, 5))[:, 1:2], lambda: np.zeros((2, 1, 3))[:, :, :1],
], ids=["1x1 slice", "1x3 slice", "column", "strided", "column slice", "size-1 dims"])
def test_from_numpy_and_tensor_keep_numpys_strides(make):
    for convert in ("from_numpy", "as_tensor", "tensor", "asarray"):
        array = make()
        e, t = getattr(engine, convert)(array), getattr(torch, convert)(array)
        assert (e.stride(), e.is_contiguous()) == (t.stride(), t.is_contiguous()), convert


@pytest.mark.parametrize("code", [
    "x.transpose(0, -1)", "x.swapaxes(0, 0)", "x.movedim(0, 0)", "x.moveaxis(-1, 0)",
    "x.as_strided((), ())", "x.as_strided((2,), (0,))",
])
def test_views_of_a_0d_tensor_are_recorded_like_torch(code):
    results = []
    for m in (engine, torch):
        x = m.tensor(2.0, requires_grad=True)
        y = eval(code, {"x": x})  # noqa: S307 - the code is the test's own
        y.sum().backward()
        results.append((y.grad_fn.name(), y.requires_grad, tuple(y.shape), y.stride(),
                        x.grad.item()))
    assert results[0] == results[1]


@pytest.mark.parametrize("geometry", [((3, 2), (1, 1), 1), ((2, 2), (0, 1), 0),
                                      ((2, 3), (3, 1), 0), ((4,), (1,), 2), ((2, 2), (2, 2), 1)])
@pytest.mark.parametrize("base", ["leaf", "computed", "offset view", "transposed"])
def test_as_strided_gradients_add_up_where_the_view_overlaps(geometry, base):
    results = []
    for m in (engine, torch):
        x = m.arange(8.0, dtype=m.float64, requires_grad=True)
        source = {"leaf": x, "computed": x * 1, "offset view": (x * 1)[1:],
                  "transposed": x.reshape(2, 4).t()}[base]
        size, stride, offset = geometry
        y = source.as_strided(size, stride, offset + source.storage_offset())
        upstream = m.arange(1.0, 1.0 + y.numel(), dtype=m.float64).reshape(y.shape)
        (y * upstream).sum().backward()
        results.append((y.tolist(), y.grad_fn.name(), x.grad.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("code", [
    "x0.expand(2).reshape(-1)", "x1.expand(2, 3).reshape(2, 3)", "x2.t().reshape(3, 2)",
    "x2[:, :1].reshape(-1)",                                  # views: ReshapeAliasBackward0
    "x2.reshape(6)", "x2[:1].reshape(-1)", "x1.expand(1, 3).reshape(3)",  # ViewBackward0
    "x2.t().reshape(6)", "x1.expand(2, 3).reshape(-1)",       # copies: UnsafeViewBackward0
])
def test_reshape_names_its_node_as_torch_does(code):
    results = []
    for m in (engine, torch):
        x0 = m.tensor(1.0, requires_grad=True)
        x1 = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x2 = m.arange(6.0).reshape(2, 3).requires_grad_()
        y = eval(code, {"x0": x0, "x1": x1, "x2": x2})  # noqa: S307 - the test's own code
        (y * m.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        results.append((y.grad_fn.name(), y.stride(), y.tolist(),
                        [x.grad.tolist() if x.grad is not None else None for x in (x0, x1, x2)]))
    assert results[0] == results[1]


@pytest.mark.parametrize("name", sorted(_ROUNDING_DIVISION))
@pytest.mark.parametrize("shapes", [((0,), ()), ((2, 0), (2, 1)), ((3,), (0, 1)), ((3,), ())])
def test_integer_division_by_zero_raises_only_with_something_to_divide(name, shapes):
    a = engine.ones(shapes[0], dtype=engine.int64)
    b = engine.zeros(shapes[1], dtype=engine.int64)
    run_both(ALL_BINARY[name], a, b)


@pytest.mark.parametrize("n", [1, 3, 32])  # torch's scalar loop, and its vectorised one
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("code", ["x.relu()", "x.relu_()", "x.clamp(min=0.0)", "x.clamp(0, 1)",
                                  "(-x).clamp(max=-0.0)", "x.clip(-0.0, 0.0)",
                                  "m.nn.functional.relu(x)"])
def test_relu_and_clamp_keep_the_input_where_it_ties_with_a_number(code, dtype, n):
    x = engine.tensor([-0.0, 0.0, -1.0, 2.0, float("nan")] * n, dtype=getattr(engine, dtype))
    run_both(lambda m, x: eval(code, {"m": m, "x": x}), x)  # noqa: S307 - the test's own code
