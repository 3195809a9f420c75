"""engine.utils.data against torch.utils.data: the same seed gives the same batches.

Every test runs the same code with the engine and with torch (``parity.run_both``) and
ends by drawing a few uniforms, so the two generators must also be in step afterwards.
"""
import collections
import os
import warnings

import numpy as np
import pytest

import engine
import engine.utils.data
import parity
from engine.utils.data import DataLoader as EngineDataLoader

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)


def data(m):
    return m.utils.data


def epochs(loader, count=3):
    return [list(loader) for _ in range(count)]


def tensor_dataset(m, n):
    features = m.arange(2.0 * n).reshape(n, 2)
    return data(m).TensorDataset(features, m.arange(n))


def test_import_forms():
    assert engine.utils.data.DataLoader is EngineDataLoader
    assert engine.utils.data.TensorDataset.__module__.startswith("engine.utils.data")


# ------------------------------------------------------------------ shuffling
@pytest.mark.parametrize("seed", [0, 1, 42, 2**40 + 3])
@pytest.mark.parametrize("n, batch_size", [(1, 1), (10, 3), (10, 10), (17, 4), (100, 32),
                                           (257, 64), (1000, 100)])
def test_shuffled_epochs_match_torch(seed, n, batch_size):
    def fn(m):
        m.manual_seed(seed)
        loader = data(m).DataLoader(tensor_dataset(m, n), batch_size=batch_size, shuffle=True)
        return epochs(loader), len(loader), m.rand(3)

    parity.run_both(fn)


@pytest.mark.parametrize("drop_last", [False, True])
def test_drop_last_and_unshuffled(drop_last):
    def fn(m):
        m.manual_seed(3)
        dataset = tensor_dataset(m, 23)
        shuffled = data(m).DataLoader(dataset, batch_size=5, shuffle=True, drop_last=drop_last)
        ordered = data(m).DataLoader(dataset, batch_size=5, drop_last=drop_last)
        return epochs(shuffled, 2), len(shuffled), epochs(ordered, 1), len(ordered), m.rand(3)

    parity.run_both(fn)


def test_loader_generator_leaves_the_default_stream_alone():
    def fn(m):
        m.manual_seed(0)
        g = m.Generator().manual_seed(123)
        loader = data(m).DataLoader(tensor_dataset(m, 30), batch_size=7, shuffle=True,
                                    generator=g)
        return epochs(loader), m.rand(3), g.initial_seed()

    parity.run_both(fn)


def test_each_iterator_draws_its_seeds_as_torch():
    """A new iterator draws the workers' base seed at once; the sampler's seed is drawn only
    when the first batch is asked for."""
    def fn(m):
        m.manual_seed(5)
        loader = data(m).DataLoader(tensor_dataset(m, 12), batch_size=5, shuffle=True)
        iterator = iter(loader)
        after_iter = m.rand(1)
        first = next(iterator)
        return after_iter, first, list(iterator), len(iterator), m.rand(2)

    parity.run_both(fn)


def test_num_workers_gives_torchs_batches():
    def fn(m):
        m.manual_seed(9)
        loader = data(m).DataLoader(tensor_dataset(m, 20), batch_size=6, shuffle=True,
                                    num_workers=2)
        return epochs(loader, 2), m.rand(2)

    parity.run_both(fn)


# ------------------------------------------------------------------ random_split
@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.3, 0.3, 0.4], [0.5, 0.5], [10, 0],
                                     [1 / 3, 1 / 3, 1 / 3]])
def test_random_split_indices(lengths):
    def fn(m):
        m.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            splits = data(m).random_split(range(10), lengths)
            g = m.Generator().manual_seed(42)
            seeded = data(m).random_split(range(10), lengths, generator=g)
        return ([s.indices for s in splits], [s.indices for s in seeded],
                [str(w.message) for w in caught], m.rand(2))

    parity.run_both(fn)


def test_random_split_large_and_subsets():
    def fn(m):
        m.manual_seed(1)
        train, test = data(m).random_split(tensor_dataset(m, 3000), [0.8, 0.2])
        loader = data(m).DataLoader(train, batch_size=512, shuffle=True)
        return len(train), len(test), test[0], test.indices[:20], epochs(loader, 1), m.rand(2)

    parity.run_both(fn)


@pytest.mark.parametrize("lengths", [[3, 6], [0.5, 1.5, -1.0], [0.2, 0.2]])
def test_random_split_errors(lengths):
    parity.run_both(lambda m: data(m).random_split(range(10), lengths))


