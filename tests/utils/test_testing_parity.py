"""``engine.testing`` against ``torch.testing`` 2.15: ``assert_close`` passes where torch's
passes and fails where it fails, with the same error class and the same message character for
character (what differs, where, by how much); ``assert_allclose`` (deprecated) too, warning
and all; ``make_tensor`` gives torch's values, bit for bit, for a seed.

Each case is code run once with ``m = torch`` and once with ``m = engine``; its outcome is the
error it raised (class, message, the class of its cause) and the warnings it gave.
"""
import collections
import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


@dataclasses.dataclass
class Point:
    x: object
    y: object = 1


@dataclasses.dataclass(eq=False)
class Identity:  # (compared by identity: two instances are never equal)
    x: object


@dataclasses.dataclass
class Tagged:
    x: object
    tag: object = dataclasses.field(default=0, compare=False)


@dataclasses.dataclass(eq=False)
class Elementwise:  # (its == answers with whatever its field's == gives: a tensor)
    x: object

    def __eq__(self, other):
        return self.x == other.x


NAMES = {"np": np, "collections": collections, "Point": Point, "Identity": Identity,
         "Tagged": Tagged, "Elementwise": Elementwise}


def outcome(m, code):
    """What ``code`` does with ``m``: None or the error (class, message, its cause's class),
    and the warnings (class, message, the file they point at)."""
    scope = {"m": m, "close": m.testing.assert_close, **NAMES}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, scope)  # noqa: S102 - the same code for both libraries
            raised = None
        except Exception as error:  # noqa: BLE001 - comparing what each library raises
            cause = error.__cause__
            raised = (type(error).__name__, str(error), cause and type(cause).__name__)
        finally:
            m.set_default_dtype(m.float32)
    return raised, [(w.category.__name__, str(w.message), w.filename) for w in caught]


def assert_same_outcome(code):
    expected, got = outcome(torch, code), outcome(engine, code)
    assert got == expected, f"\n{code}\ntorch:  {expected}\nengine: {got}"
    return expected


