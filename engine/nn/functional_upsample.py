"""Resizing, as ``torch.nn.functional.interpolate`` computes it: ``nearest``, ``nearest-exact``,
``linear``, ``bilinear``, ``bicubic``, ``trilinear`` and ``area`` (and the deprecated
``upsample``, ``upsample_nearest``, ``upsample_bilinear``).

Each output position looks back at the input: its *source index* along each spatial
dimension, ``(out + 0.5) * scale - 0.5`` (or ``out * scale`` with ``align_corners``), where
``scale`` is ``in / out`` or ``1 / scale_factor``. Nearest takes the element there (rounded
down, or to the nearest with ``nearest-exact``); linear modes weigh the two elements around
it by the distance (``lambda``), bicubic the four around it by Keys' cubic (A = -0.75);
``area`` is ``adaptive_avg_pool``.

torch's CPU kernels (aten/src/ATen/native/cpu/UpSampleKernel.cpp) are replayed step for step,
so values are its bits: the indices and weights are computed in the "opmath" type (float32
for float16 and float32, float64 for float64), the compiler's fused multiply-adds included
(``scale * (out + 0.5) - 0.5`` is one, and so is each ``t0 * w0 + t1 * w1`` of the generic
kernel); and the same inputs go through one of two kernels, as torch chooses: a generic one
(the last dimension interpolated first, its lambdas stored in the input's dtype) or a
channels-last one (small outputs, or channels-last inputs with more than three channels),
whose per-pixel sum of four (eight) products is fused in another order in its vector lanes
than in its scalar tail. Every backward is linear in the gradient, a "put back" summed in
torch's loop order; its own backward is the forward again (``...BackwardBackward0``).
"""
import functools
import itertools
import math
import warnings

import numpy as np

from ..core.node import Node, record
from ..core.tensor import Tensor
from ..fidelity import signatures
from ..fidelity.dtypes import scalar_type_name
from ..fidelity.float32_math import AVX2_KERNEL_STEP, torch_threads
from ..fidelity.layout import cannot_allocate, storage_nbytes
from ..fidelity.rounding import fma32, fma64
from ..fidelity.size import channels_last, channels_last_3d
from .functional_pool import adaptive_avg_pool1d, adaptive_avg_pool2d, laid_out_as

_LINEAR_MODES = {1: "linear", 2: "bilinear", 3: "trilinear"}
# the names of the scales of torch's upsample_*{1,2,3}d operators (and of their nodes' fields)
_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"),
                3: ("scales_d", "scales_h", "scales_w")}


# ====================================================================== F.interpolate
def _is_integer(x):
    """torch's _is_integer: an int (bool too), a numpy integer, or a tensor of integers."""
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, Tensor) and x._data.dtype.kind != "f"


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """out = input resized to ``size`` (or ``floor(in * scale_factor)``) along its spatial
    dimensions (the ones after N and C) by ``mode``; torch's Python checks in its order."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] "
                                "or Tuple[int, int, int], but got size with types "
                                f"{[type(x) for x in size]}")
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                    "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True  # ("area" always wants a size)
    if recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                         "and requires a 4-D tensor as input")
    if mode in ("nearest", "nearest-exact") and input.dim() in (3, 4, 5):
        return _upsample(mode, input, output_size, scale_factors)
    if mode == "area" and input.dim() in (3, 4, 5):
        pool = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: _adaptive_avg_pool3d}
        return pool[input.dim()](input, output_size)
    if mode in ("linear", "bilinear", "trilinear") and _LINEAR_MODES.get(dim) == mode:
        kind = "bilinear_aa" if antialias else mode
        return _upsample(kind, input, output_size, scale_factors, align_corners)
    if mode == "bicubic" and input.dim() == 4:
        if antialias:
            return _upsample("bicubic_aa", input, output_size, scale_factors, align_corners)
        return _upsample(mode, input, output_size, scale_factors, align_corners)
    if input.dim() == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        return _upsample("lanczos_aa", input, output_size, scale_factors, align_corners)
    needs = {"bilinear": 4, "trilinear": 5, "linear": 3}
    if input.dim() in (3, 4, 5) and mode in needs:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{needs[mode]}D input")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | trilinear "
        f"| lanczos | area | nearest-exact (got {mode})")


def _adaptive_avg_pool3d(input, output_size):
    raise NotImplementedError("adaptive_avg_pool3d is not implemented in the engine")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """interpolate, under its old name (deprecated: a warning)"""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """interpolate(..., mode='nearest') (deprecated: a warning)"""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """interpolate(..., mode='bilinear', align_corners=True) (deprecated: a warning)"""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ====================================================================== the ATen op
class _Call:
    """One upsample call as ATen sees it: the mode, the number of spatial dims, the output
    size, the scales (None each when a size was given) and align_corners."""

    def __init__(self, mode, dims, output_size, scales, align_corners):
        self.mode, self.dims, self.output_size = mode, dims, tuple(output_size)
        self.scales, self.align_corners = tuple(scales), align_corners

    @property
    def linear(self):
        return self.mode in ("linear", "bilinear", "trilinear")

    def node_class(self):
        return _NODES[self.mode, self.dims]

    def state(self):
        """What torch's node shows: output_size, scales (scales_h, ...), align_corners."""
        found = {"output_size": self.output_size,
                 **dict(zip(_SCALE_NAMES[self.dims], self.scales))}
        if self.mode not in ("nearest", "nearest-exact"):
            found["align_corners"] = self.align_corners
        return found


