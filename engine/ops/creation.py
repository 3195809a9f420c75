"""Ways to make a tensor: from data, filled with a value, ranges, and random numbers.

Every factory takes torch's keywords: ``dtype=``, ``device=`` (only the CPU
exists here), ``requires_grad=`` and, where torch has it, ``out=``.
"""
import builtins
import math
import operator
import warnings

import numpy as np

from ..fidelity import calls, dtypes, signatures
from ..fidelity import messages
from ..fidelity import random as rng
from ..fidelity.layout import allocated
from ..fidelity.dtypes import as_dtype, get_default_dtype, promote_types
from ..fidelity.rounding import fma
from ..fidelity.scalars import checked_scalar
from ..fidelity.size import CPU, check_device, check_memory_format
from ..fidelity.size import device as Device
from ..fidelity.messages import type_name
from ..core.tensor import Tensor, wrap
from ..core.tensor import empty_strided as _uninitialised_strided
from .common import (copy_preserving_layout, empty_in_format, factory_out,
                     invalid_arguments_error)
from .common import number_parameters, scalar_value

__all__ = ["tensor", "scalar_tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones",
           "empty", "empty_strided", "full", "eye",
           "zeros_like", "ones_like", "empty_like", "full_like", "arange", "linspace", "logspace",
           "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
           "set_default_device", "get_default_device"]

def finish_factory(result, requires_grad, device=None):
    check_device(device)
    if requires_grad.__class__ is not builtins.bool and requires_grad is not None:
        raise TypeError(f"{calls.called_name()}(): argument 'requires_grad' must be bool, not "
                        f"{type_name(requires_grad)}")
    if requires_grad:
        if not result.is_floating_point():
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        result.requires_grad_(True)
    return result


def _factory_device(device):
    """Factories that allocate first fail differently on 'mps' where torch has no MPS."""
    if device is not None and str(device).partition(":")[0] == "mps":
        raise NotImplementedError(messages.MPS_FACTORY)
    check_device(device)


# ---------------------------------------------------------------- the default device
_default = {"device": None}  # set by set_default_device; None: the CPU


def set_default_device(device):
    """Factories called without ``device=`` (zeros, tensor, arange, rand ...) create their
    tensors on ``device`` from now on; ``None`` goes back to the CPU. Setting 'cuda' succeeds,
    as in torch; the first factory call then fails (there is no GPU)."""
    _default["device"] = None if device is None else Device(device)


def get_default_device():
    """Where factories create tensors (``cpu`` unless set_default_device said otherwise)."""
    device = _default["device"]
    if device is None:
        return CPU
    if device.index is None:  # torch asks a new tensor there: a missing GPU fails here
        return tensor([]).device
    return device


def _or_default(device):
    """A factory's ``device=``: the default device when none is given."""
    return _default["device"] if device is None else device


def _dtype_arg(dtype, name):
    """``dtype=`` as torch accepts it: a dtype, or Python's float/int/bool; None stays None."""
    if dtype is None or isinstance(dtype, dtypes.dtype):
        return dtype
    if dtype is builtins.float or dtype is builtins.int or dtype is builtins.bool:
        return as_dtype(dtype)
    raise TypeError(f"{name}(): argument 'dtype' must be torch.dtype, not {type_name(dtype)}")


def size_from_args(size, name="zeros", position=1, keywords=None):
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size([2, 3]))`` all mean (2, 3):
    torch's ``SymInt[] size``, read as its parser reads one (fidelity/signatures.py);
    ``position``: the size's, as torch's messages give it. ``keywords()``: the checks of the
    other arguments' types, which torch's parser makes once the size's first element fits
    and before it unpacks the others (``zeros((1, 'a'), dtype=3)`` names dtype)."""
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if builtins.all(n.__class__ is builtins.int and 0 <= n < 2**63 for n in size):
        return size  # the usual zeros(2, 3): nothing to convert or check
    # (torch's parser: the first element decides whether the sizes fit, a bool not among
    # them; the others are unpacked as integers, a bool among them)
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
        if size and not signatures.is_symint(size[0]):
            raise TypeError(f"{name}(): argument 'size' (position {position}) must be tuple of "
                            f"ints, but found element of type {type_name(size[0])} at pos 0")
    elif len(size) == 1 and not signatures.is_symint(size[0]):
        raise TypeError(f"{name}(): argument 'size' (position {position}) must be tuple of ints, "
                        f"not {type_name(size[0])}")
    elif not signatures.is_symint(size[0]):
        raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
    if keywords is not None:
        keywords()
    size = signatures.unpack_ints(name, "size", size, symint=True)
    for n in size:
        if n < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"[{', '.join(str(m) for m in size)}]")
    return size


_NO_SIZE = object()  # ``size=`` not given (torch refuses ``size=None``)


def _size_arg(args, size, name, keywords=None):
    """The shape from ``zeros(2, 3)`` / ``zeros((2, 3))`` or from ``zeros(size=(2, 3))``
    (``keywords``: as size_from_args takes it)."""
    if size is _NO_SIZE:
        return size_from_args(args, name, keywords=keywords)
    if args:
        if name in ("rand", "randn"):  # torch has two overloads of these (with a generator)
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({', '.join(type_name(a) for a in args)}, size="
                            f"{type_name(size)}), but expected one of:")
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    if not isinstance(size, (tuple, list)) or (size and not signatures.is_symint(size[0])):
        raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                        f"{type_name(size)}")
    return size_from_args((tuple(size),), name, keywords=keywords)


def _factory_keywords(name, dtype, requires_grad):
    """The type checks of a factory's dtype= and requires_grad=, for size_from_args."""
    def check():
        _dtype_arg(dtype, name)
        if requires_grad.__class__ is not builtins.bool and requires_grad is not None:
            raise TypeError(f"{name}(): argument 'requires_grad' must be bool, not "
                            f"{type_name(requires_grad)}")
    return check


def _np(dtype, default=None):
    return (default or get_default_dtype()).numpy_dtype if dtype is None else \
        as_dtype(dtype).numpy_dtype


# ---------------------------------------------------------------- from data
_NUMPY_SUPPORTED = ("float64, float32, float16, complex64, complex128, int64, int32, int16, "
                    "int8, uint64, uint32, uint16, uint8, and bool")
_MAX_DIMS = 64


def _numpy_dtype_of(np_dtype):
    """The engine dtype for a numpy array's dtype, or torch's TypeError."""
    result = dtypes.from_numpy_dtype.get(np_dtype.newbyteorder("="))
    if result is None:
        raise TypeError(f"can't convert np.ndarray of type numpy.{np_dtype.type.__name__}. The "
                        f"only supported types are: {_NUMPY_SUPPORTED}.")
    return result


