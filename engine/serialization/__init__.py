"""``torch.save`` / ``torch.load``: checkpoints in torch 2.15's own file format.

A file written here loads in real PyTorch and a file written by PyTorch loads here: the
zip archive (``archive.py``) holds ``data.pkl``, a pickle in which every tensor is a call
to ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)`` and every
storage a *persistent id* ``('storage', torch.FloatStorage, key, 'cpu', numel)`` naming
the record ``data/<key>`` with its raw bytes. Views of one tensor point at one storage, so
they are still views of one storage after loading. ``names.py`` maps torch's names to the
engine's objects; ``weights_only.py`` is the safe unpickler that ``load`` uses by default.
"""
import io
import os
import pickle
import sys
import types
import warnings
from collections import OrderedDict

import numpy as np

from ..core.tensor import Tensor
from ..fidelity.layout import UntypedStorage
from ..fidelity.size import device, layout, memory_format
from ..nn.parameter import Parameter
from .archive import ALIGNMENT, ArchiveReader, ArchiveWriter, archive_name, is_zip
from .names import (RETURN_TYPES_MODULE, STORAGE_TYPES, StorageType, TypedStorage, get_layout,
                    make_device,
                    rebuild_from_type_v2, rebuild_parameter, rebuild_parameter_with_state,
                    rebuild_tensor_v2, saved_name)
from .weights_only import (WeightsUnpickler, full_unpickler, add_safe_globals,
                           clear_safe_globals, get_safe_globals, safe_globals)

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "safe_globals"]

DEFAULT_PROTOCOL = 2
# one object each, so the pickle refers back to them (BINGET) as torch's does; "cpu" made
# at run time, so a device's own "cpu" (an interned literal) is written apart, as torch's
_STORAGE, _CPU = "storage", "".join(("c", "pu"))


class _StorageRef:
    """A tensor's storage while it is pickled: becomes a persistent id, not pickled bytes."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


class _TorchObjects:
    """What both picklers below share: tensors become torch's rebuild calls, storages
    persistent ids (their bytes are written apart, as records of the archive)."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}   # key -> numpy array, in the order they are met
        self.keys = {}       # (address, bytes) of a storage -> its key
        self.dtype_at = {}   # address -> dtype: torch refuses one memory saved as two types

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            state = _python_state(obj)
            if isinstance(obj, Parameter):
                if state:
                    return rebuild_parameter_with_state, (obj.data, obj.requires_grad,
                                                          OrderedDict(), state)
                return rebuild_parameter, (obj.data, obj.requires_grad, OrderedDict())
            args = (_StorageRef(obj._storage_array()), obj.storage_offset(), tuple(obj.shape),
                    obj.stride(), obj.requires_grad, OrderedDict())
            if state:  # torch wraps the rebuild to set the attributes afterwards
                return rebuild_from_type_v2, (rebuild_tensor_v2, Tensor, args, state)
            return rebuild_tensor_v2, args
        if type(obj).__module__ == RETURN_TYPES_MODULE:  # (as torch's C types reduce)
            return type(obj), (tuple(obj), {})
        if type(obj) is device:
            return make_device, (obj.type,) if obj.index is None else (obj.type, obj.index)
        if type(obj) is layout:
            return get_layout, (repr(obj),)
        if type(obj) is memory_format:  # (torch.save fails so, for all that pickle.dumps works)
            raise TypeError("cannot pickle 'module' object")
        return NotImplemented

    def persistent_id(self, obj):
        if type(obj) is not _StorageRef:
            return None
        array = obj.array
        dtype = STORAGE_TYPES[_dtype_of(array)]
        address = array.__array_interface__["data"][0] if array.nbytes else 0
        if address:
            if self.dtype_at.setdefault(address, dtype) is not dtype:
                raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                                   "data as different types")
            identity = (address, array.nbytes)
        else:
            identity = id(array)  # an empty storage is its own (torch: one per tensor)
        key = self.keys.get(identity)
        if key is None:
            key = self.keys[identity] = str(len(self.keys))
            self.storages[key] = array
        return (_STORAGE, dtype, key, _CPU, array.size)


class _FastPickler(_TorchObjects, pickle.Pickler):
    """Python's C pickler: engine objects are written under their own names (it checks that
    a global can be imported), renamed to torch's afterwards (``_renamed``)."""


