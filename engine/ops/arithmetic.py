"""Arithmetic: add, sub, mul, div, pow, ..., each forward with its node class right below it.
"""
import builtins
import math
import numbers

import numpy as np

from ..fidelity import calls, float32_math, messages, signatures
from ..fidelity.dtypes import from_numpy_dtype, result_type, scalar_type_name
from ..fidelity.messages import CPP_TYPE_NAMES, type_name
from ..fidelity.floating import cast, quietly
from ..fidelity.rounding import fma32, fma64
from ..fidelity.scalars import check_int_argument, checked_scalar
from ..fidelity.size import preserve_format
from ..core.forward import has_tangent, state as dual
from ..core.tangents import scaled_tangent, tangent_difference, tangent_sum
from ..core.grad_mode import mode as grad_mode
from ..core.grad_mode import no_grad
from ..core.node import Node, read_histories, record
from ..core.tensor import Tensor, wrap
from .creation import empty_like, full_like
from .common import histories_read_first
from .common import (NUMBER_OR_TENSOR_SELF, NUMBER_SELF_WITHOUT_OUT, TENSOR_OR_NUMBER_OTHER,
                     FLOAT16, PYTHON_AND_NUMPY_NUMBERS, PYTHON_NUMBERS, apply_ufunc,
                     broadcast_error, elementwise, float_operands, half_with_scalar,
                     invalid_arguments_error, is_bool, is_half_with_scalar, not_implemented_for,
                     number_argument, operand_type_error, operands_broadcast_shape, overloads,
                     out_holds_result_type,
                     promote_operands, refuse_saving_inference, histories_first, require_tensors,
                     scalar_value, takes_out, elementwise_shape,
                     two_numbers_allowed, hands_failures_to_vmap,
                     wrap_elementwise, write_out, zero_gradient_like)

__all__ = ["add", "addcdiv", "addcmul", "arctan2", "atan2", "clamp", "clamp_max", "clamp_min",
           "clip", "div", "divide", "floor_divide", "fmod", "lerp", "maximum", "minimum", "mul",
           "multiply", "pow", "remainder", "rsub", "sub", "subtract", "where", "true_divide"]

# ====================================================================== arithmetic
def _alpha(alpha, common):
    """``alpha`` checked and converted as torch's add/sub do."""
    if isinstance(alpha, builtins.bool) and common.kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, builtins.float) and common.kind != "f":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    return checked_scalar(alpha, common)


def _add_scaled(a, b, alpha, common, subtract=False, integer_alpha=False):
    """a + alpha * b (or a - alpha * b) in ``common``, as torch's kernels compute it.

    Floats round once, as torch's fused multiply-add does; integers wrap around.
    ``integer_alpha``: alpha was given as an integer (it matters for a zero's sign).
    """
    if common.kind != "f":
        with np.errstate(over="ignore"):
            return apply_ufunc(np.subtract if subtract else np.add, a, np.multiply(b, alpha))
    if subtract and not (integer_alpha and alpha == 0):
        # torch's sub is add with -alpha, negated as the number it was given: an integer 0
        # stays 0, so sub(-0.0, x, alpha=0) is -0.0 + 0.0 = 0.0; a float 0.0 turns -0.0
        alpha = -alpha
    operands_broadcast_shape(a, b)
    if common.char in "fd":
        fused = _fused(b, alpha, a, common) if common.char == "d" else np.asarray(
            quietly(fma32, b, alpha, a))  # (with inf, nan and signed zeros kept)
        return _scalar_loop_unfused(fused, a, b, alpha, common)
    # float16: torch's vector loop computes in float32 (the product and sum of float16
    # numbers are exact in float64: rounded once), its scalar loop (short rows, tails,
    # strided operands) rounds alpha * b to float16 first (2 * 40000 is inf there)
    def vector(a, b):
        return (np.asarray(b, np.float64) * np.float64(alpha) + np.asarray(a, np.float64))

    def scalar(a, b):
        product = (np.asarray(b, np.float32) * np.float32(alpha)).astype(np.float16)
        return np.asarray(a, np.float32) + product.astype(np.float32)

    return quietly(lambda: float32_math.evaluate_half(vector, scalar, np.asarray(a),
                                                      np.asarray(b)))


def _scalar_loop_unfused(fused, a, b, alpha, common):
    """``fused`` (a + alpha * b rounded once), but where torch rounds alpha * b first: with
    a number for b, its kernel runs its fused vector loop over blocks of two vectors (16
    float32, 8 float64) and leaves the rest to a loop its compiler compiles as one fused
    element, then steps of 16 bytes (4 float32, 2 float64) that multiply and add, then fused
    elements again (measured on torch 2.15, AVX2 and AVX-512 builds: the same at any
    alignment). For a row-major tensor a; other layouts keep the fused values. Its plain
    build (ATEN_CPU_CAPABILITY=default) rounds alpha * b first everywhere."""
    if not float32_math.torch_fuses():  # (torch's plain build never fuses)
        product = quietly(np.multiply, np.asarray(b, common), common.type(alpha))
        return np.asarray(quietly(np.add, a, product), common)
    if np.ndim(b) != 0 or np.ndim(a) == 0 or not a.flags.c_contiguous or \
            fused.shape != np.shape(a):
        return fused
    n, itemsize = fused.size, fused.itemsize
    start = n - n % (64 // itemsize) + 1
    step = 16 // itemsize
    end = start + builtins.max(0, n - start) // step * step
    if start >= end:
        return fused
    product = quietly(np.multiply, common.type(alpha), np.asarray(b, common))
    flat = np.array(fused, copy=True).reshape(-1)
    flat[start:end] = quietly(np.add, a.reshape(-1)[start:end], product)
    return flat.reshape(fused.shape)


NOT_GIVEN = object()  # a parameter torch only has in a deprecated overload
_warned_deprecated = []  # torch warns once per process for all its deprecated overloads


def scale_first(name, input, scale, operands, given):
    """torch's deprecated overloads that take the scale first, as old tutorials call them
    (``p.data.add_(-lr, p.grad)``, ``addcmul(x, value, t1, t2)``): the operands, once
    checked, with torch's warning (once per process). ``given``: the scale was also given by
    name (torch refuses that)."""
    method = calls.called_as_method()
    if isinstance(scale, Tensor) and scale._data.ndim == 0 and not scale._requires_grad:
        # (a 0-d tensor is a Number to torch's parser: x.add(torch.tensor(2.), 0.5))
        number = scale.item()
        operands = tuple(number if value is scale else value for value in operands)
        scale = number
    # torch.add takes 2 positional arguments and torch.addcmul 3 (a method one less); with
    # the scale also given by name, a method call names the keyword instead; the tensors
    # after the scale must be tensors (add's and sub's may be numbers) for the old overload
    tensors = operands[:-1]
    operands_fit = all(isinstance(value, Tensor) or name in ("add", "sub") and isinstance(
        value, PYTHON_AND_NUMPY_NUMBERS) for value in tensors)
    if not isinstance(scale, PYTHON_AND_NUMPY_NUMBERS) or (given and not method) or \
            not operands_fit:
        count = (2 if name in ("add", "sub") else 3) - (1 if method else 0)
        raise TypeError(f"{name}() takes {count} positional argument{'s' if count > 1 else ''} "
                        f"but {count + 1} were given")
    if given:
        keyword = "alpha" if name in ("add", "sub") else "value"
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"unrecognized keyword arguments: {keyword}")
    if not _warned_deprecated:
        _warned_deprecated.append(True)
        messages.warn_from_learner(messages.deprecated_overload(calls.called_name() or name,
                                                                method))
    return operands


def _out_holds_the_sum(out, input=None, other=None, scaled=NOT_GIVEN, *args, alpha=1,
                       name="add", **kwargs):
    """add's out= checked as torch's kernel builds its iterator: out's dtype must hold the
    result's before alpha is checked against it (add(bools, False, 0.5, out=bools), the
    deprecated overload, read and warned of first: 0.5 is the tensor, a float one)."""
    if scaled is not NOT_GIVEN:
        other, alpha = scale_first(name, input, other, (scaled, other), alpha != 1)
    if signatures.fits(alpha, "Number"):  # (else the parser's error comes first)
        out_holds_result_type(out, input, other)


