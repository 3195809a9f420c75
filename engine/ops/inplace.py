"""In-place operations: ``x.add_(y)`` writes the result into x's own memory and bumps
its version counter; fill_, zero_, copy_ and the random fills.
"""
import builtins
import warnings

import numpy as np

from ..fidelity import dtypes, fused_axpy, messages, signatures
from ..fidelity import random as rng
from ..fidelity.floating import cast, copy_cast
from ..fidelity.dtypes import from_numpy_dtype, scalar_type_name
from ..fidelity.layout import has_internal_overlap
from ..fidelity.scalars import check_int_argument, checked_scalar, parsed_number
from ..fidelity.messages import CPP_TYPE_NAMES, type_name
from ..core.forward import each_level, state as dual, tangent_of, write_tangent
from ..core.grad_mode import mode, no_grad
from ..core.history import (check_inference_inplace, check_inplace, rebase_history,
                             seen_by_autograd)
from ..core.node import Node, SavedTensor, new_node, record
from ..core.tensor import Tensor, empty_preserving_layout, make_view
from .arithmetic import NOT_GIVEN, add
from .common import (invalid_arguments_error, not_implemented_for, overloads,
                     refuse_integer_history)
from .compare import COMPARISONS, compared_in_place
from .creation import zeros_like
from .views import broadcast_shape, expand, expand_geometry

__all__ = ["fill"]  # (torch.fill; the in-place methods are attached in methods.py)


# ---------------------------------------------------------------- overlapping memory
def _address_range(tensor):
    start = tensor._data.__array_interface__["data"][0]
    return start, start + tensor._data.nbytes


def overlap_status(a, b):
    """torch's get_overlap_status: "full", "partial", "no" or "too hard" (not dense)."""
    if a is b:
        return "full"
    if a._data.size == 0 or b._data.size == 0:
        return "no"
    if not (a.is_non_overlapping_and_dense() and b.is_non_overlapping_and_dense()):
        return "too hard"
    if a._storage_array() is not b._storage_array():
        return "no"
    (a_start, a_end), (b_start, b_end) = _address_range(a), _address_range(b)
    if (a_start, a_end) == (b_start, b_end):
        return "full" if a.stride() == b.stride() else "partial"
    return "partial" if a_start < b_end and b_start < a_end else "no"


PARTIAL_OVERLAP_MESSAGE = ("unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please clone() "
                           "the tensor before performing the operation.")


def check_no_overlap(output, inputs, full_is_ok=True):
    """torch refuses to write into memory that an input partly shares, or that repeats itself."""
    if has_internal_overlap(output._data.shape, output.stride()):
        raise RuntimeError(messages.INTERNAL_OVERLAP)
    for tensor in inputs:
        if isinstance(tensor, Tensor):
            status = overlap_status(output, tensor)
            if status == "partial" or (status == "full" and not full_is_ok):
                raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)


def copy_into(dst, src):
    """``dst.copy_(src)``: broadcast src, convert its dtype, write into dst's memory."""
    check_inplace(dst, src, differentiable=dst._data.dtype.kind == "f")
    given = src  # (src is made a view below)
    # recorded before the write: the node's first edge is dst's history *before* the copy
    node = new_node(CopyBackwards, (dst, src)) if dst._data.dtype.kind == "f" else None
    if src is dst or _same_data(dst, src):
        # nothing to copy (torch's copy_ returns before its overlap checks: x[0] = z where
        # x[0] is z.expand(...) again, fuzz 3052626), but it still records and counts it
        check_inference_inplace(dst)
        rebase_history(dst, node)
        dst._bump_version()
        return dst
    check_no_overlap(dst, (src,))  # (src as given: x.copy_(x[0]) overlaps x partly)
    if src._data.shape != dst._data.shape:
        shape, stride = expand_geometry(src._data.shape, src.stride(), dst._data.shape)
        src = make_view(src, shape, stride, src.storage_offset())  # (the node has the edge)
    data = src._data
    if np.shares_memory(data, dst._data):
        data = data.copy()  # the same memory read and written: numpy needs a snapshot
    with np.errstate(invalid="ignore", over="ignore"):
        copy_cast(dst._data, data)
    check_inference_inplace(dst)
    dst._bump_version()
    rebase_history(dst, node)
    if dual.active:  # forward-mode AD: src's tangent (or none) is copied too (core/forward.py)
        each_level(lambda: write_tangent(dst, tangent_of(given)))
    return dst


