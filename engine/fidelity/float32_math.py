"""torch's float32 exp, log, sin, cos, tanh, sigmoid and pow on the CPU, reproduced with numpy.

numpy's float32 exp is off by an ulp from torch's for four inputs in ten. One ulp is invisible
in a printed 0.5403, but it shows in ``exp(10.)`` (22026.4648 in torch, 22026.4668 in numpy)
and, compounded over a long training loop, in the fourth digit of a loss. Where torch 2.15
takes each function from (measured on x86-64 Linux with the PyPI wheel; bench/float32_math.py
prints how often each op agrees):

* **Intel MKL** computes exp, log, sin, cos and tanh (and sqrt): the kernels of these ops
  hand whole contiguous runs to MKL's vector math (``vmsExp`` ... in "high accuracy"
  mode), so every element is computed the same way wherever it sits. MKL's algorithms
  are not published, and MKL picks a kernel per processor: on an AMD EPYC it runs one
  whose exp agrees with its AVX-512 kernel (for Intel CPUs) on 98.4% of inputs, and whose
  log is not correctly rounded where the AVX-512 one's is. Its results are within 0.55
  to 0.8 ulp of the exact value. The engine returns the **correctly rounded** value
  (computed in float64, rounded once to float32): on that EPYC it is MKL's answer for
  99% of exp inputs, 93% (near 1) to 99% of log's, 95% of sin's and cos's, 99.9% of
  tanh's, against 60% to 96% for numpy's float32 functions; the printed tensors agree.
  Bit for bit identity would need MKL itself.
* **SLEEF, then the C library**, for sigmoid and pow: their kernels run torch's
  ``vectorized_loop`` (ATen/native/cpu/Loops.h), which walks each row of the result in
  steps of two SIMD vectors (32 floats with AVX-512, 16 with AVX2) computed by SLEEF's
  ``expf``/``powf`` (the 1-ulp "u10" versions), and computes the few elements left at the
  end of the row (the tail) one by one with the C library's ``expf``, ``powf`` or
  ``pow``. So the same input gives a different last bit at a different position:
  ``sigmoid`` of 31 elements is all C library, of 32 all SLEEF. Both are public: this
  module replays SLEEF's float32 algorithms step by step (with an exact fused
  multiply-add, as SLEEF is compiled with FMA) and glibc's (in float64, as glibc
  computes them), and picks per element as torch's loop does. That is bit for bit.
  (pow's exponents 2, 3, -1, -2, 0.5 and -0.5 have shortcuts, x * x ... and MKL's sqrt
  for 0.5: see ops/arithmetic.py.)

Which elements the loop vectorises depends on the tensor's layout (a row is the innermost
run of the result after TensorIterator merges dimensions; a strided input has no vector
steps), on the CPU (``ATEN_CPU_CAPABILITY``, else AVX-512 or AVX2 as numpy detects them)
and on torch's thread count for tensors of 32,768 elements or more (each thread's chunk
has its own tail): the engine takes ``MKL_NUM_THREADS`` / ``OMP_NUM_THREADS`` as torch
does, else the number of physical cores (on Linux; the number of CPUs elsewhere).

Elsewhere, best effort: on ARM torch has no MKL (SLEEF computes exp ... for every element;
the engine still answers correctly rounded), and the tails of macOS and Windows come from
their own C libraries, not glibc.
"""
import glob
import math
import os
import platform

import numpy as np

from .layout import contiguous_strides, iterator_strides
from .rounding import fma32_flat

f32 = np.float32


# ====================================================================== where torch vectorises
def _cpu_features():
    try:
        from numpy._core._multiarray_umath import __cpu_features__  # numpy 2
    except ImportError:  # pragma: no cover - numpy 1
        from numpy.core._multiarray_umath import __cpu_features__
    return __cpu_features__


def _torch_vector_loop():
    """(floats per step of torch's vectorised loop, whether its vector math is SLEEF's).

    torch picks its kernels once, as ATen's DispatchStub does: ``ATEN_CPU_CAPABILITY`` if
    set, else AVX-512 (with VL, BW, DQ and FMA), else AVX2 (with FMA), else its plain C++
    build, whose "vectors" of 8 floats call the C library element by element.
    """
    capability = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if capability not in ("avx512", "avx2", "default"):
        features = _cpu_features()
        if all(features.get(f) for f in ("AVX512F", "AVX512VL", "AVX512BW", "AVX512DQ", "FMA3")):
            capability = "avx512"
        elif features.get("AVX2") and features.get("FMA3"):
            capability = "avx2"
        elif platform.machine().lower() in ("arm64", "aarch64"):
            capability = "neon"  # 128-bit vectors of 4 floats (not verified: no ARM torch here)
        else:
            capability = "default"
    return {"avx512": (32, True), "avx2": (16, True), "neon": (8, True),
            "default": (16, False)}[capability]


def torch_fuses():
    """Whether torch's kernels were built with fused multiply-adds (its AVX2 and AVX-512
    builds: their compiler fuses ``a * b + c`` in scalar loops too)."""
    return _torch_vector_loop()[1]


def _torch_threads():
    """How many threads torch splits big elementwise ops over: its environment variables,
    else the number of physical cores."""
    threads = 0
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # the later one wins, as in torch
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            threads = int(value)
    return threads or _physical_cores() or os.cpu_count() or 1


def _physical_cores():
    """Cores, not hyperthreads (Linux's /sys; elsewhere unknown: None)."""
    cores = set()
    for topology in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/topology"):
        try:
            with open(os.path.join(topology, "physical_package_id")) as package, \
                    open(os.path.join(topology, "core_id")) as core:
                cores.add((package.read().strip(), core.read().strip()))
        except OSError:
            return None
    return len(cores) or None


STEP, SLEEF = _torch_vector_loop()
# Most of torch's kernels are registered for AVX2 only (ATen's REGISTER_DISPATCH): a CPU with
# AVX-512 runs their AVX2 code, 16 float32 a step; only some (sigmoid, pow ...) have AVX-512
# code of their own (STEP). Measured with torch 2.15 on an AMD EPYC: float16 add with alpha
# and rsqrt, the activations' backward kernels (hardtanh, softshrink ...) step as on AVX2.
AVX2_KERNEL_STEP = min(STEP, 16)
HALF_STEP = AVX2_KERNEL_STEP * 2
torch_threads = _torch_threads()


def simd_lanes(np_dtype):
    """Elements in one of torch's SIMD vectors (Vectorized<T>::size()) on this CPU."""
    return STEP // 2 * 4 // np.dtype(np_dtype).itemsize
  # tests set it to torch.get_num_threads()
_GRAIN = 32768  # TensorIterator splits a loop over threads only from this many elements
_BLOCK = 2**15  # SLEEF's replay goes through big arrays in blocks that stay in the cache


