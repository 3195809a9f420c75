"""numpy arrays as operands of a tensor's operators, against torch (issue 25).

torch's binary operators turn a TypeError into NotImplemented, so ``tensor + array`` is
numpy's own ``+`` (numpy's dtype rules), whose result comes back through
``Tensor.__array_wrap__`` as a tensor (bools as uint8, with numpy 2's DeprecationWarning);
``tensor += array`` falls back to ``tensor = tensor + array`` (a new tensor, the old one
unchanged); ``tensor == array`` is elementwise, ``tensor != array`` Python's identity test.
"""
import warnings

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

OPERATORS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
    "**": lambda a, b: a ** b, "&": lambda a, b: a & b, "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b, "@": lambda a, b: a @ b, "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
}


def _in_place(symbol):
    def run(a, b):
        before = a
        exec(f"a {symbol}= b", {}, scope := {"a": a, "b": b})
        return scope["a"], before
    return run


IN_PLACE = {f"{s}=": _in_place(s) for s in ("+", "-", "*", "/", "//", "%", "**", "&", "|",
                                             "^")}
ARRAYS = {
    "int64": lambda: np.array([1, 2]),
    "float32": lambda: np.array([1.5, -2.5], dtype=np.float32),
    "bool": lambda: np.array([True, False]),
    "0-d": lambda: np.array(3),
    "2-d": lambda: np.ones((3, 2)),
}


def _both(call):
    """call(module) under torch and the engine: the result (or error) and the warnings."""
    seen = []
    for m in (torch, engine):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = call(m)
            except Exception as error:  # noqa: BLE001 - compared with torch's
                result = error
        seen.append((result, [(w.category, str(w.message)) for w in caught]))
    (t_result, t_warnings), (e_result, e_warnings) = seen
    assert e_warnings == t_warnings
    if isinstance(t_result, Exception):
        assert type(e_result) is type(t_result), e_result
        assert str(e_result).splitlines()[0] == str(t_result).splitlines()[0]
    elif isinstance(t_result, tuple):
        for e, t in zip(e_result, t_result):
            parity.assert_same(e, t)
    else:
        parity.assert_same(e_result, t_result)


@pytest.mark.parametrize("array", list(ARRAYS))
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
@pytest.mark.parametrize("symbol", list(OPERATORS) + list(IN_PLACE))
def test_numpy_arrays_as_operands(symbol, dtype, array):
    operator = OPERATORS.get(symbol) or IN_PLACE[symbol]
    _both(lambda m: operator(m.ones(2, dtype=getattr(m, dtype)), ARRAYS[array]()))


def test_the_issues_in_place_add():
    _both(lambda m: _in_place("+")(m.ones(2, dtype=m.int64), np.array([1, 2])))


def test_a_tensor_that_requires_grad_is_refused():
    _both(lambda m: m.ones(2, requires_grad=True) + np.array([1.0, 2.0]))
