"""PyTorch's CPU random numbers, reproduced bit for bit with numpy.

torch's CPU generator is a plain 32-bit Mersenne Twister (MT19937), seeded the
classic way (``state[0] = seed & 0xffffffff``).  numpy ships the same engine
(``np.random.MT19937``); we load the 624-word state ourselves and ask numpy
for the raw 32-bit outputs, so both libraries walk the very same stream.

Every sampler then turns those 32-bit draws into numbers exactly as torch does:

* a ``float32`` in [0, 1) is ``(u32 & (2**24 - 1)) * 2**-24`` (one draw; 24
  bits because a float32 mantissa holds 24); ``float16`` is computed as a
  float32 and rounded at the end;
* a ``float64`` in [0, 1) takes two draws glued into 64 bits,
  ``(hi << 32) | lo``, and keeps the low 53 bits: ``(u64 & (2**53 - 1)) * 2**-53``;
* integers are ``draw % range + low``, with a 64-bit draw once the range
  reaches 2**28.

Normal numbers use Box-Muller.  torch has two paths: fewer than 16 elements
(or a non-contiguous tensor) go one by one in float64 and keep the spare sine
sample in the generator for the next call; 16 or more elements are filled in
blocks of 16 (8 cosines + 8 sines) from uniforms drawn up front.  For float32
that block kernel is an AVX2 routine whose log and sin/cos are Cephes
polynomials, compiled with fused multiply-adds, so we replay those polynomials
step by step in float32 with an exact FMA.

randperm(n) is a Fisher-Yates shuffle: for i = 0 .. n-2, swap element i with element
i + (32-bit draw % (n - i)); from n = (2**32 - 1) // 20 (about 214 million) torch
switches to an "inside-out" shuffle with 64-bit draws.  multinomial races exponential
clocks (without replacement, or for one sample) or binary-searches cumulative weights
with float64 uniforms (with replacement); see multinomial() below.

Results are bit-identical to torch 2.15 (and 2.13) on x86-64 CPUs with AVX2 (what
the parity tests check).  A CPU without AVX2 runs torch's scalar float32 kernel
instead, whose values can differ from these in the last bits.
"""
import math
import os

import numpy as np

from . import dtypes, stdsort
from .messages import CPP_TYPE_NAMES, warn_from_learner
from .rounding import fma32, fma64

DEFAULT_SEED = 67280421310721  # what a fresh torch.Generator() reports
_STATE_WORDS = 624              # MT19937 keeps 624 32-bit words
_PERMUTE_64BIT_FROM = (2**32 - 1) // 20  # randperm switches algorithm at this n

# torch.get_rng_state() is a memcpy of this C struct; using the same layout lets
# a state saved by torch be loaded here and the other way round.
_STATE_LAYOUT = np.dtype([
    ("the_initial_seed", "<u8"),
    ("left", "<i4"),       # draws left before the next twist, plus one
    ("seeded", "<i4"),
    ("next", "<u8"),       # index of the next word to temper
    ("state", "<u8", (_STATE_WORDS,)),
    ("normal_x", "<f8"),   # unused, kept for the layout
    ("normal_y", "<f8"),   # cached float64 normal sample
    ("normal_rho", "<f8"),  # unused
    ("normal_is_valid", "<i4"),
    ("pad0", "V4"),
    ("next_float_normal_sample", "<f4"),
    ("is_next_float_normal_sample_valid", "u1"),
    ("pad1", "V3"),
])
assert _STATE_LAYOUT.itemsize == 5056


def _seeded_words(seed):
    """The 624-word MT19937 state for a 32-bit seed (Knuth's multiplier 1812433253)."""
    words = [seed & 0xFFFFFFFF]
    for i in range(1, _STATE_WORDS):  # a recurrence: each word needs the previous one
        prev = words[-1]
        words.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return np.array(words, dtype=np.uint32)


# Checks run before every draw, innermost last: torch.vmap pushes one that refuses a draw
# (randomness="error") or sends it to a per-sample loop ("different").
DRAW_CHECKS = []


