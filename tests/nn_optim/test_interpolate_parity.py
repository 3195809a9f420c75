"""F.interpolate (engine/nn/functional_upsample.py), the deprecated F.upsample,
F.upsample_nearest, F.upsample_bilinear, and nn.Upsample, nn.UpsamplingNearest2d,
nn.UpsamplingBilinear2d against torch 2.15.

Modes nearest, nearest-exact, linear, bilinear, trilinear and area over 3-d, 4-d and 5-d
inputs; sizes and scale factors (scalar and per dim; up, down, non-integer, the same size,
outputs and inputs of size 1, recompute_scale_factor), align_corners, float16, float32 and
float64 (uint8 for nearest), row-major and channels-last inputs, empty batches: values bit
for bit, dtypes, strides (channels-last in, channels-last out), reprs, grad_fn names and
saved values; gradients by autograd.grad bit for bit (channels-last gradients too), second
derivatives (the ...BackwardBackward0 nodes), forward mode, gradcheck in float64; torch's
errors word for word and the deprecation warnings. Bicubic's forward and backward are
torch's to a few ulps only (notebooks/DIFFERENCES.md).
"""
import warnings

import pytest

import engine
import engine.nn.functional as EF
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch
F = torch.nn.functional

SHAPES = {3: [(2, 3, 7), (1, 9, 5), (2, 1, 1)],
          4: [(2, 3, 5, 6), (1, 9, 4, 7), (2, 1, 1, 1), (1, 5, 3, 3), (1, 2, 30, 40)],
          5: [(2, 3, 3, 4, 5), (1, 9, 2, 3, 4), (1, 1, 1, 1, 1)]}
MODES = {3: ["nearest", "nearest-exact", "linear"], 4: ["nearest", "nearest-exact", "bilinear"],
         5: ["nearest", "nearest-exact", "trilinear"]}
RESIZES = [("scale", 2), ("scale", 1.7), ("scale", 0.5), ("scale", 3), ("scale", 0.37),
           ("scale", 1.0), ("same", None), ("one", None), ("big", None), ("odd", None),
           ("recompute", 1.7), ("per-dim", None)]
FORMATS = {4: (torch.channels_last, engine.channels_last),
           5: (torch.channels_last_3d, engine.channels_last_3d)}


def _resize(kind, value, shape):
    """interpolate's size / scale_factor / recompute_scale_factor for one of RESIZES."""
    n = len(shape) - 2
    if kind == "scale":
        return {"scale_factor": value}
    if kind == "recompute":
        return {"scale_factor": value, "recompute_scale_factor": True}
    if kind == "per-dim":
        return {"scale_factor": (1.5, 0.75, 2.0)[:n]}
    size = {"same": tuple(shape[2:]), "one": (1,) * n, "odd": (3, 7, 5)[:n],
            "big": (70, 80)[:n] if n < 3 else (9, 11, 13)}[kind]
    return {"size": size}


def _pair(shape, dtype, seed=0, channels_last=False, requires_grad=False):
    """The same values as an engine tensor and a torch tensor (channels-last: both)."""
    x = parity.make_tensor(shape, dtype, seed)
    t = parity.to_torch(x)
    if channels_last:
        x = x.contiguous(memory_format=FORMATS[len(shape)][1])
        t = t.contiguous(memory_format=FORMATS[len(shape)][0])
    if requires_grad:
        x.requires_grad_()
        t.requires_grad_()
    return x, t


def _same(engine_call, torch_call):
    """Both calls give the same tensor (parity.assert_same), or raise the same error word for
    word (a scale factor that leaves a size of 0). Returns the pair of results (None each
    after an error)."""
    try:
        expected = torch_call()
    except Exception as error:  # noqa: BLE001 - compared with the engine's
        with pytest.raises(type(error)) as caught:
            engine_call()
        assert str(caught.value) == str(error)
        return None, None
    got = engine_call()
    parity.assert_same(got, expected)
    return got, expected