class _TorchPickler(_TorchObjects, pickle._Pickler):
    """The pure-Python pickler writes torch's names itself (``save_global``): the slower
    way, for the rare pickle whose bytes hold an engine name as data as well."""

    def save_global(self, obj, name=None):
        found = saved_name(obj)
        if found is None:
            return super().save_global(obj, name)
        if self.proto >= 4:  # module and name as strings (see names.SAVED_NAMES)
            self.save(found[0])
            self.save("".join([found[1][:1], found[1][1:]]))  # a new object: never a memo hit
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{found[0]}\n{found[1]}\n".encode())
        self.memoize(obj)

    # functions are written by a table entry that calls the base class's save_global
    dispatch = {**pickle._Pickler.dispatch, types.FunctionType: save_global}


def _engine_global(obj):
    """The GLOBAL opcode Python's pickler writes for an engine object pickled by name."""
    name = obj.__qualname__ if isinstance(obj, (type, types.FunctionType)) else obj.__reduce__()
    return pickle.GLOBAL + f"{obj.__module__}\n{name}\n".encode()


def _renamed(data, memoized):
    """``data`` with each engine global it names written as torch's; None when one of them
    is not found exactly once (then also inside the data: renaming could change that)."""
    for obj in memoized:
        found = saved_name(obj)
        if found is not None:
            pattern = _engine_global(obj)
            if data.count(pattern) != 1:
                return None
            data = data.replace(pattern, pickle.GLOBAL + f"{found[0]}\n{found[1]}\n".encode())
    return data


def _pickled(obj, protocol):
    """``data.pkl`` and the storages it refers to, by key."""
    data = None
    if protocol < 4:  # (from 4 on, globals are strings the memo may refer back to)
        buffer = io.BytesIO()
        pickler = _FastPickler(buffer, protocol)
        pickler.dump(obj)
        data = _renamed(buffer.getvalue(), [o for _, o in pickler.memo.copy().values()])
    if data is None:
        buffer = io.BytesIO()
        pickler = _TorchPickler(buffer, protocol)
        pickler.dump(obj)
        data = buffer.getvalue()
    return data, pickler.storages


def _python_state(tensor):
    """Attributes a user set on a tensor (``x.note = ...``): torch saves them with it. The
    engine's own live on the class as defaults (see Tensor), all but ``_data``."""
    cls = type(tensor)
    return {name: value for name, value in vars(tensor).items()
            if name != "_data" and not hasattr(cls, name)}


def _dtype_of(array):
    for dtype in STORAGE_TYPES:
        if dtype.numpy_dtype == array.dtype:
            return dtype
    raise TypeError(f"cannot save a storage of numpy dtype {array.dtype}")


