"""Random samples whose parameters are tensors: normal(mean, std), bernoulli(p), multinomial(p).

Drawing a sample is not differentiable. torch still records a node when a parameter
requires grad, and its gradient is zero: to the parameters the sample is a constant.
(To let gradients reach a mean and a std, draw ``eps = randn(...)`` and compute
``mean + eps * std``: that is ``rsample()`` in ``torch.distributions``.)
How each sampler turns the generator's bits into values is in ``fidelity/random.py``.
"""
import math

import numpy as np

from ..fidelity import calls, dtypes, messages, signatures
from ..fidelity import random as rng
from ..fidelity.layout import preserved_strides
from ..fidelity.messages import type_name
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from .arithmetic import NotImplementedBackward
from .common import broadcast_error, not_implemented_for, zero_gradient_like, write_out
from .creation import finish_factory, float_sampling_dtype, size_from_args

__all__ = ["normal", "bernoulli", "multinomial"]


def _is_number(value):
    """torch's float: a number, or a 0-d tensor that needs no grad (read as its value)."""
    return signatures.fits(value, "float")


def _bad_generator(generator):
    return generator is not None and not isinstance(generator, rng.Generator)


class _Unset:
    """A default torch's overloads do not have: normal() lists only the arguments given."""

    def __repr__(self):
        return "<unset>"


_UNSET = _Unset()


# ---------------------------------------------------------------- normal
def normal(mean=_UNSET, std=_UNSET, size=None, *, generator=None, out=None, dtype=None,
           layout=None, device=None, pin_memory=False, requires_grad=False):
    """N(mean, std**2) samples: one per element of the broadcast ``mean`` and ``std`` tensors,
    or ``size`` of them for numbers. Drawn as N(0, 1) (N(0, std) for a number std), then
    multiplied by std and shifted by mean, in the result's dtype (out's, with out=)."""
    if mean is _UNSET and std is not _UNSET:
        raise TypeError('normal() missing 1 required positional arguments: "mean"')
    tensors = isinstance(mean, Tensor) or isinstance(std, Tensor)
    keywords = dict(dtype=dtype, layout=layout, device=device) if tensors else {}
    keywords["generator"] = generator if _bad_generator(generator) else None
    given = {key: value for key, value in keywords.items() if value is not None}
    numbers_fit = all(isinstance(v, Tensor) or _is_number(v) for v in (mean, std)
                      if v is not _UNSET)  # (normal(mean tensor): std defaults to 1)
    if not tensors and mean is not _UNSET and std is _UNSET and size is None and not given:
        # (one argument: torch's parser tries its one overload of one, normal(Tensor mean))
        raise TypeError(f"normal(): argument 'mean' (position 1) must be Tensor, not "
                        f"{type_name(mean)}")
    if given or not numbers_fit or (size is None) != tensors or (tensors and requires_grad) \
            or (not tensors and std is _UNSET) or not (size is None or _sizes_fit(size)):
        arguments = [v for v in (mean, std, size) if v is not _UNSET]
        raise messages.invalid_arguments("normal", arguments, given, messages.NORMAL)
    if not tensors:
        return _normal_factory(mean, std, size, generator, out, dtype, device, requires_grad)
    return _normal_from_tensors(mean, 1.0 if std is _UNSET else std, generator, out)


def _sizes_fit(size):
    """Whether torch's parser takes ``size`` for normal's ``SymInt[] size`` (its first element
    decides; the others are read after: size_from_args)."""
    return isinstance(size, (tuple, list)) and (not size or signatures.is_symint(size[0]))


def _normal_factory(mean, std, size, generator, out, dtype, device, requires_grad):
    if out is not None:
        dtype = out.dtype
    shape = size_from_args((size,), "normal")
    target = float_sampling_dtype(dtype, "normal_kernel_cpu", math.prod(shape))
    values = rng.normal(shape, target.numpy_dtype, float(mean), float(std), generator)
    if out is not None:
        return finish_factory(_replace_silently(out, values), requires_grad, device)  # (no warning)
    return finish_factory(wrap(values), requires_grad, device)