def _cases():
    for ndim, shapes in SHAPES.items():
        for shape in shapes:
            for mode in MODES[ndim]:
                for align in ([None] if mode.startswith("nearest") else [False, True]):
                    for kind, value in RESIZES:
                        for cl in ([False, True] if ndim > 3 else [False]):
                            yield pytest.param(shape, mode, align, kind, value, cl,
                                               id=f"{shape}-{mode}-{align}-{kind}{value}-"
                                                  f"{'cl' if cl else 'rm'}")


CASES = list(_cases())


# ====================================================================== forward values
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shape, mode, align, kind, value, cl", CASES)
def test_forward_is_torch_bit_for_bit(shape, mode, align, kind, value, cl, dtype):
    x, t = _pair(shape, dtype, channels_last=cl)
    kwargs = dict(_resize(kind, value, shape), mode=mode, align_corners=align)
    _same(lambda: EF.interpolate(x, **kwargs), lambda: F.interpolate(t, **kwargs))


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("shape", [(2, 3, 7), (2, 3, 5, 6), (1, 5, 4, 7), (1, 2, 3, 4, 5)])
@pytest.mark.parametrize("resize", [{"scale_factor": 2}, {"scale_factor": 0.6},
                                    {"size": 9}])
def test_nearest_of_uint8_is_torch(mode, shape, resize):
    x, t = _pair(shape, "uint8")
    parity.assert_same(EF.interpolate(x, mode=mode, **resize),
                       F.interpolate(t, mode=mode, **resize))