def _out_holds_the_difference(out, input=None, other=None, scaled=NOT_GIVEN, *args,
                              **kwargs):
    """sub's out=, as add's, after sub's refusal of bools."""
    if scaled is not NOT_GIVEN or not (is_bool(input) or is_bool(other)):
        _out_holds_the_sum(out, input, other, scaled, *args, name="sub", **kwargs)


@two_numbers_allowed
@takes_out(resized_first=elementwise_shape, before=_out_holds_the_sum)
def add(input, other, scaled=NOT_GIVEN, *, alpha=1):
    """out = input + alpha * other"""
    if scaled is not NOT_GIVEN:  # add(x, alpha, other): deprecated
        other, alpha = scale_first("add", input, other, (scaled, other), alpha != 1)
    if not isinstance(other, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)):  # (parsed before alpha)
        promote_operands(input, other, "add")
    alpha = number_argument(alpha, "add", "alpha")
    a, b, common = promote_operands(input, other, "add")
    try:
        if alpha != 1 or alpha.__class__ is not int:  # not the default: check and scale
            result = wrap_elementwise(_add_scaled(a, b, _alpha(alpha, common), common), a, b)
        else:
            result = elementwise(np.add, a, b)
    except RuntimeError:
        histories_first(input, other)
        raise
    return record(AddBackward0, result, (input, other), alpha=alpha)


class AddBackward0(Node):
    """out = input + alpha * other:  d/d input = 1,  d/d other = alpha"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    alpha: float

    def backward(self, grad):
        return grad, grad if self.alpha == 1 else grad * self.alpha


@two_numbers_allowed
@takes_out(resized_first=elementwise_shape, before=_out_holds_the_difference)
def sub(input, other, scaled=NOT_GIVEN, *, alpha=1):
    """out = input - alpha * other"""
    if scaled is not NOT_GIVEN:  # sub(x, alpha, other): deprecated
        other, alpha = scale_first("sub", input, other, (scaled, other), alpha != 1)
    if not isinstance(other, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)):  # (parsed before alpha)
        promote_operands(input, other, "sub")
    alpha = number_argument(alpha, "sub", "alpha")
    for position, operand in enumerate((input, other), 1):
        if operand.__class__ is builtins.int:
            check_int_argument(operand)  # (torch parses its arguments before the bool check)
        elif not isinstance(operand, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)):
            raise operand_type_error("sub", operand, position, ("input", "other")[position - 1])
    if is_bool(input) or is_bool(other):  # torch refuses bool on either side
        raise NotImplementedError(messages.SUB_TWO_BOOLS if is_bool(input) and is_bool(other)
                                  else messages.SUB_A_BOOL)
    a, b, common = promote_operands(input, other, "sub")
    try:
        if alpha != 1 or alpha.__class__ is not int:  # not the default: check and scale
            scale = _alpha(alpha, common)
            if alpha.__class__ is builtins.int and 2 ** 63 <= alpha < 2 ** 64:
                # torch holds such an int unsigned and negates the int64 of its bits
                negated = 2 ** 64 - alpha if alpha > 2 ** 63 else -2 ** 63
                difference = _add_scaled(a, b, _alpha(negated, common), common,
                                         integer_alpha=True)
            else:
                difference = _add_scaled(a, b, scale, common, subtract=True,
                                         integer_alpha=isinstance(alpha, numbers.Integral))
            result = wrap_elementwise(difference, a, b)
        else:
            result = elementwise(np.subtract, a, b)
    except RuntimeError:
        histories_first(input, other)
        raise
    return record(SubBackward0, result, (input, other), alpha=alpha)


class SubBackward0(Node):
    """out = input - alpha * other:  d/d input = 1,  d/d other = -alpha"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    alpha: float

    def backward(self, grad):
        # -grad * alpha, in torch's order: grad * -alpha differs in a zero's sign for alpha=0
        return grad, -grad if self.alpha == 1 else -grad * self.alpha


class RsubBackward1(Node):
    """out = number - alpha * input:  d/d input = -alpha"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    alpha: float

    def backward(self, grad):
        return -grad if self.alpha == 1 else -grad * self.alpha  # (SubBackward0's order)


subtract = sub


_RSUB = ("(Tensor input, Tensor other, *, Number alpha = 1)",
         "(Tensor input, Number other, Number alpha = 1)")


def rsub(input, other=NOT_GIVEN, *more, alpha=1, **unknown):
    """out = other - alpha * input (``2 - x`` is x.__rsub__(2), that is rsub(x, 2))"""
    if more or unknown or other is NOT_GIVEN or not (
            isinstance(input, Tensor) and isinstance(other, (Tensor, *PYTHON_AND_NUMPY_NUMBERS))
            and (isinstance(alpha, PYTHON_AND_NUMPY_NUMBERS) or isinstance(alpha, Tensor)
                 and alpha._data.ndim == 0 and not alpha._requires_grad)):
        # (torch.rsub(2.0, x) is no 2.0 - x: the tensor comes first; alpha is positional only
        # after a number, torch.rsub(x, 2.0, 2))
        given = (input, *(() if other is NOT_GIVEN else (other,)), *more)
        default = alpha.__class__ is int and alpha == 1  # (a tensor alpha has no truth value)
        named = {**({} if default and "alpha" not in unknown else {"alpha": alpha}),
                 **unknown}
        if len(more) == 1 and signatures.Signature(_RSUB[1], False).parse(
                "rsub", given, named, False) is True:
            alpha = more[0]
            if isinstance(other, Tensor):  # (a 0-d tensor taken as the Number overload's)
                other = other.item()
        else:
            raise signatures.refuse("rsub", _RSUB, False, given, named, notes=True)
    with no_grad():
        result = sub(other, input, alpha=alpha)
    if not isinstance(other, Tensor):
        return record(RsubBackward1, result, (input,), alpha=alpha)
    return record(RsubBackward0, result, (input, other), alpha=alpha)


class RsubBackward0(Node):
    """out = other - alpha * input:  d/d input = -alpha,  d/d other = 1"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    alpha: float

    def backward(self, grad):
        return (-grad if self.alpha == 1 else -grad * self.alpha), grad  # (SubBackward0's)


@two_numbers_allowed
@takes_out
def mul(input, other):
    """out = input * other"""
    refuse_saving_inference((input, other), mul_saved(input, other))
    a, b, common = promote_operands(input, other, "mul")
    if common is FLOAT16 and is_half_with_scalar(common, other, single_elements=True):
        result = wrap_elementwise(half_with_scalar(np.multiply, a, other), a)
    else:
        try:
            result = elementwise(np.multiply, a, b)
        except RuntimeError:
            histories_first(input, other)
            raise
    return record(MulBackward0, result, (input, other),
                  saved=(kept_for(other, input), kept_for(input, other)))


