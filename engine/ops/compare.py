"""Comparisons and logical/bitwise operations: their results have no gradient.
"""
import builtins

import numpy as np

from ..fidelity import dtypes
from ..fidelity.dtypes import scalar_type_name
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from .common import tensor_inputs
from .common import number_parameters
from .common import (NUMBER_OR_TENSOR_SELF, NUMBER_SELF_WITHOUT_OUT, TENSOR_OR_NUMBER_OTHER,
                     overloads,
                     PYTHON_AND_NUMPY_NUMBERS, elementwise, elementwise_shape,
                     invalid_arguments_error, not_implemented_for, operands_broadcast_shape,
                     out_holds_result_type, out_of_inputs_dtype, promote_operands,
                     require_tensors, takes_out, wrap_elementwise, zero_gradient_like)
from .arithmetic import add, mul, sub
from .unary import abs, isfinite

__all__ = ["allclose", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "eq", "equal",
           "ge", "greater", "greater_equal", "gt", "isclose", "le", "less", "less_equal",
           "logical_and", "logical_not", "logical_or", "logical_xor", "lt", "ne", "not_equal"]

# ====================================================================== comparisons
_TENSOR_OR_NUMBER = (Tensor, *PYTHON_AND_NUMPY_NUMBERS)


def _compare(ufunc, name):
    def compare(input, other):
        if not (isinstance(input, Tensor) and isinstance(other, _TENSOR_OR_NUMBER)):
            raise invalid_arguments_error(name, input, other, first_is_self=True,
                                          printed=TENSOR_OR_NUMBER_OTHER)
        a, b, _ = promote_operands(input, other, name)
        return elementwise(ufunc, a, b)

    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = f"out = input {_COMPARE_SYMBOLS[name]} other, elementwise, as bool"
    return takes_out(compare, differentiable=False)


_COMPARE_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
                    "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
                    "greater_equal": ">="}
eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")
# the long names are the same operations, only named differently in error messages
not_equal = _compare(np.not_equal, "not_equal")
less = _compare(np.less, "less")
less_equal = _compare(np.less_equal, "less_equal")
greater = _compare(np.greater, "greater")
greater_equal = _compare(np.greater_equal, "greater_equal")


class _ComparedInPlace(Node):
    """x.eq_(y) & co: the comparison written into x, a step: flat, d/dx = 0 (and d/dy = 0)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    def backward(self, grad):
        zeros = zero_gradient_like(grad)
        return (zeros, zeros) if len(self.next_functions) == 2 else zeros


# torch's nodes: ...Backward0 for a number, ...Backward1 for a tensor
_IN_PLACE_NODES = {(op, n): type(f"{op.capitalize()}Backward{n}", (_ComparedInPlace,), {})
                   for op in ("eq", "ne", "lt", "le", "gt", "ge") for n in (0, 1)}
_SHORT_NAMES = {"not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
                "greater_equal": "ge"}
COMPARISONS = frozenset(("eq", "ne", "lt", "le", "gt", "ge", *_SHORT_NAMES))


def compared_in_place(name, input, other, result):
    """The bool ``result`` of x.<name>_(other) in x's floating dtype, recorded as torch records
    it, so that x's history is cut there (its gradient through the comparison is 0)."""
    if input._data.dtype.kind != "f":
        return result
    converted = wrap(result._data.astype(input._data.dtype))
    node = _IN_PLACE_NODES[(_SHORT_NAMES.get(name, name), int(isinstance(other, Tensor)))]
    return record(node, converted, (input, other) if isinstance(other, Tensor) else (input,))


def _logical(ufunc, name):
    def logical(input, other):
        require_tensors(name, input, other)
        a, b = input._data.astype(bool, copy=False), other._data.astype(bool, copy=False)
        return elementwise(ufunc, a, b)

    logical.__name__ = logical.__qualname__ = name
    logical.__doc__ = f"out = {name.split('_')[1]} of the truth values of input and other"
    return takes_out(logical, differentiable=False)


logical_and = _logical(np.logical_and, "logical_and")
logical_or = _logical(np.logical_or, "logical_or")
logical_xor = _logical(np.logical_xor, "logical_xor")


@takes_out(differentiable=False)
def logical_not(input):
    """out = not input, as bool"""
    return wrap_elementwise(np.logical_not(input._data), input._data)


def _bitwise(ufunc, name, symbol):
    def bitwise(input, other):
        a, b, common = promote_operands(input, other, name)
        if common.kind == "f":
            operands_broadcast_shape(a, b)  # (torch's shapes error comes first)
            raise not_implemented_for(f"{name}_cpu", common)
        return elementwise(ufunc, a, b)

    bitwise.__name__ = bitwise.__qualname__ = name
    bitwise.__doc__ = f"out = input {symbol} other, bit by bit (logical for bool)"
    return overloads(*NUMBER_OR_TENSOR_SELF)(
        takes_out(bitwise, differentiable=False, before=out_holds_result_type,
                  resized_first=elementwise_shape,
                  number_input_overloads=NUMBER_SELF_WITHOUT_OUT))


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and", "&")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or", "|")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor", "^")


@takes_out(differentiable=False, before=out_of_inputs_dtype, resized_first=elementwise_shape)
def bitwise_not(input):
    """out = ~input, bit by bit (logical not for bool)"""
    data = input._data
    if data.dtype.kind == "f":
        raise not_implemented_for("bitwise_not_cpu", data.dtype)
    return wrap_elementwise(np.invert(data), data)


def invert_operator(input):
    """``~input``: torch's operator says TypeError where bitwise_not says NotImplementedError."""
    if input._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(input)


@number_parameters("isclose", {"other": "Tensor", "rtol": "float", "atol": "float",
                               "equal_nan": "bool"})
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """input == other, or |input - other| <= atol + rtol * |other|, elementwise"""
    require_tensors("isclose", input, other)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{scalar_type_name[input.dtype]} did not match "
                           f"{scalar_type_name[other.dtype]}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    # torch's steps, in the tensors' own dtype (integers and bools: the default float); each
    # `close |= ...` is in place in torch, and counts in the result's version
    close, steps = eq(input, other), 0
    if equal_nan and input.is_floating_point():
        close, steps = logical_or(close, logical_and(ne(input, input), ne(other, other))), 1
    if rtol == 0 and atol == 0:  # torch's shortcut: closeness is then equality
        return _written(close, steps)
    if input._data.dtype.kind in "biu":
        # torch takes the difference of integers in the default float dtype: uint8's 98 - 99
        # would wrap to 255, int8's -128 - 127 to 1 (so int64s beyond 2**24 round in float32)
        other = other.to(dtypes.get_default_dtype())
        if input._data.dtype.kind == "b":
            input = input.to(dtypes.get_default_dtype())
    allowed = add(abs(mul(other, rtol)), atol)
    actual = abs(sub(input, other))
    return _written(logical_or(close, logical_and(isfinite(actual), le(actual, allowed))),
                    steps + 1)


def _written(result, times):
    """``result`` with the version of a tensor written to in place ``times`` times."""
    for _ in range(times):
        result._bump_version()
    return result


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element is close (see isclose)"""
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input, other):
    """True when both tensors have the same shape and the same values"""
    require_tensors("equal", input, other)
    if input._data.shape != other._data.shape:
        return False
    a, b, _ = promote_operands(input, other, "equal")
    return builtins.bool(np.array_equal(a, b))


# torch.logical_not(None): torch's TypeError
tensor_inputs(globals(), ["bitwise_not", "logical_not"])
