"""Datasets: what a DataLoader reads from, one sample at a time.

A map-style ``Dataset`` answers ``dataset[i]`` and ``len(dataset)``; an ``IterableDataset``
is read by iterating over it. ``random_split`` shuffles the indices with ``randperm``, so a
seeded generator gives the same split as torch's.
"""
import bisect
import itertools
import math
import warnings
from typing import Generic, TypeVar

from ...fidelity.random import default_generator
from ...ops.creation import randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "Subset",
           "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map from keys (usually 0 .. len - 1) to samples: subclasses define __getitem__ and,
    for the default samplers, __len__."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A stream of samples: subclasses define __iter__ (a DataLoader reads it in order)."""

    def __iter__(self):
        raise NotImplementedError


class TensorDataset(Dataset):
    """Sample i is ``(t[i] for t in tensors)``: rows of tensors that share their first size."""

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """Datasets one after another: index i falls in the first dataset whose running size
    exceeds it."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[dataset_idx - 1] if dataset_idx else 0
        return self.datasets[dataset_idx][idx - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        if type(self).__getitem__ is not Subset.__getitem__ and \
                type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. When "
                "subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. A "
                "simple implementation:\n\ndef __getitems__(self, indices):\n    return "
                "[self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        """A whole batch at once (the DataLoader asks for one when a dataset offers it)."""
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=default_generator):
    """Split ``dataset`` into non-overlapping Subsets of the given ``lengths``: counts, or
    fractions summing to 1 (floor(fraction * len) each, the remainder handed out one by one
    from the first split on). The indices are ``randperm(len(dataset), generator=generator)``."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]


def _lengths_from_fractions(fractions, total):
    lengths = []
    for i, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * fraction))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                          "dataset.", UserWarning, stacklevel=3)
    return lengths
