"""The Tensor methods and operators, in one table: ``x.exp()`` is ``engine.exp(x)``.

PyTorch exposes most operations both as functions and as methods. Here the
methods are the same functions, attached to the class below: look up any method
or operator of a tensor (``x * y`` is ``Tensor.__mul__``) in this file to find the
function that runs, and that function's node class sits right below it. (Each is
attached as ``method_copy(function)``: the same function with a code object of its
own, so that an error message can tell ``t.add("a")`` from ``torch.add(t, "a")``,
which torch words differently; see fidelity/calls.py.)

In-place versions (``x.exp_()``) compute the result and write it back into the
tensor's own memory (``inplace.write_inplace``), bumping the version counter that
autograd uses to detect stale saved values.
"""
import numpy as np

from ..fidelity import signatures
from ..fidelity import messages
from ..fidelity.calls import method_copy
from ..fidelity.layout import TYPED_STORAGE_DEPRECATED, TypedStorage
from ..fidelity.messages import type_name
from ..core.tensor import Tensor
from .common import invalid_arguments_error, numpy_names
from . import (arithmetic, compare, convert, creation, fastpath, indexing, inplace, join, linalg,
               rearrange, reduce, sampling, statistics, structure, unary, views)
from . import pointwise, solve


_typed_storage_warned = []  # (torch warns of TypedStorage once a process)


def storage(self):
    """The deprecated ``t.storage()``: a TypedStorage of the tensor's memory (prefer
    ``t.untyped_storage()``)."""
    if not _typed_storage_warned:
        _typed_storage_warned.append(True)
        messages.warn_from_learner(TYPED_STORAGE_DEPRECATED)
    return TypedStorage(self._storage_array(), self.dtype)


Tensor.storage = storage


def _without_out(function):
    """The op itself: torch.add(..., out=t) takes out=, x.add(...) does not (as in torch)."""
    return getattr(function, "without_out", function)


# x.name(...) calls family.name(x, ...)
FUNCTION_METHODS = {
    arithmetic: """add sub subtract mul multiply div divide true_divide floor_divide remainder
        fmod pow maximum minimum atan2 arctan2 clamp clip clamp_min clamp_max lerp addcmul
        addcdiv""",
    compare: """eq ne lt le gt ge not_equal less less_equal greater greater_equal logical_and
        logical_or logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not isclose
        allclose equal""",
    unary: """exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan arcsin
        arccos arctan sinh cosh tanh sigmoid reciprocal neg negative positive abs absolute sign sgn
        square
        relu floor ceil trunc fix round frac isnan isinf isfinite nan_to_num lgamma digamma
        asinh acosh atanh arcsinh arccosh arctanh""",
    reduce: """sum nansum mean prod max min amax amin argmax argmin var std logsumexp cumsum
        cumprod all any count_nonzero nonzero sort msort argsort topk softmax log_softmax unique
        unique_consecutive""",
    linalg: """mm mv dot vdot inner bmm matmul addmm outer ger cross svd addmv addr addbmm baddbmm
        norm dist renorm""",
    solve: "det logdet slogdet inverse matrix_power",
    views: """view view_as reshape reshape_as transpose swapaxes swapdims permute t squeeze
        unsqueeze flatten unflatten ravel expand expand_as broadcast_to narrow select unbind
        split split_with_sizes chunk as_strided movedim moveaxis clone flip contiguous
        t_ transpose_ unsqueeze_ squeeze_ unsafe_split unsafe_chunk adjoint fill_diagonal_
        sum_to_size""",
    creation: "new_tensor new_zeros new_ones new_empty new_full",
    sampling: "bernoulli multinomial",
    statistics: """aminmax nanmean median nanmedian kthvalue mode quantile nanquantile cummax
        cummin bincount histc logcumsumexp""",
    rearrange: """roll diff trace rot90 take diag_embed vsplit hsplit dsplit kron""",
    indexing: """gather scatter scatter_add index_fill index_select masked_fill masked_scatter put
        repeat_interleave take_along_dim""",
    join: "repeat",
    convert: """to cpu cuda pin_memory is_pinned type_as new is_signed is_same_size""",
    inplace: """copy_ fill_ zero_ uniform_ normal_ random_ bernoulli_ exponential_ cauchy_
        log_normal_ geometric_""",
    structure: """tril triu diagonal diag diagflat masked_select index_add index_copy tensor_split
        argwhere fliplr flipud unfold narrow_copy select_scatter slice_scatter diagonal_scatter
        as_strided_scatter""",
    pointwise: """erf erfc erfinv logit xlogy copysign hypot fmax fmin logaddexp logaddexp2 deg2rad
        rad2deg signbit sinc heaviside float_power gcd lcm bitwise_left_shift bitwise_right_shift
        isneginf isposinf isreal conj conj_physical angle nextafter ldexp frexp mvlgamma""",
}
for _family, _names in FUNCTION_METHODS.items():
    for _name in _names.split():
        setattr(Tensor, _name, method_copy(_without_out(getattr(_family, _name))))