# ------------------------------------------------------------------ assert_close
PASSING = {
    "equal float32": "close(m.tensor([1., 2., 3.]), m.tensor([1., 2., 3.]))",
    "within float32's tolerance": "close(m.tensor([1., 2., 3.]) + 1e-6, m.tensor([1., 2., 3.]))",
    "float16 within its tolerance": "close(m.tensor([1., 2.], dtype=m.float16), "
                                    "m.tensor([1., 2.002], dtype=m.float16))",
    "-0.0 and 0.0": "close(m.tensor([-0.0, 0.0]), m.tensor([0.0, -0.0]))",
    "inf and inf": "close(m.tensor([1., float('inf')]), m.tensor([1., float('inf')]))",
    "nan, equal_nan": "close(m.tensor([1., float('nan')]), m.tensor([1., float('nan')]), "
                      "equal_nan=True)",
    "empty": "close(m.zeros(0), m.zeros(0)); close(m.zeros(2, 0), m.zeros(2, 0))",
    "0-d": "close(m.tensor(3), m.tensor(3)); close(m.tensor(True), m.tensor(True))",
    "requires_grad is not compared": "close(m.tensor([1., 2.], requires_grad=True) * 1, "
                                     "m.tensor([1., 2.]))",
    "strides not compared by default": "close(m.zeros(2, 3), m.zeros(3, 2).t())",
    "a view with an offset, check_stride": "close(m.zeros(3)[1:], m.zeros(2), check_stride=True)",
    "dtypes promoted, check_dtype=False": "close(m.tensor([1, 2]), m.tensor([1., 2.]), "
                                          "check_dtype=False)",
    "float16 against float32, check_dtype=False":
        "close(m.tensor([1., 2.001]).half(), m.tensor([1., 2.]), check_dtype=False)",
    "a Parameter and a tensor": "close(m.nn.Parameter(m.tensor([1., 2.])), m.tensor([1., 2.]))",
    "tolerances given": "close(m.tensor([1., 2.]), m.tensor([1., 3.]), rtol=0.5, atol=0)",
    "integers with tolerances": "close(m.tensor([1, 2], dtype=m.uint8), "
                                "m.tensor([2, 1], dtype=m.uint8), rtol=0, atol=1)",
    "numbers": "close(1, 1); close(2.0, 2.0 + 1e-9); close(1 + 2j, 1 + 2j); "
               "close(float('inf'), float('inf'))",
    "number types, check_dtype=False": "close(1.0, 1, check_dtype=False)",
    "nan numbers, equal_nan": "close(float('nan'), float('nan'), equal_nan=True)",
    "bools and None": "close(True, True); close(np.bool_(False), False); close(None, None)",
    "numpy scalars": "close(np.float64(0.1), 0.1); close(np.int64(3), 3); "
                     "close(np.float32(0.1), np.float64(0.1)); close(1e-9, 0.0)",
    "numpy arrays": "close(np.array([1., 2.]), np.arccos(np.cos(np.array([1., 2.]))))",
    "sequences of other types": "close([m.tensor([1.]), 2.0, np.array(3.0)], "
                                "(m.tensor([1.]), 2.0, np.array(3.0)))",
    "mappings in another order": "close(collections.OrderedDict(a=1, b=m.tensor(2.)), "
                                 "{'b': m.tensor(2.), 'a': 1})",
    "torch.Size and tuple": "close(m.Size([2, 3]), (2, 3))",
    "dataclasses": "close(Point(1, 2), Point(1, 2)); "
                   "close(Point(m.tensor([1., 2.]), 2), Point(m.tensor([1., 2.]), 2))",
    "a dataclass field not compared": "close(Tagged(m.tensor([1., 2.]), 5), "
                                      "Tagged(m.tensor([1., 2.]), 6))",
    "a msg when nothing fails": "close(m.tensor([1.]), m.tensor([1.]), msg='unused')",
    "None against None with one tolerance": "close(None, None, rtol=1)",
    "integers beyond float32, within atol in float32": "close(m.tensor([2**40 + 1, 3]), "
                                                       "m.tensor([2**40, 3]), rtol=0, atol=0.5)",
}

