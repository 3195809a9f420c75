"""``torch.testing.assert_close``: are two results the same, up to a tolerance that fits them?

The rules and the words are PyTorch 2.15's (its ``torch/testing/_comparison.py``):

1. Containers are walked first. Two sequences (lists, tuples, ``torch.Size``; never strings)
   item by item, two mappings key by key (in sorted order when the keys sort), two instances
   of one dataclass field by field where their own ``==`` cannot answer. A length or a set of
   keys that differs, or two leaves that no kind of comparison takes, stops everything before
   a single value is compared; ``msg`` does not replace those messages.
2. Each pair of leaves goes to the first kind of comparison that takes it: two ``None``s
   (``NonePair``), two bools (``BooleanPair``), two numbers (``NumberPair``: int, float,
   complex and numpy's scalars), two tensor-likes (``TensorLikePair``: tensors, or two objects
   of related types that ``torch.as_tensor`` takes, such as numpy arrays). A tensor and a
   number, or a tensor and a numpy array, are no pair: a ``TypeError``.
3. Tensors: the shape, the strides (``check_stride``), the device, the dtype
   (``check_dtype``; without it both are promoted to a common dtype), then the values with
   ``torch.isclose``. ``requires_grad`` is not compared. The tolerances default to the
   dtype's (the looser of the two dtypes'); ``rtol`` and ``atol`` are given together or not
   at all.
4. Every pair is compared, then the first failure is raised: an ``AssertionError`` saying what
   differs, where (``The failure occurred for item [1]['w']``), by how much and where the
   largest difference is. ``msg`` replaces that text (a string) or edits it (a callable).

The class names ``NumberPair``, ``TensorLikePair`` ... are torch's: they show in the
``RuntimeError`` torch raises when a comparison breaks down unexpectedly (a negative
tolerance, a ``bool`` against an ``int``), which the engine raises in the same words.
"""
import cmath
import collections.abc
import dataclasses
import functools
import types
import warnings

import numpy as np

from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from ..fidelity import dtypes
from ..ops.compare import isclose
from ..ops.creation import as_tensor, tensor

__all__ = ["assert_close", "assert_allclose", "default_tolerances"]

# (rtol, atol) by dtype, torch 2.15's table; the dtypes not in it (bool, the integers) compare
# exactly. (torch's bfloat16 and complex rows: dtypes the engine does not have.)
DEFAULT_TOLERANCES = {dtypes.float16: (0.001, 1e-5), dtypes.float32: (1.3e-6, 1e-5),
                      dtypes.float64: (1e-7, 1e-7)}
EXACT = (0.0, 0.0)
# A Python number counts as the dtype a tensor of it would have at double precision: int as
# int64, float as float64, complex as complex128. Looked up by exact type, as torch does, so
# that a bool (an int subclass) compared with an int is the KeyError torch reports.
NUMBER_TOLERANCES = {int: EXACT, float: (1e-7, 1e-7), complex: (1e-7, 1e-7)}
# assert_allclose's own, looser, table (torch's before assert_close existed)
ALLCLOSE_TOLERANCES = {dtypes.float16: (1e-3, 1e-3), dtypes.float32: (1e-4, 1e-5),
                       dtypes.float64: (1e-5, 1e-8)}

UNEXPECTED = ("resulted in the unexpected exception above. If you are a user and see this "
              "message during normal operation please file an issue at "
              "https://github.com/pytorch/pytorch/issues. If you are a developer and working on "
              "the comparison functions, please except the previous error and raise an "
              "expressive `ErrorMeta` instead.")
ASSERT_ALLCLOSE_DEPRECATED = (
    "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
    "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
    "instructions in https://github.com/pytorch/pytorch/issues/61844.")