# ------------------------------------------------------------------ samplers
def test_samplers():
    def fn(m):
        d = data(m)
        m.manual_seed(4)
        g = m.Generator().manual_seed(8)
        weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
        return (list(d.SequentialSampler(range(5))),
                list(d.RandomSampler(range(10))),
                list(d.RandomSampler(range(10), num_samples=25)),
                list(d.RandomSampler(range(10), replacement=True, num_samples=70)),
                list(d.RandomSampler(range(10), generator=g)),
                list(d.SubsetRandomSampler([3, 5, 7, 9])),
                list(d.WeightedRandomSampler(weights, 5)),
                list(d.WeightedRandomSampler(weights, 5, replacement=False)),
                list(d.BatchSampler(d.SequentialSampler(range(10)), 3, False)),
                list(d.BatchSampler(d.SequentialSampler(range(10)), 3, True)),
                len(d.BatchSampler(range(10), 3, False)), len(d.BatchSampler(range(10), 3, True)),
                len(d.RandomSampler(range(10), num_samples=4)), m.rand(2))

    parity.run_both(fn)


def test_sampler_and_batch_sampler_options():
    def fn(m):
        d = data(m)
        m.manual_seed(6)
        dataset = tensor_dataset(m, 11)
        by_sampler = d.DataLoader(dataset, batch_size=4, sampler=d.RandomSampler(dataset))
        by_batches = d.DataLoader(dataset, batch_sampler=d.BatchSampler(range(11), 5, False))
        unbatched = d.DataLoader(dataset, batch_size=None, shuffle=True)
        return (epochs(by_sampler, 2), epochs(by_batches, 1), len(by_batches),
                epochs(unbatched, 1), len(unbatched), m.rand(2))

    parity.run_both(fn)


SAMPLER_ERRORS = [
    lambda d: d.RandomSampler(range(3), replacement=1),
    lambda d: d.RandomSampler(range(3), num_samples=0),
    lambda d: d.RandomSampler(range(0)),
    lambda d: d.WeightedRandomSampler([1.0, 2.0], 0),
    lambda d: d.WeightedRandomSampler([1.0, 2.0], 2, replacement=None),
    lambda d: d.WeightedRandomSampler([[1.0, 2.0]], 2),
    lambda d: d.BatchSampler(range(3), 0, False),
    lambda d: d.BatchSampler(range(3), True, False),
    lambda d: d.BatchSampler(range(3), 2, 1),
]


@pytest.mark.parametrize("case", range(len(SAMPLER_ERRORS)))
def test_sampler_errors(case):
    parity.run_both(lambda m: SAMPLER_ERRORS[case](data(m)))


# ------------------------------------------------------------------ collation
Point = collections.namedtuple("Point", "x y")


class Items(engine.utils.data.Dataset):
    """Sample i of a fixed list (the same class serves both libraries: it holds no tensors)."""

    def __init__(self, items):
        self.items = items

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return len(self.items)


SAMPLES = {
    "ints": [1, 2, 3],
    "floats": [1.5, 2.0, -3.25],
    "bools": [True, False, True],
    "strings": ["a", "b", "c"],
    "tuples": [(1, 2.5), (3, 4.5), (5, 6.5)],
    "lists": [[1, 2], [3, 4], [5, 6]],
    "dicts": [{"a": 1, "b": 0.5}, {"a": 2, "b": 1.5}, {"a": 3, "b": 2.5}],
    "named": [Point(1, 2.0), Point(3, 4.0), Point(5, 6.0)],
    "arrays": [np.arange(3, dtype=np.float32) + i for i in range(3)],
    "int arrays": [np.arange(2) * i for i in range(3)],
    "numpy scalars": [np.float64(1.5), np.float64(2.5), np.float64(0.0)],
    "numpy ints": [np.int32(1), np.int32(2), np.int32(7)],
    "nested": [({"x": np.ones(2)}, [1.0, "s"]), ({"x": np.zeros(2)}, [2.0, "t"])],
}


@pytest.mark.parametrize("kind", list(SAMPLES))
def test_default_collate(kind):
    def fn(m):
        d = data(m)
        batched = list(d.DataLoader(Items(SAMPLES[kind]), batch_size=2))
        unbatched = list(d.DataLoader(Items(SAMPLES[kind]), batch_size=None))
        return batched, unbatched, d.default_collate(SAMPLES[kind]), \
            d.default_convert(SAMPLES[kind])

    parity.run_both(fn)


def test_collate_of_tensors():
    def fn(m):
        d = data(m)
        samples = [(m.tensor([1.0, 2.0]) * i, m.tensor(i)) for i in range(4)]
        return (d.default_collate(samples), list(d.DataLoader(samples, batch_size=3)),
                list(d.DataLoader(samples, batch_size=2, collate_fn=lambda batch: len(batch))))

    parity.run_both(fn)


COLLATE_ERRORS = [
    [object(), object()],
    [[1, 2], [3]],
    [np.array(["a", "b"]), np.array(["c", "d"])],
]


@pytest.mark.parametrize("case", range(len(COLLATE_ERRORS)))
def test_collate_errors(case):
    parity.run_both(lambda m: data(m).default_collate(COLLATE_ERRORS[case]))


# ------------------------------------------------------------------ datasets
def test_datasets():
    def fn(m):
        d = data(m)
        first, second = tensor_dataset(m, 4), tensor_dataset(m, 3)
        both = first + second
        subset = d.Subset(both, [6, 0, 2])
        return (len(both), both[5], both[-1], both.cumulative_sizes, len(subset), subset[0],
                subset.__getitems__([0, 1]), list(d.DataLoader(subset, batch_size=2)))

    parity.run_both(fn)


