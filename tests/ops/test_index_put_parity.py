"""index_put_ and index_put against torch 2.15: ``x.index_put_(indices, values, accumulate)``
writes values where one index tensor per dimension picks (x[indices] = values, without
casting), or adds them there (a place picked twice gets both); index_put makes a copy.

Every dtype, each kind of index (int64, int32, masks, several broadcast together, negative,
repeated, 0-d, empty), values broadcast or not, in place on a graph tensor and out of place,
gradients of both operands (second derivatives too), and torch's refusals in torch's order."""
import warnings

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

import engine  # noqa: E402

pytestmark = pytest.mark.torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]

# (target shape, indices as lists with their dtype, values' shape)
INDICES = {
    "one long index": ((4, 3), [([0, 2, 0], "int64")], (3,)),
    "repeated, values per place": ((4, 3), [([1, 1, 1, 3], "int64")], (4, 3)),
    "negative": ((4, 3), [([-1, 0, -4], "int64")], ()),
    "int32": ((5,), [([4, 0, 4, 4], "int32")], (4,)),
    "two indices": ((3, 4), [([0, 2, 2], "int64"), ([1, 3, 1], "int64")], (3,)),
    "broadcast indices": ((3, 4), [([[0], [2]], "int64"), ([1, 1, 3], "int64")], (2, 3)),
    "a mask": ((3, 2), [([[True, False], [False, True], [True, True]], "bool")], ()),
    "a mask of a dim": ((3, 2), [([True, False, True], "bool")], (2,)),
    "a 2-d index": ((5,), [([[0, 1], [1, 4]], "int64")], (2, 2)),
    "a 0-d index": ((4, 2), [(2, "int64")], (2,)),
    "nothing picked": ((3, 2), [([], "int64")], ()),
    "an empty target": ((0, 2), [([], "int64")], (2,)),
}


def _value_array(shape, dtype, seed):
    values = parity.make_values(shape, dtype, seed=seed)
    return values


def _case(m, name, dtype, seed=0):
    shape, index_lists, value_shape = INDICES[name]
    target = m.tensor(parity.make_values(shape, dtype, seed=seed + 1))
    indices = tuple(m.tensor(values, dtype=getattr(m, index_dtype))
                    for values, index_dtype in index_lists)
    values = m.tensor(parity.make_values(value_shape, dtype, seed=seed + 2))
    return target, indices, values


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(INDICES))
def test_index_put_writes_and_adds_as_torch(name, dtype, accumulate):
    def run(m):
        target, indices, values = _case(m, name, dtype)
        copy = m.index_put(target, indices, values, accumulate)
        method = target.index_put(indices, values, accumulate=accumulate)
        returned = target.index_put_(indices, values, accumulate)
        return copy, method, returned is target, target, target._version

    parity.run_both(run)


GRAD_DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("dtype", GRAD_DTYPES)
@pytest.mark.parametrize("name", [n for n in INDICES if n != "an empty target"])
def test_index_put_gradients_as_torch(name, dtype, accumulate):
    def run(m):
        target, indices, values = _case(m, name, dtype, seed=3)
        target.requires_grad_()
        values.requires_grad_()
        out = m.index_put(target, indices, values, accumulate=accumulate)
        weights = m.arange(out.numel(), dtype=out.dtype).reshape(out.shape)
        (out * weights).sum().backward()
        seen = [out.grad_fn.name(), target.grad, values.grad]
        inner = target * 2  # in place on a graph tensor: its node becomes IndexPutBackward0
        inner.index_put_(indices, values * 3, accumulate=accumulate)
        first, = m.autograd.grad((inner * weights).sum(), values, create_graph=True)
        seen += [inner.grad_fn.name(), [n.name() for n, _ in inner.grad_fn.next_functions],
                 first, first.grad_fn is not None]
        return seen

    parity.run_both(run, check_inputs=False)


def test_index_put_of_a_half_into_float_repeated_adds_in_order():
    """float16 sums of many repeats round after each addition, as torch's serial kernel."""
    def run(m):
        target = m.zeros(2, dtype=m.float16)
        index = m.tensor([0] * 300 + [1] * 7)
        values = m.tensor(parity.make_values((307,), "float16", seed=5))
        return target.index_put_((index,), values, accumulate=True)

    parity.run_both(run)


def test_index_put_on_a_transposed_target_keeps_its_layout():
    def run(m):
        target = m.zeros(2, 3).t()
        copy = m.index_put(target, (m.tensor([0, 2]),), m.tensor([1., 2]))
        target.index_put_((m.tensor([0, 2]),), m.tensor([5., 6]), accumulate=True)
        return copy, target

    parity.run_both(run)


def _indices_of(m):
    return (m.tensor([0, 2, 0]),)


