"""What the operations share: operands and type promotion, the layout of results, ``out=``.

The families (arithmetic.py, unary.py, ...) import only the names in ``__all__``, grouped
there as in this file; everything else here is this module's own.
"""
import builtins
import functools
import sys
from collections import namedtuple
import inspect
import warnings

import numpy as np

from ..fidelity import calls, dtypes, messages, signatures
from ..fidelity.dtypes import from_numpy_dtype, result_type, scalar_type_name
from ..fidelity.floating import cast, copy_cast, quietly, silent_runner
from ..fidelity.layout import (contiguous_strides, format_strides, iterator_strides,
                               preserved_strides)
from ..fidelity.messages import type_name
from ..fidelity.scalars import check_int_argument
from ..core.grad_mode import mode as grad_mode, no_grad
from ..core.saved import default_hooks
from ..core.tensor import Tensor, empty_preserving_layout, empty_strided, is_plain_contiguous, wrap

# torch computes inf and nan without a word, numpy warns ("overflow encountered in
# multiply"): numpy's floating-point warnings from the operations here are silenced.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"engine\.ops\.")

__all__ = [
    # operands: numbers, type promotion, torch's errors for operands and dtypes
    "PYTHON_NUMBERS", "PYTHON_AND_NUMPY_NUMBERS", "FLOAT16", "numpy_axes", "scalar_value",
    "number_argument", "number_parameters",
    "operand_type_error", "invalid_arguments_error", "not_implemented_for", "require_tensors",
    "promote_operands", "broadcast_error", "operands_broadcast_shape", "apply_ufunc",
    "refuse_saving_inference", "refuse_integer_history", "histories_first",
    "histories_read_first",
    "reading_histories_first",
    "require_tensor_sequence",
    # results laid out as torch lays them out
    "wrap_like_operands", "elementwise", "wrap_elementwise", "laid_out_as_kernel",
    "laid_out_row_major", "float_operands", "widened",
    "float_dtype_for", "half_with_scalar", "is_half_with_scalar", "is_bool",
    "zero_gradient_like",
    # arguments: numpy's names, two numbers, out=, inputs that are not tensors
    "numpy_names", "overloads", "two_numbers_allowed", "takes_out", "size_arguments",
    "keyword_sizes", "ABSENT", "TENSOR_OR_NUMBER_OTHER", "NUMBER_OR_TENSOR_SELF",
    "hands_failures_to_vmap", "NUMBER_SELF_WITHOUT_OUT", "named_result", "return_types",
    "filed_return_type",
    "out_of_results_dtype", "tensor_inputs", "write_out", "elementwise_shape", "input_shape",
    "factory_out", "named_arguments", "out_dtype_is", "resize_out", "resize_out_first",
    "out_of_inputs_dtype", "out_holds_result_type",
    # copies and empty tensors in a given memory layout
    "empty_in_format", "copy_preserving_layout", "laid_out_like",
]

PYTHON_NUMBERS = (builtins.int, builtins.float, builtins.bool)
_PY_SCALAR_TYPES = frozenset(PYTHON_NUMBERS)
FLOAT16 = np.dtype(np.float16)
_BOOL = np.dtype(np.bool_)
PYTHON_AND_NUMPY_NUMBERS = (builtins.int, builtins.float, builtins.bool, np.number, np.bool_)


def numpy_axes(dims, ndim):
    """``dims`` as numpy's ``axis=``: numpy has no axes on a 0-d array, where torch allows
    dim 0 / -1."""
    return None if ndim == 0 else dims


def scalar_value(value):
    """A Python number for ``value``, read as torch reads numpy scalars."""
    if isinstance(value, np.generic):
        # torch reads a numpy number as the Python number it converts to, except
        # np.bool_, which it reads through __float__ (so `x * np.bool_(True)` is float)
        return builtins.float(value) if value.dtype.kind == "b" else value.item()
    return value


def number_argument(value, function, name):
    """A ``Number`` argument (``alpha=``, ``value=``) as torch's argument parser reads it: a
    Python number as it is, a numpy number by ``scalar_value``, a 0-d tensor that does not
    require grad by its value; anything else (a 1-element tensor too) is refused."""
    if value.__class__ in _PY_SCALAR_TYPES:
        return value
    if isinstance(value, Tensor):
        if value._data.ndim == 0 and not value.requires_grad:
            return value.item()
    elif isinstance(value, PYTHON_AND_NUMPY_NUMBERS):
        return scalar_value(value)
    raise TypeError(f"{function}(): argument '{name}' must be Number, not {type_name(value)}")


def number_parameters(name, kinds, always_positional=False):
    """torch's parser for some of an op's parameters, ``kinds`` by name as torch prints them
    ("Number", "float", "int", "bool", "Tensor", "tuple of ints[1]"; "?" takes None; "SymInt"
    and "tuple of SymInts" for torch's SymInts): what does not fit is torch's TypeError,
    naming its position if it came by position (always, for a torch.nn.functional written in
    Python that passes it on by position). A Number or a float: a Python or numpy number, or
    a 0-d tensor that does not require grad. An int or a tuple of ints reaches the op as
    Python ints (fidelity/signatures.py: read)."""
    def decorate(op):
        names = list(inspect.signature(op).parameters)
        checks = [(names.index(p), p, kind) for p, kind in kinds.items()]
        ints = [check for check in checks if "int" in check[2].lower()]
        numbers = [check for check in checks if check[2].rstrip("?") in ("Number", "float")]

        @functools.wraps(op)
        def checked(*args, **kwargs):
            for index, parameter, kind in checks:
                if index < len(args):
                    value, by_position = args[index], True
                elif parameter in kwargs:
                    value, by_position = kwargs[parameter], always_positional
                else:
                    continue
                if kind.startswith("tuple of ") and isinstance(value, (tuple, list)):
                    where = f" (position {calls.position(index + 1)})" if by_position else ""
                    signatures.int_list_checked(name, parameter, value, where, unpack=False)
                elif not signatures.fits(value, kind):
                    where = f" (position {calls.position(index + 1)})" if by_position else ""
                    printed = signatures.printed_kind(kind)
                    raise TypeError(f"{name}(): argument '{parameter}'{where} must be "
                                    f"{printed}, not {type_name(value)}")
            for index, parameter, kind in ints:  # (read once all fit, as torch's parser)
                if index < len(args):
                    args = (*args[:index], signatures.read(name, parameter, kind, args[index]),
                            *args[index + 1:])
                elif parameter in kwargs:
                    kwargs[parameter] = signatures.read(name, parameter, kind, kwargs[parameter])
            for index, parameter, _ in numbers:  # (a 0-d tensor read as its value: torch's
                if index < len(args) and isinstance(args[index], Tensor):  # float16 3 is 3.0)
                    args = (*args[:index], args[index].item(), *args[index + 1:])
                elif isinstance(kwargs.get(parameter), Tensor):
                    kwargs[parameter] = kwargs[parameter].item()
            return op(*args, **kwargs)

        return checked
    return decorate


