"""DataLoader: a dataset served in batches, reshuffled at every pass when ``shuffle=True``.

Each ``iter(loader)`` (each epoch) makes a new iterator, which first draws a seed for
worker processes from the generator (one int64 ``random_()``, as torch does even when
there are no workers), then asks the batch sampler for lists of indices, fetches those
samples and collates them. Everything runs in this process: ``num_workers > 0`` gives the
same batches as torch's workers for a map-style dataset, loaded one after another here.
"""
import math
import os
import warnings

from ...fidelity.dtypes import int64
from ...ops.creation import empty
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]


def get_worker_info():
    """Information about the worker process loading data: always None (no worker processes)."""
    return None


class _InfiniteConstantSampler(Sampler):
    """An iterable dataset's sampler: None, forever (the dataset itself says when it ends)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Batches of ``dataset``: ``batch_size`` samples each, in order or shuffled."""

    _frozen = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                              multiprocessing_context)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None \
            else prefetch_factor
        self.pin_memory, self.pin_memory_device = pin_memory, pin_memory_device
        self.timeout, self.worker_init_fn = timeout, worker_init_fn
        self.multiprocessing_context, self.in_order = multiprocessing_context, in_order
        self._iterable = isinstance(dataset, IterableDataset)
        shuffle = _check_sampling_options(dataset, self._iterable, batch_size, shuffle, sampler,
                                          batch_sampler, drop_last)
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        if sampler is None:
            sampler = (_InfiniteConstantSampler() if self._iterable
                       else RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._frozen = True
        self._warn_about_too_many_workers()

    def __setattr__(self, attr, value):
        if self._frozen and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                     "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(attr, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        """What the iterator walks: the batch sampler, or the sampler when not batching."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers > 0:
            self._warn_about_too_many_workers()  # torch checks again before starting workers
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        if not self._iterable:
            return len(self._index_sampler)
        length = len(self.dataset)
        if self.batch_size is not None:
            length = length // self.batch_size if self.drop_last \
                else math.ceil(length / self.batch_size)
        return length

    def _warn_about_too_many_workers(self):
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else os.cpu_count()
        if self.num_workers and self.num_workers > cpus:
            warnings.warn(
                f"This DataLoader will create {self.num_workers} worker processes in total. Our "
                f"suggested max number of worker in current system is {cpus}, which is smaller "
                "than what this DataLoader is going to create. Please be aware that excessive "
                "worker creation might get DataLoader running slow or even freeze, lower the "
                "worker number to avoid potential slowness/freeze if necessary.",
                UserWarning, stacklevel=3)


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                          multiprocessing_context):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing.let "
                         "num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None and num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading "
                         "(num_workers > 0), but got num_workers=0")


def _check_sampling_options(dataset, iterable, batch_size, shuffle, sampler, batch_sampler,
                            drop_last):
    """torch's refusals of options that contradict each other; returns shuffle as a bool."""
    if iterable:
        if shuffle not in {False, None}:
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                             f"option, but got shuffle={shuffle}")
        if sampler is not None:
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler "
                             f"option, but got sampler={sampler}")
        if batch_sampler is not None:
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                             f"batch_sampler option, but got batch_sampler={batch_sampler}")
    else:
        shuffle = bool(shuffle)
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None:
        if batch_size != 1 or shuffle or sampler is not None or drop_last:
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                             "shuffle, sampler, and drop_last")
    elif batch_size is None and drop_last:
        raise ValueError("batch_size=None option disables auto-batching and is mutually "
                         "exclusive with drop_last")
    return shuffle


class _SingleProcessDataLoaderIter:
    """One pass over a DataLoader: indices from its sampler, samples fetched and collated."""

    def __init__(self, loader):
        if loader.timeout != 0 and loader.num_workers == 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", UserWarning, stacklevel=3)
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._index_sampler = loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        # the workers' base seed: drawn even without workers, so it moves the generator
        self._base_seed = empty((), dtype=int64).random_(generator=loader.generator).item()
        self._dataset_iter = iter(loader.dataset) if loader._iterable else None
        self._ended = False
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def __next__(self):
        index = next(self._sampler_iter)  # may raise StopIteration: the pass is over
        data = self._fetch_iterable(index) if self._dataset_iter is not None \
            else self._fetch_map(index)
        self._num_yielded += 1
        return data

    def _fetch_map(self, index):
        if not self._auto_collation:
            return self._collate_fn(self._dataset[index])
        if callable(getattr(self._dataset, "__getitems__", None)):
            return self._collate_fn(self._dataset.__getitems__(index))
        return self._collate_fn([self._dataset[i] for i in index])

    def _fetch_iterable(self, index):
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return self._collate_fn(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if len(data) == 0 or (self._drop_last and len(data) < len(index)):
            raise StopIteration
        return self._collate_fn(data)
