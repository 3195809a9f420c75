"""masked_scatter and put (out of place, in place, torch.masked_scatter, torch.put) against
torch 2.15: values of every dtype, shapes from () and empty to broadcast masks, duplicate and
negative places, accumulate, layouts, gradients (gradcheck too), errors in torch's order."""
import itertools

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


MASKS = [  # (input shape, mask shape)
    ((), ()), ((0,), (0,)), ((4,), (4,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 3), (1, 3)),
    ((2, 3), (2, 1)), ((3,), (2, 3)), ((1, 3), (2, 1)), ((2, 0, 3), (3,)), ((2, 2, 3), (2, 1, 3)),
]


def _mask(shape, seed):
    values = parity.make_values(shape, "bool", seed=seed)
    return values


@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("shapes", MASKS, ids=str)
@pytest.mark.parametrize("form", ["method", "function", "in_place"])
def test_masked_scatter_values(form, shapes, dtype):
    shape, mask_shape = shapes
    mask = _mask(mask_shape, seed=1)
    out_shape = np.broadcast_shapes(shape, mask_shape)
    if form == "in_place" and out_shape != shape:
        pytest.skip("in place, the mask only expands to the input: tested with the errors")
    source = parity.make_values((int(np.prod(out_shape)) + 2,), dtype, seed=2)

    def run(m, x, mask, source):
        if form == "method":
            return x.masked_scatter(mask, source)
        if form == "function":
            return m.masked_scatter(x, mask, source)
        return x.clone().masked_scatter_(mask, source)
    parity.run_both(run, parity.make_tensor(shape, dtype), mask, source, check_inputs=False)


@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("case", [
    ((5,), [0, -1, 2]), ((2, 3), [5, 0, -6]), ((2, 3), [1, 1, 4]), ((), [0]), ((), [-1]),
    ((2, 3), []), ((0,), []), ((3, 2), [[0, 1], [5, 5]]),
], ids=str)
@pytest.mark.parametrize("form", ["method", "function", "in_place", "transposed"])
def test_put_values(form, case, accumulate, dtype):
    shape, places = case
    if form == "transposed" and len(shape) < 2:
        pytest.skip("needs a matrix")
    index = np.array(places, dtype=np.int64)
    source = parity.make_values(index.shape, dtype, seed=3)

    def run(m, x, index, source):
        if form == "method":
            return x.put(index, source, accumulate)
        if form == "function":
            return m.put(x, index, source, accumulate=accumulate)
        if form == "transposed":
            return x.t().put(index, source, accumulate=accumulate)
        return x.clone().put_(index, source, accumulate)
    if dtype == "bool" and accumulate:
        pytest.skip("bool accumulate: torch adds as logical or; tested below")
    parity.run_both(run, parity.make_tensor(shape, dtype), index, source, check_inputs=False)


def test_put_of_bool_accumulates_as_or():
    parity.run_both(lambda m: m.tensor([True, False, False]).put(
        m.tensor([1, 1, 2]), m.tensor([True, True, False]), accumulate=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3)), ((), ())],
                         ids=str)
@pytest.mark.parametrize("extra", [0, 3])
def test_masked_scatter_gradients(shapes, extra, dtype):
    """self's gradient where the mask is False (summed back over a broadcast), source's where
    it is True in order, zeros for the source elements not used."""
    shape, mask_shape = shapes
    mask = _mask(mask_shape, seed=5)
    n = int(np.prod(np.broadcast_shapes(shape, mask_shape)))

    def run(m, x, mask, source):
        x, source = x.requires_grad_(), source.requires_grad_()
        y = x.masked_scatter(mask, source)
        y.backward(m.arange(1.0, y.numel() + 1, dtype=y.dtype).reshape(y.shape))
        return y, x.grad, source.grad, y.grad_fn.name()
    parity.run_both(run, parity.make_tensor(shape, dtype), mask,
                    parity.make_tensor((n + extra,), dtype), check_inputs=False)


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_gradients(accumulate):
    def run(m, x, source):
        x, source = x.requires_grad_(), source.requires_grad_()
        y = (x * 2).put(m.tensor([[4, -1], [0, 4]]), source, accumulate)
        y.backward(m.arange(1.0, 7).reshape(2, 3))
        return y, x.grad, source.grad, y.grad_fn.name(), y.grad_fn._saved_accumulate
    parity.run_both(run, parity.make_tensor((2, 3), "float64"),
                    parity.make_tensor((2, 2), "float64"), check_inputs=False)


