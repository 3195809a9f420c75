"""Which of the learner's calls an argument error is about, for torch's wording of it.

Fidelity machinery, not part of the engine's story: a reader can skip this module.

torch numbers a method's arguments without ``self``: ``t.add(x)`` with a bad ``x`` says
"argument 'other' (position 1)", ``torch.add(t, x)`` says "(position 2)". The engine's methods
are its functions (ops/methods.py), so the function alone cannot tell. Tensor gets copies of
the functions that differ only in their code object (``method_copy``: as fast as the function
itself); when an error message is being written, and only then, the frames on the stack say
whether the learner's call went through a method (``called_as_method``) and which argument
of which operation was wrong (``argument_error``).
"""
import dis
import operator
import os
import sys
import types

from .messages import type_name

_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_FIDELITY_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_METHOD_CODES = {}  # id(code) -> code (kept alive, so that the id stays its own)
# id(code) -> (code, the factory that made it): wrappers whose frames the engine's messages do
# not see (the call the learner made is the function they wrap)
_PASSING_CODES = {}


def passes_through(factory, wrapper):
    """Register ``wrapper`` (made by ``factory(function)``, ``__wrapped__`` set) as invisible
    to the messages that read the learner's call from the engine's frames."""
    _PASSING_CODES[id(wrapper.__code__)] = wrapper.__code__, factory
    return wrapper


