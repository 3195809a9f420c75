"""engine/fidelity/float32_math.py: torch's float32 exp, log, sin, cos, tanh, sigmoid and pow.

sigmoid and pow (and the backward formulas of tanh and sigmoid) must be torch's bits exactly,
at every length, layout and special value: torch computes them with SLEEF in its vectorised
loop and with the C library in each row's tail, and the engine replays both. exp, log, sin,
cos and tanh come from MKL in torch, whose algorithms are not public: the engine gives the
correctly rounded value, which must be within an ulp of torch's and equal to it in most cases.

Engine-only tests (the C library replay against the system's glibc, correct rounding) run
without torch; the parity tests are skipped without it.
"""
import ctypes
import ctypes.util
import math
import os
import platform
import subprocess
import sys

import numpy as np
import pytest

import engine
import parity
from engine.fidelity import float32_math as fm

f32 = np.float32
LENGTHS = [1, 5, 16, 31, 32, 33, 100, 1000, 100_000]

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0,
                    1e-45, -1e-45, 1e-40, -3e-39, 1.1754944e-38, 1e-8, -1e-8,
                    88.0, 88.72283, 88.72284, 89.0, -87.33655, -87.3366, -103.278, -103.972,
                    -103.9721, -104.0, -105.0, 100.0, -100.0, 1e4, -1e4, 1e10, -1e10, 1e30,
                    3.4028235e38, -3.4028235e38, 9.5, -16.635532, 16.635532], f32)


