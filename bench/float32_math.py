"""How often is the engine's float32 elementwise math bit-identical to torch's?

    .venv/bin/python bench/float32_math.py            # the table: share identical, per op
    .venv/bin/python bench/float32_math.py --timing   # and time per call, engine and torch
    .venv/bin/python bench/float32_math.py --float64  # the same ops in float64 (measured only)

For each op: 10^5 seeded random float32 inputs over the op's useful range, and a set of
small tensors a learner prints (lengths 1 to 100, randn-like values, linspace, whole
numbers). A result counts as identical when its bits are (nan counts equal to nan).
The small tensors are also scored per tensor: the share of them with every element equal,
and the share that print the same (repr, 4 decimals by default).

Run it with one torch thread (as here): with more, torch splits a long tensor into
chunks, and each chunk's end is computed the scalar way (see engine/fidelity/float32_math.py).
Nothing here is asserted; tests/fidelity/test_float32_math.py asserts bit identity.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402

try:
    import torch
    torch.set_num_threads(1)
except ModuleNotFoundError:
    sys.exit("torch is not installed: run `make oracle` first")

N = 100_000
SMALL_LENGTHS = [1, 2, 3, 4, 5, 7, 8, 10, 16, 17, 31, 32, 33, 50, 64, 100]


def _uniform(lo, hi):
    return lambda rng, n: rng.uniform(lo, hi, n)


def _log_uniform(lo, hi):
    return lambda rng, n: np.exp(rng.uniform(np.log(lo), np.log(hi), n))


def _signed_log_uniform(lo, hi):
    return lambda rng, n: _log_uniform(lo, hi)(rng, n) * rng.choice([-1.0, 1.0], n)


# name: (function of the module m and the input(s), input makers: one per tensor argument)
CASES = {
    "exp": (lambda m, x: m.exp(x), [_uniform(-88.0, 88.0)]),
    "exp [-10, 10]": (lambda m, x: m.exp(x), [_uniform(-10.0, 10.0)]),
    "log": (lambda m, x: m.log(x), [_log_uniform(1e-30, 1e30)]),
    "log (0, 10]": (lambda m, x: m.log(x), [_uniform(0.0, 10.0)]),
    "sin [-10, 10]": (lambda m, x: m.sin(x), [_uniform(-10.0, 10.0)]),
    "sin |x| < 1e4": (lambda m, x: m.sin(x), [_uniform(-1e4, 1e4)]),
    "cos [-10, 10]": (lambda m, x: m.cos(x), [_uniform(-10.0, 10.0)]),
    "tanh [-10, 10]": (lambda m, x: m.tanh(x), [_uniform(-10.0, 10.0)]),
    "sigmoid [-20, 20]": (lambda m, x: m.sigmoid(x), [_uniform(-20.0, 20.0)]),
    "sigmoid [-100, 100]": (lambda m, x: m.sigmoid(x), [_uniform(-100.0, 100.0)]),
    "x ** 2": (lambda m, x: x ** 2, [_uniform(-100.0, 100.0)]),
    "x ** 3": (lambda m, x: x ** 3, [_uniform(-100.0, 100.0)]),
    "x ** -1": (lambda m, x: x ** -1, [_signed_log_uniform(1e-3, 1e3)]),
    "x ** -2": (lambda m, x: x ** -2, [_signed_log_uniform(1e-3, 1e3)]),
    "x ** 0.5": (lambda m, x: x ** 0.5, [_uniform(0.0, 100.0)]),
    "x ** -0.5": (lambda m, x: x ** -0.5, [_log_uniform(1e-3, 1e3)]),
    "x ** 1.5": (lambda m, x: x ** 1.5, [_uniform(0.0, 100.0)]),
    "x ** 4": (lambda m, x: x ** 4, [_uniform(-10.0, 10.0)]),
    "x ** y": (lambda m, x, y: x ** y, [_uniform(0.0, 10.0), _uniform(-5.0, 5.0)]),
    "2 ** y": (lambda m, y: 2 ** y, [_uniform(-20.0, 20.0)]),
    "exp backward": (lambda m, x: _grad(m, x, m.exp), [_uniform(-10.0, 10.0)]),
    "tanh backward": (lambda m, x: _grad(m, x, m.tanh), [_uniform(-5.0, 5.0)]),
    "sigmoid backward": (lambda m, x: _grad(m, x, m.sigmoid), [_uniform(-10.0, 10.0)]),
    "x ** 3 backward": (lambda m, x: _grad(m, x, lambda t: t ** 3), [_uniform(-10.0, 10.0)]),
}


def _grad(m, x, fn):
    x = x.detach().requires_grad_(True)
    y = fn(x)
    y.backward(m.linspace(0.5, 1.5, x.numel(), dtype=x.dtype).reshape(y.shape))
    return x.grad


def _bits(a):
    a = np.ascontiguousarray(a)
    bits = a.view(np.int32 if a.dtype == np.float32 else np.int64).copy()
    bits[np.isnan(a)] = -1  # any nan is "nan"
    return bits


DTYPE = np.float32


def _run(fn, arrays):
    """Per element: are the bits the same? And are the printed tensors the same?"""
    arrays = [a.astype(DTYPE) for a in arrays]
    got = fn(engine, *(engine.from_numpy(a.copy()) for a in arrays)).detach()
    want = fn(torch, *(torch.from_numpy(a.copy()) for a in arrays)).detach()
    same = _bits(got.numpy()) == _bits(want.numpy())
    return same, same.all() or repr(got) == repr(want)


def _small_inputs(rng, makers, positive):
    """Tensors a learner might print: randn-like values, linspace, the op's own range."""
    for n in SMALL_LENGTHS:
        for kind in ("randn", "range", "linspace"):
            arrays = []
            for make in makers:
                if kind == "randn":
                    values = rng.standard_normal(n) * 2
                elif kind == "range":
                    values = make(rng, n)
                else:
                    values = np.linspace(-3.0, 3.0, n)
                arrays.append(values.astype(np.float32))
            if positive:  # log, fractional powers: where they are defined
                arrays[0] = np.abs(arrays[0])
            yield arrays


