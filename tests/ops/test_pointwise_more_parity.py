"""erf, erfc, erfinv, logit, xlogy, copysign, hypot, fmax, fmin, logaddexp, logaddexp2,
deg2rad, rad2deg, signbit (engine/ops/pointwise.py) against torch.

Values that torch takes from MKL, SLEEF or the C library are compared within torch.testing's
tolerance (the engine's are correctly rounded: engine/ops/README.md); the others exactly.
"""
import numpy as np
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

UNARY_FLOAT = ["erf", "erfc", "erfinv", "logit", "deg2rad", "rad2deg", "sinc"]
EXACT_UNARY = {"deg2rad", "rad2deg"}
BINARY = ["xlogy", "copysign", "hypot", "fmax", "fmin", "logaddexp", "logaddexp2"]
EXACT_BINARY = {"copysign", "fmax", "fmin"}


def _unit_values(shape, dtype, seed=0):
    """Values for erfinv and logit: mostly in [-1, 1] / [0, 1], a few outside and at the ends."""
    values = parity.make_values(shape, dtype, seed)
    if np.dtype(dtype).kind == "f" and values.size:
        flat = values.reshape(-1)
        rng = np.random.default_rng(seed)
        flat[:] = rng.uniform(-1.2, 1.2, flat.size).astype(dtype)
        flat[: min(4, flat.size)] = np.array([0.0, 1.0, -1.0, 0.5], dtype)[: min(4, flat.size)]
    return values


def _values(name, shape, dtype, seed=0):
    return _unit_values(shape, dtype, seed) if name in ("erfinv", "logit") else \
        parity.make_values(shape, dtype, seed)


@pytest.mark.parametrize("name", UNARY_FLOAT + ["signbit"])
@pytest.mark.parametrize("shape", parity.SHAPES)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_unary_values_dtypes_and_layout(name, shape, dtype):
    x = _values(name, shape, dtype)
    exact = name in EXACT_UNARY or name == "signbit"
    # (an empty numpy input converts with other strides in each library: not the op's doing)
    parity.run_both(lambda m, t: (getattr(m, name)(t), getattr(t, name)()), x, exact=exact,
                    check_inputs=x.size > 0, check_layout=x.size > 0)


@pytest.mark.parametrize("name", UNARY_FLOAT + ["signbit"])
def test_unary_non_contiguous_and_specials(name):
    x = np.array([[0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.25, 5.5, -3.0]] * 3,
                 np.float32)
    exact = name in EXACT_UNARY or name == "signbit"
    parity.run_both(lambda m, t: getattr(m, name)(t.t()), x, exact=exact)
    parity.run_both(lambda m, t: getattr(m, name)(t[:, ::2]), x, exact=exact)
    parity.run_both(lambda m, t: getattr(m, name)(t.expand(2, 3, 10)), x, exact=exact)


@pytest.mark.parametrize("n", [1, 15, 16, 31, 33, 100])
def test_float16_erf_is_atens_vectorised_erf_bit_for_bit(n):
    x = np.linspace(-4, 4, n).astype(np.float16)
    parity.run_both(lambda m, t: m.erf(t), x)
    parity.run_both(lambda m, t: (m.erfc(t), m.erfinv(t / 4)), x)


@pytest.mark.parametrize("eps", [None, 0.0, 0.1, 1e-6, -1.0, 0.5])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_logit_eps(eps, dtype):
    x = np.array([-0.5, 0.0, 0.05, 0.1, 0.3, 0.5, 0.9, 0.95, 1.0, 1.5, np.nan], dtype)
    parity.run_both(lambda m, t: (m.logit(t, eps), m.logit(t, eps=eps), t.logit(eps)), x,
                    exact=False)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("shapes", parity.BROADCAST_PAIRS)
def test_binary_broadcast_pairs(name, shapes):
    a = parity.make_values(shapes[0], "float32", 1)
    b = parity.make_values(shapes[1], "float32", 2)
    exact = name in EXACT_BINARY
    parity.run_both(lambda m, x, y: (getattr(m, name)(x, y), getattr(x, name)(y),
                                     getattr(m, name)(input=x, other=y)), a, b, exact=exact,
                    check_inputs=a.size * b.size > 0, check_layout=a.size * b.size > 0)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("a_dtype", parity.DTYPES)
