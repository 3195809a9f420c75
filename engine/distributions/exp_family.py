"""ExponentialFamily: distributions whose density is exp(<t(x), theta> - F(theta) + k(x))."""
from ..autograd import grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Subclasses give their natural parameters theta, the log normalizer F and the mean
    carrier measure E[k(x)]; the entropy then follows from F and its gradient (a Bregman
    divergence), computed with autograd."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """H = F(theta) - <theta, grad F(theta)> - E[k(x)]"""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for theta, g in zip(nparams, gradients):
            result -= (theta * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