class MulBackward0(Node):
    """out = input * other:  d/d input = other,  d/d other = input"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        input, other = self.saved_tensors  # each saved only if the other side needs it
        grad_other = None if input is None else grad * input  # (first, as in torch)
        grad_input = None if other is None else grad * other
        return grad_input, grad_other


# forward mode (core/forward.py): this formula of the tangent (marked here, not in the class,
# whose source lesson 09 quotes as it is)
MulBackward0.jvp = "element_wise"


def kept_for(needed_by, value):
    """``value`` when ``needed_by``'s gradient leads somewhere, else None: torch saves only
    what backward will read (so ``y = x * 2`` keeps 2, not x, and x may later change in
    place; a view made under no_grad requires grad yet leads nowhere: fuzz 5332113)."""
    if getattr(needed_by, "_requires_grad", False) and not _made_under_no_grad(needed_by) \
            or (dual.active and has_tangent(needed_by)):
        return value  # (forward mode reads it, at any level)
    return None


def _made_under_no_grad(tensor):
    """A view made under no_grad (or inference_mode) of a tensor that requires grad: it
    requires grad as its base does, but has no node, so its gradient leads nowhere (unless it
    was asked to require grad itself). Told by its attributes: reading its node could raise."""
    return tensor._base is not None and tensor._creation_meta in ("no_grad", "inference") \
        and tensor._grad_fn is None and not tensor._asked_for_grad


def mul_saved(input, other):
    """What mul saves, as ``record``'s ``saved=`` (fastpath.py's quicker ``x * y`` saves it too)."""
    return kept_for(other, input), kept_for(input, other)


multiply = mul


_TRUE_DIVISION = object()  # no rounding_mode given: torch's div.Tensor (DivBackward0)


_DIV_OVERLOADS = ("(Tensor input, Tensor other, *, Tensor out = None)",
                  "(Tensor input, Tensor other, *, str? rounding_mode, Tensor out = None)",
                  "(Tensor input, Number other, *, str? rounding_mode)")


def _div_out_positionals(out, input, other=NOT_GIVEN, *more, **kwargs):
    """torch.div(x, y, 'floor', out=z): torch's parser counts out= among the arguments, so
    the one overload that takes four names the positional count; with out= only its
    tensor overloads take the call (torch.div(x, 'a', out=z): the list of them)"""
    if more or other is not NOT_GIVEN and not isinstance(
            other, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)):
        named = {**kwargs, "out": out}
        raise signatures.refuse("div", _DIV_OVERLOADS, False, (input, other, *more), named)


@two_numbers_allowed
@takes_out(resized_first=elementwise_shape, parsed=_div_out_positionals)
def div(input, other, *more, rounding_mode=_TRUE_DIVISION):
    """out = input / other (true division: integers divide to floating point)"""
    if more or not (rounding_mode is _TRUE_DIVISION or rounding_mode is None or
                    isinstance(rounding_mode, str)) or (
            rounding_mode is not _TRUE_DIVISION and
            not isinstance(other, (Tensor, *PYTHON_AND_NUMPY_NUMBERS))):
        # (x.div(y, 'floor'): rounding_mode is keyword-only in each of torch's overloads; a
        # rounding_mode that is no str fits none of them)
        method = calls.called_as_method()
        given = (other, *more) if method else (input, other, *more)
        named = {} if rounding_mode is _TRUE_DIVISION else {"rounding_mode": rounding_mode}
        raise signatures.refuse("div", _DIV_OVERLOADS, method, given, named)
    if rounding_mode is None:  # torch's div.Tensor_mode overload, recorded as DivBackward2
        refuse_saving_inference((input, other), div_saved(input, other))
        with no_grad():
            result = div(input, other)
        return record(DivBackward2, result, (input, other), saved=div_saved(input, other),
                      rounding_mode=None)
    if rounding_mode is _TRUE_DIVISION:
        refuse_saving_inference((input, other), div_saved(input, other))
        a, b, common = promote_operands(input, other, "div")
        a, b, common = float_operands(input, other, a, b, common)
        if is_half_with_scalar(common, other, single_elements=True):
            result = wrap_elementwise(half_with_scalar(np.true_divide, a, other), a)
        else:
            try:
                result = elementwise(np.true_divide, a, b)
            except RuntimeError:
                histories_first(input, other)
                raise
        return record(DivBackward0, result, (input, other), saved=div_saved(input, other))
    if rounding_mode == "floor":
        result = _floor_divide_values(input, other)
    elif rounding_mode == "trunc":
        result = _trunc_div(input, other)
    else:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    return record(DivBackward2, result, (input, other), rounding_mode=rounding_mode)


def div_saved(input, other):
    """What true division saves (fastpath.py's quicker ``x / y`` saves it too)."""
    return kept_for(other, input), other


def _trunc_div(input, other):
    a, b, common = promote_operands(input, other, "div")
    _check_integer_divisor(a, b, common, "div_trunc_cpu")
    if common.kind == "f":
        if is_half_with_scalar(common, other):
            return wrap_elementwise(half_with_scalar(_trunc_divide, a, other), a)
        return wrap_elementwise(_trunc_divide(a, b), a, b)
    # integers: C division truncates toward zero (numpy's // floors)
    with np.errstate(all="ignore"):
        quotient = apply_ufunc(np.floor_divide, a, b)
        inexact = (quotient * b != a) & ((a < 0) != (b < 0))
    return wrap_elementwise(np.where(inexact, quotient + 1, quotient).astype(common), a, b)


class DivBackward2(Node):
    """out = input / other rounded to a whole number:  a step function, d/d input = d/d other = 0
    (with rounding_mode=None given, true division's gradients: see DivBackward0)"""

    _saved_names = ("self", "other")
    rounding_mode: str | None

    def backward(self, grad):
        if self.rounding_mode is None:
            return DivBackward0.backward(self, grad)
        return zero_gradient_like(grad), zero_gradient_like(grad)

    def jvp(self, tangent_input, tangent_other):
        """Forward mode, torch's formula for this overload: t_input / other - t_other *
        (input / other) / other (zero with a rounding mode)."""
        (out,), (input, other) = self.results, self.primals
        if self.rounding_mode is not None:
            return out.new_zeros(out.shape)
        return tangent_difference(None if tangent_input is None else tangent_input / other,
                           None if tangent_other is None else
                           tangent_other * (input / other) / other)


class NotImplementedBackward(Node):
    """An op torch has no derivative for (floor_divide ...): backward through it fails."""

    _internal = ("op",)
    op: str

    def name(self):
        return "torch::autograd::NotImplemented"  # torch's C++ name for this node

    def backward(self, grad):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")

    def jvp(self, *tangents):
        """Forward mode: torch's error, but for bernoulli's (a sample does not move with p:
        a zero tangent)."""
        if self.op == "bernoulli":
            return full_like(next(t for t in tangents if t is not None), 0.0)
        raise NotImplementedError(messages.no_forward_ad(type(self), self.op))


# torch's class is called NotImplemented (print(y.grad_fn) shows <NotImplemented object ...>):
# the Python name here stays NotImplementedBackward (not hiding Python's NotImplemented), and
# __name__ is torch's, for printing
NotImplementedBackward.__name__ = NotImplementedBackward.__qualname__ = "NotImplemented"


divide = div


_TRUE_DIVIDE = ("(Tensor input, Tensor other, *, Tensor out = None)",
                "(Tensor input, Number other)")


def true_divide(input, other, *, out=None):
    """div without a rounding mode (torch's parser takes a number for either tensor here)"""
    if not (isinstance(input, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)) and
            isinstance(other, (Tensor, *PYTHON_AND_NUMPY_NUMBERS))):
        raise invalid_arguments_error("true_divide", input, other, first_is_self=True,
                                      printed=_TRUE_DIVIDE)
    return div(input, other) if out is None else div(input, other, out=out)


class DivBackward0(Node):
    """out = input / other:  d/d input = 1 / other,  d/d other = -(input / other) / other"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        input, other = self.saved_tensors
        # torch's order, -grad * ((input / other) / other): x / x then gives exactly 0; its
        # right operand made first, as torch's C++ compiler evaluates it (the nodes' order)
        if input is None:
            grad_other = None
        else:
            quotient = (input / other) / other
            grad_other = -grad * quotient
        return grad / other, grad_other

    def jvp(self, tangent_input, tangent_other):
        """Forward mode, torch's formula: (t_input - t_other * out) / other."""
        (out,), (_, other) = self.results, self.primals
        return tangent_difference(tangent_input, None if tangent_other is None else
                                  tangent_other * out) / other


