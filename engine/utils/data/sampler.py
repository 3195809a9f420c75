"""Samplers: the order in which a DataLoader asks its dataset for samples.

``RandomSampler`` is what ``DataLoader(..., shuffle=True)`` uses. Without a generator of its
own, each pass over it draws a fresh seed from the default generator (one int64
``random_()``), seeds a new ``Generator`` with it and shuffles with ``randperm``: so after
``torch.manual_seed(s)`` every epoch's order is torch's, and each epoch differs.
"""
import itertools
from typing import Generic, TypeVar

from ...fidelity.dtypes import float64, int64
from ...fidelity.random import Generator
from ...ops.creation import as_tensor, empty, randint, randperm
from ...ops.sampling import multinomial

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Something to iterate over: indices (or, for a batch sampler, lists of indices)."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A shuffled order (``randperm``), or ``num_samples`` indices drawn with replacement
    (``randint``, 32 at a time, as torch draws them)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:  # a fresh seed from the default generator, every pass
            seed = int(empty((), dtype=int64).random_().item())
            generator = Generator()
            generator.manual_seed(seed)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), generator=generator).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,),
                               generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices, in a shuffled order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``
    (``multinomial``)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or \
                num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        drawn = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one shorter,
    unless ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        if self.drop_last:
            yield from (list(batch) for batch in zip(*[indices] * self.batch_size))
            return
        batch = list(itertools.islice(indices, self.batch_size))
        while batch:
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