class Failure(Exception):
    """A comparison's verdict on its way out: which error to raise, its text, and the path of
    the item it is about (``(1, 'w')``). Never shown: ``error()`` makes what is."""

    def __init__(self, error_type, text, path=()):
        super().__init__(text)
        self.error_type, self.text, self.path = error_type, text, path

    def error(self, msg=None):
        """The exception to raise: ``msg`` replaces the text when it is a string, and gets the
        text (with the item's path) to edit when it is a callable."""
        if isinstance(msg, str):
            return self.error_type(msg)
        text = self.text
        if self.path:
            text += "\n\nThe failure occurred for item " + item_path(self.path)
        return self.error_type(msg(text) if callable(msg) else text)


class NotThisKind(Exception):
    """A kind of comparison does not take these two inputs: the next kind is tried."""


def item_path(path):
    """``[1]['w']`` for the path ``(1, 'w')``."""
    return "".join(str([key]) for key in path)


def default_tolerances(*inputs, dtype_precisions=None):
    """The loosest (rtol, atol) of the inputs' dtypes (tensors or dtypes)."""
    table = dtype_precisions or DEFAULT_TOLERANCES
    found = []
    for given in inputs:
        if isinstance(given, Tensor):
            given = given.dtype
        elif not isinstance(given, dtypes.dtype):
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(given)} "
                            f"instead.")
        found.append(table.get(given, EXACT))
    return max(rtol for rtol, _ in found), max(atol for _, atol in found)


def chosen_tolerances(defaults, rtol, atol, path):
    """The tolerances given, or ``defaults()`` when neither is; one without the other is a
    ValueError (an atol of 0 would still pass values within rtol: a surprise)."""
    if (rtol is None) != (atol is None):
        raise Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                      f"but got no {'rtol' if rtol is None else 'atol'}.", path)
    return defaults() if rtol is None else (rtol, atol)


# ---------------------------------------------------------------- the messages
def mismatch_text(identifier, extra, absolute, relative, rtol, atol):
    """``Tensor-likes are not close!`` and its lines. ``absolute`` and ``relative`` are
    ``(difference, index)``, index None for scalars. With both tolerances 0 the values were
    compared for equality: ``not equal!``, and no ``(up to ... allowed)``."""
    exact = rtol == 0 and atol == 0
    lines = [f"{identifier} are not {'equal' if exact else 'close'}!", "", extra.strip()]
    for kind, (difference, index), tolerance in (("absolute", absolute, atol),
                                                 ("relative", relative, rtol)):
        line = (f"{kind.title()} difference: {difference}" if index is None else
                f"Greatest {kind} difference: {difference} at index {index}")
        lines.append(line if exact else f"{line} (up to {tolerance} allowed)")
    return "\n".join(lines)


def scalar_mismatch_text(actual, expected, rtol, atol):
    """For two Python numbers (or the items of two 0-d tensors)."""
    difference = abs(actual - expected)
    relative = float("inf") if expected == 0 else difference / abs(expected)
    return mismatch_text("Scalars", f"Expected {expected} but got {actual}.",
                         (difference, None), (relative, None), rtol, atol)


def tensor_mismatch_text(actual, expected, matches, rtol, atol):
    """How many elements differ, and the largest absolute and relative differences among them
    with their indices, computed with tensor operations as torch does: in the tensors' dtype
    (float16 differences round to float16), integers and bools as int64, whose relative
    differences are of the default float dtype."""
    shape, count = tuple(matches.shape), matches.numel()
    mismatched = count - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {count} ({mismatched / count:.1%})"
    actual, expected, matches = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point:
        actual, expected = actual.to(dtypes.int64), expected.to(dtypes.int64)
    absolute = (actual - expected).abs().masked_fill(matches, 0)  # only the mismatches count
    relative = (absolute / expected.abs()).masked_fill(matches, 0)
    largest = []
    for differences in (absolute, relative):
        value, flat_index = differences.max(0)  # (a nan wins, and the first of equals)
        largest.append((value.item(), unravel(int(flat_index), shape)))
    return mismatch_text("Tensor-likes", extra, largest[0], largest[1], rtol, atol)


