"""The engine with one planted bug, for the fuzzer's own tests (a fuzzer that cannot fail
is a defect): ``x.abs()`` / ``torch.abs(x)`` add 1 to every element.

``Worker("fuzz.planted_bug")`` imports this module as its library; it is the engine itself,
patched in that worker's process only.
"""
import sys

import engine

_abs = engine.abs


def _abs_plus_one(input, *args, **kwargs):
    return _abs(input, *args, **kwargs) + 1


engine.abs = engine.Tensor.abs = _abs_plus_one
sys.modules[__name__] = engine