def _is_data_sequence(data):
    """What torch reads as a nested sequence of values (a tensor is one value)."""
    if isinstance(data, np.ndarray):
        return data.ndim > 0
    return isinstance(data, (list, tuple, builtins.range, str))


def _compute_sizes(data):
    """torch's rule: the shape of nested data is read along the first elements."""
    sizes = []
    while _is_data_sequence(data):
        sizes.append(len(data))
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type_name(data)}'")
        if not len(data):
            break
        data = data[0]
        if isinstance(data, np.ndarray) and not data.ndim:
            # torch takes an array inside a list for a sequence, and a 0-d one has no length
            raise TypeError("len() of unsized object")
    return sizes


def _infer_dtype(data):
    """The dtype torch infers for nested Python data (bool < int64 < default float)."""
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, np.ndarray):
        return _numpy_dtype_of(data.dtype)
    if isinstance(data, np.generic):  # numpy scalars keep their own type (np.float64 too)
        if isinstance(data, (np.complexfloating, np.str_, np.bytes_)):
            raise TypeError(f"can't convert np.ndarray of type numpy.{type(data).__name__}. "
                            f"The only supported types are: {_NUMPY_SUPPORTED}.")
        return _numpy_dtype_of(data.dtype)
    if isinstance(data, builtins.bool):
        return dtypes.bool
    if isinstance(data, builtins.int):
        return dtypes.int64
    if isinstance(data, builtins.float):
        return get_default_dtype()
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type_name(data)}'")
    if isinstance(data, (list, tuple, builtins.range)):
        result = None
        for item in data:
            item_dtype = _infer_dtype(item)
            result = item_dtype if result is None else promote_types(result, item_dtype)
        return result or get_default_dtype()
    if isinstance(data, complex):
        raise TypeError("complex numbers are not supported by this engine")
    raise RuntimeError(f"Could not infer dtype of {type_name(data)}")


def _leaves(data, sizes, dim, out):
    """Collect the values of nested ``data`` in row-major order, checking every length."""
    if isinstance(data, Tensor):
        if data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        data = data.tolist()
    elif not _is_data_sequence(data):
        raise TypeError("not a sequence")
    if len(data) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                         f"(got {len(data)})")
    if dim == len(sizes) - 1:
        out.extend(data)
    else:
        for item in data:
            if isinstance(item, np.ndarray) and not _WARNED_NUMPY_LIST:
                _WARNED_NUMPY_LIST.append(True)  # torch warns once per process
                messages.warn_from_learner(messages.NUMPY_LIST_IS_SLOW)
            _leaves(item, sizes, dim + 1, out)


_WARNED_NUMPY_LIST = []
_WARNED_READ_ONLY = []


def _store(value, np_dtype):
    """One value converted as torch's ``store_scalar`` converts it (checked for integers)."""
    kind = np_dtype.kind
    if kind == "f":
        return builtins.float(value)  # ints too big for a float raise OverflowError here
    if kind == "b":
        if isinstance(value, (builtins.float, builtins.bool, np.bool_)):
            return builtins.bool(value)
        return builtins.bool(operator.index(value))
    if isinstance(value, builtins.float):
        number = value
        # (torch's check lets a fraction above the largest value through: it truncates)
        fits = math.isfinite(value) and np.iinfo(np_dtype).min <= value < \
            np.iinfo(np_dtype).max + 1
    else:
        number = operator.index(value)
        if not -2**63 <= number < 2**63:
            raise ValueError("Overflow when unpacking long long")
        info = np.iinfo(np_dtype)
        fits = (-info.max <= number <= info.max) if kind == "u" else \
            info.min <= number <= info.max
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {np_dtype.name} without overflow")
    number = builtins.int(number)  # C truncates toward zero
    return number % 256 if kind == "u" else number


def _array_from_leaves(leaves, sizes, target):
    np_dtype = target.numpy_dtype
    kinds = {type(v) for v in leaves}
    # Fast path: plain Python numbers converted by numpy in one go. Ints meant for an
    # integer dtype must not pass through float64, so a mix of ints and floats goes slowly.
    plain = kinds <= {builtins.float, builtins.int, builtins.bool}
    if plain and not (np_dtype.kind in "iu" and builtins.float in kinds):
        try:
            values = np.array(leaves, dtype=np.float64 if np_dtype.kind == "f" else None)
        except OverflowError:
            values = None
        # (numpy makes floats of ints from 2**63 up next to smaller ones: those go slowly)
        if values is not None and values.dtype.kind in ("fib" if np_dtype.kind not in "iu"
                                                         else "ib"):
            return _cast_values(values, np_dtype).reshape(sizes)
    values = np.array([_store(v, np_dtype) for v in leaves],
                      dtype=np.float64 if np_dtype.kind == "f" else
                      (np.int64 if np_dtype.kind in "iu" else bool))
    return _cast_values(values, np_dtype).reshape(sizes)


def _cast_values(values, np_dtype):
    """float64 / int64 / bool values to ``np_dtype`` with torch's checks and roundings."""
    if np_dtype.kind == "f":
        with np.errstate(over="ignore"):
            if np_dtype.itemsize == 2:
                return values.astype(np.float32).astype(np.float16)  # double -> float -> half
            return values.astype(np_dtype)
    if np_dtype.kind == "b":
        return values != 0
    if values.dtype.kind == "b":
        return values.astype(np_dtype)
    if values.size:
        info = np.iinfo(np_dtype)
        low, high = (-info.max, info.max) if np_dtype.kind == "u" else (info.min, info.max)
        if values.min() < low or values.max() > high:
            raise RuntimeError(f"value cannot be converted to type {np_dtype.name} without "
                               "overflow")
    return values.astype(np_dtype)


def _tensor_from_data(data, dtype):
    """A new tensor holding a copy of nested ``data``, as torch.tensor reads it."""
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type_name(data)}'")
    if isinstance(data, Tensor):
        target = data.dtype if dtype is None else as_dtype(dtype)
        return copy_preserving_layout(data, target.numpy_dtype)
    if isinstance(data, np.ndarray):
        source = from_numpy(data, _warn=False)
        target = source.dtype if dtype is None else as_dtype(dtype)
        return copy_preserving_layout(source, target.numpy_dtype)
    sizes = _compute_sizes(data)
    leaves = [data] if not sizes else []
    try:
        if sizes:
            _leaves(data, sizes, 0, leaves)
    except (TypeError, ValueError):
        if dtype is None:
            _infer_dtype(data)  # torch reports an element of a bad type before a bad length
        raise
    if dtype is not None:
        target = as_dtype(dtype)
    else:
        # plain Python numbers (the usual case) decide the dtype without another walk
        kinds = {type(v) for v in leaves}
        if kinds <= {builtins.float, builtins.int, builtins.bool} and (leaves or sizes):
            target = get_default_dtype() if builtins.float in kinds or not kinds else \
                dtypes.int64 if builtins.int in kinds else dtypes.bool
        else:
            target = _infer_dtype(data)
    return wrap(_array_from_leaves(leaves, sizes, target))


