"""Indexing along one dimension against torch 2.15: gather, scatter, scatter_add, index_select,
masked_fill (and their in-place forms), repeat, repeat_interleave, take_along_dim.

Values, dtypes, shapes, strides, repr and torch's errors go through ``parity.run_both`` over
dtypes and shapes (0-d, empty, broadcast); gradients are compared with torch's (node names,
the graph, ``.grad``) and checked against finite differences in float64 (gradcheck).
"""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402
from engine.autograd import gradcheck, gradgradcheck  # noqa: E402

pytestmark = pytest.mark.torch


def _index(values, dtype="int64"):
    return engine.from_numpy(np.array(values, dtype=dtype))


def _f64(shape, seed=0):
    """float64 values of ordinary size: finite differences lose huge ones."""
    return parity.make_tensor(shape, "float64", seed, low=-2, high=2)


def _graph(result):
    names, stack = [], [result.grad_fn]
    while stack:
        node = stack.pop()
        names.append(None if node is None else node.name())
        if node is not None:
            stack.extend(n for n, _ in reversed(node.next_functions))
    return names


def check_gradients(fn, *args, second_order=True, rtol=1e-10):
    """fn(m, *args) with the float64 engine tensors in args requiring grad, in both libraries:
    the same result, graph (node names) and .grad for a seeded upstream gradient; then the
    engine's gradients against finite differences (and second derivatives)."""
    def prepare(arg, make):
        if isinstance(arg, engine.Tensor):
            copy = make(parity.to_torch(arg.detach()))
            return copy.requires_grad_() if arg.dtype == engine.float64 else copy
        return arg

    t_args = [prepare(a, lambda t: t) for a in args]
    e_args = [prepare(a, parity.to_engine) for a in args]
    expected, got = fn(torch, *t_args), fn(engine, *e_args)
    parity.assert_same(got, expected, exact=False, rtol=rtol, atol=1e-12)
    assert _graph(got) == _graph(expected)
    seed = np.random.default_rng(5).standard_normal(tuple(expected.shape))
    expected.backward(torch.from_numpy(seed))
    got.backward(engine.from_numpy(seed))
    for t, e in zip(t_args, e_args):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            parity.assert_same(e.grad, t.grad, exact=False, rtol=rtol, atol=1e-12)
    inputs = tuple(e.detach().requires_grad_() if isinstance(e, engine.Tensor) and
                   e.dtype == engine.float64 else e for e in e_args)
    assert gradcheck(lambda *xs: fn(engine, *xs), inputs)
    if second_order and got.numel():  # (the engine's gradgradcheck fails on an empty output)
        assert gradgradcheck(lambda *xs: fn(engine, *xs), inputs)


SHAPED = {  # (input shape, dim, index values): index has input's number of dimensions
    "2-d dim 1": ((2, 3), 1, [[0, 0], [2, 1]]),
    "2-d dim 0": ((2, 3), 0, [[1, 0, 1]]),
    "2-d dim -1 narrow": ((3, 4), -1, [[3], [0]]),
    "3-d": ((2, 3, 4), 2, np.zeros((2, 2, 5), np.int64) + [0, 3, 1, 1, 2]),
    "1-d": ((4,), 0, [3, 3, 0, 1, 2, 0]),
    "0-d, 0-d index": ((), 0, 0),
    "0-d, 1-d index": ((), 0, [0, 0]),
    "empty index": ((2, 3), 1, np.zeros((2, 0), np.int64)),
    "empty input": ((0, 3), 0, np.zeros((0, 3), np.int64)),
}


# ====================================================================== gather
@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("case", list(SHAPED))
def test_gather(case, dtype):
    shape, dim, index = SHAPED[case]
    x = parity.make_tensor(shape, dtype)
    parity.run_both(lambda m, x, i: m.gather(x, dim, i), x, _index(index))
    parity.run_both(lambda m, x, i: x.gather(dim, i.int()), x, _index(index))