def _upsample(mode, input, output_size, scale_factors, align_corners=None):
    """torch._C._nn.upsample_<mode><dims>d(input, output_size, [align_corners,] scale_factors):
    the size from the scales (int64 truncation of in * scale), torch's checks, the kernel."""
    dims = input.dim() - 2
    _parse(mode, dims, input, output_size, scale_factors, align_corners)
    shape = tuple(input.shape)
    if output_size is not None:
        sizes = [int(s) for s in output_size]
        scales = (None,) * dims
    else:
        sizes = []
        for i in range(dims):
            value = shape[i + 2] * float(scale_factors[i])
            if not math.isfinite(value) or abs(value) >= 2.0 ** 63:
                raise RuntimeError("value cannot be converted to type int64_t without overflow")
            sizes.append(int(value))
        scales = tuple(float(s) for s in scale_factors)
    if mode in ("bilinear_aa", "bicubic_aa", "lanczos_aa"):
        raise NotImplementedError(f"interpolate(mode={mode[:-3]!r}, antialias=True) is not "
                                  "implemented in the engine")
    call = _Call(mode, dims, sizes, scales, align_corners)
    _check_sizes(input, sizes)
    nbytes = storage_nbytes(shape[:2] + tuple(sizes), input._data.dtype)
    try:
        return _forward(call, input)
    except MemoryError:  # (numpy's, for the output or its indices)
        raise RuntimeError(cannot_allocate(nbytes)) from None


def _parse(mode, dims, input, output_size, scale_factors, align_corners):
    """torch's parser's reading of the call its interpolate makes (a float ``size=2.5`` is
    spread over the dimensions unchecked, a scale factor is never checked in Python):
    torch._C._nn.upsample_<mode><dims>d(input, output_size, [align_corners,] scale_factors)
    taken by one of its overloads, or its TypeError."""
    name, printed, overloads = _overloads(mode, dims)
    args = (input, output_size, *(() if mode.startswith("nearest") else (align_corners,)),
            scale_factors)
    if not any(overload.parse(name, args, {}, False) for overload in overloads):
        raise signatures.refuse(name, printed, False, args, {}, notes=True, as_called=True)


@functools.cache
def _overloads(mode, dims):
    """The name of torch's operator for ``mode`` (``bilinear_aa``: antialias) in ``dims``
    dimensions, its two overloads as torch prints them, and as the parser reads them."""
    base = mode.removesuffix("_aa")
    name = {"nearest": "upsample_nearest", "nearest-exact": "_upsample_nearest_exact"}.get(
        base, f"upsample_{base}")
    name = f"_{name}{dims}d_aa" if mode.endswith("_aa") else f"{name}{dims}d"
    corners = "" if mode.startswith("nearest") else "bool align_corners, "
    scales = ", ".join(f"float? {scale} = None" for scale in _SCALE_NAMES[dims])
    printed = (f"(Tensor input, tuple of SymInts? output_size, {corners}"
               "tuple of floats? scale_factors)",
               f"(Tensor input, tuple of SymInts output_size, {corners}{scales}, *, "
               "Tensor out = None)")
    return name, printed, [signatures.Signature(text, False) for text in printed]