class Generator:
    """A CPU random generator: an MT19937 stream plus torch's cached normal samples."""

    def __init__(self, device="cpu"):
        self.device = device
        self._mt = np.random.MT19937(0)  # its state is overwritten by manual_seed
        self.manual_seed(DEFAULT_SEED)

    # -- seeding and state ------------------------------------------------
    def manual_seed(self, seed):
        """Seed like torch: any int in [-2**63, 2**64); only its low 32 bits reach MT19937."""
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -2**63 <= seed < 2**64:
            raise ValueError("Overflow when unpacking long long")
        seed %= 2**64  # negative seeds wrap like a C uint64_t
        self._initial_seed = seed
        self._mt.state = {"bit_generator": "MT19937",
                          "state": {"key": _seeded_words(seed), "pos": _STATE_WORDS}}
        self._untouched = True  # torch reports next=0 until the first draw
        self._next_double_normal = None
        self._next_float_normal = None
        return self

    def seed(self):
        """Seed from the operating system's entropy, like torch; returns the seed."""
        seed = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(seed)
        return seed

    def initial_seed(self):
        """The seed last given to manual_seed (or seed)."""
        return self._initial_seed

    def state_bytes(self):
        """The state as 5056 uint8 bytes (numpy), in the same layout as torch.get_rng_state();
        ``Generator.get_state()`` (engine/random.py) gives them as a uint8 tensor."""
        st = np.zeros((), dtype=_STATE_LAYOUT)
        mt = self._mt.state["state"]
        pos = int(mt["pos"])
        st["the_initial_seed"] = self._initial_seed
        st["left"] = _STATE_WORDS + 1 - pos
        st["seeded"] = 1
        st["next"] = 0 if self._untouched else pos
        st["state"] = mt["key"]
        if self._next_double_normal is not None:
            st["normal_y"] = self._next_double_normal
            st["normal_is_valid"] = 1
        if self._next_float_normal is not None:
            st["next_float_normal_sample"] = self._next_float_normal
            st["is_next_float_normal_sample_valid"] = 1
        return st.reshape(1).view(np.uint8).copy()

    def set_state_bytes(self, new_state):
        """Restore a state from state_bytes() (or the bytes of torch.get_rng_state()); returns
        self. ``Generator.set_state`` (engine/random.py) checks a tensor as torch does first."""
        if hasattr(new_state, "numpy"):
            new_state = new_state.numpy()
        raw = np.ascontiguousarray(new_state)
        if raw.dtype != np.uint8 or raw.size != _STATE_LAYOUT.itemsize:
            raise RuntimeError(f"Expected a uint8 RNG state of size {_STATE_LAYOUT.itemsize}, "
                               f"but got {raw.dtype} of size {raw.size}")
        st = raw.reshape(-1).view(_STATE_LAYOUT)[0]
        left, nxt = int(st["left"]), int(st["next"])
        if not (st["seeded"] and 0 < left <= _STATE_WORDS and nxt <= _STATE_WORDS):
            raise RuntimeError("Invalid mt19937 state")
        key = st["state"].astype(np.uint32)  # torch stores each 32-bit word in 64 bits
        self._mt.state = {"bit_generator": "MT19937",
                          "state": {"key": key, "pos": _STATE_WORDS + 1 - left}}
        self._initial_seed = int(st["the_initial_seed"])
        self._untouched = left == 1 and nxt == 0
        self._next_double_normal = float(st["normal_y"]) if st["normal_is_valid"] else None
        self._next_float_normal = (float(st["next_float_normal_sample"])
                                   if st["is_next_float_normal_sample_valid"] else None)
        return self

    # -- raw draws --------------------------------------------------------
    def _random32(self, n):
        """n draws of 32 bits, as uint64 so later arithmetic cannot overflow."""
        if DRAW_CHECKS:  # inside torch.vmap: its randomness= decides (engine/func/vmap.py)
            DRAW_CHECKS[-1]()
        if n > 0:
            self._untouched = False
        return self._mt.random_raw(n).astype(np.uint64)

    def _random64(self, n):
        """n 64-bit draws, each two 32-bit draws: first one is the high half."""
        pairs = self._random32(2 * n)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]

    def _next_normal_double(self):
        """One N(0,1) float64: z = sqrt(-2 ln(1-u2)) cos(2 pi u1), caching the sine twin."""
        if self._next_double_normal is not None:
            z, self._next_double_normal = self._next_double_normal, None
            return z
        u1, u2 = _uniform_bits_to_float64(self._random64(2)).tolist()
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._next_double_normal = radius * math.sin(theta)
        return radius * math.cos(theta)

    def __repr__(self):
        return f"<engine Generator device={self.device!r} initial_seed={self._initial_seed}>"


