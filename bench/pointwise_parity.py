"""How often are erf, erfc, erfinv, logit, xlogy, hypot, logaddexp, sinc bit-identical to torch's?

    ATEN_CPU_CAPABILITY=avx2 .venv/bin/python bench/pointwise_parity.py

10^6 seeded inputs per op and dtype (the op's useful range, plus tiny and huge values), one
tensor each, engine and torch; prints the share of identical bits (nan equal to nan) and the
largest distance in units in the last place. torch takes float32/float64 erf, erfc and erfinv
from MKL, and the logs and exps inside the others from SLEEF or the C library: the engine's are
correctly rounded, so the shares below 1 are MKL's or SLEEF's own rounding (see
engine/ops/README.md). Nothing here is asserted: tests/ops/test_pointwise_more_parity.py is.
"""
import os
import sys
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

N = 1_000_000


def _inputs(name, dtype, rng):
    if name in ("erfinv",):
        values = np.concatenate([rng.uniform(-1, 1, N // 2), 1 - rng.uniform(0, 1e-3, N // 4),
                                 rng.standard_normal(N - N // 2 - N // 4) * 1e-4])
    elif name == "logit":
        values = np.concatenate([rng.uniform(0, 1, N // 2), rng.uniform(0, 1e-3, N // 4),
                                 1 - rng.uniform(0, 1e-3, N - N // 2 - N // 4)])
    else:
        values = np.concatenate([rng.standard_normal(N // 2) * 2, rng.uniform(-6, 6, N // 4),
                                 rng.standard_normal(N - N // 2 - N // 4) * 1e-3])
    return values.astype(dtype)


def _ulps(a, b):
    wide = {2: np.int16, 4: np.int32, 8: np.int64}[a.itemsize]
    ai, bi = a.view(wide).astype(np.int64), b.view(wide).astype(np.int64)
    finite = np.isfinite(a) & np.isfinite(b)
    return int(np.abs(ai - bi)[finite].max(initial=0))


def measure(name, dtype):
    rng = np.random.default_rng(0)
    x = _inputs(name, dtype, rng)
    args = (x,)
    if name in ("xlogy", "hypot", "logaddexp"):
        y = _inputs("logit" if name == "xlogy" else name, dtype, np.random.default_rng(1))
        args = (x, y)
    ours = getattr(engine, name)(*(engine.from_numpy(a) for a in args)).numpy()
    theirs = getattr(torch, name)(*(torch.from_numpy(a) for a in args)).numpy()
    same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    same &= np.signbit(ours) == np.signbit(theirs)
    return same.mean(), _ulps(ours, theirs)


def main():
    print(f"{'op':12} {'dtype':8} {'identical':>10} {'max ulp':>8}")
    for name in ("erf", "erfc", "erfinv", "logit", "xlogy", "hypot", "logaddexp", "sinc"):
        for dtype in ("float16", "float32", "float64"):
            share, ulps = measure(name, dtype)
            print(f"{name:12} {dtype:8} {share:10.6f} {ulps:8d}")


if __name__ == "__main__":
    main()