@pytest.mark.parametrize("b_dtype", ["bool", "uint8", "int64", "float16", "float32", "float64"])
def test_binary_dtypes(name, a_dtype, b_dtype):
    a = parity.make_values((2, 3), a_dtype, 3)
    b = parity.make_values((3,), b_dtype, 4)
    parity.run_both(lambda m, x, y: getattr(m, name)(x, y), a, b,
                    exact=name in EXACT_BINARY)


@pytest.mark.parametrize("name", BINARY)
def test_binary_non_contiguous_and_specials(name):
    values = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5, -3.0, 1e-30],
                      np.float32)
    a = np.stack(np.meshgrid(values, values)[0:1])[0]
    b = a.T.copy()
    exact = name in EXACT_BINARY
    parity.run_both(lambda m, x, y: getattr(m, name)(x, y), a, b, exact=exact)
    parity.run_both(lambda m, x, y: getattr(m, name)(x.t(), y[::2]), a, b[:, :10], exact=exact)


@pytest.mark.parametrize("name", BINARY)
def test_binary_numbers(name):
    x = np.array([0.0, -0.0, 1.5, -2.0, np.nan], np.float32)
    for number in (2, 2.5, -1.0, 0, True):
        parity.run_both(lambda m, t, name=name, number=number: getattr(m, name)(t, number), x,
                        exact=False)
        parity.run_both(lambda m, t, name=name, number=number: getattr(m, name)(number, t), x,
                        exact=False)
    parity.run_both(lambda m, t: getattr(m, name)(t, "a"), x)
    parity.run_both(lambda m, t: getattr(m, name)(None, t), x)


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_ties_and_signed_zeros(name):
    a = np.array([0.0, -0.0, 1.0, np.nan, 2.0, np.nan], np.float32)
    b = np.array([-0.0, 0.0, 1.0, 3.0, np.nan, np.nan], np.float32)
    parity.run_both(lambda m, x, y: getattr(m, name)(x, y), a, b)
    parity.run_both(lambda m, x, y: getattr(m, name)(x, y), np.array([3, -1], np.int8),
                    np.array([2, 7], np.int8))


def test_out_and_in_place():
    x = np.array([0.2, -0.7, 0.0, 0.9], np.float32)
    y = np.array([1.5, -2.0, 0.0, 3.0], np.float32)
    for name in UNARY_FLOAT:
        parity.run_both(lambda m, t, name=name: getattr(m, name)(t, out=m.empty(4)), x, exact=False)
        parity.run_both(lambda m, t, name=name: getattr(t.clone(), name + "_")(), x, exact=False)
        parity.run_both(lambda m, t, name=name: getattr(m, name)(
            t, out=m.empty(4, dtype=m.int64)), x)
        parity.run_both(lambda m, t, name=name: getattr(m, name)(
            t, out=m.empty(4, dtype=m.float64)), x,
                        exact=False)
    for name in BINARY:
        parity.run_both(lambda m, a, b, name=name: getattr(m, name)(a, b, out=m.empty(2, 4)), x, y,
                        exact=False)
        parity.run_both(lambda m, a, b, name=name: getattr(m, name)(
            a, b, out=m.empty(4, dtype=m.int32)),
                        x, y)
    for name in ("xlogy", "copysign", "hypot"):
        parity.run_both(lambda m, a, b, name=name: getattr(a.clone(), name + "_")(b), x, y,
                        exact=False)
        # (a float result into an integer tensor)
        parity.run_both(lambda m, a, name=name: getattr(m.arange(4), name + "_")(a), x)
    parity.run_both(lambda m, t: m.signbit(t, out=m.empty(4, dtype=m.bool)), x)
    parity.run_both(lambda m, t: m.erf(m.tensor([1, 2])).dtype)
    for name in ("erf_", "erfc_", "logit_", "deg2rad_", "rad2deg_", "xlogy_"):
        args = (y,) if name == "xlogy_" else ()
        parity.run_both(lambda m, t, *rest, name=name: getattr(m, name)(t.clone(), *rest), x, *args,
                        exact=False)