def _check_sizes(input, sizes):
    """torch's upsample_{1,2,3}d_common_check, then its check of an empty input (a batch of
    none is allowed, no channels is not)."""
    shape = list(input.shape)
    dims = len(sizes)
    if min(shape[2:]) <= 0 or min(sizes) <= 0:
        letters = {1: "W", 2: "HW", 3: "DHW"}[dims]
        given = ", ".join(f"{letter}: {size}" for letter, size in zip(letters, shape[2:]))
        wanted = ", ".join(f"{letter}: {size}" for letter, size in zip(letters, sizes))
        joint = ") and output (" if dims == 1 else ") output ("
        raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                           f"({given}{joint}{wanted})")
    if shape[1] == 0:
        raise RuntimeError(f"Non-empty {dims + 2}D data tensor expected but got a tensor with "
                           f"sizes {shape}")


# ====================================================================== the kernels
def _opmath(np_dtype):
    """What torch computes an input's indices and weights in: float64 for float64, else
    float32 (uint8's nearest too)."""
    return np.float64 if np_dtype == np.float64 else np.float32


def _fma(a, b, c):
    """a * b + c rounded once, in a's dtype (float32 or float64), broadcast."""
    a, b, c = np.broadcast_arrays(a, b, c)
    return fma64(a, b, c) if a.dtype == np.float64 else fma32(a, b, c)


def _scale(op, size, out, align_corners, scale):
    """torch's area_pixel_compute_scale in ``op``."""
    if align_corners:
        return op(size - 1) / op(out - 1) if out > 1 else op(0)
    if scale is not None and scale > 0:
        return op(1.0 / scale)
    return op(size) / op(out)


def _source_index(op, scale, out, align_corners, cubic, fused=True):
    """area_pixel_compute_source_index for every output index: scale * out, or
    scale * (out + 0.5) - 0.5, in one fused multiply-add where torch's compiler fused it
    (``fused``) (below 0: 0, except for cubic)."""
    o = np.arange(out).astype(op)
    if align_corners:
        return scale * o
    if not fused:
        real = scale * (o + op(0.5)) - op(0.5)
    else:
        real = _fma(np.full(out, scale, op), o + op(0.5), np.full(out, -0.5, op))
    return real if cubic else np.where(real < 0, op(0), real)


def _guard(op, real, size):
    """guard_index_and_lambda: the index below (floorf: through float32), at most size - 1,
    and the distance to it, clamped to [0, 1]."""
    index = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), size - 1)
    lam = real - index.astype(op)
    lam = np.where(lam < 0, op(0), lam)
    return index, np.where(lam > 1, op(1), lam)


def _linear_axis(op, store, size, out, align_corners, scale, fused=True):
    """compute_source_index_and_lambda for every output index: (i0, i1, lambda0, lambda1),
    the lambdas in ``store`` (the generic kernel's: the input's dtype)."""
    if size == out:  # (a copy)
        o = np.arange(out)
        return o, o, np.ones(out, store), np.zeros(out, store)
    s = _scale(op, size, out, align_corners, scale)
    i0, lam1 = _guard(op, _source_index(op, s, out, align_corners, False, fused), size)
    lam1 = lam1.astype(store)
    return i0, i0 + (i0 < size - 1), (store(1) - lam1).astype(store), lam1


def _cubic_coefficients(op, t, fused=True):
    """get_cubic_upsample_coefficients (A = -0.75), as torch's compiled code rounds them:
    ((A + 2) x - (A + 3)) x x + 1 step by step, ((A x - 5 A) x + 8 A) x - 4 A with its first
    two steps fused multiply-adds."""
    a = op(-0.75)

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + op(1)

    def far(x):
        if not fused:
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        inner = _fma(np.full_like(x, a), x, np.full_like(x, -5 * a))
        return _fma(inner, x, np.full_like(x, 8 * a)) * x - 4 * a

    x2 = op(1) - t
    return [far(t + op(1)), near(t), near(x2), far(x2 + op(1))]