def index_tensor_from_sequence(data):
    """A list used as an index, as torch converts it: bool stays bool, the rest becomes int64."""
    inferred = _infer_dtype(data)
    if inferred is dtypes.bool or inferred is dtypes.uint8:
        return _tensor_from_data(data, inferred)
    return _tensor_from_data(data, dtypes.int64)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A 0-d tensor of the number ``s``, of the default float dtype unless ``dtype`` says"""
    if not isinstance(s, (int, float, bool, np.number, np.bool_)):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{type(s).__name__}")
    return tensor(s, dtype=get_default_dtype() if dtype is None else dtype, device=device,
                  requires_grad=requires_grad)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (nested lists, numbers or a numpy array)."""
    dtype = _dtype_arg(dtype, "tensor")
    device = check_device(_or_default(device))
    if isinstance(data, Tensor):
        messages.warn_copy_construct("torch.tensor")
    return finish_factory(_tensor_from_data(data, dtype), requires_grad, device)


def as_tensor(data, *, dtype=None, device=None):
    """Like ``tensor``, but shares memory with a numpy array or tensor when it can."""
    dtype = _dtype_arg(dtype, "as_tensor")
    check_device(_or_default(device))
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray):
        if not data.flags.writeable:  # (torch warns whether or not it then copies)
            _warn_not_writable(stacklevel=3)
        result = from_numpy(data, _warn=False)
        return result if dtype is None else result.to(dtype)
    return _tensor_from_data(data, dtype)


def from_numpy(ndarray, *, _warn=True):
    """A tensor that shares memory with a numpy array: a change to one shows in the other."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type_name(ndarray)})")
    if _warn and not ndarray.flags.writeable:
        _warn_not_writable(stacklevel=3)
    if builtins.any(s % ndarray.itemsize for s in ndarray.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    if builtins.any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")
    if not ndarray.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. "
                         "Conversion between byte orders is currently not supported.")
    _numpy_dtype_of(ndarray.dtype)
    array = ndarray.view()  # our own array object, so reshaping the caller's leaves us intact
    result = wrap(array)
    # The storage starts at the array's first element and spans what its strides reach.
    extent = 0
    if ndarray.size:
        extent = 1 + builtins.sum((n - 1) * (s // ndarray.itemsize)
                                  for n, s in zip(ndarray.shape, ndarray.strides))
    result._storage = np.lib.stride_tricks.as_strided(array, (extent,), (ndarray.itemsize,))
    # torch keeps numpy's strides, also on dimensions of size 1. (Also numpy's 0 strides of
    # an empty array, where the engine keeps its own: with them its results of isinf, clone
    # ... would be laid out unlike torch's.)
    if array.size:
        result._stride = tuple(s // ndarray.itemsize for s in ndarray.strides)
    return result


def _warn_not_writable(stacklevel):
    if not _WARNED_READ_ONLY:
        _WARNED_READ_ONLY.append(True)  # as the message says: only once per program
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support "
                      "non-writable tensors. This means writing to this tensor will result in "
                      "undefined behavior. You may want to copy the array to protect its data or "
                      "make it writable before converting it to a tensor. This type of warning "
                      "will be suppressed for the rest of this program."
                      + messages.triggered_in("torch/csrc/utils/tensor_numpy.cpp:208"), UserWarning,
                      stacklevel=stacklevel)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """``obj`` as a tensor, sharing its memory unless ``copy=True`` or another dtype asks for a
    copy (``copy=False`` refuses to copy). A numpy number, and a 0-d numpy array with it, is
    always copied; a Python sequence is always read into a new tensor. requires_grad defaults
    to obj's own (torch 2.15, which says so once)."""
    if requires_grad is None:
        requires_grad = isinstance(obj, Tensor) and obj.requires_grad
        if requires_grad:
            messages.warn_once(messages.ASARRAY_REQUIRES_GRAD)
    dtype = _dtype_arg(dtype, "asarray")
    check_device(_or_default(device))
    force_copy, force_alias = builtins.bool(copy), copy is not None and not copy
    result, warn = (obj if isinstance(obj, Tensor) else None), False
    if isinstance(obj, (np.ndarray, np.generic)):
        array, warn = _numpy_for_asarray(obj, force_alias)
        result = from_numpy(array, _warn=False)
        if array.ndim == 0:  # torch treats a 0-d array as a numpy number: a copy
            result, force_copy = result.clone(), False
    if result is None:
        if force_alias:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        return finish_factory(_tensor_from_data(obj, dtype), requires_grad)
    wrong_dtype = dtype is not None and dtype is not result.dtype
    if force_copy or (copy is None and wrong_dtype):
        result = result.to(dtype, copy=force_copy) if wrong_dtype else result.clone()
    elif wrong_dtype:
        raise ValueError(f"can't alias tensor with dtype '{dtypes.scalar_type_name[result.dtype]}'"
                         f" into dtype '{dtypes.scalar_type_name[dtype]}'.")
    elif warn:
        _warn_not_writable(stacklevel=3)
    if not result.is_leaf and not requires_grad:
        return result.detach()
    # (the very tensor given: torch sets its requires_grad, even back to False)
    return finish_factory(result, True) if requires_grad else result.requires_grad_(False)


def _numpy_for_asarray(obj, force_alias):
    """The array torch.asarray reads for a numpy object, and whether it warns it is read-only."""
    if isinstance(obj, np.ndarray):
        return obj, not obj.flags.writeable
    if force_alias:
        raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it "
                           "in a ndarray. ")
    return np.array(obj), False


# ---------------------------------------------------------------- filled
def _filled(make_array, shape, out, dtype, device, requires_grad, name, default=None):
    """A new tensor of ``shape`` made by ``make_array(shape, np_dtype)``; handles out=."""
    _factory_device(device)

    def make(dtype):
        return wrap(allocated(make_array, shape, _np(dtype, default)))

    return finish_factory(factory_out(make, out, _dtype_arg(dtype, name), name), requires_grad,
                          device)