def test_in_place_on_a_view_records_the_op():
    def fn(m, t):
        base = t.clone().requires_grad_()
        work = base * 1
        view = work[1:3]
        view.erf_()
        work.logit_(0.1)
        work.sum().backward()
        return work, base.grad, work.grad_fn.name(), view.grad_fn.name()

    parity.run_both(fn, np.array([0.2, -0.7, 0.3, 0.9], np.float32), exact=False)


def test_in_place_integer_result_refused():
    x = np.array([1, 2, 3], np.int64)
    for name in ("erf_", "erfinv_", "logit_", "deg2rad_"):
        parity.run_both(lambda m, t, name=name: getattr(t, name)(), x)
    parity.run_both(lambda m, t: t.copysign_(t), x)


def test_in_place_shape_is_refused_before_the_dtype():
    parity.run_both(lambda m: m.tensor(3, dtype=m.int8).hypot_(m.tensor([1, 2, 3])))
    parity.run_both(lambda m: m.ones(2, 1, dtype=m.int64).hypot_(m.ones(2, 3)))
    parity.run_both(lambda m: m.ones(3, dtype=m.int64).hypot_(m.ones(3)))


@pytest.mark.parametrize("name", ["hypot", "logaddexp", "logaddexp2"])
def test_integer_operands_refused(name):
    parity.run_both(lambda m, t: getattr(m, name)(t, t), np.array([1, 2], np.int64))
    parity.run_both(lambda m, t: getattr(m, name)(t, t), np.array([True], bool))


def test_shape_errors():
    for name in BINARY:
        parity.run_both(lambda m, name=name: getattr(m, name)(m.ones(2), m.ones(3)))


def _grad_fn_and_gradients(name, *values, **kwargs):
    def fn(m, *ts):
        ts = [t.clone().requires_grad_() for t in ts]
        out = getattr(m, name)(*ts, **kwargs)
        grads = m.autograd.grad(out, ts, m.ones_like(out) * 0.75, allow_unused=True)
        return out, out.grad_fn.name(), grads
    return fn


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_and_grad_fn_names(dtype):
    x = np.array([0.0, -0.0, 0.3, -0.5, 1.0, 2.0, -1.0, 0.95], dtype)
    y = np.array([0.0, 1.0, 0.3, -0.5, -0.0, 3.0, -1.0, 0.5], dtype)
    for name in ["erf", "erfc", "deg2rad", "rad2deg"]:
        parity.run_both(_grad_fn_and_gradients(name), x, exact=False)
    for name in ["erfinv", "logit"]:
        parity.run_both(_grad_fn_and_gradients(name), x / 2 + 0.25, exact=False)
    parity.run_both(_grad_fn_and_gradients("logit", eps=0.2), x, exact=False)
    parity.run_both(_grad_fn_and_gradients("logit"), x, exact=False)
    for name in BINARY:
        parity.run_both(_grad_fn_and_gradients(name), x, y, exact=False)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("n", [1, 4, 8, 16, 33, 70])
@pytest.mark.parametrize("eps", [None, 0.0])
def test_logit_gradient_at_negative_zero_by_position(dtype, n, eps):
    """torch's scalar loop divides by +0.0 there, its vectorised loop by -0.0."""
    def fn(m, t, g):
        t = t.clone().requires_grad_()
        m.logit(t, eps).backward(g)
        strided = t.detach().clone().requires_grad_()
        m.logit(strided[::2], eps).backward(g[::2])
        return t.grad, strided.grad

    parity.run_both(fn, np.full(n, -0.0, dtype),
                    np.where(np.arange(n) % 3 == 0, -0.75, 0.75).astype(dtype))


def test_gradients_with_numbers():
    x = np.array([0.0, 0.5, -2.0, 3.0], np.float32)
    for name, number in [("xlogy", 2.0), ("xlogy", -1.0), ("xlogy", 0), ("copysign", -1.0),
                         ("copysign", 0.0)]:
        def fn(m, t, name=name, number=number):
            t = t.clone().requires_grad_()
            out = getattr(m, name)(t, number)
            return out, out.grad_fn.name(), m.autograd.grad(out.sum(), t)
        parity.run_both(fn, x, exact=False)

    def scalar_first(m, t):
        t = t.clone().requires_grad_()
        out = m.xlogy(3, t)
        return out, out.grad_fn.name(), m.autograd.grad(out.sum(), t)
    parity.run_both(scalar_first, np.abs(x) + 0.5, exact=False)


