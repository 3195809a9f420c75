"""Containers: ``Sequential`` (a chain of modules) and ``ModuleList`` (a list of them)."""
import operator
from collections import OrderedDict

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