MISMATCHES = {
    "the brief's example": "close(m.tensor([1., 2.1, 3.]), m.tensor([1., 2., 3.]))",
    "float32, n-d index": "close(m.zeros(2, 3, 4), m.zeros(2, 3, 4).index_fill(2, "
                          "m.tensor([3]), 1.))",
    "float64": "close(m.tensor([1., 2.], dtype=m.float64), m.tensor([1., 2.000001], "
               "dtype=m.float64))",
    "float16: differences in float16": "close(m.tensor([1.5, 2.], dtype=m.float16), "
                                       "m.tensor([1., 2.004], dtype=m.float16))",
    "float16 near its largest": "close(m.tensor([60000., 2.], dtype=m.float16), "
                                "m.tensor([-60000., 2.], dtype=m.float16))",
    "int64: not equal": "close(m.tensor([1, 2, 3]), m.tensor([1, 5, 3]))",
    "int64 against zeros": "close(m.tensor([3, 0, -2]), m.tensor([0, 0, 0]))",
    "int64 extremes": "close(m.tensor([-2**63]), m.tensor([2**63 - 1]))",
    "uint8 without wrap-around": "close(m.tensor([1, 2, 3], dtype=m.uint8), "
                                 "m.tensor([1, 255, 0], dtype=m.uint8))",
    "int8": "close(m.tensor([0, 0, 1], dtype=m.int8), m.tensor([0, 5, 0], dtype=m.int8))",
    "int16": "close(m.tensor([7, -300], dtype=m.int16), m.tensor([7, 300], dtype=m.int16))",
    "int32": "close(m.tensor([[1, 2], [3, 4]], dtype=m.int32), "
             "m.tensor([[1, 2], [3, -4]], dtype=m.int32))",
    "bool": "close(m.tensor([True, False]), m.tensor([False, True]))",
    "0-d float: Scalars": "close(m.tensor(1.5), m.tensor(1.))",
    "0-d float16": "close(m.tensor(1.5, dtype=m.float16), m.tensor(1., dtype=m.float16))",
    "0-d int: Scalars are not equal": "close(m.tensor(3), m.tensor(0))",
    "0-d bool": "close(m.tensor(False), m.tensor(True))",
    "0-d nan": "close(m.tensor(float('nan')), m.tensor(float('nan')))",
    "nan without equal_nan": "close(m.tensor([1., float('nan'), 3., float('nan')]), "
                             "m.tensor([1., float('nan'), 4., 5.]))",
    "nan with equal_nan": "close(m.tensor([1., float('nan'), 3., float('nan')]), "
                          "m.tensor([1., float('nan'), 4., 5.]), equal_nan=True)",
    "nan in 2-d": "close(m.tensor([[float('nan'), 1.], [2., float('nan')]]), "
                  "m.tensor([[1., float('nan')], [2., 3.]]))",
    "inf against a number": "close(m.tensor([1., float('inf'), 3.]), m.tensor([1., 2., 3.]))",
    "a number against inf": "close(m.tensor([1., 2., 3.]), m.tensor([1., float('inf'), 3.]))",
    "inf against -inf": "close(m.tensor([float('inf'), float('-inf')]), "
                        "m.tensor([float('-inf'), float('inf')]))",
    "zero expected: infinite relative difference": "close(m.tensor([0., 1.]), m.tensor([0., 0.]))",
    "tiny values, no tolerance": "close(m.tensor([1e-30, 0.]), m.tensor([0., 1e-30]), rtol=0, "
                                 "atol=0)",
    "tolerances 0.0: equal": "close(m.tensor([1., 2.]), m.tensor([1., 3.]), rtol=0.0, atol=0.0)",
    "tolerances given, integers": "close(m.tensor([1, 2]), m.tensor([1, 4]), rtol=0.1, atol=1)",
    "tolerances given, bools": "close(m.tensor([True, False]), m.tensor([False, False]), "
                               "rtol=0.1, atol=0.5)",
    "integers, float64 default dtype": "m.set_default_dtype(m.float64); "
                                       "close(m.tensor([1, 2, 3]), m.tensor([1, 5, 7]))",
    "shapes": "close(m.zeros(2, 3), m.zeros(3, 2))",
    "empty shapes": "close(m.zeros(2, 0), m.zeros(0, 2))",
    "dtypes": "close(m.tensor([1., 2., 3.]), m.tensor([1., 2., 3.], dtype=m.float64))",
    "integer dtypes": "close(m.tensor([1, 2], dtype=m.int16), m.tensor([1, 2], dtype=m.int32))",
    "strides": "close(m.zeros(2, 3), m.zeros(3, 2).t(), check_stride=True)",
    "strides of a step": "close(m.zeros(3)[::2], m.zeros(2), check_stride=True)",
    "strides, channels-last": "close(m.zeros(1, 3, 2, 2).to(memory_format=m.channels_last), "
                              "m.zeros(1, 3, 2, 2), check_stride=True)",
    "strides, expanded": "close(m.zeros(2, 2).expand(3, 2, 2), m.zeros(3, 2, 2), "
                         "check_stride=True)",
    "values of a permuted tensor": "close(m.zeros(2, 3, 4).permute(2, 0, 1), m.ones(4, 2, 3))",
    "float32 against float64, promoted": "close(m.tensor([1., 2.5, 3.]), "
                                         "m.tensor([1., 2., 3.], dtype=m.float64), "
                                         "check_dtype=False)",
    "bool against float, promoted": "close(m.tensor([True, False]), m.tensor([1., 0.5]), "
                                    "check_dtype=False)",
    "a Parameter": "close(m.nn.Parameter(m.tensor([1., 2.])), m.tensor([1., 2.5]))",
    "numbers: int": "close(1, 2)",
    "numbers: float": "close(1.0, 1.1)",
    "numbers: zero expected": "close(1e-6, 0.0)",
    "numbers: equality (torch's docstring)": "close(1e-9, 1e-10, rtol=0, atol=0)",
    "numbers: nan": "close(float('nan'), float('nan'))",
    "numbers: inf": "close(float('inf'), 1.0)",
    "numbers: an infinite difference is never close": "close(float('inf'), 1.0, "
                                                      "rtol=float('inf'), atol=0.)",
    "numbers: complex": "close(1 + 2j, 1 + 3j)",
    "numbers: float and int": "close(1.0, 1)",
    "numbers: float and int, check_dtype=False": "close(1.0, 1.5, check_dtype=False)",
    "numbers: numpy float32": "close(np.float32(0.1), 0.1, rtol=0, atol=0)",
    "numbers: numpy float16": "close(np.float16(1), np.float16(1.001))",
    "numbers: negative tolerance": "close(1., 2., rtol=-1., atol=0.)",
    "bools": "close(True, False)",
    "numpy bool": "close(np.bool_(True), False)",
    "None": "close(None, 1)",
    "numpy arrays": "close(np.array([1., 2.]), np.array([1., 2.5]))",
    "numpy arrays of two dtypes": "close(np.array([1., 2.], dtype=np.float32), "
                                  "np.array([1., 2.5]))",
    "numpy 0-d arrays": "close(np.array(3.0), np.array(3.5))",
    "numpy float16 0-d arrays": "close(np.array(1, dtype=np.float16), "
                                "np.array(1.01, dtype=np.float16))",
    "numpy bool arrays": "close(np.array([True]), np.array([False]))",
    "numpy strides": "close(np.ones((2, 3)).T, np.ones((3, 2)), check_stride=True)",
}