def _same_data(dst, src):
    """torch's copy_ shortcut: src is a view of exactly dst's elements (same memory, offset,
    sizes, strides and dtype)."""
    return (src._data.shape == dst._data.shape and src._data.dtype == dst._data.dtype and
            src.stride() == dst.stride() and src.storage_offset() == dst.storage_offset() and
            src._storage_array() is dst._storage_array())


# ---------------------------------------------------------------- in-place
class CopyBackwards(Node):
    """self.copy_(src):  self's old values are gone (zero gradient), src's pass through"""

    def name(self):
        return "torch::autograd::CopyBackwards"

    def backward(self, grad):
        # src's gradient takes src's dtype here, before the edge sums it to src's shape (a
        # float16 gradient of a broadcast float32 src adds up in float32)
        src_meta = self._input_meta[1]
        if src_meta is not None and grad._data.dtype != src_meta[1]:
            grad_src = grad.to(from_numpy_dtype[src_meta[1]])
        else:
            grad_src = grad
        return zeros_like(grad), grad_src


def write_inplace(tensor, result, where=True, tracked=True):
    """Write ``result`` into ``tensor``'s own memory, as every ``x.op_()`` does (only
    ``where`` it is True: the places a fill changes). ``tracked=False``: an op autograd does
    not see at all (torch's logical_not_ ...), so it refuses no leaf and records nothing."""
    if result._data.shape != tensor._data.shape:
        raise RuntimeError(f"output with shape {list(tensor._data.shape)} doesn't match the "
                           f"broadcast shape {list(result._data.shape)}")
    check_written_type(tensor, result)
    if tracked:
        check_inplace(tensor, result)
    if tensor._inference:  # torch writes, then its version counter refuses the change
        copy_cast(tensor._data, result._data, where)
        check_inference_inplace(tensor)
    tensor._bump_version()  # (first, as in torch: the view's new history is of this version)
    rebase_history(tensor, result.grad_fn)
    if not tensor._inference:
        copy_cast(tensor._data, result._data, where)
    _saved_output_is_now(tensor, result.grad_fn)
    if dual.active:  # forward-mode AD: the tangent is written in place too (core/forward.py)
        each_level(lambda: write_tangent(tensor, tangent_of(result), where))
    return tensor


def check_written_type(tensor, result):
    """torch's refusal to write a result into a tensor of a dtype it cannot be cast to."""
    if not dtypes.can_cast(result.dtype, tensor.dtype):
        raise RuntimeError(_cast_refused(result.dtype, scalar_type_name[tensor.dtype]))


def _cast_refused(result_dtype, output_name):
    return (f"result type {scalar_type_name[result_dtype]} can't be cast to the desired output "
            f"type {output_name}")


def _saved_output_is_now(tensor, node):
    """A node that saved its result (exp_ keeps e ** x) now finds it in ``tensor``: a later
    write into ``tensor`` must then be caught at backward, as torch catches it."""
    for saved in node._saved if node is not None else ():
        # (one packed by saved_tensors_hooks stays as its pack hook made it)
        if isinstance(saved, SavedTensor) and saved.is_output and saved.tensor is not None:
            saved.tensor, saved.version = tensor.detach(), tensor._version


# Errors torch's TensorIterator raises after its checks of overlapping memory: operands that
# do not broadcast, a kernel that does not take the dtype ('"bitwise_not_cpu" not
# implemented for ...'), a result that cannot be written into the tensor's dtype. An op's
# own checks come before (bool negation, lerp's dtypes, an integer to a negative power).
_ITERATOR_ERRORS = ("The size of tensor a", '"', "result type ")
# ops that check everything, casts too, before they look at memory (cumsum is no
# TensorIterator op; clamp checks its result type in its own first step)
_OWN_CHECKS_FIRST = {"cumsum", "cumprod", "clamp", "clamp_min", "clamp_max", "clip"}