def _trunc_divide(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.trunc(apply_ufunc(np.true_divide, a, b))


def _check_integer_divisor(a, b, common, kernel):
    """bool has no division kernel; integer division by zero raises (floats give inf/nan),
    unless the result is empty (torch's kernel then never divides)."""
    shape = operands_broadcast_shape(a, b)  # torch checks the shapes first
    if common.kind == "b":
        raise not_implemented_for(kernel, common)
    if common.kind in "iu" and math.prod(shape) and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


def _floor_divide_values(input, other):
    a, b, common = promote_operands(input, other, "floor_divide")
    _check_integer_divisor(a, b, common, "div_floor_cpu")
    if is_half_with_scalar(common, other):
        return wrap_elementwise(half_with_scalar(np.floor_divide, a, other), a)
    return elementwise(np.floor_divide, a, b)


@takes_out(resized_first=elementwise_shape)
def floor_divide(input, other):
    """out = floor(input / other)"""
    result = _floor_divide_values(input, other)
    # torch's node links only the operands that require grad (ones(2) // t: one edge)
    return record(NotImplementedBackward, result,
                  tuple(v for v in (input, other) if isinstance(v, Tensor) and (
                      v.requires_grad or dual.active and has_tangent(v))),
                  op="floor_divide")


@overloads(*NUMBER_OR_TENSOR_SELF)
@takes_out(resized_first=elementwise_shape, number_input_overloads=NUMBER_SELF_WITHOUT_OUT)
def remainder(input, other):
    """out = input - floor(input / other) * other (the sign follows the divisor, like Python)"""
    a, b, common = promote_operands(input, other, "remainder")
    _check_integer_divisor(a, b, common, "remainder_cpu")
    with np.errstate(divide="ignore", invalid="ignore"):
        result = apply_ufunc(np.remainder, a, b)
        if common.kind == "f":
            # torch computes fmod and then adds the divisor, so a zero result keeps the
            # sign of input (numpy gives it the sign of other)
            result = np.where(result == 0, np.copysign(result, a), result)
    result = wrap_elementwise(result, a, b)
    if not isinstance(input, Tensor):  # number % tensor: torch has no formula
        return record(NotImplementedBackward, result, (other,), op="remainder")
    if not isinstance(other, Tensor):
        return record(RemainderBackward0, result, (input,))
    # (the values are read only for other's gradient)
    return record(RemainderBackward1, result, (input, other),
                  saved=(kept_for(other, input), kept_for(other, other)))


class RemainderBackward0(Node):
    """out = input - floor(input / number) * number:  d/d input = 1"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    def backward(self, grad):
        return grad


class RemainderBackward1(Node):
    """out = input - floor(input / other) * other:  d/d input = 1,
    d/d other = -floor(input / other)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self", "other")
    rounding_mode = "floor"  # fmod's quotient truncates instead (FmodBackward1)

    def backward(self, grad):
        input, other = self.saved_tensors
        if other is None:  # (other needs no gradient)
            return grad, None
        return grad, -grad * div(input, other, rounding_mode=self.rounding_mode)


@overloads(*TENSOR_OR_NUMBER_OTHER)
@takes_out
def fmod(input, other):
    """out = input - trunc(input / other) * other (the sign follows the dividend, like C)"""
    if not isinstance(input, Tensor):
        raise invalid_arguments_error("fmod", input, other, first_is_self=True)
    a, b, common = promote_operands(input, other, "fmod")
    _check_integer_divisor(a, b, common, "fmod_cpu")
    result = elementwise(np.fmod, a, b)
    if not isinstance(other, Tensor):
        return record(FmodBackward0, result, (input,))
    return record(FmodBackward1, result, (input, other),
                  saved=(kept_for(other, input), kept_for(other, other)))


class FmodBackward0(RemainderBackward0):
    """out = input - trunc(input / number) * number:  d/d input = 1"""


class FmodBackward1(RemainderBackward1):
    """out = input - trunc(input / other) * other:  d/d input = 1,
    d/d other = -trunc(input / other)"""

    rounding_mode = "trunc"


_POW_OVERLOADS = ("(Tensor input, Tensor exponent, *, Tensor out = None)",
                  "(Number self, Tensor exponent, *, Tensor out = None)",
                  "(Tensor input, Number exponent, *, Tensor out = None)")


@takes_out(resized_first=elementwise_shape)
def pow(input, exponent):  # noqa: A001 - torch.pow
    """out = input ** exponent"""
    if not (isinstance(input, Tensor) and isinstance(exponent, (Tensor,
                                                                 *PYTHON_AND_NUMPY_NUMBERS))
            or isinstance(input, PYTHON_AND_NUMPY_NUMBERS) and isinstance(exponent, Tensor)):
        # (a str, None ...; two numbers: Python's ** is for numbers)
        raise invalid_arguments_error("pow", input, exponent, first_is_self=True,
                                      printed=_POW_OVERLOADS)
    refuse_saving_inference((input, exponent), (input, exponent))
    if not isinstance(exponent, Tensor):
        result = _pow_scalar_exponent(input, exponent)
        return record(PowBackward0, result, (input,), saved=(input,),
                      exponent=scalar_value(exponent))
    a, b, common = promote_operands(input, exponent, "pow")
    if not isinstance(input, Tensor):
        # number ** tensor: torch writes into a new row-major tensor, and 1 ** anything
        # is 1 (even 1 ** nan; but True is not 1 here)
        if a == 1 and not is_bool(scalar_value(input)):
            result = wrap(np.ones(np.shape(b), common))
        else:
            result = _power(a, b, common, row_major_result=True)._data
            result = wrap(result if result.flags.c_contiguous else result.copy())
        return record(PowBackward2, result, (exponent,), saved=(exponent,), saved_output=True,
                      self=scalar_value(input))
    try:
        result = _power(a, b, common)
    except RuntimeError:
        histories_first(input, exponent)
        raise
    return record(PowBackward1, result, (input, exponent), saved=(input, exponent),
                  saved_output=True)


class PowBackward0(Node):
    """out = input ** exponent (a number):  d/d input = exponent * input ** (exponent - 1)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self",)
    exponent: float

    def backward(self, grad):
        (input,) = self.saved_tensors
        if self.exponent == 0:
            return zero_gradient_like(grad)  # x ** 0 is the constant 1
        return grad * mul_scalar(input ** (self.exponent - 1), self.exponent)


def mul_scalar(input, number):
    """input * number as torch's own gradient formulas write it (at::mul with a Scalar):
    recorded as MulBackward1, where ``x * 3`` in Python records MulBackward0."""
    with no_grad():
        result = mul(input, number)
    return record(MulBackward1, result, (input,), other=number)


class MulBackward1(Node):
    """out = input * other (a number):  d/d input = other"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    other: float

    def backward(self, grad):
        return mul_scalar(grad, self.other)


def add_scalar(input, number):
    """input + number as torch's C++ code writes it: recorded as AddBackward1."""
    with no_grad():
        result = add(input, number)
    return record(AddBackward1, result, (input,))


class AddBackward1(Node):
    """out = input + a number:  d/d input = 1"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    def backward(self, grad):
        return grad


def sub_scalar(input, number):
    """input - number as torch's C++ code writes it: recorded as SubBackward1."""
    with no_grad():
        result = sub(input, number)
    return record(SubBackward1, result, (input,))


class SubBackward1(Node):
    """out = input - a number:  d/d input = 1"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    def backward(self, grad):
        return grad


def number_minus(number, input):
    """number - input as torch's C++ code writes it (ATen's operator-: a tensor like input
    filled with the number, then sub_): SubBackward0, its first operand no gradient's."""
    return empty_like(input, memory_format=preserve_format).fill_(number).sub_(input)


def div_scalar(input, number):
    """input / number as torch's C++ code writes it: recorded as DivBackward1."""
    with no_grad():
        result = div(input, number)
    return record(DivBackward1, result, (input,), other=number)


class DivBackward1(Node):
    """out = input / other (a number):  d/d input = 1 / other"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    other: float

    def backward(self, grad):
        return div_scalar(grad, self.other)


class PowBackward1(Node):
    """out = input ** exponent:  d/d input = exponent * input ** (exponent - 1),
    d/d exponent = out * ln(input)  (taken as 0 where input is 0 and exponent >= 0)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self", "exponent", "result")

    def backward(self, grad):
        input, exponent, result = self.saved_tensors
        # where exponent is 0 the result is the constant 1 (even for 0 ** 0)
        # (torch's order: grad * (result * ln(input)), rounded as torch rounds it; the
        # exponent's first, as torch's generated node: the nodes' order under create_graph
        # decides how a higher derivative adds up)
        grad_exponent = grad * where((input == 0) & (exponent >= 0), 0.0, result * input.log())
        # where exponent is 0 the result is the constant 1 (even for 0 ** 0)
        return (where(exponent == 0, 0.0, grad * (exponent * input ** (exponent - 1))),
                grad_exponent)


