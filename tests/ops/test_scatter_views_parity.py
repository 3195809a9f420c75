"""narrow_copy, select_scatter, slice_scatter, diagonal_scatter, as_strided_scatter
(engine/ops/structure.py) and combinations (engine/ops/rearrange.py) against torch 2.15.

Every dtype; shapes from 0-d to 3-d, empty dims too; negative dims, indices and starts;
inputs laid out otherwise (transposed, strided, expanded, starting inside their storage):
the values, dtypes, strides and storage offset (a ``*_scatter`` result keeps its input's
layout: torch's clone_preserve_strides copies the input's whole storage), reprs, grad_fn
names and edges, gradients (first, and second for floats, by autograd.grad with
create_graph=True), forward mode, out=, and torch's errors word for word.
"""
import itertools

import numpy as np
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

NEW = ["narrow_copy", "select_scatter", "slice_scatter", "diagonal_scatter",
       "as_strided_scatter", "combinations"]


def _outcome_same(code, **arrays):
    """``code`` (leaving ``r``) run with each library, the same: values and layout compared
    by parity.assert_same, an error by its type and whole message."""
    results = []
    for m in (torch, engine):
        names = {k: (torch.from_numpy(v.copy()) if m is torch else engine.from_numpy(v.copy()))
                 for k, v in arrays.items()}
        results.append(parity.outcome(m, code, names))
    expected, got = results
    if isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[0], str):
        assert got == expected, code
    else:
        parity.assert_same(got, expected)


ATTEMPT = """
def attempt(fn):
    try:
        return fn()
    except Exception as caught:
        return caught
"""


def _layouts(shape, dtype, seed=0):
    """Engine tensors of ``shape`` laid out in several ways: row-major, transposed (the last
    two dims), and strided (every other element of a longer last dim)."""
    found = {"contiguous": parity.make_tensor(shape, dtype, seed)}
    if 0 in shape:  # (parity's copies of an empty tensor are row-major)
        return found
    if len(shape) >= 2:
        found["transposed"] = parity.make_tensor(
            shape[:-2] + shape[-2:][::-1], dtype, seed).transpose(-1, -2)
    if len(shape) >= 1 and shape[-1]:
        found["strided"] = parity.make_tensor(shape[:-1] + (2 * shape[-1],), dtype,
                                              seed)[..., ::2]
    return found


# ====================================================================== what exists
@pytest.mark.parametrize("name", NEW)
def test_functions_and_methods_exist_as_in_torch(name):
    assert hasattr(engine, name)
    assert hasattr(engine.Tensor, name) == hasattr(torch.Tensor, name)
    assert hasattr(engine.Tensor, name + "_") == hasattr(torch.Tensor, name + "_")
    assert hasattr(engine, name + "_") == hasattr(torch, name + "_")


# ====================================================================== narrow_copy
NARROW_ARGS = [(0, 0, 1), (0, -1, 1), (-1, 1, 2), (1, 0, 0), (-1, -3, 2), (0, 2, 0),
               (-2, -2, 2), (2, 1, 1), (-3, 0, 2)]
SHAPES = [(3,), (2, 3), (3, 4), (2, 3, 4), (0, 3), (3, 0)]