def test_second_derivatives_record_torchs_nodes():
    def fn(m, a, b):
        a, b = a.clone().requires_grad_(), b.clone().requires_grad_()
        results = []
        for name in ["erf", "erfc", "erfinv", "logit"]:
            (g,) = m.autograd.grad(getattr(m, name)(a / 4).sum(), a, create_graph=True)
            (gg,) = m.autograd.grad(g.sum(), a)
            results += [g, gg]
        for name in ["xlogy", "hypot", "logaddexp", "logaddexp2", "copysign", "fmax"]:
            g = m.autograd.grad(getattr(m, name)(a, b).sum(), (a, b), create_graph=True)
            results += [*g]
            if g[0].requires_grad:
                results.append(m.autograd.grad(g[0].sum(), (a,), allow_unused=True)[0])
        return results

    parity.run_both(fn, np.array([0.3, 0.6, 1.2], np.float64),
                    np.array([0.5, 2.0, 1.2], np.float64), exact=False)


@pytest.mark.parametrize("name", UNARY_FLOAT + BINARY + ["ldexp", "angle", "nextafter"])
def test_gradcheck_float64(name):
    rng = np.random.default_rng(0)
    a = engine.tensor(rng.uniform(0.1, 0.9, 5), dtype=engine.float64, requires_grad=True)
    b = engine.tensor(rng.uniform(0.5, 2.0, 5), dtype=engine.float64, requires_grad=True)
    inputs = (a, b) if name in BINARY + ["ldexp", "nextafter"] else (a,)
    assert engine.autograd.gradcheck(getattr(engine, name), inputs)
    if name not in ("fmax", "fmin", "copysign", "angle"):
        assert engine.autograd.gradgradcheck(getattr(engine, name), inputs)


@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv", "logit", "hypot", "logaddexp",
                                  "xlogy", "fmax", "copysign"])
def test_forward_mode(name):
    def fn(m, a, b, ta, tb):
        fwAD = m.autograd.forward_ad
        with fwAD.dual_level():
            da, db = fwAD.make_dual(a, ta), fwAD.make_dual(b, tb)
            out = getattr(m, name)(da, db) if name in BINARY else getattr(m, name)(da)
            return fwAD.unpack_dual(out).tangent

    parity.run_both(fn, np.array([0.2, 0.5, 0.7], np.float64),
                    np.array([0.2, 1.5, -0.7], np.float64),
                    np.array([1.0, -2.0, 0.5], np.float64), np.array([0.3, 1.0, 2.0], np.float64),
                    exact=False)


def test_out_refuses_autograd():
    parity.run_both(lambda m: m.erf(m.ones(2, requires_grad=True), out=m.empty(2)))
    parity.run_both(lambda m: m.hypot(m.ones(2, requires_grad=True), m.ones(2),
                                      out=m.empty(2)))


# ---------------------------------------------------------------- sinc, heaviside, float_power
def test_sinc_values_and_gradient():
    x = np.array([0.0, -0.0, 1.0, -2.0, 0.5, 1e-3, 3.25, np.inf, np.nan, 1e10], np.float32)
    for dtype in ("float16", "float32", "float64"):
        parity.run_both(lambda m, t: m.sinc(t), x.astype(dtype), exact=False)
    parity.run_both(lambda m: m.sinc(m.tensor([1, 2, 0])))
    parity.run_both(lambda m: m.sinc(m.tensor([2.0, 0.5])))  # float32 pi: sinc(2) is not 0

    def fn(m, t):
        t = t.clone().requires_grad_()
        (g,) = m.autograd.grad(m.sinc(t).sum(), t, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), t)
        return g, gg, m.sinc(t).grad_fn.name()

    parity.run_both(fn, np.array([0.0, 0.3, -1.5, 2.0, 1e-4], np.float64), exact=False)


@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("shapes", parity.BROADCAST_PAIRS)
def test_heaviside(dtype, shapes):
    x = parity.make_values(shapes[0], dtype, 5)
    v = parity.make_values(shapes[1], dtype, 6)
    check = x.size * v.size > 0
    parity.run_both(lambda m, a, b: (m.heaviside(a, b), a.heaviside(b)), x, v,
                    check_inputs=check, check_layout=check)


