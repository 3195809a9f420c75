"""engine/fidelity/stdsort.py: the order torch's CPU topk gives equal values (libstdc++'s
nth_element, sort and partial_sort, replayed) against torch.topk itself."""
import numpy as np
import pytest

from engine.fidelity.stdsort import topk_order

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")

SIZES = [1, 2, 3, 4, 5, 7, 16, 17, 20, 33, 64, 65, 100, 200, 500, 1000, 3000]


def test_known_tie_orders():
    zeros = np.zeros(5, np.float32)
    assert topk_order(zeros, 5).tolist() == [2, 4, 3, 0, 1]
    assert topk_order(zeros, 3).tolist() == [2, 4, 3]
    assert topk_order(np.ones(20, np.float32), 20).tolist() == [11, 0, 8, 9, 7, 4, 3, 2, 1, 5,
                                                                10, 12, 13, 14, 15, 16, 17, 18,
                                                                19, 6]


@pytest.mark.parametrize("seed", range(6))
def test_ties_and_nans_in_torchs_order(seed):
    """Values from a few levels (many ties), some nan; k over the whole range; both directions.
    Covers the partial_sort path (k * 64 <= n), introselect, and introsort's heapsort fallback."""
    rng = np.random.default_rng(seed)
    for _ in range(120):
        n = int(rng.choice(SIZES))
        values = rng.integers(0, int(rng.integers(1, 6)), n).astype(np.float32)
        if rng.random() < 0.2:
            values[rng.random(n) < 0.1] = np.nan
        k = int(rng.integers(0, n + 1))
        largest = bool(rng.random() < 0.7)
        expected = torch.from_numpy(values).topk(k, largest=largest).indices.numpy()
        assert np.array_equal(topk_order(values, k, largest), expected), (n, k, largest)


def test_distinct_values_take_the_fast_path():
    values = np.random.default_rng(0).permutation(10_000).astype(np.float64)
    expected = torch.from_numpy(values).topk(500).indices.numpy()
    assert np.array_equal(topk_order(values, 500), expected)


@pytest.mark.parametrize("seed", range(4))
def test_unsorted_topk_in_nth_elements_order(seed):
    """sorted=False: nth_element's order (for distinct values too), or partial_sort's when
    k * 64 <= n; ties, nans and both directions."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(120):
        n = int(rng.choice(SIZES))
        if rng.random() < 0.5:
            values = rng.permutation(n).astype(np.float32)
        else:
            values = rng.integers(0, int(rng.integers(1, 6)), n).astype(np.float32)
        if rng.random() < 0.2:
            values[rng.random(n) < 0.1] = np.nan
        k = int(rng.integers(0, n + 1))
        largest = bool(rng.random() < 0.7)
        expected = torch.from_numpy(values).topk(k, largest=largest, sorted=False).indices
        assert np.array_equal(topk_order(values, k, largest, sorted=False), expected.numpy()), \
            (n, k, largest)


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float16", "float64"])
@pytest.mark.parametrize("largest", [True, False])
def test_unsorted_topk_values_and_indices(dtype, largest):
    import parity
    for shape, dim in [((8,), 0), ((3, 7), 1), ((7, 3), 0), ((2, 130), -1)]:
        x = parity.make_tensor(shape, dtype, seed=len(shape))
        for k in (0, 1, 2, shape[dim] // 2, shape[dim]):
            parity.run_both(lambda m, x, k, d: m.topk(x, k, d, largest=largest, sorted=False),
                            x, k, dim)
            if len(shape) == 2 and k <= shape[1 - dim % 2]:  # a strided input
                parity.run_both(lambda m, x, k, d: x.t().topk(k, d, largest, False),
                                x, k, 1 - dim % 2)