# (x.sum(dims, keepdim=True) and x.mean(...) skip the parser when they can: fastpath.py)
Tensor.sum = method_copy(fastpath.reduction(Tensor.sum))
Tensor.mean = method_copy(fastpath.reduction(Tensor.mean))

# numpy's axis= / keepdims= (see common.numpy_names): torch's x.size and x.stride take
# axis= too, but its Tensor.unflatten (written in Python) does not
Tensor.size = method_copy(numpy_names(Tensor.size))
Tensor.stride = method_copy(numpy_names(Tensor.stride))
Tensor.unflatten = method_copy(views.unflatten.__wrapped__, "Tensor.unflatten")
# torch's Tensor.split and unique_consecutive are Python too: Python's errors name them so
def _split(self, split_size, dim=0):
    """``x.split(split_size, dim=0)``: ``torch.split(x, split_size, dim)``"""
    return views.split(self, split_size, dim)


Tensor.split = method_copy(_split, "Tensor.split")


def _tile(self, *dims, **named):
    """``x.tile(2, 3)``, ``x.tile((2, 3))`` or ``x.tile(dims=(2, 3))``: ``torch.tile(x, (2,
    3))``"""
    if not dims and "dims" not in named:
        raise TypeError('tile() missing 1 required positional arguments: "dims"')
    if named.keys() - {"dims"}:
        raise TypeError(f"tile() got an unexpected keyword argument '{next(iter(named))}'")
    if "dims" in named:  # (by keyword only a sequence: torch's x.tile(dims=2) is refused)
        if dims:
            raise TypeError("tile() got multiple values for argument 'dims'")
        return rearrange.tile(self, named["dims"])
    # the ints one by one when the first is one for torch's parser (an integer tensor of one
    # element too, of any shape: x.tile(torch.tensor([2])))
    if signatures.is_symint(dims[0]):
        return rearrange.tile(self, dims)
    if len(dims) > 1:
        raise TypeError(f"tile() takes 1 positional argument but {len(dims)} were given")
    return rearrange.tile(self, dims[0])


Tensor.tile = method_copy(_tile)
Tensor.unique_consecutive = method_copy(reduce.unique_consecutive_method,
                                        "Tensor.unique_consecutive")

# x.op_(...): the op, written into x (x += y is x.add_(y))
INPLACE_METHODS = {
    arithmetic: """add sub subtract mul multiply div divide true_divide floor_divide remainder
        fmod pow clamp clip clamp_min clamp_max lerp atan2 arctan2 addcmul addcdiv""",
    unary: """exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan arcsin
        arccos arctan sinh cosh tanh sigmoid reciprocal neg negative abs absolute sign sgn square
        relu floor ceil trunc fix round frac nan_to_num lgamma digamma""",
    compare: """eq ne lt le gt ge not_equal less less_equal greater greater_equal bitwise_and
        bitwise_or bitwise_xor bitwise_not""",
    reduce: "cumsum cumprod",
    indexing: "scatter scatter_add put",
    structure: "tril triu index_add index_copy",
    linalg: "addmv addr addbmm baddbmm renorm",
    pointwise: """erf erfc erfinv logit xlogy copysign hypot deg2rad rad2deg sinc heaviside gcd lcm
        bitwise_left_shift bitwise_right_shift nextafter""",
}
for _family, _names in INPLACE_METHODS.items():
    for _name in _names.split():
        setattr(Tensor, _name + "_",
                method_copy(inplace.in_place(_without_out(getattr(_family, _name)))))
