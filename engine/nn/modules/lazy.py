"""``LazyModuleMixin``: layers whose parameter shapes come from their first input.

``LazyLinear(out_features)`` does not ask for ``in_features``: its weight and bias start as
``UninitializedParameter`` objects, and the first call reads ``in_features`` from the input,
gives the parameters their shapes and starting values (as ``Linear`` would), and turns the
layer into a plain ``Linear``. The parameters stay the same objects, so an optimizer made
before that first call keeps working.
"""
from ..parameter import is_lazy


class LazyModuleMixin:
    """Mixed in before a layer class; ``cls_to_become`` is the class it turns into."""

    cls_to_become = None

    def has_uninitialized_params(self):
        """True while some parameter or buffer has no shape yet."""
        return any(is_lazy(value)
                   for value in (*self._parameters.values(), *self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        """Give the uninitialized parameters their shapes, from the first input."""
        raise NotImplementedError(f"initialize_parameters is not implemented for "
                                  f"{type(self).__name__}")

    def __call__(self, *args, **kwargs):
        if self.has_uninitialized_params():  # the first call (torch: a forward pre-hook)
            self.initialize_parameters(*args, **kwargs)
            if self.has_uninitialized_params():
                raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
            if self.cls_to_become is not None:
                self.__class__ = self.cls_to_become
            return self(*args, **kwargs)  # as what it has become
        return super().__call__(*args, **kwargs)
