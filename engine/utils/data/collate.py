"""Collation: how a DataLoader turns a list of samples into one batch.

``default_collate`` follows the structure of the first sample: tensors are stacked along
a new first dimension, numbers become a tensor (float64 for Python floats, int64 for
ints), numpy arrays become tensors first, strings stay a list, and dicts, named tuples,
tuples and lists are collated field by field (a tuple comes back as a list, as in torch).
"""
import collections
import copy
import re

import numpy as np

from ...core.tensor import Tensor
from ...fidelity.dtypes import float64
from ...ops.creation import as_tensor, tensor
from ...ops.join import stack

__all__ = ["default_collate", "default_convert", "collate"]

_STRINGS_OR_OBJECTS = re.compile(r"[SaUO]")  # numpy dtypes that cannot become tensors

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, "
                                  "numbers, dicts or lists; found {}")


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    if _STRINGS_OR_OBJECTS.search(batch[0].dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


# by the type of a batch's first element (or a base class of it, tried in this order)
default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` by its first element's type: a function of ``collate_fn_map``, or
    field by field for mappings, named tuples and sequences."""
    elem = batch[0]
    if collate_fn_map is not None:
        if type(elem) in collate_fn_map:
            return collate_fn_map[type(elem)](batch, collate_fn_map=collate_fn_map)
        for collate_type, collate_fn in collate_fn_map.items():
            if isinstance(elem, collate_type):
                return collate_fn(batch, collate_fn_map=collate_fn_map)

    def each(samples):
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        return _rebuilt(elem, {key: each([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a named tuple
        return type(elem)(*(each(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [each(samples) for samples in zip(*batch)]
        return fields if isinstance(elem, tuple) else _rebuilt(elem, fields)
    raise TypeError(default_collate_err_msg_format.format(type(elem)))


def _rebuilt(elem, contents):
    """A container like ``elem`` (same type) holding ``contents``, else a plain dict / list."""
    try:
        if isinstance(elem, (collections.abc.MutableMapping, collections.abc.MutableSequence)):
            clone = copy.copy(elem)
            if isinstance(elem, collections.abc.MutableMapping):
                clone.update(contents)
            else:
                for i, value in enumerate(contents):
                    clone[i] = value
            return clone
        return type(elem)(contents)
    except TypeError:
        return dict(contents) if isinstance(elem, collections.abc.Mapping) else list(contents)


def default_collate(batch):
    """A list of samples -> one batch (see the module's docstring)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """Without batching (``batch_size=None``): numpy arrays and scalars become tensors, inside
    containers too; everything else is returned unchanged."""
    if isinstance(data, Tensor):
        return data
    if type(data).__module__ == "numpy" and type(data).__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and _STRINGS_OR_OBJECTS.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuilt(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuilt(data, [default_convert(d) for d in data])
    return data