for _name, _op in unary.IN_PLACE_INVERSE_HYPERBOLICS.items():  # (x.asinh_(): AsinhBackward1)
    _method = method_copy(inplace.in_place(_without_out(_op)))
    setattr(Tensor, _name + "_", _method)
    setattr(Tensor, "arc" + _name[1:] + "_", method_copy(inplace.in_place(_without_out(_op))))
# x.polygamma(n) is torch.polygamma(n, x); x.polygamma_(n) records PolygammaBackward1
Tensor.polygamma = method_copy(unary.polygamma_method, "Tensor.polygamma")
Tensor.polygamma_ = method_copy(inplace.in_place(unary.polygamma_written_back))
Tensor.mvlgamma_ = method_copy(inplace.in_place(pointwise.mvlgamma_written_back))
# torch writes these through their out= form, which autograd does not see: no leaf refused,
# nothing recorded (x.logical_not_() runs on a tensor that requires grad)
for _name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    setattr(Tensor, _name + "_", method_copy(inplace.in_place(
        _without_out(getattr(compare, _name)), tracked=False)))
for _name in ("clamp_", "clamp_min_", "clamp_max_", "clip_"):
    setattr(Tensor, _name, method_copy(inplace.cast_refused_in_cpp_names(getattr(Tensor, _name))))
# fills write only the places they fill (an expanded tensor too)
Tensor.swapaxes_ = method_copy(views.transpose_, "Tensor.swapaxes_")  # (torch's aliases)
Tensor.swapdims_ = method_copy(views.transpose_, "Tensor.swapdims_")
Tensor.masked_fill_ = method_copy(indexing.masked_fill_)
Tensor.masked_scatter_ = method_copy(indexing.masked_scatter_)
Tensor.index_fill_ = method_copy(indexing.index_fill_)
Tensor.index_put_ = method_copy(indexing.index_put_)
Tensor.index_put = method_copy(indexing.index_put)
Tensor.add_ = method_copy(inplace.add_)  # (an optimizer's update takes a quicker way)
Tensor.float_power_ = method_copy(pointwise.float_power_)
Tensor.conj_physical_ = method_copy(inplace.in_place(pointwise.conj_physical_copy))
_ldexp_in_place = inplace.in_place(pointwise.ldexp_written_back)


def _ldexp_(self, other):
    """``x.ldexp_(other)``: x * 2 ** other written into x (torch's cast check comes first)."""
    pointwise.ldexp_check(self, other)
    return _ldexp_in_place(self, other)


Tensor.ldexp_ = method_copy(_ldexp_, "Tensor.ldexp_")

# torch.sin_(x) is x.sin_(): the in-place methods torch also exposes as functions
# (engine/__init__.py puts them into the package)
_INPLACE_FUNCTION_NAMES = """abs_ acos_ arccos_ arcsin_ arctan_ asin_ atan_ ceil_ clamp_ clamp_max_
    clamp_min_ clip_ cos_ cosh_ detach_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ log10_ log1p_
    log2_ log_ nan_to_num_ neg_ negative_ reciprocal_ relu_ round_ rsqrt_ sigmoid_ sin_ sinh_
    sqrt_ square_ tan_ tanh_ trunc_ zero_ asinh_ acosh_ atanh_ arcsinh_ arccosh_ addmv_
    arctanh_""".split() + """deg2rad_ erf_ erfc_ logit_ rad2deg_
    sinc_ xlogy_ gcd_ lcm_ ldexp_ conj_physical_""".split()
_OVERLOADED = {"clamp_", "clamp_max_", "clamp_min_", "clip_", "fill_"}  # torch's message differs


