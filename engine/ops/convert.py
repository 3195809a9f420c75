"""Conversions: ``x.to(dtype)``, ``x.float()`` ..., ``x.type()``, copying and pickling, and
the old-style constructors ``torch.Tensor(2, 3)`` / ``torch.FloatTensor([1, 2])``.
"""
import copy as _copy
import warnings

import numpy as np

from ..fidelity import dtypes
from ..fidelity.dtypes import get_default_dtype
from ..fidelity import messages, signatures
from ..fidelity.floating import copy_cast
from ..fidelity.layout import strided_array, suggested_memory_format
from ..fidelity.size import check_device, check_memory_format, strided
from ..fidelity.size import device as device_type
from ..fidelity.messages import type_name
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from .common import operand_type_error, tensor_inputs
from .common import copy_preserving_layout, empty_in_format
from .creation import empty, tensor
from .views import AliasBackward0, alias

__all__ = ["result_type", "is_tensor", "is_floating_point", "numel", "is_nonzero", "is_signed",
           "is_same_size", "is_inference"]


def to_copy(tensor, np_dtype, memory_format=None):
    """``tensor.to(dtype)``: a converted copy laid out like ``tensor`` (or in memory_format).
    To a dtype without gradients (integers, bool) torch's autograd records nothing, and does
    not even look at tensor's history (a view whose base changed in place converts fine)."""
    if memory_format is None:
        result = copy_preserving_layout(tensor, np_dtype)
        if np.dtype(np_dtype).kind not in "fc":
            return result
        return record(ToCopyBackward0, result, (tensor,))
    result = empty_in_format(tensor, np_dtype, memory_format)
    with np.errstate(invalid="ignore", over="ignore"):  # as copy_preserving_layout's casts
        copy_cast(result._data, tensor._data)
    if np.dtype(np_dtype).kind not in "fc":
        return result
    return record(ToCopyBackward0, result, (tensor,))


class ToCopyBackward0(Node):
    """out = x converted to another dtype:  the gradient is converted back (in _validated)"""

    def backward(self, grad):
        return grad