class PowBackward2(Node):
    """out = number ** exponent:  d/d exponent = out * ln(number)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("exponent", "result")
    self: float

    def backward(self, grad):
        exponent, result = self.saved_tensors
        if self.self == 0:
            # 0 ** exponent is 0 for exponent > 0 and 1 at 0: torch takes the derivative as 0
            # there; for exponent < 0 it is out * ln 0 = inf * -inf
            return grad * where(exponent >= 0, 0.0, mul_scalar(result, -math.inf))
        # (torch's order: out * ln first; C's log of a negative number is nan)
        return grad * mul_scalar(result, math.log(self.self) if self.self > 0 else math.nan)


def _power(a, b, common, row_major_result=False):
    """a ** b for two operands in the common dtype, as a tensor (``row_major_result``: as
    torch computes number ** tensor, into a row-major tensor)."""
    shape = operands_broadcast_shape(a, b)  # torch checks the shapes first
    if common.kind == "b":
        raise not_implemented_for("pow", common)
    if common.kind in "iu":
        return wrap_elementwise(_integer_power(*[np.broadcast_to(x, shape) for x in (a, b)]), a, b)
    if common == np.float32:  # torch's last bits, which depend on each element's place
        return elementwise(lambda x, y: float32_math.pow(x, y, row_major_result), a, b)
    return elementwise(_c_power, a, b)


def _c_power(x, y):
    """np.power as C's pow of each element, which torch's tensor ** tensor calls: numpy
    turns an exponent of 0.5 that it steps through with stride 0 (0-d, expanded, broadcast)
    into sqrt, whose -0.0 and -inf differ (pow(-inf, 0.5) is inf, sqrt(-inf) nan), so such
    an exponent is written out in full."""
    y = np.asarray(y)
    shape = np.broadcast_shapes(np.shape(x), y.shape)
    if y.shape == shape and y.ndim and 0 not in y.strides:
        return np.power(x, y)
    written = np.broadcast_to(y, shape or (1,)).copy()  # (real strides, even for one element)
    return np.power(x, written).reshape(shape)


def _integer_power(base, exponent):
    """base ** exponent in integers (wrapping); a negative exponent gives 1, -1 or 0 as in C."""
    negative = exponent < 0
    if not negative.any():
        return np.power(base, exponent)
    result = np.power(base, np.where(negative, 0, exponent))
    sign = np.where(exponent % 2 == 0, 1, -1)
    small = np.where(base == 1, 1, np.where(base == -1, sign, 0))
    return np.where(negative, small, result).astype(result.dtype)


_INT64 = np.dtype(np.int64)


def _pow_scalar_exponent(input, exponent):
    """tensor ** number: torch's special cases make 2, 3, 0.5, -1 ... exact."""
    exponent = scalar_value(exponent)
    if not isinstance(exponent, PYTHON_NUMBERS):
        raise operand_type_error("pow", exponent, 2, "exponent")
    data = input._data
    if exponent.__class__ is builtins.int:
        check_int_argument(exponent)
    if data.dtype.kind in "biu" and not isinstance(exponent, builtins.float) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if exponent.__class__ is builtins.int and data.dtype.kind in "biu":
        checked_scalar(exponent, _INT64)  # an integer tensor's kernel reads it as an int64
    common = result_type(input, exponent).numpy_dtype
    if exponent == 0:
        return wrap_elementwise(np.ones_like(data, common), data)
    if exponent == 1:
        return wrap_elementwise(data.astype(common), data)
    x = data.astype(common, copy=False)
    with np.errstate(all="ignore"):
        if common.kind in "iu" or common is FLOAT16:
            # integers and float16 convert the exponent (range-checked); float16 has no
            # shortcuts in torch
            return wrap_elementwise(np.power(x, checked_scalar(exponent, common)), data)
        special = _POW_SHORTCUTS.get(exponent)
        if special is not None:
            return wrap_elementwise(special(x), data)
        if common == np.float32:
            return wrap_elementwise(float32_math.pow_scalar(x, exponent), data)
        return wrap_elementwise(np.power(x, common.type(exponent)), data)


_POW_SHORTCUTS = {
    2: lambda x: x * x,
    3: lambda x: x * x * x,
    -2: lambda x: 1 / (x * x),
    0.5: np.sqrt,
    -0.5: lambda x: 1 / np.sqrt(x),
    -1: lambda x: 1 / x,
}


@takes_out
def maximum(input, other):
    """out = the larger of input and other, elementwise (nan wins)"""
    require_tensors("maximum", input, other)
    refuse_saving_inference((input, other), (input, other))
    a, b, _ = promote_operands(input, other, "maximum")
    try:
        result = elementwise(_maximum_keeping_ties, a, b)
    except RuntimeError:
        histories_first(input, other)
        raise
    return record(MaximumBackward0, result, (input, other), saved=(input, other))


def _maximum_keeping_ties(a, b):
    """np.maximum, but a tie keeps a, as torch's kernel: maximum(0.0, -0.0) is 0.0, and
    maximum(-0.0, 0.0) is -0.0 (numpy's vector loops pick either zero)."""
    result = np.maximum(a, b)
    if result.dtype.kind == "f":
        return np.where(a == b, a, result)
    return result


def _minimum_keeping_ties(a, b):
    """np.minimum, but a tie keeps a, as torch's kernel (see _maximum_keeping_ties)."""
    result = np.minimum(a, b)
    if result.dtype.kind == "f":
        return np.where(a == b, a, result)
    return result


