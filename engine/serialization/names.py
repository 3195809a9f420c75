"""The names torch's files use for tensors, storages, dtypes ..., and the engine's objects
that stand for them.

A torch checkpoint is a pickle whose globals name torch's own functions and classes
(``torch._utils._rebuild_tensor_v2``, ``torch FloatStorage``, ``torch float32``). Saving,
the engine writes those names for its own objects; loading, it maps them back, so neither
side needs the other installed.
"""
from codecs import encode
from collections import Counter, OrderedDict

from ..core.tensor import Tensor, wrap
from ..fidelity import dtypes
from ..fidelity.layout import strided_array
from ..fidelity.size import Size, device, memory_format, strided
from ..nn.parameter import Parameter
from ..ops.common import return_types


class StorageType:
    """``torch.FloatStorage`` & co as they appear in a checkpoint: a dtype by its old name."""

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"StorageType(dtype={self.dtype})"

    def __reduce__(self):
        return self.name  # pickled by name: saving writes it as torch's `torch FloatStorage`


# torch's legacy storage class for each dtype the engine has
STORAGE_NAMES = {dtypes.float32: "FloatStorage", dtypes.float64: "DoubleStorage",
                 dtypes.float16: "HalfStorage", dtypes.int64: "LongStorage",
                 dtypes.int32: "IntStorage", dtypes.int16: "ShortStorage",
                 dtypes.int8: "CharStorage", dtypes.uint8: "ByteStorage",
                 dtypes.bool: "BoolStorage"}
STORAGE_TYPES = {dtype: StorageType(name, dtype) for dtype, name in STORAGE_NAMES.items()}
# module attributes too (names.FloatStorage ...): Python's C pickler looks them up to write them
globals().update({t.name: t for t in STORAGE_TYPES.values()})


class TypedStorage:
    """A storage read from a file: the numpy array of its elements, with its dtype."""

    def __init__(self, array, dtype):
        self.array, self.dtype = array, dtype


def rebuild_tensor(storage, storage_offset, size, stride):
    """A tensor over a loaded storage (not a view: torch makes it with ``set_``)."""
    array = storage.array
    t = wrap(strided_array(array, tuple(size), tuple(stride), storage_offset))
    t._stride, t._storage, t._offset = tuple(stride), array, storage_offset
    t._bump_version()  # set_() is an in-place change: torch's loaded tensors show version 1
    return t


def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                      metadata=None):
    t = rebuild_tensor(storage, storage_offset, size, stride)
    t.requires_grad_(requires_grad)
    return t


def rebuild_parameter(data, requires_grad, backward_hooks):
    return Parameter(data, requires_grad)


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = Parameter(data, requires_grad)
    for name, value in state.items():  # attributes set on it in Python
        setattr(param, name, value)
    return param


def rebuild_from_type_v2(func, new_type, args, state):
    result = func(*args)
    if type(result) is not new_type and isinstance(result, Tensor):
        result.__class__ = new_type
    for name, value in (state or {}).items():
        setattr(result, name, value)
    return result


def get_layout(name):
    """torch.serialization._get_layout: a layout pickled by its name ("torch.strided")."""
    if name != "torch.strided":
        raise RuntimeError(f"the engine has no layout {name} (only torch.strided)")
    return strided


def make_device(kind, index=None):
    return device(kind) if index is None else device(kind, index)


# torch's dotted name -> the engine's object, for everything a weights-only load may use
TORCH_GLOBALS = {
    "torch._utils._rebuild_tensor": rebuild_tensor,
    "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
    "torch._utils._rebuild_parameter": rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": rebuild_parameter_with_state,
    "torch._tensor._rebuild_from_type_v2": rebuild_from_type_v2,
    "torch.nn.parameter.Parameter": Parameter,
    "torch.Tensor": Tensor,
    "torch.Size": Size,
    "torch.device": make_device,
    "torch.serialization._get_layout": get_layout,
}
TORCH_GLOBALS.update({f"torch.{name}": STORAGE_TYPES[d] for d, name in STORAGE_NAMES.items()})
TORCH_GLOBALS.update({f"torch.{d.name}": d for d in dtypes.all_dtypes})
# what a torch checkpoint may hold besides torch's own objects (torch's list)
PLAIN_GLOBALS = {"collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
                 "_codecs.encode": encode, "builtins.bytearray": bytearray,
                 "builtins.set": set, "builtins.complex": complex}

# saving: the engine's object -> (module, name) written into the pickle. From protocol 4 on
# the module is a string that the pickle's memo refers back to when it is the very same
# string object, so each is made once per source torch takes it from, as torch's pickles
# show: its classes' __module__, its C types' (dtypes, layouts), and each module's functions.
_CLASSES_MODULE, _C_TYPES_MODULE = "".join(["tor", "ch"]), "".join(["to", "rch"])
_UTILS, _TENSOR = "".join(["torch.", "_utils"]), "".join(["torch.", "_tensor"])
SAVED_NAMES = {id(rebuild_tensor_v2): (_UTILS, "_rebuild_tensor_v2"),
               id(rebuild_parameter): (_UTILS, "_rebuild_parameter"),
               id(rebuild_parameter_with_state): (_UTILS, "_rebuild_parameter_with_state"),
               id(rebuild_from_type_v2): (_TENSOR, "_rebuild_from_type_v2"),
               id(Tensor): (_CLASSES_MODULE, "Tensor"),
               id(get_layout): ("".join(["torch.", "serialization"]), "_get_layout"),
               id(Size): (_CLASSES_MODULE, "Size"), id(make_device): (_CLASSES_MODULE, "device")}
SAVED_NAMES.update({id(t): (_CLASSES_MODULE, t.name) for t in STORAGE_TYPES.values()})


RETURN_TYPES_MODULE = "engine.return_types"


def saved_name(obj):
    """torch's (module, name) for an engine object pickled by name, or None."""
    if isinstance(obj, type) and obj.__module__ == RETURN_TYPES_MODULE:
        return "".join(["torch.", "return_types"]), obj.__name__
    found = SAVED_NAMES.get(id(obj))
    if found is None and isinstance(obj, (dtypes.dtype, memory_format)):
        return _C_TYPES_MODULE, obj.name
    return found


class ReturnTypeFromTorch:
    """torch.return_types.<name> as a checkpoint calls it (``weights_only=False`` only): with
    the sequence of its fields and a dict, as torch's C types reduce themselves."""

    def __init__(self, name):
        self.kind = getattr(return_types, name)

    def __call__(self, sequence, fields=None):
        return self.kind(*sequence)