# torch seeds its process-wide generator from OS entropy at start-up; a
# Generator() made later starts from DEFAULT_SEED instead.
default_generator = Generator()
default_generator.seed()


def manual_seed(seed):
    """Seed the default generator; returns it (like torch.manual_seed, which accepts int(seed))."""
    return default_generator.manual_seed(int(seed))


def seed():
    """Seed the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed():
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state (5056 uint8 bytes, torch's layout; engine.get_rng_state()
    gives them as a tensor)."""
    return default_generator.state_bytes()


def set_rng_state(new_state):
    """Restore the default generator's state from bytes."""
    default_generator.set_state_bytes(new_state)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
def in_fill_order(draw, shape, strides):
    """``draw(shape)``'s values placed as torch's kernels fill a tensor with these strides: one
    after the other through its memory (dimensions by decreasing stride). A transposed tensor
    gets the memory a contiguous one would get."""
    order = sorted(range(len(shape)), key=lambda d: -strides[d])
    return draw(tuple(shape[d] for d in order)).transpose(np.argsort(order))


def _gen(generator):
    return default_generator if generator is None else generator


def _shape(shape):
    return (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)


def _cast(values, np_dtype):
    """Cast to np_dtype the way C++ does: torch's Half is built from a float, so go via float32."""
    np_dtype = np.dtype(np_dtype)
    values = np.asarray(values)
    if np_dtype == np.float16 and values.dtype != np.float16:
        values = values.astype(np.float32)
    return values.astype(np_dtype)


def _uniform_bits_to_float64(u64):
    """[0, 1) float64 from 64-bit draws: low 53 bits times 2**-53."""
    return (u64 & np.uint64(2**53 - 1)).astype(np.float64) * 2.0**-53


def _uniform01(gen, n, np_dtype):
    """n uniforms in [0, 1): float64 from 64-bit draws, float32 and float16 from 32-bit ones."""
    if np_dtype == np.float64:
        return _uniform_bits_to_float64(gen._random64(n))
    # float16 is drawn as float32 (24 bits) too and only rounded at the end.
    bits = gen._random32(n) & np.uint64(2**24 - 1)
    return bits.astype(np.float32) * np.float32(2.0**-24)


