"""Empty inputs and argument checks of the poolings and of F.interpolate against torch 2.15
(engine/nn/functional_pool.py, functional_upsample.py, and the parser's lists of floats in
engine/fidelity/signatures.py).

Inputs with an empty batch, no channels or an empty height or width, in float32, float64,
float16, uint8 and int64 (bool too for interpolate), row-major and channels-last, through
F.adaptive_avg_pool1d/2d, F.adaptive_max_pool1d/2d, F.interpolate (every mode), their modules,
and the max, avg and lp poolings: torch checks only the height and width of
adaptive_avg_pool2d's input (no channels is allowed) and calls no kernel, so refuses no
dtype, for an empty output; its backward refuses an empty gradient but for its batch; its
uint8 bilinear and bicubic kernels return an empty result for an empty input. Results as
parity.assert_same compares them (values, dtype, shape, strides, requires_grad), gradients
where the dtype is a float, and every error's type and whole message. Then the arguments of
F.interpolate torch's parser refuses (a float size, a scale factor that is no number, an
align_corners that is no bool), in its words, with the checks its Python makes first.
"""
import warnings

import pytest

from tests.nn_optim.test_pool_more_parity import _same

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

FLOATS = ["float32", "float64", "float16"]
DTYPES = FLOATS + ["uint8", "int64"]
# empty batches, no channels, empty heights and widths (3-d: (C, H, W) for a 2-d pooling,
# (N, C, L) for a 1-d one), and a non-empty input for the output sizes of 0
SHAPES = [(3, 0, 1, 3), (0, 2, 3, 3), (2, 0, 3), (0, 0, 3), (2, 3, 0, 3), (2, 3, 3, 0),
          (0, 3, 3), (2, 0, 0, 3), (0, 3), (3, 0), (2, 2, 3, 3)]
ADAPTIVE_2D = ["F.adaptive_avg_pool2d(x, {})", "F.adaptive_max_pool2d(x, {})",
               "F.adaptive_max_pool2d(x, {}, return_indices=True)", "m.nn.AdaptiveAvgPool2d({})(x)",
               "m.nn.AdaptiveMaxPool2d({})(x)", "F.interpolate(x, size={}, mode='area')"]
SIZES_2D = ["2", "(2, 0)", "0", "(None, 2)", "1", "(1, 1)", "(3, 2)", "(-1, 2)"]
ADAPTIVE_1D = ["F.adaptive_avg_pool1d(x, {})", "F.adaptive_max_pool1d(x, {})",
               "F.adaptive_max_pool1d(x, {}, return_indices=True)", "m.nn.AdaptiveAvgPool1d({})(x)",
               "m.nn.AdaptiveMaxPool1d({})(x)", "F.interpolate(x, size={}, mode='area')"]
SIZES_1D = ["2", "0", "1", "(3,)", "-1"]
CALLS = list(dict.fromkeys((call.format(size), size) for calls, sizes in (
    (ADAPTIVE_2D, SIZES_2D), (ADAPTIVE_1D, SIZES_1D)) for call in calls for size in sizes))
# the layouts of a mean that notebooks/DIFFERENCES.md lists (an average pooling to one
# element per plane is torch's mean)
RESTRIDED = ("PyTorch restrides the mean of a channels-last image in place (DIFFERENCES.md: "
             "Channels-last images)")
EMPTY_ORDER = ("the gradient of a mean with no channels keeps the input's order in PyTorch "
               "(DIFFERENCES.md: Results of inputs with unusual strides on dimensions of size "
               "0 or 1)")


def _values(shape, dtype):
    return parity.make_values(shape, dtype, **({"low": -2, "high": 2} if dtype in FLOATS else {}))


def _laid_out(cl):
    """The code that lays ``x`` out channels-last (4-d inputs only), or none."""
    return "x = x.contiguous(memory_format=m.channels_last)\n" if cl else ""


