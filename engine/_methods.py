"""Tensor methods: ``x.exp()`` is ``engine.exp(x)``, and the in-place ``x.exp_()`` family.

Torch exposes most operations both as functions and as methods; here the
methods are the same functions attached to the class, listed by name below.
In-place versions compute the result and write it back into the tensor's own
memory, bumping the version counter that autograd uses to detect stale values.
"""
import numpy as np

from . import _autograd, _creation, _dtype, _ops, _random, _views
from ._autograd import Node
from ._dtype import scalar_type_name
from ._tensor import Tensor, checked_scalar

# x.name(...) calls module.name(x, ...)
_FUNCTION_METHODS = {
    _ops: """add sub subtract mul multiply div divide true_divide floor_divide remainder
        fmod pow maximum minimum atan2 clamp clip clamp_min clamp_max lerp eq ne lt le gt ge
        not_equal less less_equal greater greater_equal logical_and logical_or logical_xor
        logical_not bitwise_and bitwise_or bitwise_xor bitwise_not isclose allclose equal
        exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan arcsin arccos
        arctan sinh cosh tanh sigmoid reciprocal neg negative abs absolute sign square relu floor
        ceil trunc fix round frac isnan isinf isfinite nan_to_num sum nansum mean prod max min
        amax amin argmax argmin var std norm logsumexp cumsum cumprod all any count_nonzero
        nonzero sort argsort topk mm mv dot inner bmm matmul addmm outer ger where
        softmax log_softmax addcmul addcdiv""",
    _views: """view view_as reshape reshape_as transpose swapaxes swapdims permute t squeeze
        unsqueeze flatten unflatten ravel expand expand_as broadcast_to narrow select unbind
        split chunk as_strided movedim moveaxis detach clone flip contiguous t_ transpose_
        unsqueeze_ squeeze_""",
    _creation: "new_tensor new_zeros new_ones new_empty new_full bernoulli",
}
for _module, _names in _FUNCTION_METHODS.items():
    for _name in _names.split():
        setattr(Tensor, _name, getattr(_module, _name))

Tensor.T = property(_views._T, doc="All dimensions reversed (a view); x.mT for batches.")
Tensor.mT = property(_views._mT, doc="The last two dimensions swapped (a view).")
Tensor.__getitem__ = _views.getitem
Tensor.__setitem__ = _views.setitem
Tensor.where = lambda self, condition, other: _ops.where(condition, self, other)


def _get_data(tensor):
    """``x.data``: the same memory, outside autograd, with its own version counter."""
    result = _views.detach(tensor)
    result._vc = None  # torch: changes through .data are invisible to autograd's checks
    return result


def _set_data(tensor, value):
    """``x.data = y``: x now looks at y's memory (shape and dtype may change)."""
    if tensor._requires_grad and value._data.dtype.kind != "f":
        raise RuntimeError("data set to a tensor that requires gradients must be floating point "
                           "or complex dtype")
    value._storage_array()  # settle y's storage first, so both share the very same one
    tensor._data, tensor._stride = value._data, value._stride
    tensor._storage, tensor._offset = value._storage, value._offset


Tensor.data = property(_get_data, _set_data,
                       doc="The same memory without autograd history; changes through it are "
                           "not tracked.")


def _delitem(self, index):
    raise TypeError("Tensor does not support deleting items")


Tensor.__delitem__ = _delitem


# ---------------------------------------------------------------- Python operators
_OPERANDS = (Tensor, int, float, bool, np.number, np.bool_)


def _operator(function, reflected=False):
    """An operator method that leaves unknown operands to Python (-> its TypeError)."""
    if reflected:
        def method(self, other):
            if isinstance(other, _OPERANDS):
                return function(other, self)
            return NotImplemented
    else:
        def method(self, other):
            if isinstance(other, _OPERANDS):
                return function(self, other)
            return NotImplemented
    return method


