"""Ways to make a tensor: from data, filled with a value, ranges, and random numbers.

Every factory takes torch's keywords: ``dtype=``, ``device=`` (only the CPU
exists here), ``requires_grad=`` and, where torch has it, ``out=``.
"""
import builtins
import math

import numpy as np

from . import _dtype, _random
from ._dtype import as_dtype, get_default_dtype, promote_types
from ._ops import _out
from ._rounding import fma
from ._size import check_device
from ._tensor import Tensor, warn_copy_construct, wrap


def _finish(result, requires_grad, device=None):
    check_device(device)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _sizes(size):
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size([2, 3]))`` all mean (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    for n in size:
        if not hasattr(n, "__index__") or isinstance(n, builtins.float):
            raise TypeError(f"zeros(): argument 'size' (position 1) must be tuple of ints, but "
                            f"found element of type {type(n).__name__} at pos 0")
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"[{', '.join(str(int(m)) for m in size)}]")
    return tuple(int(n) for n in size)


def _np(dtype, default=None):
    return (default or get_default_dtype()).numpy_dtype if dtype is None else \
        as_dtype(dtype).numpy_dtype


# ---------------------------------------------------------------- from data
_NUMPY_SUPPORTED = ("float64, float32, float16, complex64, complex128, int64, int32, int16, "
                    "int8, uint64, uint32, uint16, uint8, and bool")


def _infer_dtype(data):
    """The dtype torch infers for nested Python data (bool < int64 < default float)."""
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, builtins.bool) or isinstance(data, np.bool_):
        return _dtype.bool
    if isinstance(data, builtins.int):
        return _dtype.int64
    if isinstance(data, builtins.float):
        return get_default_dtype()
    if isinstance(data, np.generic):
        return _dtype.from_numpy_dtype.get(data.dtype) or _unsupported_numpy(data.dtype)
    if isinstance(data, np.ndarray):
        return _dtype.from_numpy_dtype.get(data.dtype) or _unsupported_numpy(data.dtype)
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, (list, tuple)):
        result = None
        for item in data:
            item_dtype = _infer_dtype(item)
            result = item_dtype if result is None else promote_types(result, item_dtype)
        return result or get_default_dtype()
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _unsupported_numpy(np_dtype):
    raise TypeError(f"can't convert np.ndarray of type numpy.{np_dtype.type.__name__}. The only "
                    f"supported types are: {_NUMPY_SUPPORTED}.")


def _check_ragged(data, dim=0):
    """torch's message for nested lists whose lengths differ."""
    if not isinstance(data, (list, tuple)) or not data:
        return
    first = data[0]
    first_len = len(first) if isinstance(first, (list, tuple)) else None
    for item in data:
        length = len(item) if isinstance(item, (list, tuple)) else None
        if length != first_len:
            if first_len is None:
                raise TypeError("not a sequence")
            raise ValueError(f"expected sequence of length {first_len} at dim {dim + 1} "
                             f"(got {length if length is not None else 'a scalar'})")
        _check_ragged(item, dim + 1)


def _array_from_data(data, dtype):
    target = _infer_dtype(data) if dtype is None else as_dtype(dtype)
    if isinstance(data, Tensor):
        return data._data.astype(target.numpy_dtype, order="C")
    if isinstance(data, (list, tuple)):
        _check_ragged(data)
        data = [d._data if isinstance(d, Tensor) else d for d in data] if any(
            isinstance(d, Tensor) for d in data) else data
    try:
        return np.array(data, dtype=target.numpy_dtype)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (nested lists, numbers or a numpy array)."""
    if isinstance(data, Tensor):
        warn_copy_construct("torch.tensor")
    return _finish(wrap(_array_from_data(data, dtype)), requires_grad, device)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor``, but shares memory with a numpy array or tensor when it can."""
    check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or
                                         as_dtype(dtype).numpy_dtype == data.dtype):
        return from_numpy(data)
    return wrap(_array_from_data(data, dtype))


