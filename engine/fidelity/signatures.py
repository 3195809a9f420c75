"""torch's argument parser, for the operations whose Python signature accepts more than torch's.

Fidelity machinery, not part of the engine's story: a reader can skip this module.

A Python function with defaults takes ``x.sum(keepdim=True)`` or ``x.std(unbiased=False,
correction=0)``; torch's parser matches the call against a list of overloads and refuses it
when none takes it. ``overloads(...)`` wraps an engine function with torch's list (written as
torch prints it for ``torch.op(...)``, with marks of its own: ``?`` after a type that takes
None, ``[1]`` after ``tuple of ints`` that takes a single int, ``SymInt`` for an int that
takes an integer tensor of one element, printed ``int``, and ``tuple of SymInts`` for a list
of them, printed ``tuple of ints``) and raises torch's TypeError for a call no overload takes;
a call one takes goes to the function with its ints read as torch reads them (read_ints).

(``ops.common.overloads`` is the decorator that checks an engine function's calls against
torch's list: its frames must be the engine's own, not this module's, for a method call to
be told from a function call.)

torch's rules (python_arg_parser.cpp): an overload takes a call when the positional arguments
fit its positional parameters, the keywords name its parameters, every required one is given
and each has its type. When none does, torch looks at the overloads whose number of parameters
fits the number of arguments: if exactly one does, its own error ("missing", "takes 2
positional arguments", "argument 'keepdim' (position 2) must be bool"), otherwise the list.

Its ints (torch's schemas say which parameters are ``int`` and which ``SymInt``:
``torch._C._jit_get_schemas_for_operator("aten::narrow")``):
- an ``int`` takes a Python int (not a bool), a numpy integer, a 0-d integer tensor (not
  bool) that does not require grad (``_is_int``);
- a ``SymInt`` also an integer or bool tensor of one element, whatever its shape, and anything
  else with ``__index__`` (``_is_symint``); a bool tensor then fails the conversion with
  torch's internal assert (``SYMINT_BOOL``);
- a list (``int[]``, ``SymInt[]``) is one when its first element is what a SymInt takes (a
  Python bool is not); each element is then read (``_unpack_ints``): an integer or bool tensor
  of one element, or anything with ``__index__`` (a Python bool is 1 there); a bool tensor is 1
  in an ``int[]`` and torch's failed check (``SYMINT_LIST_BOOL``) in a ``SymInt[]``;
- a list with a size (``int[1] dim``, ``SymInt[1] shifts``) takes one value alone, what a
  SymInt takes, read as its int (a bool tensor is 1).

Its lists of floats (``float[]``, printed ``tuple of floats``) are taken, as its lists of ints,
on their first element: a Python or numpy number (complex too); each element is then read as
a float (``_unpack_floats``: anything with ``__float__`` or ``__index__``, a 0-d tensor too).
"""
import builtins
import functools
import numbers
import operator

import numpy as np

from . import calls
from .messages import keyword_order, type_name

PACKED = "packed"  # what Signature.parse says of x.flip(0, 1): a method's way only
_NUMPY_NAMES = {"dim": "axis", "keepdim": "keepdims"}  # (torch's parser takes numpy's too)
_PYTHON_TYPES = (builtins.float, builtins.int, builtins.bool, builtins.complex)
# torch's errors for a bool tensor given for a SymInt, alone or in a list (its C++ checks'
# own words, the source line included: torch 2.15's)
SYMINT_BOOL = ('scalar.isIntegral( false) INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/torch/'
               'csrc/utils/pybind.cpp":27, please report a bug to PyTorch. ')
SYMINT_LIST_BOOL = ("Expected scalar.isIntegral( false) to be true, but got false.  (Could this "
                    "error message be improved?  If so, please report an enhancement request "
                    "to PyTorch.)")