def zeros(*args, size=_NO_SIZE, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """A tensor of the given shape filled with 0: ``zeros(2, 3)``, ``zeros((2, 3))`` or
    ``zeros(size=(2, 3))``."""
    return _filled(np.zeros, _size_arg(args, size, "zeros", _factory_keywords("zeros", dtype,
                   requires_grad)), out, dtype, _or_default(device), requires_grad, "zeros")


def ones(*args, size=_NO_SIZE, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    """A tensor of the given shape filled with 1."""
    return _filled(np.ones, _size_arg(args, size, "ones", _factory_keywords("ones", dtype,
                   requires_grad)), out, dtype, _or_default(device), requires_grad, "ones")


def empty(*args, size=_NO_SIZE, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, memory_format=None):
    """A tensor of the given shape whose values are whatever the memory held (uninitialised)."""
    result = _filled(np.empty, _size_arg(args, size, "empty", _factory_keywords(
        "empty", dtype, requires_grad)), out, dtype, _or_default(device), requires_grad, "empty")
    if check_memory_format(memory_format, "empty") is None or out is not None:
        return result
    return empty_in_format(result, result._data.dtype, memory_format).requires_grad_(requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A tensor of these sizes and strides (elements apart, per dimension) whose values are
    uninitialised; its memory holds just what the strides reach."""
    for position, (name, value) in enumerate((("size", size), ("stride", stride)), 1):
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"empty_strided(): argument '{name}' (position {position}) must be "
                            f"tuple of ints, not {type_name(value)}")
        signatures.int_list_checked("empty_strided", name, value, f" (position {position})",
                                    unpack=False)
    # (torch's SymInt[]s, read once both fit)
    size, stride = (signatures.unpack_ints("empty_strided", name, value, symint=True)
                    for name, value in (("size", size), ("stride", stride)))
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    listed = f"[{', '.join(str(n) for n in size)}]"
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {listed}")
    if 0 not in size and any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={listed} and "
                           f"strides=[{', '.join(str(s) for s in stride)}]")
    _factory_device(_or_default(device))
    result = _uninitialised_strided(size, stride, _np(_dtype_arg(dtype, "empty_strided")))
    return finish_factory(result, requires_grad, _or_default(device))


def _fill_dtype(fill_value, name):
    """The dtype ``full`` gives a fill value: bool, int64 or the default float."""
    def refused():  # (the call's bytecode is read for the message only)
        where = "" if calls.given_by_keyword("fill_value") else " (position 2)"
        return TypeError(f"{name}(): argument 'fill_value'{where} must be Number, not "
                         f"{type_name(fill_value)}")

    if isinstance(fill_value, Tensor):
        if fill_value._data.ndim or fill_value.requires_grad:  # (torch's Number: neither)
            raise refused()
        kind = fill_value._data.dtype.kind
    elif isinstance(fill_value, (builtins.bool, builtins.int, builtins.float, np.number,
                                 np.bool_)):
        # numpy scalars arrive as Python numbers (np.bool_ and np.float64 as floats)
        kind = "b" if isinstance(fill_value, builtins.bool) else \
            "i" if isinstance(fill_value, (builtins.int, np.integer)) else "f"
    else:
        raise refused()
    return {"b": dtypes.bool, "i": dtypes.int64, "u": dtypes.int64}.get(kind, get_default_dtype())


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    """A tensor of the given shape filled with ``fill_value`` (its type picks the dtype)."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type_name(size)}")
    # (torch's parser reads the size's elements before it looks at the fill value)
    if size and not signatures.is_symint(size[0]):
        signatures.int_list_checked("full", "size", size, "" if calls.given_by_keyword(
            "size") else " (position 1)", unpack=False, symint=True)
    default = _fill_dtype(fill_value, "full")

    def make_array(shape, np_dtype):
        # torch fills with fill_, which sets one element of float16 as a float, unchecked
        value = checked_scalar(fill_value, np_dtype, check_half=math.prod(shape) != 1)
        return np.full(shape, value, np_dtype)

    return _filled(make_array, size_from_args((size,), "full", keywords=_factory_keywords(
        "full", dtype, requires_grad)), out, dtype, _or_default(device), requires_grad, "full",
                   default)


class _Default(builtins.int):
    """A default value (arange's start 0, step 1) told from the same number given."""


class _Unset:
    """A parameter not given (arange's end, eye's m), told from None given (shown as None)."""

    def __repr__(self):
        return "None"


_START, _STEP, _NO_END, _NO_M = _Default(0), _Default(1), _Unset(), _Unset()
_PLAIN_BOUNDS = (builtins.int, builtins.float, _Default)  # (Numbers, no check needed)
_FACTORY_KEYWORDS = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
                     "torch.device device = None, bool pin_memory = False, bool requires_grad = "
                     "False)")
_EYE = ("(SymInt n, *, " + _FACTORY_KEYWORDS, "(SymInt n, SymInt m, *, " + _FACTORY_KEYWORDS)


def eye(n, m=_NO_M, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """An n x m matrix with ones on the diagonal."""
    device = _or_default(device)
    if not builtins.all(value is _NO_M or signatures.is_symint(value) for value in (n, m)):
        raise _refused_as_called("eye", _EYE, {"n": n, "m": _ABSENT if m is _NO_M else m}, {
            "out": out, "dtype": dtype, "layout": layout, "device": device,
            "requires_grad": requires_grad})  # (torch's SymInts)
    n, m = signatures.symint_value(n), None if m is _NO_M else signatures.symint_value(m)
    for name, value in (("n", n), ("m", m)):
        if value is not None and value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    _factory_device(device)

    def make(dtype):
        return wrap(np.eye(n, n if m is None else m, dtype=_np(dtype)))

    return finish_factory(factory_out(make, out, _dtype_arg(dtype, "eye"), "eye"), requires_grad,
                          device)


def _like(input, fill, dtype, device, requires_grad, name, memory_format):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    dtype = _dtype_arg(dtype, name)
    np_dtype = input._data.dtype if dtype is None else dtype.numpy_dtype
    # torch's preserve_format (the default) keeps the layout (strides) of a dense input
    result = empty_in_format(input, np_dtype, check_memory_format(memory_format, name))
    if fill is not None:
        result._data[...] = checked_scalar(fill, np_dtype, check_half=result._data.size != 1)
    return finish_factory(result, requires_grad, device)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """Zeros with the shape (and, unless given, the dtype) of ``input``."""
    return _like(input, 0, dtype, device, requires_grad, "zeros_like", memory_format)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """Ones with the shape (and, unless given, the dtype) of ``input``."""
    return _like(input, 1, dtype, device, requires_grad, "ones_like", memory_format)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """Uninitialised memory with the shape (and, unless given, the dtype) of ``input``."""
    return _like(input, None, dtype, device, requires_grad, "empty_like", memory_format)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``fill_value`` everywhere, with the shape (and, unless given, the dtype) of ``input``."""
    _fill_dtype(fill_value, "full_like")
    return _like(input, fill_value, dtype, device, requires_grad, "full_like", memory_format)


# ---------------------------------------------------------------- new_* methods
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A copy of ``data`` with this tensor's dtype (unless dtype= is given)."""
    dtype = _dtype_arg(dtype, "new_tensor")
    if isinstance(data, Tensor):
        messages.warn_copy_construct("tensor.new_tensor")
    return finish_factory(_tensor_from_data(data, self.dtype if dtype is None else dtype),
                          requires_grad, device)


def new_zeros(self, *args, size=_NO_SIZE, dtype=None, device=None, requires_grad=False):
    """Zeros of the given size with this tensor's dtype (unless dtype= is given)."""
    return _filled(np.zeros, _size_arg(args, size, "new_zeros", _factory_keywords(
        "new_zeros", dtype, requires_grad)), None,
                   _dtype_arg(dtype, "new_zeros") or self.dtype, device, requires_grad, "new_zeros")


def new_ones(self, *args, size=_NO_SIZE, dtype=None, device=None, requires_grad=False):
    """Ones of the given size with this tensor's dtype (unless dtype= is given)."""
    return _filled(np.ones, _size_arg(args, size, "new_ones", _factory_keywords(
        "new_ones", dtype, requires_grad)), None,
                   _dtype_arg(dtype, "new_ones") or self.dtype, device, requires_grad, "new_ones")


def new_empty(self, *args, size=_NO_SIZE, dtype=None, device=None, requires_grad=False):
    """Uninitialised memory of the given size with this tensor's dtype."""
    return _filled(np.empty, _size_arg(args, size, "new_empty", _factory_keywords(
        "new_empty", dtype, requires_grad)), None,
                   _dtype_arg(dtype, "new_empty") or self.dtype, device, requires_grad, "new_empty")


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type_name(size)}")
    _fill_dtype(fill_value, "new_full")
    size = size_from_args((size,), "new_full",
                          keywords=_factory_keywords("new_full", dtype, requires_grad))
    return full(size, fill_value, dtype=_dtype_arg(dtype, "new_full") or self.dtype,
                device=CPU if device is None else device, requires_grad=requires_grad)


# ---------------------------------------------------------------- ranges
# torch fills ranges with small CPU kernels. To give the very same bits, the functions
# below follow those kernels step by step: which type each sum is done in, where a
# fused multiply-add (one rounding, see _rounding.fma) happens, and how the vectorised
# loop splits the output into blocks.
def _number(value, name, function="arange", position=1):
    """A Python number from a number, a numpy number or a 0-d tensor (torch's Number: not one
    that requires grad; linspace and logspace have overloads of tensors, which take it)."""
    if isinstance(value, Tensor) and value._data.ndim == 0 and (
            function != "arange" or not value.requires_grad):
        return value.item()
    if isinstance(value, np.generic) and not isinstance(value, (np.str_, np.bytes_)):
        # (torch's Scalar reads numpy's bool through __float__: arange(np.True_) is float)
        return builtins.float(value) if isinstance(value, np.bool_) else value.item()
    if not isinstance(value, (builtins.int, builtins.float)):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Number, "
                        f"not {type_name(value)}")
    return value


