"""Shared helpers for the parity tests: run the same code with the engine and with torch.

The engine promises that ``import engine as torch`` behaves exactly like torch 2.15, so
a parity test runs one function twice, once with each module, and compares everything
a learner could observe::

    import parity
    torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

    def test_add():
        x = parity.make_tensor((2, 3), "float32")      # an engine tensor
        parity.run_both(lambda m, x: m.add(x, 2), x)   # m is engine, then torch

Interface (kept stable: every parity test module uses it)

``assert_same(engine_result, torch_result, *, exact=True, rtol=None, atol=None,
check_repr=None, check_layout=True)``
    Compares the kind of object (tensor, tuple, named tuple such as
    ``torch.return_types.max``, ``torch.Size``, dtype, Python scalar), then for tensors:
    dtype by name, shape, strides and storage offset (``check_layout``), nan positions,
    values, and ``repr`` character for character.
    ``exact=True`` (the default, right for integers, bools and elementwise ops) wants
    identical values, including the sign of zero. ``exact=False`` is for reductions and
    matrix products, where numpy adds in another order than torch and the last bits
    legitimately differ: values must then be within ``rtol``/``atol`` (defaults are
    torch.testing's per dtype, see TOLERANCES) and repr is compared only when the
    values happen to be identical (``check_repr=None``; pass True/False to force).

``run_both(fn, *args, exact=True, rtol=None, atol=None, match=None, check_repr=None,
check_layout=True, check_inputs=True, check_sharing=False, **kwargs)``
    Calls ``fn(engine, *engine_args)`` and ``fn(torch, *torch_args)``. Each tensor in
    ``args`` (engine or torch, also inside lists/tuples) is converted to both kinds;
    engine dtypes become torch dtypes; numpy arrays become a tensor of each kind; other
    values pass unchanged. ``kwargs`` are passed to ``fn`` the same way.
    If torch raises, the engine must raise the same exception type (torch's own
    subclasses such as ``torch.OutOfMemoryError`` count as their builtin base, and an engine
    subclass of that base with torch's class name, as ``torch.linalg.LinAlgError``) and its
    message must contain ``match`` or, by default, the first line of torch's message.
    Otherwise the results are compared with ``assert_same``; ``check_inputs`` also
    compares the inputs afterwards (catches in-place differences); ``check_sharing``
    checks that each result tensor shares storage with the same inputs in both.
    Returns ``(engine_result, torch_result)``, or the two exceptions.

``to_torch(engine_tensor)`` / ``to_engine(torch_tensor)``
    Copies with the same dtype, shape, strides (not storage offset) and
    ``requires_grad``; they never share memory with their source.

``make_values(shape, dtype, seed=0, *, nonzero=False, low=None, high=None)`` /
``make_tensor(...)``
    Seeded test values for a dtype name ("float32") or dtype: negatives, zeros,
    halves, non-integers and very large and very small magnitudes for floats; the whole
    range for small integer types. ``nonzero`` replaces zeros (for integer division).

``SHAPES``, ``BROADCAST_PAIRS``, ``DTYPES`` (names), ``INT_DTYPES``, ``FLOAT_DTYPES``.
"""
import math
import re
import warnings

import numpy as np

import engine

try:
    import torch
except ImportError:  # the learner's install: parity test modules skip themselves
    torch = None

TORCH_SKIP_REASON = "torch not installed: parity tests skipped"

SHAPES = [(), (1,), (3,), (2, 3), (3, 1), (1, 3), (2, 3, 4), (0,), (2, 0)]
BROADCAST_PAIRS = [
    ((), (3,)), ((3,), ()), ((2, 3), (3,)), ((3,), (2, 3)), ((3, 1), (1, 4)),
    ((2, 1, 4), (3, 1)), ((1,), (0,)), ((2, 0), (1,)), ((2, 3), (2, 3)),
]
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]
FLOAT_DTYPES = ["float16", "float32", "float64"]