class _Parameter:
    __slots__ = ("name", "kind", "nullable", "optional", "single_int", "symint", "keyword_only",
                 "printed", "hidden")

    def __init__(self, text, keyword_only):
        printed, default = (text.split(" = ") + [None])[:2]
        kind, self.name = printed.rsplit(" ", 1)
        # (torch's parser also takes None for a list of ints whose default is empty)
        self.nullable = kind.endswith("?") or default == "None" or (
            kind.startswith("tuple of") and default == "()")
        kind = kind.rstrip("?")
        self.single_int = kind.endswith("[1]")
        kind = kind.replace("[1]", "")
        # (torch prints a SymInt "int", a list of them "tuple of ints")
        self.symint = kind in ("SymInt", "tuple of SymInts")
        self.kind = {"SymInt": "int", "tuple of SymInts": "tuple of ints"}.get(kind, kind)
        self.optional = default is not None
        self.keyword_only = keyword_only
        self.hidden = False
        self.printed = f"{self.kind} {self.name}" + ("" if default is None else f" = {default}")


class Signature:
    def __init__(self, text, method):
        self.params, keyword_only = [], False
        for part in filter(None, text.strip("()").split(", ")):
            if part == "*":
                keyword_only = True
                continue
            param = _Parameter(part, keyword_only)
            if method and param.name == "input":
                continue
            # (a method has no out=; the engine's methods are its functions, which take it)
            param.hidden = method and param.name == "out"
            self.params.append(param)
        self.max_positional = sum(not p.keyword_only for p in self.params)
        self.min_args = sum(not p.optional for p in self.params)
        self.max_args = sum(not p.hidden for p in self.params)
        self.varargs = method and self.max_positional == 1 and self.params[0].kind == (
            "tuple of ints")

    def printed(self):
        parts, star = [], False
        for p in self.params:
            if p.hidden:
                continue
            if p.keyword_only and not star:
                parts.append("*")
                star = True
            parts.append(p.printed)
        return f" * ({', '.join(parts)})"

    def read_ints(self, name, args, kwargs):
        """``args`` and ``kwargs`` of a call that fits, with its ints read as torch's parser
        reads them (``x.topk(torch.tensor(1))``, ``x.sum((np.int64(1), torch.tensor([0])))``:
        Python ints, and tuples of them), or its error for a bool tensor given for a SymInt;
        None when there is nothing to read (Python ints only: the common call, kept quick)."""
        if builtins.all(_plain(value) for value in args) and \
                builtins.all(_plain(value) for value in kwargs.values()):
            return None
        positional = [p for p in self.params if not p.keyword_only]
        by_name = {p.name: p for p in self.params}
        by_name.update({_NUMPY_NAMES[n]: p for n, p in list(by_name.items())
                        if n in _NUMPY_NAMES})  # (x.argmin(axis=torch.tensor(1)))
        args = tuple(_read(name, positional[i], value) if i < len(positional) else value
                     for i, value in enumerate(args))
        return args, {key: _read(name, by_name[key], value) if key in by_name else value
                      for key, value in kwargs.items()}

    def parse(self, name, args, kwargs, raise_error, method_call=False):
        """Whether the call fits (``PACKED`` when it gave its ints one by one for a tuple);
        with ``raise_error``, torch's error for this overload."""
        if len(args) > self.max_positional and not (self.varargs and _int_list(args)):
            if raise_error:
                raise _extra_args(name, self, len(args))
            return False
        used, position, packed, int_lists = 0, 0, False, []
        for index, p in enumerate(self.params):
            if p.hidden and method_call:  # (torch's methods take no out=)
                continue
            by_name = position >= len(args)
            if not by_name:
                if p.keyword_only:
                    if raise_error:
                        raise _extra_args(name, self, len(args))
                    return False
                value, found = args[position], True
            else:
                key = p.name if p.name in kwargs else _NUMPY_NAMES.get(p.name)
                found = key in kwargs
                value = kwargs.get(key)
            if (not found and p.optional) or (found and value is None and p.nullable):
                pass
            elif not found:
                if raise_error:
                    raise _missing(name, self.params[index:])
                return False
            elif _fits(value, p) or (p.kind == "Tensor" and name in NUMBERS_AS_TENSORS and
                                     isinstance(value, (numbers.Number, np.number, np.bool_))):
                if p.kind in ("tuple of ints", "tuple of floats") and isinstance(
                        value, (builtins.tuple, builtins.list)):
                    int_lists.append((p, value))
                elif p.kind == "int" and p.symint and hasattr(value, "_data"):
                    int_lists.append((p, value))  # (a SymInt read from a tensor: bool fails)
            elif not by_name and self.varargs and position == 0 and _int_list(args):
                position, packed = len(args), True  # x.flip(0, 1) is x.flip((0, 1))
                int_lists.append((p, args))
                continue
            elif raise_error:
                if by_name:
                    raise TypeError(f"{name}(): argument '{p.name}' must be {p.kind}, not "
                                    f"{type_name(value)}")
                if p.kind == "tuple of ints" and isinstance(value, (builtins.tuple, builtins.list)):
                    raise TypeError(f"{name}(): argument '{p.name}' (position {position + 1}) "
                                    f"must be tuple of ints, but found element of type "
                                    f"{type_name(value[0])} at pos 0")
                raise TypeError(f"{name}(): argument '{p.name}' (position {position + 1}) must "
                                f"be {p.kind}, not {type_name(value)}")
            else:
                return False
            if by_name:
                used += found
            else:
                position += 1
        if used < len(kwargs):
            if raise_error:
                raise _extra_kwargs(name, self, args, kwargs, method_call)
            return False
        # (torch unpacks them as its generated code passes them on, in one C++ call whose
        # arguments GCC evaluates right to left: the last list that fails is the error)
        for param, values in reversed(int_lists):
            if param.kind == "int":
                symint_value(values)
            elif param.kind == "tuple of floats":
                _unpack_floats(name, param.name, values)
            else:
                _unpack_ints(name, param.name, values, param.symint)
        return PACKED if packed else True