# the ops whose small inputs are made positive
POSITIVE = {"log", "log (0, 10]", "x ** 0.5", "x ** -0.5", "x ** 1.5", "x ** y"}


def measure(name):
    fn, makers = CASES[name]
    rng = np.random.default_rng(list(name.encode()))
    arrays = [make(rng, N).astype(np.float32) for make in makers]
    big = _run(fn, arrays)[0].mean()
    elements, tensors, printed = [], [], []
    for small in _small_inputs(rng, makers, name in POSITIVE):
        same, same_repr = _run(fn, small)
        elements.append(same)
        tensors.append(same.all())
        printed.append(same_repr)
    return big, np.concatenate(elements).mean(), np.mean(tensors), np.mean(printed)


def timing():
    print("\ntime per call (microseconds, median of 5 loops), engine | torch")
    print(f"{'op':10s}" + "".join(f" | {n:>17,d}" for n in (10, 1000, 10**6)))
    for name, fn in [("exp", lambda m, x: m.exp(x)), ("log", lambda m, x: m.log(x.abs())),
                     ("sin", lambda m, x: m.sin(x)), ("tanh", lambda m, x: m.tanh(x)),
                     ("sigmoid", lambda m, x: m.sigmoid(x)), ("x ** 2", lambda m, x: x ** 2),
                     ("x ** 1.5", lambda m, x: x.abs() ** 1.5),
                     ("x ** y", lambda m, x: x.abs() ** x)]:
        cells = []
        for n in (10, 1000, 10**6):
            x = np.random.default_rng(0).uniform(-5, 5, n).astype(np.float32)
            cells.append("/".join(f"{_time(fn, m, x):8.1f}" for m in (engine, torch)))
        print(f"{name:10s}" + "".join(f" | {c:>17s}" for c in cells))


def _time(fn, m, array):
    x = m.from_numpy(array.copy())
    number = max(1, int(2e5 // (array.size + 100)))
    fn(m, x)
    best = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(number):
            fn(m, x)
        best.append((time.process_time() - start) / number * 1e6)
    return sorted(best)[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timing", action="store_true", help="also time the ops")
    parser.add_argument("-k", default="", help="only the ops whose name contains this")
    parser.add_argument("--float64", action="store_true", help="measure float64 instead")
    args = parser.parse_args()
    global DTYPE
    DTYPE = np.float64 if args.float64 else np.float32
    print(f"torch {torch.__version__}, CPU capability {torch.backends.cpu.get_cpu_capability()}"
          f", {torch.get_num_threads()} thread, {np.dtype(DTYPE).name}")
    print(f"{'op':22s} | 10^5 random | small tensors: elements | whole tensors | printed")
    for name in CASES:
        if args.k in name:
            big, elements, tensors, printed = measure(name)
            print(f"{name:22s} | {big:11.5%} | {elements:23.4%} | {tensors:13.2%} | "
                  f"{printed:7.2%}")
    if args.timing:
        timing()


if __name__ == "__main__":
    main()