def test_heaviside_errors_and_autograd():
    parity.run_both(lambda m: m.heaviside(m.ones(2), m.ones(2, dtype=m.float64)))
    parity.run_both(lambda m: m.heaviside(m.ones(3), m.ones(2)))
    parity.run_both(lambda m: m.heaviside(m.ones(3), None))
    parity.run_both(lambda m: m.heaviside(m.ones(3), 0.5))
    parity.run_both(lambda m: m.heaviside(m.ones(3), m.ones(3), out=m.empty(3, dtype=m.int64)))
    parity.run_both(lambda m: m.heaviside(m.tensor([0.0, -1.0, 2.0]), m.tensor(0.5),
                                          out=m.empty(3)))
    parity.run_both(lambda m: m.tensor([0.0, -1.0, 2.0]).heaviside_(m.tensor([1.0, 2.0, 3.0])))

    def fn(m, x_grad, values_grad):
        x = m.tensor([0.0, 1.0], requires_grad=x_grad)
        y = m.heaviside(x, m.tensor([0.5, 0.5], requires_grad=values_grad))
        return y.grad_fn.name(), len(y.grad_fn.next_functions), y.sum().backward()

    for x_grad, values_grad in [(True, False), (False, True), (True, True)]:
        parity.run_both(fn, x_grad, values_grad)


@pytest.mark.parametrize("base_dtype", parity.DTYPES)
def test_float_power(base_dtype):
    x = np.abs(parity.make_values((2, 3), base_dtype, 7))
    for exponent in (2, 0.5, -1, 3, True, 2.5):
        parity.run_both(lambda m, t, e=exponent: (m.float_power(t, e), t.float_power(e)), x,
                        exact=False)
    parity.run_both(lambda m, t: m.float_power(2, t), x, exact=False)
    parity.run_both(lambda m, t: m.float_power(t, t), x, exact=False)
    parity.run_both(lambda m, t: m.float_power(t, m.tensor(2)), x, exact=False)


def test_float_power_of_a_negative_number_has_nan_gradients():
    def fn(m):
        b = m.tensor([1e-3, 2.0], requires_grad=True)
        m.float_power(-1.0, b).sum().backward()
        return b.grad

    parity.run_both(fn)


def test_float_power_out_in_place_errors_and_graph():
    parity.run_both(lambda m: m.float_power(m.ones(2), 2, out=m.empty(2)))
    parity.run_both(lambda m: m.float_power(m.ones(2), 2, out=m.empty(2, dtype=m.float64)))
    parity.run_both(lambda m: m.ones(2).float_power_(2))
    parity.run_both(lambda m: m.ones(2, dtype=m.float64).float_power_(m.tensor([2.0, 3.0])))
    parity.run_both(lambda m: m.float_power(m.ones(2), None))
    parity.run_both(lambda m: m.float_power(None, m.ones(2)))

    def fn(m):
        x = m.tensor([1.5, -2.0, 0.5], requires_grad=True)
        results = []
        for y in (m.float_power(x, 2), m.float_power(2, x), m.float_power(x, x)):
            results += [y, y.grad_fn.name(), y.grad_fn.next_functions[0][0].name(),
                        m.autograd.grad(y.sum(), x)]
        return results

    parity.run_both(fn, exact=False)


# ---------------------------------------------------------------- torch.special
SPECIAL = ["erf", "erfc", "erfinv", "expit", "logit", "exp2", "expm1", "log1p", "digamma",
           "psi", "gammaln", "sinc", "round"]


@pytest.mark.parametrize("name", SPECIAL)
def test_special_functions_are_the_ops(name):
    x = np.array([0.2, 0.7, -0.3, 1.5], np.float32)

    def fn(m, t):
        t = t.clone().requires_grad_()
        out = getattr(m.special, name)(t)
        return out, out.grad_fn.name(), m.autograd.grad(out.sum(), t)

    parity.run_both(fn, x, exact=False)
    parity.run_both(lambda m, t: getattr(m.special, name)(t, out=m.empty(4)), x, exact=False)
    parity.run_both(lambda m: getattr(m.special, name)(None))
    parity.run_both(lambda m: getattr(m.special, name)(m.ones(2, requires_grad=True),
                                                       out=m.empty(2)))


