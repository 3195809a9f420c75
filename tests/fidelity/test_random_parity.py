"""engine/fidelity/random.py against torch's CPU generator: the same seed must give the same bits.

Engine-only tests run everywhere; the parity tests need torch and are skipped without it.
"""
import math

import numpy as np
import pytest

from engine.fidelity import random as R
from engine.fidelity.rounding import fma, fma32, fma64

SEEDS = [0, 42, 1234, 2**40 + 7]
SIZES = [0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 100, 1000, 4099]
SHAPES = [(2, 3), (16,), (5, 17)]
FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int64, np.int32, np.int16, np.int8, np.uint8]


def kaiming_bound(fan_in):
    """nn.Linear's bound: kaiming_uniform_(a=sqrt(5)) is uniform(+-1/sqrt(fan_in))."""
    gain = math.sqrt(2.0 / (1 + math.sqrt(5) ** 2))
    return math.sqrt(3.0) * (gain / math.sqrt(fan_in))


# ------------------------------------------------------------ engine only
def test_known_first_values_of_seed_0():
    R.manual_seed(0)
    assert R.uniform(3, np.float32).tolist() == [0.49625658988952637, 0.7682217955589294,
                                                 0.08847743272781372]
    assert R.normal(3, np.float32).tolist() == [0.3643381893634796, 0.13439632952213287,
                                                0.16421625018119812]
    assert R.normal(17, np.float32)[:3].tolist() == [-0.20410172641277313, 0.16645534336566925,
                                                     0.8743818402290344]
    assert R.random_int(8, np.int64, 0, 10).tolist() == [1, 7, 3, 5, 2, 1, 0, 9]
    assert R.randperm(6).tolist() == [5, 2, 0, 1, 3, 4]
    R.manual_seed(0)
    assert R.uniform(3, np.float64).tolist() == [0.9700530018065531, 0.707819864399788,
                                                 0.45938294312745087]


def test_linear_3_1_init_values():
    R.manual_seed(0)
    weight = R.uniform((1, 3), np.float32, -kaiming_bound(3), kaiming_bound(3))
    bias = R.uniform((1,), np.float32, -1 / math.sqrt(3), 1 / math.sqrt(3))
    assert np.round(weight.astype(float), 4).tolist() == [[-0.0043, 0.3097, -0.4752]]
    assert np.round(bias.astype(float), 4).tolist() == [-0.4249]


def test_same_seed_same_numbers_and_state_round_trip():
    g = R.Generator().manual_seed(7)
    first = [R.normal(5, np.float64, generator=g), R.random_int(4, np.int64, 0, 9, generator=g)]
    state = g.state_bytes()
    later = R.uniform((2, 3), np.float32, generator=g)
    g.manual_seed(7)
    assert all(np.array_equal(a, b) for a, b in
               zip(first, [R.normal(5, np.float64, generator=g),
                           R.random_int(4, np.int64, 0, 9, generator=g)]))
    g.set_state_bytes(state)
    assert np.array_equal(R.uniform((2, 3), np.float32, generator=g), later)
    assert state.dtype == np.uint8 and state.shape == (5056,)


def test_generators_and_default_seed():
    assert R.Generator().initial_seed() == 67280421310721
    assert R.manual_seed(-1) is R.default_generator and R.initial_seed() == 2**64 - 1
    assert R.seed() == R.initial_seed()
    with pytest.raises(ValueError):
        R.manual_seed(2**64)


def test_fma_rounds_once():
    a = np.float32(1 + 2**-23)
    b = np.float32(1 - 2**-23)
    assert a * b - np.float32(1) == 0  # two roundings lose the tiny term...
    assert fma32(a, b, np.float32(-1)) == np.float32(-2**-46)  # ...one rounding keeps it
    assert fma64(1 + 2**-52, 1 - 2**-52, -1.0) == -2**-104
    assert fma(1 + 2**-52, [1 - 2**-52], -1.0)[0] == -2**-104