def unravel(flat_index, shape):
    """The n-d index of a row-major flat index: ``(1, 2)``."""
    index = []
    for size in reversed(shape):
        flat_index, position = divmod(flat_index, size)
        index.append(position)
    return tuple(reversed(index))


# ---------------------------------------------------------------- the kinds of pairs
class Pair:
    """Two leaves and how to compare them. A subclass's constructor raises ``NotThisKind`` when
    the inputs are not its kind, and its ``compare`` raises ``Failure`` when they differ."""

    shown = ()  # the settings its repr lists (torch's "Comparing ..." error shows the pair)

    def __init__(self, actual, expected, path):
        self.actual, self.expected, self.path = actual, expected, path

    def fail(self, text, error_type=AssertionError):
        raise Failure(error_type, text, self.path)

    def __repr__(self):
        fields = [("id", self.path), ("actual", self.actual), ("expected", self.expected)]
        fields += [(name, getattr(self, name)) for name in self.shown]
        return "\n".join([f"{type(self).__name__}(",
                          *(f"    {name}={value!s}," for name, value in fields), ")"])


class ObjectPair(Pair):
    """Two dataclass instances whose own ``==`` answers with a bool: compared by it."""

    def __init__(self, actual, expected, path, options):
        super().__init__(actual, expected, path)

    def compare(self):
        try:
            equal = self.actual == self.expected
        except Exception as error:  # noqa: BLE001 - any error of a user's __eq__, reported
            raise Failure(ValueError, f"{self.actual} == {self.expected} failed with:\n{error}.",
                          self.path) from error
        if not equal:
            self.fail(f"{self.actual} != {self.expected}")


class NonePair(Pair):
    """``None`` on either side: equal only to ``None``."""

    def __init__(self, actual, expected, path, options):
        if actual is not None and expected is not None:
            raise NotThisKind
        super().__init__(actual, expected, path)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self.fail(f"None mismatch: {self.actual} is not {self.expected}")


class BooleanPair(Pair):
    """Two bools (Python's or numpy's): equal or not, no tolerance."""

    BOOLEANS = (bool, np.bool_)

    def __init__(self, actual, expected, path, options):
        if not (isinstance(actual, self.BOOLEANS) and isinstance(expected, self.BOOLEANS)):
            raise NotThisKind
        super().__init__(bool(actual), bool(expected), path)

    def compare(self):
        if self.actual is not self.expected:
            self.fail(f"Booleans mismatch: {self.actual} is not {self.expected}")


