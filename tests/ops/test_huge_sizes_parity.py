"""Sizes past what a tensor can hold, against torch 2.15: torch's parser refuses an int past
int64 (TypeError), its storage count overflows (``Storage size calculation overflowed``),
its strides do (``Stride calculation overflowed``), or its allocator cannot get the memory.
Before, the engine passed such sizes to numpy: ``F.interpolate(x, size=2**63)`` returned an
empty tensor (a silently wrong result), ``torch.empty(2**63)`` raised numpy's ValueError.

torch's TypeError goes on with the C++ frames of its parser (file names, addresses): the
engine's message stops after the first line (notebooks/DIFFERENCES.md, "Errors and
tracebacks"), which is what is compared here."""
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

# (allocation errors only through empty and zeros, which touch no memory if the system hands
# it over anyway: then both libraries succeed alike)
FACTORIES = {
    "a 0 after an overflow": lambda m: m.empty(2**40, 2**40, 0),
    "strides overflow": lambda m: m.empty(0, 2**40, 2**40),
    "storage overflow": lambda m: m.zeros(2**62, 2),
    "storage overflow in bytes": lambda m: m.zeros(2**61, 2),
    "float64 bytes": lambda m: m.rand(2**61, 2, dtype=m.float64),
    "randn": lambda m: m.randn(2**62, 4),
    "full": lambda m: m.full((2**62, 4), 2),
    "ones": lambda m: m.ones(2**62, 2, dtype=m.int16),
    "past int64": lambda m: m.empty(2**63),
    "past int64 in a tuple": lambda m: m.empty((2**63,)),
    "second past uint64": lambda m: m.zeros(3, 2**64),
    "below int64": lambda m: m.zeros((3, -2**63 - 1)),
    "size=": lambda m: m.ones(size=(2**63,)),
    "new_empty": lambda m: m.tensor([1.0]).new_empty((2**63,)),
    "new_zeros, too much memory": lambda m: m.tensor([1.0]).new_zeros(2**44),
    "too much memory": lambda m: m.empty(2**44),
    "int64 max of bytes": lambda m: m.empty(2**63 - 1, dtype=m.uint8),
    "empty, fine": lambda m: m.zeros(0, 2**40, dtype=m.float16),
}


def _outcome(m, call):
    try:
        result = call(m)
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        text = str(error).split("\nException raised from")[0]
        return type(error).__name__, text.removesuffix('"') if "unpacking" in text else text
    return "ok", tuple(result.shape), str(result.dtype)


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factories_refuse_sizes_as_torch(name):
    assert _outcome(engine, FACTORIES[name]) == _outcome(torch, FACTORIES[name])


INTERPOLATIONS = {
    "size past int64": ({"size": 2**63}, 3),
    "size int64 max": ({"size": 2**63 - 1}, 3),
    "size past uint64": ({"size": 2**64}, 3),
    "a size overflowing the storage": ({"size": (2**62,)}, 3),
    "2-d storage overflow": ({"size": (2**62, 4)}, 4),
    "2-d too much memory": ({"size": (2**22, 2**22)}, 4),
    "2-d past int64": ({"size": (2**63, 1)}, 4),
    "scale past int64": ({"scale_factor": 1e30}, 3),
    "scale of too much memory": ({"scale_factor": 2.0**42}, 3),
}


@pytest.mark.parametrize("mode", ["nearest", "linear"])
@pytest.mark.parametrize("name", list(INTERPOLATIONS))
def test_interpolate_refuses_sizes_as_torch(name, mode):
    keywords, dims = INTERPOLATIONS[name]
    mode = {"linear": {3: "linear", 4: "bilinear"}[dims]}.get(mode, mode)

    def call(m):
        x = m.ones((1, 1, 4, 4)[:dims])
        return m.nn.functional.interpolate(x, mode=mode, **keywords)
    assert _outcome(engine, call) == _outcome(torch, call)
    assert _outcome(engine, call)[0] != "ok"


def test_an_empty_tensor_numpy_cannot_hold_is_refused_in_words():
    """torch makes torch.empty(2**62, 0); numpy cannot hold that shape (no elements, but its
    other sizes multiply past 2**63 bytes): the engine says so (DIFFERENCES.md)."""
    assert tuple(torch.empty(2**62, 0).shape) == (2**62, 0)
    with pytest.raises(RuntimeError, match=r"the engine cannot make a tensor of sizes="
                                           r"\[4611686018427387904, 0\]"):
        engine.empty(2**62, 0)