# torch's CPU loops use 32-byte vectors here (8 float32, 4 float64, 16 float16 lanes),
# also on machines with AVX-512 (checked against torch 2.15 on such a machine).
_VECTOR_BYTES = 32


_ARANGE_OVERLOADS = (
    "(Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)",
    "(Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)",
    "(Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)")


def arange(start=_START, end=_NO_END, step=_STEP, *, out=None, dtype=None, layout=None,
           device=None, requires_grad=False):
    """start, start + step, ... up to but not including end."""
    if not builtins.all(value.__class__ in _PLAIN_BOUNDS or signatures.fits(value, "Number")
                        for value in (start, end, step) if value is not _NO_END):
        _arange_refused(start, end, step, out, dtype, layout, device, requires_grad)
    start, step = (builtins.int(v) if v.__class__ is _Default else v for v in (start, step))
    device = _or_default(device)
    if end is _NO_END:
        start, end = 0, start
        names = (("start", 0), ("end", 1), ("step", 3))
    else:
        names = (("start", 1), ("end", 2), ("step", 3))
    start, end, step = (_number(v, name, "arange", position)
                        for v, (name, position) in zip((start, end, step), names))
    for value in (start, end, step):
        if isinstance(value, builtins.int):
            dtypes.check_int_argument(value)  # torch's argument parser, before anything
    _factory_device(device)
    if dtype is None and out is None:
        is_float = builtins.any(isinstance(v, builtins.float) for v in (start, end, step))
        dtype = get_default_dtype() if is_float else dtypes.int64
    result = factory_out(lambda target: wrap(_arange_values(start, end, step, target)),
                         out, _dtype_arg(dtype, "arange"), "arange")
    return finish_factory(result, requires_grad, device)


def _arange_refused(start, end, step, out, dtype, layout, device, requires_grad):
    """torch's TypeError for a start, end or step that is no Number (a tensor of one
    dimension, or one that requires grad): its own words when one overload takes that many
    arguments (one), its list of three otherwise."""
    raise _refused_as_called("arange", _ARANGE_OVERLOADS, {
        "start": _ABSENT if start is _START else start, "end": _ABSENT if end is _NO_END else end,
        "step": _ABSENT if step is _STEP else step}, {
        "out": out, "dtype": dtype, "layout": layout, "device": device,
        "requires_grad": requires_grad})


_ABSENT = object()


def _refused_as_called(name, printed, positional, keywords):
    """torch's parser's TypeError for a factory's call (``positional``: the values of the
    parameters that may come by position, in order, _ABSENT when not given; ``keywords``:
    the keyword-only ones): the arguments as the learner's call gave them, by position or
    by keyword."""
    by_keyword = calls.keyword_names()
    args = tuple(value for key, value in positional.items()
                 if key not in by_keyword and value is not _ABSENT)
    given = {**positional, **keywords}
    kwargs = {key: given[key] for key in by_keyword if key in given}
    return signatures.refuse(name, printed, False, args, kwargs, as_called=True)