# (rtol, atol) for exact=False, as torch.testing.assert_close uses them.
TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def dtype_name(d):
    """``"float32"`` for engine.float32, torch.float32, np.float32 or "float32"."""
    if isinstance(d, str):
        return d.split(".")[-1]
    if isinstance(d, engine.dtype) or (torch is not None and isinstance(d, torch.dtype)):
        return str(d).split(".")[-1]
    return np.dtype(d).name


# ---------------------------------------------------------------- values
def make_values(shape, dtype, seed=0, *, nonzero=False, low=None, high=None):
    """A seeded numpy array of ``shape`` with values that exercise ``dtype``."""
    name = dtype_name(dtype)
    np_dtype = np.dtype(name)
    rng = np.random.default_rng([seed, len(shape), *shape, DTYPES.index(name)])
    n = math.prod(shape)
    if name == "bool":
        values = rng.integers(0, 2, n).astype(bool)
        if nonzero:
            values[:] = True
    elif np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        lo = max(info.min, -100) if low is None else low
        hi = min(info.max, 100) if high is None else high
        if low is None and high is None and np_dtype.itemsize == 1:
            lo, hi = info.min, info.max  # the whole range: wrap-around is part of the test
        values = rng.integers(lo, hi, n, endpoint=True).astype(np_dtype)
        if n > 1 and low is None:
            values[0] = 0  # always one zero
        if nonzero:
            values[values == 0] = 1
    else:
        values = _float_values(rng, n, name, low, high)
        if nonzero:
            values[values == 0] = 1
    return values.reshape(shape)


def _float_values(rng, n, name, low, high):
    if low is not None or high is not None:
        lo = -10.0 if low is None else low
        hi = 10.0 if high is None else high
        return rng.uniform(lo, hi, n).astype(name)
    big, small = {"float16": (1e4, 1e-3), "float32": (1e30, 1e-30),
                  "float64": (1e200, 1e-200)}[name]
    kind = rng.integers(0, 6, n)
    values = np.where(kind == 0, rng.integers(-4, 5, n).astype(float),       # whole, zeros
             np.where(kind == 1, rng.integers(-4, 4, n) + 0.5,               # rounding ties
             np.where(kind == 2, rng.uniform(-big, big, n),                  # huge
             np.where(kind == 3, rng.uniform(-small, small, n),              # tiny
                      rng.standard_normal(n) * 3))))                         # ordinary
    values = values.astype(name)
    if n > 1:
        values[0] = 0.0
    if n > 2:
        values[1] = -1.5
    return values


def make_tensor(shape, dtype, seed=0, **kwargs):
    """An engine tensor with ``make_values``; pass it to ``run_both``."""
    return engine.from_numpy(make_values(shape, dtype, seed, **kwargs))


# ---------------------------------------------------------------- conversions
def _engine_dtype(d):
    return getattr(engine, dtype_name(d))


def _torch_dtype(d):
    return getattr(torch, dtype_name(d))


def to_torch(x):
    """A torch copy of an engine tensor: same dtype, shape, strides and requires_grad."""
    data = x.numpy(force=True)
    result = torch.empty_strided(tuple(x.shape), tuple(x.stride()), dtype=_torch_dtype(x.dtype))
    if data.size:
        # np.array, not np.ascontiguousarray, which turns a 0-d array into 1-d
        result.copy_(torch.from_numpy(np.array(data, order="C")))
    if x.requires_grad:
        result.requires_grad_(True)
    return result


def to_engine(x):
    """An engine copy of a torch tensor: same dtype, shape, strides and requires_grad."""
    flat = x.detach().contiguous().numpy().reshape(-1)
    itemsize = flat.itemsize
    extent = 1 + sum((n - 1) * s for n, s in zip(x.shape, x.stride())) if x.numel() else 0
    storage = np.zeros(extent, flat.dtype)
    array = np.lib.stride_tricks.as_strided(storage, tuple(x.shape),
                                            tuple(s * itemsize for s in x.stride()))
    if x.numel():
        array[...] = flat.reshape(tuple(x.shape))
    result = engine.from_numpy(array)
    if x.requires_grad:
        result.requires_grad_(True)
    return result