class NumberPair(Pair):
    """Two numbers: int, float, complex, or numpy scalars (taken as the Python number they
    hold). Of different types they fail the dtype check unless ``check_dtype=False``."""

    NUMBERS = (int, float, complex, np.number)
    shown = ("rtol", "atol", "equal_nan", "check_dtype")

    def __init__(self, actual, expected, path, options):
        if not (isinstance(actual, self.NUMBERS) and isinstance(expected, self.NUMBERS)):
            raise NotThisKind
        actual, expected = (number.item() if isinstance(number, np.number) else number
                            for number in (actual, expected))
        super().__init__(actual, expected, path)
        defaults = [NUMBER_TOLERANCES[type(number)] for number in (actual, expected)]
        self.rtol, self.atol = chosen_tolerances(
            lambda: (max(rtol for rtol, _ in defaults), max(atol for _, atol in defaults)),
            options["rtol"], options["atol"], path)
        self.equal_nan, self.check_dtype = options["equal_nan"], options["check_dtype"]

    def compare(self):
        actual, expected = self.actual, self.expected
        if self.check_dtype and type(actual) is not type(expected):
            self.fail(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        if actual == expected:
            return
        if self.equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        difference = abs(actual - expected)
        allowed = self.atol + self.rtol * abs(expected)
        if cmath.isfinite(difference) and difference <= allowed:
            return
        self.fail(scalar_mismatch_text(actual, expected, self.rtol, self.atol))


class TensorLikePair(Pair):
    """Two tensors, or two objects of related types that ``torch.as_tensor`` takes."""

    shown = ("rtol", "atol", "equal_nan", "check_device", "check_dtype", "check_layout",
             "check_stride")

    def __init__(self, actual, expected, path, options):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not options["allow_subclasses"] and type(actual) is not
                           type(expected)):
            raise NotThisKind
        actual, expected = self.as_tensor(actual), self.as_tensor(expected)
        super().__init__(actual, expected, path)
        self.rtol, self.atol = chosen_tolerances(lambda: default_tolerances(actual, expected),
                                                 options["rtol"], options["atol"], path)
        for setting in self.shown[2:]:
            setattr(self, setting, options[setting])

    @staticmethod
    def as_tensor(tensor_like):
        if isinstance(tensor_like, Tensor):
            return tensor_like
        try:
            return as_tensor(tensor_like)
        except Exception:  # noqa: BLE001 - whatever as_tensor refuses is not a tensor-like
            raise NotThisKind from None

    def compare(self):
        actual, expected = self.actual, self.expected
        self.compare_attribute("shape", actual.shape, expected.shape)
        # (the engine's tensors are all strided: check_layout has nothing to tell apart)
        if self.check_stride:
            self.compare_attribute("stride()", actual.stride(), expected.stride())
        if self.check_device:
            self.compare_attribute("device", actual.device, expected.device)
        if self.check_dtype:
            self.compare_attribute("dtype", actual.dtype, expected.dtype)
        with no_grad():  # (the differences are numbers to report, not part of a graph)
            actual, expected = actual.detach(), expected.detach()
            if actual.dtype != expected.dtype:
                common = dtypes.promote_types(actual.dtype, expected.dtype)
                actual, expected = actual.to(common), expected.to(common)
            self.compare_values(actual, expected)

    def compare_attribute(self, name, actual, expected):
        if actual != expected:
            self.fail(f"The values for attribute '{name}' do not match: {actual} != {expected}.")

    def compare_values(self, actual, expected):
        matches = isclose(actual, expected, rtol=self.rtol, atol=self.atol,
                          equal_nan=self.equal_nan)
        if bool(matches.all()):
            return
        if actual.dim() == 0:
            self.fail(scalar_mismatch_text(actual.item(), expected.item(), self.rtol, self.atol))
        self.fail(tensor_mismatch_text(actual, expected, matches, self.rtol, self.atol))


PAIR_KINDS = (NonePair, BooleanPair, NumberPair, TensorLikePair)
# Objects dataclasses.is_dataclass would call dataclasses without being instances of one
# (a dataclass itself is a type), or that torch never asks about.
NOT_DATACLASS_INSTANCES = (type, Tensor, types.UnionType, types.GenericAlias, np.ndarray,
                           np.generic)


def class_text(value):
    """``<class 'torch.Tensor'>``: the class of ``value`` as ``str(type(...))`` prints it,
    an engine class under torch's name for it (the message is torch's)."""
    kind = type(value)
    if kind.__module__ != "engine" and not kind.__module__.startswith("engine."):
        return str(kind)
    return f"<class 'torch{kind.__module__[len('engine'):]}.{kind.__qualname__}'>"


def is_sequence(value):
    return isinstance(value, collections.abc.Sequence) and not isinstance(value, str)


def is_dataclass_instance(value):
    return not isinstance(value, NOT_DATACLASS_INSTANCES) and dataclasses.is_dataclass(value)