class MaximumBackward0(Node):
    """out = max(a, b):  d/da = 1 where a > b,  d/db = 1 where b > a;  a tie splits it in half"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        return _larger_gets_it(grad, *self.saved_tensors)

    def jvp(self, tangent_a, tangent_b):
        """Forward mode, as torch's: the winner's tangent, the mean of both on a tie (zero where
        the winner has none, half of the other's on a tie)."""
        a, b = self.saved_tensors
        wins = where(a > b, 0.0 if tangent_a is None else tangent_a,
                     0.0 if tangent_b is None else tangent_b)
        tie = mul_scalar(tangent_b if tangent_a is None else tangent_a if tangent_b is None
                         else tangent_a + tangent_b, 0.5)
        return where(a == b, tie, wins)


def _larger_gets_it(grad, a, b):
    """max(a, b)'s gradients: to the larger, half each on a tie, all to both where one is nan."""
    shared = where(a == b, grad / 2, grad)
    grad_b = where(a > b, 0.0, shared)  # (b's first, as torch's node)
    return where(a < b, 0.0, shared), grad_b


@takes_out
def minimum(input, other):
    """out = the smaller of input and other, elementwise (nan wins)"""
    require_tensors("minimum", input, other)
    refuse_saving_inference((input, other), (input, other))
    a, b, _ = promote_operands(input, other, "minimum")
    try:
        result = elementwise(_minimum_keeping_ties, a, b)
    except RuntimeError:
        histories_first(input, other)
        raise
    return record(MinimumBackward0, result, (input, other), saved=(input, other))


class MinimumBackward0(Node):
    """out = min(a, b):  d/da = 1 where a < b,  d/db = 1 where b < a;  a tie splits it in half"""

    _saved_names = ("self", "other")

    def backward(self, grad):
        return _smaller_gets_it(grad, *self.saved_tensors)

    def jvp(self, tangent_a, tangent_b):
        """Forward mode, as torch's: the winner's tangent, the mean of both on a tie (zero where
        the winner has none, half of the other's on a tie)."""
        a, b = self.saved_tensors
        wins = where(a < b, 0.0 if tangent_a is None else tangent_a,
                     0.0 if tangent_b is None else tangent_b)
        tie = mul_scalar(tangent_b if tangent_a is None else tangent_a if tangent_b is None
                         else tangent_a + tangent_b, 0.5)
        return where(a == b, tie, wins)


def _smaller_gets_it(grad, a, b):
    """min(a, b)'s gradients: to the smaller, half each on a tie, all to both where one is nan."""
    shared = where(a == b, grad / 2, grad)
    grad_b = where(a < b, 0.0, shared)  # (b's first, as torch's node)
    return where(a > b, 0.0, shared), grad_b


@takes_out
def atan2(input, other):
    """out = angle of the point (other, input)"""
    require_tensors("atan2", input, other)
    refuse_saving_inference((input, other), (input, other))
    a, b, common = promote_operands(input, other, "atan2")
    a, b, _ = float_operands(input, other, a, b, common)
    try:
        if common.char == "f":  # (torch's float32 kernel: SLEEF's and the C library's)
            operands_broadcast_shape(a, b)
            result = wrap_elementwise(float32_math.atan2(a, b), a, b)
        else:
            result = elementwise(np.arctan2, a, b)
    except RuntimeError:
        histories_first(input, other)
        raise
    return record(Atan2Backward0, result, (input, other), saved=(input, other))


arctan2 = atan2  # (torch's alias)


class Atan2Backward0(Node):
    """out = atan2(y, x):  d/dy = x / (x**2 + y**2),  d/dx = -y / (x**2 + y**2)
    (0 where x**2 + y**2 is 0, as torch 2.15)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self", "other")

    def backward(self, grad):
        y, x = self.saved_tensors
        # torch's order: one reciprocal, then grad * x * it
        squares = y * y + x * x
        recip = where(squares == 0, 0.0, squares.reciprocal())
        return grad * x * recip, grad * -y * recip


_WHERE = ("(Tensor condition)",
          "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
          "(Tensor condition, Number self, Tensor other)",
          "(Tensor condition, Tensor input, Number other)",
          "(Tensor condition, Number self, Number other)")
_WHERE_METHOD = ("(Tensor condition, Tensor other)", "(Tensor condition, Number other)")


def where(condition, input=NOT_GIVEN, other=NOT_GIVEN, *, out=None):
    """out = input where condition is True, else other"""
    if input is None or other is None:  # (given as None: no overload of torch's takes it)
        given = tuple(value for value in (condition, input, other) if value is not NOT_GIVEN)
        raise invalid_arguments_error("where", *given, printed=_WHERE)
    input, other = (None if value is NOT_GIVEN else value for value in (input, other))
    if out is None:
        return _where(condition, input, other)
    # torch's order with out=: only tensors (its out overload), the autograd check (of input
    # and other: the condition is not differentiated), out's dtype, then the condition's
    for position, (name, value) in enumerate((("input", input), ("other", other)), 2):
        if value is not None and not isinstance(value, Tensor):
            raise operand_type_error("where", value, position, name)
    if not isinstance(out, Tensor):
        raise TypeError(f"where(): argument 'out' must be Tensor, not {type_name(out)}")
    if input is None or other is None:  # (torch's list of overloads)
        given = tuple(value for value in (condition, input, other) if value is not None)
        raise invalid_arguments_error("where", *given, keywords={"out": out})
    if grad_mode.grad_enabled and builtins.any(t._requires_grad for t in (input, other, out)):
        raise RuntimeError("where(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    common = result_type(input, other)
    if out.dtype is not common:
        raise RuntimeError(f"Expected out type to be {scalar_type_name[common]} but got "
                           f"{scalar_type_name[out.dtype]}")
    return write_out(_where(condition, input, other), out)


def _where(condition, input=None, other=None):
    given = tuple(value for value in (condition, input, other) if value is not None)
    if not isinstance(condition, Tensor) or len(given) == 2 or not builtins.all(
            isinstance(value, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)) for value in given[1:]):
        raise invalid_arguments_error("where", *given, printed=_WHERE)
    if len(given) == 1:
        return condition.nonzero(as_tuple=True)
    cond = condition._data
    if cond.dtype == np.uint8:
        read_histories(given[1:])  # (torch's autograd runs before the kernel's warning)
        messages.warn_once("where received a uint8 condition tensor. This behavior is "
                           "deprecated and will be removed in a future version of PyTorch. Use "
                           "a boolean condition instead."
                           + messages.triggered_in("aten/src/ATen/native/TensorCompare.cpp:714"))
        cond = cond.astype(bool)
    elif cond.dtype.kind != "b":
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {scalar_type_name[condition.dtype]}")
    common = result_type(input, other).numpy_dtype
    # a number too big for float16 becomes inf (torch checks the other dtypes)
    a = input._data if isinstance(input, Tensor) else checked_scalar(input, common, False)
    b = other._data if isinstance(other, Tensor) else checked_scalar(other, common, False)
    a, b = (x if x.dtype == common else cast(x, common) for x in (a, b))  # (a double: via float)
    try:
        result = np.where(cond, a, b)
    except ValueError:
        histories_first(input, other)
        raise broadcast_error(cond, a, b) from None
    return record(WhereBackward0, wrap_elementwise(result, cond, a, b), (input, other),
                  saved=(condition,))


where.without_out = _where


def where_method(input, condition, other=NOT_GIVEN):
    """x.where(condition, other)"""
    if not isinstance(condition, Tensor) or \
            not isinstance(other, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)):
        given = (condition,) if other is NOT_GIVEN else (condition, other)
        raise invalid_arguments_error("where", *given, printed=_WHERE_METHOD)
    return _where(condition, input, other)


class WhereBackward0(Node):
    """out = where(condition, a, b):  d/da = 1 where condition holds, d/db = 1 elsewhere"""

    _saved_names = ("condition",)

    def backward(self, grad):
        (condition,) = self.saved_tensors
        grad_other = where(condition, 0.0, grad)  # (other's first, as torch's node)
        return where(condition, grad, 0.0), grad_other

    def jvp(self, tangent_a, tangent_b):
        """Forward mode: the tangents picked as the values are (torch's formula, whose zero
        signs the sum of the two backward terms would not keep)."""
        (condition,) = self.saved_tensors
        return where(condition, 0.0 if tangent_a is None else tangent_a,
                     0.0 if tangent_b is None else tangent_b)


# (torch has no clamp with a tensor bound and a number bound: x.clamp(t, 0) is refused)
_CLAMP = ("(Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)",
          "(Tensor input, Number min = None, Number max = None, *, Tensor out = None)")


def _clamp_out(out, input, *args, **kwargs):
    """torch.clamp(x, number bounds, out=t): its kernel wants t of the result's dtype exactly
    (with tensor bounds, t only has to hold it)."""
    bounds = [*args[:2], *(kwargs[k] for k in ("min", "max") if k in kwargs)]
    bounds = [b for b in bounds if b is not None]
    if not bounds or not isinstance(input, Tensor) or not isinstance(out, Tensor) or \
            builtins.any(isinstance(b, Tensor) for b in bounds):
        return
    expected = result_type(input, *bounds)
    if out.dtype is not expected:
        raise RuntimeError(f"Found dtype {scalar_type_name[out.dtype]} but expected "
                           f"{scalar_type_name[expected]}")


@overloads(*_CLAMP)
@takes_out(before=_clamp_out)
def clamp(input, min=None, max=None):  # noqa: A002 - torch's parameter names
    """out = min(max(input, min), max)"""
    return _clamp(input, min, max)


@overloads(*_CLAMP)
@takes_out(name="clamp", before=_clamp_out)
def clip(input, min=None, max=None):  # noqa: A002
    """clamp's other name"""
    return _clamp(input, min, max)


def _clamp(input, min, max):  # noqa: A002
    if isinstance(min, Tensor) != isinstance(max, Tensor) and min is not None and \
            max is not None:  # (torch's Number overload: a 0-d tensor bound is its value)
        min, max = (v.item() if isinstance(v, Tensor) else v for v in (min, max))
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if min is not None and max is not None and \
                result_type(input, min, max).numpy_dtype.kind == "b":
            # (both bounds: torch's one clamp kernel, not compiled for bool; one bound is
            # maximum's or minimum's, which are)
            raise not_implemented_for("clamp_cpu", np.dtype(np.bool_))
        with no_grad():
            result = input
            if min is not None:
                result = maximum(result, min)
            if max is not None:
                result = minimum(result, max)
        return record(ClampBackward0, result, (input, min, max), saved=(input, min, max))
    data = input._data
    bounds = [scalar_value(v) for v in (min, max) if v is not None]
    for bound in bounds:
        if not isinstance(bound, PYTHON_NUMBERS):
            raise invalid_arguments_error("clamp", input, *bounds, first_is_self=True)
        if bound.__class__ is builtins.int:
            check_int_argument(bound)
    # a float tensor keeps its dtype; an integer one is promoted by float bounds
    common = data.dtype if data.dtype.kind == "f" else result_type(input, *bounds).numpy_dtype
    if common.kind == "b":
        raise not_implemented_for("clamp_scalar_cpu" if len(bounds) == 2 else
                                  ("clamp_min_scalar_cpu" if max is None else
                                   "clamp_max_scalar_cpu"), common)
    if builtins.any(b != b for b in bounds):  # a nan bound makes every element nan
        result = wrap_elementwise(np.full_like(data, np.nan, common), data)
    else:
        result = data.astype(common, copy=False)
        # a tie keeps the input, as torch's kernel does: clamp(-0.0, min=0.0) is -0.0
        # (np.maximum's vectorised float32 loop would give the bound)
        if min is not None:
            bound = _clamp_bound(min, common, "min")
            result = np.where(result < bound, bound, result)
        if max is not None:
            bound = _clamp_bound(max, common, "max")
            result = np.where(result > bound, bound, result)
        result = wrap_elementwise(result, data)
    return record(ClampBackward1, result, (input,), saved=(input,), min=min, max=max)


def _clamp_bound(value, np_dtype, which):
    """The bound in the result's dtype. An integer bound beyond the dtype's range stands for
    its end (uint8 clamp(-1, 2) leaves 0 alone), unless every element would be beyond it."""
    if np_dtype.kind not in "iu":
        return checked_scalar(value, np_dtype)
    low, high = np.iinfo(np_dtype).min, np.iinfo(np_dtype).max
    if (which == "min" and value > high) or (which == "max" and value < low):
        raise RuntimeError(f"Clamp {which} value {float(value):g} is outside the representable "
                           f"range of {scalar_type_name[from_numpy_dtype[np_dtype]]}")
    return np_dtype.type(builtins.min(builtins.max(value, low), high))


class ClampBackward1(Node):
    """out = clamp(x, min, max) with numbers:  d/dx = 1 strictly between min and max, else 0
    (0 at the bounds themselves and at nan, as torch 2.15)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self",)
    max: float | None
    min: float | None

    def backward(self, grad):
        (x,) = self.saved_tensors
        return where(_strictly_inside(x, self.min, self.max), grad, 0.0)


def _strictly_inside(x, low, high):
    """Where ``low < x < high`` (a missing bound does not limit)."""
    if low is None:
        return x.lt(high)
    if high is None:
        return x.gt(low)
    return x.gt(low).logical_and(x.lt(high))


class ClampBackward0(Node):
    """out = clamp(x, min, max) with tensors:  to x between the bounds (and at nan), to the
    bound x is clamped to (max when min > max); a tie with one bound splits it in half"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self", "min", "max")

    def backward(self, grad):
        x, low, high = self.saved_tensors
        if high is None:  # clamp(x, min=low) is max(x, low)
            return (*_larger_gets_it(grad, x, low), None)
        if low is None:
            grad_x, grad_high = _smaller_gets_it(grad, x, high)
            return grad_x, None, grad_high
        at_low = (x == low).logical_and(x < high)
        at_high = (x == high).logical_and(x > low)
        ordered = low <= high
        grad_x = where((x < low).logical_or(x > high), 0.0,
                       where(at_low.logical_or(at_high), grad / 2, grad))
        grad_low = where((x < low).logical_and(ordered), grad, where(at_low, grad / 2, 0.0))
        grad_high = where((low > high).logical_or((x > high).logical_and(ordered)), grad,
                          where(at_high, grad / 2, 0.0))
        return grad_x, grad_low, grad_high




