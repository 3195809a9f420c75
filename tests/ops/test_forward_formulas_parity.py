"""Forward-mode derivatives (torch.func.jvp) by torch's own formulas, op by op.

torch computes many tangents with a ``result:`` formula of derivatives.yaml (or a *_jvp
function of FunctionsManual.cpp), evaluated as ordinary operations: in float16 every one of
them rounds, so a tangent derived from the backward formula instead can be many ulps off
(layer_norm's and batch_norm's were out of tolerance). Each expression below is compared
with torch's, first and second order (nested jvp), with tangents of zeros in the first
trial (the sign of a zero result is torch's too) and broadcasting; errors by type and
message. Bit for bit in float16, where both compute each op in float32 and round (and in
every dtype for the expressions of EXACT_ALWAYS, which take no exp or log); elsewhere to a
few ulps (numpy's exp and log are not torch's SLEEF ones, the engine's statistics are not
summed in torch's order).
"""
import warnings

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch

F = "m.nn.functional."
# expression -> whether it is bit for bit torch's in float32 and float64 too
EXPRESSIONS = {
    # addcdiv: the engine's derived tangent read a tensor2 that forward mode had not saved
    "a.addcdiv(a, b)": True, "m.addcdiv(a, b, a, value=0.3)": True,
    "m.addcdiv(a, b[0], a[:, :1], value=-1.7)": True, "a.clone().addcdiv_(a, b, value=0.3)": True,
    "m.addcdiv(m.ones(3, 4), a, b, value=0.3)": True,
    "m.addcdiv(m.ones(3, 4, dtype=m.float64), m.ones(4), b, value=0.3)": True,
    "m.addcmul(a, a, b, value=0.3)": True, "m.addcmul(a, b[0], a, value=-1.7)": True,
    "m.addcmul(m.ones(3, 4), a, b, value=0.3)": True,
    "m.addcmul(m.ones(2, 3, 4, dtype=m.float64), b, m.ones(3, 4), value=0.3)": True,
}


def _jvp(m, expression, values, tangents, outer):
    a, b, ta, tb = (m.tensor(v) for v in (*values, *tangents))

    def f(a, b):
        return eval(expression, {"m": m, "a": a, "b": b})  # noqa: S307 - the test's own code
    if outer is None:
        return m.func.jvp(f, (a, b), (ta, tb))[1].numpy()
    oa, ob = (m.tensor(v) for v in outer)
    return m.func.jvp(lambda a, b: m.func.jvp(f, (a, b), (ta, tb))[1], (a, b),
                      (oa, ob))[1].numpy()


def _jvp_or_error(m, expression, values, tangents, outer):
    try:
        return _jvp(m, expression, values, tangents, outer)
    except Exception as error:  # noqa: BLE001 - compared with torch's
        return error


@pytest.mark.parametrize("order", ["first", "second"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("expression", list(EXPRESSIONS))
def test_forward_derivatives_are_torchs_formulas(expression, dtype, order):
    rng = np.random.default_rng(25)
    exact = dtype == "float16" or EXPRESSIONS[expression]
    for trial in range(6):
        values = [(rng.standard_normal((3, 4)) * 2).astype(dtype) for _ in range(2)]
        tangents = [rng.standard_normal((3, 4)).astype(dtype) for _ in range(2)]
        if trial == 0:  # tangents of zeros: the sign of a zero result is torch's too
            tangents[1][:] = 0
            tangents[0][0] = 0
        outer = None if order == "first" else [rng.standard_normal((3, 4)).astype(dtype)
                                               for _ in range(2)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch.func's first call warns of jit)
            expected = _jvp_or_error(torch, expression, values, tangents, outer)
            got = _jvp_or_error(engine, expression, values, tangents, outer)
        if isinstance(expected, Exception):
            assert (type(got).__name__, str(got)) == (type(expected).__name__, str(expected))
            continue
        assert not isinstance(got, Exception), got
        assert got.dtype == expected.dtype and got.shape == expected.shape
        if exact:
            np.testing.assert_array_equal(got, expected)
            numbers = ~np.isnan(expected)  # (a nan's sign means nothing)
            np.testing.assert_array_equal(np.signbit(got[numbers]),
                                          np.signbit(expected[numbers]))
        else:
            precision = 1e-12 if dtype == "float64" else 2e-5
            np.testing.assert_allclose(got, expected, rtol=precision, atol=precision)
