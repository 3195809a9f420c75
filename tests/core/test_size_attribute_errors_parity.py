"""Python's own errors about a torch.Size and a torch.return_types value name the type as
PyTorch's C types do ('torch.Size', 'torch.return_types.max'): fuzz 5252202 (a missing
attribute of a shape, `y.swapdims` where y was x.shape) said 'Size'."""
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _set_item(m):
    s = m.Size([2, 3])
    s[0] = 5


def _del_item(m):
    s = m.Size([2, 3])
    del s[0]


CALLS = {
    "missing attribute": lambda m: m.Size([2, 3]).swapdims,
    "missing method of a shape": lambda m: m.ones(2, 3).shape.numel_(),
    "new attribute": lambda m: setattr(m.Size([2]), "foo", 1),
    "a method's name": lambda m: setattr(m.Size([2]), "count", 1),
    "deleting one": lambda m: delattr(m.Size([2]), "foo"),
    "item assignment": _set_item,
    "item deletion": _del_item,
    "return type, a method's name": lambda m: setattr(m.max(m.ones(1, 2), 0), "count", 1),
    "return type, deleting a method": lambda m: delattr(m.max(m.ones(1, 2), 0), "index"),
    "return type, a field": lambda m: setattr(m.max(m.ones(1, 2), 0), "values", 1),
    "return type, missing": lambda m: m.max(m.ones(1, 2), 0).foo,
}


def _outcome(m, call):
    try:
        return "ok", repr(call(m))
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return type(error).__name__, str(error)


@pytest.mark.parametrize("name", list(CALLS))
def test_python_errors_name_the_c_type(name):
    assert _outcome(engine, CALLS[name]) == _outcome(torch, CALLS[name])