GATHER_ERRORS = {
    "float index": lambda m, x: x.gather(1, m.tensor([[0.0]])),
    "int16 index": lambda m, x: x.gather(1, m.tensor([[1]], dtype=m.int16)),
    "out of range": lambda m, x: x.gather(1, m.tensor([[0, 3]])),
    "negative": lambda m, x: x.gather(1, m.tensor([[-1]])),
    "bad dim": lambda m, x: x.gather(2, m.tensor([[0]])),
    "fewer dims": lambda m, x: x.gather(1, m.tensor([0])),
    "index too big": lambda m, x: x.gather(1, m.tensor([[0], [0], [0]])),
    "index not a tensor": lambda m, x: x.gather(1, [[0]]),
    "axis=": lambda m, x: x.gather(axis=1, index=m.tensor([[2], [0]])),
    "sparse_grad": lambda m, x: m.gather(x, 0, m.tensor([[1, 0, 1]]), sparse_grad=False),
    "transposed input": lambda m, x: x.T.gather(0, m.tensor([[0, 1], [2, 0]])),
    "transposed index": lambda m, x: x.gather(1, m.tensor([[0, 1]]).T),
    "expanded index": lambda m, x: x.gather(1, m.tensor([[2, 1]]).expand(2, 2)),
}


@pytest.mark.parametrize("name", list(GATHER_ERRORS))
def test_gather_rules_and_errors(name):
    parity.run_both(GATHER_ERRORS[name], parity.make_tensor((2, 3), "float32"))


@pytest.mark.parametrize("case", ["2-d dim 1", "2-d dim 0", "3-d", "1-d", "0-d, 0-d index",
                                  "0-d, 1-d index", "empty index"])
def test_gather_gradients(case):
    shape, dim, index = SHAPED[case]
    check_gradients(lambda m, x, i: x.gather(dim, i), _f64(shape),
                    _index(index))


# ====================================================================== scatter, scatter_add
@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("case", list(SHAPED))
def test_scatter_and_scatter_add(case, dtype):
    shape, dim, index = SHAPED[case]
    index = np.array(index)
    # scatter writes where index points, so index cannot be bigger than input off dim
    index = index[tuple(slice(0, n) if d != (dim % max(len(shape), 1)) else slice(None)
                        for d, n in enumerate(shape))] if index.ndim else index
    x = parity.make_tensor(shape, dtype)
    src = parity.make_tensor(index.shape, dtype, seed=1)
    if case != "1-d":  # (repeated positions: torch keeps one of the values, not always the last)
        parity.run_both(lambda m, x, i, s: m.scatter(x, dim, i, s), x, _index(index), src)
    parity.run_both(lambda m, x, i: x.scatter(dim, i, 1), x, _index(index))
    parity.run_both(lambda m, x, i, s: m.scatter_add(x, dim, i, s), x, _index(index), src)
    parity.run_both(lambda m, x, i, s: x.scatter_add_(dim, i, s), x, _index(index), src,
                    check_sharing=bool(x.numel()))  # (torch's empty tensors all share address 0)
    parity.run_both(lambda m, x, i: x.scatter_(dim, i, value=0), x, _index(index))


SCATTER_ERRORS = {
    "src dtype": lambda m, x: x.scatter(1, m.tensor([[0, 2]]), m.tensor([[10, 20]])),
    "scatter_add src dtype": lambda m, x: x.scatter_add(1, m.tensor([[0]]), m.tensor([[1.0]],
                                                        dtype=m.float64)),
    "out of range": lambda m, x: x.scatter(1, m.tensor([[0, 3]]), m.ones(1, 2)),
    "src too small": lambda m, x: x.scatter(1, m.tensor([[0, 2]]), m.ones(1, 1)),
    "value: index too big": lambda m, x: x.scatter(1, m.tensor([[0], [1], [2]]), 1.0),
    "index dims": lambda m, x: x.scatter(1, m.tensor([0, 2]), m.ones(1, 2)),
    "src dims": lambda m, x: x.scatter(1, m.tensor([[0, 2]]), m.ones(2)),
    "0-d src": lambda m, x: x.scatter(1, m.tensor([[0, 2]]), m.tensor(5.0)),
    "float index": lambda m, x: x.scatter(1, m.tensor([[0.0]]), 1.0),
    "scatter_add number": lambda m, x: x.scatter_add(1, m.tensor([[0, 2]]), 1.0),
    "src bigger than index": lambda m, x: x.scatter_add(1, m.tensor([[0, 2]]), m.ones(2, 3)),
    "value overflow": lambda m, x: x.to(m.int8).scatter(1, m.tensor([[0]]), 1000),
    "in place": lambda m, x: x.scatter_(0, m.tensor([[1, 0]]), m.ones(1, 2)),
    "torch.scatter value=": lambda m, x: m.scatter(x, 1, m.tensor([[0, 2]]), value=7.0),
}


@pytest.mark.parametrize("name", list(SCATTER_ERRORS))
def test_scatter_rules_and_errors(name):
    parity.run_both(SCATTER_ERRORS[name], parity.make_tensor((2, 3), "float32"),
                    check_sharing=True)