def _libm(func, x):
    """A math-module function elementwise: the C library torch calls, not numpy's SIMD code."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return x.copy()
    return np.asarray(np.frompyfunc(func, 1, 1)(x)).astype(np.float64)  # (0-d: a bare number)


# ---------------------------------------------------------------------------
# Uniform
# ---------------------------------------------------------------------------
def check_uniform_bounds(np_dtype, low, high):
    """torch's checks of uniform_(from, to): a float dtype (even for no elements), both ends
    values of it, in order, and no wider apart than its largest value."""
    np_dtype = np.dtype(np_dtype)
    scalar_type = dtypes.scalar_type_name[dtypes.from_numpy_dtype[np_dtype]]
    if np_dtype.kind != "f":
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{scalar_type}'")
    highest = float(np.finfo(np_dtype).max)
    for value, name in ((low, "from"), (high, "to")):
        if not -highest <= value <= highest:  # (nan too)
            raise RuntimeError(f"{name} is out of bounds for {CPP_TYPE_NAMES[np_dtype.name]}")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={low:g} > to={high:g}")
    if not high - low <= highest:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{scalar_type}>::"
                           f"max(), but found to={high:g} and from={low:g} which result in "
                           f"to-from to exceed the limit")


def uniform(shape, np_dtype, low=0.0, high=1.0, generator=None):
    """Uniform on [low, high): u * (high - low) + low rounded once, one draw per element.
    float16 is computed in float32; a value that rounds up to `high` is replaced by `low`."""
    gen, shape, np_dtype = _gen(generator), _shape(shape), np.dtype(np_dtype)
    if np_dtype.kind != "f":
        raise TypeError(f"uniform is only defined for floating dtypes, got {np_dtype}")
    u = _uniform01(gen, math.prod(shape), np_dtype)
    if np_dtype == np.float64:
        out = u if (low, high) == (0.0, 1.0) else fma64(u, high - low, low)
    else:
        lo, hi = np.float32(low), np.float32(high)
        out = u if (lo, hi) == (0, 1) else fma32(u, hi - lo, lo)
    out = _cast(out, np_dtype)
    low_value, high_value = _cast(np.array([low, high], dtype=np.float64), np_dtype)
    out[out == high_value] = low_value
    return out.reshape(shape)


# ---------------------------------------------------------------------------
# Normal
# ---------------------------------------------------------------------------
def _log_ps(x):
    """float32 natural log as torch's AVX2 log256_ps computes it (Cephes polynomial, with FMAs)."""
    f = np.float32
    x = np.maximum(x, np.float32(np.finfo(np.float32).tiny))
    bits = x.view(np.int32)
    exponent = (bits >> 23) - 0x7F
    # Keep the mantissa, forced into [0.5, 1): x = m * 2**e.
    x = ((bits & ~0x7F800000) | np.float32(0.5).view(np.int32)).view(np.float32)
    e = exponent.astype(np.float32) + f(1)
    small = x < f(0.707106781186547524)  # then use 2m - 1 and e - 1 to stay near log(1)
    x = (x - f(1)) + np.where(small, x, f(0))
    e = e - np.where(small, f(1), f(0))
    z = x * x
    y = f(7.0376836292e-2)
    for coef in (-1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
                 -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1):
        y = fma32(y, x, f(coef))
    y = fma32(y * x, z, e * f(-2.12194440e-4))
    y = y - z * f(0.5)  # z * 0.5 is exact, so fused or not gives the same
    return fma32(e, f(0.693359375), x + y)


def _sincos_ps(x):
    """float32 (sin, cos) as torch's AVX2 sincos256_ps computes them (Cephes, with FMAs)."""
    f = np.float32
    negative = np.signbit(x)
    x = np.abs(x)
    j = (x * f(1.27323954473516)).astype(np.int32)  # octant of x, i.e. x / (pi/4)
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    # Subtract j * pi/4 in three pieces so the reduced angle keeps its precision.
    for piece in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):
        x = fma32(y, f(piece), x)
    sin_negative = negative ^ ((j & 4) != 0)
    cos_negative = (~(j - 2) & 4) != 0
    use_sin_poly_for_sin = (j & 2) == 0
    z = x * x
    cos_poly = fma32(f(2.443315711809948e-5), z, f(-1.388731625493765e-3))
    cos_poly = fma32(cos_poly, z, f(4.166664568298827e-2))
    cos_poly = fma32(cos_poly * z, z, -(z * f(0.5))) + f(1)
    sin_poly = fma32(f(-1.9515295891e-4), z, f(8.3321608736e-3))
    sin_poly = fma32(sin_poly, z, f(-1.6666654611e-1))
    sin_poly = fma32(sin_poly * z, x, x)
    sin = np.where(use_sin_poly_for_sin, sin_poly, cos_poly)
    cos = np.where(use_sin_poly_for_sin, cos_poly, sin_poly)
    return np.where(sin_negative, -sin, sin), np.where(cos_negative, -cos, cos)


def _box_muller_blocks_float32(u, mean, std):
    """torch's AVX2 block: for 16 uniforms, radius = sqrt(-2 log(1 - u[:8])), theta = 2 pi u[8:]."""
    blocks = u.reshape(-1, 16)
    radius = np.sqrt(np.float32(-2) * _log_ps(np.float32(1) - blocks[:, :8]))
    sin, cos = _sincos_ps(np.float32(2 * math.pi) * blocks[:, 8:])
    mean, std = np.float32(mean), np.float32(std)
    return np.concatenate([fma32(radius * cos, std, mean),
                           fma32(radius * sin, std, mean)], axis=1).ravel()