def _gradient_of(call):
    """Code leaving in ``r`` the result of ``call`` (its values), its node, and the gradient
    of x for a gradient 0, 1, 2, ... of the result, with its node (create_graph)."""
    return ("x.requires_grad_()\n"
            f"o = {call}\n"
            "o = o[0] if isinstance(o, tuple) else o\n"
            "g = m.arange(o.numel(), dtype=o.dtype).reshape(o.shape)\n"
            "(gx,) = m.autograd.grad(o, x, g, create_graph=True)\n"
            "r = (o, o.grad_fn.name(), gx, gx.grad_fn and gx.grad_fn.name())")


def _check(call, shape, dtype, cl=False):
    """``call`` of x (``shape``, ``dtype``, channels-last or not) gives torch's result or
    error; so does its gradient, for a float dtype."""
    x = _values(shape, dtype)
    _same(f"{_laid_out(cl)}r = {call}", x=x)
    if dtype in FLOATS:
        _same(_laid_out(cl) + _gradient_of(call), x=x)


# ====================================================================== adaptive poolings
def _layouts(shape):
    return [False, True] if len(shape) == 4 else [False]


def _mean_difference(call, size, shape, cl):
    """Which documented difference, if any, an average pooling of ``shape`` to ``size`` (one
    element per plane: a mean) meets."""
    if size not in ("1", "(1, 1)") or not any(word in call for word in ("avg", "Avg", "area")):
        return None
    dims = 1 if "1d" in call or (size == "1" and "area" in call and len(shape) == 3) else 2
    if len(shape) != dims + 2 or 0 in shape[2:]:
        return None
    if cl and 0 not in shape:
        return RESTRIDED
    return EMPTY_ORDER if shape[1] == 0 else None