def test_special_functions_with_more_arguments():
    x = np.array([[0.2, 0.7], [-0.3, 1.5]], np.float32)
    parity.run_both(lambda m, t: (m.special.xlogy(t, t), m.special.xlogy(2, t),
                                  m.special.logit(t, 0.1), m.special.logit(t, eps=0.1),
                                  m.special.round(t, decimals=1)), x, exact=False)
    for name in ("softmax", "log_softmax", "logsumexp"):
        parity.run_both(lambda m, t, name=name: getattr(m.special, name)(t, 1), x, exact=False)
        parity.run_both(lambda m, t, name=name: getattr(m.special, name)(t), x)
    parity.run_both(lambda m, t: m.special.softmax(t, 0, m.float64), x, exact=False)
    parity.run_both(lambda m, t: m.special.logsumexp(t, 0, True), x, exact=False)
    parity.run_both(lambda m, t: m.special.round(t, 1), x)
    parity.run_both(lambda m, t: m.special.xlogy(t, "a"), x)


# ---------------------------------------------------------------- integers: gcd, lcm, shifts
INTEGER_BINARY = ["gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift"]


@pytest.mark.parametrize("name", INTEGER_BINARY)
@pytest.mark.parametrize("a_dtype", parity.DTYPES)
@pytest.mark.parametrize("b_dtype", ["bool", "uint8", "int8", "int32", "int64", "float32"])
def test_integer_ops_dtypes(name, a_dtype, b_dtype):
    a = parity.make_values((2, 4), a_dtype, 8)
    b = parity.make_values((4,), b_dtype, 9)
    if np.dtype(b_dtype).kind in "iu" and name.startswith("bitwise"):
        b = np.abs(b.astype(np.int64) % 70).astype(b_dtype)  # (shifts in and past the width)
        b[0] = -1 if np.dtype(b_dtype).kind == "i" else b[0]
    parity.run_both(lambda m, x, y: (getattr(m, name)(x, y), getattr(x, name)(y)), a, b)


@pytest.mark.parametrize("name", INTEGER_BINARY)
@pytest.mark.parametrize("shapes", parity.BROADCAST_PAIRS)
def test_integer_ops_broadcast_out_and_in_place(name, shapes):
    a = parity.make_values(shapes[0], "int32", 10)
    b = np.abs(parity.make_values(shapes[1], "int32", 11)) % 40
    check = a.size * b.size > 0
    parity.run_both(lambda m, x, y: getattr(m, name)(x, y, out=m.empty(0, dtype=m.int32)), a, b,
                    check_inputs=check, check_layout=check)
    parity.run_both(lambda m, x, y: getattr(x.clone(), name + "_")(y), a, b,
                    check_inputs=check, check_layout=check)


def test_integer_extremes():
    parity.run_both(lambda m: (m.gcd(m.tensor([-2**63, -128]), m.tensor([0, 0])),
                               m.gcd(m.tensor([-128], dtype=m.int8), m.tensor([0], dtype=m.int8)),
                               m.lcm(m.tensor([100, -18], dtype=m.int8),
                                     m.tensor([3, 4], dtype=m.int8)),
                               m.lcm(m.tensor([-18, 6, 0]), m.tensor([4, -4, 0]))))
    parity.run_both(lambda m: (m.tensor([64], dtype=m.int8) << 1,
                               m.tensor([200], dtype=m.uint8) >> 9,
                               m.tensor([5, -5]) << m.tensor([-1, 64]),
                               m.tensor([5, -5]) >> m.tensor([-1, 64]),
                               m.tensor([3], dtype=m.int8) << m.tensor([6])))