def _inplace_function(name):
    method = getattr(Tensor, name)

    def function(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            if name in _OVERLOADED:
                raise invalid_arguments_error(name, input, *args)
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type_name(input)}")
        return method(input, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``{name}(input, ...)`` is ``input.{name}(...)``: {method.__doc__}"
    return function


INPLACE_FUNCTIONS = {_name: _inplace_function(_name) for _name in _INPLACE_FUNCTION_NAMES}

# conversions whose names are Python builtins
for _name, _method in convert.CASTS.items():  # x.float() ... x.bool()
    setattr(Tensor, _name, _method)
Tensor.type = convert.type_
Tensor.ndimension, Tensor.nelement = Tensor.dim, Tensor.numel
Tensor.get_device, Tensor.is_complex = convert.get_device, convert.is_complex
Tensor.is_set_to = convert.is_set_to
for _flag, _value in convert.DEVICE_FLAGS.items():
    setattr(Tensor, _flag, _value)
Tensor.__array__ = convert.to_numpy_array  # np.asarray(x): the same memory
Tensor.__float__, Tensor.__int__ = convert.to_python_float, convert.to_python_int
Tensor.__complex__, Tensor.__bool__ = convert.to_python_complex, convert.to_python_bool
Tensor.__index__ = convert.to_index
Tensor.__new__ = convert.legacy_new  # torch.Tensor(2, 3), as old tutorials write
Tensor.__reduce_ex__ = convert.reduce_ex
Tensor.__deepcopy__ = convert.deepcopy
Tensor.data = property(convert.get_data, convert.set_data,
                       doc="The same memory without autograd history; changes through it are "
                           "not tracked.")
Tensor.T = property(views.all_dims_reversed,
                    doc="All dimensions reversed (a view); x.mT for batches.")
Tensor.mT = property(views.last_two_dims_swapped, doc="The last two dimensions swapped (a view).")
Tensor.mH = property(views.conjugate_transposed,
                     doc="The last two dimensions swapped (x.mT: no complex numbers here).")
Tensor.H = property(views.matrix_conjugate_transposed, doc="A matrix transposed (x.T of a matrix).")
Tensor.where = arithmetic.where_method


# ---------------------------------------------------------------- indexing
def _delitem(self, index):
    raise TypeError("Tensor does not support deleting items")


Tensor.__getitem__ = indexing.getitem
Tensor.__setitem__ = indexing.setitem
Tensor.__delitem__ = _delitem


# ---------------------------------------------------------------- Python operators
_OPERANDS = (Tensor, int, float, bool, np.number, np.bool_)


def _operator(function, reflected=False):
    """An operator method that leaves unknown operands to Python (-> its TypeError)."""
    function = getattr(function, "unparsed", None) or _without_out(function)
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


def _reciprocal_times(self, other):
    # torch: `other / x` is x.reciprocal() * other (so its rounding differs from div)
    return arithmetic.mul(unary.reciprocal(self), other)


_matmul_op = _without_out(linalg.matmul)


def _matmul(self, other):
    return _matmul_op(self, other) if isinstance(other, Tensor) else NotImplemented


def _rmatmul(self, other):
    return _matmul_op(other, self) if isinstance(other, Tensor) else NotImplemented


# (+ - * / of two float tensors take a quicker way to the same result: fastpath.py)
Tensor.__add__ = fastpath.binary(_operator(arithmetic.add), np.add, arithmetic.AddBackward0,
                                 alpha=True)
Tensor.__radd__ = _operator(arithmetic.add)  # torch computes add(self, other) for `2 + x`
Tensor.__sub__ = fastpath.binary(_operator(arithmetic.sub), np.subtract,
                                 arithmetic.SubBackward0, alpha=True)
Tensor.__rsub__ = _operator(arithmetic.rsub)  # `2 - x` is rsub(x, 2)
Tensor.__mul__ = fastpath.binary(_operator(arithmetic.mul), np.multiply,
                                 arithmetic.MulBackward0, saved=arithmetic.mul_saved)
Tensor.__rmul__ = _operator(arithmetic.mul)  # torch computes mul(self, other) for `2.5 * x` too
Tensor.__truediv__ = fastpath.binary(_operator(arithmetic.div), np.true_divide,
                                     arithmetic.DivBackward0, saved=arithmetic.div_saved)
def _reflected_divide(self, other):
    if isinstance(other, np.ndarray):  # (torch's Python: numpy multiplies by the reciprocal)
        return unary.reciprocal(self) * other
    return _reciprocal_operator(self, other)


_reciprocal_operator = _operator(_reciprocal_times)
Tensor.__rtruediv__ = _reflected_divide
Tensor.__floordiv__ = _operator(arithmetic.floor_divide)
Tensor.__rfloordiv__ = _operator(arithmetic.floor_divide, reflected=True)
Tensor.__mod__ = _operator(arithmetic.remainder)
Tensor.__rmod__ = _operator(arithmetic.remainder, reflected=True)
Tensor.__pow__ = _operator(arithmetic.pow)
Tensor.__rpow__ = _operator(arithmetic.pow, reflected=True)
Tensor.__matmul__ = _matmul
Tensor.__rmatmul__ = _rmatmul
Tensor.__and__ = _operator(compare.bitwise_and)
Tensor.__rand__ = _operator(compare.bitwise_and, reflected=True)
Tensor.__or__ = _operator(compare.bitwise_or)
Tensor.__ror__ = _operator(compare.bitwise_or, reflected=True)
Tensor.__xor__ = _operator(compare.bitwise_xor)
Tensor.__rxor__ = _operator(compare.bitwise_xor, reflected=True)
Tensor.__lshift__ = _operator(pointwise.bitwise_left_shift)
Tensor.__rlshift__ = _operator(pointwise.bitwise_left_shift, reflected=True)
Tensor.__rshift__ = _operator(pointwise.bitwise_right_shift)
Tensor.__rrshift__ = _operator(pointwise.bitwise_right_shift, reflected=True)
_eq_operator = _operator(compare.eq)


def _eq(self, other):
    if isinstance(other, np.ndarray):
        # torch leaves `tensor == array` to numpy, whose elementwise answer comes back as a
        # bool tensor (`tensor != array`, though, is Python's identity test: True)
        return creation.from_numpy(np.asarray(np.equal(np.asarray(self), other)))
    return _eq_operator(self, other)


Tensor.__eq__ = _eq
Tensor.__ne__ = _operator(compare.ne)
Tensor.__lt__ = _operator(compare.lt)
Tensor.__le__ = _operator(compare.le)
Tensor.__gt__ = _operator(compare.gt)
Tensor.__ge__ = _operator(compare.ge)
Tensor.__neg__ = _without_out(unary.neg)
Tensor.__pos__ = unary.positive
Tensor.__abs__ = _without_out(unary.abs)
Tensor.__invert__ = compare.invert_operator  # ~x: TypeError for floats (bitwise_not: another)



def _in_place_operator(method):
    """``x += other``: torch turns the method's TypeError into NotImplemented, so Python
    falls back to ``x = x + other`` (a numpy array: numpy's own +, see __array_wrap__)."""
    def operator(self, other):
        if isinstance(other, np.ndarray):
            return NotImplemented  # (torch's argument parser refuses it before anything else)
        try:
            return method(self, other)
        except TypeError:
            return NotImplemented
    operator.__name__ = method.__name__
    return operator


Tensor.__iadd__ = _in_place_operator(Tensor.add_)
Tensor.__isub__ = _in_place_operator(Tensor.sub_)
Tensor.__imul__ = _in_place_operator(Tensor.mul_)
Tensor.__itruediv__ = _in_place_operator(Tensor.div_)
Tensor.__ifloordiv__ = _in_place_operator(Tensor.floor_divide_)
Tensor.__imod__ = _in_place_operator(Tensor.remainder_)
Tensor.__ipow__ = _in_place_operator(Tensor.pow_)
Tensor.__iand__ = _in_place_operator(Tensor.bitwise_and_)
Tensor.__ior__ = _in_place_operator(Tensor.bitwise_or_)
Tensor.__ixor__ = _in_place_operator(Tensor.bitwise_xor_)
Tensor.__ilshift__ = _in_place_operator(Tensor.bitwise_left_shift_)
Tensor.__irshift__ = _in_place_operator(Tensor.bitwise_right_shift_)


def _array_wrap(self, array):  # (one argument, as torch's: numpy 2 warns about it, as for torch)
    """numpy's result of ``tensor + array`` (computed by numpy, from the tensor's values and
    numpy's rules) comes back as a tensor sharing its memory; bools as uint8, as in torch."""
    if array.dtype == bool:
        array = array.astype("uint8")
    return creation.from_numpy(array)


Tensor.__array_wrap__ = _array_wrap