def _convert(value, to_kind):
    """``value`` with every tensor / dtype / numpy array made of kind "engine" or "torch"."""
    if isinstance(value, engine.Tensor):
        if to_kind == "engine":
            return to_engine(to_torch(value))  # a fresh copy: fn may write to it
        return to_torch(value)
    if torch is not None and isinstance(value, torch.Tensor):
        return to_engine(value) if to_kind == "engine" else to_torch(to_engine(value))
    if isinstance(value, np.ndarray):
        copy = value.copy()
        return engine.from_numpy(copy) if to_kind == "engine" else torch.from_numpy(copy)
    if isinstance(value, engine.dtype) or (torch is not None and isinstance(value, torch.dtype)):
        return _engine_dtype(value) if to_kind == "engine" else _torch_dtype(value)
    if isinstance(value, (list, tuple)) and not hasattr(type(value), "__match_args__"):
        return type(value)(_convert(v, to_kind) for v in value)
    if isinstance(value, dict):
        return {k: _convert(v, to_kind) for k, v in value.items()}
    return value


# ---------------------------------------------------------------- comparison
def _kind(value):
    """What sort of object a result is, named the same for the engine and torch."""
    if isinstance(value, engine.Tensor) or (torch is not None and isinstance(value, torch.Tensor)):
        return "tensor"
    if isinstance(value, engine.Size) or (torch is not None and isinstance(value, torch.Size)):
        return "Size"
    if isinstance(value, engine.dtype) or (torch is not None and isinstance(value, torch.dtype)):
        return "dtype"
    if isinstance(value, tuple) and hasattr(type(value), "__match_args__"):
        return "namedtuple"  # torch.return_types.max and the engine's namedtuple alike
    if isinstance(value, (tuple, list)):
        return type(value).__name__
    if value is None or isinstance(value, (bool, int, float, str, complex)):
        return type(value).__name__
    return "other:" + type(value).__name__


def _numpy_of(x):
    if isinstance(x, engine.Tensor):
        return x.numpy(force=True)
    return x.detach().numpy()


def _check_values(e, t, exact, rtol, atol, where):
    """Compares two numpy arrays of equal dtype and shape; returns True if bitwise equal."""
    if e.dtype.kind != "f":
        if not np.array_equal(e, t):
            raise AssertionError(f"{where}values differ:\nengine {e!r}\ntorch  {t!r}")
        return True
    e_nan, t_nan = np.isnan(e), np.isnan(t)
    if not np.array_equal(e_nan, t_nan):
        raise AssertionError(f"{where}nan positions differ:\nengine {e!r}\ntorch  {t!r}")
    identical = np.array_equal(e, t, equal_nan=True) and np.array_equal(
        np.signbit(e[~e_nan]), np.signbit(t[~t_nan]))
    if identical:
        return True
    if exact:
        raise AssertionError(f"{where}values differ (exact comparison):\nengine {e!r}\n"
                             f"torch  {t!r}")
    default_rtol, default_atol = TOLERANCES[e.dtype.name]
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    if not np.allclose(e.astype(np.float64), t.astype(np.float64), rtol=rtol, atol=atol,
                       equal_nan=True):
        raise AssertionError(f"{where}values differ beyond rtol={rtol}, atol={atol}:\n"
                             f"engine {e!r}\ntorch  {t!r}")
    return False