def _arange_values(start, end, step, target):
    """torch's arange_out and its CPU kernel for one dtype."""
    np_dtype = target.numpy_dtype
    if target is dtypes.bool:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")  # as C++ prints doubles
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    # the kernel computes in int64 for every integer dtype and in float for float16: start
    # and step (and end, for int64 from integers) must fit that type
    integers = not builtins.any(isinstance(v, builtins.float) for v in (start, end, step))
    bounds = (start, end, step) if target is dtypes.int64 and integers else (start, step)
    if not target.is_floating_point or np_dtype == np.float16:
        for value in bounds:
            checked_scalar(value, np.dtype(np.int64 if np_dtype.kind in "iu" else np.float32))
    if target is dtypes.int64 and integers:
        # int64 from integers: int64 arithmetic (doubles would round beyond 2**53), which
        # wraps around when the span does not fit (torch then makes an empty range)
        sign = 1 if step > 0 else -1
        span = _wrapped_int64(_wrapped_int64(_wrapped_int64(end - start) + step) - sign)
        size_d = builtins.float(builtins.abs(span) // builtins.abs(step)
                                * (1 if (span >= 0) == (step > 0) else -1))
    else:
        with np.errstate(over="ignore"):
            size_d = np.ceil((np.float64(end) - np.float64(start)) / np.float64(step))
    if not 0 <= size_d <= builtins.float(2**63 - 1):  # (as a double, that is 2**63)
        raise RuntimeError("invalid size, possible overflow?")
    size = builtins.int(size_d)
    if size == 2**63:  # C's cast of 2.0**63 to int64
        raise RuntimeError("IntArrayRef contains an int that cannot be represented as a SymInt: "
                           f"{-2**63}")
    if size * np_dtype.itemsize > 2**63 - 1:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{size}]")
    if size * np_dtype.itemsize > 2**48:  # more than any machine holds
        raise RuntimeError("invalid size, possible overflow?")
    index = np.arange(size, dtype=np.int64)
    if not target.is_floating_point:
        # integer dtypes compute in int64 from the truncated start and step, then wrap
        first, stride = builtins.int(start), builtins.int(step)
        return (first + stride * index).astype(np_dtype)
    return _vectorised_range(builtins.float(start), builtins.float(step), index, np_dtype)


def _wrapped_int64(value):
    """A Python int wrapped around to int64, as C's int64 arithmetic does."""
    return (value + 2**63) % 2**64 - 2**63


def _vectorised_range(start, step, index, np_dtype):
    """start + step * index as torch's vectorised CPU loop rounds it.

    The loop fills blocks of ``lanes`` values: each block starts at
    ``start + step * i0`` (rounded to the dtype) and adds ``k * step`` to that; the
    tail that does not fill two whole blocks is done one value at a time.
    """
    size = index.size
    lanes = _VECTOR_BYTES // np_dtype.itemsize
    vectorised = size - size % (2 * lanes)
    if vectorised == 0:  # too short for the vectorised loop: one value at a time
        if np_dtype == np.float16:
            values = fma(np.float32(step), index, np.float32(start))
            return _round_to(_round_to(values, np.float32), np.float16)
        return _round_to(fma(step, index, start), np_dtype)
    in_block = index % lanes
    block_start = np.where(index < vectorised, index - in_block, index)
    offset = np.where(index < vectorised, in_block, 0)
    if np_dtype == np.float16:
        # float16 computes in float32 (torch's accumulate type for half)
        step, start = np.float32(step), np.float32(start)
        first = _round_to(_round_to(fma(step, block_start, start), np.float32), np.float16)
        values = _round_to(fma(step, offset, first.astype(np.float32)), np.float32)
    else:
        # float32 and float64 compute in double
        first = _round_to(fma(step, block_start, start), np_dtype)
        values = fma(step, offset, first.astype(np.float64))
    # a block's first value is its base as it is (which keeps a -0.0 negative)
    return np.where(offset == 0, first, _round_to(values, np_dtype))


