"""Random fills and creation from numpy against torch (issue 25): randint's and random_'s
bounds per dtype (errors, and the float dtypes' precision warnings), every random fill on empty
and 0-d tensors of every dtype, and asarray's memory sharing with numpy arrays and numbers.

The draws are seeded (the engine's generator is torch's), so values are compared exactly.
"""
import warnings

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

DTYPES = parity.DTYPES


def with_warnings(draw):
    """fn(m) for run_both: seeded, and the warnings it gave (category and first line)."""
    def fn(m):
        m.manual_seed(3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = draw(m)
        return result, [f"{w.category.__name__}: {str(w.message).splitlines()[0]}"
                        for w in caught]
    return fn


# ------------------------------------------------------------------ randint, random_: bounds
BOUNDS = [(0, 2), (-1, 5), (0, 256), (-129, 0), (-128, 128), (3, 2**31 + 3), (0, 2**31),
          (-2**31 - 1, 0), (0, 2**24 + 1), (-2**24 - 1, 0), (0, 2**11 + 2), (0, 2**53 + 2),
          (0, 65505), (0, 65520), (5, 5), (5, 3), (0, 2**63 - 1), (-2**63, 2**63 - 1),
          (-2**63, 0), (0, 2**63), (2**62, 2**62 + 3), (0, 2**64)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_randint_checks_its_bounds_against_the_dtype(dtype):
    """The issue's example (3, 2**31 + 3) into int32, and each dtype's ends."""
    failures = []
    for low, high in BOUNDS:
        for size in ((4,), (0,), ()):
            def draw(m, low=low, high=high, size=size):
                return m.randint(low, high, size, dtype=getattr(m, dtype))
            try:
                parity.run_both(with_warnings(draw))
            except AssertionError as error:
                failures.append(f"randint({low}, {high}, {size}): {error}")
    assert not failures, f"{len(failures)} differ:\n" + "\n\n".join(failures[:5])


RANDOM_ARGUMENTS = [(), (2,), (256,), (2**31 + 3,), (2**63 - 1,), (0, None), (-1, None),
                    (200, None), (2**24, None), (-2**63, None), (2**62, None)] + BOUNDS


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_and_randint_like_check_their_bounds(dtype):
    failures = []
    for arguments in RANDOM_ARGUMENTS:
        for shape in ((3,), (0,), ()):
            def draw(m, arguments=arguments, shape=shape):
                return m.zeros(shape, dtype=getattr(m, dtype)).random_(*arguments)

            def like(m, arguments=arguments, shape=shape):
                return m.randint_like(m.zeros(shape, dtype=getattr(m, dtype)), *arguments)
            for fn, name in ((draw, "random_"), (like, "randint_like")):
                if name == "randint_like" and (not arguments or arguments[-1] is None):
                    continue
                try:
                    parity.run_both(with_warnings(fn))
                except AssertionError as error:
                    failures.append(f"{name}{arguments} of {shape}: {error}")
    assert not failures, f"{len(failures)} differ:\n" + "\n\n".join(failures[:5])


# ------------------------------------------------------------------ every fill, empty and 0-d
FILLS = {
    "rand_like": lambda m, t: m.rand_like(t),
    "randn_like": lambda m, t: m.randn_like(t),
    "randn_like(int16)": lambda m, t: m.randn_like(t, dtype=m.int16),
    "rand_like(float16)": lambda m, t: m.rand_like(t, dtype=m.float16),
    "randint_like(5)": lambda m, t: m.randint_like(t, 5),
    "normal_": lambda m, t: t.normal_(),
    "normal_(0, inf)": lambda m, t: t.normal_(0, float("inf")),
    "normal_(0, -1)": lambda m, t: t.normal_(0, -1),
    "uniform_": lambda m, t: t.uniform_(),
    "uniform_(2, 1)": lambda m, t: t.uniform_(2, 1),
    "uniform_(-1e39, 0)": lambda m, t: t.uniform_(-1e39, 0),
    "uniform_(-3e38, 3e38)": lambda m, t: t.uniform_(-3e38, 3e38),
    "uniform_(0, 70000)": lambda m, t: t.uniform_(0, 70000),
    "bernoulli_": lambda m, t: t.bernoulli_(),
    "bernoulli_(0.3)": lambda m, t: t.bernoulli_(0.3),
    "bernoulli_(1.5)": lambda m, t: t.bernoulli_(1.5),
    "bernoulli_(p tensor)": lambda m, t: t.bernoulli_(m.full(t.shape, 0.5)),
    "bernoulli_(p of 2)": lambda m, t: t.bernoulli_(m.full(t.shape, 2.0)),
    "bernoulli": lambda m, t: m.bernoulli(t),
    "exponential_": lambda m, t: t.exponential_(),
    "exponential_(-1)": lambda m, t: t.exponential_(-1),
    "cauchy_": lambda m, t: t.cauchy_(),
    "cauchy_(2, 0.5)": lambda m, t: t.cauchy_(2, 0.5),
    "cauchy_(sigma=0)": lambda m, t: t.cauchy_(sigma=0),
    "log_normal_": lambda m, t: t.log_normal_(),
    "log_normal_(0.5, 0.25)": lambda m, t: t.log_normal_(0.5, 0.25),
    "log_normal_(800, 1)": lambda m, t: t.log_normal_(800, 1),
    "log_normal_(std=-1)": lambda m, t: t.log_normal_(std=-1),
    "geometric_(0.3)": lambda m, t: t.geometric_(0.3),
    "geometric_(0.999)": lambda m, t: t.geometric_(0.999),
    "geometric_(1e-6)": lambda m, t: t.geometric_(1e-6),
    "geometric_(1)": lambda m, t: t.geometric_(1),
    "random_": lambda m, t: t.random_(),
    "random_(10)": lambda m, t: t.random_(10),
    "torch.normal(0, 1, shape)": lambda m, t: m.normal(0., 1., t.shape, dtype=t.dtype),
    "rand(shape)": lambda m, t: m.rand(t.shape, dtype=t.dtype),
    "randn(shape)": lambda m, t: m.randn(t.shape, dtype=t.dtype),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fill", list(FILLS))
def test_every_random_fill_on_empty_and_0d_tensors(fill, dtype):
    """torch returns an empty result before it looks at the dtype for some fills (randn_like
    of an empty int tensor), and refuses it for others (uniform_)."""
    failures = []
    for shape in ((), (0,), (2, 0), (3,)):
        def draw(m, shape=shape):
            t = m.zeros(shape, dtype=getattr(m, dtype))
            return FILLS[fill](m, t), t
        try:
            parity.run_both(with_warnings(draw), check_inputs=False)
        except AssertionError as error:
            failures.append(f"{shape}: {error}")
    assert not failures, f"{len(failures)} differ:\n" + "\n\n".join(failures[:5])


RANDPERM = {
    "randperm(4)": lambda m: m.randperm(4),
    "randperm(0)": lambda m: m.randperm(0),
    "randperm(-1)": lambda m: m.randperm(-1),
    "randperm(300, uint8)": lambda m: m.randperm(300, dtype=m.uint8),
    "randperm(256, uint8)": lambda m: m.randperm(256, dtype=m.uint8),
    "randperm(2049, float16)": lambda m: m.randperm(2049, dtype=m.float16),
    "randperm(4, bool)": lambda m: m.randperm(4, dtype=m.bool),
    "randperm(2, bool)": lambda m: m.randperm(2, dtype=m.bool),
    "randperm out": lambda m: m.randperm(3, out=m.zeros(5, dtype=m.int64)),
    "randperm out of another dtype": lambda m: m.randperm(3, out=m.zeros(3)),
    "randperm out, dtype differs": lambda m: m.randperm(3, out=m.zeros(3, dtype=m.int64),
                                                        dtype=m.int32),
    "randperm out, dtype differs, n < 0": lambda m: m.randperm(
        -1, out=m.zeros(3, dtype=m.int64), dtype=m.int32),
    "randperm out, n < 0": lambda m: m.randperm(-1, out=m.zeros(3, dtype=m.int64)),
}


@pytest.mark.parametrize("name", list(RANDPERM))
def test_randperm_checks_as_torch(name):
    parity.run_both(with_warnings(RANDPERM[name]))


WITH_OUT = {
    "rand": lambda m, out, **kw: m.rand(3, out=out, **kw),
    "randn": lambda m, out, **kw: m.randn(3, out=out, **kw),
    "randn of nothing": lambda m, out, **kw: m.randn(0, out=out, **kw),
    "randint": lambda m, out, **kw: m.randint(0, 4, (3,), out=out, **kw),
    "randint(300)": lambda m, out, **kw: m.randint(300, (3,), out=out, **kw),
    "randperm": lambda m, out, **kw: m.randperm(3, out=out, **kw),
}


@pytest.mark.parametrize("out_dtype", ["int64", "uint8", "float32", "float64"])
@pytest.mark.parametrize("name", list(WITH_OUT))
def test_random_factories_draw_in_outs_dtype_and_resize_it_silently(name, out_dtype):
    for size in (5, 3, 0):
        for dtype in (None, "float64", "int64"):
            def draw(m, size=size, dtype=dtype):
                out = m.zeros(size, dtype=getattr(m, out_dtype))
                options = {} if dtype is None else {"dtype": getattr(m, dtype)}
                return WITH_OUT[name](m, out, **options), out
            parity.run_both(with_warnings(draw))


# ------------------------------------------------------------------ asarray: sharing memory
def _arrays():
    return {
        "0-d int32": lambda: np.array(1, dtype=np.int32),
        "0-d float64": lambda: np.array(2.5),
        "1-d int32": lambda: np.array([1, 2], dtype=np.int32),
        "2-d transposed": lambda: np.arange(6.).reshape(2, 3).T,
        "stepped": lambda: np.arange(6.)[::2],
        "read-only": lambda: (lambda a: (a.setflags(write=False), a)[1])(np.arange(3.)),
    }


SCALARS = [np.int32(1), np.float32(2.5), np.float64(2.5), np.bool_(True), np.int64(-3),
           np.uint8(200), np.float16(1.5)]
OPTIONS = [{}, {"copy": True}, {"copy": False}, {"copy": None}, {"dtype": "float32"},
           {"dtype": "float32", "copy": False}, {"dtype": "float32", "copy": True},
           {"dtype": "int32"}, {"dtype": "int32", "copy": False}]


def _options(m, options):
    return {k: getattr(m, v) if k == "dtype" else v for k, v in options.items()}


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("array", list(_arrays()))
def test_asarray_shares_memory_as_torch(array, options):
    """torch copies a 0-d array, shares any other array it can hold, refuses copy=False
    where it cannot share; the result is checked after the array is written to."""
    def make(m):
        a = _arrays()[array]()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch warns about a read-only array)
            result = m.asarray(a, **_options(m, options))
        shared = np.shares_memory(result.numpy(), a) if result.numel() else None
        return result.clone(), shared
    parity.run_both(make)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("value", SCALARS, ids=repr)
def test_asarray_tensor_and_as_tensor_of_numpy_numbers(value, options):
    for function in ("asarray", "as_tensor", "tensor"):
        if function != "asarray" and "copy" in options:
            continue
        parity.run_both(lambda m, f=function: getattr(m, f)(value, **_options(m, options)))


@pytest.mark.parametrize("array", list(_arrays()))
def test_from_numpy_and_as_tensor_share_memory_as_torch(array):
    for function in ("from_numpy", "as_tensor", "tensor"):
        def make(m, function=function):
            a = _arrays()[array]()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = getattr(m, function)(a)
            return result.clone(), np.shares_memory(result.numpy(), a)
        parity.run_both(make)