def _cast_scalar(value, np_dtype):
    """A Python number as a numpy scalar of ``np_dtype``, as torch converts an operand.

    An integer too big for the dtype wraps around as C casts do (300 -> 44 in int8),
    and a float too big for float16/float32 becomes inf.
    """
    if value.__class__ is builtins.int:
        check_int_argument(value)
    if np_dtype.char == "e" and value.__class__ is not builtins.int:
        if -65520.0 < value < 65520.0:  # (a double becomes a half through a float)
            return np.float16(np.float32(value))
        with np.errstate(over="ignore"):  # (inf, silently)
            return np.float16(np.float32(value))
    limit = _FLOAT_MAX.get(np_dtype.char)
    if limit is not None and not -limit <= value <= limit:
        with np.errstate(over="ignore"):  # numpy would warn
            return np_dtype.type(value)
    try:
        return np_dtype.type(value)
    except OverflowError:
        if value.__class__ is not builtins.int:
            raise
        return np.array(value % 2**64, np.uint64).astype(np_dtype)[()]


_FLOAT_MAX = {"e": 65504.0, "f": 3.4028234663852886e38}  # the largest float16 and float32


def operand_type_error(name, value, position, argument="other"):
    """torch's TypeError for a non-tensor operand (positions count from 1 without self in a
    method call: ``t.add("a")`` says position 1, ``torch.add(t, "a")`` position 2)."""
    where = "" if calls.given_by_keyword(argument) else f" (position {calls.position(position)})"
    return TypeError(f"{name}(): argument '{argument}'{where} must be Tensor, not "
                     f"{type_name(value)}")


class return_types:  # noqa: N801 - mirrors torch.return_types
    """torch.return_types' named tuples (max, sort, aminmax, slogdet ...), filed here by
    ``filed_return_type`` as each op family makes them; engine/return_types.py shows them."""


def filed_return_type(kind):
    """``kind`` as torch.return_types.<its name>: in ``return_types``, and at home in the
    module engine.return_types, where pickle and copy look for it (torch's are picklable)."""
    kind.__module__ = "engine.return_types"
    kind.__qualname__ = kind.__name__
    setattr(return_types, kind.__name__, kind)
    return kind


def named_result(op, fields):
    """torch.return_types.<op>: a named tuple that prints, and names itself in errors, as
    torch's C type does."""
    def __repr__(self):
        shown = ",\n".join(f"{name}={value!r}" for name, value in zip(fields, self))
        return f"torch.return_types.{op}(\n{shown})"

    return filed_return_type(type(
        op, (namedtuple("_" + op, fields), messages.CTypeAttributeErrors),
        {"__slots__": (), "__repr__": __repr__, "torch_type_name": f"torch.return_types.{op}"}))


def invalid_arguments_error(name, *args, first_is_self=False, keywords=None, overloads=(),
                            printed=()):
    """torch's message when no overload of ``name`` takes these argument types. When the
    first argument is the tensor a method is called on, a method call's list leaves it out
    (``first_is_self``), as torch's does. ``keywords``: the arguments given by name (else
    read from the learner's call); ``overloads``: the lines of torch's list of signatures,
    when the message gives them; or ``printed``: torch's signatures as ``overloads()`` takes
    them, for the list a function call or a method call shows, with torch's notes."""
    if keywords is None:
        args, keywords = _split_keywords(args, sys._getframe(1))
    method = first_is_self and calls.called_as_method()
    if method:
        args = args[1:]
    if printed:  # (x.fmod_("a") is refused as fmod_)
        called = calls.called_name()
        return signatures.refuse(called if called == name + "_" else name, printed, method, args,
                                 keywords, notes=True, as_called=True)
    listed = "".join(f"\n{line}" for line in overloads) + ("\n" if overloads else "")
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({signatures.listed_arguments(args, keywords or {})}), but expected one "
                     f"of:{listed}")