def _cubic_axis(op, store, size, out, align_corners, scale):
    """The four indices (clamped to the input) and Keys' weights of each output index."""
    s = _scale(op, size, out, align_corners, scale)
    index, lam = _guard(op, _source_index(op, s, out, align_corners, True), size)
    coefficients = _cubic_coefficients(op, lam)
    return [(np.clip(index + j - 1, 0, size - 1), coefficients[j].astype(store))
            for j in range(4)]


def _nearest_index(exact, size, out, scale):
    """nearest_idx / nearest_exact_idx (the channels-last kernel's and every backward's): in
    float32; nearest copies at the same size and halves at twice the size."""
    o = np.arange(out)
    if not exact and out == size:
        return o
    if not exact and out == 2 * size:
        return o >> 1
    s = _scale(np.float32, size, out, False, scale)
    if exact:
        real = ((o + 0.5) * np.float64(s)).astype(np.float32)
    else:
        real = o.astype(np.float32) * s
    return np.minimum(np.floor(real).astype(np.int64), size - 1)


def _nearest_generic_index(exact, op, size, out, scale):
    """HelperInterpNearest(Exact)'s indices (the generic kernel): in ``op``, no shortcuts."""
    s = _scale(op, size, out, False, scale)
    if exact:
        real = _source_index(op, s, out, False, False) + op(0.5)
    else:
        real = s * np.arange(out).astype(op)
    return np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), size - 1)


def _kernel_name(call, input, channels_last_kernel):
    """The name torch's dispatch gives the kernel a dtype it is not compiled for meets."""
    if channels_last_kernel:
        kind = "nearest" if call.mode.startswith("nearest") else call.mode
        return f"upsample_{kind}{call.dims}d_channels_last"
    return {"nearest": "compute_indices_weights_nearest", "nearest-exact":
            "compute_indices_weights_nearest", "bicubic": "compute_indices_weights_cubic"}.get(
        call.mode, "compute_indices_weights_linear")


def _uses_channels_last_kernel(call, input):
    """torch's choice of its vectorised channels-last kernel (_use_vectorized_kernel_cond_2d,
    _3d): channels-last inputs with more than 3 channels, small 2-d outputs (height + width
    at most 128), and bilinear's images of 3 channels on one thread."""
    if call.mode == "bicubic" or call.dims == 1:
        return False
    many = input.shape[1] > 3
    if call.dims == 3:
        return input.is_contiguous(memory_format=channels_last_3d) and many
    cond = (input.is_contiguous(memory_format=channels_last) and many) or \
        sum(call.output_size) <= 128
    return cond or (call.mode == "bilinear" and torch_threads == 1 and input.shape[1] == 3)


def _forward(call, input):
    """The kernel: values, their layout (the input's suggested memory format), the node."""
    data = input._data
    kind = data.dtype
    cl = _uses_channels_last_kernel(call, input)
    allowed = kind in (np.float16, np.float32, np.float64) or (
        kind == np.uint8 and call.mode in ("nearest", "nearest-exact"))
    if kind == np.uint8 and call.mode in ("bilinear", "bicubic"):
        # (torch has a kernel of its own for these, the engine none: an empty input needs none)
        if data.size:
            raise NotImplementedError(f"interpolate(mode={call.mode!r}) of uint8 is not "
                                      "implemented in the engine")
        values = np.empty((*data.shape[:2], *call.output_size), kind)
    elif not allowed:
        raise NotImplementedError(f"\"{_kernel_name(call, input, cl)}\" not implemented for "
                                  f"'{scalar_type_name[input.dtype]}'")
    else:
        values = interpolate_values(call, data, cl)
    out = laid_out_as(values, input)
    return record(call.node_class(), out, (input,), self_sym_sizes=tuple(input.shape),
                  **call.state())