ERRORS = {
    "indices a tensor": lambda m: m.zeros(3).index_put_(m.tensor([0]), m.tensor(1.)),
    "indices a tensor, function": lambda m: m.index_put(m.zeros(3), m.tensor([0]), m.tensor(1.)),
    "values a number": lambda m: m.zeros(3).index_put_(_indices_of(m), 1.),
    "values a number, function": lambda m: m.index_put_(m.zeros(3), _indices_of(m), 1.),
    "None among the indices": lambda m: m.zeros(3, 2).index_put_((m.tensor([0]), None),
                                                                  m.tensor(1.)),
    "None, function": lambda m: m.index_put(m.zeros(3), (None,), m.tensor(1.)),
    "no indices": lambda m: m.zeros(3).index_put_((), m.tensor(1.)),
    "another dtype": lambda m: m.zeros(3).index_put_(_indices_of(m), m.tensor(1)),
    "a float index": lambda m: m.zeros(3).index_put_((m.tensor([0.]),), m.tensor(1.)),
    "out of range": lambda m: m.zeros(3).index_put_((m.tensor([3]),), m.tensor(1.), True),
    "values too long": lambda m: m.zeros(3).index_put_(_indices_of(m), m.tensor([1., 2.])),
    "values with a leading 1": lambda m: m.zeros(3).index_put_(_indices_of(m),
                                                               m.tensor([[1., 2., 3.]])),
    "too many indices": lambda m: m.zeros(3).index_put_((m.tensor([0]), m.tensor([0])),
                                                        m.tensor(1.)),
    "a mask of another shape": lambda m: m.zeros(3).index_put_((m.tensor([True, False]),),
                                                               m.tensor(1.)),
    "a leaf that requires grad": lambda m: m.zeros(3, requires_grad=True).index_put_(
        _indices_of(m), m.tensor(1.)),
    "indices by keyword": lambda m: m.zeros(3).index_put_(indices=_indices_of(m),
                                                          values=m.tensor(2.), accumulate=True),
    "an index sharing the target": lambda m: _self_index(m),
    # (fuzz 3005099 and on: torch counts the index tensors, then each one's dimensions)
    "a 0-d mask of a 0-d tensor": lambda m: m.tensor(1.).index_put((m.tensor(True),),
                                                                    m.tensor(2.)),
    "a 0-d index of a 0-d tensor": lambda m: m.tensor(1.).index_put((m.tensor(0),),
                                                                     m.tensor(2.)),
    "a mask with too many dims": lambda m: m.zeros(2).index_put((m.ones(2, 2).bool(),),
                                                                m.tensor(2.)),
    "an index after a mask": lambda m: m.zeros(2, 2).index_put(
        (m.ones(2, 2).bool(), m.tensor([0])), m.tensor(2.)),
}


def _self_index(m):
    target = m.tensor([0, 1, 2])
    return target.index_put_((target,), m.tensor(5))


@pytest.mark.parametrize("name", list(ERRORS))
def test_index_put_refuses_as_torch(name):
    parity.run_both(ERRORS[name], check_inputs=False)


def test_index_put_into_an_expanded_tensor_warns_as_torch():
    def run(m):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            target = m.zeros(1, 3).expand(2, 3)
            target.index_put_((m.tensor([1]),), m.tensor(4.))
        return target, [str(w.message) for w in caught]

    parity.run_both(run, check_inputs=False)


def test_index_put_values_broadcast_into_every_dtype_bit_for_bit():
    """Integer sums wrap around, bool sums are or, as torch's."""
    rng = np.random.default_rng(0)
    index = rng.integers(-6, 6, size=40).tolist()

    def run(m):
        seen = []
        for dtype in DTYPES:
            target = m.tensor(parity.make_values((6,), dtype, seed=9))
            values = m.tensor(parity.make_values((40,), dtype, seed=10))
            seen.append(target.index_put_((m.tensor(index),), values, accumulate=True))
        return seen

    parity.run_both(run)


@pytest.mark.parametrize("mask", [True, False])
def test_index_put_of_a_0d_mask_and_one_value_as_torch(mask):
    def run(m):
        copy = m.zeros(2, 2).index_put((m.tensor(mask),), m.tensor(2.))
        target = m.zeros(2, 2)
        target.index_put_((m.tensor(mask),), m.tensor([3.]))
        return copy, target

    parity.run_both(run)


def test_index_put_of_a_0d_mask_and_a_row_or_accumulate_is_the_documented_difference():
    """torch 2.15 fails an internal assert (DIFFERENCES.md); the engine writes, or adds."""
    with pytest.raises(RuntimeError, match="INTERNAL ASSERT FAILED"):
        torch.zeros(2, 2).index_put_((torch.tensor(True),), torch.tensor([3., 4.]))
    written = engine.zeros(2, 2).index_put_((engine.tensor(True),), engine.tensor([3., 4.]))
    assert written.tolist() == [[3., 4.], [3., 4.]]
    added = engine.ones(2).index_put_((engine.tensor(True),), engine.tensor(2.), True)
    assert added.tolist() == [3., 3.]
    untouched = engine.ones(2).index_put((engine.tensor(False),), engine.tensor([5., 6.]))
    assert untouched.tolist() == [1., 1.]


def test_index_puts_copy_is_a_fresh_tensor_at_version_0():
    def run(m):
        target = m.arange(4.).reshape(2, 2)
        copy = target.index_put((m.tensor([0]), m.tensor([1])), m.tensor(9.), accumulate=True)
        return copy, copy._version, target._version, copy.data_ptr() != target.data_ptr()

    parity.run_both(run)