Tensor.__add__ = _operator(_ops.add)
Tensor.__radd__ = _operator(_ops.add, reflected=True)
Tensor.__sub__ = _operator(_ops.sub)
Tensor.__rsub__ = _operator(_ops.sub, reflected=True)
Tensor.__mul__ = _operator(_ops.mul)
Tensor.__rmul__ = _operator(_ops.mul)  # torch computes mul(self, other) for `2.5 * x` too
Tensor.__truediv__ = _operator(_ops.div)
# torch: `other / x` is x.reciprocal() * other (so its rounding differs from div)
Tensor.__rtruediv__ = _operator(lambda self, other: _ops.mul(_ops.reciprocal(self), other))
Tensor.__floordiv__ = _operator(_ops.floor_divide)
Tensor.__rfloordiv__ = _operator(_ops.floor_divide, reflected=True)
Tensor.__mod__ = _operator(_ops.remainder)
Tensor.__rmod__ = _operator(_ops.remainder, reflected=True)
Tensor.__pow__ = _operator(_ops.pow)
Tensor.__rpow__ = _operator(_ops.pow, reflected=True)
Tensor.__and__ = _operator(_ops.bitwise_and)
Tensor.__rand__ = _operator(_ops.bitwise_and, reflected=True)
Tensor.__or__ = _operator(_ops.bitwise_or)
Tensor.__ror__ = _operator(_ops.bitwise_or, reflected=True)
Tensor.__xor__ = _operator(_ops.bitwise_xor)
Tensor.__rxor__ = _operator(_ops.bitwise_xor, reflected=True)
Tensor.__eq__ = _operator(_ops.eq)
Tensor.__ne__ = _operator(_ops.ne)
Tensor.__lt__ = _operator(_ops.lt)
Tensor.__le__ = _operator(_ops.le)
Tensor.__gt__ = _operator(_ops.gt)
Tensor.__ge__ = _operator(_ops.ge)
Tensor.__matmul__ = lambda self, other: _ops.matmul(self, other) if isinstance(
    other, Tensor) else NotImplemented
Tensor.__rmatmul__ = lambda self, other: _ops.matmul(other, self) if isinstance(
    other, Tensor) else NotImplemented
Tensor.__neg__ = _ops.neg
Tensor.__pos__ = _ops.positive
Tensor.__abs__ = _ops.abs
Tensor.__invert__ = _ops._invert  # ~x: TypeError for floats, where bitwise_not raises another


# ---------------------------------------------------------------- in-place
def write_inplace(tensor, result):
    """Write ``result`` into ``tensor``'s own memory, as every ``x.op_()`` does."""
    if result._data.shape != tensor._data.shape:
        raise RuntimeError(f"output with shape {list(tensor._data.shape)} doesn't match the "
                           f"broadcast shape {list(result._data.shape)}")
    if not _dtype.can_cast(result.dtype, tensor.dtype):
        raise RuntimeError(f"result type {scalar_type_name[result.dtype]} can't be cast to the "
                           f"desired output type {scalar_type_name[tensor.dtype]}")
    _autograd.check_inplace(tensor)
    _autograd.rebase_history(tensor, result.grad_fn)
    np.copyto(tensor._data, result._data, casting="unsafe")
    tensor._bump_version()
    return tensor


def _inplace(function):
    def method(self, *args, **kwargs):
        # torch refuses to write where an input partly overlaps (x[1:].add_(x[:-1]))
        _views.check_no_overlap(self, args)
        return write_inplace(self, function(self, *args, **kwargs))

    method.__name__ = function.__name__ + "_"
    method.__doc__ = f"In-place {function.__name__}: the result is written into this tensor."
    return method


for _name in """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod
        pow clamp clip clamp_min clamp_max lerp exp exp2 expm1 log log2 log10 log1p sqrt rsqrt
        sin cos tan asin acos atan sinh cosh tanh sigmoid reciprocal neg negative abs sign square
        relu floor ceil trunc round frac atan2 eq ne lt le gt ge
        logical_and logical_or logical_xor logical_not bitwise_and bitwise_or bitwise_xor
        bitwise_not nan_to_num cumsum cumprod addcmul addcdiv""".split():
    setattr(Tensor, _name + "_", _inplace(getattr(_ops, _name)))

Tensor.__iadd__ = Tensor.add_
Tensor.__isub__ = Tensor.sub_
Tensor.__imul__ = Tensor.mul_
Tensor.__itruediv__ = Tensor.div_
Tensor.__ifloordiv__ = Tensor.floor_divide_
Tensor.__imod__ = Tensor.remainder_
Tensor.__ipow__ = Tensor.pow_
Tensor.__iand__ = Tensor.bitwise_and_
Tensor.__ior__ = Tensor.bitwise_or_
Tensor.__ixor__ = Tensor.bitwise_xor_