SCATTER_GRADIENTS = {
    "scatter src": lambda m, x, s: x.scatter(1, m.tensor([[0, 2], [1, 0]]), s),
    "scatter value": lambda m, x, s: x.scatter(0, m.tensor([[1, 0]]), 2.5) * s.sum(),
    "scatter_add repeated": lambda m, x, s: x.scatter_add(1, m.tensor([[0, 0], [2, 2]]), s),
    "scatter_ into a non-leaf": lambda m, x, s: (x * 1).scatter_(1, m.tensor([[2, 1]]), s[:1]),
    "scatter_add_ into a non-leaf": lambda m, x, s: (x * 2).scatter_add_(0, m.tensor([[1, 1]]),
                                                                          s[:1]),
}


@pytest.mark.parametrize("name", list(SCATTER_GRADIENTS))
def test_scatter_gradients(name):
    check_gradients(SCATTER_GRADIENTS[name], parity.make_tensor((2, 3), "float64", low=-2,
                                                                 high=2),
                    parity.make_tensor((2, 2), "float64", seed=3, low=-2, high=2))


# ====================================================================== index_select
INDEX_SELECT = {
    "dim 1": ((2, 3), 1, [2, 0, 2]),
    "dim 0": ((2, 3), 0, [1]),
    "dim -1 3-d": ((2, 3, 4), -1, [3, 0]),
    "0-d index": ((2, 3), 1, 2),
    "empty index": ((2, 3), 1, []),
    "empty input": ((0, 3), 1, [0, 0]),
    "0-d input": ((), 0, [0]),
    "0-d input, 0-d index": ((), 0, 0),
}


@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("case", list(INDEX_SELECT))
def test_index_select(case, dtype):
    shape, dim, index = INDEX_SELECT[case]
    x = parity.make_tensor(shape, dtype)
    parity.run_both(lambda m, x, i: m.index_select(x, dim, i), x, _index(index))
    parity.run_both(lambda m, x, i: x.index_select(dim, i), x, _index(index, "int32"))


INDEX_SELECT_ERRORS = {
    "2-d index": lambda m, x: x.index_select(1, m.tensor([[2, 0]])),
    "out of range": lambda m, x: x.index_select(1, m.tensor([0, 3])),
    "negative": lambda m, x: x.index_select(1, m.tensor([-1])),
    "float index": lambda m, x: x.index_select(1, m.tensor([1.0])),
    "int16 index": lambda m, x: x.index_select(1, m.tensor([1], dtype=m.int16)),
    "bad dim": lambda m, x: x.index_select(2, m.tensor([1])),
    "0-d input, two indices": lambda m, x: x[0, 0].index_select(0, m.tensor([0, 0])),
    "list index": lambda m, x: x.index_select(0, [1]),
    "transposed": lambda m, x: x.T.index_select(1, m.tensor([1, 0])),
    "axis=": lambda m, x: m.index_select(x, axis=0, index=m.tensor([1])),
}


@pytest.mark.parametrize("name", list(INDEX_SELECT_ERRORS))
def test_index_select_rules_and_errors(name):
    parity.run_both(INDEX_SELECT_ERRORS[name], parity.make_tensor((2, 3), "float32"))


@pytest.mark.parametrize("case", list(INDEX_SELECT))
def test_index_select_gradients(case):
    shape, dim, index = INDEX_SELECT[case]
    check_gradients(lambda m, x, i: x.index_select(dim, i), _f64(shape),
                    _index(index))


# ====================================================================== masked_fill
MASKED_FILL = {  # (input shape, mask shape)
    "same shape": ((2, 3), (2, 3)),
    "row mask": ((2, 3), (3,)),
    "column mask": ((2, 3), (2, 1)),
    "0-d mask": ((2, 3), ()),
    "mask adds a dimension": ((2, 3), (1, 1, 1)),
    "0-d": ((), ()),
    "empty": ((0, 3), (3,)),
}


@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("case", list(MASKED_FILL))
def test_masked_fill(case, dtype):
    shape, mask_shape = MASKED_FILL[case]
    x = parity.make_tensor(shape, dtype)
    mask = parity.make_tensor(mask_shape, "bool", seed=2)
    parity.run_both(lambda m, x, k: x.masked_fill(k, 1), x, mask)
    parity.run_both(lambda m, x, k: m.masked_fill(x, k, m.tensor(0)), x, mask)
    if mask_shape != (1, 1, 1):
        parity.run_both(lambda m, x, k: x.masked_fill_(k, True), x, mask, check_sharing=True)