ADAPTIVE_CASES = [pytest.param(call, size, shape, cl, id=f"{call}-{shape}-{'cl' if cl else 'rm'}")
                  for call, size in CALLS for shape in SHAPES for cl in _layouts(shape)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("call, size, shape, cl", ADAPTIVE_CASES)
def test_adaptive_pools_of_empty_inputs(call, size, shape, cl, dtype, request):
    reason = _mean_difference(call, size, shape, cl)
    if reason and dtype in FLOATS:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    _check(call, shape, dtype, cl)


def test_adaptive_avg_pool2d_of_no_channels_computes_an_empty_result():
    """The lead: torch pools (3, 0, 1, 3) into (3, 0, 2, 2), uint8 and int64 too (no kernel
    runs), where the engine refused dimension 1; its backward refuses the empty gradient."""
    for dtype in DTYPES:
        result = _same("r = F.adaptive_avg_pool2d(x, 2)", x=_values((3, 0, 1, 3), dtype))
        assert tuple(result.shape) == (3, 0, 2, 2)
    error = _same(_gradient_of("F.adaptive_avg_pool2d(x, 2)"), x=_values((3, 0, 1, 3), "float32"))
    assert error == ("RuntimeError", "adaptive_avg_pool2d_backward(): Expected grad_output to "
                     "have non-zero size for non-batch dimensions, but grad_output has sizes "
                     "[3, 0, 2, 2] with dimension 1 being empty")


# ====================================================================== interpolate
INTERPOLATE_SHAPES = {3: [(0, 2, 3), (2, 0, 3), (2, 3, 0), (0, 0, 3), (2, 3, 4)],
                      4: [(0, 2, 3, 3), (0, 4, 3, 3), (3, 0, 1, 3), (2, 3, 0, 3), (2, 3, 3, 0),
                          (2, 3, 4, 5)],
                      5: [(0, 2, 2, 3, 3), (2, 0, 2, 1, 3), (1, 2, 0, 3, 3), (1, 2, 3, 4, 5)]}
MODES = ["nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"]
RESIZES = ["size=2", "scale_factor=2", "size=0", "scale_factor=0.5, recompute_scale_factor=True"]


def _interpolate_cases():
    for ndim, shapes in INTERPOLATE_SHAPES.items():
        for shape in shapes:
            for mode in MODES:
                if mode == "area" and ndim == 5:
                    continue  # (adaptive_avg_pool3d: the engine's documented refusal)
                for resize in RESIZES:
                    for cl in _layouts(shape):
                        yield pytest.param(shape, mode, resize, cl,
                                           id=f"{shape}-{mode}-{resize}-{'cl' if cl else 'rm'}")


@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
@pytest.mark.parametrize("shape, mode, resize, cl", list(_interpolate_cases()))
def test_interpolate_of_empty_and_integer_inputs(shape, mode, resize, cl, dtype, request):
    if dtype == "uint8" and mode in ("bilinear", "bicubic") and 0 not in shape:
        pytest.skip("uint8 bilinear/bicubic of an image: the engine's documented refusal")
    if mode == "area" and shape in ((2, 0, 3), (0, 0, 3)) and "0.5" in resize and \
            dtype in FLOATS:  # (a length of 3 recomputed to 1: a mean)
        request.applymarker(pytest.mark.xfail(reason=EMPTY_ORDER, strict=True))
    _check(f"F.interpolate(x, {resize}, mode={mode!r})", shape, dtype, cl)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("code", ["r = F.interpolate(x, size=(40, 100), mode={})",
                                  "r = F.interpolate(x, scale_factor=2, mode={}, "
                                  "align_corners=True)",
                                  "x = x.contiguous(memory_format=m.channels_last)\n"
                                  "r = F.interpolate(x, size=2, mode={})"])
def test_interpolate_of_an_empty_uint8_batch(code, mode):
    """The lead: torch's uint8 kernels give an empty batch an empty result, row-major."""
    result = _same(code.format(repr(mode)), x=_values((0, 4, 3, 3), "uint8"))
    assert result.dtype == torch.uint8 and result.numel() == 0


# ====================================================================== interpolate's arguments
ARGUMENTS = [
    # a size that is no int: torch's Python spreads it unchecked, its parser refuses it
    "F.interpolate(x4, size=2.5)", "F.interpolate(x4, size=2.0)", "F.interpolate(x4, 2.5)",
    "F.interpolate(x3, size=2.5)", "F.interpolate(x5, size=2.5)",
    "F.interpolate(x4, size=2.5, mode='bilinear')", "F.interpolate(x4, size=2.5, mode='bicubic')",
    "F.interpolate(x4, size=2.5, mode='nearest-exact')",
    "F.interpolate(x3, size=2.5, mode='nearest-exact')",
    "F.interpolate(x5, size=2.5, mode='nearest-exact')",
    "F.interpolate(x3, size=2.5, mode='linear')", "F.interpolate(x5, size=2.5, mode='trilinear')",
    "F.interpolate(x4, size=2.5, mode='bilinear', antialias=True)",
    "F.interpolate(x4, size=2.5, mode='bicubic', antialias=True)",
    "F.interpolate(x4, size=2.5, mode='lanczos', antialias=True)",
    "F.interpolate(x4, size=2.5, mode='area')", "F.interpolate(x3, size=2.5, mode='area')",
    "F.interpolate(x4, size=1e30)", "F.interpolate(x4, size='ab')", "F.interpolate(x4, size=True)",
    "F.interpolate(x4, size=complex(2, 0))", "F.interpolate(x4.half(), size=2.5)",
    "F.interpolate(x4.to(m.uint8), size=2.5)", "F.interpolate(x4.long(), size=2.5)",
    "F.interpolate(x4, size=2.5, scale_factor=None)",
    # a list of sizes: torch's Python checks it first
    "F.interpolate(x4, size=(2.5, 3))", "F.interpolate(x4, size=[2.5, 3])",
    "F.interpolate(x4, size=(2, 3.0))", "F.interpolate(x3, size=(2.5,))",
    "F.interpolate(x4, size=(2, 3.5), mode='bicubic', align_corners=False)",
    "F.interpolate(x4, size=(2.5, 3), mode='area')", "F.interpolate(x4, size=(2, None))",
    "F.interpolate(x4, size=(True, 2))", "F.interpolate(x4, size=(m.tensor(2), 3))",
    "F.interpolate(x4, size=(np.int64(3), 2))", "F.interpolate(x4, size=np.int64(3))",
    "F.interpolate(x4, size=m.tensor(2))", "F.interpolate(x4, size=(2,))",
    "F.interpolate(x4, size=(2, 3, 4))", "F.interpolate(x4, size=[])",
    # negative and empty sizes
    "F.interpolate(x4, size=-1)", "F.interpolate(x4, size=(-1, 2))",
    "F.interpolate(x4, size=(0, 2))", "F.interpolate(x4, size=0)",
    "F.interpolate(x4, size=-1, mode='bilinear')", "F.interpolate(x4, size=-1, mode='area')",
    "F.interpolate(x4, size=(-1, 2), mode='area')", "F.interpolate(x3, size=-1, mode='area')",
    # size and scale_factor: both, neither
    "F.interpolate(x4, size=2, scale_factor=2)", "F.interpolate(x4)",
    "F.interpolate(x4, size=None, scale_factor=None)",
    # scale factors that are no numbers, of the wrong length, negative, nan, inf
    "F.interpolate(x4, scale_factor='a')", "F.interpolate(x4, scale_factor=(2, 'a'))",
    "F.interpolate(x4, scale_factor=(2, None))", "F.interpolate(x4, scale_factor=(2,))",
    "F.interpolate(x4, scale_factor=[2, 2, 2])", "F.interpolate(x4, scale_factor=m.tensor(2.0))",
    "F.interpolate(x4, scale_factor=m.tensor(2))",
    "F.interpolate(x4, scale_factor=(2, m.tensor(2.0)))",
    "F.interpolate(x4, scale_factor=complex(2, 0))", "F.interpolate(x4, scale_factor=True)",
    "F.interpolate(x4, scale_factor=np.float32(1.5))",
    "F.interpolate(x4, scale_factor=(np.int64(2), 2))",
    "F.interpolate(x4, scale_factor=-1)", "F.interpolate(x4, scale_factor=-1.5)",
    "F.interpolate(x4, scale_factor=0)", "F.interpolate(x4, scale_factor=0.1)",
    "F.interpolate(x4, scale_factor=float('nan'))", "F.interpolate(x4, scale_factor=float('inf'))",
    "F.interpolate(x4, scale_factor=1e30)", "F.interpolate(x4, scale_factor=-1, mode='area')",
    "F.interpolate(x4, scale_factor=0.1, mode='area')",
    "F.interpolate(x4, scale_factor='a', mode='bilinear')",
    "F.interpolate(x4, scale_factor=(2, 'a'), mode='bilinear', antialias=True)",
    # recompute_scale_factor
    "F.interpolate(x4, scale_factor=2, recompute_scale_factor=True)",
    "F.interpolate(x4, size=2, recompute_scale_factor=True)",
    "F.interpolate(x4, size=2, recompute_scale_factor=False)",
    "F.interpolate(x4, scale_factor=1.7, recompute_scale_factor=False)",
    "F.interpolate(x4, scale_factor=0.1, recompute_scale_factor=True)",
    "F.interpolate(x4, scale_factor=-2, recompute_scale_factor=True)",
    "F.interpolate(x4, scale_factor='a', recompute_scale_factor=True)",
    # align_corners: with nearest or area, and of other types than bool
    "F.interpolate(x4, size=2, align_corners=True)",
    "F.interpolate(x4, size=2, align_corners=False)",
    "F.interpolate(x4, size=2, mode='area', align_corners=False)",
    "F.interpolate(x4, size=2, mode='nearest-exact', align_corners=True)",
    "F.interpolate(x4, size=2, mode='bilinear', align_corners=1)",
    "F.interpolate(x4, size=2, mode='bilinear', align_corners='a')",
    "F.interpolate(x4, size=(2, 3), mode='bicubic', align_corners=1, antialias=True)",
    "F.interpolate(x4, size=(2, 3), mode='lanczos', align_corners=1, antialias=True)",
    "F.interpolate(x4, size=2, mode='bilinear', align_corners=None)",
    # modes and dimensions
    "F.interpolate(x4, size=2, mode='bogus')", "F.interpolate(x4, size=2, mode='linear')",
    "F.interpolate(x3, size=2, mode='bilinear')", "F.interpolate(x3, size=2, mode='bicubic')",
    "F.interpolate(x2, size=2)", "F.interpolate(x2, size=2, mode='linear')",
    "F.interpolate(x4, size=2, antialias=True)",
    # the modules and the deprecated wrappers hand the size on
    "m.nn.Upsample(size=2.5)(x4)", "m.nn.Upsample(size=(2.5, 2))(x4)",
    "m.nn.Upsample(scale_factor='a')(x4)", "m.nn.UpsamplingNearest2d(size=2.5)(x4)",
    "m.nn.UpsamplingBilinear2d(size=2.5)(x4)", "F.upsample(x4, size=2.5)",
    "F.upsample_nearest(x4, size=2.5)", "F.upsample_bilinear(x4, size=2.5)",
]


@pytest.mark.parametrize("call", ARGUMENTS)
def test_interpolate_arguments_as_torch_parses_them(call):
    arrays = {f"x{n}": _values(shape, "float32") for n, shape in (
        (2, (4, 5)), (3, (2, 3, 4)), (4, (2, 3, 4, 5)), (5, (1, 2, 3, 4, 5)))}
    with warnings.catch_warnings():  # (F.upsample's deprecation: test_interpolate_parity's)
        warnings.simplefilter("ignore")
        _same(f"import numpy as np\nr = {call}", **arrays)


def test_a_float_size_is_refused_in_torchs_words():
    """The lead, word for word: the overloads, the note and its "!list of [float, float]!"."""
    error = _same("r = F.interpolate(x, size=2.5)", x=_values((2, 3, 4, 5), "float32"))
    assert error == ("TypeError", (
        "upsample_nearest2d() received an invalid combination of arguments - got (Tensor, list, "
        "NoneType), but expected one of:\n"
        " * (Tensor input, tuple of ints output_size, tuple of floats scale_factors)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !list of "
        "[float, float]!, !NoneType!)\n"
        " * (Tensor input, tuple of ints output_size, float scales_h = None, float scales_w = "
        "None, *, Tensor out = None)\n"))


# ====================================================================== other poolings
POOL_SHAPES = {1: [(0, 2, 4), (2, 0, 4), (0, 0, 4), (2, 3, 0), (0, 4)],
               2: [(0, 2, 4, 4), (2, 0, 4, 4), (0, 0, 4, 4), (2, 3, 0, 4), (0, 4, 4)],
               3: [(0, 2, 4, 4, 4), (2, 0, 4, 4, 4), (2, 3, 0, 4, 4), (0, 4, 4, 4)]}
POOLS = ["F.max_pool{}d(x, 2)", "F.max_pool{}d(x, 2, return_indices=True)", "F.avg_pool{}d(x, 2)",
         "F.lp_pool{}d(x, 2, 2)", "m.nn.MaxPool{}d(2)(x)", "m.nn.AvgPool{}d(2)(x)"]
POOL_CASES = [pytest.param(pool.format(dims), shape, id=f"{pool.format(dims)}-{shape}")
              for dims, shapes in POOL_SHAPES.items() for pool in POOLS for shape in shapes
              if not (dims == 3 and "lp_pool" in pool)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("call, shape", POOL_CASES)
def test_poolings_of_empty_batches_and_planes(call, shape, dtype):
    _check(call, shape, dtype)