def _normal_from_tensors(mean, std, generator, out):
    if out is not None:
        _refuse_grad_with_out("normal", mean, std, out)
    if isinstance(std, Tensor):
        if std._data.size and not std._data.min() >= 0:  # (nan fails too)
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    shapes = [v._data.shape for v in (mean, std) if isinstance(v, Tensor)]
    if out is not None and not isinstance(std, Tensor):
        shapes.append(out._data.shape)  # torch broadcasts mean with out's old shape here
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise broadcast_error(*(np.empty(s) for s in shapes)) from None
    template = mean if isinstance(mean, Tensor) else std
    np_dtype = (out if out is not None else template)._data.dtype
    if np_dtype.kind != "f" and math.prod(shape):  # (nothing to fill: no dtype check)
        raise not_implemented_for("normal_kernel_cpu", np_dtype)
    arrays = [v._data if isinstance(v, Tensor) else float(v) for v in (mean, std)]
    if not isinstance(std, Tensor):
        arrays[0] = np.broadcast_to(arrays[0], shape)
    values = wrap(rng.normal_tensor(*arrays, np_dtype=np_dtype, generator=generator))
    if out is not None:
        return write_out(values, out)
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        return record(NormalBackward3, values, (mean, std), mean_sym_sizes=mean._data.shape,
                      std_sym_sizes=std._data.shape)
    if isinstance(mean, Tensor):
        return record(NormalBackward1, values, (mean,), mean_sym_sizes=mean._data.shape)
    return record(NormalBackward2, values, (std,), std_sym_sizes=std._data.shape)


def _refuse_grad_with_out(name, *tensors):
    if any(isinstance(v, Tensor) and v.requires_grad for v in tensors):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


class NormalBackward1(Node):
    """out = normal(mean tensor, std number):  a sample, so mean's gradient is zero"""

    mean_sym_sizes: tuple

    def backward(self, grad):
        return wrap(np.zeros(self.mean_sym_sizes, grad._data.dtype))


class NormalBackward2(Node):
    """out = normal(mean number, std tensor):  a sample, so std's gradient is zero"""

    std_sym_sizes: tuple

    def backward(self, grad):
        return wrap(np.zeros(self.std_sym_sizes, grad._data.dtype))


class NormalBackward3(Node):
    """out = normal(mean tensor, std tensor):  a sample, so both gradients are zero"""

    mean_sym_sizes: tuple
    std_sym_sizes: tuple

    def backward(self, grad):
        return (wrap(np.zeros(self.mean_sym_sizes, grad._data.dtype)),
                wrap(np.zeros(self.std_sym_sizes, grad._data.dtype)))


# ---------------------------------------------------------------- bernoulli
_BERNOULLI_METHOD = (" * (*, torch.Generator generator = None)\n"
                     " * (float p, *, torch.Generator generator = None)\n")
_NO_P = object()  # (p=None given is refused: no overload of torch's takes it)


def bernoulli(input, p=_NO_P, *, generator=None, out=None):
    """1 with probability ``input`` (each element its own probability), else 0, in input's dtype
    (out's, with out=); with a number ``p``, every element is 1 with probability p."""
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    if _bad_generator(generator) or (p is not _NO_P and (out is not None or not _is_number(p))):
        keywords = {"generator": generator if _bad_generator(generator) else None, "out": out}
        given = {key: value for key, value in keywords.items() if value is not None}
        method = calls.called_as_method()
        args, names = ((p,), ["p"]) if method else ((input, p), ["input", "p"])
        args, given = calls.parted_by_keyword(
            [value for value in args if value is not _NO_P], names, given)
        raise TypeError("bernoulli() received an invalid combination of arguments - got ("
                        f"{signatures.listed_arguments(args, given)}), but expected one of:\n"
                        f"{_BERNOULLI_METHOD if method else messages.BERNOULLI}")
    p = None if p is _NO_P else p
    data = input._data
    if p is not None:
        values = wrap(rng.bernoulli(float(p), data.shape, data.dtype, generator))
        return record(NotImplementedBackward, values, (input,), op="bernoulli")
    if data.dtype.kind != "f" and data.size:  # (nothing to fill: no dtype check)
        raise not_implemented_for("bernoulli_tensor_cpu_p_", data.dtype)
    if out is not None:
        _refuse_grad_with_out("bernoulli", input, out)
    np_dtype = (out if out is not None else input)._data.dtype
    values = rng.bernoulli(data, data.shape, np_dtype, generator)
    if out is not None:
        return _replace_silently(out, values)  # torch resizes out to input's shape with resize_
    return record(BernoulliBackward0, wrap(values), (input,))