def construct(dtype, args, device=None, form="constructor", any_dtype=False):
    """What ``torch.<Type>Tensor(*args)`` builds: from sizes (uninitialised) or from data; of a
    tensor, an alias of it (a view of all of it, recorded as AliasBackward0), which must have
    the type's dtype (any dtype for ``torch.Tensor`` itself). ``form``: "constructor", or
    "new" for ``x.new(...)``."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        if device is not None:
            raise RuntimeError(_LEGACY_WITH_DEVICE[form])
        other = args[0]
        if not any_dtype and other.dtype is not dtype:
            raise TypeError(f"expected {_options(dtype)} (got {_options(other.dtype)})")
        return record(AliasBackward0, alias(other), (other,))
    check_device(device)
    if not args:
        return empty(0, dtype=dtype)
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        return empty(*args, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
        if isinstance(args[0], tuple) and type(args[0]).__name__ == "Size":
            return empty(*args[0], dtype=dtype)
        return tensor(args[0], dtype=dtype)
    if len(args) == 1 and isinstance(args[0], str):
        raise TypeError(f"new(): invalid data type '{type_name(args[0])}'")
    raise TypeError(f"new(): data must be a sequence (got {type_name(args[0])})")


_LEGACY_WITH_DEVICE = {
    "constructor": "Legacy tensor constructor of the form torch.Tensor(tensor, device=device) "
                   "is not supported.  Use torch.tensor(...) or torch.as_tensor(...) instead.",
    "new": "Legacy tensor new of the form tensor.new(tensor, device=device) is not supported.  "
           "Use torch.as_tensor(...) instead."}


def _options(dtype):
    """A dtype as torch prints a TensorOptions, by its C++ name."""
    name = messages.CPP_TYPE_NAMES[repr(dtype).removeprefix("torch.")]
    return (f"TensorOptions(dtype={name}, device=cpu, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


class LegacyTensorType:
    """``torch.FloatTensor`` and friends: call it to construct, or use it in isinstance."""

    def __init__(self, name, dtype):
        self.__name__ = name
        self.dtype = dtype

    def __call__(self, *args, device=None):
        return construct(self.dtype, args, device)

    def __instancecheck__(self, obj):
        return getattr(obj, "dtype", None) is self.dtype and hasattr(obj, "_data")

    def __repr__(self):
        return f"<class 'torch.{self.__name__}'>"


TYPES = {f"{name}Tensor": LegacyTensorType(f"{name}Tensor", dtype)
         for dtype, name in dtypes.scalar_type_name.items()}


# torch's three ways of calling to(), as its parser lists them (nn.Module.to reads its
# arguments the same way); a number given for the tensor stands for a 0-d tensor of its own
# type: x.to(True) is x.to(torch.bool), x.to(1.5) is x.to(torch.float64)
TO_OVERLOADS = tuple(line.removeprefix(" * ") for line in
                     messages.TO_INVALID_ARGUMENTS.splitlines()[1:])
_TO_SIGNATURES = signatures.method_signatures(TO_OVERLOADS)


def parse_to(args, kwargs):
    """``(device, dtype, non_blocking, copy, memory_format)`` as torch's parser reads the
    arguments of ``to(...)``, or its TypeError when no overload takes them."""
    for signature in _TO_SIGNATURES:
        if signature.parse("to", args, kwargs, False, True) is True:
            break
    else:
        raise signatures.refuse("to", TO_OVERLOADS, False, args, kwargs, True, True)
    given = dict(zip((p.name for p in signature.params), args), **kwargs)
    dtype = given.get("dtype")
    if "tensor" in given:
        other = given["tensor"]
        dtype = other.dtype if isinstance(other, Tensor) else _number_dtype(other)
    return (given.get("device"), dtype, given.get("non_blocking", False),
            given.get("copy", False), given.get("memory_format"))


def _number_dtype(number):
    """The dtype of the 0-d tensor torch makes of a number given for a tensor: a Python bool
    stays bool, every other real number is double (numpy's bool too); a complex one would be
    complex128, which the engine does not have."""
    if number.__class__ is bool:
        return dtypes.bool
    if isinstance(number, (complex, np.complexfloating)):
        raise TypeError("complex numbers are not supported by this engine")
    return dtypes.float64


_DTYPE_OR_DEVICE = (dtypes.dtype, str, device_type)


def to(self, *args, **kwargs):
    """Convert dtype and/or device; returns ``self`` when nothing changes and copy=False."""
    if not kwargs and len(args) == 1 and args[0].__class__ in _DTYPE_OR_DEVICE:
        # (the common calls: x.to(torch.float64), x.to("cpu"), x.to(device))
        copy, memory_format = False, None
        dtype, device = (args[0], None) if args[0].__class__ is dtypes.dtype else (None, args[0])
    else:
        device, dtype, _, copy, memory_format = parse_to(args, kwargs)
    check_device(device)
    if memory_format is not None and memory_format.name != "preserve_format":
        # torch aliases when the format its strides suggest is the one asked for, which is
        # not is_contiguous: a transposed matrix suggests contiguous_format (returned as it is),
        # a (2, 3, 1, 1) row-major tensor is channels-last-contiguous but suggests contiguous
        if not copy and (dtype is None or dtypes.as_dtype(dtype) == self.dtype) and \
                suggested_memory_format(self._data.shape, self.stride()) == memory_format.name:
            return self
        return to_copy(self, dtypes.as_dtype(dtype or self.dtype).numpy_dtype, memory_format)
    target = self.dtype if dtype is None else dtypes.as_dtype(dtype)
    if target.numpy_dtype == self._data.dtype and not copy:
        return self
    return to_copy(self, target.numpy_dtype)


_TYPE_PARAMETERS = ("dtype", "non_blocking", "memory_format")


def type_(self, *args, **kwargs):
    """With no dtype, the legacy type name (``'torch.FloatTensor'``); else a cast (as ``to``,
    in the memory format asked for)."""
    if len(args) > 2:
        raise TypeError(f"type() takes from 0 to 2 positional arguments but {len(args)} were "
                        "given")
    for key in kwargs:
        if key not in _TYPE_PARAMETERS:
            raise TypeError(f"type() got an unexpected keyword argument '{key}'")
        if _TYPE_PARAMETERS.index(key) < len(args):
            raise TypeError(f"type() got multiple values for argument '{key}'")
    dtype = args[0] if args else kwargs.get("dtype")
    non_blocking = args[1] if len(args) > 1 else kwargs.get("non_blocking", False)
    if non_blocking.__class__ is not bool:
        where = " (position 2)" if len(args) > 1 else ""
        raise TypeError(f"type(): argument 'non_blocking'{where} must be bool, not "
                        f"{type_name(non_blocking)}")
    memory_format = check_memory_format(kwargs.get("memory_format"), "type")
    if dtype is None:
        return dtypes.legacy_type_name(self.dtype)
    if isinstance(dtype, str):
        if dtype.startswith("torch.cuda."):
            raise RuntimeError(messages.NO_NVIDIA_DRIVER)
        if dtype not in dtypes.LEGACY_TYPE_NAMES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = dtypes.LEGACY_TYPE_NAMES[dtype]
    elif getattr(dtype, "is_cuda", False):  # torch.cuda.FloatTensor & co
        raise RuntimeError(messages.NO_NVIDIA_DRIVER)
    elif isinstance(dtype, LegacyTensorType):  # x.type(torch.DoubleTensor)
        dtype = dtype.dtype
    elif dtype is Tensor:  # (torch.Tensor: the default type)
        dtype = dtypes.get_default_dtype()
    elif isinstance(dtype, type):  # (a class that is no tensor type: float, numpy.float32)
        module = dtype.__module__
        raise ValueError("invalid type: '"
                         f"{'' if module == 'builtins' else module + '.'}{dtype.__qualname__}'")
    elif not isinstance(dtype, dtypes.dtype):
        raise TypeError("dtype must be a type, str, or dtype object")
    if memory_format is None:
        return self.to(dtype)
    return self.to(dtype, memory_format=memory_format)


def type_as(self, other):
    """This tensor converted to ``other``'s dtype (itself when it has it already)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not "
                        f"{type_name(other)}")
    return self.to(other.dtype)