def test_shift_operators():
    x = np.array([12, -18, 0, 7], np.int64)
    parity.run_both(lambda m, t: (t << 2, t >> 1, 2 << t.abs(), 100 >> t.abs(), t << t.abs(),
                                  m.bitwise_left_shift(3, t.abs()), t << True), x)
    parity.run_both(lambda m, t: t << 1.5, x)
    parity.run_both(lambda m, t: 1.5 >> t, x)
    parity.run_both(lambda m: m.tensor([1.0]) << 1)
    parity.run_both(lambda m: m.tensor([True, False]) << 1)

    def in_place(m, t):
        t = t.clone()
        t <<= 2
        t >>= m.tensor([1, 0, 3, 2])
        return t

    parity.run_both(in_place, x)
    parity.run_both(lambda m, t: m.bitwise_left_shift(t, None), x)
    parity.run_both(lambda m, t: m.gcd(t, 3), x)
    parity.run_both(lambda m, t: m.gcd(t, m.ones(3, dtype=m.int64)), x)


@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_gcd_lcm_refuse_floats_and_bools(name):
    parity.run_both(lambda m: getattr(m, name)(m.ones(2), m.ones(2)))
    parity.run_both(lambda m: getattr(m, name)(m.tensor([True]), m.tensor([True])))
    parity.run_both(lambda m: getattr(m, name)(m.ones(2), m.ones(3)))
    parity.run_both(lambda m: getattr(m, name + "_")(m.tensor([4, 6]), m.tensor([6, 4])))


# ---------------------------------------------------------------- isneginf, isposinf, isreal, conj
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_real_number_tests(dtype):
    x = parity.make_values((2, 3), dtype, 12)
    if np.dtype(dtype).kind == "f":
        x.reshape(-1)[:4] = [np.inf, -np.inf, np.nan, -0.0]
    parity.run_both(lambda m, t: (m.isneginf(t), m.isposinf(t), m.isreal(t), t.isneginf(),
                                  t.isposinf(), t.isreal(), m.isneginf(t.t()),
                                  m.conj(t) is t, t.conj() is t, m.conj_physical(t) is t,
                                  t.conj_physical() is t, t.conj_physical_() is t), x)
    parity.run_both(lambda m, t: m.isneginf(t, out=m.empty(0, dtype=m.bool)), x)
    parity.run_both(lambda m, t: m.isposinf(t, out=m.empty(6)), x)


def test_conj_keeps_the_graph():
    def fn(m):
        x = m.tensor([1.5, -2.0], requires_grad=True)
        y = m.conj(x * 2)
        y.sum().backward()
        return y, y.grad_fn.name(), x.grad, m.conj_physical(x) is x

    parity.run_both(fn)


# ---------------------------------------------------------------- angle
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_angle(dtype):
    x = parity.make_values((2, 3), dtype, 13)
    if np.dtype(dtype).kind == "f":
        x.reshape(-1)[:3] = [np.nan, -0.0, -np.inf]
    parity.run_both(lambda m, t: (m.angle(t), t.angle(), m.angle(t, out=m.empty(0, dtype=t.dtype)
                                                              if t.is_floating_point() else
                                                              m.empty(0))), x)


def test_angle_gradient():
    def fn(m, t):
        t = t.clone().requires_grad_()
        y = m.angle(t)
        (g,) = m.autograd.grad(y.sum(), t)
        return y.grad_fn.name(), g

    for dtype in ("float16", "float32", "float64"):
        parity.run_both(fn, np.array([1.5, -2.0, np.nan, -0.0], dtype))


# ---------------------------------------------------------------- nextafter, ldexp
@pytest.mark.parametrize("a_dtype", parity.DTYPES)
@pytest.mark.parametrize("b_dtype", ["int64", "float16", "float32", "float64"])
def test_nextafter_and_ldexp_dtypes(a_dtype, b_dtype):
    a = parity.make_values((2, 3), a_dtype, 14)
    b = parity.make_values((3,), b_dtype, 15)
    parity.run_both(lambda m, x, y: (m.nextafter(x, y), x.nextafter(y)), a, b)
    if np.dtype(b_dtype).kind == "f":
        b = np.clip(b, -20, 20).astype(b_dtype)
    parity.run_both(lambda m, x, y: (m.ldexp(x, y), x.ldexp(y)), a, b)


