"""engine.nn pooling beyond test_pool_parity.py against torch 2.15: F.max_pool1d/2d/3d's
``*_with_indices`` forms and the return_indices dispatch, F.adaptive_max_pool1d/2d (and their
``*_with_indices``, torch.adaptive_max_pool1d), F.lp_pool1d/2d, F.max_unpool1d/2d, and the
modules nn.AdaptiveMaxPool1d/2d, nn.LPPool1d/2d, nn.MaxUnpool1d/2d, nn.Fold, nn.Unfold,
nn.Softmax2d.

Values bit for bit (every float dtype the engine has: float16, float32, float64; the engine
has no bfloat16), indices (the first of equal maxima, the last nan), shapes, strides (a
channels-last input gives channels-last results, as torch's kernels do), reprs, grad_fn names
and what the nodes save, gradients by autograd.grad with create_graph (second derivatives
too), gradcheck in float64, module reprs and state_dicts, and torch's errors word for word
(the whole message) for wrong inputs: dims, sizes, dtypes, output sizes, argument types, calls
with too many or unknown arguments.
"""
import pytest

import engine

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

FLOATS = ["float16", "float32", "float64"]


def _same(code, **arrays):
    """``code`` (leaving ``r``) run with each library (``m``; ``F`` its nn.functional, ``nn``
    its nn; ``arrays`` as tensors of each): the same results (parity.assert_same), or the
    same error, its type and its whole message."""
    results = []
    for m in (torch, engine):
        names = {k: (torch.from_numpy(v.copy()) if m is torch else engine.from_numpy(v.copy()))
                 for k, v in arrays.items()}
        names.update(F=m.nn.functional, nn=m.nn)
        results.append(parity.outcome(m, code, names))
    expected, got = results
    if isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[0], str) \
            and isinstance(expected[1], str):
        assert got == expected, code
    else:
        parity.assert_same(got, expected)
    return expected


def _values(shape, dtype="float64", seed=0):
    return parity.make_values(shape, dtype, seed, low=-2, high=2)


def _layouts(shape, dtype="float64", seed=0):
    """Engine tensors of ``shape`` laid out in several ways: row-major, the last two dims
    transposed, every other element of a longer last dim, and channels-last (4-d)."""
    found = {"contiguous": engine.from_numpy(_values(shape, dtype, seed))}
    if 0 in shape:
        return found
    if len(shape) >= 2:
        found["transposed"] = engine.from_numpy(
            _values(shape[:-2] + shape[-2:][::-1], dtype, seed)).transpose(-1, -2)
    found["strided"] = engine.from_numpy(_values(shape[:-1] + (2 * shape[-1],), dtype,
                                                 seed))[..., ::2]
    if len(shape) == 4 and shape[1] > 1:
        found["channels_last"] = engine.from_numpy(_values(shape, dtype, seed)).contiguous(
            memory_format=engine.channels_last)
    return found


def _gradients(m, fn, x):
    """fn(x) (its first result), its grad_fn's name, x's gradient (create_graph) and its
    grad_fn's name, and the second derivative with respect to the incoming gradient."""
    x = x.detach().requires_grad_(True)
    out = fn(m, x)
    if isinstance(out, tuple):
        out = out[0]
    m.manual_seed(0)
    grad = m.randn(out.shape, dtype=out.dtype).requires_grad_()
    (grad_x,) = m.autograd.grad(out, x, grad, create_graph=True)
    if out.numel() == 0 or not grad_x.requires_grad:
        return out, out.grad_fn.name(), grad_x
    (grad_grad,) = m.autograd.grad((grad_x * grad_x).sum(), grad)
    return out, out.grad_fn.name(), grad_x, grad_x.grad_fn.name(), grad_grad


# ====================================================================== max_poolNd_with_indices
WITH_INDICES = {
    "1d": ("max_pool1d", (2, 3, 7), (3, 2, 1)),
    "1d unbatched": ("max_pool1d", (3, 7), (2,)),
    "2d": ("max_pool2d", (2, 3, 7, 6), (3, 2, 1)),
    "2d unbatched": ("max_pool2d", (3, 7, 6), ((2, 3), 1)),
    "3d": ("max_pool3d", (1, 2, 4, 5, 6), (2, 2, 1)),
}


