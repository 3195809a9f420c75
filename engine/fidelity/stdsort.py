"""The order in which torch's CPU topk and sort leave equal values: libstdc++'s algorithms,
replayed.

torch's topk (aten/src/ATen/native/TopKImpl.h) puts (value, index) pairs in a vector and
calls ``std::partial_sort`` when ``k * 64 <= n``, else ``std::nth_element`` followed (for
``sorted=True``) by ``std::sort`` of the first ``k - 1``; with ``sorted=False`` the k values
come out in nth_element's order, which only the algorithm determines. Those algorithms are
not stable: among equal values the indices come out in an order that only the algorithms
themselves determine
(``tensor([0., 0., 0., 0., 0.]).topk(3)`` gives indices 2, 4, 3). torch's sort without
``stable=True`` (SortingKernel.cpp) is ``std::sort`` of the pairs: stable up to 16 values
(an insertion sort), beyond that its partitions reorder ties. When the values are all
distinct, any correct sort gives the same answer and numpy's is used instead; this module
is the slow path for ties, and follows GNU libstdc++ (``bits/stl_algo.h``, ``stl_heap.h``),
the C++ library torch's Linux wheels are built with.

``before(x, y)`` is torch's comparator: nan first, then larger values (for ``largest``).
"""
import math

import numpy as np

_THRESHOLD = 16  # libstdc++'s _S_threshold: ranges this short are insertion-sorted


def topk_order(values, k, largest=True, sorted=True):  # noqa: A002 (torch's name)
    """The indices torch's topk returns for a 1-d array ``values``."""
    values = np.asarray(values)
    n = values.size
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    if not sorted and k * 64 > n:
        # nth_element alone: its order is the algorithm's, whatever the values
        return np.array(_replay(values.tolist(), k, largest, sorted), dtype=np.int64)
    order = np.argsort(values, kind="stable")  # (not -values: an integer's minimum overflows)
    if largest:
        order = order[::-1]
    nans = np.isnan(values)
    ranked = np.concatenate([np.flatnonzero(nans), order[~nans[order]]])
    top = values[ranked[:min(k + 1, n)]]
    if np.unique(top).size == top.size and not nans.any():
        return ranked[:k]  # no ties where they could matter: every correct sort agrees
    return np.array(_replay(values.tolist(), k, largest), dtype=np.int64)


def sort_order(values, descending):
    """The indices torch's sort without ``stable=True`` gives a 1-d array with ties:
    ``std::sort`` of (value, index) pairs, nan last (first when ``descending``)."""
    keys = np.unique(values, return_inverse=True)[1].reshape(-1)  # (nan: the largest rank)
    if descending:
        keys = -keys
    pairs = list(zip(keys.tolist(), range(values.size)))
    std_sort(pairs, 0, len(pairs), lambda x, y: x[0] < y[0])
    return np.array([index for _, index in pairs], dtype=np.int64)


def _replay(values, k, largest, sorted=True):  # noqa: A002
    if largest:
        def before(x, y):
            return (math.isnan(x[0]) and not math.isnan(y[0])) or x[0] > y[0]
    else:
        def before(x, y):
            return (not math.isnan(x[0]) and math.isnan(y[0])) or x[0] < y[0]
    queue = [(v, i) for i, v in enumerate(values)]
    n = len(queue)
    if k * 64 <= n:
        _partial_sort(queue, 0, k, n, before)
    else:
        nth_element(queue, 0, k - 1, n, before)
        if sorted:
            std_sort(queue, 0, k - 1, before)
    return [index for _, index in queue[:k]]


# --------------------------------------------------------------------- heaps
def _adjust_heap(a, first, hole, length, value, before):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if before(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2  # push_heap: move value up to where it belongs
    while hole > top and before(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _make_heap(a, first, last, before):
    length = last - first
    if length < 2:
        return
    for parent in range((length - 2) // 2, -1, -1):
        _adjust_heap(a, first, parent, length, a[first + parent], before)


def _pop_heap(a, first, last, result, before):
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, before)


def _heap_select(a, first, middle, last, before):
    _make_heap(a, first, middle, before)
    for i in range(middle, last):
        if before(a[i], a[first]):
            _pop_heap(a, first, middle, i, before)


def _sort_heap(a, first, last, before):
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last, before)


def _partial_sort(a, first, middle, last, before):
    _heap_select(a, first, middle, last, before)
    _sort_heap(a, first, middle, before)


# ----------------------------------------------------------------- quicksort
def _move_median_to_first(a, result, i, j, m, before):
    if before(a[i], a[j]):
        if before(a[j], a[m]):
            pick = j
        elif before(a[i], a[m]):
            pick = m
        else:
            pick = i
    elif before(a[i], a[m]):
        pick = i
    elif before(a[j], a[m]):
        pick = m
    else:
        pick = j
    a[result], a[pick] = a[pick], a[result]


def _partition_pivot(a, first, last, before):
    """Median of three moved to ``first``, then Hoare's partition around it."""
    _move_median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1, before)
    pivot, lo, hi = a[first], first + 1, last
    while True:
        while before(a[lo], pivot):
            lo += 1
        hi -= 1
        while before(pivot, a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _linear_insert(a, last, before):
    value = a[last]
    while before(value, a[last - 1]):
        a[last] = a[last - 1]
        last -= 1
    a[last] = value


def _insertion_sort(a, first, last, before):
    for i in range(first + 1, last):
        if before(a[i], a[first]):  # a new first: shift the whole sorted run right
            value = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i, before)


def _lg(n):
    return n.bit_length() - 1


def std_sort(a, first, last, before):
    if last - first < 2:
        return
    _introsort_loop(a, first, last, 2 * _lg(last - first), before)
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, before)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(a, i, before)
    else:
        _insertion_sort(a, first, last, before)


def _introsort_loop(a, first, last, depth, before):
    while last - first > _THRESHOLD:
        if depth == 0:
            _partial_sort(a, first, last, last, before)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, before)
        _introsort_loop(a, cut, last, depth, before)
        last = cut


def nth_element(a, first, nth, last, before):
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, before)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, before)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, before)
