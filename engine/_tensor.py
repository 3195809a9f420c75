"""The Tensor: a numpy array plus what PyTorch tracks around it.

A tensor here is a *view* of a 1-D block of memory (its storage) described by
shape, strides and a storage offset, exactly as in PyTorch. The values live in
``_data``, a numpy array that looks at that storage with the same strides, so
numpy does the arithmetic while the tensor keeps torch's bookkeeping: which
tensors share memory, their version counter, and (from the autograd chapter on)
``requires_grad``, ``grad`` and ``grad_fn``.
"""
import copy as _copy
import math
import warnings
import weakref

import numpy as np

from . import _dtype
from ._size import CPU, Size, check_device, strided
from ._size import device as device_type
from ._layout import (contiguous_strides, is_non_overlapping_and_dense,  # noqa: F401
                      preserved_strides, strides_are_contiguous)


class _VersionCounter:
    """How many in-place changes a storage has seen; shared by a tensor and its views."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class Tensor:
    """A multi-dimensional array with PyTorch's API. Create one with ``engine.tensor``."""

    # Defaults on the class keep creating a tensor cheap: an instance only stores
    # what differs, and most tensors are fresh results with none of these set.
    _stride = None       # torch strides when they differ from what numpy shows
    _storage = None      # the 1-D numpy array of the whole storage, found lazily
    _offset = 0          # where this tensor starts inside its storage
    _vc = None           # _VersionCounter, made on the first view or in-place change
    _base = None         # the tensor this one is a view of
    _requires_grad = False
    _grad_fn = None      # the node that made this tensor (see the grad_fn property)
    _base_history = None  # a view's: its base's grad_fn when the view's grad_fn was set
    _grad = None
    _retains_grad = False
    _output_nr = 0       # which output of its grad_fn this tensor is
    _accumulator = None  # a weak reference to a leaf's AccumulateGrad node, made on first use
    _inference = False
    __array_priority__ = 1000  # numpy hands `ndarray + tensor` to Tensor.__radd__

    def __new__(cls, *args, device=None):
        """The legacy constructor ``torch.Tensor(2, 3)`` / ``torch.Tensor([1, 2])``: float32.

        Prefer ``engine.tensor(data)`` and ``engine.empty(sizes)``, as PyTorch does.
        """
        return _legacy.construct(_dtype.float32, args, device)

    # ------------------------------------------------------------ metadata
    @property
    def shape(self):
        """The size of each dimension, as a ``torch.Size`` (an attribute, not a method)."""
        return Size(self._data.shape)

    def size(self, dim=None):
        """``size()`` is ``shape``; ``size(d)`` is one dimension's length."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_dim_index(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def dtype(self):
        return _dtype.from_numpy_dtype[self._data.dtype]

    @property
    def device(self):
        return CPU

    is_cuda = False
    is_cpu = True
    is_sparse = False
    is_quantized = False
    is_meta = False
    is_mps = False
    layout = strided

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return False

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def get_device(self):
        return -1

    # ------------------------------------------------------------ memory
    def stride(self, dim=None):
        """Elements to step in storage to move one place along each dimension."""
        strides = self._stride
        if strides is None:
            data = self._data
            if data.flags.c_contiguous:
                strides = contiguous_strides(data.shape)
            else:
                strides = tuple(s // data.itemsize for s in data.strides)
            self._stride = strides
        if dim is None:
            return strides
        return strides[_dim_index(dim, self._data.ndim)]

    def storage_offset(self):
        """Where element ``[0, 0, ...]`` sits in the storage, counted in elements."""
        self._storage_array()
        return self._offset

    def _storage_array(self):
        """The 1-D numpy array of this tensor's whole storage (shared by its views)."""
        storage = self._storage
        if storage is None:
            data = self._data
            # A fresh result owns one dense block starting at its first element.
            storage = data.reshape(-1) if data.flags.c_contiguous else data.ravel(order="K")
            if data.size and not np.shares_memory(storage, data):
                raise AssertionError("internal error: a tensor's data is not a dense block")
            self._storage = storage
        return storage

    def untyped_storage(self):
        """The storage: one flat block of memory that views share."""
        return UntypedStorage(self._storage_array())

    def data_ptr(self):
        """The address of the first element: equal for tensors that start at the same place."""
        return self._data.__array_interface__["data"][0]

    def is_contiguous(self, memory_format=None):
        """True when the strides are the row-major ones (dimensions of size 1 may have any)."""
        return strides_are_contiguous(self._data.shape, self.stride())

    def is_non_overlapping_and_dense(self):
        return is_non_overlapping_and_dense(self._data.shape, self.stride())

    def is_set_to(self, other):
        return (self._storage_array() is other._storage_array() and self._offset == other._offset
                and self.shape == other.shape and self.stride() == other.stride())

    def _version_counter(self):
        vc = self._vc
        if vc is None:
            vc = self._vc = _VersionCounter()
        return vc

    @property
    def _version(self):
        """How many in-place changes this tensor's memory has seen (views share the count)."""
        return 0 if self._vc is None else self._vc.value

    def _bump_version(self):
        self._version_counter().value += 1

    # ------------------------------------------------------------ autograd
    @property
    def requires_grad(self):
        """Whether autograd records operations on this tensor."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value and self._data.dtype.kind != "f":  # (torch words it differently here)
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Ask autograd to track operations on this (leaf, floating point) tensor."""
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If "
                               "you want to use a computed variable in a subgraph that doesn't "
                               "require differentiation use var_no_grad = var.detach().")
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not _autograd._inference_mode[0]:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        """The node that made this tensor (``MulBackward0`` ...); None for a leaf."""
        base = self._base
        if base is not None and self._grad_fn is not None and base._requires_grad and \
                base._grad_fn is not self._base_history:
            # An in-place change gave the base a new history after this view was recorded:
            # the view is now a piece of the new base, and its node says so (as in torch).
            _autograd.regenerate_view_history(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node
        if self._base is not None:
            self._base_history = self._base._grad_fn

    @property
    def is_leaf(self):
        """A leaf was made by the user, not computed by a recorded operation."""
        return self.grad_fn is None

    @property
    def grad(self):
        """The gradient accumulated by backward(): kept on leaves (and on retain_grad())."""
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            _autograd.warn_non_leaf_grad()
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if value is not None and value.dtype != self.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{_CPP_TYPE_NAMES[value.dtype]}' "
                f"to a tensor with grad_dtype '{_SCALAR_TYPE_NAMES[self.dtype]}'. The gradient "
                f"must match the tensor's grad_dtype (defaults to the tensor's dtype). You can "
                f"set the tensor's grad_dtype attribute with a specific dtype, or None to allow "
                f"any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and "
                f"its gradient may break downstream systems that assume they match.")
        if value is not None and value._data.shape != self._data.shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are "
                f"the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def output_nr(self):
        """Which output of its ``grad_fn`` this tensor is (0 unless the op had several)."""
        return self._output_nr

    @property
    def retains_grad(self):
        """True after retain_grad() on a non-leaf tensor."""
        return self._retains_grad

    def retain_grad(self):
        """Keep ``.grad`` on this non-leaf tensor after backward (leaves always keep it)."""
        _autograd.retain_grad(self)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return another."""
        return _autograd.register_hook(self, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor with respect to the leaves, into their ``.grad``."""
        _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach_(self):
        """Cut this tensor from its graph, in place: it becomes a leaf without requires_grad."""
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are "
                               "using DistributedDataParallel (DDP) for training, and "
                               "gradient_as_bucket_view is set as True, gradients are views of "
                               "DDP buckets, and hence detach_() cannot be called on these "
                               "gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py as "
                               "the solution.")
        self.grad_fn, self._requires_grad, self._output_nr = None, False, 0
        return self

    def is_inference(self):
        """True for tensors made inside ``inference_mode()``."""
        return self._inference

    def _grad_accumulator(self):
        """This leaf's AccumulateGrad node (the same one while a graph or a hook holds it)."""
        node = None if self._accumulator is None else self._accumulator()
        if node is None:
            node = _autograd.AccumulateGrad(self)
            # weak, as in torch: the node holds this tensor, and a strong reference back
            # would make a cycle that only the garbage collector frees
            self._accumulator = weakref.ref(node)
        return node

    def _alias_for_saving(self):
        """The same memory and version counter, without grad_fn (so a node can keep it)."""
        return _views.detach(self)

    def _as_output_of(self, node):
        """This saved output as ``node``'s result again, for a differentiable backward."""
        alias = _views.detach(self)
        alias.grad_fn, alias._requires_grad = node, True
        return alias

    # ------------------------------------------------------------ conversion
    def numpy(self, *, force=False):
        """The same memory as a numpy array: writing to one changes the other."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        data = self.numpy()
        return data if dtype is None else data.astype(dtype, copy=False)

    def item(self):
        """The single value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def _python_scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __float__(self):
        return float(self._python_scalar())

    def __int__(self):
        return int(self._python_scalar())

    def __complex__(self):
        return complex(self._python_scalar())

    def __bool__(self):
        size = self._data.size
        if size != 1:
            amount = "no values" if size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self._data.reshape(()).item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()).item())

    def to(self, *args, dtype=None, device=None, copy=False, non_blocking=False,
           memory_format=None):
        """Convert dtype and/or device; returns ``self`` when nothing changes and copy=False."""
        flags = []
        for arg in args:
            if isinstance(arg, Tensor):
                dtype = arg.dtype
            elif isinstance(arg, _dtype.dtype) or arg is float or arg is int or arg is bool:
                dtype = arg
            elif isinstance(arg, bool):
                flags.append(arg)  # to(dtype, non_blocking, copy): positional flags
            elif isinstance(arg, (str, device_type)):
                device = arg
            elif isinstance(arg, int):
                raise RuntimeError("Cannot access accelerator device when none is available.")
            else:
                raise TypeError(f"to() received an invalid combination of arguments - got "
                                f"({type(arg).__name__}), but expected one of:\n"
                                " * (torch.device device = None, torch.dtype dtype = None, bool "
                                "non_blocking = False, bool copy = False, *, torch.memory_format "
                                "memory_format = None)")
        if len(flags) > 1:
            copy = flags[1]
        check_device(device)
        target = self.dtype if dtype is None else _dtype.as_dtype(dtype)
        if target.numpy_dtype == self._data.dtype and not copy:
            return self
        return _ops.to_copy(self, target.numpy_dtype)

    def type(self, dtype=None, non_blocking=False):
        """With no argument, the legacy type name (``'torch.FloatTensor'``); else a cast."""
        if dtype is None:
            return legacy_type_name(self.dtype)
        if isinstance(dtype, str):
            if dtype.startswith("torch.cuda."):
                raise RuntimeError("Cannot initialize CUDA without ATen_cuda library. PyTorch "
                                   "splits its backend into two shared libraries: a CPU library "
                                   "and a CUDA library; this error has occurred because you are "
                                   "trying to use some CUDA functionality, but the CUDA library "
                                   "has not been loaded by the dynamic linker for some reason.  "
                                   "The CUDA library MUST be loaded, EVEN IF you don't directly "
                                   "use any symbols from the CUDA library! One common culprit is "
                                   "a lack of -Wl,--no-as-needed in your link arguments; many "
                                   "dynamic linkers will delete dynamic library dependencies if "
                                   "you don't depend on any of their symbols.  You can check if "
                                   "this has occurred by using ldd on your binary to see if there "
                                   "is a dependency on *_cuda.so library.")
            if dtype not in _LEGACY_TYPE_NAMES:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = _LEGACY_TYPE_NAMES[dtype]
        elif not isinstance(dtype, _dtype.dtype):
            raise ValueError(f"invalid type: '{getattr(dtype, '__name__', dtype)}'")
        return self.to(dtype)

    def _cast(self, np_dtype):
        """``self`` when it already has this dtype, otherwise a converted copy."""
        if self._data.dtype == np_dtype:
            return self
        return _ops.to_copy(self, np_dtype)

    def float(self):
        return self._cast(_F32)

    def double(self):
        return self._cast(_F64)

    def half(self):
        return self._cast(_F16)

    def long(self):
        return self._cast(_I64)

    def int(self):
        return self._cast(_I32)

    def short(self):
        return self._cast(_I16)

    def char(self):
        return self._cast(_I8)

    def byte(self):
        return self._cast(_U8)

    def bool(self):
        return self._cast(_B)

    def cpu(self, memory_format=None):
        return self

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        raise AssertionError("Torch not compiled with CUDA enabled")

    # ------------------------------------------------------------ printing
    def __repr__(self, *, tensor_contents=None):
        return _printing.tensor_repr(self)

    __str__ = __repr__

    def __format__(self, format_spec):
        return _printing.tensor_format(self, format_spec)

    # Tensors hash by identity (so they can be dict keys) although == is elementwise.
    __hash__ = object.__hash__

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    # ------------------------------------------------------------ pickling and copying
    def __reduce_ex__(self, protocol):
        # Like torch: the whole storage travels with its offset and strides. A new array
        # object per call keeps pickle from merging the storages of tensors pickled together
        # (torch does not merge them either), while copy.copy still shares the memory.
        return (_rebuild, (self._storage_array().view(), self.storage_offset(),
                           self._data.shape, self.stride(), self._requires_grad))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        # The memo maps a storage to its copy, so views copied together still share memory.
        new_storage = _copy.deepcopy(self._storage_array(), memo)
        result = _rebuild(new_storage, self.storage_offset(), self._data.shape, self.stride(),
                          self._requires_grad)
        if self._grad is not None:
            result._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = result
        return result


