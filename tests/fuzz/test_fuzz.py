"""The differential fuzzer on a fixed range of seeds: torch and the engine must agree.

300 generated programs (seeds 0-299, the classic programs: the families of generator.py find the
bugs issue 25 lists, which are being fixed) run under torch and under the engine, each in its
own long-lived process; every mismatch must be one of the known differences listed, with the
reason, in tests/fuzz/known.py. A new one fails the test with its program, the line that
differs and both outputs; `python -m tests.fuzz.run --seeds N --shrink` reduces it.
"""
import pytest

import parity
from fuzz.generator import source
from fuzz.run import fuzz

pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch

SEEDS = range(0, 300)


def test_fixed_seeds_match_torch():
    results = fuzz(SEEDS, jobs=2, families=())
    assert len(results) == len(SEEDS)
    skipped = [r.seed for r in results if r.verdict.status == "skipped"]
    assert not skipped, f"torch itself failed to run seeds {skipped}"
    new = [r for r in results if r.new]
    report = "\n\n".join(f"seed {r.seed}: {r.verdict}\n{source(r.statements)}" for r in new)
    assert not new, f"{len(new)} new mismatches with torch:\n\n{report}"