def _box_muller_blocks_float64(u, mean, std):
    """torch's scalar block in float64: z = sqrt(-2 ln(1-u1)) cos(2 pi u2) and the sine twin."""
    blocks = u.reshape(-1, 16)
    radius = np.sqrt(-2.0 * _libm(math.log, 1.0 - blocks[:, :8]))
    theta = 2.0 * math.pi * blocks[:, 8:]
    return np.concatenate([fma64(radius * _libm(math.cos, theta), std, mean),
                           fma64(radius * _libm(math.sin, theta), std, mean)], axis=1).ravel()


def _normal_fill(gen, n, np_dtype, mean, std):
    """torch's normal_fill for n >= 16: uniforms, then Box-Muller on each block of 16; if n is not
    a multiple of 16, 16 fresh uniforms redo the last 16 elements."""
    full = n - n % 16
    extra = 16 if n % 16 else 0
    if np_dtype == np.float16:
        # Half runs the float32 kernel block by block, so it draws no uniforms
        # for the leftover elements: only the 16 fresh ones.
        u = _uniform01(gen, full + extra, np.dtype(np.float32))
        u_tail = u[full:]
        blocks = _box_muller_blocks_float32
    else:
        u = _uniform01(gen, n + extra, np_dtype)
        u_tail = u[n:]
        blocks = (_box_muller_blocks_float32 if np_dtype == np.float32
                  else _box_muller_blocks_float64)
    out = np.empty(n, dtype=u.dtype)
    out[:full] = blocks(u[:full], mean, std)
    if extra:
        out[n - 16:] = blocks(u_tail, mean, std)
    return out


def normal(shape, np_dtype, mean=0.0, std=1.0, generator=None, contiguous=True):
    """N(mean, std**2) samples; fewer than 16, or for a tensor that is not contiguous, one by one
    in float64 (sharing the cached twin)."""
    gen, shape, np_dtype = _gen(generator), _shape(shape), np.dtype(np_dtype)
    if not std >= 0:  # (nan too)
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    n = math.prod(shape)
    if n == 0:  # torch returns before it looks at the dtype
        return np.empty(shape, np_dtype)
    if np_dtype not in (np.float16, np.float32, np.float64):
        raise TypeError(f"normal is only defined for floating dtypes, got {np_dtype}")
    if n >= 16 and contiguous:
        out = _normal_fill(gen, n, np_dtype, mean, std)
    else:
        z = np.array([gen._next_normal_double() for _ in range(n)], dtype=np.float64)
        out = fma64(z, float(std), float(mean))
    return _cast(out, np_dtype).reshape(shape)


def normal_tensor(mean, std, np_dtype=None, generator=None):
    """torch.normal with a tensor mean and/or std (arrays; the other may be a number): N(0, 1)
    (N(0, std) for a number std) in np_dtype (default: the first array's), then * std + mean,
    each step rounded to np_dtype as torch's in-place mul_ and add_ are."""
    mean_is_array, std_is_array = isinstance(mean, np.ndarray), isinstance(std, np.ndarray)
    if not (mean_is_array or std_is_array):
        raise TypeError("normal_tensor needs mean or std to be an array; use normal() for scalars")
    shape = np.broadcast_shapes(*(a.shape for a in (mean, std) if isinstance(a, np.ndarray)))
    np_dtype = np.dtype(np_dtype or (mean if mean_is_array else std).dtype)
    out = normal(shape, np_dtype, 0.0, 1.0 if std_is_array else float(std), generator)
    if std_is_array:
        np.multiply(out, std, out=out, casting="unsafe")
    if not mean_is_array:
        mean = _cast(np.array(mean, np.float64), np_dtype)  # torch: full({}, mean, out's dtype)
    np.add(out, mean, out=out, casting="unsafe")
    return out


# ---------------------------------------------------------------------------
# Integers
# ---------------------------------------------------------------------------
_MANTISSA_DIGITS = {np.dtype(np.float16): 11, np.dtype(np.float32): 24, np.dtype(np.float64): 53}


def _via_dtype(value, np_dtype):
    """int64 -> np_dtype -> int64, as static_cast does (used to check bounds for floats). A
    value the float cannot hold in an int64 (inf in float16) comes back as the int64 minimum,
    as x86's conversion gives it."""
    with np.errstate(over="ignore"):
        back = float(_cast(np.array([value], dtype=np.int64), np_dtype)[0])
    return int(back) if -2.0**63 <= back < 2.0**63 else -2**63