def _plain(value):
    """Whether ``value`` has no int for read_ints to read: a Python int, a tuple of them,
    anything but a tensor or a numpy integer."""
    cls = value.__class__
    if cls is builtins.int or cls is builtins.bool or cls is builtins.float or value is None:
        return True
    if cls is builtins.tuple or cls is builtins.list:
        return builtins.all(v.__class__ is builtins.int for v in value)
    return not (hasattr(value, "_data") or isinstance(value, np.integer))


def _read(name, p, value, param_name=None):
    """An argument that fits ``p``, read as torch reads it (an int, or a tuple of ints; a
    number for a Number or a float: a 0-d tensor's value, a float16 3 the float 3.0)."""
    if p.kind in ("Number", "float"):
        return value.item() if hasattr(value, "_data") else value
    if p.kind == "int":
        if value is None or value.__class__ is builtins.int:
            return value
        return symint_value(value) if p.symint else operator.index(value)
    if p.kind == "tuple of ints":
        if isinstance(value, (builtins.tuple, builtins.list)):
            return _unpack_ints(name, param_name or p.name, value, p.symint)
        if value is not None and value.__class__ is not builtins.int:
            return _element(value, False)  # (one value for a list with a size)
    return value


def _int_list(values):
    """Whether torch takes ``values`` for a tuple of ints: it looks at the first one only
    (the others are checked as the chosen overload unpacks them: _unpack_ints)."""
    return not values or _is_symint(values[0])


def int_list_checked(name, param_name, value, where, unpack=True, symint=False):
    """torch's parser's errors for a tuple of ints whose elements are not all integers:
    ``where`` is " (position n)", or "" when the argument came by keyword. The first element
    decides whether the argument fits; the others are read (``unpack``: the ints, as a tuple)
    once every argument has been checked (torch.norm's keepdim=[True] is refused before its
    dim=(1, 'a')). ``symint``: a SymInt[], which refuses a bool tensor."""
    if isinstance(value, (builtins.tuple, builtins.list)):
        if value and not _is_symint(value[0]):
            if not where:  # (by keyword torch names the sequence's own type)
                raise TypeError(f"{name}(): argument '{param_name}' must be tuple of ints, not "
                                f"{type_name(value)}")
            raise TypeError(f"{name}(): argument '{param_name}'{where} must be tuple of ints, "
                            f"but found element of type {type_name(value[0])} at pos 0")
        if unpack:
            return _unpack_ints(name, param_name, value, symint)
    return value