MASKED_FILL_ERRORS = {
    "float into int": lambda m, x: x.long().masked_fill(x > 0, 2.7),
    "float tensor into int": lambda m, x: x.long().masked_fill(x > 0, m.tensor(2.7)),
    "-1 into uint8": lambda m, x: x.to(m.uint8).masked_fill(x > 0, -1),
    "300 into uint8": lambda m, x: x.to(m.uint8).masked_fill(x > 0, 300),
    "1e6 into float16": lambda m, x: x.half().masked_fill(x > 0, 1e6),
    "inf": lambda m, x: x.masked_fill(x > 0, float("inf")),
    "into bool": lambda m, x: (x > 1).masked_fill(x > 0, 2),
    "long mask": lambda m, x: x.masked_fill((x > 0).long(), 0.0),
    "uint8 mask": lambda m, x: x.masked_fill((x > 0).to(m.uint8), 0.0),
    "1-d value": lambda m, x: x.masked_fill(x > 0, m.tensor([1.0])),
    "mask does not broadcast": lambda m, x: x.masked_fill(m.tensor([True, False]), 0.0),
    "in place, bigger mask": lambda m, x: x[0].masked_fill_(m.ones(2, 3, dtype=m.bool), 1),
    "str value": lambda m, x: x.masked_fill(x > 0, "a"),
    "None value": lambda m, x: x.masked_fill(x > 0, None),
    "keywords": lambda m, x: x.masked_fill(mask=x > 0, value=1),
    "transposed": lambda m, x: x.T.masked_fill(x.T > 0, 0.0),
    "expanded": lambda m, x: x.expand(2, 2, 3).masked_fill(m.tensor(True), 1),
}


@pytest.mark.parametrize("name", list(MASKED_FILL_ERRORS))
def test_masked_fill_rules_and_errors(name):
    parity.run_both(MASKED_FILL_ERRORS[name], parity.make_tensor((2, 3), "float32"))


MASKED_FILL_GRADIENTS = {
    "number": lambda m, x, v: x.masked_fill(x > 0, 2.0) * v,
    "0-d tensor value": lambda m, x, v: x.masked_fill(x > 0, v),
    "row mask": lambda m, x, v: x.masked_fill(m.tensor([True, False, True]), v),
    "bigger mask": lambda m, x, v: x.masked_fill(m.tensor([[[True], [False]]]), v),
    "in place into a non-leaf": lambda m, x, v: (x * v).masked_fill_(x < 0, v),
}


@pytest.mark.parametrize("name", list(MASKED_FILL_GRADIENTS))
def test_masked_fill_gradients(name):
    check_gradients(MASKED_FILL_GRADIENTS[name],
                    parity.make_tensor((2, 3), "float64", low=-2, high=2),
                    parity.make_tensor((), "float64", seed=1, low=0.5, high=2))


# ====================================================================== index_fill
INDEX_FILLS = {
    "rows": lambda m, x: x.index_fill(0, m.tensor([1]), 5.0),
    "columns, an int": lambda m, x: x.index_fill(1, m.tensor([0, 2]), -1),
    "last dim": lambda m, x: x.index_fill(-1, m.tensor([0]), 1.0),
    "0-d index": lambda m, x: x.index_fill(0, m.tensor(1), 5.0),
    "negative index": lambda m, x: x.index_fill(0, m.tensor([-1]), 5.0),
    "repeated index": lambda m, x: x.index_fill(1, m.tensor([0, 0]), 2.0),
    "0-d tensor value": lambda m, x: x.index_fill(0, m.tensor([1]), m.tensor(7.0)),
    "function": lambda m, x: m.index_fill(x, 0, m.tensor([1]), 5.0),
    "in place": lambda m, x: x.clone().index_fill_(0, m.tensor([1]), 2.0),
    "float into int": lambda m, x: x.long().index_fill(0, m.tensor([1]), 5.7),
    "0-d input": lambda m, x: x[0, 0].index_fill(0, m.tensor([0]), 1.0),
    "2-d index": lambda m, x: x.index_fill(0, m.tensor([[0], [1]]), 5.0),
    "float index": lambda m, x: x.index_fill(0, m.tensor([1.0]), 5.0),
    "int32 index": lambda m, x: x.index_fill(0, m.tensor([1], dtype=m.int32), 5.0),
    "bad dim": lambda m, x: x.index_fill(2, m.tensor([1]), 5.0),
    "index out of range": lambda m, x: x.index_fill(0, m.tensor([2]), 5.0),
    "negative out of range": lambda m, x: x.index_fill(0, m.tensor([-3]), 5.0),
    "1-d value": lambda m, x: x.index_fill(0, m.tensor([1]), m.tensor([7.0])),
    "list index": lambda m, x: x.index_fill(0, [1], 5.0),
    "300 into uint8": lambda m, x: x.to(m.uint8).index_fill(0, m.tensor([1]), 300),
}