def _fill_raw(tensor, values, node_class, inputs=()):
    """Overwrite every element of ``tensor`` with ``values``; in a graph, ``node_class``
    records that the old values are gone."""
    _autograd.check_inplace(tensor)
    node = _autograd.new_node(node_class, (tensor, *inputs)) \
        if tensor._data.dtype.kind == "f" else None
    np.copyto(tensor._data, values, casting="unsafe")
    _autograd.rebase_history(tensor, node)
    tensor._bump_version()
    return tensor


class _OverwrittenBackward(Node):
    """x.fill_(...) and the like:  x's old values are gone, so they get a zero gradient"""

    def backward(self, grad):
        return _creation.zeros_like(grad)


class ZeroBackward0(_OverwrittenBackward):
    """x.zero_()"""


class FillBackward2(_OverwrittenBackward):
    """x.fill_(number)"""


class FillBackward3(Node):
    """x.fill_(value tensor):  every element is value, so value's gradient is the sum"""

    def backward(self, grad):
        return _creation.zeros_like(grad), grad.sum()


class UniformBackward0(_OverwrittenBackward):
    """x.uniform_()"""


class NormalBackward0(_OverwrittenBackward):
    """x.normal_()"""


class RandomBackward0(_OverwrittenBackward):
    """x.random_(from, to)"""


class RandomBackward1(_OverwrittenBackward):
    """x.random_(to)"""


class RandomBackward2(_OverwrittenBackward):
    """x.random_()"""


class BernoulliBackward1(Node):
    """x.bernoulli_(p tensor):  p gets no gradient (sampling is not differentiable)"""

    def backward(self, grad):
        return _creation.zeros_like(grad), None


class BernoulliBackward2(_OverwrittenBackward):
    """x.bernoulli_(p number)"""


class ExponentialBackward0(_OverwrittenBackward):
    """x.exponential_()"""


def copy_(self, src, non_blocking=False):
    """Copy src's values (broadcast, any dtype) into this tensor's memory."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    shape = _views.broadcast_shape(self._data.shape, src._data.shape)
    if shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")
    return _views.copy_into(self, src)


def fill_(self, value):
    """Set every element to ``value``."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        with np.errstate(invalid="ignore", over="ignore"):
            return _fill_raw(self, value._data.astype(self._data.dtype), FillBackward3, (value,))
    if not isinstance(value, (bool, int, float, np.number, np.bool_)):
        raise TypeError(f"fill_() received an invalid combination of arguments - got "
                        f"({type(value).__name__}), but expected one of:\n * (Tensor value)\n"
                        f" * (Number value)")
    return _fill_raw(self, checked_scalar(value, self._data.dtype), FillBackward2)


def zero_(self):
    """Set every element to 0."""
    return _fill_raw(self, 0, ZeroBackward0)


def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    """Fill with uniform random numbers in [from, to)."""
    return _fill_raw(self, _random.uniform(self._data.shape, self._data.dtype, from_, to,
                                           generator), UniformBackward0)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal random numbers."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill_raw(self, _random.normal(self._data.shape, self._data.dtype, mean, std,
                                          generator), NormalBackward0)


def random_(self, from_=None, to=None, *, generator=None):
    """Fill with random integers: [0, to), [from, to), or the dtype's whole range."""
    shape, np_dtype = self._data.shape, self._data.dtype
    if from_ is None and to is None:
        return _fill_raw(self, _random.random_full(shape, np_dtype, generator), RandomBackward2)
    node_class = RandomBackward0
    if to is None:
        from_, to, node_class = 0, from_, RandomBackward1
    return _fill_raw(self, _random.random_int(shape, np_dtype, from_, to, generator), node_class)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 1 (probability p) or 0."""
    probs = p._data if isinstance(p, Tensor) else p
    values = _random.bernoulli(probs, self._data.shape, self._data.dtype, generator)
    if isinstance(p, Tensor):
        return _fill_raw(self, values, BernoulliBackward1, (p,))
    return _fill_raw(self, values, BernoulliBackward2)


def exponential_(self, lambd=1.0, *, generator=None):
    return _fill_raw(self, _random.exponential(self._data.shape, self._data.dtype, lambd,
                                               generator), ExponentialBackward0)


for _function in (copy_, fill_, zero_, uniform_, normal_, random_, bernoulli_, exponential_):
    setattr(Tensor, _function.__name__, _function)