def interpolate_values(call, data, cl):
    """The resized values (a numpy array (N, C, *output_size) of data's dtype)."""
    dims, sizes = call.dims, call.output_size
    in_sizes = data.shape[2:]
    kind = data.dtype
    op = _opmath(kind)
    exact = call.mode == "nearest-exact"
    if call.mode in ("nearest", "nearest-exact"):
        out = data
        for d in range(dims):
            if cl:
                index = _nearest_index(exact, in_sizes[d], sizes[d], call.scales[d])
            else:
                index = _nearest_generic_index(exact, op, in_sizes[d], sizes[d], call.scales[d])
            out = np.take(out, index, axis=2 + d)
        return out
    planes = data.astype(op)
    if call.linear and cl:
        # (its compiled 3-d loop fuses the depth's and height's index, not the width's,
        # in float32)
        fused = [dims == 2 or op == np.float64 or d < 2 for d in range(dims)]
        axes = [_linear_axis(op, op, in_sizes[d], sizes[d], call.align_corners, call.scales[d],
                             fused[d]) for d in range(dims)]
        return _channels_last_linear(planes, axes, kind == np.float16).astype(kind)
    if call.linear:
        terms = []
        for d in range(dims):
            i0, i1, l0, l1 = _linear_axis(op, kind.type, in_sizes[d], sizes[d],
                                          call.align_corners, call.scales[d], op == np.float64)
            terms.append([(i0, l0), (i1, l1)])
    else:
        terms = [_cubic_axis(op, kind.type, in_sizes[d], sizes[d], call.align_corners,
                             call.scales[d]) for d in range(dims)]
    return _generic(planes, terms).astype(kind)


def _generic(planes, terms):
    """The generic kernel (InterpolateNonSeparable): the last dimension first, each a sum of
    products t * w in the opmath type, one fused multiply-add after the other, the first
    product fused into the second (t0 * w0 + t1 * w1 + ...)."""
    out = planes
    op = planes.dtype
    for d in reversed(range(len(terms))):
        axis = 2 + d
        shape = [1] * out.ndim
        shape[axis] = -1
        values = [np.take(out, index, axis=axis) for index, _ in terms[d]]
        weights = [w.astype(op).reshape(shape) for _, w in terms[d]]
        out = _fma(values[0], weights[0], values[1] * weights[1])
        for value, weight in zip(values[2:], weights[2:]):
            out = _fma(value, weight, out)
    return out


def _channels_last_linear(planes, axes, half=False):
    """The channels-last kernel: each output pixel the sum of its 2 ** dims corners' inputs
    times their weights (products of the lambdas, depth first); in the vector lanes (the first
    channels, a whole number of vectors) summed from the last corner, the last product fused,
    in the scalar tail from the first corner, the first product fused."""
    dims = len(axes)
    op = planes.dtype
    values, weights = [], []
    for corner in itertools.product((0, 1), repeat=dims):
        value, weight = planes, None
        for d, bit in enumerate(corner):
            index, lam = axes[d][bit], axes[d][2 + bit]
            value = np.take(value, index, axis=2 + d)
            shape = [1] * (dims + 2)
            shape[2 + d] = -1
            lam = lam.astype(op).reshape(shape)
            weight = lam if weight is None else weight * lam
        values.append(value)
        weights.append(weight)
    channels = planes.shape[1]
    lanes = AVX2_KERNEL_STEP // 2 * 4 // (2 if half else np.dtype(op).itemsize)
    vector = channels - channels % lanes
    out = np.empty(values[0].shape, op)
    if vector:
        part = [v[:, :vector] for v in values]
        if half:  # (float16's lanes, widened to float32: the other product of the two fused)
            total = _fma(part[-2], weights[-2], part[-1] * weights[-1])
        else:
            total = _fma(part[-1], weights[-1], part[-2] * weights[-2])
        for value, weight in zip(part[-3::-1], weights[-3::-1]):
            total = _fma(value, weight, total)
        out[:, :vector] = total
    if vector < channels:
        part = [v[:, vector:] for v in values]
        if half:  # (float16's tail: its compiler fuses the second product, not the first)
            total = _fma(part[1], weights[1], part[0] * weights[0])
        else:
            total = _fma(part[0], weights[0], part[1] * weights[1])
        for value, weight in zip(part[2:], weights[2:]):
            total = _fma(value, weight, total)
        out[:, vector:] = total
    return out


# ====================================================================== backward
class _UpsampleBackward(Node):
    """out = input resized:  d/dinput = each output's gradient put back on the inputs it was
    taken from, times their weights (added in torch's loop order)"""

    output_size: tuple
    self_sym_sizes: tuple
    mode = "nearest"
    dims = 2

    def call(self):
        scales = tuple(getattr(self, name) for name in _SCALE_NAMES[self.dims])
        return _Call(self.mode, self.dims, self.output_size, scales,
                     getattr(self, "align_corners", None))

    def backward(self, grad):
        return upsample_backward(self.call(), grad, self.self_sym_sizes)

    def jvp(self, tangent):
        """Forward mode: the same resize of the tangent."""
        call = self.call()
        return _forward(call, tangent)


