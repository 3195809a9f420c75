"""Constraints: the set of values a parameter or a sample may take (``Real()``, ``Simplex()``...).

``constraint.check(value)`` is a bool tensor: True where ``value`` is allowed. A
distribution checks its parameters against ``arg_constraints`` when it is made and the
values given to ``log_prob`` against its ``support`` (when validation is on, the default).
"""

__all__ = ["Constraint", "boolean", "dependent", "dependent_property", "greater_than",
           "greater_than_eq", "half_open_interval", "independent", "integer_interval",
           "interval", "is_dependent", "less_than", "multinomial", "nonnegative",
           "nonnegative_integer", "one_hot", "positive", "positive_integer", "real",
           "real_vector", "simplex", "unit_interval"]


class Constraint:
    """A region of valid values. ``event_dim``: how many rightmost dimensions form one event
    (checked together); ``is_discrete``: whether the region is a set of separate points."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a region that depends on other parameters: it cannot be checked."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        is_discrete = self._is_discrete if is_discrete is NotImplemented else is_discrete
        event_dim = self._event_dim if event_dim is NotImplemented else event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """``@dependent_property``: a property on an instance (``Uniform(0, 1).support`` is
    ``Interval(...)``), a dependent constraint on the class."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """``base_constraint`` over each event of ``reinterpreted_batch_ndims`` more dimensions:
    an event is valid when all its entries are."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape(result.shape[:result.dim() - self.reinterpreted_batch_ndims]
                                + (-1,))
        return result.all(-1)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class _Boolean(Constraint):
    """0 or 1."""

    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """Vectors of 0s with a single 1."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        return is_boolean.all(-1) & value.sum(-1).eq(1)


class _Bounded(Constraint):
    """A constraint with bounds, shown as ``Name(lower_bound=..., upper_bound=...)``."""

    _bounds = ()

    def __init__(self, *bounds):
        for name, bound in zip(self._bounds, bounds, strict=True):
            setattr(self, name, bound)

    def __repr__(self):
        shown = ", ".join(f"{name}={getattr(self, name)}" for name in self._bounds)
        return f"{type(self).__name__[1:]}({shown})"


class _IntegerInterval(_Bounded):
    """Whole numbers in [lower_bound, upper_bound]."""

    is_discrete = True
    _bounds = ("lower_bound", "upper_bound")

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounded):
    """Whole numbers >= lower_bound."""

    is_discrete = True
    _bounds = ("lower_bound",)

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    """Any number but nan (the extended real line, infinities included)."""

    def check(self, value):
        return value == value  # False for nan


class _GreaterThan(_Bounded):
    """(lower_bound, inf]"""

    _bounds = ("lower_bound",)

    def check(self, value):
        return self.lower_bound < value


class _GreaterThanEq(_Bounded):
    """[lower_bound, inf)"""

    _bounds = ("lower_bound",)

    def check(self, value):
        return self.lower_bound <= value


class _LessThan(_Bounded):
    """[-inf, upper_bound)"""

    _bounds = ("upper_bound",)

    def check(self, value):
        return value < self.upper_bound


class _Interval(_Bounded):
    """[lower_bound, upper_bound]"""

    _bounds = ("lower_bound", "upper_bound")

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_Bounded):
    """[lower_bound, upper_bound)"""

    _bounds = ("lower_bound", "upper_bound")

    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Vectors of non-negative entries summing to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Counts: non-negative entries summing to at most upper_bound."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