def _update_from(low, np_dtype):
    """torch nudges ``from`` up so that rounding it to a float dtype cannot leave the range."""
    low_plus_1 = _via_dtype(low + 1, np_dtype)
    if low_plus_1 < low:
        low = low_plus_1 + (1 << (abs(low + 1).bit_length() - _MANTISSA_DIGITS[np_dtype]))
    return low


def _update_to(high, np_dtype):
    """... and ``to`` down."""
    high_minus_1 = _via_dtype(high - 1, np_dtype)
    if high_minus_1 >= high:
        high = high_minus_1 - (1 << (abs(high - 1).bit_length() - _MANTISSA_DIGITS[np_dtype]))
    return high


def _int_max(np_dtype):
    if np_dtype == np.bool_:
        return 1
    if np_dtype.kind == "f":
        return 2 ** _MANTISSA_DIGITS[np_dtype]
    return int(np.iinfo(np_dtype).max)


def _check_in_range(low, high_inclusive, np_dtype):
    """torch's check_from_to_in_range: both ends must be values of the dtype; for a float
    dtype, an end beyond 2**digits only warns (not every integer there is a float)."""
    name = CPP_TYPE_NAMES[np_dtype.name]
    if np_dtype.kind == "f":
        info = np.finfo(np_dtype)
        lowest, highest = float(info.min), float(info.max)
    else:
        lowest, highest = (0, 1) if np_dtype.kind == "b" else \
            (int(np.iinfo(np_dtype).min), int(np.iinfo(np_dtype).max))
    for value, what in ((low, "from"), (high_inclusive, "to - 1")):
        if not lowest <= value <= highest:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if np_dtype.kind == "f":
        digits = _MANTISSA_DIGITS[np_dtype]
        for value, what in ((low, "from"), (high_inclusive, "to - 1")):
            if not -(1 << digits) <= value <= 1 << digits:
                warn_from_learner(
                    f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {name} can support discrete uniform distribution only within "
                    f"this range. This warning will become an error in version 1.7 release, "
                    f"please fix the code in advance (Triggered internally at /__w/pytorch/"
                    f"pytorch/aten/src/ATen/native/DistributionTemplates.h:"
                    f"{111 if what == 'from' else 112}.)")


def random_bounds(np_dtype, low, high):
    """The first value and how many values follow (2**64: every int64) for random_(from, to)
    (to=None: up to the dtype's largest), checked against the dtype as torch checks them."""
    is_float = np_dtype.kind == "f"
    if high is not None:
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        if is_float:
            low, high = _update_from(low, np_dtype), _update_to(high, np_dtype)
            if low >= high:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than "
                                   f"'to' casted to dtype, but got from={low} >= to={high}")
        _check_in_range(low, high - 1, np_dtype)
        return low, high - low
    if low == -2**63:
        return low, 2**64
    highest = _int_max(np_dtype)
    if is_float:
        low = _update_from(low, np_dtype)
        if low >= highest:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal "
                               f"to 'to_inc' casted to dtype, but got from={low} > "
                               f"to_inc={highest}")
    _check_in_range(low, highest, np_dtype)
    return low, highest - low + 1


def _full_64_bits_dtype_check(np_dtype):
    if np_dtype.kind == "b" or np_dtype == np.float16:
        raise NotImplementedError(f"\"random_full_64_bits_range_kernel_cpu\" not implemented for "
                                  f"'{'Bool' if np_dtype.kind == 'b' else 'Half'}'")
    if np_dtype.kind in "iu" and np_dtype != np.int64:
        raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, "
                           "float and bfloat16")


def random_int(shape, np_dtype, low, high=None, generator=None):
    """Integers in [low, high) (high=None: up to the dtype's max): draw % (high - low) + low."""
    gen, shape, np_dtype = _gen(generator), _shape(shape), np.dtype(np_dtype)
    low, span = random_bounds(np_dtype, int(low), None if high is None else int(high))
    n = math.prod(shape)
    if n == 0:
        return np.zeros(shape, np_dtype)  # (torch returns before it looks at anything else)
    if span == 2**64:  # from the int64 minimum up: the 64-bit draw itself
        _full_64_bits_dtype_check(np_dtype)
        return _cast(gen._random64(n).view(np.int64), np_dtype).reshape(shape)
    # torch takes a 64-bit draw once the range reaches 2**28, where `% span` on
    # a 32-bit draw would start to favour small values noticeably.
    if span >= 2**28:
        draws = gen._random64(n)
    else:
        draws = gen._random32(n)
    values = (draws % np.uint64(span) + np.uint64(low % 2**64)).view(np.int64)  # wraps like C
    if np_dtype == np.bool_:
        return (values != 0).reshape(shape)
    return _cast(values, np_dtype).reshape(shape)