def unpack_ints(name, param_name, values, symint):
    """The ints of a list torch's parser took (its first element fits): each read as torch
    reads it, or its error for the first that is not an int."""
    return _unpack_ints(name, param_name, values, symint)


def _unpack_ints(name, param_name, values, symint):
    ints = []
    for position, value in enumerate(values):
        read = value if value.__class__ is builtins.int else _element(value, symint)
        if read is None:
            raise TypeError(f"{name}(): argument '{param_name}' failed to unpack the object at pos "
                            f"{position + 1} with error \"type must be tuple of ints,but got "
                            f"{type_name(value)}\"")
        if not -2**63 <= read < 2**63:  # (torch's message goes on with its C++ frames)
            raise TypeError(f"{name}(): argument '{param_name}' failed to unpack the object at pos "
                            f"{position + 1} with error \"Overflow when unpacking long long\"")
        ints.append(read)
    return builtins.tuple(ints)


def _unpack_floats(name, param_name, values):
    """The floats of a list torch's parser took (its first element fits): each read as
    Python's float() reads a number (not a string), or its error for the first that is not."""
    floats = []
    for position, value in enumerate(values):
        try:
            if isinstance(value, (builtins.str, builtins.bytes)):
                raise TypeError(value)
            floats.append(builtins.float(value))
        except (TypeError, ValueError):
            raise TypeError(f"{name}(): argument '{param_name}' must be tuple of floats, but "
                            f"found element of type {type_name(value)} at pos {position + 1}"
                            ) from None
    return builtins.tuple(floats)


def list_element(value, symint=False):
    """An element of a list of ints as torch reads it, or None (see _element)."""
    return _element(value, symint)


def _element(value, symint):
    """An element of a list of ints as torch reads it, or None: an integer or bool tensor of
    one element (a bool one is 1, or torch's failed check in a SymInt[]), anything with
    ``__index__`` (a Python bool too, not numpy's)."""
    data = getattr(value, "_data", None)
    if data is not None:
        if data.size != 1 or data.dtype.kind not in "iub":
            return None
        if symint and data.dtype.kind == "b":
            raise RuntimeError(SYMINT_LIST_BOOL)
        return builtins.int(data.reshape(-1)[0])
    try:
        return operator.index(value)
    except TypeError:
        return None


def symint_value(value):
    """A value that fits a SymInt as the int torch reads: a bool tensor is its internal
    assert (the type check took it)."""
    data = getattr(value, "_data", None)
    if data is None:
        return operator.index(value)
    if data.dtype.kind == "b":
        raise RuntimeError(SYMINT_BOOL)
    return builtins.int(data.reshape(-1)[0])


def checked_int(name, param_name, position, value, symint=False):
    """``value`` for the ``int`` (``symint``: ``SymInt``) parameter ``param_name`` of torch's
    ``name``, at ``position`` (None: by keyword), as the int its parser reads; else its
    TypeError. (For a torch.nn.functional written in Python, which passes it on to torch's C++
    operator at a position of its own.)"""
    if value.__class__ is builtins.int:
        return value
    if _is_symint(value) if symint else _is_int(value):
        return symint_value(value) if symint else operator.index(value)
    where = "" if position is None else f" (position {position})"
    raise TypeError(f"{name}(): argument '{param_name}'{where} must be int, not "
                    f"{type_name(value)}")