@pytest.mark.parametrize("shape", [(2, 3, 7), (2, 3, 5, 6), (1, 9, 4, 7)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("resize", [{"scale_factor": 0.5}, {"scale_factor": 1.7},
                                    {"size": 3}, {"scale_factor": 0.37}])
@pytest.mark.parametrize("cl", [False, True])
def test_area_is_adaptive_avg_pool(shape, dtype, resize, cl):
    if cl and len(shape) != 4:
        pytest.skip("channels-last is 4-d")
    x, t = _pair(shape, dtype, channels_last=cl, requires_grad=True)
    y, ty = EF.interpolate(x, mode="area", **resize), F.interpolate(t, mode="area", **resize)
    parity.assert_same(y, ty)
    assert y.grad_fn.name() == ty.grad_fn.name()
    g = parity.make_tensor(tuple(ty.shape), dtype, 1)
    parity.assert_same(engine.autograd.grad(y, x, g)[0],
                       torch.autograd.grad(ty, t, parity.to_torch(g))[0])


@pytest.mark.parametrize("mode, shape", [("nearest", (0, 3, 4, 5)), ("bilinear", (0, 3, 4, 5)),
                                         ("linear", (0, 2, 5)), ("trilinear", (0, 2, 2, 3, 4)),
                                         ("nearest-exact", (0, 2, 2, 3, 4))])
def test_an_empty_batch_is_resized(mode, shape):
    x, t = _pair(shape, "float32")
    parity.assert_same(EF.interpolate(x, scale_factor=2, mode=mode),
                       F.interpolate(t, scale_factor=2, mode=mode))


# ====================================================================== gradients
GRAD_CASES = [c for c in CASES if c.values[3] in ("scale", "big", "odd", "one", "per-dim")
              and c.values[0] in ((2, 3, 7), (2, 3, 5, 6), (1, 9, 4, 7), (1, 9, 2, 3, 4),
                                  (1, 1, 1, 1, 1))]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shape, mode, align, kind, value, cl", GRAD_CASES)
def test_gradient_is_torch_bit_for_bit(shape, mode, align, kind, value, cl, dtype):
    x, t = _pair(shape, dtype, channels_last=cl, requires_grad=True)
    kwargs = dict(_resize(kind, value, shape), mode=mode, align_corners=align)
    y, ty = _same(lambda: EF.interpolate(x, **kwargs), lambda: F.interpolate(t, **kwargs))
    if ty is None:
        return
    assert y.grad_fn.name() == ty.grad_fn.name()
    g = parity.make_tensor(tuple(ty.shape), dtype, 1, low=-4, high=4)
    tg = parity.to_torch(g)
    if cl:  # a channels-last gradient takes torch's channels-last backward kernels
        g, tg = (g.contiguous(memory_format=FORMATS[len(shape)][1]),
                 tg.contiguous(memory_format=FORMATS[len(shape)][0]))
    parity.assert_same(engine.autograd.grad(y, x, g)[0], torch.autograd.grad(ty, t, tg)[0])


@pytest.mark.parametrize("shape, mode, kwargs", [
    ((2, 3, 5), "linear", {"scale_factor": 1.7}),
    ((1, 2, 4, 5), "bilinear", {"size": (7, 3), "align_corners": True}),
    ((1, 2, 4, 5), "nearest", {"scale_factor": 2}),
    ((1, 2, 2, 3, 4), "trilinear", {"scale_factor": 1.5}),
    ((1, 2, 4, 5), "nearest-exact", {"size": (3, 8)}),
    ((1, 2, 2, 3, 4), "nearest", {"scale_factor": (1.5, 2, 0.5)})])
def test_second_derivative_and_forward_mode_are_torch(shape, mode, kwargs):
    found = []
    for m, fn in ((torch, F.interpolate), (engine, EF.interpolate)):
        x = m.tensor(parity.make_values(shape, "float64", low=-3, high=3), requires_grad=True)
        y = fn(x, mode=mode, **kwargs)
        g = m.tensor(parity.make_values(tuple(y.shape), "float64", 2, low=-3, high=3),
                     requires_grad=True)
        gx = m.autograd.grad(y, x, g, create_graph=True)[0]
        v = m.tensor(parity.make_values(shape, "float64", 3, low=-3, high=3))
        gg = m.autograd.grad(gx, g, v)[0]
        tangent = m.func.jvp(lambda z, fn=fn: fn(z, mode=mode, **kwargs), (x.detach(),),
                             (v,))[1]
        node = y.grad_fn
        saved = {k: getattr(node, k) for k in dir(node) if k.startswith("_saved_")}
        found.append((node.name(), gx.grad_fn.name(), saved, gg, tangent))
    (names_t, back_t, saved_t, gg_t, tan_t), (names_e, back_e, saved_e, gg_e, tan_e) = found
    assert (names_e, back_e, saved_e) == (names_t, back_t, saved_t)
    parity.assert_same(gg_e, gg_t)
    parity.assert_same(tan_e, tan_t)


@pytest.mark.parametrize("mode, shape", [("linear", (1, 2, 4)), ("bilinear", (1, 2, 3, 4)),
                                         ("trilinear", (1, 1, 2, 3, 2)),
                                         ("nearest", (1, 2, 3, 4))])
def test_gradcheck(mode, shape):
    x = engine.tensor(parity.make_values(shape, "float64", low=-2, high=2), requires_grad=True)
    assert engine.autograd.gradcheck(lambda z: EF.interpolate(z, scale_factor=1.5, mode=mode),
                                     (x,))
    assert engine.autograd.gradgradcheck(
        lambda z: EF.interpolate(z, scale_factor=1.5, mode=mode), (x,))


# ====================================================================== bicubic
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("shape, resize", [
    ((2, 3, 5, 6), {"scale_factor": 2}), ((2, 3, 5, 6), {"scale_factor": 1.7}),
    ((1, 9, 4, 7), {"scale_factor": 0.5}), ((1, 9, 4, 7), {"size": (3, 7)}),
    ((1, 2, 6, 5), {"size": (70, 80)}), ((1, 1, 1, 1), {"size": (3, 2)}),
    ((2, 3, 5, 6), {"size": (5, 6)})])
@pytest.mark.parametrize("cl", [False, True])
def test_bicubic_is_torch_to_the_last_bits(shape, resize, align, dtype, cl):
    """Keys' cubic (A = -0.75) with torch's fused multiply-adds: float16 (and most float32
    and float64 outputs) bit for bit; the rest, and float32's and float64's gradients, to a
    few ulps (DIFFERENCES.md)."""
    x, t = _pair(shape, dtype, channels_last=cl, requires_grad=True)
    y = EF.interpolate(x, mode="bicubic", align_corners=align, **resize)
    ty = F.interpolate(t, mode="bicubic", align_corners=align, **resize)
    assert y.grad_fn.name() == ty.grad_fn.name() == "UpsampleBicubic2DBackward0"
    exact = dtype == "float16"
    parity.assert_same(y, ty, exact=exact, rtol=1e-5 if dtype == "float32" else None)
    g = parity.make_tensor(tuple(ty.shape), dtype, 1, low=-4, high=4)
    parity.assert_same(engine.autograd.grad(y, x, g)[0],
                       torch.autograd.grad(ty, t, parity.to_torch(g))[0], exact=False,
                       rtol=1e-4, atol=1e-5 if dtype != "float16" else 1e-2)


# ====================================================================== errors
ERRORS = [
    "r = F.interpolate(x4, size=3, scale_factor=2)",
    "r = F.interpolate(x4)",
    "r = F.interpolate(x4, size=(3, 4, 5))",
    "r = F.interpolate(x4, size=(3.0, 4))",
    "r = F.interpolate(x4, scale_factor=(2, 2, 2))",
    "r = F.interpolate(x4, size=3, align_corners=True)",
    "r = F.interpolate(x4, size=3, mode='area', align_corners=False)",
    "r = F.interpolate(x4, size=3, recompute_scale_factor=True)",
    "r = F.interpolate(x4, size=3, mode='nearest', antialias=True)",
    "r = F.interpolate(x3, size=3, mode='bilinear')",
    "r = F.interpolate(x3, size=3, mode='trilinear')",
    "r = F.interpolate(x4, size=3, mode='linear')",
    "r = F.interpolate(x4, size=3, mode='trilinear')",
    "r = F.interpolate(x5, size=3, mode='linear')",
    "r = F.interpolate(x5, size=3, mode='bilinear')",
    "r = F.interpolate(x5, size=3, mode='bicubic')",
    "r = F.interpolate(x4, size=3, mode='cubic')",
    "r = F.interpolate(x2, size=3)",
    "r = F.interpolate(x4, size=0)",
    "r = F.interpolate(x4, size=(3, -1))",
    "r = F.interpolate(x3, size=0, mode='linear')",
    "r = F.interpolate(x5, size=(2, 0, 2))",
    "r = F.interpolate(x4, scale_factor=0.1)",
    "r = F.interpolate(x4, scale_factor=-2.0)",
    "r = F.interpolate(x4, scale_factor=0.1, mode='bilinear')",
    "r = F.interpolate(empty_channels, scale_factor=2)",
    "r = F.interpolate(x4.long(), scale_factor=2)",
    "r = F.interpolate(x4.long(), size=(80, 90))",
    "r = F.interpolate(x4.bool(), scale_factor=2, mode='bilinear')",
    "r = F.interpolate(x3.int(), scale_factor=2, mode='linear')",
    "r = F.interpolate(x5.long(), scale_factor=2, mode='nearest-exact')",
    "r = F.interpolate(x4.to(m.uint8), scale_factor=2, mode='area')",
    "r = F.interpolate(x5.to(m.uint8), scale_factor=2, mode='trilinear')",
    "r = F.interpolate(x4.long(), scale_factor=2, mode='bicubic')",
    "r = F.interpolate(x4.bool(), size=1, mode='bicubic', align_corners=True)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors_are_torchs_word_for_word(code):
    results = []
    for m, fn in ((torch, F), (engine, EF)):
        names = {"F": fn, "x2": m.ones(4, 5), "x3": m.ones(2, 3, 4), "x4": m.ones(2, 3, 4, 5),
                 "x5": m.ones(1, 2, 3, 4, 5), "empty_channels": m.ones(2, 0, 4, 5)}
        results.append(parity.outcome(m, code, names))
    expected, got = results
    assert isinstance(expected, tuple) and isinstance(expected[0], str), expected
    assert got == expected


# ====================================================================== wrappers, modules
@pytest.mark.parametrize("code, word", [
    ("r = F.upsample(x, scale_factor=2)", "upsample"),
    ("r = F.upsample(x, size=(3, 7), mode='bilinear', align_corners=True)", "upsample"),
    ("r = F.upsample_nearest(x, scale_factor=2)", "upsample_nearest"),
    ("r = F.upsample_bilinear(x, size=(7, 9))", "upsample_bilinear")])
def test_deprecated_wrappers_warn_and_resize(code, word):
    found = []
    for m, fn in ((torch, F), (engine, EF)):
        x = parity.make_tensor((1, 2, 4, 5), "float32")
        x = parity.to_torch(x) if m is torch else x
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = parity.outcome(m, code, {"F": fn, "x": x})
        found.append((r, [(w.category, str(w.message)) for w in caught]))
    (r_t, w_t), (r_e, w_e) = found
    parity.assert_same(r_e, r_t)
    assert w_e == w_t == [(UserWarning, f"`nn.functional.{word}` is deprecated. Use "
                                        "`nn.functional.interpolate` instead.")]


def test_interpolate_itself_does_not_warn():
    x = parity.make_tensor((1, 2, 4, 5), "float32")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        EF.interpolate(x, scale_factor=1.7, mode="bilinear")
        EF.interpolate(x, scale_factor=1.7, mode="nearest", recompute_scale_factor=False)


MODULES = [
    "r = m.nn.Upsample(scale_factor=2)",
    "r = m.nn.Upsample(size=(5, 7), mode='bilinear', align_corners=True)",
    "r = m.nn.Upsample(scale_factor=(2, 3), mode='nearest-exact')",
    "r = m.nn.Upsample(size=5, mode='area')",
    "r = m.nn.UpsamplingNearest2d(scale_factor=2)",
    "r = m.nn.UpsamplingNearest2d(size=(3, 4))",
    "r = m.nn.UpsamplingBilinear2d(scale_factor=1.5)",
    "r = m.nn.UpsamplingBilinear2d(size=7)",
]


@pytest.mark.parametrize("code", MODULES)
def test_modules_repr_and_resize_as_torch(code):
    x = parity.make_tensor((1, 3, 4, 5), "float32", low=-3, high=3)
    layer_t = parity.outcome(torch, code)
    layer_e = parity.outcome(engine, code)
    assert repr(layer_e) == repr(layer_t)
    for name in ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor",
                 "name"):
        assert getattr(layer_e, name) == getattr(layer_t, name)
    parity.assert_same(layer_e(x), layer_t(parity.to_torch(x)))


def test_the_public_names_exist():
    for name in ("interpolate", "upsample", "upsample_nearest", "upsample_bilinear"):
        assert name in EF.__all__ and callable(getattr(EF, name))
    for name in ("Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"):
        assert name in engine.nn.__all__


@pytest.mark.parametrize("code", [
    "F.interpolate(x4, scale_factor=0.5, mode='bilinear', antialias=True)",
    "F.interpolate(x4, scale_factor=0.5, mode='bicubic', antialias=True)",
    "F.interpolate(x4, size=3, mode='lanczos', antialias=True)",
    "F.interpolate(x5, size=2, mode='area')",
    "F.interpolate(x4.to(m.uint8), scale_factor=2, mode='bilinear')",
    "F.interpolate(x4.to(m.uint8), scale_factor=2, mode='bicubic')"])
def test_what_the_engine_refuses_torch_computes(code):
    """The modes DIFFERENCES.md lists as refused: torch returns a tensor, the engine raises
    NotImplementedError (never a wrong result)."""
    for m, fn in ((torch, F), (engine, EF)):
        names = {"F": fn, "m": m, "x4": m.ones(1, 3, 4, 5), "x5": m.ones(1, 2, 3, 4, 5)}
        if m is torch:
            assert isinstance(eval(code, names), torch.Tensor)  # noqa: S307 - the test's own
        else:
            with pytest.raises(NotImplementedError, match="not implemented in the engine"):
                eval(code, names)  # noqa: S307 - the test's own