def random_full(shape, np_dtype, generator=None):
    """Tensor.random_(): [0, max] for integers, [0, 2**mantissa_digits] for floats, 0/1 for bool."""
    gen, shape, np_dtype = _gen(generator), _shape(shape), np.dtype(np_dtype)
    n = math.prod(shape)
    if np_dtype == np.bool_:
        return (gen._random32(n) & np.uint64(1)).astype(np.bool_).reshape(shape)
    wide = np_dtype in (np.int64, np.float64)  # these two take 64-bit draws
    draws = gen._random64(n) if wide else gen._random32(n)
    modulus = _int_max(np_dtype) + 1
    return _cast((draws % np.uint64(modulus)).astype(np.int64), np_dtype).reshape(shape)


def randperm(n, np_dtype=np.int64, generator=None):
    """A random permutation of range(n) by torch's Fisher-Yates shuffle (a Python loop)."""
    gen, n = _gen(generator), int(n)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got {n}")
    if n < _PERMUTE_64BIT_FROM:
        # Swap element i with one of i..n-1, picked by a 32-bit draw.
        offsets = (gen._random32(max(n - 1, 0)) % (n - np.arange(n - 1, dtype=np.uint64))).tolist()
        perm = list(range(n))
        for i, z in enumerate(offsets):
            perm[i], perm[i + z] = perm[i + z], perm[i]
    else:
        # torch's "inside-out" shuffle with 64-bit draws for huge n (slow in Python).
        perm = [0] * n
        for i, draw in enumerate(gen._random64(n).tolist()):
            z = draw % (i + 1)
            perm[i] = perm[z]
            perm[z] = i
    return _cast(np.array(perm, dtype=np.int64), np_dtype)


# ---------------------------------------------------------------------------
# Bernoulli and exponential
# ---------------------------------------------------------------------------
def bernoulli(p, shape, np_dtype, generator=None):
    """1 where u < p else 0.  Float p (bernoulli_(p), dropout's mask with p = 1 - drop_prob) and
    float64 tensors compare a float64 u; float32/float16 tensors compare a float32 u."""
    gen, shape, np_dtype = _gen(generator), _shape(shape), np.dtype(np_dtype)
    n = math.prod(shape)
    if isinstance(p, np.ndarray):
        probs = np.broadcast_to(p, shape).reshape(-1)
        draw_dtype = np.float64 if p.dtype == np.float64 else np.float32
        if probs.size and not ((probs >= 0) & (probs <= 1)).all():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        hits = _uniform01(gen, n, np.dtype(draw_dtype)) < probs.astype(draw_dtype)
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        hits = _uniform01(gen, n, np.dtype(np.float64)) < float(p)
    return _cast(hits, np_dtype).reshape(shape)


def exponential(shape, np_dtype, lambd=1.0, generator=None):
    """Exponential(lambd) in float64: x = (-1/lambd) * log1p(-u), then rounded to the dtype."""
    gen, shape, np_dtype = _gen(generator), _shape(shape), np.dtype(np_dtype)
    u = _uniform01(gen, math.prod(shape), np.dtype(np.float64))
    out = (-1.0 / lambd) * _libm(math.log1p, -u)
    return _cast(out, np_dtype).reshape(shape)


def cauchy(shape, np_dtype, median=0.0, sigma=1.0, generator=None):
    """Cauchy(median, sigma) in float64: median + sigma * tan(pi * (u - 0.5)), then rounded."""
    gen, shape, np_dtype = _gen(generator), _shape(shape), np.dtype(np_dtype)
    u = _uniform01(gen, math.prod(shape), np.dtype(np.float64))
    out = median + sigma * _libm(math.tan, math.pi * (u - 0.5))
    return _cast(out, np_dtype).reshape(shape)


