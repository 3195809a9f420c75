"""``Parameter``: a tensor that a ``Module`` registers as one of its learnable weights;
``UninitializedParameter``: one whose shape a lazy layer learns from its first input."""
from ..core.tensor import Tensor, wrap
from ..fidelity.messages import type_name
from ..fidelity.printing import tensor_repr
from ..ops.convert import set_data
from ..ops.creation import empty
from ..ops.views import detach


class Parameter(Tensor):
    """A leaf tensor (``requires_grad=True`` by default) that shares memory with ``data``.

    Assigning one to a module attribute (``self.weight = Parameter(...)``) registers it,
    so ``module.parameters()`` finds it. Results of operations on it are plain tensors.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if requires_grad.__class__ is not bool:  # (torch's Parameter passes it to C++)
            raise TypeError("_make_subclass(): argument 'require_grad' (position 3) must be "
                            f"bool, not {type_name(requires_grad)}")
        # the same memory and version counter as data, but no history: a leaf of its own
        result = detach(data)
        result.__class__ = cls
        if requires_grad and not result.is_floating_point():
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        result.requires_grad_(requires_grad)
        return result

    def __repr__(self):
        return "Parameter containing:\n" + tensor_repr(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(self.data.clone(), self.requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        # pickled as its data and flag; unpickling makes a Parameter again
        return (Parameter, (self.data, self.requires_grad))


class _BufferMeta(type):
    # isinstance(t, nn.Buffer) asks for the mark nn.Buffer(...) leaves: torch's Buffer gives
    # back a plain Tensor too
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """A tensor marked as a module's buffer: assigning it to a module attribute
    (``self.running = nn.Buffer(torch.zeros(3))``) registers it as ``register_buffer`` does,
    kept in ``state_dict`` unless ``persistent=False``. ``Buffer(data)`` returns ``data``
    detached (the same memory, requires_grad kept), a plain tensor."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        result = data.detach().requires_grad_(data.requires_grad)
        result.persistent = persistent
        result._is_buffer = True
        return result


Buffer.__module__ = "torch.nn.parameter"  # (as torch prints the class)


class UninitializedTensorMixin:
    """What an uninitialized parameter and an uninitialized buffer share: no shape yet, most
    uses refused, ``materialize(shape)`` turns the object, in place, into an ordinary one of
    ``cls_to_become`` with that shape (its values uninitialised)."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Become a tensor of ``shape`` (the same object: optimizers keep holding it)."""
        self.data = empty(shape, dtype=self.dtype if dtype is None else dtype)
        self.__class__ = self.cls_to_become

    @property
    def data(self):
        """The (empty) values, outside autograd: still allowed, as in torch."""
        return wrap(self._data)  # (this class refuses detach(), which .data uses)

    data = data.setter(set_data)

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet: a lazy layer's (``LazyLinear``) before its
    first call. It cannot be used; ``materialize(shape)`` makes it a ``Parameter``."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        param = Parameter(empty(0, dtype=dtype), requires_grad)
        param.__class__ = cls
        return param

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = UninitializedParameter(self.requires_grad, dtype=self.dtype)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        return (UninitializedParameter, (self.requires_grad, None, self.dtype))


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet: a lazy batch norm's running statistics before
    its first call; ``materialize(shape)`` makes it a plain tensor."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        buffer = empty(0, dtype=dtype).requires_grad_(requires_grad)
        buffer.__class__ = cls
        buffer.persistent = persistent
        return buffer

    def __deepcopy__(self, memo):
        # torch refuses (its buffer has no __deepcopy__ of its own, unlike the parameter), so
        # copy.deepcopy of a lazy batch norm fails before its first call
        _refuse("__deepcopy__", f"<function Tensor.__deepcopy__ at {hex(id(Tensor.__deepcopy__))}>"
                )(self)

    def __reduce_ex__(self, protocol):
        return (UninitializedBuffer, (self.requires_grad, None, self.dtype))


def is_lazy(value):
    """True for a parameter or buffer that has no shape yet."""
    return isinstance(value, UninitializedTensorMixin)


def _refuse(name, described):
    def method(self, *args, **kwargs):
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {described}. This error happens "
            "when you are using a `LazyModule` or explicitly manipulating "
            f"`torch.nn.parameter.{type(self).__name__}` objects. When using LazyModules Call "
            "`forward` with a dummy batch to initialize the parameters before calling torch "
            "functions")

    method.__name__ = name
    return method


# What an uninitialized parameter still allows (torch's _allowed_methods); every other Tensor
# method and operator raises torch's ValueError.
_ALLOWED = {"size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
            "short", "int", "long", "cuda", "cpu", "to", "get_device", "type"}
_OPERATORS = {"__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "sub",
              "__mul__": "mul", "__rmul__": "mul", "__truediv__": "div", "__rtruediv__": "div",
              "__matmul__": "matmul", "__rmatmul__": "matmul", "__pow__": "pow",
              "__neg__": "neg", "__abs__": "abs", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt",
              "__le__": "le", "__gt__": "gt", "__ge__": "ge"}
for _name, _value in list(vars(Tensor).items()):
    if _name in _ALLOWED or not callable(_value) or isinstance(_value, (property, type)) or \
            _name in vars(UninitializedTensorMixin):
        continue
    if _name in _OPERATORS:
        _described = f"<method '{_OPERATORS[_name]}' of 'torch._C.TensorBase' objects>"
    elif _name in ("__getitem__", "__setitem__", "__iter__", "__len__", "__bool__",
                   "__float__", "__int__", "__index__", "__format__"):
        _described = f"<slot wrapper '{_name}' of 'torch._C.TensorBase' objects>"
    elif _name.startswith("_"):
        continue  # the engine's own machinery
    else:
        _described = f"<method '{_name}' of 'torch._C.TensorBase' objects>"
    setattr(UninitializedTensorMixin, _name, _refuse(_name, _described))
