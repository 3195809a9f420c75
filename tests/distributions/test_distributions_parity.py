"""engine.distributions against torch.distributions.

Samples must be torch's bit for bit after the same seed (and the generators must be in step
afterwards); log_prob, entropy and their gradients agree to float rounding (torch's log, exp
and lgamma come from other math libraries); reprs, shapes and errors are torch's.
"""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

SEEDS = [0, 3, 1234]


def dist(m):
    return m.distributions


def seeded(seed, draw):
    """fn(m, ...) for run_both: seed, draw, then a few uniforms (the streams stay in step)."""
    def fn(m, *args):
        m.manual_seed(seed)
        return draw(m, *args), m.rand(3)
    return fn


def positive(shape, dtype="float32", seed=0):
    return parity.make_values(shape, dtype, seed, low=0.1, high=3.0)


def real(shape, dtype="float32", seed=0):
    return parity.make_values(shape, dtype, seed, low=-3.0, high=3.0)


def unit(shape, dtype="float32", seed=0):
    return parity.make_values(shape, dtype, seed, low=0.0, high=1.0)


SAMPLE_SHAPES = [(), (1,), (4,), (2, 3), (20,)]


# ------------------------------------------------------------------ samples
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [(), (3,), (2, 5)])
def test_normal_samples(seed, dtype, batch):
    loc, scale = real(batch, dtype, seed), positive(batch, dtype, seed)
    for shape in SAMPLE_SHAPES:
        parity.run_both(seeded(seed, lambda m, mu, s, n: dist(m).Normal(mu, s).sample(n)),
                        loc, scale, shape)
        parity.run_both(seeded(seed, lambda m, mu, s, n: dist(m).Normal(mu, s).rsample(n)),
                        loc, scale, shape)
    parity.run_both(seeded(seed, lambda m: dist(m).Normal(0.5, 2.0).sample((17,))))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("batch", [(), (3,), (2, 5)])
def test_uniform_samples(seed, batch):
    low = real(batch, "float32", seed)
    for shape in SAMPLE_SHAPES:
        parity.run_both(seeded(seed, lambda m, lo, n: dist(m).Uniform(lo, lo + 2).sample(n)),
                        low, shape)
        parity.run_both(seeded(seed, lambda m, lo, n: dist(m).Uniform(lo, 5.0).rsample(n)),
                        low, shape)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [(), (3,), (2, 5)])
def test_bernoulli_samples(seed, dtype, batch):
    probs, logits = unit(batch, dtype, seed), real(batch, dtype, seed)
    for shape in SAMPLE_SHAPES:
        parity.run_both(seeded(seed, lambda m, p, n: dist(m).Bernoulli(p).sample(n)), probs,
                        shape)
        parity.run_both(seeded(seed, lambda m, z, n: dist(m).Bernoulli(logits=z).sample(n)),
                        logits, shape)
    parity.run_both(seeded(seed, lambda m: dist(m).Bernoulli(0.3).sample((40,))))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("param_shape", [(4,), (3, 5), (2, 2, 6)])
def test_categorical_samples(seed, dtype, param_shape):
    probs, logits = unit(param_shape, dtype, seed), real(param_shape, dtype, seed)
    for shape in SAMPLE_SHAPES:
        parity.run_both(seeded(seed, lambda m, p, n: dist(m).Categorical(p).sample(n)), probs,
                        shape)
        parity.run_both(seeded(seed, lambda m, z, n: dist(m).Categorical(logits=z).sample(n)),
                        logits, shape)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("total_count", [1, 10, 100])
@pytest.mark.parametrize("param_shape", [(3,), (2, 4)])
def test_multinomial_samples(seed, total_count, param_shape):
    probs = unit(param_shape, "float32", seed)
    for shape in [(), (2,), (2, 3)]:
        parity.run_both(seeded(seed, lambda m, p, n: dist(m).Multinomial(total_count, p)
                               .sample(n)), probs, shape)
        parity.run_both(seeded(seed, lambda m, p, n: dist(m).Multinomial(total_count, logits=p)
                               .sample(n)), probs, shape)


# ------------------------------------------------------------------ log_prob and entropy
def values_and_gradients(make, value_of, params, extra=()):
    """fn(m, *params) for run_both: log_prob, entropy and their gradients w.r.t. params."""
    def fn(m, *tensors):
        tensors = [t.requires_grad_() for t in tensors]
        d = make(m, *tensors)
        log_prob = d.log_prob(value_of(m, d))
        entropy = d.entropy()
        grads = m.autograd.grad(log_prob.sum() + entropy.sum(), tensors)
        return (log_prob, entropy, grads) + tuple(getattr(d, name) for name in extra)
    return fn


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_log_prob_entropy_and_gradients(dtype):
    loc, scale = real((2, 5), dtype), positive((2, 5), dtype)
    value = real((3, 2, 5), dtype, seed=9)
    fn = values_and_gradients(lambda m, mu, s: dist(m).Normal(mu, s),
                              lambda m, d: m.tensor(value), None,
                              extra=("mean", "variance", "stddev", "mode"))
    parity.run_both(fn, loc, scale, exact=False)

    def rsample_gradient(m, mu, s):
        m.manual_seed(0)
        mu, s = mu.requires_grad_(), s.requires_grad_()
        return m.autograd.grad(dist(m).Normal(mu, s).rsample((4,)).pow(2).sum(), [mu, s])

    parity.run_both(rsample_gradient, loc, scale, exact=False)


