"""The Tensor: a numpy array plus what PyTorch tracks around it.

A tensor is a *view* of a 1-D block of memory (its storage) described by shape,
strides and a storage offset, exactly as in PyTorch. The values live in ``_data``,
a numpy array that looks at that storage with the same strides, so numpy does the
arithmetic while the tensor keeps torch's bookkeeping: which tensors share memory,
their version counter, and for autograd ``requires_grad``, ``grad`` and ``grad_fn``.

The operations (``x + y``, ``x.sum()`` ...) are not written here: ``engine/ops/``
defines them, and ``ops/methods.py`` lists which of them are Tensor methods.
"""
import weakref

import numpy as np

from ..fidelity import calls, dtypes, messages, printing
from ..fidelity.layout import (UntypedStorage, contiguous_strides, is_non_overlapping_and_dense,
                               preserved_strides, strided_array, strides_are_contiguous)
from ..fidelity.size import CPU, Size, check_memory_format, contiguous_format, dim_index
from ..fidelity.size import memory_format as MemoryFormat
from . import backward, forward, hooks, history
from .grad_mode import mode
from .node import AccumulateGrad, follow_base


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
    _attr_version = 0    # a view's: the version its memory had when its grad_fn was set
    _creation_meta = None  # a view's: how it was made, when that forbids changing it in place
    _asked_for_grad = False  # requires_grad_() was called: a no_grad view is then a leaf
    _followers = None    # a base's views without a node of their own (a WeakSet; follow_base)
    _grad = None
    _retains_grad = False
    _output_nr = 0       # which output of its grad_fn this tensor is
    _accumulator = None  # a weak reference to a leaf's AccumulateGrad node, made on first use
    _hooked_accumulator = None  # the same node, held strongly once a hook is registered on it
    _post_accumulate_hooks = None  # register_post_accumulate_grad_hook's (hooks.py)
    _inference = False
    # an inference tensor has no version counter, but its detach() and .data made outside
    # inference_mode get one of their own (torch's shallow copy): changes allowed, counted
    _own_versions = False
    _fw = None           # (level's generation, tangent): forward-mode AD's (forward.py)
    __array_priority__ = 1000  # numpy hands `ndarray + tensor` to Tensor.__radd__

    # ------------------------------------------------------------ metadata
    @property
    def shape(self):
        """The size of each dimension, as a ``torch.Size`` (an attribute, not a method)."""
        return Size(self._data.shape)

    def size(self, dim=None):
        """``size()`` is ``shape``; ``size(d)`` is one dimension's length."""
        shape = self._data.shape
        return Size(shape) if dim is None else shape[dim_index(dim, len(shape))]

    def dim(self):
        return self._data.ndim

    ndim = property(dim, doc="The number of dimensions (``x.dim()``).")

    def numel(self):
        return self._data.size

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def dtype(self):
        return dtypes.from_numpy_dtype[self._data.dtype]

    @property
    def device(self):
        return CPU

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def element_size(self):
        return self._data.itemsize

    itemsize = property(element_size, doc="Bytes per element (``x.element_size()``).")

    @property
    def nbytes(self):
        return self._data.nbytes

    # ------------------------------------------------------------ memory
    def stride(self, dim=None):
        """Elements to step in storage to move one place along each dimension."""
        strides = self._stride
        if strides is None:  # worked out once, from numpy's (in bytes)
            data = self._data
            strides = self._stride = contiguous_strides(data.shape) if data.flags.c_contiguous \
                else tuple(s // data.itemsize for s in data.strides)
        return strides if dim is None else strides[dim_index(dim, self._data.ndim)]

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
        """The address of the first element: equal for tensors that start at the same place
        (0 for a tensor of no elements, as torch)."""
        return self._data.__array_interface__["data"][0] if self._data.size else 0

    def is_contiguous(self, *given, memory_format=contiguous_format):
        """True when the strides are the row-major ones (dimensions of size 1 may have any)."""
        if given:  # (memory_format by keyword only)
            raise messages.no_positional_arguments("is_contiguous", given)
        if memory_format.__class__ is not MemoryFormat:
            check_memory_format(memory_format, "is_contiguous", nullable=False)
        return strides_are_contiguous(self._data.shape, self.stride(), memory_format)

    def is_non_overlapping_and_dense(self):
        return is_non_overlapping_and_dense(self._data.shape, self.stride())

    def _version_counter(self):
        vc = self._vc
        if vc is None:
            vc = self._vc = _VersionCounter()
        return vc

    @property
    def _version(self):
        """How many in-place changes this tensor's memory has seen (views share the count)."""
        if self._inference and not self._own_versions:
            raise RuntimeError("Inference tensors do not track version counter.")
        return 0 if self._vc is None else self._vc.value

    def _bump_version(self):
        self._version_counter().value += 1

    @classmethod
    def _from_numpy_array(cls, array):
        return wrap(array)

    def _strided_view(self, shape, stride, offset):
        """A view of this tensor's storage with other shape, strides and offset."""
        return make_view(self, shape, stride, offset)

    def _empty_strided(self, size, stride):
        """Uninitialised memory of this dtype with exactly these sizes and strides."""
        return empty_strided(size, stride, self._data.dtype)

    def _empty_like(self, np_dtype=None):
        """Uninitialised memory laid out like this tensor, as torch's ``empty_like`` does."""
        return empty_preserving_layout(self, np_dtype)

    # ------------------------------------------------------------ autograd
    @property
    def requires_grad(self):
        """Whether autograd records operations on this tensor."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value.__class__ is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if value and self.grad_fn is not None:
            # torch's setter refuses any change on a non-leaf (requires_grad_(True) allows it)
            raise RuntimeError(messages.NOT_A_LEAF_FLAG_TRUE)
        if value and self._data.dtype.kind != "f":  # (torch words it differently here)
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Ask autograd to track operations on this (leaf, floating point) tensor."""
        if requires_grad.__class__ is not bool:  # (torch's parser: a Python bool only)
            where = "" if calls.given_by_keyword("requires_grad") else " (position 1)"
            raise TypeError(f"requires_grad_(): argument 'requires_grad'{where} must be bool, "
                            f"not {messages.type_name(requires_grad)}")
        if self._grad_fn is not None:  # (as stored: a view's is brought up to date later)
            if requires_grad:
                return self
            raise RuntimeError(messages.NOT_A_LEAF_FLAG)
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not mode.inference:
            raise RuntimeError(messages.INFERENCE_REQUIRES_GRAD)
        self._asked_for_grad = requires_grad
        # a view without a node of its own requires grad while its base does (torch's)
        self._requires_grad = requires_grad or self._base is not None and self._base._requires_grad
        follow_base(self)
        return self

    @property
    def grad_fn(self):
        """The node that made this tensor (``MulBackward0`` ...); None for a leaf."""
        if self._base is not None:
            # a view's node is brought up to date when read, after an in-place change of its
            # memory: torch does it lazily too, and raises its errors at that moment
            history.update_view_grad_fn(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node
        if self._base is not None:
            self._attr_version = self._vc.value

    @property
    def is_leaf(self):
        """A leaf was made by the user, not computed by a recorded operation."""
        return self.grad_fn is None

    @property
    def grad(self):
        """The gradient accumulated by backward(): kept on leaves (and on retain_grad())."""
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            messages.warn_non_leaf_grad()
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            messages.check_assigned_grad(value, self)  # a tensor of this dtype and shape
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
        hooks.retain_grad(self)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return another."""
        return hooks.register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after backward has accumulated this leaf's ``.grad``."""
        return hooks.register_post_accumulate_hook(self, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor with respect to the leaves, into their ``.grad``."""
        backward.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """The same memory and version counter, cut from the graph (requires_grad False)."""
        result = make_view(self, self._data.shape, self.stride(), self.storage_offset())
        result._base, result._requires_grad, result._creation_meta = None, False, None
        if self._inference and not mode.inference:
            result._own_versions, result._vc = True, None
        return result

    def detach_(self):
        """Cut this tensor from its graph, in place: it becomes a leaf without requires_grad."""
        if self._base is not None:
            raise RuntimeError(messages.DETACH_VIEW_INPLACE)
        self.grad_fn, self._requires_grad, self._output_nr = None, False, 0
        follow_base(self)
        return self

    def is_inference(self):
        """True for tensors made inside ``inference_mode()``."""
        return self._inference

    def _grad_accumulator(self):
        """This leaf's AccumulateGrad node (the same one while a graph or a hook holds it)."""
        node = None if self._accumulator is None else self._accumulator()
        if node is None:
            node = AccumulateGrad()
            node.variable = self
            # weak, as in torch: the node holds this tensor, and a strong reference back
            # would make a cycle that only the garbage collector frees
            self._accumulator = weakref.ref(node)
        return node

    def _as_output_of(self, node, output_nr=0):
        """This saved output as ``node``'s result again (its output ``output_nr``), for a
        differentiable backward."""
        alias = self.detach()
        alias.grad_fn, alias._requires_grad, alias._fw = node, True, self._fw  # (its tangent too)
        alias._output_nr = output_nr
        return alias

    # ------------------------------------------------------------ Python values and numpy
    def numpy(self, *, force=False):
        """The same memory as a numpy array: writing to one changes the other."""
        if self._requires_grad and mode.grad_enabled and not force:  # (no_grad: allowed)
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data

    def item(self):
        """The single value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        # torch defines it, so reversed(x) is a tensor (flipped along dim 0, a 0-d one
        # itself), not Python's reverse iterator over len() and x[i]
        return self if self._data.ndim == 0 else self.flip((0,))

    # Tensors hash by identity (so they can be dict keys) although == is elementwise.
    __hash__ = object.__hash__

    def __repr__(self, *, tensor_contents=None):
        return printing.tensor_repr(self, tangent=forward.tangent_of(self)
                                    if forward.state.level >= 0 else None)

    __str__ = __repr__

    def __format__(self, format_spec):
        return printing.tensor_format(self, format_spec)


# ---------------------------------------------------------------- making tensors
_new_tensor = object.__new__


def wrap(array):
    """A fresh tensor around a numpy array (no copy). Used for every computed result."""
    if array.__class__ is not np.ndarray:
        array = np.asarray(array)  # numpy returns scalars from 0-d computations
    t = _new_tensor(Tensor)
    t._data = array
    if mode.inference:
        t._inference = True  # made inside inference_mode(): never usable by autograd
    return t


def make_view(base, shape, stride, offset):
    """A tensor that looks at ``base``'s storage with new shape, strides and offset."""
    storage = base._storage_array()
    view = _new_tensor(Tensor)
    view._data = strided_array(storage, shape, stride, offset)
    view._stride = tuple(stride)
    view._storage = storage
    view._offset = offset
    view._vc = base._version_counter()
    view._attr_version = view._vc.value
    view._inference = base._inference  # a view of an inference tensor is one too
    if base._base is None:
        view._base = base
    else:  # a view of a view is a view of the same base, made the same way
        view._base, view._creation_meta = base._base, base._creation_meta
    if not mode.recording:  # torch refuses to change it in place while recording
        # (inside inference_mode even enable_grad() records nothing: a view made there too);
        # a view of one made in inference_mode keeps saying so
        if view._creation_meta != "inference":
            view._creation_meta = "inference" if mode.inference else "no_grad"
        # but it requires grad as its base, unless it is an inference tensor (which never does)
        view._requires_grad = view._base._requires_grad and not view._inference
    if not (mode.recording and base._requires_grad or view._inference) and \
            view._data.dtype.kind == "f":  # no node will be recorded: it follows its base
        root = view._base
        if root._followers is None:
            root._followers = weakref.WeakSet()
        root._followers.add(view)
    return view


def empty_strided(shape, stride, np_dtype):
    """A fresh tensor with exactly these strides; its values are uninitialised."""
    shape, stride = tuple(shape), tuple(stride)
    if stride == contiguous_strides(shape):
        return wrap(np.empty(shape, np_dtype))
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, stride)) if 0 not in shape else 0
    storage = np.empty(extent, np_dtype)
    t = wrap(strided_array(storage, shape, stride, 0))
    t._stride, t._storage = stride, storage
    return t


def is_plain_contiguous(tensor):
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
    if is_plain_contiguous(tensor):
        return wrap(np.empty(data.shape, np_dtype))  # row-major: numpy lays it out so itself
    return empty_strided(data.shape, preserved_strides(data.shape, tensor.stride()), np_dtype)