def assert_same(engine_result, torch_result, *, exact=True, rtol=None, atol=None,
                check_repr=None, check_layout=True, _where=""):
    """Fails with a readable message unless the engine's result looks exactly like torch's."""
    e, t = engine_result, torch_result
    ek, tk = _kind(e), _kind(t)
    if ek != tk:
        raise AssertionError(f"{_where}engine returned {ek} ({type(e).__name__}), torch "
                             f"returned {tk} ({type(t).__name__})")
    if tk == "tensor":
        if str(e.dtype) != str(t.dtype):
            raise AssertionError(f"{_where}dtype: engine {e.dtype}, torch {t.dtype}")
        if tuple(e.shape) != tuple(t.shape):
            raise AssertionError(f"{_where}shape: engine {tuple(e.shape)}, torch "
                                 f"{tuple(t.shape)}")
        if check_layout:
            if tuple(e.stride()) != tuple(t.stride()):
                raise AssertionError(f"{_where}strides: engine {e.stride()}, torch "
                                     f"{t.stride()}")
            if e.storage_offset() != t.storage_offset():
                raise AssertionError(f"{_where}storage offset: engine {e.storage_offset()}, "
                                     f"torch {t.storage_offset()}")
        if e.requires_grad != t.requires_grad:
            raise AssertionError(f"{_where}requires_grad: engine {e.requires_grad}, torch "
                                 f"{t.requires_grad}")
        identical = _check_values(_numpy_of(e), _numpy_of(t), exact, rtol, atol, _where)
        if check_repr or (check_repr is None and (exact or identical)):
            if repr(e) != repr(t):
                raise AssertionError(f"{_where}repr differs:\nengine:\n{e!r}\ntorch:\n{t!r}")
        return
    if tk == "namedtuple":
        e_fields, t_fields = type(e).__match_args__, type(t).__match_args__
        if type(e).__name__ != type(t).__name__ or tuple(e_fields) != tuple(t_fields):
            raise AssertionError(f"{_where}named tuple: engine {type(e).__name__}"
                                 f"{e_fields}, torch {type(t).__name__}{t_fields}")
    if tk in ("namedtuple", "tuple", "list"):
        if len(e) != len(t):
            raise AssertionError(f"{_where}length: engine {len(e)}, torch {len(t)}")
        for i, (ei, ti) in enumerate(zip(e, t)):
            assert_same(ei, ti, exact=exact, rtol=rtol, atol=atol, check_repr=check_repr,
                        check_layout=check_layout, _where=f"{_where}[{i}] ")
        if tk == "namedtuple" and (check_repr or (check_repr is None and exact)):
            if repr(e) != repr(t):
                raise AssertionError(f"{_where}repr differs:\nengine:\n{e!r}\ntorch:\n{t!r}")
        return
    if tk in ("Size", "dtype"):
        if repr(e) != repr(t):
            raise AssertionError(f"{_where}{tk}: engine {e!r}, torch {t!r}")
        return
    if tk == "float":
        same = (e == t and math.copysign(1, e) == math.copysign(1, t)) or (
            math.isnan(e) and math.isnan(t))
        if not same and (exact or not math.isclose(e, t, rel_tol=rtol or 1e-7,
                                                   abs_tol=atol or 1e-7)):
            raise AssertionError(f"{_where}float: engine {e!r}, torch {t!r}")
        return
    if tk.startswith("other:"):
        if repr(e) != repr(t):
            raise AssertionError(f"{_where}{type(t).__name__}: engine {e!r}, torch {t!r}")
        return
    if e != t:
        raise AssertionError(f"{_where}{tk}: engine {e!r}, torch {t!r}")


def _builtin_exception_type(exc_type):
    """torch.OutOfMemoryError & co count as the builtin exception they derive from."""
    for cls in exc_type.__mro__:
        if cls.__module__ == "builtins":
            return cls
    return exc_type


def _first_line(message):
    return message.strip().splitlines()[0] if message.strip() else ""


def assert_same_error(engine_error, torch_error, match=None):
    """Same exception type and the engine's message holds torch's key phrase."""
    expected_type = _builtin_exception_type(type(torch_error))
    engine_type = type(engine_error)
    same_subclass = engine_type.__name__ == type(torch_error).__name__ and \
        _builtin_exception_type(engine_type) is expected_type  # (torch.linalg.LinAlgError)
    if engine_type is not expected_type and not same_subclass:
        raise AssertionError(f"engine raised {type(engine_error).__name__}: {engine_error}\n"
                             f"torch raised {type(torch_error).__name__}: {torch_error}")
    phrase = _first_line(str(torch_error)) if match is None else match
    if match is not None and match not in str(torch_error):
        raise AssertionError(f"the test's match {match!r} is not in torch's message "
                             f"{str(torch_error)!r}")
    # Tensors in torch's messages print as torch's do; compare with spaces normalised.
    if re.sub(r"\s+", " ", phrase) not in re.sub(r"\s+", " ", str(engine_error)):
        raise AssertionError(f"engine message lacks torch's {phrase!r}:\n"
                             f"engine: {engine_error}\ntorch:  {torch_error}")