def test_output_shapes_and_dtypes():
    for fn in (lambda: R.uniform((5, 17), np.float16), lambda: R.normal((5, 17), np.float16)):
        out = fn()
        assert out.shape == (5, 17) and out.dtype == np.float16 and out.flags.c_contiguous
    assert R.bernoulli(0.5, (3, 5), np.bool_).dtype == np.bool_
    assert sorted(R.randperm(50, np.int32).tolist()) == list(range(50))


# ------------------------------------------------------------ parity with torch
@pytest.fixture
def torch():
    torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
    if torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"):
        pytest.skip("engine replays torch's AVX2 randn kernel; this CPU takes another path")
    return torch


def tdt(torch, np_dtype):
    return getattr(torch, np.dtype(np_dtype).name)


def same(tensor, array):
    """Bit-for-bit equal, same dtype and shape."""
    expected = tensor.numpy()
    return (expected.dtype == array.dtype and expected.shape == array.shape
            and expected.tobytes() == array.tobytes())


def seed_both(torch, seed):
    torch.manual_seed(seed)
    R.manual_seed(seed)


def in_step(torch):
    """Both streams are at the same place: the next draws agree."""
    return same(torch.rand(5), R.uniform(5, np.float32))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_rand_and_randn(torch, seed, dtype):
    seed_both(torch, seed)
    for size in SIZES + SHAPES:
        assert same(torch.rand(size, dtype=tdt(torch, dtype)), R.uniform(size, dtype)), size
        assert same(torch.randn(size, dtype=tdt(torch, dtype)), R.normal(size, dtype)), size
    assert in_step(torch)


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_and_normal_with_parameters(torch, dtype):
    seed_both(torch, 3)
    for size in (5, 33, 1000):
        t = torch.empty(size, dtype=tdt(torch, dtype))
        assert same(t.uniform_(-0.3, 2.5), R.uniform(size, dtype, -0.3, 2.5))
        assert same(t.uniform_(1000, 1001), R.uniform(size, dtype, 1000, 1001))
        assert same(t.normal_(0.7, 2.3), R.normal(size, dtype, 0.7, 2.3))
    assert in_step(torch)


def test_linear_init_matches(torch):
    seed_both(torch, 0)
    layer = torch.nn.Linear(3, 1)
    bound = kaiming_bound(3)
    assert same(layer.weight.data, R.uniform((1, 3), np.float32, -bound, bound))
    assert same(layer.bias.data, R.uniform((1,), np.float32, -1 / math.sqrt(3), 1 / math.sqrt(3)))


@pytest.mark.filterwarnings("ignore:.*out of bounds")  # torch: float ranges beyond 2**mantissa
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_randint(torch, seed, dtype):
    seed_both(torch, seed)
    ranges = [(0, 2), (0, 10), (-5, 100)]
    if dtype in (np.int64, np.int32, np.float32, np.float64):
        # 2**28 is where torch switches from 32-bit to 64-bit draws
        ranges += [(0, 2**28 - 1), (0, 2**28), (-2**30, 2**30)]
    if dtype in (np.int64, np.float64):
        ranges += [(3, 2**33), (-2**40, 2**40)]
    for low, high in ranges:
        if dtype == np.uint8 and low < 0:
            continue
        expected = torch.randint(low, high, (5, 17), dtype=tdt(torch, dtype))
        assert same(expected, R.random_int((5, 17), dtype, low, high)), (low, high)
    assert same(torch.randint(0, 2, (7,), dtype=torch.bool), R.random_int(7, np.bool_, 0, 2))
    assert in_step(torch)


@pytest.mark.filterwarnings("ignore:.*out of bounds")
@pytest.mark.parametrize("dtype", INTS + FLOATS + [np.bool_])
def test_random_full_and_random_from(torch, dtype):
    seed_both(torch, 11)
    assert same(torch.empty(1000, dtype=tdt(torch, dtype)).random_(), R.random_full(1000, dtype))
    if dtype != np.bool_:
        assert same(torch.empty(100, dtype=tdt(torch, dtype)).random_(3, None),
                    R.random_int(100, dtype, 3, None))
    assert same(torch.empty(500, dtype=torch.float16).random_(0, 65504),
                R.random_int(500, np.float16, 0, 65504))
    assert in_step(torch)


