"""torch with the engine's float32 math functions: a second reference for compare.

torch's float32 exp, log, sin, cos, tanh and tan are MKL's, the engine's the nearest float
(numpy's tan): the same input may give numbers an ulp apart (notebooks/DIFFERENCES.md). An
ulp is invisible until terms cancel: the second derivative of tan(y) / tan(y) is 0.0 in torch
and 1.5e-05 in the engine (fuzz 2497552), terms of size 200 whose exact sum is 0. No tolerance
tells such a residue from a wrong gradient; running the program again under torch with each of
these functions' values replaced by the engine's does. If that run shows the engine's numbers,
the difference came from the functions' last bits alone, and torch's own formulas and order of
operations produced the rest (run.py asks only when a value or gradient would be a mismatch).

``patch(torch)`` changes the worker's torch in place: the out-of-place forms (``torch.exp(x)``,
``x.exp()``) of float32 tensors get the engine's values, written through ``.data`` so that the
node torch recorded (TanBackward0 saves its result) reads them and no version counter moves.
Everything else (the in-place forms, float64, the functions' uses inside torch's backward
formulas) is torch's own.
"""
import functools

import numpy as np

from engine.fidelity import float32_math

ENGINE_FLOAT32 = {"exp": float32_math.exp, "log": float32_math.log, "sin": float32_math.sin,
                  "cos": float32_math.cos, "tanh": float32_math.tanh, "tan": np.tan}


def patch(torch):
    for name, values in ENGINE_FLOAT32.items():
        for owner in (torch, torch.Tensor):
            setattr(owner, name, _with_engines_values(torch, getattr(owner, name), values))


def _with_engines_values(torch, original, values):
    @functools.wraps(original)
    def function(*args, **kwargs):
        result = original(*args, **kwargs)
        if len(args) == 1 and not kwargs and isinstance(args[0], torch.Tensor) and \
                args[0].dtype == result.dtype == torch.float32 and args[0].layout == torch.strided:
            try:
                with torch.no_grad():
                    engines = values(args[0].detach().numpy())
                    result.data.copy_(torch.from_numpy(np.ascontiguousarray(engines)))
            except RuntimeError:  # an inference tensor outside inference_mode: torch's values
                pass
        return result
    return function