def size_arguments(sizes, name, keyword="size", listed=(), position=1, keywords=None):
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the shape (2, 3), torch's
    ``SymInt[] size`` read as its parser reads one (fidelity/signatures.py: an integer tensor
    of one element is its int, a bool one torch's RuntimeError); otherwise torch's parser's
    errors. ``listed``: the op's overloads when it has several (view: a dtype or a size), so
    that one value of another type is "an invalid combination"; ``position``: the
    sequence's, as torch's messages give it (None: given by keyword; or a function that
    tells, asked only for a message); ``keywords()``: the other arguments' type checks, made
    once the first element fits, before the others are unpacked (as torch's parser)."""
    if len(sizes) == 1 and type(sizes[0]).__module__ == "engine.return_types":
        if listed:  # (torch's parser reads it as one value, matching no overload)
            raise signatures.refuse(name, listed, False, sizes, {}, notes=True, as_called=True)
        raise _not_sizes(name, keyword, position, sizes[0])
    if len(sizes) == 1 and not isinstance(sizes[0], (tuple, list)):
        only = sizes[0]
        if only.__class__ is int:
            return sizes
        if signatures.is_symint(only):
            return signatures.unpack_ints(name, keyword, sizes, symint=True)
        if listed:
            raise signatures.refuse(name, listed, False, sizes, {}, notes=True, as_called=True)
        position = position() if callable(position) else position
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{name}(): argument '{keyword}'{where} must be tuple of ints, "
                        f"not {type_name(only)}")
    if len(sizes) > 1:
        if not signatures.is_symint(sizes[0]):
            if listed:
                raise signatures.refuse(name, listed, False, sizes, {}, notes=True,
                                        as_called=True)
            raise TypeError(f"{name}() takes 1 positional argument but {len(sizes)} were given")
    else:
        sizes = sizes[0]
        if sizes and not signatures.is_symint(sizes[0]):
            # (the first element decides whether the sequence is sizes: a bool is not one,
            # though after it a bool counts as an integer)
            if listed:
                raise signatures.refuse(name, listed, False, (sizes,), {}, notes=True,
                                        as_called=True)
            raise _not_sizes(name, keyword, position, sizes)
    if keywords is not None:
        keywords()
    return signatures.unpack_ints(name, keyword, sizes, symint=True)


def _not_sizes(name, keyword, position, sequence):
    """torch's error for a sequence whose first element is not an integer (given by keyword,
    the sequence is named as a whole)."""
    position = position() if callable(position) else position
    if position is None:
        return TypeError(f"{name}(): argument '{keyword}' must be tuple of ints, not "
                         f"{type_name(sequence)}")
    return TypeError(f"{name}(): argument '{keyword}' (position {position}) must be tuple of "
                     f"ints, but found element of type {type_name(sequence[0])} at pos 0")


ABSENT = object()  # a size not given by keyword


def keyword_sizes(name, keyword, sizes, given):
    """``f(size=(2, 3))``: a size given by keyword, as torch's parser reads it (a list or a
    tuple only, and not beside sizes given by position)."""
    if given is ABSENT:
        return sizes
    if sizes:
        raise TypeError(f"{name}() got multiple values for argument '{keyword}'")
    if not isinstance(given, (tuple, list)):
        raise TypeError(f"{name}(): argument '{keyword}' must be tuple of ints, not "
                        f"{type_name(given)}")
    return (given,)


def _split_keywords(args, frame):
    """``args`` (the values an engine function got, in its parameters' order) parted into
    those the learner passed by position and those passed by keyword (named as the function
    in ``frame`` names them: torch's names)."""
    code = frame.f_code
    unused = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    names = []
    for value in args:
        name = next((n for n in unused if frame.f_locals.get(n) is value), None)
        if name is not None:
            unused.remove(name)
        names.append(name)
    return calls.parted_by_keyword(args, names)


def not_implemented_for(kernel, np_dtype):
    """torch's error for a dtype its kernel is not compiled for, e.g. bool in floor_divide."""
    return NotImplementedError(f"\"{kernel}\" not implemented for "
                               f"'{scalar_type_name[from_numpy_dtype[np_dtype]]}'")


def require_tensor_sequence(value, op, argument, position):
    """torch's parser's checks of a ``tuple of Tensors`` argument (column_stack's tensors,
    index_put's indices), whose elements it numbers within the argument counted from 0."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{op}(): argument '{argument}' (position {position}) must be tuple of "
                        f"Tensors, not {type_name(value)}")
    for number, element in enumerate(value):
        if not isinstance(element, Tensor):
            raise TypeError(f"expected Tensor as element {number} in argument {position - 1}, "
                            f"but got {type_name(element)}")


def require_tensors(name, input, other, other_name="other", input_name="input", position=1):
    """For functions torch only defines on two tensors (maximum, atan2, mm ...): ``input``
    is the argument at ``position`` (addmm's mat1 is its second)."""
    if not isinstance(input, Tensor):
        raise operand_type_error(name, input, position, input_name)
    if not isinstance(other, Tensor):
        raise operand_type_error(name, other, position + 1, other_name)


def cast_keeping_strides(x, dtype):
    """``x`` in ``dtype``; an expanded array (strides of 0) stays expanded, so that the
    result's layout follows the operands' strides as torch's (which casts inside its loop):
    numpy's astype would lay the repeated elements out in memory."""
    if x.dtype == dtype:
        return x
    if x.ndim and 0 in x.strides:
        compact = x[tuple(slice(0, 1) if s == 0 else slice(None) for s in x.strides)]
        return np.broadcast_to(cast(compact, dtype), x.shape)
    return cast(x, dtype)


def promote_operands(a, b, name="op"):
    """numpy operands for ``a`` and ``b`` converted to torch's common dtype, and that dtype.

    Either side may be a Python number. Same-dtype tensors (the usual case) pass
    straight through; otherwise torch's promotion picks the dtype (see dtypes.result_type).
    """
    a_is_tensor = isinstance(a, Tensor)
    b_is_tensor = isinstance(b, Tensor)
    if a_is_tensor and b_is_tensor:
        ad, bd = a._data, b._data
        if ad.dtype == bd.dtype:
            return ad, bd, ad.dtype
        common = result_type(a, b).numpy_dtype
        return cast_keeping_strides(ad, common), cast_keeping_strides(bd, common), common
    if a_is_tensor:
        ad = a._data
        if ad.dtype.kind == "f" and (b.__class__ is builtins.float or b.__class__ is builtins.int):
            return ad, _cast_scalar(b, ad.dtype), ad.dtype  # (a float tensor keeps its dtype)
        if b.__class__ not in _PY_SCALAR_TYPES:  # a numpy number, or no number at all
            b = scalar_value(b)
            if not isinstance(b, PYTHON_NUMBERS):
                raise operand_type_error(name, b, 2)
        common = result_type(a, b).numpy_dtype
        return cast_keeping_strides(a._data, common), _cast_scalar(b, common), common
    if b_is_tensor:
        a = scalar_value(a)
        if not isinstance(a, PYTHON_NUMBERS):
            raise operand_type_error(name, a, 1, "input")
        common = result_type(a, b).numpy_dtype
        return _cast_scalar(a, common), cast_keeping_strides(b._data, common), common
    raise operand_type_error(name, a, 1, "input")


def refuse_saving_inference(inputs, saved):
    """torch's autograd saves what an op's backward needs before the op runs: an inference
    tensor among ``saved`` is refused before the op looks at shapes or dtypes (``w * x``
    with w made in inference_mode and x requiring grad, even when they do not broadcast)."""
    for value in saved:  # (rarely an inference tensor: asked first, as the cheaper question)
        if getattr(value, "_inference", False) and grad_mode.recording and \
                not grad_mode.inference and builtins.any(
                    getattr(tensor, "_requires_grad", False) for tensor in inputs):
            raise RuntimeError(messages.INFERENCE_SAVED)


def histories_first(*values):
    """On an op's error path only (its kernel refused the operands: shapes that do not
    broadcast): torch's autograd reads the operands' nodes before the kernel runs, so a view
    made in no_grad or inference mode whose memory changed in place since raises that error
    first (reading ``Tensor.grad_fn`` brings a view's node up to date, or raises)."""
    if grad_mode.recording:
        for value in values:
            if isinstance(value, Tensor):
                value.grad_fn  # noqa: B018


def histories_read_first(module_globals, names):
    """Give the ops ``names`` of a family torch's order of errors for a stale view: torch's
    autograd reads each input's node before the op checks its dims, sizes and indices, so
    a view made in no_grad mode or by unbind (and the like) whose memory changed in place
    since raises that error first (``a.sum(5)``, ``torch.dot(a, b)`` of the wrong sizes).
    The engine's ops check as they compute: on their error path, the nodes are read then.
    Not for ops without a derivative (argmax, eq ...) nor for those torch builds from others
    after checking their arguments itself (outer, narrow, flatten ...): their errors come
    first in torch too."""
    for name in names:
        op = module_globals[name]
        if callable(op) and not isinstance(op, type):
            module_globals[name] = reading_histories_first(op)


def reading_histories_first(op):
    """``op`` with torch's order of errors for a stale view (histories_read_first)."""
    if getattr(op, "reads_histories_first", False):
        return op

    @functools.wraps(op)
    def reading_first(*args, **kwargs):
        try:
            return op(*args, **kwargs)
        except (RuntimeError, IndexError) as error:
            stale = None if isinstance(error, NotImplementedError) else \
                _stale_history(args, kwargs)
            if stale is None:
                raise
        raise stale  # (outside the except clause: torch's error alone, not the op's below it)

    inner = getattr(op, "without_out", op)  # (a Tensor method's op, without out=)
    reading_first.without_out = reading_first if inner is op else \
        reading_histories_first(inner)
    reading_first.reads_histories_first = True
    return calls.passes_through(reading_histories_first, reading_first)


def _stale_history(args, kwargs):
    """The error torch's autograd raises reading the nodes of an op's inputs (when any of
    them requires grad), or None."""
    if not grad_mode.recording:
        return None
    tensors = [value for value in (*args, *kwargs.values()) if isinstance(value, Tensor)]
    tensors += [item for value in (*args, *kwargs.values()) if isinstance(value, (list, tuple))
                for item in value if isinstance(item, Tensor)]
    if not builtins.any(tensor._requires_grad for tensor in tensors):
        return None
    for tensor in tensors:
        try:
            tensor.grad_fn  # noqa: B018 (read for its check)
        except RuntimeError as error:
            return error
    return None


def broadcast_error(*operands):
    """torch's message for operands that do not broadcast, naming the first bad dimension.

    torch broadcasts the operands' shapes from left to right: "tensor a" is the shape
    broadcast so far, "tensor b" the next operand.
    """
    shapes = [np.shape(x) for x in operands]
    sa = shapes[0]
    for sb in shapes[1:]:
        ndim = builtins.max(len(sa), len(sb))
        for i in range(1, ndim + 1):
            na = sa[-i] if i <= len(sa) else 1
            nb = sb[-i] if i <= len(sb) else 1
            if na != nb and na != 1 and nb != 1:
                return RuntimeError(f"The size of tensor a ({na}) must match the size of tensor "
                                    f"b ({nb}) at non-singleton dimension {ndim - i}")
        sa = np.broadcast_shapes(sa, sb)
    return RuntimeError(f"shapes {[list(s) for s in shapes]} cannot be broadcast")


def operands_broadcast_shape(*operands):
    """The shape the operands (arrays or numbers) broadcast to, or torch's error if none."""
    try:
        return np.broadcast_shapes(*[np.shape(x) for x in operands])
    except ValueError:
        raise broadcast_error(*operands) from None


def apply_ufunc(ufunc, x, y):
    """``ufunc(x, y)`` with torch's broadcasting error instead of numpy's."""
    try:
        return quietly(ufunc, x, y)
    except ValueError:
        raise broadcast_error(x, y) from None


# ---------------------------------------------------------------- result layout
def _row_major(x):
    return x.__class__ is not np.ndarray or x.flags.c_contiguous


def _elementwise_strides(shape, operands):
    """The strides torch's TensorIterator gives a result of ``shape`` computed from the numpy
    arrays among ``operands``, in order."""
    operand_strides = []
    for x in operands:
        if x.__class__ is np.ndarray:
            # broadcast dimensions get stride 0: they have no say in the order
            lead = len(shape) - x.ndim
            operand_strides.append((0,) * lead + tuple(
                0 if n == 1 and m != 1 else s // x.itemsize
                for n, m, s in zip(x.shape, shape[lead:], x.strides)))
    same_shape = builtins.all(x.shape == shape for x in operands if x.__class__ is np.ndarray)
    return iterator_strides(shape, operand_strides, same_shape)


def wrap_like_operands(result, operands):
    """``result`` as a tensor laid out in memory as torch lays out this elementwise result."""
    shape = result.shape
    strides = _elementwise_strides(shape, operands)
    if strides == contiguous_strides(shape):
        return wrap(np.ascontiguousarray(result) if result.ndim else result)
    tensor = empty_strided(shape, strides, result.dtype)
    np.copyto(tensor._data, result)
    return tensor


def laid_out_as_kernel(result, *operands):
    """``result``, a gradient just computed by a formula, laid out as torch's backward kernel
    over ``operands`` (in the kernel's order: most take the incoming gradient first,
    threshold's and leaky_relu's the input) lays out its output. TensorIterator: the first
    operand's order of dimensions wins, the next decides where the first is broadcast; the
    engine's formula ends with an op whose operands come in another order. Same values, only
    the memory order changes (under create_graph the result keeps its place in the graph)."""
    data = result._data
    if data.ndim < 2 or result._base is not None or \
            builtins.any(result is x for x in operands):
        return result
    return _relaid(result, _elementwise_strides(data.shape, [x._data for x in operands]))


def laid_out_row_major(result):
    """``result``, a gradient just computed by a formula, row-major as torch's backward
    kernels that write into a fresh contiguous tensor lay it out (the losses': mse, huber,
    smooth_l1); same values, its place in a create_graph graph kept."""
    data = result._data
    if data.ndim < 2 or result._base is not None:
        return result
    return _relaid(result, contiguous_strides(data.shape))


def _relaid(result, strides):
    if strides == result.stride():
        return result
    data = result._data
    relaid = empty_strided(data.shape, strides, data.dtype)
    np.copyto(relaid._data, data)
    result._data, result._stride, result._storage = relaid._data, relaid._stride, \
        relaid._storage
    return result


def elementwise(ufunc, x, y):
    """``ufunc(x, y)`` as a tensor, with torch's broadcasting error and result layout."""
    try:
        result = silent_runner()(ufunc, x, y)  # quietly(ufunc, x, y): inf and nan silently
    except ValueError:
        raise broadcast_error(x, y) from None
    # (inlined _row_major: this is every arithmetic operation's path)
    if result.ndim > 1 and ((x.__class__ is np.ndarray and not x.flags.c_contiguous)
                            or (y.__class__ is np.ndarray and not y.flags.c_contiguous)):
        return wrap_like_operands(result, (x, y))
    return wrap(result)


def wrap_elementwise(result, *operands):
    """``wrap(result)`` laid out as torch lays out an elementwise result of ``operands``."""
    if result.ndim > 1 and not builtins.all(_row_major(x) for x in operands):
        return wrap_like_operands(result, operands)
    return wrap(result)


def widened(grad):
    """A float16 gradient in float32, for a formula torch computes in float32 and rounds
    once: its zero strides kept (a sum's gradient is one number expanded), so that the
    formula's result is laid out as torch's kernel lays it out on its float16 operands."""
    data = grad._data
    if 0 not in data.strides:
        return grad.float()
    repeated = tuple(slice(0, 1) if step == 0 else slice(None) for step in data.strides)
    if grad_mode.grad_enabled:  # (create_graph: the same, recorded)
        return grad[repeated].float().expand(data.shape)
    return wrap(np.broadcast_to(data[repeated].astype(np.float32, order="K"), data.shape))


def float_operands(input, other, a, b, common):
    """Operands for an op that computes in floating point (true division, atan2).

    Integers compute in the default float dtype, and every operand is converted
    straight to it (uint8 / -2 divides by -2.0, not by -2 wrapped into uint8).
    """
    if common.kind == "f":
        return a, b, common
    target = dtypes.get_default_dtype().numpy_dtype
    # each operand goes straight from its own dtype: uint8 / int8(-99) divides by -99.0
    a = _cast_keeping_layout(input._data, target) if isinstance(input, Tensor) else \
        target.type(scalar_value(input))
    b = _cast_keeping_layout(other._data, target) if isinstance(other, Tensor) else \
        target.type(scalar_value(other))
    return a, b, target


def _cast_keeping_layout(data, target):
    """``data`` in ``target``, its broadcast dimensions still broadcast (numpy's astype would
    lay an expanded tensor out column-major, and the result would follow)."""
    if data.size and 0 in data.strides:
        one = tuple(slice(0, 1) if s == 0 else slice(None) for s in data.strides)
        return np.broadcast_to(cast(data[one], target), data.shape)
    return cast(data, target)


def float_dtype_for(np_dtype):
    """The dtype a float-valued op (exp, sqrt, true division ...) computes in."""
    return np_dtype if np_dtype.kind == "f" else dtypes.get_default_dtype().numpy_dtype


def half_with_scalar(ufunc, a, other):
    """``ufunc(a, other)`` for a float16 ``a`` and a scalar ``other``, as torch computes it.

    torch's float16 kernels for * / // and trunc division do not round a scalar second
    operand to float16: they compute in float32 with the scalar's own value and round
    the result once. (+ and - round the scalar to float16 first, like numpy.)
    """
    value = other._data.item() if isinstance(other, Tensor) else scalar_value(other)
    with np.errstate(all="ignore"):
        result = ufunc(a.astype(np.float32), np.float32(value)).astype(np.float16)
    if isinstance(other, Tensor) and other._data.ndim:  # (one element, broadcast)
        shape = np.broadcast_shapes(result.shape, other._data.shape)
        if shape != result.shape:
            result = np.broadcast_to(result, shape).copy()
    return result


def is_half_with_scalar(common, other, single_elements=False):
    """Whether ``half_with_scalar`` computes this: float16 with a number or a 0-d tensor
    (``single_elements``: or a tensor of one element, which torch's mul and true division
    read as a scalar too: float16 * an int32 tensor([70000]) is 35008, not inf)."""
    return common is FLOAT16 and (not isinstance(other, Tensor) or other._data.ndim == 0 or (
        single_elements and other._data.size == 1))


def is_bool(value):
    """Whether ``value`` is a bool tensor or a Python bool."""
    if isinstance(value, Tensor):
        return value._data.dtype is _BOOL
    return value.__class__ is builtins.bool


def zero_gradient_like(grad):
    """A constant zero gradient (torch's zeros_like: no graph, and inf * 0 gives no nan)."""
    return wrap(np.zeros_like(grad._data))


# ====================================================================== numpy's names
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}


def numpy_names(op):
    """``x.sum(axis=0, keepdims=True)``: torch's argument parser takes numpy's ``axis`` and
    ``keepdims`` for ``dim`` and ``keepdim`` in its built-in operations (not in those written
    in Python, such as ``norm`` and ``split``); passing both names is a TypeError."""
    parameters = list(inspect.signature(op).parameters)
    positions = {name: parameters.index(name) for name in _NUMPY_NAMES.values()
                 if name in parameters}

    @functools.wraps(op)
    def op_with_numpy_names(*args, **kwargs):
        if kwargs and ("axis" in kwargs or "keepdims" in kwargs):
            kwargs = _torch_names(op.__name__, positions, args, kwargs)
        return op(*args, **kwargs)

    return op_with_numpy_names


def _torch_names(name, positions, args, kwargs):
    for key in kwargs:
        torch_name = _NUMPY_NAMES.get(key)
        if torch_name is not None and (torch_name not in positions or torch_name in kwargs
                                       or len(args) > positions[torch_name]):
            first = next(k for k in kwargs if k in _NUMPY_NAMES)  # torch names the first one
            raise TypeError(f"{name}() got an unexpected keyword argument '{first}'")
    return {_NUMPY_NAMES.get(key, key): value for key, value in kwargs.items()}


def overloads(*printed):
    """Calls checked against torch's overloads ``printed`` (as torch prints them for
    ``torch.op``, see fidelity/signatures.py) before they run: what Python's own parsing of
    the engine's signature would take but no overload of torch's does raises torch's
    TypeError (``x.sum(keepdim=True)``, ``x.std(unbiased=False, correction=0)``), with
    torch's notes under each overload."""
    methods = signatures.method_signatures(printed)
    tensor_first = all(text.lstrip(" *(").startswith("Tensor ") for text in printed)
    # (ops with an overload that takes a number first: such a call is read whole)
    functions = None if tensor_first else [signatures.Signature(text, False) for text in printed]

    def checked(op, method_only=False, function_only=False):
        name = op.__name__

        def as_method():
            return method_only or not function_only and calls.called_as_method()

        @functools.wraps(op)
        def op_as_torch_parses_it(*args, **kwargs):
            given, named, call = args[1:], kwargs, (args, kwargs)
            if not args and "input" in kwargs:  # torch.op(input=x, ...)
                named = {key: value for key, value in kwargs.items() if key != "input"}
                if isinstance(kwargs["input"], Tensor):  # (the layers below take it first)
                    args, kwargs = (kwargs["input"],), named
            # (whether this is a method call is asked only when it matters: it reads frames)
            no_out = method_only or ("out" in named and as_method())
            try:
                if args and not isinstance(args[0], Tensor):
                    if functions is not None and any(signature.parse(
                            name, args, kwargs, False, no_out) is True
                            for signature in functions):
                        return op(*args, **kwargs)
                    raise signatures.refuse(name, printed, False, *call, True, True)

                for signature in methods:
                    fits = signature.parse(name, given, named, False, no_out)
                    if fits is True:
                        read = signature.read_ints(name, given, named)
                        if read is None:
                            return op(*args, **kwargs)
                        read, read_named = read
                        if args:
                            return op(args[0], *read, **read_named)
                        return op(*read, **{**kwargs, **read_named})
                    if fits and as_method():  # x.flip(0, 1): its ints as one tuple
                        read = signature.read_ints(name, (tuple(given),), named)
                        if read is None:
                            return op(args[0], tuple(given), **kwargs)
                        return op(args[0], *read[0], **{**kwargs, **read[1]})
                if as_method():
                    raise signatures.refuse(name, printed, True, given, named, True, True)
                raise signatures.refuse(name, printed, False, *call, True, True)
            except Exception as error:  # (free until raised) vmap's hand-over, see above
                batched = vmap_operand(error, args, kwargs)
                if batched is None:
                    raise
            return batched.__torch_function__(op_as_torch_parses_it, (type(batched),), args,
                                              kwargs)

        if hasattr(op, "without_out"):  # (the method, which takes no out=)
            op_as_torch_parses_it.without_out = checked(op.without_out, method_only=True)
        if not (method_only or function_only):  # as torch's Python functions call it
            op_as_torch_parses_it.as_function = checked(op, function_only=True)
            # (for Python's operators, which pass only tensors and numbers: nothing to parse)
            op_as_torch_parses_it.unparsed = getattr(op, "without_out", op)
        op_as_torch_parses_it.parses_input_keyword = True
        op_as_torch_parses_it.torch_overloads = (printed, True)  # (with torch's notes)
        return op_as_torch_parses_it

    return checked


# ====================================================================== out=
def two_numbers_allowed(op):
    """torch.add(2, 3), torch.mul(2.0, 3) ...: with two numbers the first becomes a 0-d tensor
    of its own dtype (torch's Scalar overloads give a tensor); other ops refuse a number there."""
    @functools.wraps(op)
    def with_numbers(input, other, *args, **kwargs):
        if isinstance(input, PYTHON_AND_NUMPY_NUMBERS) and \
                isinstance(other, PYTHON_AND_NUMPY_NUMBERS):
            input = wrap(np.array(input, _number_tensor_dtype(scalar_value(input), other)))
        return op(input, other, *args, **kwargs)

    with_numbers.without_out = op.without_out
    return with_numbers


# ====================================================================== vmap's hand-over
# The one place where an engine function meets vmap's BatchedTensor (engine/func): a call
# that failed with one among its arguments goes to the BatchedTensor's __torch_function__,
# which runs its batching rule (or asks vmap for its per-sample loop). The ops know nothing
# of it: the generic wrappers every torch.<name> goes through (takes_out, overloads,
# tensor_inputs, hands_failures_to_vmap) call ``vmap_operand`` in their ``except`` branch,
# which costs nothing until an exception is raised (Python 3.11's try is free).
def vmap_operand(error, args, kwargs):
    """The first BatchedTensor among ``args``, ``kwargs`` and lists in them (a call that
    raised ``error`` hands over to it), else None (the error is the call's own). vmap's
    request for its per-sample loop (``vmap_loop``) passes on untouched."""
    if getattr(error, "vmap_loop", False):
        return None
    for value in (*args, *kwargs.values()):
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if hasattr(item, "__engine_vmap__") and item.__class__ is not Tensor:
                return item
    return None


def hands_failures_to_vmap(op):
    """``op`` with vmap's hand-over, for a torch.<name> that has none of the wrappers above
    (torch.where, clamp_min, clamp_max): one more call, ~0.1 us."""
    @functools.wraps(op)
    def handing_over(*args, **kwargs):
        try:
            return op(*args, **kwargs)
        except Exception as error:
            batched = vmap_operand(error, args, kwargs)
            if batched is None:
                raise
        return batched.__torch_function__(handing_over, (type(batched),), args, kwargs)

    handing_over.without_out = getattr(op, "without_out", op)
    return handing_over


def _number_tensor_dtype(number, other):
    """The numpy dtype of the 0-d tensor torch makes of ``number``. An int from 2**63 up makes a
    uint64 tensor, which the engine does not have: it takes the dtype that tensor would give
    with ``other`` (a float), or torch's refusal to promote uint64 with the other one."""
    d = dtypes.scalar_dtype(number)
    if d.numpy_dtype != np.uint64:
        if isinstance(other, builtins.int) and other >= 2**63:
            result_type(number, other)  # (torch: two numbers, both promoted as numbers)
        return d.numpy_dtype
    d = result_type(number, other)
    if d.numpy_dtype == np.uint64:
        raise TypeError("torch.uint64 is not a dtype of this engine (torch makes one of an "
                        "int from 2**63 up)")
    return d.numpy_dtype


def _argument_errors_first(op, args, kwargs):
    """torch parses the arguments before autograd refuses out=: an argument of the wrong type
    (``torch.maximum(y, -0.3, out=z)``) is a TypeError first. On that error path only, the
    op runs without recording to find out (not a random op: it would draw numbers)."""
    if op.__module__.endswith(".sampling"):
        return
    try:
        # (quietly: the op's warnings come after autograd's refusal in torch, so never; but
        # its parser's, a deprecated overload's, come before: given again, after)
        with no_grad(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            op(*args, **kwargs)
    except TypeError:
        raise
    except Exception:  # noqa: BLE001, S110 (autograd's refusal comes first then)
        pass
    for warning in caught:
        if str(warning.message).startswith(messages.DEPRECATED_OVERLOAD_START):
            messages.warn_from_learner(str(warning.message), warning.category)


def takes_out(op=None, *, check=None, dtype_from_out=False, differentiable=True,
              input_in_out_dtype=False, name=None, before=None, resized_first=None,
              restrides=True, number_input_overloads=None, computed_for=None, parsed=None):
    """``torch.op(..., out=t)`` for an ``op`` written without out=: run it, write the result into t.

    Only the torch.* function takes out=, as in torch: Tensor methods and operators call
    ``op`` itself (``torch.add.without_out``). ``check(result, out, *args)`` adds an op's own
    rule for out's dtype; with ``dtype_from_out`` the op computes in out's dtype (sum, cumsum),
    with ``input_in_out_dtype`` a floating input is cast to a floating out's dtype first (var);
    ``name``: the op's name in these messages, when not its own (clip's are clamp's);
    ``before(out, *args, **kwargs)``: the op's own checks of out, after the autograd check;
    ``parsed(out, *args, **kwargs)``: the op's checks of torch's parser, which counts out= among
    the arguments, before anything else (div's extra positional arguments);
    ``resized_first(args, kwargs)``: the result's shape, for an op whose kernel torch runs
    after resizing out: its kernel's errors (no kernel for the dtype, an integer division by
    zero, an index out of range) leave out resized (``KERNEL_ERRORS``). ``restrides``: an out=
    that must be resized takes the result's layout (torch's structured kernels); False, or a
    function of (args, kwargs) saying so, for an op torch composes of others (kron), whose out=
    is resized row-major. ``number_input_overloads``: torch's overloads of an op whose
    (Number self, Tensor other) overload has no out= (remainder, the bitwise ops): a number
    input with out= gets their invalid-combination message. ``computed_for(out_dtype, *args,
    **kwargs)``: the op's result as torch computes it for an out= of that dtype, for an op whose
    steps round to out's dtype part way (logsumexp).
    """
    if op is None:
        return functools.partial(takes_out, check=check, dtype_from_out=dtype_from_out,
                                 differentiable=differentiable,
                                 input_in_out_dtype=input_in_out_dtype, name=name,
                                 before=before, resized_first=resized_first,
                                 restrides=restrides,
                                 number_input_overloads=number_input_overloads,
                                 computed_for=computed_for, parsed=parsed)
    name = name or op.__name__

    @functools.wraps(op)
    def op_with_out(*args, out=None, **kwargs):
        if out is None:
            try:
                return op(*args, **kwargs)
            except Exception as error:  # (free until raised) vmap's hand-over, see above
                batched = vmap_operand(error, args, kwargs)
                if batched is None:
                    raise
            return batched.__torch_function__(op_with_out, (type(batched),), args, kwargs)
        if parsed is not None:
            parsed(out, *args, **kwargs)
        if number_input_overloads and args and isinstance(args[0], PYTHON_AND_NUMPY_NUMBERS):
            raise invalid_arguments_error(name, *args, keywords={**kwargs, "out": out},
                                          overloads=number_input_overloads)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                            f"{type_name(out)}")
        if differentiable and grad_mode.grad_enabled and _requires_grad(args, kwargs, out):
            _argument_errors_first(op, args, kwargs)
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires grad.")
        if before is not None:
            before(out, *args, **kwargs)
        asked = kwargs.get("dtype") is not None
        if dtype_from_out and not asked:
            kwargs["dtype"] = out.dtype
        if input_in_out_dtype and args and isinstance(args[0], Tensor) and \
                args[0]._data.dtype.kind == "f" and out._data.dtype.kind == "f":
            args = (args[0].to(out.dtype), *args[1:])
        refused = None
        try:
            result = op(*args, **kwargs) if computed_for is None else \
                computed_for(out._data.dtype, *args, **kwargs)
        except (RuntimeError, NotImplementedError) as error:
            refused = _cast_refused_first(error, args, out)
            if refused is None:
                if resized_first is not None and str(error).startswith(KERNEL_ERRORS):
                    shape = resized_first(args, kwargs)
                    if shape is not None and tuple(shape) != out._data.shape:
                        resize_out(out, tuple(shape))
                raise
        if refused is not None:
            raise refused
        if asked:  # (a dtype= asked for is the result's, and out's: torch.sum(..., dtype=, out=))
            out_of_results_dtype(result, out)
        if check is not None:
            if getattr(check, "sees_keywords", False):
                check(result, out, *args, **kwargs)
            else:
                check(result, out, *args)
        return write_out(result, out, restrides(args, kwargs) if callable(restrides)
                         else restrides)

    signature = inspect.signature(op)
    out_parameter = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
    op_with_out.__signature__ = signature.replace(
        parameters=[*signature.parameters.values(), out_parameter])
    op_with_out.without_out = op
    return op_with_out


# torch's overloads of a binary op whose number-first form takes no out= (remainder, bitwise)
# torch's parser's lists for a binary op of a tensor and a tensor or a number (and a number
# and a tensor, for remainder and the bitwise ops), as overloads() takes them
TENSOR_OR_NUMBER_OTHER = ("(Tensor input, Tensor other, *, Tensor out = None)",
                          "(Tensor input, Number other, *, Tensor out = None)")
NUMBER_OR_TENSOR_SELF = ("(Tensor input, Tensor other, *, Tensor out = None)",
                         "(Number self, Tensor other)",
                         "(Tensor input, Number other, *, Tensor out = None)")
NUMBER_SELF_WITHOUT_OUT = (" * (Tensor input, Tensor other, *, Tensor out = None)",
                           " * (Number self, Tensor other)",
                           " * (Tensor input, Number other, *, Tensor out = None)")


def _cast_refused_first(error, args, out):
    """add's and sub's alpha is checked by their kernel, after torch's iterator has checked
    that out's dtype can take the result's (fuzz 3667052: torch.add(x, y, alpha=True, out=w)
    of floats into int64 w names the cast): that error, when it comes first, else None."""
    if not str(error).startswith(_ALPHA_ERRORS):
        return None
    common = result_type(*[value for value in args[:2]])
    if dtypes.can_cast(common, out.dtype):
        return None
    return RuntimeError(f"result type {scalar_type_name[common]} can't be cast to the "
                        f"desired output type {scalar_type_name[out.dtype]}")


_ALPHA_ERRORS = ("Boolean alpha only supported", "For integral input tensors, argument alpha")
# errors torch's kernels raise once out= has been resized
KERNEL_ERRORS = ('"', "ZeroDivisionError", "index ", "INDICES element is out of DATA bounds",
                 "Index tensor must have the same number of dimensions",
                 # (add's and sub's kernels check alpha against the result's dtype)
                 *_ALPHA_ERRORS)


def elementwise_shape(args, kwargs):
    """The broadcast shape of the tensors among an op's arguments (out= resized first)."""
    shapes = [value._data.shape for value in (*args, *kwargs.values())
              if isinstance(value, Tensor)]
    try:
        return np.broadcast_shapes(*shapes) if shapes else None
    except ValueError:
        return None


def input_shape(args, kwargs):
    """The shape of an op's input (softmax, cumsum: out= resized first)."""
    input = args[0] if args else kwargs.get("input")
    return input._data.shape if isinstance(input, Tensor) else None


def out_of_results_dtype(result, out, *args):
    """out= of ops whose kernels write only their own dtype (softmax, gather, argmax)."""
    out_dtype_is(out, result._data.dtype)


def out_of_inputs_dtype(out, input=None, *args, **kwargs):
    """``before`` for out= of ops whose iterator wants all operands of one dtype, with no
    promotion (abs, neg, sign, sgn, floor, ceil, trunc, frac, round, bitwise_not): out's
    dtype is input's exactly, checked before the kernel's own dtype errors."""
    if isinstance(input, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {scalar_type_name[out.dtype]} but expected "
                           f"{scalar_type_name[input.dtype]}")


def out_holds_result_type(out, input=None, other=None, *args, **kwargs):
    """``before`` for out= of binary ops whose kernel may refuse the promoted dtype
    (bitwise_and of floats): torch's iterator checks the shapes, then that out can hold the
    result's dtype, and only then looks for a kernel."""
    operands = [value for value in (input, other) if isinstance(value, Tensor)]
    if not operands or not all(isinstance(value, (Tensor, *PYTHON_AND_NUMPY_NUMBERS))
                               for value in (input, other)):
        return  # (the op's own argument errors)
    if len(operands) == 2:
        operands_broadcast_shape(input._data, other._data)
    common = result_type(input, other)
    if not dtypes.can_cast(common, out.dtype):
        raise RuntimeError(f"result type {scalar_type_name[common]} can't be cast to the "
                           f"desired output type {scalar_type_name[out.dtype]}")


def out_dtype_is(out, np_dtype):
    """torch's check of out= as a kernel declares its result (set_output): exactly this
    dtype (a numpy dtype)."""
    if out._data.dtype != np_dtype:
        raise RuntimeError(f"Expected out tensor to have dtype "
                           f"{messages.CPP_TYPE_NAMES[np.dtype(np_dtype).name]}, but got "
                           f"{messages.CPP_TYPE_NAMES[out._data.dtype.name]} instead")


def named_arguments(names, args, kwargs):
    """A call's arguments by parameter name (numpy's axis and keepdims as torch's names), for
    a ``before`` check of out= that runs before the op reads them."""
    named = {_NUMPY_NAMES.get(key, key): value for key, value in kwargs.items()}
    named.update(zip(names, args))
    return named


def resize_out_first(out, shape):
    """out= resized as torch's kernels resize it once they know the result's shape, before
    their later checks (whose errors then leave it resized): a non-empty out warns."""
    shape = tuple(shape)
    if out._data.shape != shape:
        if out._data.size != 0:
            messages.warn_from_learner(messages.out_resized(out._data.shape, shape))
        resize_out(out, shape)


def tensor_inputs(module_globals, names):
    """Give each public ``torch.name`` of a family torch's TypeError for an input that is not
    a tensor (``torch.relu(None)``), instead of an AttributeError from inside. Tensor methods
    keep calling the op itself (``without_out``): their input is a tensor."""
    for name in names:
        op = module_globals[name]
        if callable(op) and not isinstance(op, type):
            module_globals[name] = _checking_input(op)


def _checking_input(op):
    @functools.wraps(op)
    def checked(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            if hasattr(input, "__engine_vmap__"):  # vmap's BatchedTensor (engine/func)
                return input.__torch_function__(op, (type(input),), (input, *args), kwargs)
            raise operand_type_error(op.__name__, input, 1, "input")
        return op(input, *args, **kwargs)

    if getattr(op, "parses_input_keyword", False):
        # (input= stays a keyword for torch's parser: its messages list it among them)
        @functools.wraps(op)
        def checked(*args, **kwargs):  # noqa: F811 - the variant for an overloads() op
            input = args[0] if args else kwargs.get("input", ...)
            if not isinstance(input, Tensor) and input is not ...:
                if hasattr(input, "__engine_vmap__") and args:  # vmap (engine/func)
                    return input.__torch_function__(op, (type(input),), args, kwargs)
                printed, notes = op.torch_overloads
                if len(printed) > 1:  # (torch names the input only when one overload fits)
                    raise signatures.refuse(op.__name__, printed, False, args, kwargs, notes,
                                            True)
                position = " (position 1)" if args else ""  # (torch.op(input=1): no position)
                raise TypeError(f"{op.__name__}(): argument 'input'{position} must be "
                                f"Tensor, not {type_name(input)}")
            return op(*args, **kwargs)

    checked.without_out = getattr(op, "without_out", op)
    return checked


def _requires_grad(args, kwargs, out):
    """Does any tensor among the arguments (or in a list of them, as cat's) require grad?"""
    for value in (*args, *kwargs.values(), out):
        for tensor in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(tensor, Tensor) and tensor._requires_grad:
                return True
    return False


def write_out(result, out, restrides=True):
    """Write ``result`` into ``out`` (resizing it as torch does) and return ``out``."""
    if out is None:
        return result
    if not dtypes.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {scalar_type_name[result.dtype]} can't be cast to the "
                           f"desired output type {scalar_type_name[out.dtype]}")
    if default_hooks.write_watch is not None:  # (allow_mutation_on_saved_tensors)
        default_hooks.write_watch(out)
    resized = out._data.shape != result._data.shape
    resize_out_first(out, result._data.shape)
    if resized and restrides and not is_plain_contiguous(result):
        # torch's structured kernels restride an out= they resized as their own result
        # (TensorIterator's layout, which follows the inputs'): only a resized one
        restrided = empty_preserving_layout(result, out._data.dtype)
        out._data, out._stride, out._storage = (restrided._data, restrided._stride,
                                                restrided._storage)
    copy_cast(out._data, result._data)
    out._bump_version()
    return out


def resize_out(out, shape):
    """out's memory replaced by an uninitialised block of ``shape`` (torch's resize_)."""
    out._data = np.empty(shape, out._data.dtype)
    out._stride = out._storage = None
    out._offset = 0


def factory_out(make, out, dtype, name):
    """Run ``make(dtype)`` and, with ``out=``, write into ``out`` (factories: out's dtype is the
    default, and a wrong size is resized without a word, except arange's)."""
    if out is None:
        return make(dtype)
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"dtype {scalar_type_name[dtype]} does not match dtype of out "
                           f"parameter ({scalar_type_name[out.dtype]})")
    result = make(out.dtype)
    if out._data.shape != result._data.shape:
        if name == "arange" and out._data.size:
            messages.warn_from_learner(messages.arange_out_resized(
                out._data.shape, out._data.size, result._data.size))
        resize_out(out, result._data.shape)
    np.copyto(out._data, result._data)
    out._bump_version()
    return out