@pytest.mark.parametrize("seed", SEEDS)
def test_randperm(torch, seed):
    seed_both(torch, seed)
    for n in (0, 1, 2, 3, 10, 1000, 30000):
        assert same(torch.randperm(n), R.randperm(n, np.int64)), n
    assert same(torch.randperm(40, dtype=torch.float32), R.randperm(40, np.float32))
    assert in_step(torch)


def _generic_path(torch, fill, draws_per_element):
    """True if torch fills from the MT19937 stream (MKL builds on Intel CPUs may not)."""
    torch.manual_seed(0)
    fill(torch.empty(10))
    after = torch.rand(1)
    torch.manual_seed(0)
    torch.rand(10 * draws_per_element)
    return same(after, torch.rand(1).numpy())


def test_bernoulli_and_dropout(torch):
    if not _generic_path(torch, lambda t: t.bernoulli_(0.5), 2):
        pytest.skip("this torch build draws bernoulli_(p) from MKL's stream")
    seed_both(torch, 5)
    for dtype in (np.float32, np.float64, np.float16, np.bool_, np.int64):
        assert same(torch.empty(3, 5, dtype=tdt(torch, dtype)).bernoulli_(0.3),
                    R.bernoulli(0.3, (3, 5), dtype))
    for p_dtype in FLOATS:
        probs = np.random.default_rng(0).random((64, 33)).astype(p_dtype)
        assert same(torch.bernoulli(torch.from_numpy(probs)),
                    R.bernoulli(probs, probs.shape, p_dtype))
        assert same(torch.empty(4, 33).bernoulli_(torch.from_numpy(probs[0])),
                    R.bernoulli(probs[0], (4, 33), np.float32))
    for shape in [(4,), (3, 5), (64, 256)]:
        for p in (0.5, 0.1):
            mask = R.bernoulli(1 - p, shape, np.float32)
            dropped = torch.nn.functional.dropout(torch.ones(shape), p, True).numpy()
            assert np.array_equal(dropped != 0, mask != 0)
            assert np.array_equal(dropped, mask / np.float32(1 - p))
    assert in_step(torch)


@pytest.mark.parametrize("dtype", FLOATS)
def test_exponential(torch, dtype):
    if not _generic_path(torch, lambda t: t.exponential_(), 2):
        pytest.skip("this torch build draws exponential_ from MKL's stream")
    seed_both(torch, 9)
    torch_dtype = tdt(torch, dtype)
    assert same(torch.empty(3000, dtype=torch_dtype).exponential_(), R.exponential(3000, dtype))
    assert same(torch.empty(7, dtype=torch_dtype).exponential_(2.5), R.exponential(7, dtype, 2.5))
    assert in_step(torch)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3,), (5, 17), (100,)])
def test_normal_with_tensor_mean_or_std(torch, dtype, shape):
    seed_both(torch, 2)
    mean = np.linspace(-2, 2, math.prod(shape)).reshape(shape).astype(dtype)
    std = np.linspace(0.1, 3, shape[-1]).astype(dtype)
    tm, ts = torch.from_numpy(mean), torch.from_numpy(std)
    assert same(torch.normal(tm, ts), R.normal_tensor(mean, std))
    assert same(torch.normal(tm, 1.7), R.normal_tensor(mean, 1.7))
    assert same(torch.normal(0.4, ts), R.normal_tensor(0.4, std))
    assert in_step(torch)


def test_mixed_sequence_stays_in_step(torch):
    seed_both(torch, 1234)
    assert same(torch.rand(4), R.uniform(4, np.float32))
    assert same(torch.randn(17), R.normal(17, np.float32))
    assert same(torch.randint(0, 100, (6,)), R.random_int(6, np.int64, 0, 100))
    assert same(torch.randn(3), R.normal(3, np.float32))  # leaves a cached sine sample
    assert same(torch.randperm(20), R.randperm(20, np.int64))
    assert same(torch.randn(1, dtype=torch.float64), R.normal(1, np.float64))  # uses the cache
    assert same(torch.randn(5, 4), R.normal((5, 4), np.float32))
    assert in_step(torch)