_F16, _F32, _F64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
_U8, _I8, _I16, _I32, _I64 = (np.dtype(t)
                               for t in (np.uint8, np.int8, np.int16, np.int32, np.int64))
_B = np.dtype(np.bool_)
_LEGACY_TYPE_NAMES = {f"torch.{name}Tensor": d for d, name in _dtype.scalar_type_name.items()}
# The names torch's errors give dtypes: its C++ element type, and its ScalarType.
_CPP_TYPE_NAMES = {_dtype.bool: "bool", _dtype.uint8: "unsigned char", _dtype.int8: "signed char",
                   _dtype.int16: "short int", _dtype.int32: "int", _dtype.int64: "long int",
                   _dtype.float16: "c10::Half", _dtype.float32: "float", _dtype.float64: "double"}
_SCALAR_TYPE_NAMES = _dtype.scalar_type_name


def legacy_type_name(dtype):
    """``'torch.FloatTensor'`` for float32: the name torch's messages and ``x.type()`` use."""
    return f"torch.{_dtype.scalar_type_name[dtype]}Tensor"


def _dim_index(dim, ndim):
    """``dim`` made non-negative for size(d) / stride(d), with torch's messages."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _ops.wrap_dim(dim, ndim)


def _rebuild(storage, offset, shape, stride, requires_grad):
    """A tensor over ``storage`` (the inverse of ``__reduce_ex__``)."""
    t = wrap(_strided_array(storage, shape, stride, offset))
    t._stride, t._storage, t._offset = tuple(stride), storage, offset
    t._requires_grad = requires_grad
    t._bump_version()  # torch builds it with set_(), an in-place change
    return t


class UntypedStorage:
    """A flat block of bytes that one or more tensors view."""

    def __init__(self, array):
        self._array = array

    def data_ptr(self):
        return self._array.__array_interface__["data"][0]

    def nbytes(self):
        return self._array.nbytes

    def size(self):
        return self._array.nbytes

    def __len__(self):
        return self._array.nbytes

    def __eq__(self, other):
        return isinstance(other, UntypedStorage) and self.data_ptr() == other.data_ptr()

    def __hash__(self):
        return self.data_ptr()

    def __repr__(self):
        values = "\n".join(f" {b}" for b in self._array.view(np.uint8).tolist())
        return f"{values}\n[torch.storage.UntypedStorage(device=cpu) of size {self.nbytes()}]"


_new_tensor = object.__new__


def wrap(array):
    """A fresh tensor around a numpy array (no copy). Used for every computed result."""
    if array.__class__ is not np.ndarray:
        array = np.asarray(array)  # numpy returns scalars from 0-d computations
    t = _new_tensor(Tensor)
    t._data = array
    if _autograd._inference_mode[0]:
        t._inference = True  # made inside inference_mode(): never usable by autograd
    return t


def _strided_array(storage, shape, stride, offset):
    """A numpy array looking at ``storage`` with these shape, strides and offset (elements)."""
    itemsize = storage.itemsize
    try:
        return np.ndarray(shape, storage.dtype, storage, offset * itemsize,
                          tuple(s * itemsize for s in stride))
    except ValueError:
        # An empty view may start at the very end of its storage (x[5:] of 3 rows), which
        # numpy refuses; it holds no elements, so any place in the storage will do.
        if 0 not in shape:
            raise
        return np.ndarray(shape, storage.dtype, storage, 0, tuple(s * itemsize for s in stride))


def make_view(base, shape, stride, offset):
    """A tensor that looks at ``base``'s storage with new shape, strides and offset."""
    storage = base._storage_array()
    view = _new_tensor(Tensor)
    view._data = _strided_array(storage, shape, stride, offset)
    view._stride = tuple(stride)
    view._storage = storage
    view._offset = offset
    view._vc = base._version_counter()
    view._base = base if base._base is None else base._base
    return view