def upsample_backward(call, grad, input_size):
    """torch's upsample_*_backward: the gradient put back, recorded (its own backward is the
    forward of the gradient)."""
    data = grad._data
    # (torch takes its channels-last kernel for a gradient contiguous as channels-last, an
    # ambiguous one of one channel too)
    values = backward_values(call, data, input_size, call.dims == 3 and grad.is_contiguous(
        memory_format=channels_last_3d))
    # (nearest's 3-d backward and bicubic's have no channels-last kernel: their gradient is
    # row-major)
    row_major = call.dims == 3 and call.mode.startswith("nearest") or call.mode == "bicubic"
    like = grad if not row_major else None
    result = laid_out_as(values, like)
    return record(_BACKWARD_NODES[call.mode, call.dims], result, (grad,),
                  **{k: v for k, v in call.state().items()})


def backward_values(call, grad, input_size, channels_last_grad=False):
    """The gradient of the input, as torch's backward kernels sum it: output positions in
    row-major order, their inputs (corners, taps) in the kernel's order, each added to the
    input's running sum (float16: in float32, rounded at the end)."""
    kind = grad.dtype
    op = _opmath(kind)
    dims = call.dims
    in_sizes = tuple(input_size[2:])
    sizes = call.output_size
    if call.mode == "bicubic" and in_sizes == tuple(sizes):
        # torch's bicubic backward kernel copies a gradient of the input's size whatever the
        # scales, though its forward resamples (scale_factor=1.25 of a 2 x 3 image: the same
        # size, other values): the gradient is torch's, not the forward's derivative
        return np.array(grad, kind).reshape(tuple(input_size))
    planes = grad.reshape(-1, math.prod(sizes)).astype(op)
    per_dim = []  # per spatial dim: a list of (index array over out, weight array or None)
    for d in range(dims):
        if call.mode in ("nearest", "nearest-exact"):
            index = _nearest_index(call.mode == "nearest-exact", in_sizes[d], sizes[d],
                                   call.scales[d])
            per_dim.append([(index, None)])
        elif call.linear:
            # (float32's channels-last 3-d loop: the width's index not fused, as forward's)
            fused = not (channels_last_grad and dims == 3 and d == 2 and op == np.float32)
            i0, i1, l0, l1 = _linear_axis(op, op, in_sizes[d], sizes[d], call.align_corners,
                                          call.scales[d], fused)
            per_dim.append([(i0, l0), (i1, l1)])
        else:
            per_dim.append(_bicubic_backward_taps(op, in_sizes[d], sizes[d], call.align_corners,
                                                  call.scales[d]))
    if call.mode == "bicubic":
        targets, sources, weights = _bicubic_contributions(per_dim, in_sizes, sizes)
    else:
        targets, sources, weights = _contributions(per_dim, in_sizes, sizes)
    total = _add_in_order(planes, targets, sources, weights, math.prod(in_sizes), call)
    return total.astype(kind).reshape(tuple(input_size))


def _bicubic_backward_taps(op, size, out, align_corners, scale):
    """UpSampleBicubic2d.cpp's backward: the unclamped taps and weights (clamped on use)."""
    s = _scale(op, size, out, align_corners, scale)
    index, lam = _guard(op, _source_index(op, s, out, align_corners, True), size)
    coefficients = _cubic_coefficients(op, lam, fused=False)
    return [(np.clip(index + j - 1, 0, size - 1), coefficients[j]) for j in range(4)]


