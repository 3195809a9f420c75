"""Distribution: what every distribution shares (shapes, sampling, validation, repr).

A distribution holds parameters of ``batch_shape`` (many distributions at once, computed
together); each one draws events of ``event_shape`` (``()`` for a number, ``(k,)`` for a
vector of counts). ``sample(sample_shape)`` has shape ``sample_shape + batch_shape +
event_shape``. With validation on (the default, as Python's asserts), parameters outside
``arg_constraints`` and ``log_prob`` values outside ``support`` raise ValueError.
"""
import warnings

from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from ..fidelity.size import Size
from ..ops.unary import exp
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]

NO_SHAPE = Size()  # the default sample_shape: one sample (of batch_shape + event_shape)


class Distribution:
    """The base class: subclasses define arg_constraints, support, sample / rsample,
    log_prob, mean, variance, entropy ..."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn validation on or off for every distribution made afterwards."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=NO_SHAPE, event_shape=NO_SHAPE, validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                          "`arg_constraints = {}` or initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=3)
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue  # a region that cannot be checked on its own
            if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                         lazy_property):
                continue  # not computed yet (probs of a distribution given logits)
            value = getattr(self, param)
            if not constraint.check(value).all():
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=NO_SHAPE):
        """A sample (no gradient): rsample without recording."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=NO_SHAPE):
        """A reparameterized sample: a differentiable function of the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return exp(self.entropy())

    def _extended_shape(self, sample_shape=NO_SHAPE):
        """sample_shape + batch_shape + event_shape"""
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        """log_prob's check: ``value`` broadcasts with the shapes and lies in the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        if not support.check(value).all():
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        params = [(k, self.__dict__[k]) for k in self.arg_constraints if k in self.__dict__]
        shown = ", ".join(f"{name}: {value if value.numel() == 1 else value.size()}"
                          for name, value in params)  # one number shows as its value
        return f"{type(self).__name__}({shown})"