def empty_strided(shape, stride, np_dtype):
    """A fresh tensor with exactly these strides; its values are uninitialised."""
    shape, stride = tuple(shape), tuple(stride)
    if stride == contiguous_strides(shape):
        return wrap(np.empty(shape, np_dtype))
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, stride)) if 0 not in shape else 0
    storage = np.empty(extent, np_dtype)
    t = wrap(_strided_array(storage, shape, stride, 0))
    t._stride, t._storage = stride, storage
    return t


def _plain_contiguous(tensor):
    """True for the usual row-major tensor whose strides are exactly the default ones."""
    data = tensor._data
    if not data.flags.c_contiguous:
        return False
    shape = data.shape
    # without sizes 0 and 1, numpy's row-major flag pins every stride
    return tensor._stride is None or (1 not in shape and 0 not in shape) or \
        tensor._stride == contiguous_strides(shape)


def empty_preserving_layout(tensor, np_dtype=None):
    """Uninitialised memory laid out like ``tensor``, as torch's ``empty_like`` does."""
    data = tensor._data
    np_dtype = data.dtype if np_dtype is None else np_dtype
    if _plain_contiguous(tensor):
        return wrap(np.empty(data.shape, np_dtype))  # the common case, kept fast
    return empty_strided(data.shape, preserved_strides(data.shape, tensor.stride()), np_dtype)


