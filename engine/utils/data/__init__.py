"""``engine.utils.data``: datasets, samplers and the DataLoader, mirroring ``torch.utils.data``.

A ``Dataset`` gives samples, a ``Sampler`` the order to read them in, and a ``DataLoader``
puts the two together and collates samples into batches::

    loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)
    for X_batch, y_batch in loader:   # a new shuffle at every pass
        ...

Shuffling, ``random_split`` and the random samplers draw from torch's generators the way
torch does, so a seeded run gives torch's batches exactly.
"""
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "default_collate", "default_convert",
           "get_worker_info", "random_split"]