def test_nextafter_special_values():
    x = np.array([0.0, -0.0, 1.0, np.nan, 1.0, np.inf, 3.0], np.float32)
    y = np.array([-1.0, 1.0, np.nan, 1.0, 1.0, 0.0, 3.0], np.float32)
    for dtype in ("float16", "float32", "float64"):
        parity.run_both(lambda m, a, b: m.nextafter(a, b), x.astype(dtype), y.astype(dtype))
    parity.run_both(lambda m, a: m.nextafter(a, 1.0), x)
    parity.run_both(lambda m: m.nextafter(m.tensor([1, 2]), m.tensor([3, 4])))


def test_ldexp_is_rounded_once():
    parity.run_both(lambda m: (m.ldexp(m.tensor([1e-30]), m.tensor([130])),
                               m.ldexp(m.tensor([1e-4], dtype=m.float16), m.tensor([20])),
                               m.ldexp(m.tensor([3.0]), m.tensor([-149])),
                               m.ldexp(m.tensor([1.0]), m.tensor([200])),
                               m.ldexp(m.tensor([3.0], dtype=m.float64), m.tensor([-1100])),
                               m.ldexp(m.tensor([True]), m.tensor([2])),
                               m.ldexp(m.tensor([3]), m.tensor([True])),
                               m.ldexp(m.tensor([1.0]), m.tensor([1.5]))))
    parity.run_both(lambda m: m.ldexp(m.ones(2), 2))
    parity.run_both(lambda m: m.ones(2).ldexp_(m.tensor([1, 2])))
    parity.run_both(lambda m: m.ldexp_(m.ones(2), m.tensor([1, 2])))
    parity.run_both(lambda m: m.ldexp(m.ones(2), m.tensor([1, 2]), out=m.empty(2)))


def test_nextafter_and_ldexp_gradients():
    def fn(m):
        x = m.tensor([1.5, -2.0], requires_grad=True)
        e = m.tensor([2.0, -1.0], requires_grad=True)
        results = []
        for y in (m.nextafter(x, e), m.ldexp(x, e), m.ldexp(x, m.tensor([3, 1]))):
            results += [y, y.grad_fn.name(), len(y.grad_fn.next_functions),
                        m.autograd.grad(y.sum(), (x, e), allow_unused=True)]
        return results

    parity.run_both(fn, exact=False)


def test_what_the_fuzzer_found_in_the_second_batch():
    # nextafter returns y itself on a tie (-0.0 too); its gradient is 0 there
    parity.run_both(lambda m: m.nextafter(m.tensor([0.0, 1.0], dtype=m.float16),
                                          m.tensor(-0.0, dtype=m.float16)))

    def ties(m):
        x = m.tensor([1.0, 2.0, -0.0, 0.0], requires_grad=True)
        y = m.tensor([1.0, 3.0, 0.0, 0.0], requires_grad=True)
        return m.autograd.grad(m.nextafter(x, y), (x, y), m.tensor([2.0, -2.0, 2.0, -2.0]))

    parity.run_both(ties)
    # conj_physical_: a real in-place op (version, leaf refused, node); out= of the same dtype
    parity.run_both(lambda m: m.tensor([1.0], requires_grad=True).conj_physical_())

    def in_place(m):
        y = m.tensor([1.0, -2.0], requires_grad=True) * 2
        y.conj_physical_()
        return y, y._version, y.grad_fn.name()

    parity.run_both(in_place)
    parity.run_both(lambda m: m.conj_physical(m.ones(2), out=m.empty(2, dtype=m.float64)))
    parity.run_both(lambda m: m.conj_physical(m.ones(2), out=m.empty(0)))
    # ldexp's own words for a result out= cannot hold, before the shapes; a bool exponent
    parity.run_both(lambda m: m.ldexp(m.ones(2), m.ones(3), out=m.empty(2, dtype=m.int64)))
    parity.run_both(lambda m: m.ones(2, dtype=m.int64).ldexp_(m.tensor([1, 2])))
    parity.run_both(lambda m: m.ldexp(m.ones(2), m.tensor([True, False])))
    parity.run_both(lambda m: m.ldexp(m.tensor([3]), m.tensor([True])))
    parity.run_both(lambda m: m.bitwise_left_shift(m.tensor([1]), 2,
                                                   out=m.empty(1, dtype=m.uint8)))
    parity.run_both(lambda m: m.bitwise_left_shift(m.tensor([1.0]), 2,
                                                   out=m.empty(1, dtype=m.int64)))