def _element_strides(x, shape):
    """x's strides in elements once broadcast to ``shape`` (0 along broadcast dimensions)."""
    if np.ndim(x) == 0:
        return (0,) * len(shape)
    x = np.broadcast_to(x, shape)
    return tuple(s // x.itemsize for s in x.strides)


def vector_lanes(shape, operands, row_major_result, step=STEP, result_strides=None):
    """Which elements of an elementwise result torch's vectorised loop computes with SIMD.

    Returns an int k when they are the first k in row-major order, else a flat boolean
    array in row-major order. TensorIterator orders the dimensions (the result is laid out
    like its inputs), merges neighbours that step through every operand as one, and runs
    ``vectorized_loop`` over each row of the innermost merged dimension, split at thread
    chunks, if every operand steps by one element there (or, for one operand, by zero: a
    broadcast number); otherwise its basic loop computes every element the scalar way.
    ``row_major_result``: torch writes into a row-major tensor made beforehand, whose
    order then rules, instead of laying the result out like the inputs; ``result_strides``
    (in elements): into a view of another shape's tensor (half of one, say).
    """
    n = math.prod(shape)
    chunk = n  # each thread's share
    if torch_threads > 1 and n >= _GRAIN:
        chunk = -(-n // min(torch_threads, -(-n // _GRAIN)))
    if chunk == n and result_strides in (None, contiguous_strides(shape)) and all(
            np.ndim(x) == 0 or (x.shape == shape and x.flags.c_contiguous) for x in operands):
        return n - n % step  # one row: the common case
    strides = [_element_strides(x, shape) for x in operands]
    if result_strides is None:
        result_strides = (contiguous_strides(shape) if row_major_result else iterator_strides(
            shape, strides, all(np.shape(x) == shape for x in operands)))
    dims = sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: result_strides[d])
    row = 1
    for d in dims:  # merge dimensions while every operand (and the result) steps evenly
        if row > 1 and any(row * s[dims[0]] != s[d] for s in [result_strides, *strides]):
            break
        row *= shape[d]
    inner = sorted(s[dims[0]] for s in strides) if dims else []
    if inner and inner != [1] * len(inner) and inner != [0] + [1] * (len(inner) - 1) or \
            dims and result_strides[dims[0]] != 1:
        return 0  # a strided operand (or result): all scalar
    # each element's place in the loop's order (the result's memory order, without the gaps
    # of a result that is a view into a bigger tensor)
    order_strides, step_size = [0] * len(shape), 1
    for d in dims:
        order_strides[d], step_size = step_size, step_size * shape[d]
    offset = np.zeros(shape, np.int64)
    for d, size in enumerate(shape):
        offset += (np.arange(size) * order_strides[d]).reshape((-1,) + (1,) * (len(shape) - d - 1))
    offset = offset.reshape(-1)
    start = np.maximum(offset - offset % row, offset - offset % chunk)  # of its row or chunk
    end = np.minimum(np.minimum(offset - offset % row + row, offset - offset % chunk + chunk), n)
    length = end - start
    return offset - start < length - length % step


def vectorised_elements(shape, operands, np_dtype):
    """Which elements of an elementwise result of ``operands`` (numpy arrays or numbers) in
    ``np_dtype`` torch's vectorised loop computes with SIMD, the others being its scalar
    loop's: an int k (the first k in row-major order) or a flat boolean array (row-major).
    For kernels whose two paths differ in more than rounding (logit's gradient at -0.0)."""
    step = STEP * 4 // np.dtype(np_dtype).itemsize
    return vector_lanes(tuple(shape), operands, False, step)


def _evaluate(vector, scalar, *operands, row_major_result=False, step=STEP,
              result_strides=None):
    """``vector(*operands)`` where torch vectorises, ``scalar(*operands)`` elsewhere.

    Both functions take flat float32 arrays of one length (a number is repeated);
    ``step``: elements per step of torch's loop (float16's are twice float32's).
    """
    shape = operands[0].shape if len(operands) == 1 else \
        np.broadcast_shapes(*(np.shape(x) for x in operands))
    n = math.prod(shape)
    lanes = vector_lanes(shape, operands, row_major_result, step, result_strides)
    flat = [x.reshape(-1) if np.shape(x) == shape else
            np.broadcast_to(x, shape).reshape(-1) if np.ndim(x) else np.full(n, x, f32)
            for x in operands]
    with np.errstate(all="ignore"):
        if isinstance(lanes, int):  # the first ``lanes`` elements are vectorised
            if lanes == 0:
                return scalar(*flat).reshape(shape)
            result = np.empty(n, f32)
            for start in range(0, lanes, _BLOCK):
                block = slice(start, min(start + _BLOCK, lanes))
                result[block] = vector(*(x[block] for x in flat))
            if lanes < n:
                result[lanes:] = scalar(*(x[lanes:] for x in flat))
        else:
            result = np.empty(n, f32)
            result[lanes] = vector(*(x[lanes] for x in flat))
            result[~lanes] = scalar(*(x[~lanes] for x in flat))
    return result.reshape(shape)


# ====================================================================== atan2
def atan2(y, x):
    """torch.atan2 of float32 arrays (or numbers): where its loop vectorises, SLEEF's
    atan2f_u10, nearly always the value rounded once from float64 (99.2% of random inputs
    agree bit for bit, on AVX2 and AVX-512 alike); elsewhere the C library's atan2f."""
    return _evaluate(_atan2_vector, _atan2_scalar, np.asarray(y, f32), np.asarray(x, f32))


def _atan2_vector(y, x):
    return np.arctan2(y.astype(np.float64), x.astype(np.float64)).astype(f32)


def _atan2_scalar(y, x):
    if _numpy_atan2f_is_libcs():
        return np.arctan2(y, x)
    libc = _libc_atan2f()
    return np.fromiter((libc(a, b) for a, b in zip(y.tolist(), x.tolist())), f32, y.size)


def _libc_atan2f():
    import ctypes
    import ctypes.util
    function = ctypes.CDLL(ctypes.util.find_library("m") or None).atan2f
    function.restype, function.argtypes = ctypes.c_float, (ctypes.c_float, ctypes.c_float)
    return function


_ATAN2_PROBE = np.linspace(-3, 3, 61, dtype=f32)
_atan2_checked = []


def _numpy_atan2f_is_libcs():
    """numpy's float32 arctan2 is the C library's atan2f, except where numpy has SIMD code of
    its own for it (AVX-512: Intel's SVML); checked once, on a few values."""
    if not _atan2_checked:
        try:
            libc = _libc_atan2f()
            y, x = np.meshgrid(_ATAN2_PROBE, _ATAN2_PROBE[::-1] * f32(1.7))
            same = np.array_equal(np.arctan2(y, x).reshape(-1), np.array(
                [libc(a, b) for a, b in zip(y.reshape(-1).tolist(), x.reshape(-1).tolist())],
                f32))
        except (OSError, AttributeError):  # (no C library to ask: numpy's then)
            same = True
        _atan2_checked.append(same)
    return _atan2_checked[0]


# ====================================================================== MKL's functions
def _correctly_rounded(ufunc, x):
    """float32 ufunc(x), rounded once from float64 (numpy's float64 functions are within an ulp
    of float64, 2**29 times finer than float32's: a second rounding almost never matters)."""
    with np.errstate(all="ignore"):
        return ufunc(x.astype(np.float64)).astype(f32)


def exp(x):
    """torch.exp of float32 ``x`` (MKL's is within 0.55 ulp: this is the nearest float)."""
    return _correctly_rounded(np.exp, x)


def log(x):
    """torch.log of float32 ``x`` (MKL's is within 0.8 ulp: this is the nearest float)."""
    return _correctly_rounded(np.log, x)


def sin(x):
    """torch.sin of float32 ``x`` (MKL's is within 0.6 ulp: this is the nearest float)."""
    return _correctly_rounded(np.sin, x)


def cos(x):
    """torch.cos of float32 ``x`` (MKL's is within 0.6 ulp: this is the nearest float)."""
    return _correctly_rounded(np.cos, x)


def tanh(x):
    """torch.tanh of float32 ``x`` (MKL's is within 0.52 ulp: this is the nearest float)."""
    return _correctly_rounded(np.tanh, x)


# ====================================================================== torch's kernels
def evaluate_half(vector, scalar, *operands, result_strides=None):
    """A float16 result of ``vector`` where torch's loop vectorises (steps of ``HALF_STEP``
    elements), ``scalar`` elsewhere, each rounded once to float16."""
    return _evaluate(lambda *x: vector(*x).astype(np.float16),
                     lambda *x: scalar(*x).astype(np.float16), *operands,
                     step=HALF_STEP, result_strides=result_strides).astype(np.float16)


def rsqrt16(x):
    """torch.rsqrt of float16 ``x``: its vector loop computes 1 / sqrt(x) in float32 and
    rounds once; its scalar loop (short rows, tails, strided inputs) rounds sqrt(x) to
    float16 first (std::sqrt of a Half is a Half)."""
    def vector(x):
        return np.reciprocal(np.sqrt(x.astype(f32)))

    def scalar(x):
        return np.reciprocal(np.sqrt(x).astype(np.float16).astype(f32))

    return _evaluate(vector, scalar, x, step=HALF_STEP).astype(np.float16)


def sigmoid(x, result_strides=None):
    """torch.sigmoid of float32 ``x``: 1 / (1 + exp(-x)) in float32, exp from SLEEF or libc
    (of float16 ``x`` the same, rounded once to float16). ``result_strides``: written into a
    view with these strides (``sigmoid_out``), whose order decides what is vectorised."""
    if x.dtype == np.float16:
        return evaluate_half(lambda x: _sigmoid_vector(x.astype(f32)),
                             lambda x: _sigmoid_scalar(x.astype(f32)), x,
                             result_strides=result_strides)
    return _evaluate(_sigmoid_vector, _sigmoid_scalar, x, result_strides=result_strides)


def _sigmoid_vector(x):
    e = sleef_expf(-x) if SLEEF else libc_expf(-x)
    return f32(1) / (f32(1) + e)


def _sigmoid_scalar(x):
    return f32(1) / (f32(1) + libc_expf(-x))


def glu(a, b):
    """torch's glu of float32 halves ``a`` and ``b``: a * (1 / (1 + exp(-b))) in float32,
    exp from SLEEF or libc as sigmoid's; of float16 halves the same in float32, rounded once
    to float16."""
    if a.dtype == np.float16:
        return evaluate_half(lambda a, b: a.astype(f32) * _sigmoid_vector(b.astype(f32)),
                             lambda a, b: a.astype(f32) * _sigmoid_scalar(b.astype(f32)), a, b)
    return _evaluate(lambda a, b: a * _sigmoid_vector(b), lambda a, b: a * _sigmoid_scalar(b),
                     a, b)


def pow(base, exponent, row_major_result=False):  # noqa: A001 - torch.pow
    """torch.pow of float32 tensors (or a number and a tensor): SLEEF's powf or libc's powf.

    ``row_major_result``: torch computes number ** tensor into a row-major tensor.
    """
    vector = sleef_powf if SLEEF else libc_powf
    return _evaluate(vector, libc_powf, base, exponent, row_major_result=row_major_result)


def pow_scalar(base, exponent):
    """torch.pow(float32 tensor, Python number) for an exponent without a shortcut (2, 3, 0.5 ...).

    The vectorised loop raises to the exponent rounded to float32; the scalar tail calls C's
    double ``pow(base, exponent)`` with the exponent as given, and rounds that to float32.
    So ``x ** 1.7`` uses 1.70000005 in its vector steps and 1.7 in its tail.
    """
    def vector(x):
        return (sleef_powf if SLEEF else libc_powf)(x, np.full(x.size, exponent, f32))

    def tail(x):
        return np.power(x.astype(np.float64), float(exponent)).astype(f32)

    return _evaluate(vector, tail, base)


# ====================================================================== glibc's expf and powf
# glibc (since 2.28) computes expf and powf in float64 with small tables, the algorithms of
# ARM's optimized-routines (MIT licensed): 2^x = 2^(k/32) * 2^r with k an integer, |r| <= 1/64,
# a table of 2^(i/32) and a cubic for 2^r. Done here with the same float64 operations.
# (glibc's x86-64 build fuses some of them; a fused float64 step differs from two roundings
# by a float64 ulp, which moves the float32 result for about one input in 2^29.)
def _exp2_table():
    """glibc's table of 2^(i/32): the bits of the nearest double, minus i << 47 (then adding
    k << 47 to entry k % 32 gives the bits of 2^(k/32)). Computed with integers here: 2^(i/32)
    is irrational, so rounding to 52 bits never ties."""
    table = []
    for i in range(32):
        target = 1 << (62 * 32 + i)  # (2^(i/32) * 2^62) ** 32
        low, high = 1 << 62, 1 << 63
        while high - low > 1:  # integer 32nd root, by bisection
            middle = (low + high) // 2
            low, high = (middle, high) if middle ** 32 <= target else (low, middle)
        mantissa = (low + (1 << 9)) >> 10  # 62 fraction bits -> 52, rounded to nearest
        table.append(((0x3FF << 52) + mantissa - (1 << 52) - (i << 47)) % 2**64)
    return np.array(table, np.uint64)


_EXP2_TABLE = _exp2_table()
_EXP2_POLY = [float.fromhex(h) for h in ("0x1.c6af84b912394p-5", "0x1.ebfce50fac4f3p-3",
                                         "0x1.62e42ff0c52d6p-1")]  # 2^r ~ C0 r^3 + ... + 1
_SHIFT = float.fromhex("0x1.8p+52") / 32  # adding it rounds to a multiple of 1/32
_SHIFT_BITS = np.float64(_SHIFT).view(np.int64)


def _exp2(x):
    """2^x for float64 ``x`` in [-150, 128], as glibc's exp2_inline (powf's last step)."""
    shifted = x + _SHIFT  # x rounded to k/32, k in the low bits
    k = shifted.view(np.int64) - _SHIFT_BITS
    r = x - (shifted - _SHIFT)
    c0, c1, c2 = _EXP2_POLY
    return ((c0 * r + c1) * (r * r) + (c2 * r + 1)) * _exp2_scale(k)


def _exp2_scale(k):
    """2^(k/32) for int64 ``k``: the table entry k % 32 with k/32 added to its exponent."""
    return (_EXP2_TABLE[k & 31] + (k.astype(np.uint64) << np.uint64(47))).view(np.float64)


_INV_LN2_32 = float.fromhex("0x1.71547652b82fep+0") * 32
_EXPF_POLY = [c / 32 ** p for c, p in zip(_EXP2_POLY, (3, 2, 1))]  # for 2^(r/32)


def libc_expf(x):
    """glibc's expf of a float32 array: 2^(k/32) 2^(r/32) with k + r = 32 x / ln 2.

    (glibc returns inf above ln(2^128) and 0 below ln(2^-150); from the clipped inputs the
    formula rounds to them too, and nan stays nan.)
    """
    with np.errstate(all="ignore"):
        z = np.multiply(np.clip(x, -104, 89), _INV_LN2_32, dtype=np.float64)
        kd = np.rint(z)  # glibc: (z + 1.5*2^52) - 1.5*2^52, which also rounds ties to even
        r = z - kd
        c0, c1, c2 = _EXPF_POLY
        result = ((c0 * r + c1) * (r * r) + (c2 * r + 1)) * _exp2_scale(kd.astype(np.int64))
        return result.astype(f32)


# log2(x) = k + log2(c) + log2(z / c) for x = 2^k z, z in [0.7, 1.4), c the centre of
# z's sixteenth of that range (the constants are ARM's and glibc's)
_POWF_INVC = np.array([float.fromhex(h) for h in (
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0", "0x1.3c995b0b80385p+0",
    "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0", "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0",
    "0x1.0953f419900a7p+0", "0x1p+0", "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1",
    "0x1.b2036576afce6p-1", "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1",
    "0x1.767dcf5534862p-1")])
_POWF_LOG2C = np.array([float.fromhex(h) for h in (
    "-0x1.efec65b963019p-2", "-0x1.b0b6832d4fca4p-2", "-0x1.7418b0a1fb77bp-2",
    "-0x1.39de91a6dcf7bp-2", "-0x1.01d9bf3f2b631p-2", "-0x1.97c1d1b3b7afp-3",
    "-0x1.2f9e393af3c9fp-3", "-0x1.960cbbf788d5cp-4", "-0x1.a6f9db6475fcep-5", "0x0p+0",
    "0x1.338ca9f24f53dp-4", "0x1.476a9543891bap-3", "0x1.e840b4ac4e4d2p-3",
    "0x1.40645f0c6651cp-2", "0x1.88e9c2c1b9ff8p-2", "0x1.ce0a44eb17bccp-2")])
_POWF_LOG2_POLY = [float.fromhex(h) for h in ("0x1.27616c9496e0bp-2", "-0x1.71969a075c67ap-2",
                                              "0x1.ec70a6ca7baddp-2", "-0x1.7154748bef6c8p-1",
                                              "0x1.71547652ab82bp0")]


def _log2(bits):
    """log2 of the positive float32 numbers with these bits (int64; a subnormal's bits
    normalised, with a negative exponent), in float64, as glibc's log2_inline."""
    offset = bits - 0x3F330000  # so that z = x / 2^k lands in [0x3f330000, 2 * 0x3f330000)
    i = (offset >> 19) & 15
    top = offset & -0x800000  # (0xff800000 as a signed mask)
    z = (bits - top).astype(np.uint32).view(f32).astype(np.float64)
    r = z * _POWF_INVC[i] - 1
    a0, a1, a2, a3, a4 = _POWF_LOG2_POLY
    r2 = r * r
    return ((a0 * r + a1) * (r2 * r2)
            + ((a2 * r + a3) * r2 + (a4 * r + (_POWF_LOG2C[i] + (top >> 23)))))


def libc_powf(x, y):
    """glibc's powf of float32 arrays of one length: 2^(y log2 x) in float64."""
    x_bits = x.view(np.uint32).astype(np.int64)
    with np.errstate(all="ignore"):
        ylogx = y * _log2(x_bits)
        result = _exp2(ylogx).astype(f32)
        # x not a positive normal number, or |y log2 x| >= 126: overflow, underflow, or y
        # inf or nan (a zero y gives 2^0 = 1, as glibc's branch for it)
        special = (x_bits < 0x00800000) | (x_bits >= 0x7F800000) | ~(np.abs(ylogx) < 126)
        if np.count_nonzero(special):
            result[special] = _powf_special(x[special], y[special])
    return result


def _zero_inf_nan(bits):
    """glibc's zeroinfnan test on float32 bits (2 * bits - 1 in 32-bit unsigned arithmetic)."""
    return (2 * bits - 1) % 2**32 >= 2 * 0x7F800000 - 1


def _is_integer(y_bits):
    """glibc's checkint on float32 bits: 0 if not an integer, 1 if odd, 2 if even."""
    exponent = (y_bits >> 23) & 0xFF
    fraction_bits = np.clip(0x7F + 23 - exponent, 0, 31)
    fraction = y_bits & ((np.int64(1) << fraction_bits) - 1)
    odd = (y_bits >> fraction_bits) & 1
    return np.where(exponent < 0x7F, 0, np.where(exponent > 0x7F + 23, 2,
                    np.where(fraction != 0, 0, np.where(odd == 1, 1, 2))))


def _powf_special(x, y):
    """glibc's powf where x is negative, zero, subnormal, inf or nan, y is zero, inf or nan,
    or the result overflows or underflows: its branches, in its order."""
    x_bits, y_bits = (v.view(np.uint32).astype(np.int64) for v in (x, y))
    with np.errstate(all="ignore"):
        y_int = _is_integer(y_bits)
        negative = x_bits >> 31 == 1
        odd_negative = negative & (y_int == 1)
        abs_bits = x_bits & 0x7FFFFFFF
        subnormal = abs_bits < 0x00800000  # normalised, with a negative biased exponent
        scaled = (np.abs(x) * f32(2.0**23)).view(np.uint32).astype(np.int64) - (23 << 23)
        ylogx = y * _log2(np.where(subnormal, scaled, abs_bits))
        result = _exp2(np.clip(ylogx, -200, 200)).astype(f32)
        result[ylogx > float.fromhex("0x1.fffffffd1d571p+6")] = np.inf  # > 0x1.ffffffp127
        result[ylogx <= -150] = 0
        result = np.where(odd_negative, -result, result)
        result[negative & (y_int == 0)] = np.nan  # a negative number to a fractional power
        # x is 0, inf or nan: x * x, or its reciprocal, negative for an odd power of -x
        square = np.where(odd_negative, -(x * x), x * x)
        result = np.where(_zero_inf_nan(x_bits),
                          np.where(y_bits >> 31 == 1, f32(1) / square, square), result)
        # y is 0, inf or nan
        infinite_y = np.where(abs_bits == 0x3F800000, f32(1),
                              np.where((np.abs(x) < 1) == (y_bits >> 31 == 0), f32(0), y * y))
        infinite_y = np.where(np.isnan(x) | np.isnan(y), x + y, infinite_y)
        infinite_y[(x_bits == 0x3F800000) | ((y_bits & 0x7FFFFFFF) == 0)] = 1  # 1^y, x^0
        return np.where(_zero_inf_nan(y_bits), infinite_y, result).astype(f32)


# ====================================================================== SLEEF's expf and powf
# SLEEF 3.x, src/libm/sleefsimdsp.c (Boost licensed): xexpf and xpowf as compiled with FMA
# (``vmla`` is a fused multiply-add on AVX2, AVX-512 and NEON). Each step below is one of
# SLEEF's float32 operations, in its order; ``fma`` is the fused one.
_R_LN2 = f32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = f32(0.693145751953125)  # ln 2 in two parts: _L2U has few bits, so q * _L2U is exact
_L2L = f32(1.428606765330187045e-06)


def _fma(a, b, c):
    """float32 a * b + c with one rounding, as the FMA instruction computes it (a, b, c:
    float32 arrays of one length, or numbers).

    In float64 the product of two float32 numbers is exact and the sum is rounded once;
    rounding that to float32 gives the fused result unless the float64 sum sits exactly
    halfway between two float32 numbers and got there by rounding: those elements, very
    rare, are redone exactly. (A sum in float32's subnormal range comes out of SLEEF's
    steps exact, so rounding it once is right.)
    """
    product = np.multiply(a, b, dtype=np.float64)
    total = product + c
    result = total.astype(f32)
    tie = (total.view(np.int64) & 0x1FFFFFFF) == 0x10000000
    if np.count_nonzero(tie):  # often exact sums with 25 bits: those are fine
        a, b, c = (v[tie] if np.ndim(v) else v for v in (a, b, c))
        product, total = product[tie], total[tie]
        rounded = _sum_error(product, np.float64(c), total) != 0
        if np.count_nonzero(rounded):
            where = np.flatnonzero(tie)[rounded]
            result[where] = fma32_flat(*(v[rounded] if np.ndim(v) else v for v in (a, b, c)))
    return result


def _sum_error(p, c, total):
    """(p + c) - total exactly, for total = p + c rounded (Knuth's TwoSum)."""
    c_part = total - p
    return (p - (total - c_part)) + (c - c_part)


def _product_error(x, y, product):
    """x * y - product, fused, where product is x * y rounded: exact in float64, and in float32."""
    return (np.multiply(x, y, dtype=np.float64) - product).astype(f32)


_EXP_POLYNOMIAL = (0.00139304355252534151077271, 0.00833336077630519866943359,
                   0.0416664853692054748535156, 0.166666671633720397949219, 0.5)
_BLOCK = 2048  # elements whose eight float64 sums (128 KiB) stay in the cache


def sleef_expf(d):
    """SLEEF's expf_u10 of a float32 array: e^d = 2^q e^s, |s| <= ln2 / 2, e^s by a
    polynomial.

    Its eight fused steps run in blocks: each step's float64 sum is kept, and a block is
    checked once, at the end, for a sum halfway between two float32 numbers (where rounding
    the float64 sum may not give the fused result); such a rare block is computed again with
    every step exact."""
    flat = d.reshape(-1)
    if flat.size <= _BLOCK:
        return _sleef_expf_block(flat).reshape(d.shape)
    result = np.empty(flat.size, f32)
    for start in range(0, flat.size, _BLOCK):
        result[start:start + _BLOCK] = _sleef_expf_block(flat[start:start + _BLOCK])
    return result.reshape(d.shape)


def _sleef_expf_block(d):
    sums = np.empty((8, d.size))
    steps = iter(sums)

    def fused_kept(a, b, c):  # a * b + c, its float64 sum kept in the next row of sums
        total = next(steps)
        np.multiply(a, b, out=total, dtype=np.float64)
        np.add(total, c, out=total)
        return total.astype(f32)

    with np.errstate(all="ignore"):
        result = _sleef_expf_steps(d, fused_kept)
        if np.count_nonzero((sums.view(np.int64) & 0x1FFFFFFF) == 0x10000000):
            result = _sleef_expf_steps(d, _fma)
    return result


def _sleef_expf_steps(d, fused):
    # (below -104 SLEEF returns 0, and e^d rounds to 0 there: clipping at -105 keeps that;
    # above 100 it returns inf, and e^d overflows there: clipping at 101 keeps that)
    finite = np.minimum(np.maximum(d, f32(-105)), f32(101))
    q = np.rint(finite * _R_LN2).astype(np.int32)  # (any q for nan: the result is nan)
    qf = q.astype(f32)
    s = fused(qf, -_L2L, fused(qf, -_L2U, finite))
    u = fused(s, f32(0.000198527617612853646278381), _EXP_POLYNOMIAL[0])
    for c in _EXP_POLYNOMIAL[1:]:
        u = fused(u, s, c)
    u = fused(s * s, u, s)
    u += f32(1)
    # SLEEF multiplies by 2^(q >> 1), exactly, then by 2^(q - (q >> 1)), rounding once, as
    # ldexp does
    return np.ldexp(u, q)


def _pow2(q):
    """2^q for int32 q in float32's normal range, built from its bits."""
    return ((q + 0x7F) << 23).view(f32)


# Double-float arithmetic: a number as an unevaluated sum hi + lo of two float32 (pairs).
def _df_add(x, y):  # |x| >= |y|
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _df_add2(x, y):  # any magnitudes
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def _df_add2_float(x, y):  # pair + float, any magnitudes
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def _df_sum(x, y):  # float + float, any magnitudes
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _df_mul(x, y):
    s = x[0] * y[0]
    return s, _fma(x[0], y[1], _fma(x[1], y[0], _product_error(x[0], y[0], s)))


def _df_mul_float(x, y):
    s = x[0] * y
    return s, _fma(x[1], y, _product_error(x[0], y, s))


def _df_square(x):
    s = x[0] * x[0]
    return s, _fma(x[0] + x[0], x[1], _product_error(x[0], x[0], s))


def _df_div(n, d):
    t = f32(1) / d[0]
    s = n[0] * t
    u = _product_error(t, n[0], s)
    v = _fma(-d[1], t, _fma(-d[0], t, f32(1)))
    return s, _fma(s, v, _fma(n[1], t, u))


def _sleef_logk(d):
    """ln d, a double-float: d = m 2^e with m in [0.75, 1.5), ln m from x = (m-1) / (m+1)."""
    tiny = d < f32(1.17549435e-38)
    d = np.where(tiny, d * f32(2.0**64), d)
    e = (((d * f32(1 / 0.75)).view(np.int32) >> 23) & 0xFF) - 0x7F
    m = (d.view(np.int32) - (e << 23)).view(f32)
    e = np.where(tiny, e - 64, e)
    x = _df_div(_df_sum(f32(-1), m), _df_sum(f32(1), m))
    x2 = _df_square(x)
    t = _fma(f32(0.240320354700088500976562), x2[0], f32(0.285112679004669189453125))
    t = _fma(t, x2[0], f32(0.400007992982864379882812))
    c = (f32(0.66666662693023681640625), f32(3.69183861259614332084311e-09))
    s = _df_mul_float((f32(0.69314718246459960938), f32(-1.904654323148236017e-09)),
                      e.astype(f32))
    s = _df_add(s, (x[0] * f32(2), x[1] * f32(2)))
    return _df_add(s, _df_mul(_df_mul(x2, x), _df_add2(_df_mul_float(x2, t), c)))


def sleef_logf(d):
    """SLEEF's logf_u10 of a float32 array (torch's Vectorized<float>::log, in its softmax
    kernels): d = m 2^e with m in [0.75, 1.5), ln m = 2 atanh(x) with x = (m - 1) / (m + 1),
    its leading terms in double-float."""
    d = np.asarray(d, f32)
    with np.errstate(all="ignore"):
        tiny = d < f32(1.17549435e-38)
        scaled = np.where(tiny, d * f32(2.0**64), d).astype(f32)
        e = (((scaled * f32(1 / 0.75)).astype(f32).view(np.int32) >> 23) & 0xFF) - 0x7F
        m = (scaled.view(np.int32) - (e << 23)).view(f32)
        e = np.where(tiny, e - 64, e)
        s = _df_mul_float((f32(0.69314718246459960938), f32(-1.904654323148236017e-09)),
                          e.astype(f32))
        x = _df_div(_df_sum(f32(-1), m), _df_sum(f32(1), m))
        x2 = (x[0] * x[0]).astype(f32)
        t = _fma_any(_fma_any(np.full_like(x2, 0.3027294874), x2, np.full_like(x2, 0.3996108174)),
                     x2, np.full_like(x2, 0.6666694880))
        s = _df_add(s, ((x[0] * f32(2)).astype(f32), (x[1] * f32(2)).astype(f32)))
        tail = ((x2 * x[0]).astype(f32) * t).astype(f32)
        high = (s[0] + tail).astype(f32)  # (a pair plus a float, the pair the larger)
        low = ((s[0] - high).astype(f32) + tail).astype(f32) + s[1]
        result = (high + low.astype(f32)).astype(f32)
        result = np.where(np.isposinf(d), f32(np.inf), result)
        result = np.where((d < 0) | np.isnan(d), f32(np.nan), result)
        return np.where(d == 0, f32(-np.inf), result).astype(f32)


def _sleef_expk(d):
    """e^d for a double-float d, rounded to float32."""
    u = (d[0] + d[1]) * _R_LN2
    q = np.rint(np.clip(u, f32(-2e9), f32(2e9))).astype(np.int32)  # (nan: any q)
    qf = q.astype(f32)
    s = _df_add2_float(d, qf * -_L2U)
    s = _df_add2_float(s, qf * -_L2L)
    high = s[0] + s[1]
    s = high, (s[0] - high) + s[1]
    u = f32(0.00136324646882712841033936)
    for c in (0.00836596917361021041870117, 0.0416710823774337768554688,
              0.166665524244308471679688, 0.499999850988388061523438):
        u = _fma(u, s[0], c)
    t = _df_add(s, _df_mul_float(_df_square(s), u))
    high = f32(1) + t[0]
    u = high + (((f32(1) - high) + t[0]) + t[1])
    return np.where(d[0] < -104, f32(0), _ldexp(u, q))


def _ldexp(x, q):
    """SLEEF's vldexp: x * 2^q in five multiplications, each by a power of two in range."""
    m = q >> 31
    m = (((m + q) >> 6) - m) << 4
    q = q - (m << 2)
    u = (np.clip(m + 0x7F, 0, 0xFF) << 23).astype(np.int32).view(f32)
    return x * u * u * u * u * _pow2(q)


def sleef_powf(x, y):
    """SLEEF's powf_u10 of float32 arrays of one length: e^(y ln|x|) in double-float, then
    the sign and the special cases."""
    with np.errstate(all="ignore"):
        result = _sleef_expk(_df_mul_float(_sleef_logk(np.abs(x)), y))
        result[np.isnan(result)] = np.inf
        if not ((x > 0) & (x < np.inf) & (np.abs(y) < np.inf)).all():
            result = _sleef_powf_edges(x, y, result)
    return result


def _sleef_powf_edges(x, y, result):
    """SLEEF's powf where x is not positive or not finite, or y is not finite."""
    y_is_int = (np.trunc(y) == y) | (np.abs(y) > f32(1 << 24))
    small_y = np.where(np.abs(y) < f32(1 << 24), y, f32(0)).astype(np.int32)
    y_is_odd = (small_y & 1 == 1) & y_is_int & (np.abs(y) < f32(1 << 24))
    sign = np.where(x > 0, f32(1), np.where(y_is_int, np.where(y_is_odd, f32(-1), f32(1)),
                                            f32(np.nan)))
    result = result * sign
    # y infinite: 0, 1 or inf by |x| against 1
    efx = np.where(np.signbit(y), f32(1) - np.abs(x), np.abs(x) - f32(1))
    result = np.where(np.isinf(y), np.where(efx < 0, f32(0), np.where(efx == 0, f32(1),
                                                                     f32(np.inf))), result)
    # x zero or infinite: 0 or inf, with x's sign for an odd y
    edge = np.where(np.signbit(y) ^ (x == 0), f32(0), f32(np.inf))
    edge = np.where(np.signbit(np.where(y_is_odd, x, f32(1))), -edge, edge)
    result = np.where(np.isinf(x) | (x == 0), edge, result)
    result = np.where(np.isnan(x) | np.isnan(y), f32(np.nan), result)
    return np.where((y == 0) | (x == 1), f32(1), result).astype(f32)


# ====================================================================== gelu's erf
# torch's float32 gelu (approximate='none') of a contiguous tensor of 2 elements or more runs
# oneDNN's gelu_erf kernel (mkldnn enabled, the default), which oneDNN picks by the CPU:
# - up to AVX2 (or ONEDNN_MAX_CPU_ISA=AVX2), replayed here bit for bit: erf as ATen's
#   Vectorized<float>::erf computes it (which that kernel matches): Abramowitz and Stegun's
#   7.1.26 polynomial times an exp of ATen's own, "exp_u20" (a degree-5 polynomial after 2**n
#   is split off), every step one float32 operation or fused multiply-add;
# - with AVX-512 (avx512_core: F, VL, BW, DQ), another kernel (gelu_avx512 below): a minimax
#   polynomial of |x| per interval of x, 0.5 x (1 + erf) (so gelu(-0.0) is -0.0 there).
# Either runs on every element of a contiguous tensor (the tail of its one row too, loaded as
# a partial vector). Other layouts go through torch's scalar loop and the C library's erf: the
# engine rounds those once.
_GELU_ALPHA = f32(math.sqrt(0.5))
_ERF_P = tuple(f32(c) for c in (0.3275911, 0.254829592, -0.284496736, 1.421413741,
                                -1.453152027, 1.061405429))
_EXP_U20 = tuple(f32(c) for c in (0.999999701, 0.499991506, 0.166676521, 0.0418978221,
                                  0.00828929059))
_LOG2E, _LN2, _LN_FLT_MIN, _LN_FLT_MAX = np.array(
    [0x3fb8aa3b, 0x3f317218, 0xc2aeac50, 0x42b17218], np.uint32).view(f32)


def _fma_any(a, b, c):
    """a * b + c rounded once (float32 arrays of one shape, or float32 numbers), subnormal sums
    included (fma32_flat's checks): the erf below may reach them, SLEEF's steps (_fma) do not."""
    result = fma32_flat(a, b, c)
    return result if result.shape == np.shape(a) else np.broadcast_to(
        result, np.broadcast_shapes(*(np.shape(v) for v in (a, b, c)))).astype(f32)


def exp_u20(x, fused=_fma_any):
    """ATen's Vectorized<float>::exp_u20 (within 20 ulp of exp); ``fused``: the fused
    multiply-add (see gelu_vector)."""
    x = np.asarray(x, f32)
    src = np.maximum(np.minimum(x, _LN_FLT_MAX), _LN_FLT_MIN)
    fx = np.floor(fused(src, _LOG2E, f32(0.5)))
    reduced = fused(-fx, _LN2, src)  # (fnmadd: -(fx * ln2) + src, one rounding)
    result = fused(reduced, _EXP_U20[4], _EXP_U20[3])
    for coefficient in (_EXP_U20[2], _EXP_U20[1], _EXP_U20[0], f32(1)):
        result = fused(reduced, result, coefficient)
    power = ((fx - f32(1)).astype(np.int32) + 127) << 23  # 2 ** (n - 1), then times 2
    power = np.where(x < _LN_FLT_MIN, f32(0), power.astype(np.int32).view(f32))
    return (result * power * f32(2)).astype(f32)


def erf_vector(x, fused=_fma_any):
    """ATen's Vectorized<float>::erf: sign(x) (1 - r(t) t exp(-x^2)), t = 1 / (1 + p |x|)."""
    x = np.asarray(x, f32)
    p, p1, p2, p3, p4, p5 = _ERF_P
    t = (f32(1) / fused(p, np.abs(x), f32(1))).astype(f32)
    r = fused(fused(fused(fused(p5, t, p4), t, p3), t, p2), t, p1)
    e = exp_u20(-(x * x).astype(f32), fused)
    result = fused((-e * t).astype(f32), r, f32(1))
    return np.where(np.signbit(x), -result, result)


def _gelu_steps(x, fused):
    half = (x * f32(0.5)).astype(f32)
    return fused(half, erf_vector((x * _GELU_ALPHA).astype(f32), fused), half)


_GELU_FUSED_STEPS = 14  # per element: 1 for t, 4 for r, 7 in exp_u20, 1 for erf, 1 for gelu
_GELU_BLOCK = 8192  # elements per pass: the fourteen rows of float64 sums take 896 KiB


def _onednn_avx512():
    """Whether oneDNN runs its AVX-512 kernels here: the CPU has avx512_core and
    ``ONEDNN_MAX_CPU_ISA`` (or its old name ``DNNL_MAX_CPU_ISA``) does not stop below it."""
    features = _cpu_features()
    if not all(features.get(f) for f in ("AVX512F", "AVX512VL", "AVX512BW", "AVX512DQ")):
        return False
    limit = (os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA") or "")
    return limit.upper() not in ("SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX2_VNNI_2")


ONEDNN_AVX512 = _onednn_avx512()


def gelu_contiguous(x):
    """torch's float32 gelu of a contiguous tensor: oneDNN's kernel for this CPU."""
    return gelu_avx512(x) if ONEDNN_AVX512 else gelu_vector(x)


# oneDNN's AVX-512 gelu_erf: erf(x / sqrt 2) = sign(x) P_i(|x|), P_i of degree 5 (its
# coefficients by degree, one row per degree, entry i for interval i: oneDNN's table, as
# float32 bits; entry 0 is never used). i is read from |x|'s bits (exponent and two mantissa
# bits: (bits + 0xc21fffff) >> 21, clamped to 1 ... 24); above 5.5426 (_GELU512_RBOUND)
# P_23 = 1; nan meets P_24 = |x|.
_GELU512_COEFFICIENTS = [np.array(row, np.uint32).view(f32) for row in (
    [0xa6f2cb94, 0x32827792, 0x3381cc0c, 0x34523d4a, 0x351ac44d, 0x35f36d88, 0x36ee8229,
     0x37b8a3bb, 0x3867a213, 0x3940033b, 0x3a2a5a1d, 0x3ae35863, 0x3b7828f2, 0x3c08b14b,
     0x3c515ed3, 0xbb503236, 0xbd8d8e5e, 0xbe8abcd9, 0xbf0c19a2, 0xbeccb328, 0x3e176ced,
     0x3f470d99, 0x3f7abb28, 0x3f800000, 0],
    [0x3f4c422a, 0x3f4c421f, 0x3f4c4207, 0x3f4c41cb, 0x3f4c413b, 0x3f4c3fad, 0x3f4c3a2f,
     0x3f4c2d40, 0x3f4c146a, 0x3f4bc341, 0x3f4ad08c, 0x3f48f8cf, 0x3f45fac7, 0x3f404e07,
     0x3f3b980f, 0x3f48dff3, 0x3f78b21b, 0x3fbb0704, 0x40019c32, 0x3fe536d6, 0x3f81331e,
     0x3e6c8684, 0x3c98f936, 0, 0x3f800000],
    [0xb62173f4, 0x3735e4cf, 0x37f2ff89, 0x388c23be, 0x3917535c, 0x39ab2ab0, 0x3a60fadb,
     0x3af9b960, 0x3b6e5491, 0x3c0a4ec5, 0x3ca5aa8c, 0x3d2138d9, 0x3d8737d4, 0x3ddfb660,
     0x3e0f27ab, 0x3d94004b, 0xbe0efdeb, 0xbf1d96c3, 0xbf89db58, 0xbf6d9897, 0xbef69fb8,
     0xbdc4f8a8, 0xbbde6422, 0, 0],
    [0xbe081a19, 0xbe084570, 0xbe08639b, 0xbe089837, 0xbe08f409, 0xbe09ab95, 0xbe0b66d0,
     0xbe0e400a, 0xbe124df8, 0xbe1bde02, 0xbe2f19c9, 0xbe4931bf, 0xbe685fbc, 0xbe89c95f,
     0xbe96cbca, 0xbe8044aa, 0xbe0550f2, 0x3dcfd6a1, 0x3e94c826, 0x3e79345f, 0x3decec91,
     0x3ca46568, 0x3aa1e00a, 0, 0],
    [0xba3d61db, 0x39f097a3, 0x3a5845dc, 0x3ab1fa35, 0x3b0cefb8, 0x3b653ab6, 0x3bcae527,
     0x3c221712, 0x3c6c5840, 0x3cc0a703, 0x3d1dcc19, 0x3d63656d, 0x3d955907, 0x3dbf9910,
     0x3dd53f69, 0x3db7dcef, 0x3d639ebe, 0xba6ede48, 0xbd22be69, 0xbd041cf1, 0xbc64f5ab,
     0xbb097a32, 0xb8ebf380, 0, 0],
    [0x3cb7d80c, 0x3c9b6050, 0x3c978d11, 0x3c92e850, 0x3c8d058b, 0x3c848454, 0x3c6cd623,
     0x3c4c824b, 0x3c2a7935, 0x3be0b390, 0x3b0651ac, 0xbb232f53, 0xbbd42fa0, 0xbc2c5366,
     0xbc492c9e, 0xbc2a7aa6, 0xbbd55d04, 0xba823a76, 0x3b102aa8, 0x3ae25a7e, 0x3a31f792,
     0x38b84375, 0x3689bb5a, 0, 0])]
_GELU512_RBOUND = np.array(0x40b15cee, np.uint32).view(f32)
_GELU512_INDEX_BIAS = int(np.array(0xc21fffff, np.uint32).view(np.int32))


def gelu_avx512(x):
    """oneDNN's AVX-512 float32 gelu_erf: 0.5 x (1 + sign(x) P_i(|x|)), P_i by Horner's rule
    in fused multiply-adds, the rest one float32 operation at a time."""
    x = np.ascontiguousarray(x, f32)
    bits = x.view(np.int32)
    magnitude_bits = bits & np.int32(0x7FFFFFFF)
    magnitude = magnitude_bits.view(f32)
    # (a 32-bit integer sum that wraps around, then an arithmetic shift: as the vector unit)
    index = ((magnitude_bits.astype(np.int64) + _GELU512_INDEX_BIAS + 2**31) % 2**32 - 2**31)
    index = np.clip(index.astype(np.int32) >> 21, 1, 24)
    index = np.where(_GELU512_RBOUND < magnitude, 23, index)
    coefficients = _GELU512_COEFFICIENTS
    with np.errstate(all="ignore"):
        polynomial = coefficients[5][index]
        for degree in (4, 3, 2, 1, 0):
            polynomial = _fma_any(polynomial, magnitude, coefficients[degree][index])
        erf = (polynomial.view(np.int32) ^ (bits & np.int32(-2**31))).view(f32)
        return ((x * (erf + f32(1))).astype(f32) * f32(0.5)).astype(f32)


def gelu_vector(x):
    """torch's vectorised float32 gelu up to AVX2: x/2 * erf(x / sqrt 2) + x/2, fused.

    Each of its fourteen fused multiply-adds a * b + c is computed in float64 on whole arrays
    (the product of two float32 numbers is exact there, the sum rounded once) and rounded to
    float32: the fused result, except where the float64 sum was rounded and sits exactly
    halfway between two float32 numbers, or in float32's subnormal range (float32 drops more
    bits there): rounding twice may then differ. Every step's sum is kept, and its operands;
    the few elements where one step's sum is such a tie and inexact (Knuth's TwoSum) are
    computed again with every step exact (_fma_any). Elements are independent (one vector
    lane each), so redoing a few gives the same bits as redoing all."""
    flat = x.reshape(-1)
    if flat.size <= _GELU_BLOCK:
        return _gelu_block(flat).reshape(x.shape)
    result = np.empty(flat.size, f32)
    for start in range(0, flat.size, _GELU_BLOCK):
        result[start:start + _GELU_BLOCK] = _gelu_block(flat[start:start + _GELU_BLOCK])
    return result.reshape(x.shape)


def _gelu_block(x):
    sums, operands = np.empty((_GELU_FUSED_STEPS, x.size)), []

    def fused_kept(a, b, c):  # a * b + c rounded from float64; the sum and operands kept
        total = sums[len(operands)]
        operands.append((a, b, c))
        np.multiply(a, b, out=total, dtype=np.float64)
        return np.add(total, c, out=total).astype(f32)

    with np.errstate(all="ignore"):  # (inf and nan pass through as torch's do, silently)
        result = _gelu_steps(x, fused_kept)
        unsure = (sums.view(np.int64) & 0x1FFFFFFF) == 0x10000000
        unsure |= (np.abs(sums) < 2.0**-126) & (sums != 0)
        if unsure.any():  # (exact sums with 25 bits are common: x - x/2^25 where erf ~ 1)
            redo = np.zeros(x.size, bool)
            for step in np.flatnonzero(unsure.any(axis=1)):
                where = np.flatnonzero(unsure[step])
                a, b, c = (v[where] if np.ndim(v) else v for v in operands[step])
                product = np.multiply(a, b, dtype=np.float64)
                redo[where] |= _sum_error(product, np.float64(c), sums[step, where]) != 0
            if redo.any():
                result[redo] = _gelu_steps(x[redo], _fma_any)
    return result