def checked_ints(name, param_name, position, value, symint=False):
    """``value`` for the ``int[N]`` (``symint``: ``SymInt[N]``) parameter ``param_name`` of
    torch's ``name``, at ``position`` (None: by keyword), as its parser reads it: a tuple of
    ints, or one int alone (for every dimension); else its TypeError."""
    where = "" if position is None else f" (position {position})"
    if isinstance(value, (builtins.tuple, builtins.list)):
        return int_list_checked(name, param_name, value, where, symint=symint)
    if value.__class__ is builtins.int:
        return value
    if _is_symint(value):
        return _element(value, False)
    raise TypeError(f"{name}(): argument '{param_name}'{where} must be tuple of ints, not "
                    f"{type_name(value)}")


def checked_ints_together(name, given, flags=()):
    """Several ``int[N]`` parameters of one call of torch's ``name`` (``given``: (parameter,
    position or None, value, symint) each), as its parser takes them: every type first, in
    order (then the ``bool`` parameters ``flags`` after them: (parameter, position, value)
    each), then each list read, the last first (its generated code passes them on in one C++
    call, whose arguments GCC evaluates right to left): the ints, in ``given``'s order."""
    for param_name, position, value, _ in given:
        where = "" if position is None else f" (position {position})"
        if isinstance(value, (builtins.tuple, builtins.list)):
            int_list_checked(name, param_name, value, where, unpack=False)
        elif value.__class__ is not builtins.int and not _is_symint(value):
            raise TypeError(f"{name}(): argument '{param_name}'{where} must be tuple of ints, "
                            f"not {type_name(value)}")
    for param_name, position, value in flags:
        if value.__class__ is not builtins.bool:
            raise TypeError(f"{name}(): argument '{param_name}' (position {position}) must be "
                            f"bool, not {type_name(value)}")
    read = [checked_ints(name, param_name, position, value, symint)
            for param_name, position, value, symint in reversed(given)]
    return read[::-1]


def is_int(value):
    """Whether torch's parser takes ``value`` for an ``int`` parameter."""
    return _is_int(value)


def _is_int(value):
    if isinstance(value, builtins.bool):
        return False
    if isinstance(value, (builtins.int, np.integer)):
        return True
    data = getattr(value, "_data", None)  # a 0-d integer tensor that does not require grad
    return (data is not None and data.ndim == 0 and data.dtype.kind in "iu"
            and not value.requires_grad)


def is_symint(value):
    """Whether torch's parser takes ``value`` for a ``SymInt`` parameter, or as the first
    element of a list of ints (its is_int_or_symint)."""
    return _is_symint(value)


def _is_symint(value):
    if value.__class__ is builtins.int:
        return True
    data = getattr(value, "_data", None)
    if data is not None:
        return data.size == 1 and data.dtype.kind in "iub"
    if isinstance(value, builtins.bool):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


# the ops whose Tensor parameters torch's parser also fills with a number
NUMBERS_AS_TENSORS = frozenset(
    f"{op}{suffix}" for op in ("add", "sub", "subtract", "mul", "multiply", "div", "divide",
                               "true_divide", "floor_divide") for suffix in ("", "_")) | {"to"}