@pytest.mark.parametrize("name", list(INDEX_FILLS))
def test_index_fill(name):
    parity.run_both(INDEX_FILLS[name], parity.make_tensor((2, 3), "float32"))


INDEX_FILL_GRADIENTS = {
    "number": lambda m, x, v: x.index_fill(1, m.tensor([0, 2]), 2.0) * v,
    "0-d tensor value": lambda m, x, v: x.index_fill(0, m.tensor([1, 1]), v),
    "in place into a non-leaf": lambda m, x, v: (x * v).index_fill_(1, m.tensor([1]), v),
}


@pytest.mark.parametrize("name", list(INDEX_FILL_GRADIENTS))
def test_index_fill_gradients(name):
    check_gradients(INDEX_FILL_GRADIENTS[name],
                    parity.make_tensor((2, 3), "float64", low=-2, high=2),
                    parity.make_tensor((), "float64", seed=1, low=0.5, high=2))


# ====================================================================== repeat
REPEATS = {
    "2-d": ((2, 3), (2, 2)),
    "more repeats than dims": ((2, 3), (2, 1, 2)),
    "ones": ((2, 3), (1, 1)),
    "zero": ((2, 3), (0, 1)),
    "0-d": ((), (3,)),
    "0-d, no repeats": ((), ()),
    "empty": ((0, 2), (3, 2)),
    "1-d": ((3,), (2,)),
}


@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("case", list(REPEATS))
def test_repeat(case, dtype):
    shape, repeats = REPEATS[case]
    x = parity.make_tensor(shape, dtype)
    parity.run_both(lambda m, x: x.repeat(repeats), x)
    if repeats:
        parity.run_both(lambda m, x: x.repeat(*repeats), x)


REPEAT_ERRORS = {
    "too few": lambda m, x: x.repeat(2),
    "none": lambda m, x: x.repeat(),
    "negative": lambda m, x: x.repeat(-1, 1),
    "float": lambda m, x: x.repeat(2.0, 1),
    "list": lambda m, x: x.repeat([2, 1]),
    "Size": lambda m, x: x.repeat(m.Size([2, 1])),
    "transposed": lambda m, x: x.T.repeat(1, 2),
    "saved repeats": lambda m, x: x.requires_grad_().repeat(1, 2).grad_fn._saved_repeats,
    "no torch.repeat": lambda m, x: m.repeat(x, 2),
}


@pytest.mark.parametrize("name", list(REPEAT_ERRORS))
def test_repeat_rules_and_errors(name):
    parity.run_both(REPEAT_ERRORS[name], parity.make_tensor((2, 3), "float32"),
                    match="has no attribute 'repeat'" if name == "no torch.repeat" else None)


@pytest.mark.parametrize("case", list(REPEATS))
def test_repeat_gradients(case):
    shape, repeats = REPEATS[case]
    check_gradients(lambda m, x: x.repeat(repeats), _f64(shape))