def _clamp_bound_overloads(bound):
    return tuple(f" * (Tensor input, {kind} {bound}, *, Tensor out = None)"
                 for kind in ("Tensor", "Number"))


def _bound_out(out, input=None, bound=None, *args, **kwargs):
    """out= of clamp_min/clamp_max with a number bound: torch's unary iterator wants out of
    the result's dtype exactly (a tensor bound: any dtype the result can be cast to)."""
    if isinstance(input, Tensor) and isinstance(bound, PYTHON_AND_NUMPY_NUMBERS):
        expected = input.dtype if input._data.dtype.kind == "f" else result_type(input, bound)
        if out.dtype is not expected:
            raise RuntimeError(f"Found dtype {scalar_type_name[out.dtype]} but expected "
                               f"{scalar_type_name[expected]}")


@takes_out(before=_bound_out, resized_first=elementwise_shape)
def clamp_min(input, min):  # noqa: A002
    """out = max(input, min)"""
    if not isinstance(input, Tensor):  # (torch.clamp_min(1.0, 0.5): torch's parser refuses)
        raise invalid_arguments_error("clamp_min", input, min,
                                      overloads=_clamp_bound_overloads("min"))
    if not isinstance(min, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)):  # (None: clamp's, not this)
        raise invalid_arguments_error("clamp_min", input, min, first_is_self=True, printed=(
            "(Tensor input, Tensor min, *, Tensor out = None)",
            "(Tensor input, Number min, *, Tensor out = None)"))
    with no_grad():
        result = clamp(input, min=min)
    if isinstance(min, Tensor):
        return record(ClampMinBackward1, result, (input, min), saved=(input, min))
    return record(ClampMinBackward0, result, (input,), saved=(input,), min=min)


class ClampMinBackward0(Node):
    """out = max(x, number):  d/dx = 1 where x > min"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self",)
    min: float | None

    def backward(self, grad):
        (x,) = self.saved_tensors
        return where(x > self.min, grad, 0.0)


class ClampMinBackward1(Node):
    """out = max(x, min):  as maximum's (a tie splits the gradient in half)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self", "min")

    def backward(self, grad):
        return _larger_gets_it(grad, *self.saved_tensors)


@takes_out(before=_bound_out, resized_first=elementwise_shape)
def clamp_max(input, max):  # noqa: A002
    """out = min(input, max)"""
    if not isinstance(input, Tensor):
        raise invalid_arguments_error("clamp_max", input, max,
                                      overloads=_clamp_bound_overloads("max"))
    if not isinstance(max, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)):  # (None: clamp's, not this)
        raise invalid_arguments_error("clamp_max", input, max, first_is_self=True, printed=(
            "(Tensor input, Tensor max, *, Tensor out = None)",
            "(Tensor input, Number max, *, Tensor out = None)"))
    with no_grad():
        result = clamp(input, max=max)
    if isinstance(max, Tensor):
        return record(ClampMaxBackward1, result, (input, max), saved=(input, max))
    return record(ClampMaxBackward0, result, (input,), saved=(input,), max=max)


class ClampMaxBackward0(Node):
    """out = min(x, number):  d/dx = 1 where x < max"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self",)
    max: float | None

    def backward(self, grad):
        (x,) = self.saved_tensors
        return where(x < self.max, grad, 0.0)


class ClampMaxBackward1(Node):
    """out = min(x, max):  as minimum's (a tie splits the gradient in half)"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self", "max")

    def backward(self, grad):
        return _smaller_gets_it(grad, *self.saved_tensors)


def _fused(a, b, c, np_dtype):
    """a * b + c rounded once, as torch's compiled kernels compute it (float16 via float32)."""
    with np.errstate(all="ignore"):
        fused = fma64(a, b, c) if np_dtype.char == "d" else fma32(a, b, c)
        plain = a * b + c
        # inf, nan and exact zeros: the error terms would lose them; the plain formula has them
        return np.where(np.isfinite(fused) & (fused != 0), fused, plain).astype(np_dtype)


def _opmath(np_dtype):
    """The dtype torch's float kernels compute in: float16 in float32, the others in their own."""
    return np.dtype(np.float32) if np_dtype is FLOAT16 else np_dtype


def _lerp_out(out, input=None, end=None, weight=None, *args, **kwargs):
    """out= of lerp with a weight tensor of one or more dimensions: torch's iterator wants
    every operand of one dtype (a number or a 0-d weight: any dtype the result can be cast
    to)."""
    if isinstance(input, Tensor) and isinstance(weight, Tensor) and weight._data.ndim and \
            out.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {scalar_type_name[out.dtype]} but expected "
                           f"{scalar_type_name[input.dtype]}")


_LERP = ("(Tensor input, Tensor end, Tensor weight, *, Tensor out = None)",
         "(Tensor input, Tensor end, Number weight, *, Tensor out = None)")