def _fits(value, p):
    kind = p.kind
    if kind == "int":  # (a SymInt: an integer tensor of one element too, whatever its shape)
        return _is_symint(value) if p.symint else _is_int(value)
    if kind == "bool":
        return value.__class__ is builtins.bool  # (numpy 2.x's np.bool is refused)
    if kind == "tuple of ints":
        if isinstance(value, (builtins.tuple, builtins.list)):
            return _int_list(value)
        return p.single_int and _is_symint(value)
    if kind == "tuple of floats":  # (its first element decides, as for a list of ints)
        return isinstance(value, (builtins.tuple, builtins.list)) and (
            not value or isinstance(value[0], (numbers.Number, np.number, np.bool_)))
    if kind == "Tensor":
        return hasattr(value, "_data")
    if kind == "tuple of Tensors":
        return isinstance(value, (builtins.tuple, builtins.list))
    if kind == "Number":
        if hasattr(value, "_data"):
            return value._data.ndim == 0 and not value.requires_grad
        return isinstance(value, (numbers.Number, np.number, np.bool_))
    if kind == "str":
        return isinstance(value, builtins.str)
    if kind == "float":  # (a Python int or bool too, numpy's real numbers, a 0-d tensor)
        if hasattr(value, "_data"):
            return value._data.ndim == 0 and not value.requires_grad
        return isinstance(value, (numbers.Real, np.number, np.bool_)) and \
            not isinstance(value, np.complexfloating)
    if kind == "torch.Generator":
        return type(value).__name__ == "Generator"
    if kind == "torch.dtype":
        return type(value).__name__ == "dtype" or any(value is kind for kind in _PYTHON_TYPES)
    if kind == "torch.device":  # (a GPU's number too)
        return type(value).__name__ == "device" or isinstance(value, builtins.str) or (
            isinstance(value, (builtins.int, np.integer)) and value.__class__ is not builtins.bool)
    if kind == "torch.layout":
        return type(value).__name__ == "layout"
    if kind == "torch.memory_format":
        return type(value).__name__ == "memory_format"
    raise AssertionError(kind)


def fits(value, kind):
    """Whether torch's parser takes ``value`` for a parameter of ``kind`` (as printed:
    "int", "SymInt", "tuple of ints[1]", "Number", "float", "bool", "Tensor"; "?" takes None)."""
    param = _parameter_of_kind(kind)
    return (param.nullable and value is None) or _fits(value, param)


def read(name, param_name, kind, value):
    """``value``, which fits a parameter of ``kind`` (see fits), read as torch's parser reads
    it: an int or a tuple of ints where it takes tensors and numpy integers for them, or its
    error for a bool tensor given for a SymInt."""
    return _read(name, _parameter_of_kind(kind), value, param_name)


def printed_kind(kind):
    """A parameter's kind as torch prints it in its messages ("SymInt" is "int")."""
    return _parameter_of_kind(kind).kind


@functools.cache
def _parameter_of_kind(kind):  # (parsed once per kind: fits runs on every call it guards)
    return _Parameter(f"{kind} value", False)


def _extra_args(name, signature, given):
    most, fewest = signature.max_positional, signature.min_args
    if fewest != most:
        return TypeError(f"{name}() takes from {fewest} to {most} positional arguments but "
                         f"{given} were given")
    return TypeError(f"{name}() takes {most} positional argument{'' if most == 1 else 's'} but "
                     f"{given} {'was' if given == 1 else 'were'} given")


def _missing(name, params):
    missing = [f'"{p.name}"' for p in params if not p.optional]
    # (torch's message says "arguments" for one and "argument" for more)
    return TypeError(f"{name}() missing {len(missing)} required positional "
                     f"argument{'s' if len(missing) == 1 else ''}: {', '.join(missing)}")


def _extra_kwargs(name, signature, args, kwargs, method_call):
    positions = [p.name for p in signature.params if not p.keyword_only][:len(args)]
    names = {p.name for p in signature.params
             if p.name not in positions and not (p.hidden and method_call)}
    for key in kwargs:  # (numpy's names count only where torch's are not given)
        if key in positions:
            return TypeError(f"{name}() got multiple values for argument '{key}'")
        if key not in names:
            return TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    return TypeError(f"{name}() got an unexpected keyword argument")


def _kind(value):
    return "Tensor" if hasattr(value, "_data") else type_name(value)


def _noted_kind(value):
    """A type as torch's notes give it: a list's or a tuple's with its items' types."""
    if isinstance(value, list):
        return f"list of [{', '.join(_kind(item) for item in value)}]"
    if isinstance(value, tuple):  # (a named tuple by its own name: torch.return_types.max)
        named = "tuple" if value.__class__ is tuple else type_name(value)
        one = "," if len(value) == 1 else ""  # (as Python writes a tuple of one)
        return f"{named} of ({', '.join(_kind(item) for item in value)}{one})"
    return _kind(value)