def empty_in_format(tensor, np_dtype, memory_format):
    """Uninitialised memory shaped like ``tensor``, its elements in ``memory_format``'s order
    (None: torch.preserve_format, the input's order)."""
    if memory_format is None or memory_format.name == "preserve_format":
        return empty_preserving_layout(tensor, np_dtype)
    shape = tensor._data.shape
    return empty_strided(shape, format_strides(shape, tensor.stride(), memory_format), np_dtype)


def refuse_integer_history(result, *inputs):
    """Before recording an op whose result takes self's dtype and may take a gradient from a
    value tensor (masked_fill, index_fill, fill): an integer or bool result of an input that
    requires grad is torch's error, where other ops would leave it out of the graph."""
    if grad_mode.recording and result._data.dtype.kind != "f" and builtins.any(
            getattr(value, "_requires_grad", False) for value in inputs):
        raise RuntimeError(f"Autograd not support dtype: {scalar_type_name[result.dtype]}")


def laid_out_like(values, tensor):
    """``values`` (a numpy array shaped like ``tensor``) as a tensor laid out as torch's
    empty_like(tensor): sort's values and indices, index_fill's copy keep their input's layout."""
    if is_plain_contiguous(tensor):
        return wrap(np.asarray(values, order="C"))
    result = empty_preserving_layout(tensor, values.dtype)
    np.copyto(result._data, values)
    return result


def copy_preserving_layout(tensor, np_dtype=None):
    """A copy (converted to ``np_dtype``) laid out like ``tensor``: clone() and to()."""
    data = tensor._data
    np_dtype = data.dtype if np_dtype is None else np_dtype
    if is_plain_contiguous(tensor):
        return wrap(cast(data, np_dtype))  # (silent: torch's casts wrap, round or become inf)
    result = empty_strided(data.shape, preserved_strides(data.shape, tensor.stride()), np_dtype)
    copy_cast(result._data, data)
    return result