# the in-place ops whose number ``other`` torch's parser wraps into a tensor (their only Python
# signature takes a Tensor): on an inference tensor such a number is an ordinary operand
WRAPS_NUMBERS = {"add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                 "floor_divide"}


# in-place ops whose number operand takes part in the result's dtype before a kernel is
# picked (int.bitwise_and_(1.5): Float can't be cast; lerp_'s number weight does not)
_NUMBERS_PROMOTE = frozenset(("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                              "bitwise_right_shift"))


def _argument_error_first(function, name, self, args, kwargs):
    """torch's parser reads the arguments before autograd looks at the tensor: a wrong one
    (x.pow_("a") on a leaf that requires grad) is that TypeError, named after the in-place op.
    (Asked only on the error path: the op itself, run without recording, tells.)"""
    try:
        with no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the op runs only to see what it refuses)
            function(self, *args, **kwargs)
    except TypeError as error:
        if str(error).startswith(name + "("):
            raise TypeError(name + "_" + str(error)[len(name):]) from None
        raise
    except OverflowError as error:  # (a number beyond 64 bits: the parser's conversion)
        if str(error) in ("int too big to convert", "can't convert negative int to unsigned"):
            raise
    except Exception:  # noqa: BLE001 (any other error: autograd's refusal comes first)
        return


def in_place(function, tracked=True):
    """``x.op_(...)``: ``op``'s result written into x (``tracked``: see write_inplace)."""
    name = function.__name__

    def method(self, *args, **kwargs):
        if self._inference and tracked and mode.recording:
            # an inference tensor outside inference_mode: autograd's checks only when an
            # operand brings autograd in (core/history.py seen_by_autograd), then torch's
            # kernel writes and the change is refused (check_inference_inplace): nothing
            # is recorded or saved first
            operands = [value for value in (*args, *kwargs.values()) if isinstance(value, Tensor)]
            if name in WRAPS_NUMBERS:  # (other, not alpha=)
                operands.append(args[0] if args else kwargs.get("other"))
            if seen_by_autograd(self, operands):
                check_inplace(self, *operands)
            with no_grad():
                return method(self, *args, **kwargs)
        if tracked:  # (autograd refuses a leaf, or a view made in no_grad mode when an
            # operand requires grad, before the op looks at anything else: overlapping memory)
            try:
                check_inplace(self, *args, *kwargs.values())
            except RuntimeError:
                _argument_error_first(function, name, self, args, kwargs)
                raise
        if name in ("cumsum", "cumprod") and kwargs.get("dtype") is None:
            kwargs = {**kwargs, "dtype": self.dtype}  # (torch adds up in the tensor's dtype)
        try:
            result = function(self, *args, **kwargs)
        except TypeError as error:  # torch's argument errors name the in-place op: "mul_()"
            for operand in args:  # vmap: a batched value written into a tensor that is not
                if hasattr(operand, "inplace_refused"):
                    raise operand.inplace_refused(self) from None
            if not str(error).startswith(name + "("):
                raise
            raise TypeError(name + "_" + str(error)[len(name):]) from None
        except (RuntimeError, NotImplementedError) as error:
            if str(error) in (messages.SUB_A_BOOL, messages.SUB_TWO_BOOLS):
                raise  # torch's sub refuses a bool before the result's dtype is looked at
            if name not in _OWN_CHECKS_FIRST and str(error).startswith(_ITERATOR_ERRORS):
                check_no_overlap(self, args)
            if isinstance(error, NotImplementedError) or str(error) == "ZeroDivisionError":
                _broadcast_fits(self, args)  # (torch's iterator checks the shapes first)
                # torch refuses a result it cannot write back before it picks a kernel for it
                # (int.lerp_(int, 0-d float weight): Float can't be cast, not "not implemented";
                # bool.floor_divide_(0): Long can't be cast, before the integer division by 0)
                operands = (a for a in args if isinstance(a, Tensor) or (
                    (str(error) == "ZeroDivisionError" or name in _NUMBERS_PROMOTE) and
                    isinstance(a, (int, float, bool))))
                common = dtypes.result_type(self, *operands)
                if not dtypes.can_cast(common, self.dtype):
                    raise RuntimeError(_cast_refused(common, scalar_type_name[self.dtype])) \
                        from None
            raise
        if name in COMPARISONS:  # (recorded, as torch records them: x's gradient there is 0)
            result = compared_in_place(name, self, args[0] if args else kwargs.get("other"),
                                       result)
        if name in _OWN_CHECKS_FIRST:
            _broadcast_fits(self, (*args, *kwargs.values()))  # (the iterator's shapes first)
            check_written_type(self, result)
        if not (name == "nan_to_num" and self._data.dtype.kind != "f"):  # (torch: a no-op)
            # torch refuses to write where an input partly overlaps (x[1:].add_(x[:-1]))
            check_no_overlap(self, args)
        return write_inplace(self, result, tracked=tracked)

    method.__name__ = function.__name__ + "_"
    method.__doc__ = f"In-place {function.__name__}: the result is written into this tensor."
    return method


def _broadcast_fits(tensor, args):
    """torch's refusal of an in-place result of another shape, from the operands' shapes (for
    an op whose kernel refused the dtypes: x.hypot_(y) of integers, y larger than x)."""
    shapes = [tensor._data.shape] + [a._data.shape for a in args if isinstance(a, Tensor)]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        return  # (the op's own error says which dimension)
    if shape != tensor._data.shape:
        raise RuntimeError(f"output with shape {list(tensor._data.shape)} doesn't match the "
                           f"broadcast shape {list(shape)}") from None


def cast_refused_in_cpp_names(method):
    """``x.clamp_(min=0.5)`` of an integer x: torch's clamp kernels with number bounds name
    the dtype they cannot write as C++ does ("long int"), other in-place ops as "Long"; and
    they refuse it before converting the bounds (``x.clamp_(1e39)`` is refused for its dtype,
    not for a bound too big for float32)."""
    def clamp_(self, *args, **kwargs):
        bounds = [v for v in (*args, *kwargs.values()) if v is not None]
        if isinstance(self, Tensor) and bounds and builtins.all(
                isinstance(v, (builtins.bool, builtins.int, builtins.float)) for v in bounds):
            common = dtypes.result_type(self, *bounds)
            if not dtypes.can_cast(common, self.dtype):
                raise RuntimeError(_cast_refused(common, CPP_TYPE_NAMES[self._data.dtype.name]))
        try:
            return method(self, *args, **kwargs)
        except RuntimeError as error:
            text, marker = str(error), "can't be cast to the desired output type "
            if marker not in text or any(isinstance(v, Tensor) for v in (*args,
                                                                          *kwargs.values())):
                raise
            raise RuntimeError(text.split(marker)[0] + marker +
                               CPP_TYPE_NAMES[self._data.dtype.name]) from None

    clamp_.__name__, clamp_.__doc__ = method.__name__, method.__doc__
    return clamp_


_FLOAT32 = np.dtype(np.float32)


def add_(self, other, scaled=NOT_GIVEN, *, alpha=1):
    """In-place add: ``self += alpha * other``, rounded once as torch's fused multiply-add.

    An optimizer's update (``p.add_(g, alpha=-lr)``: float32 tensors of one shape, each one
    block of memory, nothing to record) goes straight into p's memory: ``fused_axpy``.
    """
    if scaled is not NOT_GIVEN:  # add_(alpha, other): torch's deprecated overload
        return _add_(self, other, scaled, alpha=alpha)
    if _is_plain_update(self, other, alpha):
        check_inplace(self)
        fused_axpy.axpy_into(alpha, other._data.reshape(-1), self._data.reshape(-1))
        check_inference_inplace(self)
        self._bump_version()
        return self
    return _add_(self, other, alpha=alpha)


_add_ = in_place(add.without_out)


def _is_plain_update(self, other, alpha):
    if alpha.__class__ is not builtins.float or not 1e-30 < builtins.abs(alpha) < 1e30 or \
            not isinstance(other, Tensor):
        return False
    mine, theirs = self._data, other._data
    return (mine.dtype == _FLOAT32 and theirs.dtype == _FLOAT32 and mine.shape == theirs.shape
            and mine.flags.c_contiguous and theirs.flags.c_contiguous
            and not (mode.grad_enabled and (self._requires_grad or other._requires_grad))
            and not np.may_share_memory(mine, theirs))


def _fill_raw(tensor, values, node_class, inputs=(), checked=False):
    """Overwrite every element of ``tensor`` with ``values``; in a graph, ``node_class``
    records that the old values are gone (``checked``: the caller ran check_inplace)."""
    if not checked:
        check_inplace(tensor, *inputs)
    node = new_node(node_class, (tensor, *inputs)) \
        if tensor._data.dtype.kind == "f" else None
    copy_cast(tensor._data, values)
    check_inference_inplace(tensor)
    tensor._bump_version()
    rebase_history(tensor, node)
    if dual.active:  # forward-mode AD: a fill's tangent is its value's (core/forward.py)
        each_level(lambda: write_tangent(tensor, tangent_of(inputs[0]) if inputs else None))
    return tensor


class _OverwrittenBackward(Node):
    """x.fill_(...) and the like:  x's old values are gone, so they get a zero gradient"""

    def backward(self, grad):
        return zeros_like(grad)


class ZeroBackward0(_OverwrittenBackward):
    """x.zero_()"""


class FillBackward2(_OverwrittenBackward):
    """x.fill_(number)"""


class FillBackward3(Node):
    """x.fill_(value tensor):  every element is value, so value's gradient is the sum"""

    def backward(self, grad):
        return zeros_like(grad), grad.sum()


class UniformBackward0(_OverwrittenBackward):
    """x.uniform_()"""


class NormalBackward0(_OverwrittenBackward):
    """x.normal_()"""


class RandomBackward0(_OverwrittenBackward):
    """x.random_(from, to)"""


class RandomBackward1(_OverwrittenBackward):
    """x.random_(to)"""


class RandomBackward2(_OverwrittenBackward):
    """x.random_()"""


class BernoulliBackward1(Node):
    """x.bernoulli_(p tensor):  p gets no gradient (sampling is not differentiable)"""

    def backward(self, grad):
        return zeros_like(grad), None


class BernoulliBackward2(_OverwrittenBackward):
    """x.bernoulli_(p number)"""


class ExponentialBackward0(_OverwrittenBackward):
    """x.exponential_()"""


class CauchyBackward0(_OverwrittenBackward):
    """x.cauchy_()"""


class LogNormalBackward0(_OverwrittenBackward):
    """x.log_normal_()"""


class GeometricBackward0(_OverwrittenBackward):
    """x.geometric_(p)"""


def copy_(self, src, non_blocking=False):
    """Copy src's values (broadcast, any dtype) into this tensor's memory."""
    if isinstance(src, (bool, int, float, np.number, np.bool_)):
        if isinstance(src, int):
            check_int_argument(src)  # read as an int64 or uint64 first, like every argument
        src = Tensor._from_numpy_array(np.array(src))  # torch takes a number as a 0-d tensor
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type_name(src)}")
    check_inplace(self, src, differentiable=self._data.dtype.kind == "f")
    if src is not self and not _same_data(self, src):  # (copy_into returns early then)
        check_no_overlap(self, (src,))  # (before the shapes, as in torch)
    shape = broadcast_shape(self._data.shape, src._data.shape)
    if shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")
    return copy_into(self, src)


def fill_(self, value):
    """Set every element to ``value``."""
    if isinstance(value, Tensor):
        check_inplace(self, value)  # (autograd's refusals before the kernel's)
        if value._data.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        # torch fills with a tensor by copy_, which refuses memory that repeats itself (a fill
        # with a number does not look)
        check_no_overlap(self, ())
        with np.errstate(invalid="ignore", over="ignore"):
            return _fill_raw(self, cast(value._data, self._data.dtype), FillBackward3, (value,))
    if not isinstance(value, (bool, int, float, np.number, np.bool_)):
        raise invalid_arguments_error("fill_", self, value, first_is_self=True, printed=(
            "(Tensor input, Tensor value)", "(Tensor input, Number value)"))
    # autograd's refusals come before the kernel checks the number (fuzz 2072228), but after
    # the parser reads it (2 ** 64: OverflowError);
    # (one element of float16 is set as a float: too big a number becomes inf, unchecked)
    parsed_number(value)
    check_inplace(self)
    value = checked_scalar(value, self._data.dtype, check_half=self._data.size != 1)
    return _fill_raw(self, value, FillBackward2, checked=True)


@overloads("(Tensor input, Tensor value)", "(Tensor input, Number value)")
def fill(input, value):
    """out = a tensor laid out like input, every element ``value`` (fill_, not in place)."""
    with no_grad():
        result = fill_(empty_preserving_layout(input), value)
    if isinstance(value, Tensor):
        refuse_integer_history(result, input, value)
        return record(FillBackward1, result, (input, value))
    return record(FillBackward0, result, (input,))


class FillBackward0(_OverwrittenBackward):
    """torch.fill(x, number):  the result does not depend on x"""


class FillBackward1(FillBackward3):
    """torch.fill(x, value tensor):  value's gradient is the sum, x's zero"""


def zero_(self):
    """Set every element to 0."""
    return _fill_raw(self, 0, ZeroBackward0)


def _in_fill_order(self, draw):
    """``draw(shape)``'s values in the order torch's kernels fill this tensor's memory."""
    return rng.in_fill_order(draw, self._data.shape, self.stride())


def _written_once(tensor):
    """torch's random fills refuse memory that repeats itself (an expanded tensor), where
    fill_ and zero_ write it all the same."""
    check_no_overlap(tensor, ())


@overloads("(Tensor input, float from = 0, float to = 1, *, torch.Generator generator = None)")
def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    """Fill with uniform random numbers in [from, to)."""
    rng.check_uniform_bounds(self._data.dtype, from_, to)
    _written_once(self)
    return _fill_raw(self, _in_fill_order(self, lambda shape: rng.uniform(
        shape, self._data.dtype, from_, to, generator)), UniformBackward0)


@overloads("(Tensor input, float mean = 0, float std = 1, *, torch.Generator generator = None)")
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal random numbers."""
    if not std >= 0:  # (nan too)
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if self._data.size == 0:  # (no kernel runs: any dtype will do)
        return _fill_raw(self, self._data, NormalBackward0)
    if self._data.dtype.kind != "f":
        raise not_implemented_for("normal_kernel_cpu", self._data.dtype)
    _written_once(self)
    contiguous = self.is_contiguous()  # (torch's 16-at-a-time path is for contiguous ones)
    return _fill_raw(self, _in_fill_order(self, lambda shape: rng.normal(
        shape, self._data.dtype, mean, std, generator, contiguous)), NormalBackward0)


def random_(self, *args, generator=None, **kwargs):
    """Fill with random integers: ``random_(to)`` [0, to), ``random_(from, to)`` [from, to),
    ``random_(from, None)`` from up to the dtype's largest, ``random_()`` its whole range."""
    np_dtype = self._data.dtype
    bounds = _random_bounds_arguments(args, kwargs)
    _written_once(self)
    if bounds is None:
        return _fill_raw(self, _in_fill_order(self, lambda shape: rng.random_full(
            shape, np_dtype, generator)), RandomBackward2)
    low, high, node_class = bounds
    return _fill_raw(self, _in_fill_order(self, lambda shape: rng.random_int(
        shape, np_dtype, low, high, generator)), node_class)


def _random_bounds_arguments(args, kwargs):
    """random_'s overloads, as torch's parser picks one: (), (to), (from, to) with to None
    allowed; (from, to, node class), or None for ()."""
    if not args and not kwargs:
        return None
    if len(args) > 2:
        raise TypeError(f"random_() takes 2 positional arguments but {len(args)} were given")
    named = dict(zip(("to",) if len(args) == 1 and not kwargs else ("from", "to"), args))
    for twice in set(named) & set(kwargs):
        raise TypeError(f"random_() got multiple values for argument '{twice}'")
    if not set(kwargs) <= {"from", "to"}:
        raise _random_arguments_error(args, kwargs)
    named.update(kwargs)
    if "from" in named and "to" not in named:
        raise _random_arguments_error(args, kwargs)
    for key, value in named.items():
        if value is None and key == "to" and "from" in named:
            continue
        if not signatures.is_int(value):  # (torch's ints: a 0-d integer tensor too)
            raise _random_arguments_error(args, kwargs)
        named[key] = value = value.__index__()
        if not -2**63 <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
    if "from" not in named:
        return 0, named["to"], RandomBackward1
    return named["from"], named["to"], RandomBackward0


def _random_arguments_error(args, kwargs):
    return signatures.refuse("random_", _RANDOM_, True, args, kwargs, notes=True,
                             as_called=True)


_RANDOM_ = tuple(f"(Tensor input, {bounds}*, torch.Generator generator = None)"
                 for bounds in ("", "int from, int? to, ", "int to, "))


_BERNOULLI_ = ("(Tensor input, Tensor p, *, torch.Generator generator = None)",
               "(Tensor input, float p = 0.5, *, torch.Generator generator = None)")


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 1 (probability p) or 0."""
    if not isinstance(p, Tensor) and not signatures.fits(p, "float") or (
            generator is not None and not isinstance(generator, rng.Generator)):
        raise invalid_arguments_error("bernoulli_", self, p, first_is_self=True, keywords={
            "generator": generator} if generator is not None else {}, printed=_BERNOULLI_)
    probs = p
    if isinstance(p, Tensor):
        with no_grad():  # (expand for torch's message when p does not fit, not for a graph)
            probs = expand(p, self._data.shape)._data
        if probs.size and probs.dtype.kind != "f":
            raise not_implemented_for("bernoulli_tensor_cpu_p_", probs.dtype)
    elif not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    _written_once(self)
    values = rng.bernoulli(probs, self._data.shape, self._data.dtype, generator)
    if isinstance(p, Tensor):
        return _fill_raw(self, values, BernoulliBackward1, (p,))
    return _fill_raw(self, values, BernoulliBackward2)


@overloads("(Tensor input, float lambd = 1, *, torch.Generator generator = None)")
def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with exponential random numbers of rate lambd (floats only)."""
    if not lambd > 0:  # (nan too)
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    if self._data.size == 0:
        return _fill_raw(self, self._data, ExponentialBackward0)
    _written_once(self)
    if self._data.dtype.kind != "f":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           "dtype must be a floating point but you specified "
                           f"{scalar_type_name[from_numpy_dtype[self._data.dtype]]}")
    return _fill_raw(self, rng.exponential(self._data.shape, self._data.dtype, lambd,
                                               generator), ExponentialBackward0)