def method_copy(function, qualname=None):
    """``function`` with its own code object, registered as a Tensor method's. ``qualname``:
    the name Python's own errors give it (``Tensor.split() got an unexpected keyword``, as
    for torch's Tensor methods written in Python). A wrapper that passes through stays
    outside: the copy is of the function it wraps."""
    passing = _PASSING_CODES.get(id(function.__code__))
    if passing is not None:
        return passing[1](method_copy(function.__wrapped__, qualname))
    code = function.__code__.replace(co_qualname=qualname or function.__code__.co_qualname)
    copy = types.FunctionType(code, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__dict__.update(function.__dict__)
    copy.__qualname__, copy.__doc__ = qualname or function.__qualname__, function.__doc__
    copy.__module__, copy.__annotations__ = function.__module__, function.__annotations__
    _METHOD_CODES[id(code)] = code
    return copy


def parted_by_keyword(args, names, kwargs=()):
    """``args`` parted into those the learner's call gave by position and those it gave by
    keyword (``names[i]``: the parameter ``args[i]`` fills, or None), with its out= (which
    takes_out's wrapper keeps), the keywords in the order given: torch lists them so."""
    passed = keyword_names()
    if not passed:
        return tuple(args), dict(kwargs)
    positional, named = [], dict(kwargs)
    for value, name in zip(args, (*names, *[None] * len(args))):
        if name is not None and name in passed and name not in named:
            named[name] = value
        else:
            positional.append(value)
    if "out" in passed and "out" not in named:
        out = given_out()
        if out is not None:
            named["out"] = out
    return tuple(positional), dict(sorted(named.items(), key=lambda item: (
        passed.index(item[0]) if item[0] in passed else -1)))


def given_out():
    """The out= the learner's call gave, as the outermost engine function holding one keeps
    it (takes_out's wrapper), or None."""
    return next((frame.f_locals["out"] for frame in reversed(engine_frames())
                 if frame.f_locals.get("out") is not None), None)


def from_engine(frame):
    """Whether ``frame`` runs the engine's own code (a call the engine makes, not the
    learner; a wrapper that passes through is its caller's)."""
    while frame is not None and id(frame.f_code) in _PASSING_CODES:
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(_ENGINE_DIR)


def engine_frames():
    """The engine's frames of the current call, innermost first (this module's left out)."""
    frame, frames = sys._getframe(1), []
    while frame is not None and frame.f_code.co_filename.startswith(_ENGINE_DIR):
        if not frame.f_code.co_filename.startswith(_FIDELITY_DIR) and \
                id(frame.f_code) not in _PASSING_CODES:
            frames.append(frame)
        frame = frame.f_back
    return frames


def _through_a_method(frames):
    return bool(frames) and id(frames[-1].f_code) in _METHOD_CODES


def called_as_method():
    """Whether the learner's call into the engine was a Tensor method (``t.add(x)``)."""
    return _through_a_method(engine_frames())


def given_by_keyword(name):
    """Whether the learner's call into the engine passed the argument ``name`` by keyword
    (torch's messages then give no position)."""
    return name in keyword_names()


def keyword_names():
    """The names the learner's call into the engine passed by keyword, read from the call's
    bytecode: a constant loaded just before the call (KW_NAMES before Python 3.13, a
    LOAD_CONST before CALL_KW since). A call that unpacks ``**kwargs`` gives ()."""
    frames = engine_frames()
    caller = frames[-1].f_back if frames else None
    while caller is not None and id(caller.f_code) in _PASSING_CODES:
        caller = caller.f_back
    if caller is None:
        return ()
    code = caller.f_code
    # (f_lasti may point into the call's inline caches, which are not listed)
    before = [i for i in dis.get_instructions(code) if i.offset <= caller.f_lasti]
    if not before or not before[-1].opname.startswith("CALL"):
        return ()
    for previous in reversed(before[:-1]):
        if previous.opname == "PRECALL":
            continue
        if previous.opname == "KW_NAMES":
            return code.co_consts[previous.arg]
        if before[-1].opname == "CALL_KW" and previous.opname == "LOAD_CONST" and \
                isinstance(previous.argval, tuple):
            return previous.argval
        return ()
    return ()


def called_name():
    """The name of the engine function the learner called: ``add_`` for ``x.add_(...)``,
    ``add`` for ``x.add(...)`` and ``torch.add(...)`` (looked up only for a message)."""
    frames = engine_frames()
    function = _function(frames[-1]) if frames else None
    return function.__name__ if function is not None else None


def position(number):
    """An argument's position as torch prints it: one less in a method call (no self)."""
    return number - 1 if called_as_method() else number


def _holds(value, candidate):
    return candidate is value or (isinstance(candidate, (tuple, list))
                                  and any(item is value for item in candidate))


# torch's argument parser: the dims it reads as a list ("tuple of ints"), and the operations
# with several overloads, where a wrong type is "an invalid combination of arguments"
LIST_ARGUMENTS = {("nansum", "dim"), ("amax", "dim"), ("amin", "dim"), ("logsumexp", "dim"),
                  ("flip", "dims")}
OVERLOADED = {"sum", "mean", "max", "min", "var", "std", "all", "any", "count_nonzero", "sort",
              "argsort", "squeeze", "narrow", "movedim"}


def _function(frame):
    """The function running in ``frame`` (found only when an error is being written): a
    function made by a factory (one code for cumsum and cumprod) is told by its closure."""
    import gc

    code = frame.f_code
    for function in gc.get_referrers(code):
        if (isinstance(function, types.FunctionType) and function.__code__ is code
                and all(frame.f_locals.get(name, cell) is cell.cell_contents
                        for name, cell in zip(code.co_freevars, function.__closure__ or ()))):
            return function
    return None


def _given(frame, function, method):
    """The arguments of the call in ``frame`` that were not left at their defaults."""
    code = frame.f_code
    names = code.co_varnames[:code.co_argcount]
    defaults = function.__defaults__ or () if function is not None else ()
    first_default = len(names) - len(defaults)
    given = []
    for index, name in enumerate(names[1 if method else 0:], 1 if method else 0):
        value = frame.f_locals.get(name)
        if index >= first_default and value is defaults[index - first_default]:
            continue
        given.append("Tensor" if hasattr(value, "_data") else type_name(value))
    return given


def argument_error(value, expected):
    """torch's TypeError for an argument of the wrong type, e.g. "softmax(): argument 'dim'
    (position 1) must be int, not float": the operation is the outermost public function of
    the engine that got ``value`` as a named argument."""
    found, frames = None, engine_frames()
    for frame in frames:
        code = frame.f_code
        if code.co_name.startswith("_") or code.co_name.startswith("<"):
            continue
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        for index, name in enumerate(names):
            if _holds(value, frame.f_locals.get(name)):
                if index >= code.co_argcount:  # keyword-only: passed through *args, or by name
                    index = code.co_argcount if code.co_flags & 0x04 else None
                found = (frame, name, None if index is None else index + 1)
                break
    if found is None:
        return TypeError(f"argument must be {expected}, not {type_name(value)}")
    frame, name, number = found
    function = _function(frame)
    op = function.__name__ if function is not None else frame.f_code.co_name
    method = _through_a_method(frames)
    if op in OVERLOADED:
        return TypeError(f"{op}() received an invalid combination of arguments - got "
                         f"({', '.join(_given(frame, function, method))}), but expected one of:")
    if (op, name) in LIST_ARGUMENTS:
        expected = "tuple of ints"
    if given_by_keyword(name):
        number = None
    where = "" if number is None else f" (position {number - 1 if method else number})"
    return TypeError(f"{op}(): argument '{name}'{where} must be {expected}, not "
                     f"{type_name(value)}")


def as_index(value, expected="int"):
    """``value`` as a Python int (a dimension, a size), or torch's TypeError naming the
    argument; a tensor's own rules apply to a tensor (``Tensor.__index__``)."""
    try:
        return operator.index(value)
    except TypeError:
        if hasattr(value, "_data"):
            raise
        raise argument_error(value, expected) from None