# ====================================================================== repeat_interleave
REPEAT_INTERLEAVE = {
    "int, flattened": lambda m, x: x.repeat_interleave(2),
    "int dim 0": lambda m, x: x.repeat_interleave(2, dim=0),
    "int dim -1": lambda m, x: m.repeat_interleave(x, 3, -1),
    "zero": lambda m, x: x.repeat_interleave(0, dim=0),
    "tensor": lambda m, x: x.repeat_interleave(m.tensor([1, 2]), dim=0),
    "int32 tensor": lambda m, x: x.repeat_interleave(m.tensor([0, 2, 1], dtype=m.int32), dim=1),
    "one-element tensor": lambda m, x: x.repeat_interleave(m.tensor([2])),
    "0-d tensor": lambda m, x: x.repeat_interleave(m.tensor(3)),
    "transposed": lambda m, x: x.T.repeat_interleave(2, dim=0),
    "output_size": lambda m, x: m.repeat_interleave(x, 2, 1, output_size=6),
    "counts": lambda m, x: m.repeat_interleave(m.tensor([1, 0, 3])),
    "axis=": lambda m, x: x.repeat_interleave(2, axis=1),
    "0-d input": lambda m, x: x[0, 0].repeat_interleave(2),
    "0-d input, dim 0": lambda m, x: x[0, 0].repeat_interleave(2, dim=0),
    "0-d input, tensor, dim 0": lambda m, x: x[0, 0].repeat_interleave(m.tensor([2]), dim=0),
    "negative": lambda m, x: x.repeat_interleave(-1),
    "negative in tensor": lambda m, x: x.repeat_interleave(m.tensor([1, -2]), dim=0),
    "wrong length": lambda m, x: x.repeat_interleave(m.tensor([1, 2, 3]), dim=0),
    "wrong length, flattened": lambda m, x: x.repeat_interleave(m.tensor([1, 2])),
    "2-d repeats": lambda m, x: x.repeat_interleave(m.tensor([[1, 2]]), dim=0),
    "float repeats": lambda m, x: x.repeat_interleave(m.tensor([1.0, 2]), dim=0),
    "float": lambda m, x: x.repeat_interleave(2.5),
    "bad dim": lambda m, x: x.repeat_interleave(2, dim=3),
    "counts 0-d": lambda m, x: m.repeat_interleave(m.tensor(3)),
    "counts float": lambda m, x: m.repeat_interleave(m.tensor([1.0])),
}


@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
@pytest.mark.parametrize("name", list(REPEAT_INTERLEAVE))
def test_repeat_interleave(name, dtype):
    parity.run_both(REPEAT_INTERLEAVE[name], parity.make_tensor((2, 3), dtype))


@pytest.mark.parametrize("name", ["int, flattened", "int dim 0", "int dim -1", "zero", "tensor",
                                  "one-element tensor", "transposed", "0-d input"])
def test_repeat_interleave_gradients(name):
    check_gradients(REPEAT_INTERLEAVE[name], _f64((2, 3)))


def _node_chain(tensor):
    """The names of the first nodes on the path through each node's first input."""
    names, node = [], tensor.grad_fn
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


# without dim, torch flattens the input: flatten returns a 1-d input itself (no view recorded)
@pytest.mark.parametrize("shape", [(3,), (3, 1), (), (0,)])
@pytest.mark.parametrize("call", ["x.repeat_interleave(2)", "x.repeat_interleave(m.tensor(2))",
                                  "m.repeat_interleave(x, m.tensor([2]))",
                                  "x.repeat_interleave(2, dim=0)",
                                  "x.repeat_interleave(2, output_size=2 * x.numel())"])
def test_repeat_interleave_nodes(shape, call):
    def nodes(m, x):
        out = eval(call)  # noqa: S307 (the test's own expressions)
        return [_node_chain(out), out]

    x = parity.make_tensor(shape, "float32")
    parity.run_both(lambda m, x: nodes(m, x.requires_grad_()), x)


# ====================================================================== take_along_dim
TAKE_ALONG_DIM = {
    "dim 1": lambda m, x: m.take_along_dim(x, m.tensor([[0], [2]]), dim=1),
    "broadcast index": lambda m, x: m.take_along_dim(x, m.tensor([[0, 2]]), dim=1),
    "argsort": lambda m, x: m.take_along_dim(x, x.argsort(dim=0), dim=0),
    "flattened": lambda m, x: m.take_along_dim(x, m.tensor([5, 0])),
    "method": lambda m, x: x.take_along_dim(m.tensor([[0], [1]]), 1),
    "axis=": lambda m, x: x.take_along_dim(m.tensor([[0], [1]]), axis=1),
    "float indices": lambda m, x: m.take_along_dim(x, m.tensor([[0.0]]), dim=1),
    "int32 indices": lambda m, x: m.take_along_dim(x, m.tensor([[0]], dtype=m.int32), dim=1),
    "dims differ": lambda m, x: m.take_along_dim(x, m.tensor([[[0]]]), dim=1),
    "no broadcast": lambda m, x: m.take_along_dim(x, m.zeros(3, 1, dtype=m.long), dim=1),
}


@pytest.mark.parametrize("name", list(TAKE_ALONG_DIM))
def test_take_along_dim(name):
    parity.run_both(TAKE_ALONG_DIM[name], parity.make_tensor((2, 3), "float32"))


@pytest.mark.parametrize("name", ["dim 1", "broadcast index", "flattened", "argsort"])
def test_take_along_dim_gradients(name):
    check_gradients(TAKE_ALONG_DIM[name], _f64((2, 3)))