def _contributions(per_dim, in_sizes, sizes):
    """Every (input, output, weight) of a nearest or linear backward, in the kernel's order:
    outputs row-major, then corners (depth, height, width bits), weight = product of the
    lambdas left to right."""
    grids = np.meshgrid(*[np.arange(n) for n in sizes], indexing="ij")
    source = np.ravel_multi_index([g.ravel() for g in grids], sizes)
    targets, weights = [], []
    for corner in itertools.product(*[range(len(taps)) for taps in per_dim]):
        flat, weight = 0, None
        for d, which in enumerate(corner):
            index, lam = per_dim[d][which]
            position = grids[d].ravel()
            flat = flat * in_sizes[d] + index[position]
            if lam is not None:
                weight = lam[position] if weight is None else weight * lam[position]
        targets.append(flat)
        weights.append(weight)
    count = len(targets)
    targets = np.stack(targets, axis=1).ravel()  # (outputs, corners): row-major order
    sources = np.repeat(source, count)
    if weights[0] is None:
        return targets, sources, None
    return targets, sources, np.stack(weights, axis=1).ravel()


def _bicubic_contributions(per_dim, in_sizes, sizes):
    """UpSampleBicubic2d.cpp's backward order: outputs row-major, then the x taps, then the
    y taps; value = (grad * y coefficient) * x coefficient."""
    (y_taps, x_taps), (_, width) = per_dim, in_sizes
    oh, ow = sizes
    ys, xs = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    ys, xs = ys.ravel(), xs.ravel()
    targets, ycoef, xcoef = [], [], []
    for ii in range(4):
        for jj in range(4):
            targets.append(y_taps[jj][0][ys] * width + x_taps[ii][0][xs])
            ycoef.append(y_taps[jj][1][ys])
            xcoef.append(x_taps[ii][1][xs])
    targets = np.stack(targets, axis=1).ravel()
    sources = np.repeat(ys * ow + xs, 16)
    return targets, sources, (np.stack(ycoef, axis=1).ravel(), np.stack(xcoef, axis=1).ravel())


def _add_in_order(planes, targets, sources, weights, size, call):
    """Each plane's contributions added to its input element in the order given: rounds of
    the first contribution of every element, then the second ... (each a fused
    multiply-add w * g + sum, or a plain add for nearest)."""
    op = planes.dtype
    total = np.zeros((planes.shape[0], size), op)
    if not targets.size:
        return total
    order = np.argsort(targets, kind="stable")
    sorted_targets = targets[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_targets)) + 1]
    rank = np.arange(targets.size) - np.repeat(starts, np.diff(np.r_[starts, targets.size]))
    for r in range(int(rank.max()) + 1):
        chosen = order[rank == r]
        where, values = targets[chosen], planes[:, sources[chosen]]
        if weights is None:
            total[:, where] += values
        elif isinstance(weights, tuple):
            total[:, where] += (values * weights[0][chosen]) * weights[1][chosen]
        else:
            total[:, where] = _fma(np.broadcast_to(weights[chosen], values.shape), values,
                                   total[:, where])
    return total


class _UpsampleBackwardBackward(Node):
    """out = grad put back:  d/dgrad = the resize of the gradient again"""

    output_size: tuple
    mode = "nearest"
    dims = 2
    call = _UpsampleBackward.call

    def backward(self, grad):
        return _forward(self.call(), grad)


_NODES, _BACKWARD_NODES = {}, {}


def _node_classes():
    names = {"nearest": "Nearest", "nearest-exact": "NearestExact", "linear": "Linear",
             "bilinear": "Bilinear", "trilinear": "Trilinear", "bicubic": "Bicubic"}
    found = {}
    for mode, dims in (("nearest", 1), ("nearest", 2), ("nearest", 3), ("nearest-exact", 1),
                       ("nearest-exact", 2), ("nearest-exact", 3), ("linear", 1),
                       ("bilinear", 2), ("trilinear", 3), ("bicubic", 2)):
        scales = _SCALE_NAMES[dims]
        annotations = {"align_corners": bool} if mode not in ("nearest", "nearest-exact") else {}
        annotations.update({name: object for name in scales})
        for base, table, suffix in ((_UpsampleBackward, _NODES, "Backward0"),
                                    (_UpsampleBackwardBackward, _BACKWARD_NODES,
                                     "BackwardBackward0")):
            name = f"Upsample{names[mode]}{dims}D{suffix}"
            cls = type(name, (base,), {"__annotations__": dict(annotations), "mode": mode,
                                       "dims": dims, "__module__": __name__,
                                       "__doc__": base.__doc__})
            table[mode, dims] = cls
            found[name] = cls
    return found


globals().update(_node_classes())

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]