def _glibc():
    """The system's C math library when it is glibc (whose expf and powf the engine replays)."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        pytest.skip("the C library here is not glibc")
    return ctypes.CDLL(ctypes.util.find_library("m"))


def _libc_call(libm, name, *columns):
    function = getattr(libm, name)
    function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float] * len(columns)
    return np.array([function(*map(float, row)) for row in zip(*columns)], f32)


def _same_bits(a, b):
    """Equal bits, any nan counting as equal."""
    a, b = np.asarray(a, f32), np.asarray(b, f32)
    return (a.view(np.int32) == b.view(np.int32)) | (np.isnan(a) & np.isnan(b))


def _values(n, seed, low=-20.0, high=20.0):
    rng = np.random.default_rng([seed, n])
    return rng.uniform(low, high, n).astype(f32)


# ------------------------------------------------------------ engine only
def test_libc_expf_is_glibcs_bit_for_bit():
    libm = _glibc()
    x = np.concatenate([SPECIAL, _values(20_000, 1, -110, 110), _values(5_000, 2, -1, 1)])
    assert _same_bits(fm.libc_expf(x), _libc_call(libm, "expf", x)).all()


def test_libc_powf_is_glibcs_bit_for_bit():
    libm = _glibc()
    base, exponent = (a.ravel() for a in np.meshgrid(SPECIAL, SPECIAL))
    rng = np.random.default_rng(3)
    base = np.concatenate([base, rng.uniform(0, 10, 20_000), rng.uniform(-10, 10, 5_000),
                           10 ** rng.uniform(-44, 38, 5_000)]).astype(f32)
    exponent = np.concatenate([exponent, rng.uniform(-5, 5, 20_000),
                               np.round(rng.uniform(-6, 6, 5_000)),
                               rng.uniform(-3, 3, 5_000)]).astype(f32)
    assert _same_bits(fm.libc_powf(base, exponent), _libc_call(libm, "powf", base, exponent)).all()


@pytest.mark.parametrize("name", ["exp", "log", "sin", "cos", "tanh"])
def test_mkl_functions_are_correctly_rounded(name):
    """Python's math functions are within an ulp of float64: rounded to float32, they are
    the nearest float32 (but for ties 2**29 times rarer than float32's)."""
    x = np.concatenate([SPECIAL, _values(2_000, 4, -30, 30), _values(500, 5, 0, 1e4)])
    if name == "log":
        x = np.abs(x)
    expected = []
    for value in x.tolist():
        try:
            expected.append(getattr(math, name)(value))
        except (ValueError, OverflowError):  # nan, inf, log of 0 and of negatives
            with np.errstate(all="ignore"):
                expected.append(float(getattr(np, name)(np.float64(value))))
    with np.errstate(all="ignore"):
        assert _same_bits(getattr(fm, name)(x), np.array(expected).astype(f32)).all()


def test_torchs_loop_width_follows_the_cpu(monkeypatch):
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
    assert fm._torch_vector_loop() == (16, True)
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    assert fm._torch_vector_loop() == (16, False)  # torch's plain C++ "vectors" call libc
    monkeypatch.delenv("ATEN_CPU_CAPABILITY")
    features = fm._cpu_features()
    if features.get("AVX512BW") and features.get("AVX512DQ") and features.get("AVX512VL"):
        assert fm._torch_vector_loop() == (32, True)


def test_torchs_threads_follow_its_environment_variables(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    assert fm._torch_threads() == 3
    monkeypatch.setenv("MKL_NUM_THREADS", "1")  # torch reads it after OMP_NUM_THREADS
    assert fm._torch_threads() == 1


# ------------------------------------------------------------ parity with torch
@pytest.fixture
def torch_threads(monkeypatch):
    """torch and the engine's model of it with the same number of threads (1, then restored)."""
    torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
    before = torch.get_num_threads()

    def use(threads):
        torch.set_num_threads(threads)
        monkeypatch.setattr(fm, "torch_threads", threads)

    use(1)
    yield use
    torch.set_num_threads(before)


def _check(fn, *arrays, **kwargs):
    parity.run_both(fn, *(engine.from_numpy(np.ascontiguousarray(a)) for a in arrays), **kwargs)


@pytest.mark.parametrize("n", LENGTHS)
def test_sigmoid_is_torchs_at_every_length(torch_threads, n):
    _check(lambda m, x: m.sigmoid(x), _values(n, 10))
    _check(lambda m, x: m.sigmoid(x), (np.random.default_rng(n).standard_normal(n) * 3).astype(f32))


@pytest.mark.parametrize("n", LENGTHS)
def test_pow_is_torchs_at_every_length(torch_threads, n):
    base, exponent = _values(n, 11, 0, 10), _values(n, 12, -4, 4)
    _check(lambda m, x, y: m.pow(x, y), base, exponent)
    _check(lambda m, y: 2 ** y, exponent)
    _check(lambda m, y: 0.7 ** y, exponent)
    for power in [1.5, 4, -3, 2.5, 1 / 3, 1.7, -0.75, 10]:
        _check(lambda m, x, p=power: x ** p, base)
    _check(lambda m, x: m.pow(x, 3.0), _values(n, 13))  # a shortcut: x * x * x
    _check(lambda m, x: x ** 4, _values(n, 13))  # negative bases to an integer power


@pytest.mark.parametrize("threads", [2, 3])
def test_each_threads_chunk_has_its_own_tail(torch_threads, threads):
    torch_threads(threads)
    x = _values(100_001, 14)
    _check(lambda m, x: m.sigmoid(x), x)
    _check(lambda m, x: x.abs() ** 1.25, x)


@pytest.mark.parametrize("where", ["vector", "tail"])
def test_special_values(torch_threads, where):
    """At the start of a 64-element tensor torch's SLEEF computes them, at its end libc."""
    filler = _values(64, 15)

    def placed(values):
        values = np.concatenate([values, filler[: (-len(values)) % 32 + 20]])
        return values if where == "vector" else values[::-1].copy()

    _check(lambda m, x: m.sigmoid(x), placed(SPECIAL))
    base, exponent = (placed(a.ravel()) for a in np.meshgrid(SPECIAL, SPECIAL))
    _check(lambda m, x, y: m.pow(x, y), base, exponent)
    for power in [0.25, 1.5, -1.5, 3.0000002, 7, -7, 1e10, -1e10, 1e-30]:
        _check(lambda m, x, p=power: x ** p, placed(SPECIAL))


LAYOUTS = {
    "transposed": ((50, 40), lambda x: x.t()),
    "rows of 40": ((30, 50), lambda x: x[:, :40]),
    "rows of 33": ((30, 50), lambda x: x[:, 2:35]),
    "rows of 3": ((30, 50), lambda x: x[:, :3]),
    "every other": ((101,), lambda x: x[::2]),
    "a column": ((100, 3), lambda x: x[:, 1]),
    "expanded rows": ((7, 1), lambda x: x.expand(7, 70)),
    "expanded columns": ((1, 70), lambda x: x.expand(7, 70)),
    "permuted": ((4, 5, 37), lambda x: x.permute(2, 0, 1)),
    "sliced 3-d": ((4, 5, 37), lambda x: x[:, 1:, :]),
    "0-d": ((), lambda x: x),
    "empty": ((0, 3), lambda x: x),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_layouts_decide_which_elements_torch_vectorises(torch_threads, layout):
    shape, view = LAYOUTS[layout]
    x = _values(math.prod(shape), 16, 0.1, 5).reshape(shape)
    _check(lambda m, x: m.sigmoid(view(x)), x)
    _check(lambda m, x: view(x) ** 1.3, x)
    _check(lambda m, x: 2.5 ** view(x), x)  # torch writes number ** tensor row-major
    _check(lambda m, x: m.pow(view(x), view(x).flip(0) if view(x).dim() else view(x)), x)
    _check(lambda m, x: view(x.clone()).sigmoid_(), x)


@pytest.mark.parametrize("shapes", [((3, 1), (1, 40)), ((40,), (5, 40)), ((5, 40), (40,)),
                                    ((40, 40), "transposed")])
def test_broadcast_pow(torch_threads, shapes):
    a = _values(math.prod(shapes[0]), 17, 0, 5).reshape(shapes[0])
    if shapes[1] == "transposed":
        _check(lambda m, x: m.pow(x, x.t()), a)
        _check(lambda m, x: m.pow(x.t(), x.t()), a)
    else:
        b = _values(math.prod(shapes[1]), 18, -3, 3).reshape(shapes[1])
        _check(lambda m, x, y: m.pow(x, y), a, b)


@pytest.mark.parametrize("op", ["sigmoid", "tanh", "exp"])
@pytest.mark.parametrize("n", [5, 33, 1000])
def test_backward_formulas_are_torchs(torch_threads, op, n):
    """tanh's is grad * (1 - y * y) rounded once (a fused multiply-add), sigmoid's
    (grad * (1 - y)) * y, exp's grad * y: equal wherever the forward values are."""
    import torch

    x = _values(n, 19, -5, 5)
    grad = _values(n, 20, 0.5, 1.5)
    results = []
    for m in (engine, torch):
        leaf = m.tensor(x.tolist(), requires_grad=True)
        out = getattr(m, op)(leaf)
        out.backward(m.tensor(grad.tolist()))
        results.append((out.detach().numpy(), leaf.grad.numpy()))
    (engine_out, engine_grad), (torch_out, torch_grad) = results
    same_forward = _same_bits(engine_out, torch_out)
    assert same_forward.mean() > 0.9
    assert _same_bits(engine_grad, torch_grad)[same_forward].all()


@pytest.mark.parametrize("name", ["exp", "log", "sin", "cos", "tanh"])
def test_mkl_functions_are_within_an_ulp_of_torch(torch_threads, name):
    import torch

    # zeros, infinities, nan, subnormals, huge numbers: exact; the rest within an ulp
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40,
                      -1e-40, 3e-39, 1e30, -1e30, 3.4028235e38, -3.4028235e38], f32)
    x = np.concatenate([edges, SPECIAL, _values(100_000, 21, -20, 20),
                        _values(10_000, 22, -1e4, 1e4)])
    if name == "log":
        x = np.abs(x)
    got = getattr(engine, name)(engine.from_numpy(x)).numpy()
    want = getattr(torch, name)(torch.from_numpy(x)).numpy()
    same = _same_bits(got, want)
    assert same[: len(edges)].all()
    finite = np.isfinite(want) & ~same
    ulps = np.abs(got[finite].view(np.int32).astype(np.int64)
                  - want[finite].view(np.int32).astype(np.int64))
    assert ulps.max(initial=0) <= 1
    # what MKL gives on this CPU: the share varies by kernel (measured here 95% to 99.9%)
    assert same.mean() > {"exp": 0.97, "tanh": 0.99}.get(name, 0.9)


@pytest.mark.parametrize("capability", ["avx2", "default", "avx512"])
def test_other_cpus_loops(torch_threads, capability):
    """ATEN_CPU_CAPABILITY makes this torch run its AVX2 kernels (16 floats a step) or its
    plain C++ ones (libc everywhere, 16 floats a step, no fused multiply-add: add's alpha
    rounds alpha * other first): the engine reads it too. On a CPU with
    AVX-512 its own kernels (32 floats a step) are checked too, without the AVX2 pins that
    make test sets (the Makefile's KERNEL_PINS)."""
    features = fm._cpu_features()
    if capability == "avx512" and not all(features.get(f) for f in
                                          ("AVX512F", "AVX512VL", "AVX512BW", "AVX512DQ")):
        pytest.skip("this CPU has no AVX-512")
    script = (
        "import numpy as np, torch, engine, sys\n"
        "sys.path.insert(0, 'tests')\n"
        "import parity\n"
        "from engine.fidelity import float32_math as fm\n"
        "torch.set_num_threads(1); fm.torch_threads = 1\n"
        "for n in (1, 15, 16, 17, 31, 32, 33, 100):\n"
        "    x = np.random.default_rng(n).uniform(-20, 20, n).astype(np.float32)\n"
        "    y = np.random.default_rng(n + 1).uniform(-3, 3, n).astype(np.float32)\n"
        "    parity.run_both(lambda m, x: m.sigmoid(x), engine.from_numpy(x))\n"
        "    parity.run_both(lambda m, x, y: m.pow(x.abs(), y), engine.from_numpy(x),\n"
        "                    engine.from_numpy(y))\n"
        "    parity.run_both(lambda m, x: x.abs() ** 1.7, engine.from_numpy(x))\n"
        "    parity.run_both(lambda m, x: m.nn.functional.gelu(x), engine.from_numpy(x))\n"
        "    parity.run_both(lambda m, x: m.add(x, 1 / 3, alpha=3), engine.from_numpy(x))\n"
        "    parity.run_both(lambda m, x, y: m.add(x, y, alpha=0.3), engine.from_numpy(x),\n"
        "                    engine.from_numpy(y))\n"
        "bits = np.random.default_rng(0).integers(0, 2**32, 100000, dtype=np.uint64)\n"
        "for x in (bits.astype(np.uint32).view(np.float32),\n"
        "          np.random.default_rng(1).standard_normal(100000).astype(np.float32) * 3,\n"
        "          np.array([0.0, -0.0, 5.5426, 5.5427, -6.0, 1e-40, np.inf, -np.inf, np.nan],\n"
        "                   np.float32)):\n"
        "    e = engine.nn.functional.gelu(engine.from_numpy(x.copy())).numpy()\n"
        "    t = torch.nn.functional.gelu(torch.from_numpy(x.copy())).numpy()\n"
        "    assert np.array_equal(e.view(np.int32), t.view(np.int32)) or np.array_equal(\n"
        "        np.isnan(e), np.isnan(t)) and np.array_equal(e[~np.isnan(e)].view(np.int32),\n"
        "                                                   t[~np.isnan(t)].view(np.int32))\n"
        "print(torch.backends.cpu.get_cpu_capability(), fm.STEP, fm.SLEEF)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability, PYTHONPATH=root)
    if capability == "avx512":
        for pin in ("ONEDNN_MAX_CPU_ISA", "NPY_DISABLE_CPU_FEATURES"):
            env.pop(pin, None)
    done = subprocess.run([sys.executable, "-c", script], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[0] == {"avx2": "AVX2", "default": "DEFAULT",
                                      "avx512": "AVX512"}[capability]


def test_exp_checks_its_roundings_once_per_block(monkeypatch):
    """sleef_expf checks each block's roundings once, at the end: the same bits as every step
    checked on its own, also where a sum falls halfway between two float32 (the block is
    computed again, exactly)."""
    rng = np.random.default_rng(5)
    arrays = [SPECIAL, np.empty(0, f32), (rng.standard_normal(2048) * 30).astype(f32),
              rng.integers(0, 2**32, 2000, dtype=np.uint64).astype(np.uint32).view(f32),
              (rng.integers(-300, 300, 1500) / 16).astype(f32),
              (rng.standard_normal(5000) * 10).astype(f32).reshape(50, 100)]
    exact_steps = fm._sleef_expf_steps
    recomputed = []

    def spy(d, fused):
        recomputed.append(fused is fm._fma)
        return exact_steps(d, fused)

    monkeypatch.setattr(fm, "_sleef_expf_steps", spy)
    for x in arrays:
        with np.errstate(all="ignore"):
            every_step_checked = exact_steps(x.reshape(-1), fm._fma).reshape(x.shape)
        assert np.array_equal(fm.sleef_expf(x).view(np.int32), every_step_checked.view(np.int32))
    assert 0 < sum(recomputed) < len(recomputed)  # both ways were taken