def from_numpy(ndarray):
    """A tensor that shares memory with a numpy array: a change to one shows in the other."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype not in _dtype.from_numpy_dtype:
        raise TypeError(f"can't convert np.ndarray of type numpy.{ndarray.dtype.type.__name__}. "
                        f"The only supported types are: {_NUMPY_SUPPORTED}.")
    if builtins.any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")
    if builtins.any(s % ndarray.itemsize for s in ndarray.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    if not ndarray.flags.writeable:
        import warnings
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support "
                      "non-writable tensors. This means writing to this tensor will result in "
                      "undefined behavior. You may want to copy the array to protect its data or "
                      "make it writable before converting it to a tensor. This type of warning "
                      "will be suppressed for the rest of this program.", UserWarning,
                      stacklevel=2)
    array = ndarray.view()  # our own array object, so reshaping the caller's leaves us intact
    result = wrap(array)
    # The storage starts at the array's first element and spans what its strides reach.
    extent = 1 + builtins.sum((n - 1) * (s // ndarray.itemsize)
                              for n, s in zip(ndarray.shape, ndarray.strides)) if ndarray.size else 0
    result._storage = np.lib.stride_tricks.as_strided(array, (extent,), (ndarray.itemsize,))
    if not array.flags.c_contiguous and array.size:
        result._stride = tuple(s // ndarray.itemsize for s in ndarray.strides)
    return result


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    result = as_tensor(obj, dtype, device) if not copy else tensor(obj, dtype=dtype)
    return _finish(result, requires_grad)


# ---------------------------------------------------------------- filled
def _filled(fill, size, out, dtype, device, requires_grad, default=None):
    shape = _sizes(size)
    np_dtype = _np(dtype, default)
    array = np.empty(shape, np_dtype) if fill is None else np.full(shape, fill, np_dtype)
    return _finish(_out(wrap(array), out), requires_grad, device)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of the given shape filled with 0."""
    return _filled(0, size, out, dtype, device, requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of the given shape filled with 1."""
    return _filled(1, size, out, dtype, device, requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """A tensor of the given shape whose values are whatever the memory held (uninitialised)."""
    return _filled(None, size, out, dtype, device, requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    """A tensor of the given shape filled with ``fill_value`` (its type picks the dtype)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    default = _dtype.scalar_dtype(fill_value)
    return _filled(fill_value, (size,), out, dtype, device, requires_grad, default)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """An n x m matrix with ones on the diagonal."""
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    array = np.eye(n, n if m is None else m, dtype=_np(dtype))
    return _finish(_out(wrap(array), out), requires_grad, device)


def _like(input, fill, dtype, device, requires_grad):
    np_dtype = input._data.dtype if dtype is None else as_dtype(dtype).numpy_dtype
    # numpy's order="K" keeps the input's layout, as torch's preserve_format does
    if fill is None:
        array = np.empty_like(input._data, dtype=np_dtype)
    else:
        array = np.full_like(input._data, fill, dtype=np_dtype)
    return _finish(wrap(array), requires_grad, device)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """Zeros with the shape (and, unless given, the dtype) of ``input``."""
    return _like(input, 0, dtype, device, requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """Ones with the shape (and, unless given, the dtype) of ``input``."""
    return _like(input, 1, dtype, device, requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """Uninitialised memory with the shape (and, unless given, the dtype) of ``input``."""
    return _like(input, None, dtype, device, requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``fill_value`` everywhere, with the shape (and, unless given, the dtype) of ``input``."""
    return _like(input, fill_value, dtype, device, requires_grad)


# ---------------------------------------------------------------- new_* methods
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A copy of ``data`` with this tensor's dtype (unless dtype= is given)."""
    if isinstance(data, Tensor):
        warn_copy_construct("tensor.new_tensor")
    return tensor(data, dtype=self.dtype if dtype is None else dtype, device=device,
                  requires_grad=requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return zeros(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return ones(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return empty(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, device=device,
                requires_grad=requires_grad)


# ---------------------------------------------------------------- ranges
def _number(value, name):
    if isinstance(value, Tensor):
        return value.item()
    if not isinstance(value, (builtins.int, builtins.float, np.number)):
        raise TypeError(f"arange(): argument '{name}' must be Number, not {type(value).__name__}")
    return value


_VECTOR_LANES = {np.dtype(np.float64): 4, np.dtype(np.float32): 8, np.dtype(np.float16): 16}


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """start, start + step, ... up to but not including end."""
    if end is None:
        start, end = 0, start
    start, end, step = _number(start, "start"), _number(end, "end"), _number(step, "step")
    if dtype is None:
        is_float = builtins.any(isinstance(v, (builtins.float, np.floating))
                                for v in (start, end, step))
        dtype = get_default_dtype() if is_float else _dtype.int64
    target = as_dtype(dtype)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if target.is_floating_point:
        size = math.ceil((float(end) - float(start)) / float(step))
    else:
        size = -(-(builtins.int(end) - builtins.int(start)) // builtins.int(step)) if all(
            isinstance(v, builtins.int) for v in (start, end, step)) else \
            math.ceil((float(end) - float(start)) / float(step))
    return _finish(_out(wrap(_arange_values(start, step, builtins.max(size, 0), target)), out),
                   requires_grad, device)


def _arange_values(start, step, size, target):
    """torch's arange kernel, including the vector-lane pattern of its float rounding.

    Values come in blocks of ``lanes``: each block's first value is
    ``start + step * i0`` and the rest add ``k * step`` to it, so float results
    differ from ``start + step * i`` in the last bit now and then, exactly as torch's.
    """
    index = np.arange(size, dtype=np.int64)
    np_dtype = target.numpy_dtype
    if not target.is_floating_point:
        if builtins.all(isinstance(v, builtins.int) for v in (start, step)):
            return (start + step * index).astype(np_dtype)
        return (float(start) + float(step) * index).astype(np_dtype)
    lanes = _VECTOR_LANES[np_dtype]
    vectorised = size - size % (2 * lanes)  # torch's loop handles two vectors per step
    in_block = index % lanes
    block_start = np.where(index < vectorised, index - in_block, index)
    offset = np.where(index < vectorised, in_block, 0)
    if np_dtype == np.float64:
        first = fma(float(step), block_start, float(start))
        return fma(offset, float(step), first)
    first = (float(start) + float(step) * block_start).astype(np.float32)
    values = first.astype(np.float64) + offset * float(step)
    return values.astype(np.float32).astype(np_dtype)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):  # noqa: A001
    """Deprecated in torch: like arange but includes ``end``."""
    import warnings
    warnings.warn("torch.range is deprecated and will be removed in a future release because its "
                  "behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    size = builtins.int(math.floor((end - start) / step)) + 1
    target = as_dtype(dtype) if dtype is not None else get_default_dtype()
    return _finish(wrap((start + step * np.arange(size)).astype(target.numpy_dtype)),
                   requires_grad, device)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``steps`` evenly spaced values from start to end, both included."""
    if not isinstance(steps, builtins.int) or isinstance(steps, builtins.bool):
        raise TypeError("linspace(): argument 'steps' must be int, not " + type(steps).__name__)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    target = as_dtype(dtype) if dtype is not None else get_default_dtype()
    values = _linspace_values(_number(start, "start"), _number(end, "end"), steps, target)
    return _finish(_out(wrap(values), out), requires_grad, device)


def _linspace_values(start, end, steps, target):
    """torch's kernel: the first half counts up from start, the second half down from end."""
    np_dtype = target.numpy_dtype
    if steps == 0:
        return np.empty(0, np_dtype)
    if steps == 1:
        return np.array([start], np_dtype)
    index = np.arange(steps)
    first_half = index < steps // 2
    if not target.is_floating_point:
        step = (float(builtins.int(end)) - float(builtins.int(start))) / (steps - 1)
        up = fma(step, index, float(builtins.int(start)))
        down = fma(-step, steps - index - 1, float(builtins.int(end)))
        return np.where(first_half, up, down).astype(np_dtype)
    if np_dtype == np.float64:
        step = (float(end) - float(start)) / (steps - 1)
        return np.where(first_half, fma(step, index, float(start)),
                        fma(-step, steps - index - 1, float(end)))
    low, high = np_dtype.type(start), np_dtype.type(end)
    step = (high - low) / np_dtype.type(steps - 1)
    # a float32 fused multiply-add is exact in float64, then rounded once
    up = low.astype(np.float64) + np.float64(step) * index
    down = high.astype(np.float64) - np.float64(step) * (steps - index - 1)
    return np.where(first_half, up, down).astype(np_dtype)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """base ** linspace(start, end, steps)"""
    target = as_dtype(dtype) if dtype is not None else get_default_dtype()
    exponents = _linspace_values(float(start), float(end), steps, _dtype.float64)
    compute = np.float64 if target.numpy_dtype == np.float64 else np.float32
    values = np.power(compute(base), exponents.astype(compute) if compute is np.float32 else
                      exponents)
    return _finish(_out(wrap(values.astype(target.numpy_dtype)), out), requires_grad, device)


# ---------------------------------------------------------------- random
def _float_target(dtype, name):
    target = as_dtype(dtype) if dtype is not None else get_default_dtype()
    if not target.is_floating_point:
        raise RuntimeError(f"\"{name}\" not implemented for '{_dtype.scalar_type_name[target]}'")
    return target


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform random numbers in [0, 1)."""
    target = _float_target(dtype, "check_uniform_bounds")
    values = _random.uniform(_sizes(size), target.numpy_dtype, 0.0, 1.0, generator)
    return _finish(_out(wrap(values), out), requires_grad, device)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal random numbers (mean 0, std 1)."""
    target = _float_target(dtype, "normal_kernel_cpu")
    values = _random.normal(_sizes(size), target.numpy_dtype, 0.0, 1.0, generator)
    return _finish(_out(wrap(values), out), requires_grad, device)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False):
    """Random integers in [low, high)."""
    if size is None:  # randint(high, size)
        if high is None:
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() received an invalid combination of arguments")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    target = as_dtype(dtype) if dtype is not None else _dtype.int64
    values = _random.random_int(_sizes((size,)), target.numpy_dtype, low, high, generator)
    return _finish(_out(wrap(values), out), requires_grad, device)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random ordering of 0, 1, ..., n - 1."""
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    target = as_dtype(dtype) if dtype is not None else _dtype.int64
    return _finish(_out(wrap(_random.randperm(n, target.numpy_dtype, generator)), out),
                   requires_grad, device)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    return rand(input._data.shape, dtype=dtype or input.dtype, device=device,
                requires_grad=requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    return randn(input._data.shape, dtype=dtype or input.dtype, device=device,
                 requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=dtype or input.dtype, device=device,
                   requires_grad=requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False):
    """Normal random numbers with the given mean and std (numbers or tensors)."""
    if size is not None:
        target = _float_target(dtype, "normal_kernel_cpu")
        values = _random.normal(_sizes((size,)), target.numpy_dtype, float(mean), float(std),
                                generator)
        return _finish(_out(wrap(values), out), requires_grad, device)
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        raise TypeError("normal() received an invalid combination of arguments")
    if isinstance(std, Tensor) and (std._data < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    mean_arg = mean._data if isinstance(mean, Tensor) else float(mean)
    std_arg = std._data if isinstance(std, Tensor) else float(std)
    return _out(wrap(_random.normal_tensor(mean_arg, std_arg, generator)), out)


def bernoulli(input, p=None, *, generator=None, out=None):
    """0 or 1 drawn with probability ``input`` (or ``p``) of a 1."""
    probs = input._data if p is None else p
    values = _random.bernoulli(probs, input._data.shape, input._data.dtype, generator)
    return _out(wrap(values), out)
