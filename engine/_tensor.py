"""The Tensor: a numpy array plus what PyTorch tracks around it.

A tensor here is a *view* of a 1-D block of memory (its storage) described by
shape, strides and a storage offset, exactly as in PyTorch. The values live in
``_data``, a numpy array that looks at that storage with the same strides, so
numpy does the arithmetic while the tensor keeps torch's bookkeeping: which
tensors share memory, their version counter, and (from the autograd chapter on)
``requires_grad``, ``grad`` and ``grad_fn``.
"""
import warnings

import numpy as np

from . import _dtype
from ._size import CPU, Size, check_device


class _VersionCounter:
    """How many in-place changes a storage has seen; shared by a tensor and its views."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


def contiguous_strides(shape):
    """Row-major strides for ``shape``; a size-0 or size-1 dimension counts as 1, as in torch."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n if n > 1 else 1
    return tuple(reversed(strides))


class Tensor:
    """A multi-dimensional array with PyTorch's API. Create one with ``engine.tensor``."""

    # Defaults on the class keep creating a tensor cheap: an instance only stores
    # what differs, and most tensors are fresh results with none of these set.
    _stride = None       # torch strides when they differ from what numpy shows
    _storage = None      # the 1-D numpy array of the whole storage, found lazily
    _offset = 0          # where this tensor starts inside its storage
    _vc = None           # _VersionCounter, made on the first view or in-place change
    _base = None         # the tensor this one is a view of
    requires_grad = False
    grad_fn = None
    _grad = None
    _retains_grad = False
    __array_priority__ = 1000  # numpy hands `ndarray + tensor` to Tensor.__radd__

    def __init__(self, *args, **kwargs):
        raise TypeError("create tensors with engine.tensor(...), engine.zeros(...) and friends")

    # ------------------------------------------------------------ metadata
    @property
    def shape(self):
        """The size of each dimension, as a ``torch.Size`` (an attribute, not a method)."""
        return Size(self._data.shape)

    def size(self, dim=None):
        """``size()`` is ``shape``; ``size(d)`` is one dimension's length."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_ops.wrap_dim(dim, self._data.ndim)]

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
    layout = "torch.strided"

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
        return strides[_ops.wrap_dim(dim, self._data.ndim)]

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
        expected = 1
        for n, s in zip(reversed(self._data.shape), reversed(self.stride())):
            if n == 1:
                continue
            if s != expected:
                return n == 0 or self._data.size == 0
            expected *= n
        return True

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

    @property
    def is_leaf(self):
        """A leaf was made by the user, not computed by a recorded operation."""
        return self.grad_fn is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        self._grad = value

    def requires_grad_(self, requires_grad=True):
        """Ask autograd to track operations on this tensor (floating tensors only)."""
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = bool(requires_grad)
        return self

    # ------------------------------------------------------------ conversion
    def numpy(self, *, force=False):
        """The same memory as a numpy array: writing to one changes the other."""
        if self.requires_grad and not force:
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

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def to(self, *args, dtype=None, device=None, copy=False, non_blocking=False,
           memory_format=None):
        """Convert dtype and/or device; returns ``self`` when nothing changes and copy=False."""
        for arg in args:
            if isinstance(arg, _dtype.dtype):
                dtype = arg
            elif isinstance(arg, Tensor):
                dtype = arg.dtype
            elif isinstance(arg, bool):
                copy = arg  # torch.to(dtype, non_blocking, copy) positional form
            else:
                device = arg
        check_device(device)
        target = self.dtype if dtype is None else _dtype.as_dtype(dtype)
        if target.numpy_dtype == self._data.dtype and not copy:
            return self
        return _ops.to_dtype(self, target)

    def type(self, dtype=None, non_blocking=False):
        """With no argument, the legacy type name (``'torch.FloatTensor'``); else a cast."""
        if dtype is None:
            return f"torch.{_dtype.scalar_type_name[self.dtype]}Tensor"
        if isinstance(dtype, str):
            dtype = _LEGACY_TYPE_NAMES[dtype]
        return self.to(dtype)

    def float(self):
        return self.to(_dtype.float32)

    def double(self):
        return self.to(_dtype.float64)

    def half(self):
        return self.to(_dtype.float16)

    def long(self):
        return self.to(_dtype.int64)

    def int(self):
        return self.to(_dtype.int32)

    def short(self):
        return self.to(_dtype.int16)

    def char(self):
        return self.to(_dtype.int8)

    def byte(self):
        return self.to(_dtype.uint8)

    def bool(self):
        return self.to(_dtype.bool)

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
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

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._data.copy(), self.requires_grad))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        copy = wrap(self._data.copy())
        copy.requires_grad = self.requires_grad
        if self._grad is not None:
            copy._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = copy
        return copy


_LEGACY_TYPE_NAMES = {f"torch.{name}Tensor": d for d, name in _dtype.scalar_type_name.items()}


def _rebuild(data, requires_grad):
    t = wrap(data)
    t.requires_grad = requires_grad
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
    return t


def make_view(base, shape, stride, offset):
    """A tensor that looks at ``base``'s storage with new shape, strides and offset."""
    storage = base._storage_array()
    itemsize = storage.itemsize
    array = np.ndarray(shape, storage.dtype, storage, offset * itemsize,
                       tuple(s * itemsize for s in stride))
    view = _new_tensor(Tensor)
    view._data = array
    view._stride = tuple(stride)
    view._storage = storage
    view._offset = offset
    view._vc = base._version_counter()
    view._base = base if base._base is None else base._base
    return view


def warn_copy_construct(where):
    warnings.warn("To copy construct from a tensor, it is recommended to use "
                  "sourceTensor.detach().clone() or "
                  "sourceTensor.detach().clone().requires_grad_(True), rather than "
                  f"{where}(sourceTensor).", UserWarning, stacklevel=3)


from . import _ops, _printing  # noqa: E402  (these modules use Tensor themselves)