@pytest.mark.parametrize("case", list(WITH_INDICES))
def test_max_pool_with_indices_always_returns_the_indices(case):
    name, shape, args = WITH_INDICES[case]
    x = parity.make_tensor(shape, "float32", low=-2, high=2)
    for kwargs in ({}, {"return_indices": False}, {"return_indices": True}):
        parity.run_both(lambda m, x, kwargs=kwargs: getattr(
            m.nn.functional, name + "_with_indices")(x, *args, **kwargs), x)
    parity.run_both(lambda m, x: getattr(m.nn.functional, name)(x, *args, return_indices=True),
                    x)
    parity.run_both(lambda m, x: getattr(m.nn.functional, name)(x, *args), x)
    parity.run_both(_gradients, lambda m, x: getattr(m.nn.functional, name + "_with_indices")(
        x, *args), x.double())


@pytest.mark.parametrize("name", ["max_pool1d", "max_pool2d", "max_pool3d"])
def test_max_pool_dispatch_and_its_errors(name):
    """F.max_poolNd is torch's boolean_dispatch: return_indices (by keyword, or the 7th
    argument) picks max_poolNd_with_indices or _max_poolNd, whose names Python's errors show;
    the operator each calls parses its arguments under its own name."""
    shape = {"max_pool1d": (2, 3, 7), "max_pool2d": (2, 3, 7, 6),
             "max_pool3d": (1, 2, 4, 5, 6)}[name]
    x = _values(shape, "float32")
    for call in ("F.{n}(x, 2, 2, 0, 1, False, True)[1]", "F.{n}(x, 2, 2, 0, 1, False, 0)",
                 "F.{n}(x, 2, return_indices='yes')[1]", "F.{n}(x, 2, return_indices=None)",
                 "F.{n}(x, kernel_size=2, return_indices=True)[1]",
                 "F.{n}(input=x, kernel_size=2)",
                 "F.{n}(x, 2, 2, 0, 1, False, False, 3)", "F.{n}(x, 2, 2, 0, 1, False, True, 3)",
                 "F.{n}(x, 2, foo=1)", "F.{n}(x, 2, return_indices=True, foo=1)",
                 "F.{n}(x)", "F.{n}(x, return_indices=True)",
                 "F.{n}(x, 2.0)", "F.{n}(x, 2.0, return_indices=True)",
                 "F.{n}(x.tolist(), 2)", "F.{n}(x.tolist(), 2, return_indices=True)",
                 "F.{n}(x, 2, (2.0, 1), return_indices=True)",
                 "F.{n}(x, 2, 2, 'a', return_indices=True)",
                 "F.{n}(x, 2, 2, 0, 1.5, return_indices=True)",
                 "F.{n}(x, 2, ceil_mode=None)", "F.{n}(x, 2, ceil_mode=1)",
                 "F.{n}(x, 2, ceil_mode=None, return_indices=True)",
                 "F.{n}(x, (2, 2.0), ceil_mode=None)", "F.{n}(x, (2, 2.0), ceil_mode=False)",
                 "F.{n}_with_indices(x, 2, 2, 0, 1, False, False, 3)",
                 "F.{n}_with_indices(x, 2, foo=3)", "F.{n}_with_indices(x)",
                 "F.{n}_with_indices(x, 2.0)", "F.{n}_with_indices(x.tolist(), 2)",
                 "F.{n}_with_indices(x, 2, ceil_mode=None)",
                 "F.{n}_with_indices(x, 2, None, 0, 1, True)[1]",
                 "F.{n}_with_indices(x, 2, [], 0, 1, True)[1]",
                 "F.{n}_with_indices(x.bool(), 2)", "F.{n}_with_indices(x.long(), 2)",
                 "F.{n}_with_indices(x[:0], 2)[1]", "F.{n}_with_indices(x[None, None], 2)",
                 "(F.{n}.__name__, F.{n}_with_indices.__name__)"):
        _same("r = " + call.format(n=name), x=x)


def test_torch_max_pool1d_with_indices_keeps_its_cpp_signature():
    x = _values((3, 7), "float32")
    for call in ("m.max_pool1d_with_indices(x, 2, (), 0, 1, True)",
                 "m.max_pool1d_with_indices(x, 2, None, 0, 1, True)[1]",
                 "m.max_pool1d_with_indices(x, 2, (), 0, 1, True, True)",
                 "m.max_pool1d_with_indices(x, 2, return_indices=True)",
                 "m.max_pool1d_with_indices(x, (2, 2))", "m.max_pool1d(x, 2, (), 0, 1, True)"):
        _same("r = " + call, x=x)