@overloads("(Tensor input, float median = 0, float sigma = 1, *, torch.Generator generator = None)")
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with Cauchy random numbers around median, of scale sigma (floats only)."""
    median, sigma = float(median), float(sigma)
    if not sigma > 0:  # (nan too)
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    if self._data.dtype.kind != "f":  # (even with no elements)
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. "
                           "dtype must be a floating point but you specified "
                           f"{CPP_TYPE_NAMES[self._data.dtype.name]}")
    _written_once(self)
    return _fill_raw(self, _in_fill_order(self, lambda shape: rng.cauchy(
        shape, self._data.dtype, median, sigma, generator)), CauchyBackward0)


@overloads("(Tensor input, float mean = 1, float std = 2, *, torch.Generator generator = None)")
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with numbers whose log is normal(mean, std) (floats only)."""
    mean, std = float(mean), float(std)
    if not std > 0:  # (nan too)
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    _written_once(self)
    if self._data.dtype.kind != "f" and self._data.size:  # (no kernel runs for no elements)
        raise not_implemented_for("log_normal_cpu", self._data.dtype)
    return _fill_raw(self, _in_fill_order(self, lambda shape: rng.log_normal(
        shape, self._data.dtype, mean, std, generator)), LogNormalBackward0)


@overloads("(Tensor input, float p, *, torch.Generator generator = None)")
def geometric_(self, p, *, generator=None):
    """Fill with the number of trials up to a first success of probability p (any dtype
    but bool)."""
    p = float(p)
    if not 0 < p < 1:  # (nan too)
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    _written_once(self)
    if self._data.dtype.kind == "b" and self._data.size:  # (no kernel runs for no elements)
        raise not_implemented_for("geometric_cpu", self._data.dtype)
    return _fill_raw(self, _in_fill_order(self, lambda shape: rng.geometric(
        shape, self._data.dtype, p, generator)), GeometricBackward0)