def test_gradcheck_and_second_derivatives():
    for m in (parity.engine, torch):
        x = m.randn(2, 3, dtype=m.float64, requires_grad=True)
        s = m.randn(7, dtype=m.float64, requires_grad=True)
        mask = m.tensor([True, False, True])
        def scattered(x, s, mask=mask):
            return x.masked_scatter(mask, s) ** 2
        assert m.autograd.gradcheck(scattered, (x, s))
        assert m.autograd.gradgradcheck(scattered, (x, s))
        for accumulate in (False, True):
            # (a place named twice without accumulate keeps one value: torch's formula gives
            # both the gradient, which no finite difference sees)
            index = m.tensor([0, 5, 5] if accumulate else [0, 5, -3])

            def put(x, s, index=index, accumulate=accumulate):
                return x.put(index, s[:3], accumulate) ** 2
            assert m.autograd.gradcheck(put, (x, s))
            assert m.autograd.gradgradcheck(put, (x, s))


ERRORS = [
    "x.masked_scatter(m.ones(4), m.ones(3, dtype=m.float64))",
    "x.masked_scatter(m.ones(3), m.ones(9))",
    "x.masked_scatter(m.ones(3, dtype=m.bool), m.ones(1))",
    "x.masked_scatter(m.ones(3, dtype=m.bool), m.ones(1, dtype=m.int64))",
    "x.masked_scatter(m.ones(3, dtype=m.bool), 5.)",
    "m.masked_scatter(x, m.ones(3, dtype=m.bool), 5.)",
    "x.masked_scatter(1, m.ones(9))",
    "x.masked_scatter_(m.ones(4), m.ones(9))",
    "x.masked_scatter_(m.ones(3), m.ones(9, dtype=m.float64))",
    "x.masked_scatter_(m.ones(2, 1, 3, dtype=m.bool), m.ones(9))",
    "x.masked_scatter_(m.ones(1, 3, dtype=m.bool), m.ones(2))",
    "x.masked_scatter_(m.ones(2, 3, dtype=m.bool), 1.)",
    "x.put(m.tensor([1.]), m.ones(2, dtype=m.float64))",
    "x.put(m.tensor([9]), m.ones(2, dtype=m.float64))",
    "x.put(m.tensor([9]), m.ones(2))",
    "x.put(m.tensor([9]), m.ones(1))",
    "x.put(m.tensor([-7]), m.ones(1))",
    "m.ones(0).put(m.tensor([0]), m.ones(1))",
    "x.put(m.tensor([2]), 5.)",
    "m.put(x, m.tensor([2]), 5.)",
    "x.put_(m.tensor([1]), 1.)",
    "x.put(index=m.tensor([2]), source=m.tensor([5.]))",
    "m.put(x, m.tensor([2]), source=m.tensor([5.]), accumulate=True)",
    "m.ones(3).expand(2, 3).put_(m.tensor([1]), m.tensor([5.]))",
    "m.ones(3).expand(2, 3).masked_scatter_(m.tensor([True, False, True]), m.ones(4))",
    "m.ones(2, requires_grad=True).put_(m.tensor([1]), m.tensor([5.]))",
    "m.ones(2, requires_grad=True).masked_scatter_(m.tensor([True, False]), m.tensor([5.]))",
]


@pytest.mark.parametrize("code", ERRORS)
def test_calls_and_errors_as_torchs(code):
    results = [parity.outcome(m, f"x = m.zeros(2, 3)\nr = {code}") for m in (parity.engine, torch)]
    facts = [r if isinstance(r, tuple) else (r.tolist(), str(r.dtype)) for r in results]
    assert facts[0] == facts[1]


def test_in_place_on_a_view_rewrites_the_base_history():
    code = """
x = m.zeros(2, 3, requires_grad=True)
y = x * 1
y[0].put_(m.tensor([0, 2]), m.tensor([5., 6.]))
y[1].masked_scatter_(m.tensor([False, True, True]), m.tensor([7., 8.]))
y.sum().backward()
r = (y, x.grad, y.grad_fn.name(), y._version)
"""
    parity.assert_same_snippet(code)


@pytest.mark.parametrize("dtype,shape", list(itertools.product(["float32", "int64"],
                                                                  [(2, 3), (6,)])))
def test_printed_and_layout(dtype, shape):
    def run(m, x):
        t = x.reshape(shape)
        return repr(t.masked_scatter(t > 0 if dtype != "bool" else t, t.flatten())), \
            t.put(m.tensor([0]), t.flatten()[:1]).stride()
    parity.run_both(run, parity.make_tensor((6,), dtype))