def copy_preserving_layout(tensor, np_dtype=None):
    """A copy (converted to ``np_dtype``) laid out like ``tensor``: clone() and to()."""
    data = tensor._data
    np_dtype = data.dtype if np_dtype is None else np_dtype
    # float -> int: torch truncates toward zero; nan/inf have no integer value (no warning);
    # to a narrower float: what does not fit becomes inf, silently as in torch
    quiet = (data.dtype.kind == "f" and np_dtype.kind != "f") or \
        (np_dtype.kind == "f" and np_dtype.itemsize < data.dtype.itemsize)
    if _plain_contiguous(tensor):
        if not quiet:
            return wrap(data.astype(np_dtype))
        with np.errstate(invalid="ignore", over="ignore"):
            return wrap(data.astype(np_dtype))
    result = empty_strided(data.shape, preserved_strides(data.shape, tensor.stride()), np_dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        np.copyto(result._data, data, casting="unsafe")
    return result


# ---------------------------------------------------------------- Python numbers as elements
_OVERFLOW_TYPE_NAMES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int",
                        "int64": "int64_t", "float16": "c10::Half", "float32": "float",
                        "float64": "double"}


def checked_scalar(value, np_dtype, check_half=True):
    """``value`` as one element of ``np_dtype``, refusing values that do not fit, as torch's
    fill_, full and ``x[i] = value`` do (arithmetic with Python numbers wraps instead).

    ``x[i] = value`` does not check float16 (``check_half=False``): it rounds to inf.
    """
    if isinstance(value, (Tensor, np.generic)):
        value = value.item()
    kind = np_dtype.kind
    if kind == "b":
        return np.bool_(value != 0)
    if isinstance(value, int) and value >= 2**64:
        raise OverflowError("int too big to convert")
    if kind == "f" and np_dtype.itemsize == 2 and not check_half:
        with np.errstate(over="ignore"):
            return np.float32(value).astype(np.float16)  # through float, as torch converts
    fits = _fits_float(float(value), np_dtype) if kind == "f" else _fits_integer(value, np_dtype)
    if not fits:
        raise RuntimeError(f"value cannot be converted to type "
                           f"{_OVERFLOW_TYPE_NAMES[np_dtype.name]} without overflow")
    if kind == "u":
        value = int(value) % 2 ** (8 * np_dtype.itemsize)  # negative numbers wrap, as in C
    elif kind == "i":
        value = int(value)  # C casts truncate toward zero
    return np_dtype.type(value)


def _fits_float(value, np_dtype):
    if not math.isfinite(value) or np_dtype.itemsize == 8:
        return True  # inf and nan fit every floating type
    return abs(value) <= (_FLOAT32_MAX if np_dtype.itemsize == 4 else 65504.0)


def _fits_integer(value, np_dtype):
    low, high = _INTEGER_RANGES[np_dtype]
    if isinstance(value, float):
        return math.isfinite(value) and low <= value <= high
    if low == 0:
        return -high <= value <= high  # unsigned: negative numbers wrap, as in C
    return low <= value <= high


_INTEGER_RANGES = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
                   for t in (np.uint8, np.int8, np.int16, np.int32, np.int64)}


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def warn_copy_construct(where):
    warnings.warn("To copy construct from a tensor, it is recommended to use "
                  "sourceTensor.detach().clone() or "
                  "sourceTensor.detach().clone().requires_grad_(True), rather than "
                  f"{where}(sourceTensor).", UserWarning, stacklevel=3)


from . import _autograd, _legacy, _ops, _printing, _views  # noqa: E402,F401  (they use Tensor)