def _bernoulli_method(self, p=_NO_P, *, generator=None):
    """x.bernoulli(): as torch's Tensor methods, without out="""
    return bernoulli(self, p, generator=generator)


_bernoulli_method.__name__ = _bernoulli_method.__qualname__ = "bernoulli"
bernoulli.without_out = _bernoulli_method


class BernoulliBackward0(Node):
    """out = bernoulli(p):  a sample, so p's gradient is zero"""

    def backward(self, grad):
        return zero_gradient_like(grad)


# ---------------------------------------------------------------- multinomial
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """``num_samples`` category indices drawn from each row of weights ``input`` (1-d or 2-d;
    the weights need not sum to 1). Without replacement a category is drawn at most once."""
    num_samples = _check_multinomial_arguments(input, num_samples, replacement, generator, out)
    data = input._data
    n_categories = data.shape[-1]
    if not replacement and num_samples > n_categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if n_categories > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    shape = data.shape[:-1] + (num_samples,)
    if 0 in shape:
        values = np.zeros(shape, np.int64)
    else:
        if not replacement or num_samples == 1:
            _check_weights(data)
        strides = preserved_strides(data.shape, input.stride())  # the order torch draws in
        values = rng.multinomial(data, num_samples, replacement, strides, generator)
    if out is not None:
        return _replace_silently(out, values)  # torch resizes out with resize_: no warning
    return wrap(values)


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    """x.multinomial(n): as torch's Tensor methods, without out="""
    return multinomial(self, num_samples, replacement, generator=generator)


_multinomial_method.__name__ = _multinomial_method.__qualname__ = "multinomial"
multinomial.without_out = _multinomial_method


def _replace_silently(out, values):
    """Write ``values`` into out=, resized (as torch's resize_, which never warns) if needed."""
    if out._data.shape != values.shape:
        out._data = np.empty(values.shape, out._data.dtype)
        out._stride = out._storage = None
        out._offset = 0
    np.copyto(out._data, values, casting="unsafe")
    out._bump_version()
    return out


def _check_multinomial_arguments(input, num_samples, replacement, generator, out):
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    if not signatures.is_symint(num_samples):  # (torch's SymInt)
        where = "" if calls.given_by_keyword("num_samples") else f" (position {calls.position(2)})"
        raise TypeError(f"multinomial(): argument 'num_samples'{where} must be int, not "
                        f"{type_name(num_samples)}")
    if not isinstance(replacement, bool):
        raise TypeError(f"multinomial(): argument 'replacement' (position 3) must be bool, not "
                        f"{type_name(replacement)}")
    if _bad_generator(generator):
        raise TypeError(f"multinomial(): argument 'generator' must be torch.Generator, not "
                        f"{type_name(generator)}")
    num_samples = signatures.symint_value(num_samples)
    if input._data.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{dtypes.scalar_type_name[input.dtype]}")
    if out is not None and out.dtype is not dtypes.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: "
                           f"{dtypes.scalar_type_name[out.dtype]}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    return int(num_samples)


def _check_weights(data):
    """The checks of torch's exponential-race path, made on the whole input up front."""
    if data.shape[-1] == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    with np.errstate(invalid="ignore"):
        if not (data.max() < np.inf and data.min() >= 0):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (data.sum(axis=-1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