MESSAGES = {
    "msg, a string": "close(m.tensor([1., 2.]), m.tensor([1., 3.]), msg='Argh!')",
    "msg, empty": "close(m.tensor([1., 2.]), m.tensor([1., 3.]), msg='')",
    "msg, a callable": "close(m.tensor([1., 2., 3.]), m.tensor([1., 4., 5.]), "
                       "msg=lambda msg: f'Header\\n\\n{msg}\\n\\nFooter')",
    "msg, a callable, nested": "close([1, [2, {'k': 3}]], [1, [2, {'k': 4}]], "
                               "msg=lambda s: '<' + s + '>')",
    "msg, a string, nested: no item path": "close([m.tensor([1.])], [m.tensor([2.])], "
                                           "msg='plain')",
    "msg, neither string nor callable": "close(m.tensor([1., 2.]), m.tensor([1., 3.]), msg=5)",
    "msg, a callable for numbers": "close(1, 2, msg=lambda s: s.upper())",
    "msg is not used for the structure": "close([1, [2, {'k': 3}]], [1, [2, {'j': 4}]], "
                                         "msg='ignored')",
    "sequence lengths": "close([1, 2], [1, 2, 3])",
    "nested sequences": "close([1, [2, 3]], [1, [2, 4]])",
    "a tensor in nested lists": "close([1, [2, m.tensor([3., 4.])]], "
                                "[1, [2, m.tensor([3., 5.])]])",
    "mapping keys": "close({'a': 1, 'b': 2}, {'a': 1, 'c': 2})",
    "a tensor in a mapping": "close({'a': 1, 'b': m.tensor([1., 2.])}, "
                             "{'a': 1, 'b': m.tensor([1., 2.5])})",
    "the first key in sorted order": "close(dict.fromkeys('zyxwvutsrqponmlkjihgfedcba', 1), "
                                     "dict.fromkeys('zyxwvutsrqponmlkjihgfedcba', 2))",
    "keys that do not sort": "close({'a': 1, 2: 2}, {'a': 1, 2: 3})",
    "lists in a mapping": "close({'x': [m.tensor(1.), m.tensor([2.])]}, "
                          "{'x': [m.tensor(1.5), m.tensor([2.])]})",
    "the first of two failures": "close([m.tensor([1., 2.]), m.tensor(1)], "
                                 "[m.tensor([1., 3.]), m.tensor(2)])",
    "a structure error before any value": "close([m.tensor([1., 2.]), 's'], "
                                          "[m.tensor([1., 3.]), 's'])",
    "a named tuple and a tuple": "close(collections.namedtuple('N', 'a b')(1, 2), (1, 3))",
    "bytes are sequences": "close(b'ab', b'ac')",
    "mixed number types in a list": "close([True, 2], [True, 2.0])",
    "dataclass with ==": "close(Point(1, 2), Point(1, 3))",
    "dataclass with a 0-d tensor": "close(Point(m.tensor(1.), 2), Point(m.tensor(1.5), 2))",
    "dataclass, field by field": "close(Point(m.tensor([1., 2.]), 2), "
                                 "Point(m.tensor([1., 2.5]), 2))",
    "dataclass whose == gives a tensor": "close(Elementwise(m.tensor([1., 2.])), "
                                         "Elementwise(m.tensor([1., 2.5])))",
    "dataclass without ==": "close(Identity(1), Identity(1))",
    "dataclass field not compared": "close(Tagged(m.tensor([1., 2.]), 5), "
                                    "Tagged(m.tensor([1., 2.5]), 6))",
}

