"""Types in torch's argument errors are named as CPython's ``tp_name`` names them: a class
written in Python by its name ('Fraction', a learner's 'Point'), a built-in by its name
('list', 'NoneType'), any other C type with its module ('numpy.ndarray',
'collections.OrderedDict', 'torch.dtype')."""
import collections
import fractions

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


class Point:
    """A learner's own class."""


VALUES = {
    "ndarray": lambda m: np.ones(2),
    "numpy float64": lambda m: np.float64(1.5),
    "numpy int64": lambda m: np.int64(3),
    "OrderedDict": lambda m: collections.OrderedDict(),
    "deque": lambda m: collections.deque(),
    "Fraction": lambda m: fractions.Fraction(1, 2),
    "a learner's class": lambda m: Point(),
    "None": lambda m: None,
    "list": lambda m: [1.0],
    "str": lambda m: "1",
    "range": lambda m: range(2),
    "dtype": lambda m: m.float32,
    "Size": lambda m: m.Size([2]),
    "device": lambda m: m.device("cpu"),
    "Generator": lambda m: m.Generator(),
}

CALLS = {
    "exp": lambda m, v: m.exp(v),
    "torch.add's other": lambda m, v: m.add(m.ones(2), v),
    "torch.maximum's other": lambda m, v: m.maximum(m.ones(2), v),
    "relu": lambda m, v: m.nn.functional.relu(v),
    "linear's weight": lambda m, v: m.nn.functional.linear(m.ones(2), v),
    "cat's element": lambda m, v: m.cat([m.ones(1), v]),
    "stack's element": lambda m, v: m.stack([m.ones(1), v]),
    "copy_": lambda m, v: m.ones(2).copy_(v),
    "type_as": lambda m, v: m.ones(2).type_as(v),
    "index_select's index": lambda m, v: m.ones(2).index_select(0, v),
    "gather's index": lambda m, v: m.ones(2).gather(0, v),
}


def _message(call, module, value):
    try:
        call(module, value)
    except TypeError as error:
        return str(error).splitlines()[0]
    return None


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("call", CALLS)
def test_argument_errors_name_the_type_as_torch(call, value):
    expected = _message(CALLS[call], torch, VALUES[value](torch))
    if expected is None:
        pytest.skip("torch takes this value here")
    assert _message(CALLS[call], parity.engine, VALUES[value](parity.engine)) == expected


@pytest.mark.parametrize("item", [np.array(3), np.array([3]), np.ones(2), np.int32(3),
                                  np.float64(2.0), 2.0, "2", None, True],
                         ids=lambda v: f"{type(v).__name__}({v})")
def test_size_takes_what_torch_takes(item):
    parity.run_both(lambda m: m.Size([item]))


def test_size_of_tensors_as_torch():
    parity.run_both(lambda m: (m.Size([m.tensor(3)]), m.Size([m.tensor([3])])))
    parity.run_both(lambda m: m.Size([m.tensor(3.0)]))