def _tensors(value):
    if isinstance(value, engine.Tensor) or (torch is not None and isinstance(value, torch.Tensor)):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def _storage_ptr(x):
    return x.untyped_storage().data_ptr()


def run_both(fn, *args, exact=True, rtol=None, atol=None, match=None, check_repr=None,
             check_layout=True, check_inputs=True, check_sharing=False, **kwargs):
    """Run ``fn(module, *args, **kwargs)`` with the engine and with torch and compare."""
    e_args, t_args = _convert(args, "engine"), _convert(args, "torch")
    e_kwargs, t_kwargs = _convert(kwargs, "engine"), _convert(kwargs, "torch")
    torch_error = engine_error = None
    try:
        t_result = fn(torch, *t_args, **t_kwargs)
    except Exception as error:  # noqa: BLE001 - any torch error is the expected behaviour
        torch_error = error
    if torch_error is not None:
        try:
            e_result = fn(engine, *e_args, **e_kwargs)
        except Exception as error:  # noqa: BLE001
            engine_error = error
        if engine_error is None:
            raise AssertionError(f"torch raised {type(torch_error).__name__}: {torch_error}\n"
                                 f"but the engine returned {e_result!r}")
        assert_same_error(engine_error, torch_error, match)
        return engine_error, torch_error
    e_result = fn(engine, *e_args, **e_kwargs)  # an engine error here fails the test as is
    if match is not None:
        raise AssertionError(f"torch raised no error (match={match!r} given)")
    assert_same(e_result, t_result, exact=exact, rtol=rtol, atol=atol, check_repr=check_repr,
                check_layout=check_layout)
    if check_inputs:
        for i, (ei, ti) in enumerate(zip(_tensors(e_args), _tensors(t_args))):
            assert_same(ei, ti, exact=exact, rtol=rtol, atol=atol, check_repr=False,
                        check_layout=check_layout, _where=f"input {i} afterwards: ")
    if check_sharing:
        e_in, t_in = _tensors(e_args), _tensors(t_args)
        for i, (eo, to) in enumerate(zip(_tensors(e_result), _tensors(t_result))):
            e_shares = [_storage_ptr(eo) == _storage_ptr(x) for x in e_in]
            t_shares = [_storage_ptr(to) == _storage_ptr(x) for x in t_in]
            if e_shares != t_shares:
                raise AssertionError(f"result {i} shares memory with inputs {e_shares} in the "
                                     f"engine but {t_shares} in torch")
    return e_result, t_result


# ====================================================================== snippets
# A snippet is code run once with ``m = torch`` and once with ``m = engine``; what it leaves in
# ``r`` is compared through snippet_facts (hooks, transforms, checkpoints: their order and
# what they see, not the kernels' last bits).
def _rounded(values):
    """Values to 6 significant digits: numpy's sin and exp may differ from torch's in the last
    bit of a float32."""
    if isinstance(values, list):
        return [_rounded(v) for v in values]
    return float(f"{values:.6g}")


def snippet_facts(value):
    """Something comparable across the two libraries (a tensor becomes its facts)."""
    if isinstance(value, (tuple, list)):
        return [snippet_facts(v) for v in value]
    if hasattr(value, "tolist") and hasattr(value, "dtype"):
        node = value.grad_fn
        return ("tensor", str(value.dtype), tuple(value.shape), _rounded(value.tolist()),
                value.requires_grad, value.is_leaf, node and node.name())
    if hasattr(value, "name") and callable(value.name):
        return value.name()
    if isinstance(value, BaseException):
        return (type(value).__name__, str(value))
    return value


def raised(fn):
    """The exception ``fn()`` raises, or None."""
    try:
        fn()
    except Exception as caught:  # noqa: BLE001 - comparing what each library raises
        return caught
    return None