MISTAKES = {
    "tolerances by position": "close(m.tensor([1., 2.]), m.tensor([1., 3.]), 1e-3, 1e-3)",
    "expected missing": "close(m.tensor([1., 2.]))",
    "an unknown keyword": "close(m.tensor([1., 2.]), m.tensor([1., 3.]), tol=1)",
    "rtol without atol": "close(m.tensor([1., 2.]), m.tensor([1., 3.]), rtol=1e-3)",
    "atol without rtol": "close(m.tensor([1., 2.]), m.tensor([1., 3.]), atol=1e-3)",
    "rtol with atol=None": "close(m.tensor([1., 2.]), m.tensor([1., 2.]), rtol=1e-3, atol=None)",
    "one tolerance, numbers in a list": "close([1., m.tensor(1.)], [1., m.tensor(1.)], atol=1)",
    "a negative rtol": "close(m.tensor([1., 2.], requires_grad=True), m.tensor([1., 2.]), "
                       "rtol=-1., atol=0.)",
    "a negative atol, 0-d": "close(m.tensor(1.), m.tensor(1.), rtol=0, atol=-1)",
    "a tolerance of the wrong type": "close([m.tensor(1.), m.tensor(1.)], "
                                     "[m.tensor(2.), m.tensor(1.)], rtol=[1], atol=0.)",
    "number tolerances of the wrong type": "close(1., 2., rtol='a', atol='b')",
    "bool against int": "close(True, 1)",
    "int against bool": "close(1, True)",
    "a tensor and a number": "close(m.tensor(1.), 1.)",
    "a number and a tensor": "close(1., m.tensor(1.))",
    "a tensor and a list": "close(m.tensor([1., 2.]), [1., 2.])",
    "a numpy array and a tensor": "close(m.tensor([1., 2.]).numpy(), m.tensor([1., 2.]))",
    "a Parameter, allow_subclasses=False": "close(m.nn.Parameter(m.tensor([1., 2.])), "
                                           "m.tensor([1., 2.]), allow_subclasses=False)",
    "a tensor and None": "close(m.tensor(1.), None)",
    "strings": "close('a', 'a')",
    "sets": "close({1, 2}, {1, 2})",
    "dtypes": "close(m.float32, m.float32)",
    "devices": "close(m.device('cpu'), m.device('cpu'))",
    "classes": "close(Point, Point)",
    "two dataclasses": "close(Point(1), Identity(1))",
    "numpy arrays of strings": "close(np.array(['a']), np.array(['a']))",
    "numpy arrays with negative strides": "close(np.array([1., 2.])[::-1], "
                                          "np.array([1., 2.])[::-1])",
}


def _cases(*tables):
    return [pytest.param(code, id=name) for table in tables for name, code in table.items()]