@takes_out(before=_lerp_out, resized_first=elementwise_shape)
def lerp(input, end, weight):
    """out = input + weight * (end - input)"""
    if not (isinstance(input, Tensor) and isinstance(end, Tensor)
            and isinstance(weight, (Tensor, *PYTHON_AND_NUMPY_NUMBERS))):
        raise invalid_arguments_error("lerp", input, end, weight, first_is_self=True,
                                      printed=_LERP)
    if weight.__class__ is builtins.int:
        check_int_argument(weight)  # (parsing the arguments comes first)
    np_dtype = input._data.dtype
    for name, value in (("end", end), ("weight", weight)):
        if isinstance(value, Tensor) and value._data.dtype != np_dtype and (
                name == "end" or value._data.ndim):
            raise RuntimeError(f"expected dtype {CPP_TYPE_NAMES[np_dtype.name]} for `{name}` but "
                               f"got dtype {CPP_TYPE_NAMES[value._data.dtype.name]}")
    w = weight._data if isinstance(weight, Tensor) else scalar_value(weight)
    operands_broadcast_shape(input._data, end._data, w)  # (torch checks shapes before the kernel)
    if isinstance(weight, Tensor):
        # a 0-d weight of another dtype takes part in type promotion (int ends and a float
        # weight compute in float), and is converted to the result's dtype first
        np_dtype = result_type(input, end, weight).numpy_dtype
        w = w.astype(np_dtype)
    if np_dtype.kind != "f":
        kind = "tensor" if isinstance(weight, Tensor) else "scalar"
        raise not_implemented_for(f"lerp_kernel_{kind}", np_dtype)
    compute = _opmath(np_dtype)
    if not isinstance(weight, Tensor):
        checked_scalar(w, compute)  # a number weight that does not fit is refused
    a, b = input._data.astype(compute), end._data.astype(compute)
    with np.errstate(over="ignore"):
        w = np.asarray(w, compute)
    with np.errstate(all="ignore"):
        diff = b - a
        # torch rounds once and starts from the nearer end: exact at weight 0 and 1
        values = np.where(np.abs(w) < 0.5, _fused(w, diff, a, compute),
                          _fused(-diff, 1 - w, b, compute)).astype(np_dtype)
    result = wrap_elementwise(values, input._data, end._data)
    if not isinstance(weight, Tensor):
        return record(LerpBackward0, result, (input, end), weight=scalar_value(weight))
    # the ends are read only for weight's gradient: torch keeps them only then (weight always)
    return record(LerpBackward1, result, (input, end, weight),
                  saved=(kept_for(weight, input), kept_for(weight, end), weight))


class LerpBackward0(Node):
    """out = a + w * (b - a) with a number w:  d/da = 1 - w,  d/db = w"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    weight: float

    def backward(self, grad):
        # (end's first, as torch's node; a number times grad is at::mul with a Scalar)
        grad_end = mul_scalar(grad, self.weight)
        return mul_scalar(grad, 1 - self.weight), grad_end


class LerpBackward1(Node):
    """out = a + w * (b - a):  d/da = 1 - w,  d/db = w,  d/dw = b - a"""

    jvp = "element_wise"  # forward mode: this formula of the tangent

    _saved_names = ("self", "end", "weight")

    def backward(self, grad):
        a, b, w = self.saved_tensors
        # (the last input's first, as torch's node)
        grad_weight = None if a is None else grad * (b - a)
        grad_end = grad * w
        if self.next_functions[0][0] is None:  # (self needs none: 1 - w is not computed)
            return None, grad_end, grad_weight
        if w._data.dtype == np.bool_:  # (C++'s 1 - weight: two bool tensors)
            raise NotImplementedError(messages.SUB_TWO_BOOLS)
        return grad * (1 - w), grad_end, grad_weight


def _addc_operands(name, input, tensor1, tensor2, value):
    """The three operands' data in their common dtype, that dtype, and ``value`` in it."""
    value = number_argument(value, name, "value")
    for position, (argument, t) in enumerate((("input", input), ("tensor1", tensor1),
                                              ("tensor2", tensor2)), 1):
        if not isinstance(t, Tensor):
            raise operand_type_error(name, t, position, argument)
    common = result_type(input, tensor1, tensor2).numpy_dtype
    x, a, b = (t._data.astype(common, copy=False) for t in (input, tensor1, tensor2))
    if name == "addcdiv" and common.kind != "f":  # (torch refuses that before the shapes)
        raise RuntimeError(messages.ADDCDIV_OF_INTEGERS)
    operands_broadcast_shape(x, a, b)
    # (float16 computes in float32: a value too big for float16 is not refused, it gives inf)
    checked_scalar(value, _opmath(common))
    return x, a, b, common, value


@takes_out
def addcmul(input, tensor1, tensor2, scaled=NOT_GIVEN, *, value=1):
    """out = input + value * tensor1 * tensor2"""
    if scaled is not NOT_GIVEN:  # addcmul(x, value, tensor1, tensor2): deprecated
        tensor1, tensor2, value = scale_first("addcmul", input, tensor1,
                                              (tensor2, scaled, tensor1), value != 1)
    x, a, b, common, value = _addc_operands("addcmul", input, tensor1, tensor2, value)
    if common.kind == "b":
        raise not_implemented_for("addcmul_cpu_out", common)
    if common.kind == "f":
        compute = _opmath(common)
        scaled = a.astype(compute) * compute.type(value)
        # torch: one fused multiply-add, (value * tensor1) * tensor2 + input
        values = _fused(scaled, b.astype(compute), x.astype(compute), common)
    else:
        with np.errstate(over="ignore"):  # integers wrap around, value is truncated
            values = x + checked_scalar(value, common) * a * b
    result = wrap_elementwise(np.asarray(values, common), x, a, b)
    return record(AddcmulBackward0, result, (input, tensor1, tensor2),
                  saved=(kept_for(tensor2, tensor1), kept_for(tensor1, tensor2)), value=value)


class AddcmulBackward0(Node):
    """out = x + value * t1 * t2:  d/dx = 1,  d/dt1 = value * t2,  d/dt2 = value * t1"""

    _saved_names = ("tensor1", "tensor2")
    value: float

    def jvp(self, tangent_input, tangent1, tangent2):
        """Forward mode, torch's formula: t_input + value * (t1_t * t2) + value * (t2_t * t1),
        where value 1 multiplies nothing (torch's maybe_multiply)."""
        (_, t1, t2), (out,) = self.primals, self.results
        first = None if tangent1 is None else scaled_tangent(tangent1 * t2, self.value)
        second = None if tangent2 is None else scaled_tangent(tangent2 * t1, self.value)
        return tangent_sum(tangent_sum(tangent_input, first, out), second, out)

    def backward(self, grad):
        t1, t2 = self.saved_tensors  # each saved only if the other one needs a gradient
        return (grad, None if t2 is None else grad * (t2 * self.value),
                None if t1 is None else grad * (t1 * self.value))


@takes_out
def addcdiv(input, tensor1, tensor2, scaled=NOT_GIVEN, *, value=1):
    """out = input + value * tensor1 / tensor2"""
    if scaled is not NOT_GIVEN:  # addcdiv(x, value, tensor1, tensor2): deprecated
        tensor1, tensor2, value = scale_first("addcdiv", input, tensor1,
                                              (tensor2, scaled, tensor1), value != 1)
    x, a, b, common, value = _addc_operands("addcdiv", input, tensor1, tensor2, value)
    compute = _opmath(common)
    with np.errstate(all="ignore"):  # torch: (value * tensor1) / tensor2 + input, no fusing
        values = (a.astype(compute) * compute.type(value) / b.astype(compute)
                  + x.astype(compute)).astype(common)
    result = wrap_elementwise(np.asarray(values), x, a, b)
    saved_t1 = kept_for(tensor2, tensor1)
    saved_t2 = tensor2 if tensor1.requires_grad or tensor2.requires_grad else None
    return record(AddcdivBackward0, result, (input, tensor1, tensor2), saved=(saved_t1, saved_t2),
                  value=value)


class AddcdivBackward0(Node):
    """out = x + value * t1 / t2:  d/dx = 1,  d/dt1 = value / t2,  d/dt2 = -value * t1 / t2**2"""

    _saved_names = ("tensor1", "tensor2")
    value: float

    def jvp(self, tangent_input, tangent1, tangent2):
        """Forward mode, torch's formula: t_input + value * (t1_t / t2) - value * (t2_t *
        (t1 / t2) / t2), where value 1 multiplies nothing (torch's maybe_multiply)."""
        (_, t1, t2), (out,) = self.primals, self.results
        quotient = None if tangent1 is None else tangent1 / t2
        correction = None if tangent2 is None else tangent2 * (t1 / t2) / t2
        total = tangent_sum(tangent_input, scaled_tangent(quotient, self.value), out)
        return tangent_difference(total, scaled_tangent(correction, self.value), out)

    def backward(self, grad):
        t1, t2 = self.saved_tensors
        # value / t2 as torch's C++ writes it: t2's shape filled with value, divided by t2
        # (Python's value / t2 multiplies by a reciprocal)
        return (grad, None if t2 is None else grad * div(full_like(t2, self.value), t2),
                None if t1 is None else -grad * (mul_scalar(t1, self.value) / (t2 * t2)))


# (torch.clamp and clip: overloads' wrapper hands a BatchedTensor's call to vmap's rule)
where, clamp_min, clamp_max = (hands_failures_to_vmap(op) for op in (where, clamp_min, clamp_max))

histories_read_first(globals(), __all__)