def new(self, *args, device=None):
    """The legacy ``x.new(sizes)`` / ``x.new(data)``: a tensor of this tensor's dtype
    (prefer ``x.new_empty(sizes)`` and ``x.new_tensor(data)``)."""
    return construct(self.dtype, args, device, form="new")


def _caster(name, np_dtype):
    """``x.float()`` & co: ``x`` itself when it has this dtype already, else a converted copy
    (``memory_format=`` by keyword: as ``to`` lays it out)."""
    def cast(self, *given, **kwargs):
        if given or kwargs:
            return _cast_in_format(self, name, np_dtype, given, kwargs)
        return self if self._data.dtype == np_dtype else to_copy(self, np_dtype)

    cast.__name__ = cast.__qualname__ = name
    return cast


def _cast_in_format(tensor, name, np_dtype, given, kwargs):
    if given:  # (memory_format by keyword only)
        raise messages.no_positional_arguments(name, given)
    for key in kwargs:
        if key != "memory_format":
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    memory_format = check_memory_format(kwargs["memory_format"], name)
    if memory_format is None:
        return _caster(name, np_dtype)(tensor)
    return tensor.to(dtypes.from_numpy_dtype[np.dtype(np_dtype)], memory_format=memory_format)


# x.float() ... x.bool(): the methods named like Python's builtins


CASTS = {name: _caster(name, np.dtype(np_type)) for name, np_type in (
    ("float", np.float32), ("double", np.float64), ("half", np.float16), ("long", np.int64),
    ("int", np.int32), ("short", np.int16), ("char", np.int8), ("byte", np.uint8),
    ("bool", np.bool_))}


def cpu(self, *given, memory_format=None):
    if given:  # (memory_format by keyword only)
        raise messages.no_positional_arguments("cpu", given)
    check_memory_format(memory_format, "cpu")
    return self


def cuda(self, device=None, non_blocking=False, memory_format=None):
    raise RuntimeError(messages.NO_NVIDIA_DRIVER)


def pin_memory(self, device=None):
    """Page-locked memory is for copies to a GPU: there is none."""
    raise RuntimeError(messages.NO_NVIDIA_DRIVER)


def is_pinned(self, device=None):
    return False


def reduce_ex(self, protocol):
    # Like torch: the whole storage travels with its offset and strides. A new array
    # object per call keeps pickle from merging the storages of tensors pickled together
    # (torch does not merge them either), while copy.copy still shares the memory.
    return (_rebuild, (self._storage_array().view(), self.storage_offset(),
                       self._data.shape, self.stride(), self._requires_grad))


def deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError(messages.DEEPCOPY_NON_LEAF)
    if id(self) in memo:
        return memo[id(self)]
    # The memo maps a storage to its copy, so views copied together still share memory.
    new_storage = _copy.deepcopy(self._storage_array(), memo)
    result = _rebuild(new_storage, self.storage_offset(), self._data.shape, self.stride(),
                      self._requires_grad)
    if self._grad is not None:
        result._grad = deepcopy(self._grad, memo)
    memo[id(self)] = result
    return result