def test_separate_generators(torch):
    seed_both(torch, 0)
    tg, eg = torch.Generator().manual_seed(99), R.Generator().manual_seed(99)
    assert tg.initial_seed() == eg.initial_seed() == 99
    assert same(torch.randn(20, generator=tg), R.normal(20, np.float32, generator=eg))
    assert same(torch.rand(3), R.uniform(3, np.float32))  # the default stream is untouched
    assert same(torch.randperm(9, generator=tg), R.randperm(9, generator=eg))
    assert same(torch.randn(3, generator=tg), R.normal(3, np.float32, generator=eg))


def test_state_layout_and_round_trip(torch):
    assert torch.Generator().initial_seed() == R.Generator().initial_seed()
    for seed in SEEDS:
        seed_both(torch, seed)
        assert np.array_equal(torch.get_rng_state().numpy(), R.get_rng_state())
        torch.randn(3, dtype=torch.float64), R.normal(3, np.float64)  # cache a normal sample
        torch.rand(1500), R.uniform(1500, np.float32)  # cross a twist of the 624 words
        assert np.array_equal(torch.get_rng_state().numpy(), R.get_rng_state())
    torch.manual_seed(3)
    torch.randn(5)
    R.set_rng_state(torch.get_rng_state())  # (the fidelity layer: anything with .numpy())
    assert same(torch.randn(7, dtype=torch.float64), R.normal(7, np.float64))
    saved = R.get_rng_state()
    torch.set_rng_state(torch.from_numpy(saved))
    assert same(torch.randn(20), R.normal(20, np.float32))


def test_randperm_every_small_n(torch):
    """Every n up to 3000 in one stream (the 32-bit Fisher-Yates path; torch switches to
    64-bit draws only from n = (2**32 - 1) // 20)."""
    seed_both(torch, 5)
    for n in range(3001):
        assert same(torch.randperm(n), R.randperm(n, np.int64)), n
    assert in_step(torch)


@pytest.mark.parametrize("dtype", FLOATS)
def test_multinomial_streams(torch, dtype):
    seed_both(torch, 8)
    probs = np.random.default_rng(1).random((4, 30)).astype(dtype)
    for n, replacement in [(1, False), (1, True), (7, False), (30, False), (64, True)]:
        expected = torch.multinomial(torch.from_numpy(probs), n, replacement)
        assert same(expected, R.multinomial(probs, n, replacement)), (n, replacement)
        expected = torch.multinomial(torch.from_numpy(probs[0]), n, replacement)
        assert same(expected, R.multinomial(probs[0], n, replacement)), (n, replacement)
    assert in_step(torch)


# the layouts a random fill may meet: torch fills the memory in order (dimensions by
# decreasing stride), and a tensor that is not contiguous draws its normals one by one
RANDOM_LAYOUTS = {
    "transposed": lambda m: m.zeros(5, 6).t(),
    "permuted": lambda m: m.zeros(2, 3, 4).permute(2, 0, 1),
    "stepped": lambda m: m.zeros(4, 12)[:, ::2],
    "permuted and stepped": lambda m: m.zeros(2, 6, 4).permute(1, 2, 0)[::2],
}
RANDOM_FILLS = {
    "rand_like": lambda m, x: m.rand_like(x), "randn_like": lambda m, x: m.randn_like(x),
    "randint_like": lambda m, x: m.randint_like(x, 10),
    "randn_like float64": lambda m, x: m.randn_like(x, dtype=m.float64),
    "uniform_": lambda m, x: x.uniform_(), "normal_": lambda m, x: x.normal_(),
    "random_": lambda m, x: x.random_(10), "random_ full": lambda m, x: x.random_(),
}


@pytest.mark.parametrize("layout", list(RANDOM_LAYOUTS))
@pytest.mark.parametrize("fill", list(RANDOM_FILLS))
def test_random_fills_follow_the_memory_order(torch, fill, layout):
    import engine

    results = []
    for m in (torch, engine):
        m.manual_seed(3)
        out = RANDOM_FILLS[fill](m, RANDOM_LAYOUTS[layout](m))
        results.append((out.stride(), str(out.dtype).split(".")[-1], out.tolist(),
                        m.rand(2).tolist()))  # and the stream goes on in step
    assert results[1] == results[0]
