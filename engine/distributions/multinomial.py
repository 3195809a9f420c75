"""Multinomial(total_count, probs or logits): how many of total_count draws fall in each of
K categories."""
from ..fidelity.size import Size
from ..ops.creation import arange, ones_like, tensor
from ..ops.unary import lgamma
from . import constraints
from .categorical import Categorical
from .distribution import NO_SHAPE, Distribution
from .utils import broadcast_all, probs_to_logits

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Counts of ``total_count`` independent Categorical(probs) draws: events of shape (K,)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=NO_SHAPE):
        """total_count categorical draws, counted per category"""
        sample_shape = Size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        draws_last = [*range(1, samples.dim()), 0]
        samples = samples.permute(*draws_last)  # sample_shape + batch_shape + (total_count,)
        counts = samples.new(self._extended_shape(sample_shape)).zero_()
        counts.scatter_add_(-1, samples, ones_like(samples))
        return counts.type_as(self.probs)

    def log_prob(self, value):
        """log(n! / prod x_i!) + sum x_i log p_i"""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -float("inf"))] = 0  # 0 * log 0 counts as 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers

    def entropy(self):
        """n H(categorical) - log n! + sum_i E[log x_i!], each x_i ~ Binomial(n, p_i)"""
        n = tensor(self.total_count, dtype=self.probs.dtype)
        term1 = n * self._categorical.entropy() - lgamma(n + 1)
        support = arange(1, self.total_count + 1, dtype=self.probs.dtype)
        support = support.view((-1,) + (1,) * self.probs.dim())  # k = 1 .. n, one dim of its own
        binomial_probs = _binomial_log_prob(n, self.probs, support).exp()
        weights = lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2


def _binomial_log_prob(total_count, probs, value):
    """log P(k = value) of Binomial(total_count, probs), as torch's Binomial.log_prob."""
    total_count, probs = broadcast_all(total_count, probs)
    logits = probs_to_logits(probs, is_binary=True)
    log_factorial_n = lgamma(total_count + 1)
    log_factorial_k = lgamma(value + 1)
    log_factorial_nmk = lgamma(total_count - value + 1)
    clamped_by_zero = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
    normalize_term = (total_count * clamped_by_zero
                      + total_count * (-logits.abs()).exp().log1p() - log_factorial_n)
    return value * logits - log_factorial_k - log_factorial_nmk - normalize_term