def listed_arguments(args, kwargs):
    """The "got (...)" of torch's invalid-combination message: the types given, keywords
    named (in torch's order); the list ends with ", " when only keywords were given."""
    got = [_kind(a) for a in args]
    got += [f"{key}={_kind(kwargs[key])}" for key in keyword_order(kwargs)]
    return ", ".join(got) + (", " if kwargs and not args else "")


def _invalid_combination(name, signatures, args, kwargs, notes=False):
    listed = listed_arguments(args, kwargs)
    lines = "".join(f"\n{s.printed()}{_why_not(s, args, kwargs) if notes else ''}"
                    for s in signatures)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({listed}), "
                     f"but expected one of:{lines}\n")


def _why_not(signature, args, kwargs):
    """torch's note under an overload whose printed form has as many parts ("*" counts, as
    in torch's own re-reading of it) as the call has arguments: the keywords it does not have,
    else the arguments of the wrong type (!int!). torch's re-reading takes a part with a
    default ("int dim = -1") for one named after its default: it never matches. (Given where
    ``notes`` asks, as the ops' parsers do by default; checked against torch's for the
    reductions, sort, movedim, squeeze, split, fill_ and others in the tests.)"""
    parts, star = [], False
    for p in signature.params:
        if p.hidden:
            continue
        if p.keyword_only and not star:
            parts.append(None)
            star = True
        parts.append(p)
    if not parts:  # (torch re-reads "()" as one empty part, which nothing matches)
        parts = [None]
    if len(args) + len(kwargs) != len(parts):
        return ""
    names = {p.name for p in parts[max(0, len(parts) - len(kwargs)):]
             if p is not None and not p.optional}
    unknown = [key for key in keyword_order(kwargs) if key not in names]
    if unknown:
        return f"\n      didn't match because some of the keywords were incorrect: " \
               f"{', '.join(unknown)}"
    described = []
    for index, p in enumerate(parts):
        value = args[index] if index < len(args) else kwargs[p.name]
        text = _noted_kind(value) if index < len(args) else f"{p.name}={_noted_kind(value)}"
        # (torch's notes never match a Number, nor a tuple of ints, not even a tuple of
        # ints: its note maker does not know these types)
        fits = p is not None and not p.optional and p.kind not in (
            "Number", "tuple of ints") and _fits(value, p)
        described.append(text if fits else f"!{text}!")
    return f"\n      didn't match because some of the arguments have invalid types: " \
           f"({', '.join(described)}{', ' if kwargs and not args else ''})"


def method_signatures(printed):
    return [Signature(text, True) for text in printed]


def refuse(name, printed, method, args, kwargs, notes=False, as_called=False):
    """torch's TypeError for a call no overload takes (``args`` without self for a method,
    whose list leaves out the overloads that take a number first, such as remainder's).
    ``as_called``: args and kwargs are the learner's call's own; else the arguments the
    learner gave by keyword are read from the call (an op's code passes them in order)."""
    signatures = [Signature(text, method) for text in printed
                  if not method or text.lstrip(" *(").startswith("Tensor ")]
    if args and not as_called:  # (an overload's parameters name the arguments in order)
        args, kwargs = calls.parted_by_keyword(
            args, [p.name for p in signatures[0].params if not p.hidden], kwargs)
    if not as_called and any(key in _NUMPY_NAMES for key in kwargs):
        # (listed by the name the learner wrote: x.repeat_interleave("a", axis=-1))
        passed = calls.keyword_names()
        kwargs = {_NUMPY_NAMES[key] if key in _NUMPY_NAMES and key not in passed and
                  _NUMPY_NAMES[key] in passed else key: value for key, value in kwargs.items()}
    count = len(args) + len(kwargs)
    plausible = [s for s in signatures if s.min_args <= count <= s.max_args]
    if len(signatures) == 1 or len(plausible) == 1:
        (plausible or signatures)[0].parse(name, args, kwargs, True, method)
    return _invalid_combination(name, signatures, args, kwargs, notes)
