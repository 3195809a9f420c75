"""Normal(loc, scale): the Gaussian, with mean loc and standard deviation scale."""
import math

from ..core.grad_mode import no_grad
from ..fidelity.size import Size
from ..ops.creation import empty
from ..ops.sampling import normal
from . import constraints
from .distribution import NO_SHAPE
from .exp_family import ExponentialFamily
from .utils import PYTHON_NUMBERS, broadcast_all

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """N(loc, scale**2). ``rsample`` is loc + eps * scale with eps ~ N(0, 1), so gradients
    reach loc and scale through the sample (the reparameterization trick)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        both_numbers = isinstance(loc, PYTHON_NUMBERS) and isinstance(scale, PYTHON_NUMBERS)
        batch_shape = Size() if both_numbers else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Normal, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        eps = empty(shape, dtype=self.loc.dtype).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """-(x - loc)**2 / (2 scale**2) - log(scale) - log(sqrt(2 pi))"""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = (math.log(self.scale) if isinstance(self.scale, PYTHON_NUMBERS)
                     else self.scale.log())
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        raise NotImplementedError("Normal.cdf needs torch.erf, which the engine does not have")

    def icdf(self, value):
        raise NotImplementedError("Normal.icdf needs torch.erfinv, which the engine does not have")

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()
