"""``weights_only=True``: an unpickler that builds tensors and plain containers only.

A pickle can call any importable function while it loads (``os.system`` by way of
``__reduce__``): that is how a checkpoint from an untrusted source runs code. As torch 2.6+
does by default, the engine resolves a global only from an allowlist (torch's tensor
rebuild functions, storages, dtypes, ``OrderedDict``, ``set`` ...) plus what the user adds
with ``add_safe_globals``; anything else stops the load before it is called, with torch's
error. (torch walks the opcodes itself; the engine restricts ``find_class``, the one place a
pickle reaches a callable, and keeps the C unpickler's speed.)
"""
import _compat_pickle
import pickle
import warnings

from .names import PLAIN_GLOBALS, TORCH_GLOBALS, ReturnTypeFromTorch

BLOCKED_MODULES = ("sys", "os", "posix", "nt")  # never allowed, even by add_safe_globals
marked_safe_globals = set()


def add_safe_globals(safe_globals):
    """Allow these functions or classes (or ``(obj, "module.name")`` pairs) in
    ``load(..., weights_only=True)``."""
    marked_safe_globals.update(safe_globals)


def get_safe_globals():
    return list(marked_safe_globals)


def clear_safe_globals():
    marked_safe_globals.clear()


def remove_safe_globals(globals_to_remove):
    marked_safe_globals.difference_update(globals_to_remove)


class safe_globals:
    """``with safe_globals([...]):`` allows them only inside the block."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        remove_safe_globals(self.safe_globals)


def user_allowed_globals():
    found = {}
    for entry in marked_safe_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(entry)}")
            if type(entry[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full "
                                f"path, but got: {type(entry[1])}")
            found[entry[1]] = entry[0]
        else:
            found[f"{entry.__module__}.{entry.__qualname__}"] = entry
    return found


def unsupported_global(module, name):
    full_path = f"{module}.{name}"
    if module in BLOCKED_MODULES:
        return f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked."
    if full_path.startswith("builtins"):  # torch names builtins.print as plain print
        rest = full_path[len("builtins"):]
        full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
    return (f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
            f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist "
            "this global if you trust this class/function.")


class WeightsUnpickler(pickle.Unpickler):
    """Loads only allowlisted globals; storages come from ``persistent_load``."""

    def __init__(self, file, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self.file = file
        self.persistent_load = persistent_load

    def load(self):
        start = self.file.tell()
        head = self.file.read(2)  # PROTO and its number, when the pickle begins with them
        self.file.seek(start)
        if len(head) == 2 and head[0] == pickle.PROTO[0] and head[1] != 2:
            warnings.warn(
                f"Detected pickle protocol {head[1]} in the checkpoint, which was not the default "
                "pickle protocol used by `torch.load` (2). The weights_only Unpickler might not "
                "support all instructions implemented by this protocol, please file an issue for "
                "adding support if you encounter this.", UserWarning, stacklevel=2)
        return super().load()

    def find_class(self, module, name):
        # a protocol-2 pickle names Python 2's modules (__builtin__.set): read as Python 3's
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full_path = f"{module}.{name}"
        if module in BLOCKED_MODULES:
            raise pickle.UnpicklingError(unsupported_global(module, name))
        for table in (TORCH_GLOBALS, PLAIN_GLOBALS):
            if full_path in table:
                return table[full_path]
        user = user_allowed_globals()
        if full_path in user:
            return user[full_path]
        raise pickle.UnpicklingError(unsupported_global(module, name))


def full_unpickler(pickle_module):
    """``weights_only=False``: ``pickle_module``'s unpickler, any global allowed, torch's
    names mapped to the engine's objects."""
    class FullUnpickler(pickle_module.Unpickler):
        def __init__(self, file, persistent_load, **kwargs):
            super().__init__(file, **kwargs)
            self.persistent_load = persistent_load

        def find_class(self, module, name):
            if module == "torch.return_types":
                return ReturnTypeFromTorch(name)
            found = TORCH_GLOBALS.get(f"{module}.{name}")
            return found if found is not None else super().find_class(module, name)
    return FullUnpickler
