"""Memory layout: the strides torch gives a tensor, in one place.

A tensor's strides say how many elements to step in storage to move one place
along each dimension. Row-major ("contiguous") is the default, but copies and
elementwise results keep the dimension order of their inputs, exactly as
PyTorch's TensorIterator orders them. These helpers compute those strides.
"""
import numpy as np

from .messages import shape_numpy_cannot_hold


def contiguous_strides(shape):
    """Row-major strides for ``shape``; a size-0 or size-1 dimension counts as 1, as in torch."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n if n > 1 else 1
    return tuple(reversed(strides))


_INT64_MAX = 2**63 - 1


def allocated(make_array, shape, np_dtype):
    """``make_array(shape, np_dtype)`` (numpy's allocation of a new row-major tensor) after
    torch's checks of its size (``storage_nbytes``), with its allocator's error where the
    machine has not the memory: a size past int64's reach must not reach numpy, which would
    wrap it or say something else."""
    nbytes = storage_nbytes(shape, np_dtype)
    try:
        return make_array(shape, np_dtype)
    except (MemoryError, ValueError) as error:
        if isinstance(error, ValueError) and "too big" not in str(error):
            raise
        if not nbytes:
            raise RuntimeError(shape_numpy_cannot_hold(shape)) from None
        raise RuntimeError(cannot_allocate(nbytes)) from None


def cannot_allocate(nbytes):
    """torch's CPU allocator's error when the system refuses ``nbytes``."""
    return ("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
            f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate "
            "memory)")


def storage_nbytes(shape, np_dtype):
    """The bytes of a new row-major tensor of ``shape``, or torch's error where the count
    overflows (``computeStorageNbytesContiguous``, then the strides, as torch makes them)."""
    product, overflowed = 1, False
    for n in shape:  # (unsigned 64-bit products, as c10::safe_multiplies_u64: a later 0
        product *= n  # does not undo an overflow)
        overflowed |= product >= 2**64
        product %= 2**64
    nbytes = product * np.dtype(np_dtype).itemsize
    if overflowed or nbytes > _INT64_MAX:
        raise RuntimeError("Storage size calculation overflowed with sizes="
                           f"[{', '.join(str(n) for n in shape)}]")
    stride = 1
    for n in reversed(shape[1:]):
        stride *= max(n, 1)
        if stride > _INT64_MAX:
            raise RuntimeError("Stride calculation overflowed")
    return nbytes


def strides_are_contiguous(shape, stride, memory_format=None):
    """True when ``stride`` is row-major for ``shape`` (dimensions of size 1 may have any),
    or, given ``torch.channels_last`` (_3d), in that order."""
    if memory_format is not None and memory_format.name.startswith("channels_last"):
        return _channels_last_contiguous(shape, stride, memory_format.name)
    expected = 1
    for n, s in zip(reversed(shape), reversed(stride)):
        if n == 1:
            continue
        if s != expected:
            return n == 0 or 0 in shape
        expected *= n
    return True


def _channels_last_order(ndim):
    """The dimensions from innermost to outermost in channels-last memory: C, W, H, (D,) N."""
    return (1, *range(ndim - 1, 1, -1), 0)


def _channels_last_contiguous(shape, stride, name):
    if len(shape) != (4 if name == "channels_last" else 5):
        return False
    expected = 1
    for d in _channels_last_order(len(shape)):
        if shape[d] != 1:
            if stride[d] != expected:
                return False
            expected *= shape[d]
    return True


def suggested_memory_format(shape, stride):
    """The memory format torch reads off a tensor's strides (suggest_memory_format):
    "channels_last" for a 4-d tensor laid out N, H, W, C ("channels_last_3d" for 5-d), else
    "contiguous_format"; ambiguous layouts (a channel dimension of stride 0, N111) count as
    contiguous."""
    if len(shape) not in (4, 5):
        return "contiguous_format"
    smallest = 0
    for d in _channels_last_order(len(shape)):
        if shape[d] == 0 or stride[d] < smallest or stride[1] == 0:
            return "contiguous_format"
        if d == 0 and smallest == stride[1]:
            return "contiguous_format"
        smallest = stride[d] * (shape[d] if shape[d] > 1 else 1)
    return "channels_last" if len(shape) == 4 else "channels_last_3d"


def format_strides(shape, stride, memory_format):
    """The strides of a new tensor of ``shape`` in ``memory_format``, for an input whose
    strides are ``stride`` (torch.preserve_format keeps the input's order of dimensions)."""
    name = "preserve_format" if memory_format is None else memory_format.name
    if name == "preserve_format":
        return preserved_strides(shape, stride)
    if name == "contiguous_format":
        return contiguous_strides(shape)
    rank = 4 if name == "channels_last" else 5
    if len(shape) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {name} format")
    strides, step = [0] * rank, 1
    for d in _channels_last_order(rank):
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def is_non_overlapping_and_dense(shape, stride):
    """True when the elements fill one gap-free block, in any order of dimensions (torch's test)."""
    if len(shape) == 1:
        return shape[0] < 2 or stride[0] == 1
    if 0 in shape:
        return True  # no elements: torch counts an empty tensor as contiguous
    expected = 1
    # walk the dimensions from the smallest stride up; sizes 0 and 1 never break density
    for n, s in sorted(zip(shape, stride), key=lambda pair: (pair[0] < 2, pair[1])):
        if n < 2:
            return True
        if s != expected:
            return False
        expected *= n
    return True


def obeys_layout_contract(shape, grad_stride, variable_stride):
    """torch's test of an accumulated ``.grad`` against its leaf: the leaf's strides where
    the leaf is dense (but no stride 0 on a size-1 dimension, a view's mark), else row-major."""
    if is_non_overlapping_and_dense(shape, variable_stride):
        return all((g == v) if n != 1 else g != 0
                   for n, g, v in zip(shape, grad_stride, variable_stride))
    return strides_are_contiguous(shape, grad_stride)


def has_internal_overlap(shape, stride):
    """True when two elements share one memory location (a dimension of more than one
    element at stride 0, an expanded tensor's): torch's "YES" of has_internal_overlap, which
    refuses a write (its "too hard" cases, other overlaps, pass)."""
    return not is_non_overlapping_and_dense(shape, stride) and any(
        n > 1 and s == 0 for n, s in zip(shape, stride))


def infer_dense_strides(shape, stride):
    """Gap-free strides that keep the order of ``stride`` (torch's ``infer_dense_strides``).

    Dimensions are sorted by stride with the insertion sort torch's TensorIterator
    uses; a stride of 0 (an expanded dimension) compares as "no opinion".
    """
    ndim = len(shape)
    if ndim == 0:
        return ()
    if ndim == 1:
        return (1,)

    def should_swap(d0, d1):
        s0, s1 = stride[d0], stride[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return 1 if s0 > s1 else -1
        return 1 if shape[d0] > shape[d1] else 0

    return strides_from_order(shape, sorted_dims(ndim, should_swap))


def sorted_dims(ndim, should_swap):
    """Dimensions from fastest- to slowest-moving, by TensorIterator's stable insertion sort."""
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


def strides_from_order(shape, perm):
    """Dense strides laying out dimensions ``perm`` (fastest first); sizes 0 and 1 count as 1."""
    strides = [0] * len(shape)
    step = 1
    for d in perm:
        strides[d] = step
        step *= shape[d] if shape[d] > 1 else 1
    return tuple(strides)


def preserved_strides(shape, stride):
    """The strides torch gives a copy of a tensor laid out as (shape, stride) (preserve_format)."""
    if is_non_overlapping_and_dense(shape, stride):
        return tuple(stride)
    return infer_dense_strides(shape, stride)


def iterator_strides(shape, operand_strides, same_shape=False):
    """The strides torch's TensorIterator gives a result of ``shape`` computed from operands.

    ``operand_strides`` are the inputs' strides, already broadcast to ``shape`` (0 where an
    input is broadcast). Dimensions are ordered by the inputs' strides, first input first.
    ``same_shape``: no input was broadcast, which allows TensorIterator's shortcuts.
    """
    ndim = len(shape)
    if same_shape:
        # TensorIterator's fast setup: inputs that all share one dense layout pass it on
        if all(strides_are_contiguous(shape, s) for s in operand_strides):
            return contiguous_strides(shape)
        if all(s == operand_strides[0] for s in operand_strides) and \
                is_non_overlapping_and_dense(shape, operand_strides[0]):
            return tuple(operand_strides[0])

    def should_swap(d0, d1):
        for strides in operand_strides:
            s0, s1 = strides[d0], strides[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = sorted_dims(ndim, should_swap)
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(shape)
    strides, step = [0] * ndim, 1
    for d in perm:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def strided_array(storage, shape, stride, offset):
    """A numpy array looking at ``storage`` with these shape, strides and offset (elements)."""
    itemsize = storage.itemsize
    byte_strides = tuple([s * itemsize for s in stride])  # (a list is quicker than a generator)
    try:
        return np.ndarray(shape, storage.dtype, storage, offset * itemsize, byte_strides)
    except ValueError:
        # An empty view may start at the very end of its storage (x[5:] of 3 rows), which
        # numpy refuses; it holds no elements, so any place in the storage will do.
        if 0 not in shape:
            raise
        return np.ndarray(shape, storage.dtype, storage, 0, byte_strides)


class UntypedStorage:
    """A flat block of bytes that one or more tensors view."""

    def __init__(self, array):
        self._array = array

    def data_ptr(self):
        """The address of the bytes; 0 for a storage of no bytes (torch allocates nothing)."""
        return self._address() if self._array.nbytes else 0

    def _address(self):
        return self._array.__array_interface__["data"][0]

    def nbytes(self):
        return self._array.nbytes

    def size(self):
        return self._array.nbytes

    def __len__(self):
        return self._array.nbytes

    def __eq__(self, other):
        return isinstance(other, UntypedStorage) and self._address() == other._address()

    def __hash__(self):
        return self._address()

    def __repr__(self):
        values = "\n".join(f" {b}" for b in self._array.view(np.uint8).tolist())
        return f"{values}\n[torch.storage.UntypedStorage(device=cpu) of size {self.nbytes()}]"


TYPED_STORAGE_DEPRECATED = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()")


class TypedStorage:
    """What the deprecated ``tensor.storage()`` gives (older tutorials and PyTorch's "Tensor
    Views" note): the storage's elements in the tensor's dtype, sharing its memory."""

    def __init__(self, array, dtype):
        self._array, self.dtype = array, dtype

    def data_ptr(self):
        return self._array.__array_interface__["data"][0] if self._array.nbytes else 0

    def size(self):
        return self._array.size

    __len__ = size

    def nbytes(self):
        return self._array.nbytes

    def element_size(self):
        return self._array.itemsize

    def tolist(self):
        return self._array.tolist()

    def untyped(self):
        return UntypedStorage(self._array)

    def _index(self, index):
        if isinstance(index, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(index, (int, np.integer)):
            raise RuntimeError(f"can't index a <class 'torch.storage.TypedStorage'> with "
                               f"{type(index)}")
        position = int(index)
        if not -self._array.size <= position < self._array.size:
            raise IndexError(f"index {position} out of range for storage of size "
                             f"{self._array.size}")
        return position

    def __getitem__(self, index):
        return self._array[self._index(index)].item()

    def __setitem__(self, index, value):
        self._array[self._index(index)] = value

    def __repr__(self):
        values = " " + "\n ".join(str(v) for v in self._array.tolist())
        return (f"{values}\n[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of "
                f"size {self._array.size}]")