@pytest.mark.parametrize("args", NARROW_ARGS, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_narrow_copy_values_layout_and_errors(dtype, shape, args):
    for x in _layouts(shape, dtype).values():
        parity.run_both(lambda m, x: m.narrow_copy(x, *args), x)
        parity.run_both(lambda m, x: x.narrow_copy(*args), x)


@pytest.mark.parametrize("args", [(0, 0, 1), (-1, 0, 1), (5, 0, 1), (0, 0, 0)], ids=str)
def test_narrow_copy_of_a_0d_tensor_is_refused(args):
    for dtype in ("bool", "int64", "float32"):
        parity.run_both(lambda m, x: m.narrow_copy(x, *args), parity.make_tensor((), dtype))


def test_narrow_copy_reads_a_view_starting_inside_its_storage():
    x = parity.make_tensor((4, 5), "float32")
    parity.run_both(lambda m, x: m.narrow_copy(x[1:, 2:], 1, 1, 2), x)
    parity.run_both(lambda m, x: m.narrow_copy(x[1:].t(), 0, -2, 2), x)
    parity.run_both(lambda m, x: m.narrow_copy(x[:1].expand(3, 5), 0, 1, 2), x)
    parity.run_both(lambda m, x: m.narrow_copy(x.contiguous(memory_format=m.channels_last),
                                               1, 0, 2), parity.make_tensor((2, 3, 4, 5),
                                                                            "float32"))


@pytest.mark.parametrize("start", [0, 1, -1, -2, -3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_narrow_copy_gradients_first_and_second_order(dtype, start):
    def fn(m, x, g):
        x, g = x.requires_grad_(), g.requires_grad_()
        y = m.narrow_copy(x.mT, -1, start, 1 if start == -1 else 2)
        (gx,) = m.autograd.grad(y, x, g[..., :y.shape[-1]], create_graph=True)
        second = m.autograd.grad((gx * gx).sum(), (x, g), allow_unused=True)
        return y, gx, second, y.grad_fn.name(), gx.grad_fn.name()

    rng = np.random.default_rng(3)
    parity.run_both(fn, rng.standard_normal((3, 2)).astype(dtype),
                    rng.standard_normal((2, 2)).astype(dtype))


@pytest.mark.parametrize("dim, start, length", [(0, -2, 2), (1, -3, 3), (1, -1, 1),
                                                (-1, -2, 2), (0, -2, 1)])
def test_narrow_copy_backward_of_a_start_counted_from_the_end(dim, start, length):
    """torch's formula slices [start, start + length) of the start as given: a negative
    start whose slice ends at 0 is empty there, so copy_ refuses the gradient (or, for one
    element, broadcasts it away)."""
    def fn(m, x):
        x = x.requires_grad_()
        y = m.narrow_copy(x, dim, start, length)
        return y, m.autograd.grad(y, x, m.ones_like(y))

    parity.run_both(fn, np.arange(12.0).reshape(3, 4))


def test_narrow_copy_node_and_graph():
    def fn(m, x):
        y = x.requires_grad_().t().narrow_copy(0, 1, 2)
        return (y, y.grad_fn.name(), [n.name() for n, _ in y.grad_fn.next_functions],
                y.grad_fn._saved_length, y.grad_fn._saved_self_sym_sizes,
                y.grad_fn._saved_start, y.grad_fn._saved_dim,
                sorted(a for a in dir(y.grad_fn) if a.startswith("_saved")))

    parity.run_both(fn, np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("out", [
    "b = m.empty(0); o = b", "b = m.zeros(2, 3); o = b", "b = m.zeros(5); o = b",
    "b = m.zeros(2, 3, dtype=m.float64); o = b", "b = m.zeros(3, 2); o = b.t()",
    "b = m.zeros(2, 6); o = b[:, ::2]", "b = m.zeros(12); o = b[1:7].view(2, 3)",
    "b = m.zeros(2, 3, requires_grad=True); o = b", "b = None; o = 3"])
def test_narrow_copy_out_is_written_as_torchs_kernel_writes_it(out):
    """torch's CPU kernel resizes out= as resize_ does (no warning) and copies row after
    row into out's memory from its first element on, whatever out's strides."""
    parity.assert_same_snippet(
        ATTEMPT + f"x = m.arange(12.).view(4, 3)\n{out}\n"
        "y = attempt(lambda: m.narrow_copy(x, 0, 1, 2, out=o))\n"
        "r = [y, y is o, b, o.stride(), o.storage_offset()] if isinstance(o, m.Tensor) "
        "else [y]", warnings_too=True)


def test_narrow_copy_out_errors_in_torchs_order():
    for code in ("m.narrow_copy(m.tensor(5.), 0, 0, 1, out=m.zeros(1, dtype=m.int32))",
                 "m.narrow_copy(m.ones(5, 3), 0, 10, 1, out=m.zeros(1, dtype=m.int32))",
                 "m.narrow_copy(m.ones(5, 3), 7, 0, 1, out=m.zeros(1))",
                 "m.narrow_copy(m.ones(5, requires_grad=True), 5, 0, 1, out=m.zeros(1))",
                 "m.narrow_copy(m.ones(5, requires_grad=True), 0, 0, 1.5, out=m.zeros(1))",
                 "m.ones(5).narrow_copy(0, 0, 1, out=m.zeros(1))"):
        _outcome_same("r = " + code)
    with torch.no_grad(), engine.no_grad():
        _outcome_same("r = m.narrow_copy(m.ones(5, requires_grad=True), 0, 1, 2, "
                      "out=m.zeros(2))")


def test_narrow_copy_forward_mode():
    def fn(m, x, t):
        return m.func.jvp(lambda x: m.narrow_copy(x, 1, 1, 2), (x.t(),), (t.t(),))

    parity.run_both(fn, np.arange(12.0).reshape(4, 3), np.ones((4, 3)))


# ====================================================================== select_scatter
# (input shape, src shape, dim, index)
SELECT_CASES = [((2, 3), (3,), 0, 1), ((2, 3), (2,), 1, -1), ((2, 3), (2,), -1, 0),
                ((2, 3, 4), (2, 4), 1, -3), ((2, 3, 4), (3, 4), -3, 1), ((3,), (), 0, -1),
                ((3,), (), -1, 2), ((2, 0), (0,), 0, 1), ((0, 3), (0,), 1, 2),
                ((2, 3), (3,), 0, 2), ((2, 3), (3,), 0, -3), ((2, 3), (2,), 0, 1),
                ((2, 3), (1, 3), 0, 1), ((2, 3), (), 0, 0), ((2, 3), (3,), 2, 0),
                ((2, 3), (3,), -3, 0), ((0, 3), (3,), 0, 0), ((), (), 0, 0)]


@pytest.mark.parametrize("case", SELECT_CASES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_select_scatter_values_layout_and_errors(dtype, case):
    shape, src_shape, dim, index = case
    src = parity.make_tensor(src_shape, dtype, 5)
    for x in _layouts(shape, dtype).values():
        parity.run_both(lambda m, x, s: m.select_scatter(x, s, dim, index), x, src)
        parity.run_both(lambda m, x, s: x.select_scatter(s, dim=dim, index=index), x, src)


@pytest.mark.parametrize("src_dtype", parity.DTYPES)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_scatter_src_is_converted_as_copy_converts(dtype, src_dtype):
    x, s = parity.make_tensor((3, 4), dtype, 1), parity.make_tensor((4,), src_dtype, 2)
    parity.run_both(lambda m, x, s: m.select_scatter(x, s, 0, 1), x, s)
    parity.run_both(lambda m, x, s: m.slice_scatter(x, s.view(1, 4), 0, 2), x, s)
    parity.run_both(lambda m, x, s: m.diagonal_scatter(x, s[:3]), x, s)
    parity.run_both(lambda m, x, s: m.as_strided_scatter(x, s, (4,), (3,), 0), x, s)


# what torch keeps of the input's layout: its strides and storage offset, and the size of
# its whole storage (each op's own view of the copy, then)
LAYOUT_CALLS = {
    "select": lambda m, x: m.select_scatter(x, m.zeros(x.shape[1:], dtype=x.dtype), 0, -1),
    "slice": lambda m, x: m.slice_scatter(x, m.zeros((1,) + x.shape[1:], dtype=x.dtype), 0, 1,
                                          2),
    "diagonal": lambda m, x: m.diagonal_scatter(x, m.zeros(x.diagonal().shape, dtype=x.dtype)),
    "as_strided": lambda m, x: m.as_strided_scatter(x, m.zeros(2, dtype=x.dtype), (2,), (1,)),
}
LAYOUT_INPUTS = {
    "transposed": lambda x: x.t(),
    "strided": lambda x: x[:, ::2],
    "offset": lambda x: x[1:],
    "offset strided": lambda x: x[1:, 1::2],
    "expanded": lambda x: x[:1].expand(3, 4),
    "expanded column": lambda x: x[:, :1].expand(4, 3),
    "flipped dims": lambda x: x.view(2, 2, 4).permute(2, 0, 1)[0],
    "overlapping": lambda x: x.view(-1).as_strided((3, 3), (1, 1)),
    "channels_last slice": lambda x: x.view(1, 2, 2, 4).contiguous(
        memory_format=engine.channels_last if isinstance(x, engine.Tensor) else
        torch.channels_last)[0, 0],
}


@pytest.mark.parametrize("layout", list(LAYOUT_INPUTS))
@pytest.mark.parametrize("call", list(LAYOUT_CALLS))
def test_scatter_results_keep_the_inputs_layout(call, layout):
    def fn(m, x):
        y = LAYOUT_CALLS[call](m, LAYOUT_INPUTS[layout](x))
        return y, y.untyped_storage().nbytes(), y._base is None, y.is_contiguous()

    parity.run_both(fn, np.arange(16.0, dtype=np.float32).reshape(4, 4))


@pytest.mark.parametrize("op", ["select", "slice", "diagonal", "as_strided"])
def test_scatter_results_are_new_memory(op):
    """Writing into the result leaves the input alone, and the other way round."""
    def fn(m, x):
        y = LAYOUT_CALLS[op](m, x[1:])
        y.add_(1)
        x.mul_(2)
        return x, y

    parity.run_both(fn, np.arange(16.0).reshape(4, 4))


SCATTERS = {  # (input shape, src shape, call): one of each, for gradients and graphs
    "select_scatter": ((3, 4), (4,), lambda m, x, s: m.select_scatter(x, s, 0, -2)),
    "select_scatter dim 1": ((3, 4), (3,), lambda m, x, s: x.select_scatter(s, 1, 2)),
    "slice_scatter": ((3, 4), (3, 2), lambda m, x, s: m.slice_scatter(x, s, 1, 1, None, 2)),
    "slice_scatter negative": ((3, 4), (2, 4), lambda m, x, s: x.slice_scatter(s, start=-2)),
    "slice_scatter empty": ((3, 4), (2, 4), lambda m, x, s: m.slice_scatter(x, s[:0], 0, 5)),
    "diagonal_scatter": ((3, 4), (3,), lambda m, x, s: m.diagonal_scatter(x, s, 1)),
    "diagonal_scatter dims": ((3, 4), (2,), lambda m, x, s: x.diagonal_scatter(s, -1, 1, 0)),
    "as_strided_scatter": ((3, 4), (2, 2), lambda m, x, s: m.as_strided_scatter(
        x, s, (2, 2), (4, 1), 1)),
    "as_strided_scatter overlapping": ((3, 4), (2, 2), lambda m, x, s: m.as_strided_scatter(
        x, s, (2, 2), (1, 1))),
    "as_strided_scatter offset": ((3, 4), (3,), lambda m, x, s: m.as_strided_scatter(
        x[1:], s, (3,), (4,))),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(SCATTERS))
def test_scatter_gradients_first_and_second_order(name, dtype):
    """x's gradient is grad with the written part zeroed (as_strided_scatter: torch's own
    formula), src's is grad's part; with create_graph each is a node of grad's."""
    shape, src_shape, call = SCATTERS[name]

    def fn(m, x, s, g):
        x, s, g = x.requires_grad_(), s.requires_grad_(), g.requires_grad_()
        y = call(m, x, s)
        gx, gs = m.autograd.grad(y, (x, s), g, create_graph=True)
        second = m.autograd.grad((gx * gx).sum() + (gs * gs * gs).sum(), (x, s, g),
                                 allow_unused=True)
        return y, gx, gs, second

    rng = np.random.default_rng(4)
    x, s = rng.standard_normal(shape).astype(dtype), rng.standard_normal(src_shape).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    g = g[1:] if "offset" in name else g
    parity.run_both(fn, x, s, g)
    # a gradient laid out otherwise (transposed): the results keep its layout
    parity.run_both(lambda m, x, s, g: fn(m, x, s, g.t().contiguous().t()), x, s, g)


@pytest.mark.parametrize("name", list(SCATTERS))
def test_scatter_nodes_and_edges(name):
    shape, src_shape, call = SCATTERS[name]

    def fn(m, x, s, which):
        x.requires_grad_(which != "src")
        s.requires_grad_(which != "input")
        y = call(m, x, s)
        node = y.grad_fn
        return (y, node.name(), [None if n is None else n.name() for n, _ in node.next_functions],
                sorted(a for a in dir(node) if a.startswith("_saved_")),
                # (the values too, but those torch may show as uint64: negative ints)
                [getattr(node, a) for a in sorted(dir(node)) if a.startswith("_saved_")
                 and a not in ("_saved_dim", "_saved_index", "_saved_start", "_saved_end",
                               "_saved_offset", "_saved_dim1", "_saved_dim2")])

    rng = np.random.default_rng(5)
    x, s = rng.standard_normal(shape), rng.standard_normal(src_shape)
    for which in ("input", "src", "both"):
        parity.run_both(fn, x, s, which)


@pytest.mark.parametrize("name", list(SCATTERS))
def test_scatter_backward_accumulates_gradients(name):
    shape, src_shape, call = SCATTERS[name]

    def fn(m, x, s):
        x, s = x.requires_grad_(), s.requires_grad_()
        (call(m, x, s) * m.arange(float(np.prod(shape))).view(shape)[-x.shape[0]:]).sum() \
            .backward()
        call(m, x, s).sum().backward()
        return x.grad, s.grad

    rng = np.random.default_rng(6)
    # (not the layout: the engine's .grad is always memory of its own, where torch's
    # AccumulateGrad may keep the incoming gradient itself, a view of grad)
    parity.run_both(fn, rng.standard_normal(shape), rng.standard_normal(src_shape),
                    check_layout=False)


@pytest.mark.parametrize("name", list(SCATTERS))
def test_scatter_forward_mode(name):
    shape, src_shape, call = SCATTERS[name]
    rng = np.random.default_rng(7)
    x, s = rng.standard_normal(shape), rng.standard_normal(src_shape)
    tx, ts = rng.standard_normal(shape), rng.standard_normal(src_shape)
    parity.run_both(lambda m, x, s, tx, ts: m.func.jvp(lambda a, b: call(m, a, b), (x, s),
                                                       (tx, ts)), x, s, tx, ts)
    parity.run_both(lambda m, x, s, tx: m.func.jvp(lambda a: call(m, a, s), (x,), (tx,)),
                    x, s, tx)
    parity.run_both(lambda m, x, s, ts: m.func.jvp(lambda b: call(m, x, b), (s,), (ts,)),
                    x, s, ts)


def test_scatter_gradient_dtype_of_a_src_of_another_dtype():
    def fn(m, x, s):
        x, s = x.requires_grad_(), s.requires_grad_()
        y = m.select_scatter(x, s, 1, 0)
        return y, m.autograd.grad(y, (x, s), m.ones_like(y) * 3)

    parity.run_both(fn, np.ones((2, 3), np.float32), np.arange(2.0))
    parity.run_both(fn, np.ones((2, 3), np.float64), np.arange(2.0, dtype=np.float16))


# ====================================================================== slice_scatter
# (input shape, src shape, dim, start, end, step)
SLICE_CASES = [((4, 3), (2, 3), 0, 2, None, 1), ((4, 3), (2, 3), 0, None, 2, 1),
               ((4, 3), (2, 3), 0, 0, None, 2), ((4, 3), (2, 3), 0, -2, None, 1),
               ((4, 3), (2, 3), 0, -10, 2, 1), ((4, 3), (2, 3), 0, 2, 100, 1),
               ((4, 3), (0, 3), 0, 3, 1, 1), ((4, 3), (0, 3), 0, 10, 20, 1),
               ((4, 3), (4, 1), -1, -1, None, 1), ((4, 3), (4, 2), 1, 0, None, 2),
               ((4, 3), (4, 1), 1, 1, None, 5), ((2, 3, 4), (2, 3, 2), -1, 1, -1, 1),
               ((2, 3, 4), (2, 1, 4), 1, -2, -1, 3), ((3,), (3,), 0, None, None, 1),
               ((0, 3), (0, 3), 0, None, None, 1), ((0, 3), (0, 1), 1, 2, None, 1),
               ((4, 3), (4, 3), 1, 0, None, 0), ((4, 3), (4, 3), 1, 0, None, -1),
               ((4, 3), (4, 3), 1, 1, None, 1), ((4, 3), (4, 3), 1, 5, 1, 1),
               ((4, 3), (4, 2), 2, None, None, 1), ((4, 3), (4, 2), -3, None, None, 1),
               ((2, 3), (2, 2), 1, -1, -3, 1), ((2, 3), (2, 0), 1, -1, -3, 1),
               ((4,), (), 0, 0, 1, 1), ((), (), 0, None, None, 1), ((), (), 1, 0, 1, 0)]


@pytest.mark.parametrize("case", SLICE_CASES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_slice_scatter_values_layout_and_errors(dtype, case):
    shape, src_shape, dim, start, end, step = case
    src = parity.make_tensor(src_shape, dtype, 5)
    for x in _layouts(shape, dtype).values():
        parity.run_both(lambda m, x, s: m.slice_scatter(x, s, dim, start, end, step), x, src)
        parity.run_both(lambda m, x, s: x.slice_scatter(s, dim=dim, start=start, end=end,
                                                        step=step), x, src)


def test_slice_scatter_defaults():
    x, s = parity.make_tensor((3, 2), "float32"), parity.make_tensor((3, 2), "float32", 1)
    parity.run_both(lambda m, x, s: m.slice_scatter(x, s), x, s)
    parity.run_both(lambda m, x, s: x.slice_scatter(s), x, s)
    parity.run_both(lambda m, x, s: m.slice_scatter(input=x, src=s), x, s)
    parity.run_both(lambda m, x, s: m.slice_scatter(x, s[1:], start=1), x, s)
    parity.run_both(lambda m, x, s: m.slice_scatter(x, s[:1], end=1), x, s)
    parity.run_both(lambda m, x, s: m.slice_scatter(x, s[::2], step=2), x, s)


@pytest.mark.parametrize("out", [
    "m.empty(0)", "m.zeros(3, 4)", "m.zeros(5)", "m.zeros(4, 3).t()", "m.zeros(3, 8)[:, ::2]",
    "m.zeros(3, 4, dtype=m.float64)", "m.zeros(0, dtype=m.int32)",
    "m.zeros(3, 4, requires_grad=True)", "3"])
@pytest.mark.parametrize("grad", [False, True])
def test_slice_scatter_out_is_torchs_composite_out(out, grad):
    """torch's out= of slice_scatter: the result, out resized (a warning when it had
    elements), out's dtype checked, the copy; an input that requires grad gives out a
    NotImplemented node (backward through it fails), an out that requires grad is refused."""
    parity.assert_same_snippet(
        ATTEMPT + f"x = m.arange(12.).view(3, 4).requires_grad_({grad})\no = {out}\n"
        "y = attempt(lambda: m.slice_scatter(x, m.ones(3, 2), 1, 1, None, 2, out=o))\n"
        "r = [y, y is o, o.stride(), y.grad_fn and [y.grad_fn.name(), len(\n"
        "     y.grad_fn.next_functions)], error(lambda: y.sum().backward())] \\\n"
        "    if isinstance(y, m.Tensor) else [y]", warnings_too=True)


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_slice_scatter_out_errors_in_torchs_order():
    for code in ("m.slice_scatter(m.zeros(3), m.ones(3), 5, out=m.empty(3, requires_grad=True))",
                 "m.slice_scatter(m.zeros(3), m.ones(3), 5, out=m.empty(3, dtype=m.int32))",
                 "m.slice_scatter(m.zeros(3, requires_grad=True), m.ones(3), 5, out=m.empty(3))",
                 "m.slice_scatter(m.zeros(3), m.ones(4), out=m.empty(0, dtype=m.int64))",
                 "m.slice_scatter(m.zeros(3), m.ones(3), out=m.empty(2, dtype=m.int64))",
                 "m.zeros(3).slice_scatter(m.ones(3), out=m.empty(3))"):
        _outcome_same("r = " + code)
    parity.assert_same_snippet("o = m.empty(5, dtype=m.int64)\n"
                               "r = [error(lambda: m.slice_scatter(m.zeros(3), m.ones(3), "
                               "out=o)), o.shape]", warnings_too=True)


def test_slice_scatter_source_of_the_gradients_slice():
    """src's gradient is a view of grad (torch's grad.slice): its strides and offset."""
    def fn(m, x, s, g):
        x, s = x.requires_grad_(), s.requires_grad_()
        return m.autograd.grad(m.slice_scatter(x, s, 1, 1, None, 2), (x, s), g[1:].t())

    parity.run_both(fn, np.zeros((3, 4)), np.ones((3, 2)), np.arange(20.0).reshape(5, 4))


# ====================================================================== diagonal_scatter
# (input shape, src shape, offset, dim1, dim2)
DIAGONAL_CASES = [((3, 3), (3,), 0, 0, 1), ((3, 3), (2,), 1, 0, 1), ((3, 3), (2,), -1, 0, 1),
                  ((3, 3), (0,), 3, 0, 1), ((3, 3), (0,), -5, 0, 1), ((2, 4), (2,), 0, 1, 0),
                  ((2, 3, 4), (3, 2), 0, 0, 2), ((2, 3, 4), (3, 2), 0, 2, 0),
                  ((2, 3, 4), (3, 2), 0, -1, -3), ((2, 3, 4), (4, 1), 1, -2, 0),
                  ((0, 3), (0,), 0, 0, 1), ((3, 0), (0,), -1, 0, 1),
                  ((3, 3), (3,), 1, 0, 1), ((2, 3, 4), (3, 2), 0, 1, 1),
                  ((2, 3, 4), (3, 2), 0, 1, -2), ((2, 3, 4), (3, 2), 0, 1, 3),
                  ((3,), (3,), 0, 0, 1), ((), (3,), 0, 0, 1), ((3, 3), (3, 1), 0, 0, 1),
                  ((3, 3), (), 0, 0, 1)]


@pytest.mark.parametrize("case", DIAGONAL_CASES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_diagonal_scatter_values_layout_and_errors(dtype, case):
    shape, src_shape, offset, dim1, dim2 = case
    src = parity.make_tensor(src_shape, dtype, 5)
    for x in _layouts(shape, dtype).values():
        parity.run_both(lambda m, x, s: m.diagonal_scatter(x, s, offset, dim1, dim2), x, src)
        parity.run_both(lambda m, x, s: x.diagonal_scatter(s, offset=offset, dim1=dim1,
                                                           dim2=dim2), x, src)


# ====================================================================== as_strided_scatter
# (input shape, src shape, size, stride, storage_offset)
AS_STRIDED_CASES = [((3, 3), (3,), (3,), (4,), None), ((3, 3), (2, 2), (2, 2), (3, 1), 1),
                    ((3, 3), (2, 2), [2, 2], [3, 1], 1), ((3, 3), (2, 2), (2, 2), (1, 1), 0),
                    ((3, 3), (4,), (4,), (1,), 5), ((3, 3), (0, 2), (0, 2), (5, 1), 100),
                    ((), (), (), (), None), ((2, 0), (0,), (0,), (1,), 0),
                    ((3, 3), (2, 2), (2, 2), (0, 1), None), ((3, 3), (2, 2), (2, 2), (3, 1), 6),
                    ((3, 3), (2, 2), (2, 2), (3, 1), -1), ((3, 3), (2, 2), (2, 2), (3, -1), 1),
                    ((3, 3), (2, 2), (2, -2), (3, 1), 1), ((3, 3), (2, 2), (2, 2), (3,), 1),
                    ((3, 3), (2, 2), (2, 2, 1), (3, 1, 1), 1), ((3, 3), (4,), (2, 2), (3, 1), 1),
                    ((), (), (), (), 1), ((3, 3), (3,), (3,), (5,), 0)]


@pytest.mark.parametrize("case", AS_STRIDED_CASES, ids=str)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_as_strided_scatter_values_layout_and_errors(dtype, case):
    shape, src_shape, size, stride, offset = case
    src = parity.make_tensor(src_shape, dtype, 5)
    for x in _layouts(shape, dtype).values():
        parity.run_both(lambda m, x, s: m.as_strided_scatter(x, s, size, stride, offset), x, src)
        parity.run_both(lambda m, x, s: x.as_strided_scatter(s, size, stride,
                                                             storage_offset=offset), x, src)


def test_as_strided_scatter_wants_a_contiguous_input_that_requires_grad():
    for code in ("x = m.zeros(3, 3, requires_grad=True).t()",
                 "x = m.zeros(3, 3, requires_grad=True)[:, ::2]",
                 "x = m.zeros(3, 3).t()", "x = (m.zeros(3, 3, requires_grad=True) * 1).t()",
                 "x = m.zeros(4, 3, requires_grad=True)[1:]"):
        _outcome_same(code + "\nr = m.as_strided_scatter(x, m.ones(2), (2,), (4,))")
        _outcome_same(code + "\nwith m.no_grad():\n    r = m.as_strided_scatter(x, m.ones(2), "
                             "(2,), (4,))")


# ====================================================================== arguments
BAD_CALLS = [
    # types, as torch's parser words them (by position and by keyword)
    "m.narrow_copy(x, 0, 1.5, 1)", "m.narrow_copy(x, 0, True, 1)", "m.narrow_copy(x, True, 0, 1)",
    "m.narrow_copy(x, 0, None, 1)", "m.narrow_copy(x, 0, 1)", "x.narrow_copy(0, 1)",
    "x.narrow_copy(0, 1, 2, 3)", "m.narrow_copy(x, dim=0, start=1, length=1.0)",
    "m.narrow_copy(x, 0, 0, 1, bogus=2)", "m.narrow_copy([1, 2], 0, 0, 1)",
    "m.narrow_copy(x, m.tensor([0]), 0, 1)", "m.narrow_copy(x, 0, m.tensor(1.), 1)",
    "m.narrow_copy(x, 0, m.tensor(True), 1)", "m.narrow_copy(x, 0, m.tensor([True]), 1)",
    "m.select_scatter(x, 1.0, 0, 0)", "m.select_scatter(x, s, 0, 1.0)",
    "m.select_scatter(x, s, None, 0)", "m.select_scatter(x, s, 0)", "x.select_scatter(s, 0)",
    "m.select_scatter(x, s, 0, 0, out=x)", "m.select_scatter(x, s, 0, m.tensor(True))",
    "m.select_scatter(None, s, 0, 0)", "m.select_scatter(x, s, 0, 0, 1)",
    "m.slice_scatter(x, s, 0, 1.0)", "m.slice_scatter(x, s, None, 1)",
    "m.slice_scatter(x, s, 0, 1, True)", "m.slice_scatter(x, s, 0, step=None)",
    "m.slice_scatter(x, s, 0, m.tensor(1.0))", "m.slice_scatter(x)", "x.slice_scatter()",
    "m.slice_scatter(x, s, 0, 0, 1, 1, 1)", "m.slice_scatter(x, 2)",
    "m.diagonal_scatter(x, 1)", "m.diagonal_scatter(x, s, m.tensor([0]))",
    "m.diagonal_scatter(x, s, 0.0)", "m.diagonal_scatter(x, s, dim1=None)",
    "m.diagonal_scatter(x, s, out=x)", "m.diagonal_scatter(x, s, 0, 0, 1, 2)",
    "m.as_strided_scatter(x, s, 4, (1,), 1)", "m.as_strided_scatter(x, s, (4,), 1, 1)",
    "m.as_strided_scatter(x, s, (4,), (1,), 1.0)", "m.as_strided_scatter(x, s, (4,), (1,), True)",
    "m.as_strided_scatter(x, s, m.tensor([4]), (1,), 1)",
    "m.as_strided_scatter(x, s, (4, 1.5), (1, 1))", "m.as_strided_scatter(x, s, (4,))",
    "m.as_strided_scatter(x, s, (4,), (1,), out=x)", "x.as_strided_scatter(s, (4,), [1.0])",
    "m.combinations(x, 2.0)", "m.combinations(x, True)", "m.combinations(x, 2, 1)",
    "m.combinations(x, m.tensor([2]))", "m.combinations(x, 2, with_replacement=None)",
    "m.combinations(x, r=None)", "m.combinations(x, 2, True, out=x)", "m.combinations(x, s=1)",
    "m.combinations([1, 2])", "m.combinations(None)", "m.combinations(x, 1, True, 1)",
]


@pytest.mark.parametrize("code", BAD_CALLS)
def test_argument_errors_word_for_word(code):
    _outcome_same("r = " + code, x=np.arange(4.0), s=np.ones(()))


# an int argument given as a numpy integer or a tensor (SymInt: any integer tensor of one
# element; int: a 0-d integer tensor; a bool tensor: torch's failed conversion)
INT_ARGUMENTS = {
    "numpy": "np.int64({n})", "0-d": "m.tensor({n})", "0-d int32": "m.tensor({n}, dtype=m.int32)",
    "(1,)": "m.tensor([{n}])", "(1, 1)": "m.tensor([[{n}]])", "0-d bool": "m.tensor(True)",
    "0-d float": "m.tensor(float({n}))", "(2,)": "m.tensor([{n}, {n}])",
}
INT_CALLS = [("m.narrow_copy(x, V, 1, 2)", 1), ("m.narrow_copy(x, 1, V, 2)", 1),
             ("x.narrow_copy(1, 0, V)", 1), ("m.select_scatter(x, x[0], V, 1)", 0),
             ("m.select_scatter(x, x[:, 0], 1, V)", 1), ("m.slice_scatter(x, x, V)", 1),
             ("m.slice_scatter(x, x[1:], 0, V)", 1), ("m.slice_scatter(x, x[:1], end=V)", 1),
             ("m.slice_scatter(x, x[::2], step=V)", 2),
             ("m.diagonal_scatter(x, x.diagonal(1), V)", 1),
             ("m.diagonal_scatter(x, x.diagonal(), 0, V, 0)", 1),
             ("m.as_strided_scatter(x, x[0], (3,), (1,), V)", 1),
             ("m.as_strided_scatter(x, x[0], (V,), (1,))", 3),
             ("m.as_strided_scatter(x, x[0], (3,), [V])", 1), ("m.combinations(x[0], V)", 2)]


@pytest.mark.parametrize("kind", list(INT_ARGUMENTS))
@pytest.mark.parametrize("call, n", INT_CALLS, ids=[c for c, _ in INT_CALLS])
def test_int_arguments_read_as_torchs_parser_reads_them(call, n, kind):
    code = "import numpy as np\nr = " + call.replace("V", INT_ARGUMENTS[kind].format(n=n))
    _outcome_same(code, x=np.arange(9.0).reshape(3, 3))


# ====================================================================== combinations
@pytest.mark.parametrize("with_replacement", [False, True])
@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("n", [0, 1, 3, 4])
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_combinations_values_and_dtypes(dtype, n, r, with_replacement):
    for x in _layouts((n,), dtype).values():
        parity.run_both(lambda m, x: m.combinations(x, r, with_replacement), x)
    if n == 3 and r == 2:
        x = parity.make_tensor((n,), dtype)
        parity.run_both(lambda m, x: m.combinations(x), x)
        parity.run_both(lambda m, x: m.combinations(input=x, with_replacement=with_replacement),
                        x)


@pytest.mark.parametrize("shape", [(), (2, 3), (0, 3), (1, 1)], ids=str)
@pytest.mark.parametrize("r", [2, 0, -1])
def test_combinations_errors(shape, r):
    x = parity.make_tensor(shape, "float32")
    parity.run_both(lambda m, x: m.combinations(x, r), x)
    _outcome_same(f"r = m.combinations(x, {r})", x=np.zeros(shape, np.float32))
    _outcome_same("r = m.combinations(x, -1)", x=np.zeros(3, np.float32))
    _outcome_same("r = x.combinations()", x=np.zeros(3, np.float32))  # (a function only)


@pytest.mark.parametrize("with_replacement", [False, True])
@pytest.mark.parametrize("r", [0, 1, 2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_combinations_gradients_first_and_second_order(dtype, r, with_replacement):
    def fn(m, x):
        x = x.requires_grad_()
        y = m.combinations(x[::2], r, with_replacement)
        if not y.requires_grad:  # (r = 0: torch's empty tensor, no node)
            return y
        (gx,) = m.autograd.grad((y * y * y).sum(), x, create_graph=True)
        (ggx,) = m.autograd.grad((gx * gx).sum(), x)
        return y, gx, ggx, y.grad_fn.name(), gx.grad_fn.name(), \
            [n.name() for n, _ in y.grad_fn.next_functions]

    parity.run_both(fn, np.random.default_rng(8).standard_normal(7).astype(dtype))


def test_combinations_forward_mode():
    parity.run_both(lambda m, x, t: m.func.jvp(lambda a: m.combinations(a, 2, True), (x,),
                                               (t,)), np.arange(3.0), np.ones(3))


# ====================================================================== the ops together
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_functionalised_writes_match_in_place_ones(dtype):
    """x[1] = s, x[:, ::2] = s, x.diagonal().copy_(s) written as torch's functional ops:
    the same values as the in-place writes, and both libraries' gradients."""
    def fn(m, x, s):
        x, s = x.requires_grad_(), s.requires_grad_()
        y = m.select_scatter(x, s[0], 0, 1)
        y = m.slice_scatter(y, s[:, :2] * 2, 1, 0, None, 2)
        y = m.diagonal_scatter(y, s.diagonal() + 1)
        y = m.narrow_copy(y, 0, 1, 2)
        z = x.detach().clone()
        z[1] = s[0].detach()
        z[:, ::2] = s[:, :2].detach() * 2
        z.diagonal().copy_(s.diagonal().detach() + 1)
        return y, z[1:3], m.autograd.grad((y ** 2).sum(), (x, s))

    rng = np.random.default_rng(9)
    parity.run_both(fn, rng.standard_normal((3, 3)).astype(dtype),
                    rng.standard_normal((3, 3)).astype(dtype))


def test_scatter_in_inference_and_no_grad_modes():
    for mode in ("no_grad", "inference_mode"):
        parity.assert_same_snippet(f"""
x = m.zeros(2, 3, requires_grad=True)
with m.{mode}():
    y = m.select_scatter(x, m.ones(3), 0, 1)
    z = m.narrow_copy(x, 1, 0, 2)
    w = m.combinations(x[0])
r = [facts(y), facts(z), facts(w), y.is_inference(), z.is_inference(), w.is_inference()]""")


def test_every_dtype_of_the_int_kinds_keeps_its_values():
    for dtype, op in itertools.product(parity.INT_DTYPES + ["bool"], range(3)):
        x = parity.make_tensor((4, 5), dtype, op)
        calls = [lambda m, x: m.narrow_copy(x, 1, 1, 3),
                 lambda m, x: m.slice_scatter(x, x[:, :2].flip(0), 1, 3),
                 lambda m, x: m.combinations(x[0], 3, True)]
        parity.run_both(calls[op], x)


VMAPPED = {
    "narrow_copy": ("x", lambda m, x, s: x.narrow_copy(1, 0, 1)),
    "narrow_copy error": ("x", lambda m, x, s: m.narrow_copy(x, -1, 0, 5)),
    "select_scatter": ("x", lambda m, x, s: x.select_scatter(s[:, 0], 1, 0)),
    "select_scatter both": ("xs", lambda m, x, s: m.select_scatter(x, s[:, 0], 1, 0)),
    "select_scatter src": ("s", lambda m, x, s: m.zeros(3, 2).select_scatter(s[:, 0], 1, 0)),
    "slice_scatter": ("xs", lambda m, x, s: m.slice_scatter(x, s[:, :1], 1, 1)),
    "diagonal_scatter": ("x", lambda m, x, s: x.diagonal_scatter(s[:2, 0], -1)),
    "combinations": ("x", lambda m, x, s: m.combinations(x[:, 0], 2, True)),
    "as_strided_scatter": ("x", lambda m, x, s: m.as_strided_scatter(x, s[0], (2,), (1,))),
    "as_strided_scatter src": ("s", lambda m, x, s: m.as_strided_scatter(
        m.zeros(3, 2), s[0], (2,), (1,))),
    "as_strided_scatter method": ("x", lambda m, x, s: x.as_strided_scatter(s[0], (2,), (1,))),
    # torch batches select_scatter and slice_scatter as a scatter: src of input's dtype only
    "select_scatter src dtype": ("x", lambda m, x, s: x.select_scatter(s[:, 0].float(), 1, 0)),
    "select_scatter src dtype, src": ("s", lambda m, x, s: m.select_scatter(
        x, s[:, 0].float(), 1, 0)),
    "slice_scatter src dtype": ("xs", lambda m, x, s: m.slice_scatter(x, s[:, :1].int(), 1, 1)),
    "diagonal_scatter src dtype": ("xs", lambda m, x, s: x.diagonal_scatter(s[:2, 0].float(),
                                                                            -1)),
}


@pytest.mark.parametrize("name", list(VMAPPED))
def test_under_vmap(name):
    """vmap runs them sample by sample (the engine's loop, torch's rules: the same values);
    torch has no rule for as_strided_scatter and refuses it, and batches select_scatter and
    slice_scatter as scatters, which refuse a src of another dtype."""
    batched, call = VMAPPED[name]

    def fn(m, x, s):
        dims = (0 if "x" in batched else None, 0 if "s" in batched else None)
        return m.func.vmap(lambda a, b: call(m, a, b), in_dims=dims)(
            x if "x" in batched else x[0], s if "s" in batched else s[0])

    rng = np.random.default_rng(10)
    parity.run_both(fn, rng.standard_normal((4, 3, 2)), rng.standard_normal((4, 3, 2)))