def outcome(m, code, names=None):
    """What ``code`` leaves in ``r``, run with ``m`` (torch or engine) and ``names`` in scope,
    or the type and message of the error it raised (to compare word for word)."""
    scope = {"m": m, **(names or {})}
    try:
        exec(code, scope)  # noqa: S102 - the same code for both libraries
    except Exception as error:  # noqa: BLE001 - comparing what each library raises
        return (type(error).__name__, str(error))
    return scope.get("r")


def run_snippet(code, m, **names):
    """Run ``code`` with ``m`` (torch or engine), ``facts``, ``error`` and ``names`` in scope:
    the scope it leaves, and the messages of the warnings it gave."""
    scope = {"m": m, "facts": snippet_facts, "error": raised, **names}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(code, scope)  # noqa: S102 - the same snippet for both libraries
    return scope, [str(w.message) for w in caught]


def assert_same_snippet(code, dtype=None, warnings_too=False):
    """``code`` run with torch and with the engine (``DTYPE``: ``dtype`` of each, if given)
    leaves the same facts in ``r`` (and, with ``warnings_too``, gives the same warnings)."""
    results = []
    for m in (torch, engine):
        names = {} if dtype is None else {"DTYPE": getattr(m, dtype)}
        scope, warned = run_snippet(code, m, **names)
        results.append((snippet_facts(scope["r"]), warned if warnings_too else None))
    assert results[1] == results[0]


# ====================================================================== forward-mode tangents
def forward_tangent(m, expression, values, tangents, outer=None):
    """The tangent of ``expression`` (of ``a`` and ``b``, with ``m`` the library) at the
    arrays ``values`` along ``tangents``, by ``m.func.jvp``; ``outer``: the tangents of a
    second, outer jvp (a second derivative), or "forward_ad" for torch.autograd.forward_ad's
    make_dual (plain tensors, not functorch's wrappers). An exception raised is returned."""
    try:
        a, b, ta, tb = (m.tensor(v) for v in (*values, *tangents))

        def f(a, b):
            return eval(expression, {"m": m, "a": a, "b": b})  # noqa: S307 - the tests' own
        if outer == "forward_ad":
            dual = m.autograd.forward_ad
            with dual.dual_level():
                out = f(dual.make_dual(a, ta), dual.make_dual(b, tb))
                return dual.unpack_dual(out).tangent.numpy()
        if outer is None:
            return m.func.jvp(f, (a, b), (ta, tb))[1].numpy()
        oa, ob = (m.tensor(v) for v in outer)
        return m.func.jvp(lambda a, b: m.func.jvp(f, (a, b), (ta, tb))[1], (a, b),
                          (oa, ob))[1].numpy()
    except Exception as error:  # noqa: BLE001 - compared with torch's
        return error


def assert_same_tangent(got, expected, exact, precision):
    """Two tangents (or the errors that replaced them) as forward_tangent gives them: the
    same error word for word, else the same dtype and shape and the same numbers, bit for bit
    (the sign of zeros too, not of nans) when ``exact``, else to ``precision``."""
    if isinstance(expected, Exception):
        assert (type(got).__name__, str(got)) == (type(expected).__name__, str(expected))
        return
    assert not isinstance(got, Exception), got
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if exact:
        np.testing.assert_array_equal(got, expected)
        numbers = ~np.isnan(expected)  # (a nan's sign means nothing)
        np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(expected[numbers]))
    else:
        np.testing.assert_allclose(got, expected, rtol=precision, atol=precision)


# ====================================================================== fresh interpreters
AS_TORCH = "import sys, engine\nsys.modules['torch'] = engine\n"


def printed_in_fresh_interpreters(code, timeout=300):
    """What ``code`` prints in a fresh interpreter with PyTorch as ``torch``, and in another
    with the engine registered as ``torch`` (``sys.modules["torch"] = engine``): for what is
    once a process (a warning) or must not see the other library's modules."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    printed = []
    for prelude in ("", AS_TORCH):
        done = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True,
                              text=True, timeout=timeout, cwd=root,
                              env=dict(os.environ, PYTHONPATH=str(root)))
        assert done.returncode == 0, done.stderr[-3000:]
        printed.append(done.stdout)
    return printed