def pairs_of(actual, expected, options, path=()):
    """The leaves' pairs, in the order they will be compared (step 1 of the module's rules)."""
    if is_sequence(actual) and is_sequence(expected):
        if len(actual) != len(expected):
            raise Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} "
                          f"!= {len(expected)}", path)
        return [pair for index in range(len(actual))
                for pair in pairs_of(actual[index], expected[index], options, (*path, index))]
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        return _pairs_of_mappings(actual, expected, options, path)
    if is_dataclass_instance(actual) and is_dataclass_instance(expected) and \
            type(actual) is type(expected):
        return _pairs_of_dataclasses(actual, expected, options, path)
    for kind in PAIR_KINDS:
        try:
            return [kind(actual, expected, path, options)]
        except NotThisKind:
            continue
        except Failure:
            raise
        except Exception as error:
            raise RuntimeError(
                f"Originating a {kind.__name__}() at item {item_path(path)} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\nand\n\n"
                f"{type(expected).__name__}(): {expected}\n\n{UNEXPECTED}") from error
    raise Failure(TypeError, f"No comparison pair was able to handle inputs of type "
                  f"{class_text(actual)} and {class_text(expected)}.", path)


def _pairs_of_mappings(actual, expected, options, path):
    actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
    if actual_keys != expected_keys:
        raise Failure(AssertionError, "The keys of the mappings do not match:\n"
                      f"Missing keys in the actual mapping: "
                      f"{sorted(expected_keys - actual_keys)}\n"
                      f"Additional keys in the actual mapping: "
                      f"{sorted(actual_keys - expected_keys)}", path)
    keys = actual_keys
    try:  # sorted, so that the first failure reported does not depend on the order
        keys = sorted(keys)
    except Exception:  # noqa: BLE001 - keys that do not sort stay in the set's order
        pass
    return [pair for key in keys
            for pair in pairs_of(actual[key], expected[key], options, (*path, key))]


def _pairs_of_dataclasses(actual, expected, options, path):
    """Their own ``==`` when it answers a bool; else field by field (a tensor field makes
    ``==`` raise, or return a tensor)."""
    try:
        equal = actual == expected
    except RuntimeError as error:
        if "Boolean value of Tensor" not in str(error):
            raise
    else:
        if type(equal) is bool:
            return [ObjectPair(actual, expected, path, options)]
    return [pair for field in dataclasses.fields(actual) if field.compare
            for pair in pairs_of(getattr(actual, field.name), getattr(expected, field.name),
                                 options, (*path, field.name))]


# ---------------------------------------------------------------- the functions
def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raises ``AssertionError`` unless ``actual`` and ``expected`` are close: tensors (or
    numpy arrays, numbers, and lists, tuples and dicts of them) of the same shape and dtype
    whose values differ by at most ``atol + rtol * |expected|`` elementwise. The tolerances
    default to the dtype's (float32: rtol 1.3e-6, atol 1e-5; integers and bools: exact).
    ``msg``: a string to say instead, or a function that edits the message."""
    __tracebackhide__ = True  # (pytest shows the learner's line, not this function's)
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol,
                   equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                   check_layout=check_layout, check_stride=check_stride)
    try:
        pairs = pairs_of(actual, expected, options)
    except Failure as failure:
        raise failure.error() from None
    failures = []
    for pair in pairs:
        try:
            pair.compare()
        except Failure as failure:
            failures.append(failure)
        except Exception as error:
            raise RuntimeError(f"Comparing\n\n{pair!r}\n\n{UNEXPECTED}") from error
    if failures:
        raise failures[0].error(msg)


def deprecated(message):
    """Warns ``message`` (a FutureWarning) at each call, before the call's arguments are
    even bound, as torch's ``typing_extensions.deprecated`` does."""
    def decorate(function):
        @functools.wraps(function)
        def warn_then_call(*args, **kwargs):
            warnings.warn(message, FutureWarning, stacklevel=2)
            return function(*args, **kwargs)
        return warn_then_call
    return decorate


@deprecated(ASSERT_ALLCLOSE_DEPRECATED)
def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since torch 1.12: ``assert_close`` with looser default tolerances, any
    dtypes, nan equal to nan, and non-tensors made tensors (``expected`` of ``actual``'s
    dtype)."""
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected,
                                        dtype_precisions=ALLCLOSE_TOLERANCES)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