def _serialization_id():
    """40 digits naming this save (torch: a timestamp and a random number)."""
    return (f"{int.from_bytes(os.urandom(8), 'little') % 10 ** 20:020d}"
            f"{int.from_bytes(os.urandom(8), 'little') % 10 ** 20:020d}").encode()


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Write ``obj`` (tensors, state_dicts, containers of them ...) to a path or a binary
    file object, in torch's zip format: ``torch.load`` in PyTorch reads it too.

    ``pickle_module`` is accepted as torch's is; the engine pickles with Python's ``pickle``
    (it renames its own classes to torch's names on the way). The pre-1.6 format
    (``_use_new_zipfile_serialization=False``) is read by ``load`` but not written."""
    if not _use_new_zipfile_serialization:
        raise ValueError("engine.save writes torch's zip format only "
                         "(_use_new_zipfile_serialization=True): see notebooks/DIFFERENCES.md")
    data, storages = _pickled(obj, pickle_protocol)
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.fspath(f))
        if parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        if os.path.isdir(f):
            raise RuntimeError("[enforce fail at inline_container.cc:746] . open file failed "
                               "with strerror: Is a directory")
        with open(f, "wb") as out:
            _write_archive(out, archive_name(f), data, storages, _disable_byteorder_record)
    else:
        _write_archive(f, archive_name(f), data, storages, _disable_byteorder_record)


def _write_archive(out, name, pickled, storages, no_byteorder=False):
    writer = ArchiveWriter(out, name)
    writer.write_record("data.pkl", pickled)
    writer.write_record(".format_version", b"1")
    writer.write_record(".storage_alignment", str(ALIGNMENT).encode())
    if not no_byteorder:
        writer.write_record("byteorder", sys.byteorder.encode())
    for key, array in storages.items():
        writer.write_record(f"data/{key}", np.ascontiguousarray(array))
    writer.write_record("version", b"3\n")
    if no_byteorder:  # torch's C++ writer adds the record at the end all the same
        writer.write_record("byteorder", sys.byteorder.encode())
    writer.write_record(".data/serialization_id", _serialization_id())
    writer.finish()


# ---------------------------------------------------------------- load
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source.")
DOCS_MESSAGE = ("\n\nCheck the documentation of torch.load to learn more about types accepted "
                "by default with weights_only https://pytorch.org/docs/stable/generated/"
                "torch.load.html.")
CUDA_UNAVAILABLE = ("Attempting to deserialize object on a CUDA device but "
                    "torch.cuda.is_available() is False. If you are running on a CPU-only "
                    "machine, please use torch.load with map_location=torch.device('cpu') to "
                    "map your storages to the CPU.")


def _weights_only_message(message):
    """torch's wording around the unpickler's reason (which names the global refused)."""
    if "was not an allowed global by default." in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load "
                "with `weights_only=True` please check the recommended steps in the following "
                "error message.\n\tWeightsUnpickler error: " + message + DOCS_MESSAGE)
    text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if "whose module" not in message or "is blocked" not in message:
        text += ("Please file an issue with the following so that we can make "
                 "`weights_only=True` compatible with your use case: WeightsUnpickler error: ")
    return text + "\n\n" + message + DOCS_MESSAGE


def _restore_location(array, location):
    """torch's default_restore_location on a machine with a CPU only."""
    if location == "cpu":
        return array
    if location.startswith("cuda"):
        raise RuntimeError(CUDA_UNAVAILABLE)
    raise RuntimeError("don't know how to restore data location of "
                       f"torch.storage.UntypedStorage (tagged with {location})")


def _place(array, location, map_location):
    """Where a storage goes: ``map_location`` as a device, a name, a dict or a function."""
    if map_location is None:
        return _restore_location(array, location)
    if isinstance(map_location, str):
        return _restore_location(array, map_location)
    if isinstance(map_location, device):
        return _restore_location(array, str(map_location))
    if isinstance(map_location, dict):
        return _restore_location(array, map_location.get(location, location))
    result = map_location(UntypedStorage(array), location)
    if result is None:
        return _restore_location(array, location)
    return result._array if isinstance(result, UntypedStorage) else result


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read what ``save`` (or PyTorch's ``torch.save``) wrote. By default only tensors and
    plain containers load (``weights_only=True``, as torch 2.6+): a checkpoint cannot run
    code. ``weights_only=False`` loads any pickled object: only for files you trust."""
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    is_path = isinstance(f, (str, os.PathLike))
    if weights_only:
        def make_unpickler(file, persistent_load):
            for name in pickle_load_args:  # torch's weights-only unpickler takes encoding only
                if name != "encoding":
                    raise TypeError("Unpickler.__init__() got an unexpected keyword argument "
                                    f"'{name}'")
            return WeightsUnpickler(file, persistent_load, encoding=pickle_load_args["encoding"])
    else:
        def make_unpickler(file, persistent_load):
            return full_unpickler(pickle_module or pickle)(file, persistent_load,
                                                            **pickle_load_args)
    opened = open(f, "rb") if is_path else f
    try:
        if not is_zip(opened):
            if mmap:  # (torch names the file only when it was given as a str)
                f_name = f"{f}, " if isinstance(f, str) else ""
                raise RuntimeError("mmap can only be used with files saved with "
                                   f"`torch.save({f_name}_use_new_zipfile_serialization=True), "
                                   "please torch.save your checkpoint with this option in order "
                                   "to use mmap.")
            return _load_legacy(opened, map_location, make_unpickler)
        if mmap and not is_path:
            raise ValueError("f must be a file path in order to use the mmap argument")
        reader = ArchiveReader(opened)
        return _load_archive(reader, map_location, make_unpickler,
                             os.fspath(f) if mmap else None)
    except EOFError:
        if not weights_only:
            raise
        raise EOFError() from None  # (torch's weights-only unpickler raises it bare)
    except pickle.UnpicklingError as error:
        if not weights_only:
            raise
        message = str(error)
        if message.startswith("Memo value not found at index "):
            # torch's unpickler reads its memo (a dict) for BINGET: a KeyError there
            raise KeyError(int(message.rsplit(" ", 1)[1])) from None
        if message.startswith("invalid load key, '") and len(message) == 22:
            # a byte that is no opcode: torch's unpickler names it by its number
            message = f"Unsupported operand {ord(message[19])}"
        raise pickle.UnpicklingError(_weights_only_message(message)) from None
    finally:
        if is_path:
            opened.close()


LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL_VERSION = 1001


def _no_storage(saved_id):
    raise pickle.UnpicklingError("unsupported persistent id encountered")


def _load_legacy(f, map_location, make_unpickler):
    """torch's format before 1.6 (and ``_use_new_zipfile_serialization=False``): pickles one
    after another (magic number, version, system info, the object, the storage keys), then
    each storage's element count and bytes, in the keys' order."""
    if make_unpickler(f, _no_storage).load() != LEGACY_MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = make_unpickler(f, _no_storage).load()
    if version != LEGACY_PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    make_unpickler(f, _no_storage).load()  # sizes of C types on the saving machine
    storages = {}

    def persistent_load(saved_id):
        if not (isinstance(saved_id, tuple) and len(saved_id) == 6 and
                saved_id[0] == "storage" and isinstance(saved_id[1], StorageType)):
            raise pickle.UnpicklingError("unsupported persistent id encountered")
        _, storage_type, key, location, numel, view = saved_id
        if key not in storages:  # filled after the object's pickle, in place
            storages[key] = _place(np.empty(numel, storage_type.dtype.numpy_dtype), location,
                                   map_location)
        array = storages[key]
        if view is not None:  # (torch < 0.4: a storage that is a slice of another)
            _, offset, size = view
            array = array[offset:offset + size]
        return TypedStorage(array, storage_type.dtype)

    result = make_unpickler(f, persistent_load).load()
    for key in make_unpickler(f, _no_storage).load():
        array = storages[key]
        count = int.from_bytes(_read_exactly(f, 8), "little", signed=True)
        if count * array.itemsize != array.nbytes:
            raise RuntimeError(f"storage has wrong byte size: expected {count * array.itemsize} "
                               f"got {array.nbytes}")
        array[...] = np.frombuffer(_read_exactly(f, array.nbytes), array.dtype)
    return result


def _read_exactly(f, size):
    """``size`` bytes of a legacy file's storage part, or torch's error for a file that ends
    sooner (it counts what is missing of the element count or of the storage being read)."""
    data = f.read(size)
    if len(data) != size:
        raise RuntimeError(f"unexpected EOF, expected {size - len(data)} more bytes. The file "
                           "might be corrupted.")
    return data


def _load_archive(reader, map_location, make_unpickler, mmap_path):
    big_endian = reader.has("byteorder") and reader.read_bytes("byteorder") == b"big"
    loaded = {}

    def persistent_load(saved_id):
        if not (isinstance(saved_id, tuple) and saved_id and saved_id[0] == "storage"):
            raise pickle.UnpicklingError("unsupported persistent id encountered")
        storage_type, key, location = saved_id[1], saved_id[2], saved_id[3]
        if not isinstance(storage_type, StorageType):
            raise pickle.UnpicklingError(f"unsupported storage type {storage_type!r}")
        if key not in loaded:
            np_dtype = storage_type.dtype.numpy_dtype
            array = reader.read_array(f"data/{key}", np_dtype, mmap_path)
            if isinstance(array, np.memmap):
                array = array.view(np.ndarray)
            if big_endian and array.itemsize > 1:
                array = array.byteswap().view(array.dtype)  # (to this machine's order)
            loaded[key] = _place(array, location, map_location)
        return TypedStorage(loaded[key], storage_type.dtype)

    return make_unpickler(io.BytesIO(reader.read_bytes("data.pkl")), persistent_load).load()