@pytest.mark.parametrize("code", _cases(PASSING))
def test_what_torch_lets_pass_passes(code):
    assert assert_same_outcome(code) == (None, [])


@pytest.mark.parametrize("code", _cases(MISMATCHES, MESSAGES))
def test_a_mismatch_says_what_torch_says(code):
    raised, _ = assert_same_outcome(code)
    assert raised is not None and raised[0] in ("AssertionError", "TypeError")


@pytest.mark.parametrize("code", _cases(MISTAKES))
def test_a_mistake_is_torchs_error(code):
    raised, _ = assert_same_outcome(code)
    assert raised is not None


def test_the_message_a_learner_reads_character_for_character():
    """The text written out (torch 2.15's, its docstring's example among them): the comparison
    with torch above could pass with both wrong only if torch changed."""
    expected = engine.tensor([1., 2., 3.])
    texts = []
    for actual in (engine.tensor([1., 2.1, 3.]), engine.tensor([1., 4., 5.])):
        with pytest.raises(AssertionError) as caught:
            engine.testing.assert_close(actual, expected)
        texts.append(str(caught.value))
    assert texts == [
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.09999990463256836 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.04999995231628418 at index (1,) (up to 1.3e-06 allowed)",
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_mismatches_are_reported_as_torch_reports_them(seed):
    """Seeded random tensors of every dtype and a few shapes, some elements changed (by an ulp,
    a little, a lot, to nan, inf or a zero of either sign), compared with default or given
    tolerances, equal_nan, or against another dtype: the same verdict and message."""
    rng = np.random.default_rng(seed)
    for trial in range(700):
        actual, expected, options = _random_case(rng, trial)
        results = []
        for m in (torch, engine):
            try:
                m.testing.assert_close(m.from_numpy(actual.copy()), m.from_numpy(expected.copy()),
                                       **options)
                results.append(None)
            except Exception as error:  # noqa: BLE001 - comparing what each library raises
                results.append((type(error).__name__, str(error)))
        assert results[1] == results[0], (actual, expected, options)


def _random_case(rng, trial):
    dtype = str(rng.choice(parity.DTYPES))
    shape = tuple(int(size) for size in rng.integers(1, 5, rng.integers(0, 4)))
    actual = parity.make_values(shape, dtype, seed=trial)
    expected = actual.copy()
    flat = expected.reshape(-1)
    changed = rng.choice(flat.size, rng.integers(0, flat.size + 1), replace=False)
    if dtype == "bool":
        flat[changed] = ~flat[changed]
    elif dtype.startswith("float"):
        kind = rng.integers(0, 5)
        with np.errstate(all="ignore"):
            flat[changed] = [
                lambda x: x * (1 + rng.uniform(-1e-3, 1e-3, x.size)),
                lambda x: np.nextafter(x, np.inf),
                lambda x: rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0], x.size),
                lambda x: x + rng.standard_normal(x.size),
                lambda x: x * 2][kind](flat[changed]).astype(dtype)
    else:
        flat[changed] = (flat[changed].astype(np.int64) + rng.integers(-3, 4, changed.size)) \
            .astype(dtype)
    options = [{}, {"equal_nan": True}, {"check_dtype": False},
               {"rtol": float(rng.choice([0, 1e-3, 0.1, 1])),
                "atol": float(rng.choice([0, 1e-5, 1, 2]))}][rng.integers(0, 4)]
    if "check_dtype" in options:
        with np.errstate(all="ignore"):
            expected = expected.astype(str(rng.choice(parity.DTYPES)))
    return (actual, expected, options) if rng.integers(0, 2) else (expected, actual, options)