def _rebuild(storage, offset, shape, stride, requires_grad):
    """A tensor over ``storage`` (the inverse of ``__reduce_ex__``)."""
    t = wrap(strided_array(storage, shape, stride, offset))
    t._stride, t._storage, t._offset = tuple(stride), storage, offset
    t._requires_grad = requires_grad
    t._bump_version()  # torch builds it with set_(), an in-place change
    return t


def legacy_new(cls, *args, device=None):
    """The legacy constructor ``torch.Tensor(2, 3)`` / ``torch.Tensor([1, 2])``: the default
    dtype (float32 unless set_default_dtype changed it).

    Prefer ``engine.tensor(data)`` and ``engine.empty(sizes)``, as PyTorch does.
    """
    return construct(get_default_dtype(), args, device, any_dtype=True)


def get_data(tensor):
    """``x.data``: the same memory, outside autograd, with its own version counter."""
    result = tensor.detach()
    result._vc = None  # torch: changes through .data are invisible to autograd's checks
    return result


def set_data(tensor, value):
    """``x.data = y``: x now looks at y's memory (shape and dtype may change)."""
    if tensor._requires_grad and value._data.dtype.kind != "f":
        raise RuntimeError("data set to a tensor that requires gradients must be floating point "
                           "or complex dtype")
    value._storage_array()  # settle y's storage first, so both share the very same one
    tensor._data, tensor._stride = value._data, value._stride
    tensor._storage, tensor._offset = value._storage, value._offset


# ---------------------------------------------------------------- torch.is_tensor & co


def result_type(tensor1, tensor2):
    """The dtype an operation between ``tensor1`` and ``tensor2`` produces."""
    return dtypes.result_type(tensor1, tensor2)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.is_floating_point()


def numel(input):
    return input.numel()


def is_signed(input):
    """Whether the dtype holds negative numbers (not uint8 nor bool)."""
    return input._data.dtype.kind not in "ub"


def is_same_size(input, other):
    if not isinstance(other, Tensor):
        raise operand_type_error("is_same_size", other, 2)
    return input._data.shape == other._data.shape


def is_inference(input):
    return input.is_inference()


def is_nonzero(input):
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return input.item() != 0


# -------------------------------------------------------- Python values: float(x), bool(x) ...


def to_numpy_array(self, dtype=None, copy=None):
    data = self.numpy()
    return data if dtype is None else data.astype(dtype, copy=False)


def _python_scalar(self):
    if self._data.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return self._data.reshape(()).item()


_SCALAR_OF_GRAPH_WARNED = []  # torch warns once per process (TORCH_WARN_ONCE)


def _warn_scalar_of_graph(self):
    """float() and complex() of a tensor that requires grad warn (the number leaves the graph:
    a learner may expect gradients through it); int() and item() do not."""
    if self.requires_grad and not _SCALAR_OF_GRAPH_WARNED:
        _SCALAR_OF_GRAPH_WARNED.append(True)
        warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                      "unexpected behavior.\nConsider using tensor.detach() first."
                      + messages.triggered_in("torch/csrc/autograd/generated/"
                                              "python_variable_methods.cpp:820"), stacklevel=3)


def to_python_float(self):
    _warn_scalar_of_graph(self)
    return float(_python_scalar(self))


def to_python_int(self):
    return int(_python_scalar(self))


def to_python_complex(self):
    _warn_scalar_of_graph(self)
    return complex(_python_scalar(self))


def to_python_bool(self):
    size = self._data.size
    if size != 1:
        amount = "no values" if size == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
    return bool(self._data.reshape(()).item())


def to_index(self):
    if self._data.dtype.kind not in "iub" or self._data.size != 1:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return int(self._data.reshape(()).item())


# -------------------------------------------------------- where a tensor lives (only the CPU)


DEVICE_FLAGS = {"is_cuda": False, "is_cpu": True, "is_sparse": False, "is_quantized": False,
                "is_meta": False, "is_mps": False, "layout": strided}


def get_device(self):
    return -1


def is_complex(self):
    return False


def is_set_to(self, other):
    if not isinstance(other, Tensor):
        raise TypeError("is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type_name(other)}")
    return (self._storage_array() is other._storage_array() and self._offset == other._offset
            and self.shape == other.shape and self.stride() == other.stride())


# torch.numel(None): torch's TypeError
tensor_inputs(globals(), ["is_floating_point", "is_inference", "is_nonzero", "is_signed", "numel"])
