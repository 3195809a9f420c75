"""Containers: ``Sequential`` (a chain of modules), ``ModuleList`` and ``ModuleDict``,
``ParameterList`` and ``ParameterDict``: what a model keeps in them is registered, so that
``parameters()`` and ``state_dict()`` find it (a plain list or dict would hide it)."""
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from ...core.tensor import Tensor
from ..parameter import Parameter
from .module import Module, indent_after_first_line


def _index(index, length):
    """``index`` as a position in 0..length-1, with torch's message when outside."""
    index = operator.index(index)
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range")
    return index % length


class Sequential(Module):
    """``Sequential(a, b, c)(x)`` is ``c(b(a(x)))``; children are named '0', '1', ..."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def forward(self, input):
        for module in self:
            input = module(input)
        return input

    def __getitem__(self, index):
        if isinstance(index, slice):  # a slice keeps the names: Sequential((1): ..., (2): ...)
            return type(self)(OrderedDict(list(self._modules.items())[index]))
        return list(self._modules.values())[_index(index, len(self))]

    def __setitem__(self, index, module):
        key = list(self._modules)[_index(index, len(self))]
        setattr(self, key, module)

    def __delitem__(self, index):
        if isinstance(index, slice):
            keys = list(self._modules)[index]
        else:
            keys = [list(self._modules)[_index(index, len(self))]]
        for key in keys:
            delattr(self, key)
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


def _renumber(container):
    """After a deletion, the remaining modules are renamed 0, 1, ... as torch does."""
    modules = list(container._modules.values())
    container._modules.clear()
    for i, module in enumerate(modules):
        container._modules[str(i)] = module


class ModuleList(Module):
    """A list of modules whose parameters the parent module finds (a plain list hides them)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self._modules.values())[index])
        return self._modules[str(_index(index, len(self)))]

    def __setitem__(self, index, module):
        setattr(self, str(_index(index, len(self))), module)

    def __delitem__(self, index):
        if isinstance(index, slice):
            for key in list(self._modules)[index]:
                delattr(self, key)
        else:
            delattr(self, str(_index(index, len(self))))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList([*self, *other])

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        for i, item in enumerate(modules):
            self.add_module(str(i), item)

    def __repr__(self):
        """Like Module's, but runs of identical children print once: ``(0-2): 3 x ReLU()``."""
        reprs = [repr(module) for module in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = []  # [first index, last index, repr]
        for i, text in enumerate(reprs):
            if blocks and blocks[-1][2] == text:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, text])
        lines = []
        for start, end, text in blocks:
            line = f"({start}): {text}" if start == end else \
                f"({start}-{end}): {end - start + 1} x {text}"
            lines.append(indent_after_first_line(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules (insertion order kept) whose parameters the parent module finds."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)  # the keys, as a dict

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        """Add (or replace) from a mapping, in its order, or from (key, module) pairs."""
        _update_pairs(self, modules, "ModuleDict", "ModuleDict", sort_plain_dicts=False)


def _update_pairs(container, pairs, name, message_name, sort_plain_dicts):
    """``update`` of ModuleDict and ParameterDict, with torch's checks and messages."""
    if not isinstance(pairs, Iterable):
        raise TypeError(f"{message_name}.update should be called with an iterable of key/value "
                        f"pairs, but got {type(pairs).__name__}")
    if isinstance(pairs, (OrderedDict, ModuleDict, ParameterDict)):
        items = pairs.items()
    elif isinstance(pairs, Mapping):
        # torch sorts a plain dict's keys for ParameterDict (not for ModuleDict)
        items = sorted(pairs.items()) if sort_plain_dicts else pairs.items()
    else:
        items = []
        for j, pair in enumerate(pairs):
            if not isinstance(pair, Iterable):
                raise TypeError(f"{name} update sequence element #{j} should be Iterable; is"
                                + type(pair).__name__)
            if not len(pair) == 2:
                raise ValueError(f"{name} update sequence element #{j} has length {len(pair)}; "
                                 "2 is required")
            container[pair[0]] = pair[1]
        return
    for key, value in items:
        container[key] = value


def _describe(value, dtype_text):
    """One line of ParameterList's / ParameterDict's repr (they name the dtype differently)."""
    if isinstance(value, Tensor):
        size = "x".join(str(n) for n in value.size())
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        return f"{kind} containing: [{dtype_text(value)} of size {size}]"
    return "Object of type: " + type(value).__name__


class ParameterList(Module):
    """A list of parameters (plain tensors given to it become Parameters) that the parent
    module finds; they are registered as '0', '1', ..."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _position(self, index):
        return str(_index(index, len(self)))

    def __getitem__(self, index):
        if isinstance(index, slice):
            out = self.__class__()
            for i in range(*index.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._position(index))

    def __setitem__(self, index, value):
        name = self._position(index)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, name, value)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, values):
        return self.extend(values)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(f"  ({i}): " + _describe(value, lambda t: str(t.dtype))
                         for i, value in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters (plain tensors given to it become Parameters), registered under
    their keys."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}  # the keys in order (a dict used as an ordered set)
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a "
                            f"string (type is '{type(key).__name__}'). Open an issue on github "
                            "if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for key in self._keys.copy():
            del self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key, _ = self._keys.popitem()
        self._keys[key] = None  # back, so that del below finds it
        value = self[key]
        del self[key]
        return key, value

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        """Add (or replace) from pairs, an OrderedDict or ParameterDict in order, or a plain
        dict in sorted key order (torch's rule)."""
        _update_pairs(self, parameters, "ParameterDict", "ParametersDict", sort_plain_dicts=True)

    def extra_repr(self):
        return "\n".join(f"  ({k}): " + _describe(value, lambda t: t.type())
                         for k, value in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other):
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other):
        self.update(other)
        return self