def test_uniform_log_prob_entropy_and_gradients():
    low = real((4,), "float32")
    fn = values_and_gradients(lambda m, lo: dist(m).Uniform(lo, lo + 2.5),
                              lambda m, d: d.low + m.tensor([0.0, 1.0, 2.0, 2.4999]), None,
                              extra=("mean", "variance", "stddev"))
    parity.run_both(fn, low, exact=False)
    parity.run_both(lambda m: dist(m).Uniform(0.0, 2.0).log_prob(m.tensor([-1.0, 0.0, 1.0, 2.0]))
                    .tolist(), exact=False)
    parity.run_both(lambda m: dist(m).Uniform(0.0, 2.0, validate_args=False)
                    .log_prob(m.tensor([-1.0, 0.0, 1.0, 2.0])))
    parity.run_both(lambda m: (dist(m).Uniform(0.0, 2.0).cdf(m.tensor([0.5, 1.5])),
                               dist(m).Uniform(0.0, 2.0).icdf(m.tensor([0.25, 1.0]))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("given", ["probs", "logits"])
def test_bernoulli_log_prob_entropy_and_gradients(dtype, given):
    param = unit((6,), dtype) if given == "probs" else real((6,), dtype)
    value = np.array([0, 1, 1, 0, 1, 0], dtype=dtype)
    fn = values_and_gradients(lambda m, p: dist(m).Bernoulli(**{given: p}),
                              lambda m, d: m.tensor(value), None,
                              extra=("mean", "variance", "probs", "logits"))
    parity.run_both(fn, param, exact=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("given", ["probs", "logits"])
def test_categorical_log_prob_entropy_and_gradients(dtype, given):
    param = unit((3, 5), dtype) if given == "probs" else real((3, 5), dtype)
    value = np.array([[0, 4, 2], [1, 1, 3]])
    fn = values_and_gradients(lambda m, p: dist(m).Categorical(**{given: p}),
                              lambda m, d: m.tensor(value), None,
                              extra=("probs", "logits", "mean", "variance", "mode"))
    parity.run_both(fn, param, exact=False)


def test_categorical_with_zero_probabilities():
    def fn(m):
        probs = m.tensor([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]], requires_grad=True)
        d = dist(m).Categorical(probs)
        log_prob = d.log_prob(m.tensor([1, 0]))
        entropy = d.entropy()
        return log_prob, entropy, m.autograd.grad(entropy.sum() + log_prob.sum(), probs)

    parity.run_both(fn, exact=False)


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_multinomial_log_prob_entropy_and_gradients(given):
    param = unit((2, 4), "float64") if given == "probs" else real((2, 4), "float64")
    value = np.array([[[1, 0, 2, 3], [0, 0, 6, 0]]], dtype=np.float64)
    fn = values_and_gradients(lambda m, p: dist(m).Multinomial(6, **{given: p}),
                              lambda m, d: m.tensor(value), None,
                              extra=("mean", "variance", "probs", "logits"))
    parity.run_both(fn, param, exact=False)


def test_multinomial_log_prob_with_impossible_categories():
    def fn(m):
        logits = m.tensor([0.0, -float("inf"), 1.0], requires_grad=True)
        d = dist(m).Multinomial(logits=logits)
        log_prob = d.log_prob(m.tensor([2.0, 0.0, 1.0]))
        return log_prob, m.autograd.grad(log_prob, logits)

    parity.run_both(fn, exact=False)


# ------------------------------------------------------------------ shapes, reprs, properties
def test_shapes_reprs_and_properties():
    def fn(m):
        d = dist(m)
        made = [d.Normal(0.0, 1.0), d.Normal(m.zeros(2), 1.0), d.Bernoulli(0.3),
                d.Bernoulli(logits=m.zeros(3)), d.Categorical(m.ones(4)),
                d.Categorical(logits=m.ones(2, 4)), d.Multinomial(10, m.ones(3)),
                d.Multinomial(5, m.ones(2, 3)), d.Uniform(0.0, 2.0), d.Uniform(m.zeros(2), 1.0)]
        described = [(repr(x), x.batch_shape, x.event_shape, repr(x.support),
                      {k: repr(v) for k, v in x.arg_constraints.items()}, x.has_rsample,
                      x.has_enumerate_support) for x in made]
        expanded = [x.expand((5,) + tuple(x.batch_shape)) for x in made]
        return described, [(repr(x), x.batch_shape) for x in expanded], \
            [x.sample().shape for x in expanded]

    parity.run_both(fn)


def test_lazy_probs_and_logits():
    def fn(m):
        d = dist(m).Bernoulli(logits=m.tensor([0.5, -1.0]))
        before = sorted(k for k in d.__dict__ if k in ("probs", "logits"))
        probs = d.probs
        after = sorted(k for k in d.__dict__ if k in ("probs", "logits"))
        c = dist(m).Categorical(m.tensor([1.0, 3.0]))
        return before, probs, after, c.logits, sorted(k for k in c.__dict__
                                                      if k in ("probs", "logits"))

    parity.run_both(fn, exact=False)


def test_enumerate_support_mode_and_perplexity():
    def fn(m):
        d = dist(m)
        b = d.Bernoulli(m.tensor([0.2, 0.5, 0.9]))
        c = d.Categorical(m.tensor([[0.1, 0.7, 0.2], [0.5, 0.2, 0.3]]))
        return (b.enumerate_support(), b.enumerate_support(expand=False), b.mode,
                c.enumerate_support(), c.enumerate_support(expand=False), c.mode,
                d.Normal(0.0, 2.0).perplexity())

    parity.run_both(fn, exact=False)


def test_constraints():
    def fn(m):
        c = dist(m).constraints
        x = m.tensor([-1.0, 0.0, 0.5, 1.0, 2.0, float("nan")])
        checks = [c.real, c.positive, c.nonnegative, c.unit_interval, c.boolean,
                  c.interval(0.0, 1.0), c.half_open_interval(0.0, 1.0), c.greater_than(0.5),
                  c.greater_than_eq(0.5), c.less_than(1.0), c.integer_interval(0, 1),
                  c.nonnegative_integer, c.positive_integer]
        vectors = m.tensor([[0.2, 0.8], [0.5, 0.6], [1.0, 0.0]])
        return ([(repr(k), k.check(x)) for k in checks],
                [(repr(k), k.check(vectors)) for k in (c.simplex, c.real_vector, c.one_hot,
                                                        c.multinomial(1))],
                repr(c.dependent), c.is_dependent(c.dependent), c.real_vector.event_dim)

    parity.run_both(fn)


def test_validation_can_be_turned_off():
    def fn(m):
        d = dist(m)
        lenient = d.Normal(m.zeros(2), m.tensor([1.0, -1.0]), validate_args=False)
        d.Distribution.set_default_validate_args(False)
        try:
            also_lenient = d.Bernoulli(m.tensor([1.5]))
        finally:
            d.Distribution.set_default_validate_args(True)
        return lenient.scale, also_lenient.probs

    parity.run_both(fn)


ERRORS = [
    lambda m, d: d.Normal(m.tensor([float("nan"), 0.0]), m.ones(2)),
    lambda m, d: d.Normal(m.zeros(2), m.tensor([1.0, -1.0])),
    lambda m, d: d.Normal(0.0, 1.0).log_prob(m.tensor([float("nan")])),
    lambda m, d: d.Normal(m.zeros(2), 1.0).log_prob(m.ones(3)),
    lambda m, d: d.Normal(0.0, 1.0).log_prob(2.0),
    lambda m, d: d.Normal("a", 1.0),
    lambda m, d: d.Bernoulli(m.tensor([0.5, 1.5])),
    lambda m, d: d.Bernoulli(m.tensor([0.5, 1.5]), logits=m.zeros(2)),
    lambda m, d: d.Bernoulli(),
    lambda m, d: d.Bernoulli(0.3).log_prob(m.tensor(0.5)),
    lambda m, d: d.Categorical(m.tensor([0.5, -1.5])),
    lambda m, d: d.Categorical(m.tensor(0.5)),
    lambda m, d: d.Categorical(logits=m.tensor(0.5)),
    lambda m, d: d.Categorical(m.ones(3)).log_prob(m.tensor(3)),
    lambda m, d: d.Categorical(m.ones(3)).log_prob(m.ones(2, 2)),
    lambda m, d: d.Multinomial(10.5, m.ones(3)),
    lambda m, d: d.Multinomial(3, m.ones(3)).log_prob(m.tensor([1.0, 1, 2])),
    lambda m, d: d.Multinomial(3, m.ones(3)).log_prob(m.tensor([1.0, 1])),
    lambda m, d: d.Uniform(1.0, 0.0),
    lambda m, d: d.Uniform(0.0, 1.0).log_prob(m.tensor(1.5)),
    lambda m, d: d.Normal(0.0, 1.0).mode + d.Categorical(m.ones(2)).expand((3,)).mean,
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(case):
    parity.run_both(lambda m: ERRORS[case](m, dist(m)))


def test_base_class_errors():
    """(The class in the message is engine's, as type(x) names engine.Tensor.)"""
    with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
        parity.run_both(lambda m: dist(m).Distribution().mode, match=" does not implement mode")
        parity.run_both(lambda m: dist(m).Distribution().mean)
    parity.run_both(lambda m: dist(m).Normal(0.0, 1.0).enumerate_support())


def test_import_forms():
    from engine.distributions import Categorical, Normal  # noqa: F401
    import engine.distributions.constraints  # noqa: F401
    assert engine.distributions.Normal is Normal