# ------------------------------------------------------------------ assert_allclose
ALLCLOSE = {
    "looser float32 tolerance": "m.testing.assert_allclose(m.tensor([1., 2.]), "
                                "m.tensor([1., 2.00001]))",
    "a mismatch": "m.testing.assert_allclose(m.tensor([1., 2.]), m.tensor([1., 2.1]))",
    "lists": "m.testing.assert_allclose([1., 2.], [1., 2.1])",
    "expected made of actual's dtype": "m.testing.assert_allclose(m.tensor([1., 2.], "
                                       "dtype=m.float16), [1, 2.002])",
    "nan equals nan": "m.testing.assert_allclose(m.tensor([1., float('nan')]), "
                      "m.tensor([1., float('nan')]))",
    "dtypes not checked": "m.testing.assert_allclose(m.tensor([1, 2]), m.tensor([1., 2.1]))",
    "msg": "m.testing.assert_allclose(m.tensor([1., 2.]), m.tensor([1., 2.1]), msg='mine')",
    "one tolerance": "m.testing.assert_allclose(m.tensor([1., 2.]), m.tensor([1., 2.1]), "
                     "rtol=0.1)",
    "numbers": "m.testing.assert_allclose(1, 2)",
    "too many arguments: the warning first": "m.testing.assert_allclose(m.tensor([1.]), "
                                             "m.tensor([1.]), 1e-3, 1e-3, True, 'x', 5)",
}


@pytest.mark.parametrize("code", _cases(ALLCLOSE))
def test_assert_allclose_warns_and_compares_as_torchs(code):
    _, warned = assert_same_outcome(code)
    assert [category for category, _, _ in warned] == ["FutureWarning"]
    assert warned[0][2] == "<string>"  # (it points at the caller's line)


# ------------------------------------------------------------------ make_tensor
MAKE_TENSOR = [
    "(3, 4), dtype=m.float32", "3, 4, dtype=m.float64", "[2, 5], dtype=m.float16",
    "m.Size([2, 5]), dtype=m.float16", "(), dtype=m.float32", "dtype=m.int64",
    "0, dtype=m.float32", "5, 0, dtype=m.int64",
    *[f"(40,), dtype=m.{dtype}" for dtype in parity.DTYPES],
    "(40,), dtype=m.int64, low=-2**63, high=2**63 - 1",
    "(40,), dtype=m.int32, low=-1e12, high=1e12", "(40,), dtype=m.uint8, low=-5.5, high=3.2",
    "(40,), dtype=m.int8, low=2.5", "(40,), dtype=m.float32, low=-1e39, high=1e39",
    "(40,), dtype=m.float16, low=-1e5, high=1e5", "(40,), dtype=m.float64, low=-1e308, high=1e308",
    "(40,), dtype=m.float64, low=0, high=1e-300", "(40,), dtype=m.float32, low=-1, high=1",
    "(40,), dtype=m.float32, low=3, high=3",
    "(3, 4), dtype=m.float32, noncontiguous=True", "(3, 4), dtype=m.int64, noncontiguous=True",
    "(1,), dtype=m.float32, noncontiguous=True",
    "(2, 2, 3), dtype=m.float32, noncontiguous=True, requires_grad=True",
    "(2, 3, 4, 5), dtype=m.float32, memory_format=m.channels_last",
    "(50,), dtype=m.int8, low=-1, high=2, exclude_zero=True",
    "(50,), dtype=m.bool, exclude_zero=True",
    "(50,), dtype=m.float16, low=0, high=1e-3, exclude_zero=True",
    "(50,), dtype=m.float32, low=0, high=0, exclude_zero=True",
    "(50,), dtype=m.float32, requires_grad=True",
]
MAKE_TENSOR_ERRORS = [
    "(40,), dtype=m.int8, low=200", "(40,), dtype=m.uint8, high=-1",
    "(40,), dtype=m.int8, low=3, high=3", "(40,), dtype=m.float32, low=3, high=2",
    "(40,), dtype=m.float32, low=float('nan')", "(40,), dtype=m.float16, low=1e5",
    "(2, 3, 4, 5), dtype=m.float32, memory_format=m.channels_last, noncontiguous=True",
    "(2, 3), dtype=m.float32, memory_format=m.channels_last",
    "(50,), dtype=m.int32, requires_grad=True", "(50,), dtype=m.bool, requires_grad=True",
    "(5,), dtype=float", "(5,), dtype='float32'", "(5,), dtype=m.float32, foo=1",
]