def _round_to(values, np_dtype):
    """``values`` rounded to ``np_dtype`` (too big for it: inf, without a warning)."""
    values, np_dtype = np.asarray(values), np.dtype(np_dtype)
    if np_dtype.kind == "f" and np_dtype.itemsize >= values.dtype.itemsize:
        return values.astype(np_dtype)  # widening is exact
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(np_dtype)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):  # noqa: A001
    """Deprecated in torch: like arange but includes ``end``."""
    device = _or_default(device)
    warnings.warn("torch.range is deprecated and will be removed in a future release because its "
                  "behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    size = builtins.int(math.floor((end - start) / step)) + 1
    target = as_dtype(dtype) if dtype is not None else get_default_dtype()
    return finish_factory(wrap((start + step * np.arange(size)).astype(target.numpy_dtype)),
                          requires_grad, device)


def _space_args(name, start, end, steps):
    """linspace's and logspace's start, end (numbers, or tensors of no dimension: their
    values) and ``int steps`` (not a SymInt: a 0-d integer tensor, no other), checked as
    torch's parser, then its kernel, check them."""
    def fits(value):
        return isinstance(value, Tensor) or signatures.fits(value, "Number")

    if not (signatures.is_int(steps) and fits(start) and fits(end)):
        first = ", float base = 10.0" if name == "logspace" else ""
        raise signatures.refuse(name, [f"({a} start, {b} end, int steps{first}, *, "
                                       f"{_FACTORY_KEYWORDS}" for a, b in _SPACE_OVERLOADS],
                                False, (start, end, steps), {})
    tensors = [(which, value._data.ndim) for which, value in (("start", start), ("end", end))
               if isinstance(value, Tensor)]
    if builtins.any(ndim for _, ndim in tensors):
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got "
                           + " and ".join(f"{which} with {ndim} dimension(s)"
                                          for which, ndim in tensors) + ".")
    steps = operator.index(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = (v.item() if isinstance(v, Tensor) else scalar_value(v) for v in (start, end))
    return start, end, steps


_SPACE_OVERLOADS = (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                    ("Number", "Number"))


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``steps`` evenly spaced values from start to end, both included."""
    device = _or_default(device)
    start, end, steps = _space_args("linspace", start, end, steps)
    if dtype is None and out is None:
        dtype = get_default_dtype()
    result = factory_out(lambda target: wrap(linspace_values(start, end, steps, target)),
                         out, _dtype_arg(dtype, "linspace"), "linspace")
    return finish_factory(result, requires_grad, device)


def linspace_values(start, end, steps, target):
    """torch's linspace kernel: the first half counts up from start, the second down from end."""
    np_dtype = target.numpy_dtype
    if target is dtypes.bool:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if steps == 0:
        return np.empty(0, np_dtype)
    if steps == 1:
        # torch: fill_(start), which lets a single float16 overflow to inf
        return np.array([checked_scalar(start, np_dtype, check_half=False)], np_dtype)
    low, high = checked_scalar(start, np_dtype), checked_scalar(end, np_dtype)
    index = np.arange(steps, dtype=np.int64)
    first_half = index < steps // 2
    if np_dtype.kind in "iu":
        # integers: a float64 step, one fused multiply-add, then truncation
        step = (builtins.float(high) - builtins.float(low)) / (steps - 1)
        values = np.where(first_half, fma(step, index, builtins.float(low)),
                          fma(-step, steps - index - 1, builtins.float(high)))
        with np.errstate(invalid="ignore"):  # beyond int64: x86's cast gives -2**63, as torch
            return values.astype(np_dtype)
    if np_dtype == np.float16:
        # in float32 (torch's opmath type for half), multiply and add each rounded, no fma
        low, high = np.float32(low), np.float32(high)
        with np.errstate(over="ignore", invalid="ignore"):
            step = (high - low) / np.float32(steps - 1)
            up = low + step * index.astype(np.float32)
            down = high - step * (steps - index - 1).astype(np.float32)
        return _round_to(np.where(first_half, up, down), np.float16)
    with np.errstate(over="ignore", invalid="ignore"):
        step = (high - low) / np_dtype.type(steps - 1)  # in the dtype itself
    values = np.where(first_half, fma(step, index.astype(np_dtype), low),
                      fma(-step, (steps - index - 1).astype(np_dtype), high))
    return _round_to(values, np_dtype)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """base ** linspace(start, end, steps)"""
    device = _or_default(device)
    start, end, steps = _space_args("logspace", start, end, steps)
    if dtype is None and out is None:
        dtype = get_default_dtype()
    result = factory_out(lambda target: wrap(_logspace_values(start, end, steps, base, target)),
                         out, _dtype_arg(dtype, "logspace"), "logspace")
    return finish_factory(result, requires_grad, device)


def _logspace_values(start, end, steps, base, target):
    """torch's logspace: exponents in float64 (from start and end in the dtype), then pow."""
    np_dtype = target.numpy_dtype
    if target is dtypes.bool:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    base = builtins.float(base)
    if steps == 0:
        return np.empty(0, np_dtype)
    if steps == 1:
        exponents = np.array([builtins.float(start)])
    else:
        low, high = checked_scalar(start, np_dtype), checked_scalar(end, np_dtype)
        with np.errstate(over="ignore", invalid="ignore"):
            # end - start is taken in the dtype (rounded there), the rest in float64
            span = np.float64(high - low) if np_dtype.kind == "f" else \
                np.float64(builtins.int(high) - builtins.int(low))
        step = span / (steps - 1)
        index = np.arange(steps, dtype=np.float64)
        # no fused multiply-add in this loop (unlike linspace)
        exponents = np.where(index < steps // 2, np.float64(low) + step * index,
                             np.float64(high) - step * (steps - index - 1))
    # math.pow is the C library's pow, as torch's std::pow; numpy's power may differ by an ulp
    values = np.array([_pow(base, e) for e in exponents.tolist()], dtype=np.float64)
    if np_dtype == np.float16:
        values = _round_to(values, np.float32)  # a double becomes a half through float
    return _round_to(values, np_dtype)


def _pow(base, exponent):
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


# ---------------------------------------------------------------- random
def float_sampling_dtype(dtype, name, numel=1):
    """The dtype of random floats. torch's uniform kernels refuse another dtype; its normal
    kernels return before they look at it when there is nothing to fill."""
    target = as_dtype(dtype) if dtype is not None else get_default_dtype()
    if not target.is_floating_point and (numel or name != "normal_kernel_cpu"):
        raise NotImplementedError(f"\"{name}\" not implemented for "
                                  f"'{dtypes.scalar_type_name[target]}'")
    return target


def rand(*args, size=_NO_SIZE, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform random numbers in [0, 1)."""
    shape, device = _size_arg(args, size, "rand"), check_device(_or_default(device))

    def make(dtype):  # (with out=, out's dtype: torch draws in it, and resizes it silently)
        target = float_sampling_dtype(dtype, "check_uniform_bounds")
        return wrap(allocated(lambda shape, np_dtype: rng.uniform(
            shape, np_dtype, 0.0, 1.0, generator), shape, target.numpy_dtype))
    return finish_factory(factory_out(make, out, _dtype_arg(dtype, "rand"), "rand"),
                          requires_grad, device)


def randn(*args, size=_NO_SIZE, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal random numbers (mean 0, std 1)."""
    shape, device = _size_arg(args, size, "randn"), check_device(_or_default(device))

    def make(dtype):
        target = float_sampling_dtype(dtype, "normal_kernel_cpu", math.prod(shape))
        return wrap(allocated(lambda shape, np_dtype: rng.normal(
            shape, np_dtype, 0.0, 1.0, generator), shape, target.numpy_dtype))
    return finish_factory(factory_out(make, out, _dtype_arg(dtype, "randn"), "randn"),
                          requires_grad, device)


_RANDINT = tuple(f"({first}tuple of SymInts size, *, {generator}{_FACTORY_KEYWORDS}"
                 for first in ("SymInt high, ", "SymInt low, SymInt high, ")
                 for generator in ("torch.Generator generator, ", ""))


def randint(low=None, high=None, size=None, *, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False):
    """Random integers in [low, high); ``randint(high, size)`` starts at 0."""
    device = check_device(_or_default(device))
    only_high = size is None
    if size is None:  # randint(high, size)
        if high is None:
            raise TypeError("randint() missing required argument 'size'")
        if not isinstance(high, (tuple, list)):  # randint(0, 10): the size is missing
            raise TypeError(f"randint(): argument 'size' (position 2) must be tuple of ints, "
                            f"not {type_name(high)}")
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=...)
        if low is None:
            raise TypeError(f"randint() received an invalid combination of arguments - got "
                            f"(size={type_name(size)}, ), but expected one of:")
        low, high = 0, low
    low = 0 if low is None else low
    given = (high, size) if only_high else (low, high, size)
    if not isinstance(size, (tuple, list)) or (size and not signatures.is_symint(size[0])):
        # (randint(0, 10, 5): a size is a tuple, its first element what a SymInt takes)
        raise signatures.refuse("randint", _RANDINT, False, given, {})
    if high is None:
        raise TypeError("randint() received an invalid combination of arguments")
    if not (signatures.is_symint(low) and signatures.is_symint(high)):  # (torch's SymInts)
        raise signatures.refuse("randint", _RANDINT, False, given, {})
    low, high = signatures.symint_value(low), signatures.symint_value(high)
    for value in (low, high):
        _int64_argument(value)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    shape = size_from_args((size,), "randint", 2 if only_high else 3)

    def make(dtype):
        target = dtype if dtype is not None else dtypes.int64
        return wrap(rng.random_int(shape, target.numpy_dtype, low, high, generator))
    return finish_factory(factory_out(make, out, _dtype_arg(dtype, "randint"), "randint"),
                          requires_grad, device)


@number_parameters("randperm", {"n": "SymInt"})
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random ordering of 0, 1, ..., n - 1."""
    device = check_device(_or_default(device))
    if out is not None and dtype is not None and as_dtype(dtype) is not out.dtype:
        raise RuntimeError(f"dtype {dtypes.scalar_type_name[as_dtype(dtype)]} does not match "
                           f"dtype of out parameter ({dtypes.scalar_type_name[out.dtype]})")
    if n < 0:
        if out is None:  # torch makes the result first
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
        raise RuntimeError(f"n must be non-negative, got{n}")
    target = out.dtype if out is not None else \
        as_dtype(dtype) if dtype is not None else dtypes.int64
    _check_randperm_fits(n, target)
    # (target is out's dtype; a wrong size is resized without a warning)
    result = factory_out(lambda _: wrap(rng.randperm(n, target.numpy_dtype, generator)), out,
                         None, "randperm")
    return finish_factory(result, requires_grad, device)


_RANDPERM_LIMITS = {dtypes.float16: ("2049", 2**11 + 1), dtypes.float32: ("2^24+1", 2**24 + 1),
                    dtypes.float64: ("2^53+1", 2**53 + 1)}


def _check_randperm_fits(n, target):
    """torch's checks that n - 1, the largest value, fits the dtype (one float16 is set
    unchecked) and that a float dtype holds every integer up to it."""
    checked_scalar(n - 1 if n else 0, target.numpy_dtype, check_half=False)
    if target in _RANDPERM_LIMITS and n > _RANDPERM_LIMITS[target][1]:
        raise RuntimeError(f"n cannot be greater than {_RANDPERM_LIMITS[target][0]} for "
                           f"{dtypes.scalar_type_name[target]} type.")
    if target is dtypes.bool:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")


def _random_like(input, target, device, requires_grad, draw, memory_format=None):
    """Random numbers laid out like ``input`` (torch's preserve_format), drawn in the order
    torch fills that memory; ``draw(shape, contiguous)`` makes the values."""
    result = empty_in_format(input, target.numpy_dtype, memory_format)
    contiguous = result.is_contiguous()
    result._data[...] = rng.in_fill_order(lambda shape: draw(shape, contiguous),
                                          result._data.shape, result.stride())
    return finish_factory(result, requires_grad, device)


_LIKE_KEYWORDS = ("torch.memory_format memory_format = None, torch.dtype dtype = None, "
                  "torch.layout layout = None, torch.device device = None, bool pin_memory = "
                  "False, bool requires_grad = False)")
_RANDOM_LIKE = (" * (Tensor input, *, torch.Generator generator, " + _LIKE_KEYWORDS,
                " * (Tensor input, *, " + _LIKE_KEYWORDS)
_RANDINT_LIKE = tuple(f" * (Tensor input, {first}*, {generator}{_LIKE_KEYWORDS}"
                      for first in ("int low, int high, ", "Tensor high, ", "int high, ")
                      for generator in ("torch.Generator generator, ", ""))


def _refuse_non_tensor_input(name, input, args, keywords, overloads):
    """torch's parser on a random *_like of something that is not a tensor: the overload
    without a generator names the argument when nothing else is given, else the list."""
    if isinstance(input, Tensor):
        return
    given = {key: value for key, value in keywords.items()
             if value is not (False if key == "requires_grad" else None)}
    if not args and not given and name != "randint_like":
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{messages.type_name(input)}")
    raise invalid_arguments_error(name, input, *args, keywords=given, overloads=overloads)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    _refuse_non_tensor_input("rand_like", input, (), dict(
        dtype=dtype, layout=layout, device=device, requires_grad=requires_grad,
        memory_format=memory_format), _RANDOM_LIKE)
    target = float_sampling_dtype(dtype or input.dtype, "check_uniform_bounds")
    return _random_like(input, target, device, requires_grad,
                        lambda shape, _: rng.uniform(shape, target.numpy_dtype),
                        check_memory_format(memory_format, "rand_like"))


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    _refuse_non_tensor_input("randn_like", input, (), dict(
        dtype=dtype, layout=layout, device=device, requires_grad=requires_grad,
        memory_format=memory_format), _RANDOM_LIKE)
    target = float_sampling_dtype(dtype or input.dtype, "normal_kernel_cpu", input.numel())
    return _random_like(input, target, device, requires_grad, lambda shape, contiguous: rng.normal(
        shape, target.numpy_dtype, contiguous=contiguous),
        check_memory_format(memory_format, "randn_like"))


def _int64_argument(value):
    if not -2**63 <= value < 2**63:  # torch reads these arguments as int64s
        raise ValueError("Overflow when unpacking long long")


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    _refuse_non_tensor_input("randint_like", input, (low,) if high is None else (low, high),
                             dict(dtype=dtype, layout=layout, device=device,
                                  requires_grad=requires_grad, memory_format=memory_format),
                             _RANDINT_LIKE)
    given = (low,) if high is None else (low, high)
    if high is None and isinstance(low, Tensor):  # (torch's overload of a Tensor high)
        if low._data.ndim:
            raise RuntimeError("high must be a scalar tensor and on CPU")
        given = (builtins.int(low._data),)
    elif not builtins.all(signatures.is_symint(value) for value in given):  # (SymInts)
        raise invalid_arguments_error("randint_like", input, *given, overloads=_RANDINT_LIKE)
    given = [signatures.symint_value(value) for value in given]
    for value in given:
        _int64_argument(value)
    low, high = given if len(given) == 2 else (0, given[0])
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    target = as_dtype(dtype) if dtype is not None else input.dtype
    return _random_like(input, target, device, requires_grad,
                        lambda shape, _: rng.random_int(shape, target.numpy_dtype, low, high),
                        check_memory_format(memory_format, "randint_like"))