class Stream(engine.utils.data.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


class TorchStream(torch.utils.data.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


@pytest.mark.parametrize("batch_size, drop_last", [(None, False), (1, False), (3, False),
                                                   (3, True), (10, False)])
def test_iterable_dataset(batch_size, drop_last):
    def fn(m):
        m.manual_seed(2)
        stream = (Stream if m is engine else TorchStream)(7)
        loader = data(m).DataLoader(stream, batch_size=batch_size, drop_last=drop_last)
        return epochs(loader, 2), len(loader), m.rand(2)

    parity.run_both(fn)


def test_subset_must_override_getitems_with_getitem():
    def make(m):
        class Bad(data(m).Subset):
            def __getitem__(self, idx):
                return 0

        return Bad(range(3), [0])

    parity.run_both(make)


LOADER_ERRORS = [
    lambda d, ds: d.DataLoader(ds, num_workers=-1),
    lambda d, ds: d.DataLoader(ds, timeout=-1),
    lambda d, ds: d.DataLoader(ds, prefetch_factor=2),
    lambda d, ds: d.DataLoader(ds, num_workers=1, prefetch_factor=-1),
    lambda d, ds: d.DataLoader(ds, persistent_workers=True),
    lambda d, ds: d.DataLoader(ds, multiprocessing_context="fork"),
    lambda d, ds: d.DataLoader(ds, sampler=d.SequentialSampler(ds), shuffle=True),
    lambda d, ds: d.DataLoader(ds, batch_sampler=d.BatchSampler(range(3), 2, False),
                               batch_size=2),
    lambda d, ds: d.DataLoader(ds, batch_size=None, drop_last=True),
    lambda d, ds: d.DataLoader(ds, batch_size=0),
    lambda d, ds: iter(d.DataLoader(ds, timeout=1)),
    lambda d, ds: setattr(d.DataLoader(ds), "batch_size", 3),
    lambda d, ds: d.TensorDataset(ds.tensors[0], ds.tensors[1][:2]),
    lambda d, ds: list(d.DataLoader([1, object()], batch_size=2)),
]


@pytest.mark.parametrize("case", range(len(LOADER_ERRORS)))
def test_loader_errors(case):
    parity.run_both(lambda m: LOADER_ERRORS[case](data(m), tensor_dataset(m, 5)))


def test_iterable_dataset_refuses_shuffle_and_samplers():
    for make in (lambda d, s: d.DataLoader(s, shuffle=True),
                 lambda d, s: d.DataLoader(s, sampler=[0, 1]),
                 lambda d, s: d.DataLoader(s, batch_sampler=[[0, 1]])):
        parity.run_both(lambda m, make=make: make(data(m), (Stream if m is engine
                                                            else TorchStream)(3)),
                        match="DataLoader with IterableDataset: expected unspecified")


def test_pin_memory_warns_without_an_accelerator():
    for m in (engine, torch):
        with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no "
                                             "accelerator is found"):
            list(data(m).DataLoader(tensor_dataset(m, 3), pin_memory=True))


def test_d2l_linear_regression_runs_as_with_torch():
    """d2l's concise linear regression (synthetic_data, load_array, SGD on minibatches):
    the same shuffles, so the same losses up to float32 rounding of the sums."""
    def fn(m):
        m.manual_seed(0)
        w, b = m.tensor([2, -3.4]), 4.2
        features = m.normal(0, 1, (1000, len(w)))
        labels = m.matmul(features, w) + b
        labels += m.normal(0, 0.01, labels.shape)
        labels = labels.reshape((-1, 1))
        loader = data(m).DataLoader(data(m).TensorDataset(features, labels), 10, shuffle=True)
        net = m.nn.Sequential(m.nn.Linear(2, 1))
        net[0].weight.data.normal_(0, 0.01)
        net[0].bias.data.fill_(0)
        loss, trainer = m.nn.MSELoss(), m.optim.SGD(net.parameters(), lr=0.03)
        losses, orders = [], []
        for _ in range(3):
            first_rows = []
            for X, y in loader:
                first_rows.append(X[0])
                batch_loss = loss(net(X), y)
                trainer.zero_grad()
                batch_loss.backward()
                trainer.step()
            with m.no_grad():
                losses.append(loss(net(features), labels).item())
            orders.append(m.stack(first_rows))
        return orders, losses, m.rand(2)

    parity.run_both(fn, exact=False, rtol=1e-4)


def test_worker_count_warnings():
    """More workers than CPUs: warned when the loader is made and again when it starts."""
    workers = len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else 65

    def fn(m):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loader = data(m).DataLoader(tensor_dataset(m, 10), batch_size=3,
                                        num_workers=workers)
            batches = list(loader)
        return batches, [str(w.message) for w in caught]

    parity.run_both(fn)