def _made(m, arguments, seed):
    """make_tensor's result and the generator's next draws, or the error and warnings."""
    m.manual_seed(seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            made = eval(f"m.testing.make_tensor({arguments}, device='cpu')", {"m": m})  # noqa: S307
            return made, m.rand(3), [(str(w.message), w.filename) for w in caught]
        except Exception as error:  # noqa: BLE001 - comparing what each library raises
            return type(error).__name__, str(error), None


@pytest.mark.parametrize("seed", [0, 123])
@pytest.mark.parametrize("arguments", MAKE_TENSOR)
def test_make_tensor_gives_torchs_values_for_a_seed(arguments, seed):
    expected, got = _made(torch, arguments, seed), _made(engine, arguments, seed)
    parity.assert_same(got[0], expected[0])  # (values bit for bit, strides, requires_grad)
    parity.assert_same(got[1], expected[1])  # the generator is left where torch's is
    assert got[2] == expected[2]


@pytest.mark.parametrize("arguments", MAKE_TENSOR_ERRORS)
def test_make_tensor_refuses_as_torch_does(arguments):
    expected, got = _made(torch, arguments, 0), _made(engine, arguments, 0)
    assert isinstance(expected[0], str) and got == expected


def test_make_tensor_without_a_device_or_dtype():
    for arguments in ("(5,), dtype=m.float32", "(5,), device='cpu'"):
        code = f"m.testing.make_tensor({arguments})"
        assert assert_same_outcome(code)[0][0] == "TypeError"


def test_make_tensor_of_random_shapes_and_ranges():
    rng = np.random.default_rng(5)
    for trial in range(150):
        dtype = str(rng.choice(parity.DTYPES))
        shape = tuple(int(size) for size in rng.integers(0, 6, rng.integers(0, 4)))
        low = float(rng.uniform(-100, 0)) if rng.integers(0, 2) else None
        arguments = (f"{shape}, dtype=m.{dtype}, low={low}, "
                     f"noncontiguous={bool(rng.integers(0, 2))}, "
                     f"exclude_zero={bool(rng.integers(0, 2))}")
        expected, got = _made(torch, arguments, trial), _made(engine, arguments, trial)
        if isinstance(expected[0], str):
            assert got == expected, arguments
        else:
            parity.assert_same(got[0], expected[0])
            parity.assert_same(got[1], expected[1])


# ------------------------------------------------------------------ the module
def test_what_the_engine_leaves_out_of_torch_testing_is_a_listed_difference():
    """torch.testing's public names are the engine's, but for FileCheck (TorchScript's),
    which is missing as any absent name is and listed in notebooks/DIFFERENCES.md."""
    public = {name for name in dir(torch.testing) if not name.startswith("_")}
    missing = {name for name in public if not hasattr(engine.testing, name)}
    assert missing == {"FileCheck"}
    with pytest.raises(AttributeError, match="has no attribute 'FileCheck'"):
        engine.testing.FileCheck  # noqa: B018
    differences = (Path(__file__).resolve().parents[2] / "notebooks" / "DIFFERENCES.md") \
        .read_text(encoding="utf-8")
    assert "`torch.testing.FileCheck`" in differences


def test_import_statements_find_engine_testing():
    """``sys.modules["torch"] = engine``: a tutorial's ``from torch.testing import ...``."""
    code = ("import torch\nimport torch.testing\n"
            "from torch.testing import assert_close, make_tensor\n"
            "print(assert_close is torch.testing.assert_close, torch.testing.__name__[-8:])\n"
            "torch.manual_seed(0)\n"
            "x = make_tensor(2, 3, dtype=torch.float32, device='cpu')\n"
            "print(x)\n"
            "try:\n"
            "    assert_close(x, x + 1e-3)\n"
            "except AssertionError as error:\n"
            "    print(error)\n")
    with_torch, with_engine = parity.printed_in_fresh_interpreters(code)
    assert with_engine == with_torch
    assert with_torch.startswith("True .testing\ntensor(")