def log_normal(shape, np_dtype, mean=1.0, std=2.0, generator=None):
    """exp(N(mean, std)) in float64, each normal drawn as torch's one-at-a-time kernel draws
    it (Box-Muller: the sine of a pair kept for the next element), then rounded."""
    gen, shape, np_dtype = _gen(generator), _shape(shape), np.dtype(np_dtype)
    normals = np.array([gen._next_normal_double() for _ in range(math.prod(shape))])
    with np.errstate(over="ignore"):  # (exp's inf, rounded to float32 too)
        return _cast(_libm(_exp_or_inf, normals * std + mean), np_dtype).reshape(shape)


def geometric(shape, np_dtype, p, generator=None):
    """Geometric(p), the number of trials up to the first success: ceil(log(u) / log(1 - p))
    in float64, then converted to the dtype (integers too)."""
    gen, shape, np_dtype = _gen(generator), _shape(shape), np.dtype(np_dtype)
    u = _uniform01(gen, math.prod(shape), np.dtype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        trials = np.ceil(_libm(_log_or_minus_inf, u) / math.log1p(-p))
        return _cast(trials, np_dtype).reshape(shape)


def _exp_or_inf(x):
    try:
        return math.exp(x)
    except OverflowError:  # (C's exp gives inf)
        return math.inf


def _log_or_minus_inf(x):
    return math.log(x) if x > 0 else -math.inf  # (C's log of 0)


# ---------------------------------------------------------------------------
# Multinomial
# ---------------------------------------------------------------------------
def in_memory_order(values, shape, strides):
    """Values drawn one after another into memory laid out by ``strides`` (dense), returned
    by logical position: torch's serial kernels fill a tensor in the order of its memory."""
    dims = sorted(range(len(shape)), key=lambda d: -strides[d])  # slowest-moving first
    block = np.asarray(values).reshape([shape[d] for d in dims])
    return block.transpose(np.argsort(dims))


def multinomial(probs, n_sample, replacement, strides=None, generator=None):
    """torch.multinomial's indices for a 1-d or 2-d float array of weights (rows = distributions).

    Without replacement, or for one sample, torch races exponential clocks: q ~ Exp(1) drawn
    for every weight (in the memory order of ``strides``), then the k largest of p / q
    (argmax for one sample, else topk, whose order among ties stdsort replays). With
    replacement, row by row: cumulative sums in the weights' dtype (float for float16),
    divided by the total, the last set to 1, and for each sample a float64 uniform u picks
    the first category whose cumulative weight is >= u (a binary search)."""
    gen, rows = _gen(generator), probs.reshape(-1, probs.shape[-1])
    if not replacement or n_sample == 1:
        clocks = exponential(probs.size, probs.dtype, 1.0, gen)
        if strides is not None:  # (default: row-major)
            clocks = in_memory_order(clocks, probs.shape, strides)
        clocks = clocks.reshape(rows.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            race = rows / clocks
        if n_sample == 1:
            picked = np.argmax(race, axis=-1)[:, None]
        else:
            picked = np.array([stdsort.topk_order(row, n_sample) for row in race])
    else:
        picked = np.empty((rows.shape[0], n_sample), dtype=np.int64)
        acc_dtype = np.float32 if rows.dtype == np.float16 else rows.dtype
        for i, row in enumerate(rows.astype(acc_dtype)):
            check_multinomial_row(row)
            running = np.cumsum(row)  # numpy adds one after another, in the row's dtype
            cumulative = running / running[-1]
            cumulative[-1] = 1
            u = _uniform_bits_to_float64(gen._random64(n_sample))
            picked[i] = np.searchsorted(cumulative.astype(np.float64), u, side="left")
    return picked.reshape(probs.shape[:-1] + (n_sample,))


def check_multinomial_row(row):
    """The checks torch's with-replacement kernel makes on each row, just before drawing."""
    if (~(row >= 0)).any():  # (nan fails this first, as in torch)
        raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                           "< 0)")
    if not np.isfinite(row).all():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                           "= infinity or NaN)")
    if not (row.size and np.cumsum(row)[-1] > 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
