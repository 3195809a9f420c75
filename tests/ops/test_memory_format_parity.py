"""torch.memory_format: contiguous_format, preserve_format, channels_last(_3d) in clone,
contiguous, is_contiguous, to, empty and the *_like factories: strides, values, gradients and
errors as torch's."""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


def images(m, shape=(2, 3, 4, 5)):
    n = 1
    for s in shape:
        n *= s
    return m.arange(float(n)).reshape(shape)


CASES = {
    "repr": lambda m: (repr(m.channels_last), str(m.contiguous_format), repr(m.preserve_format),
                       repr(m.channels_last_3d)),
    "clone channels_last": lambda m: images(m).clone(memory_format=m.channels_last),
    "clone channels_last, sizes 0 and 1": lambda m: (
        images(m, (2, 0, 4, 5)).clone(memory_format=m.channels_last),
        images(m, (1, 3, 1, 5)).clone(memory_format=m.channels_last)),
    "clone channels_last_3d": lambda m: images(m, (2, 3, 2, 4, 5)).clone(
        memory_format=m.channels_last_3d),
    "clone channels_last of 2-d": lambda m: m.ones(2, 3).clone(memory_format=m.channels_last),
    "clone channels_last_3d of 4-d": lambda m: images(m).clone(memory_format=m.channels_last_3d),
    "clone with a string": lambda m: images(m).clone(memory_format="channels_last"),
    "clone back to contiguous": lambda m: images(m).clone(memory_format=m.channels_last).clone(
        memory_format=m.contiguous_format),
    "clone preserves channels_last": lambda m: images(m).clone(
        memory_format=m.channels_last).clone(),
    "is_contiguous": lambda m: [
        t.is_contiguous(memory_format=f)
        for t in (images(m), images(m).clone(memory_format=m.channels_last), m.ones(2, 3),
                  images(m, (1, 3, 1, 1)))
        for f in (m.contiguous_format, m.preserve_format, m.channels_last, m.channels_last_3d)],
    "contiguous in channels_last": lambda m: images(m).contiguous(memory_format=m.channels_last),
    "contiguous is self when already so": lambda m: [
        t.contiguous(memory_format=f) is t
        for t, f in ((images(m).clone(memory_format=m.channels_last), m.channels_last),
                     (images(m), m.contiguous_format), (images(m), m.preserve_format))],
    "contiguous of channels_last": lambda m: images(m).clone(
        memory_format=m.channels_last).contiguous(),
    "contiguous with preserve_format": lambda m: m.ones(2, 3).t().contiguous(
        memory_format=m.preserve_format),
    "contiguous channels_last of 2-d": lambda m: m.ones(2, 3).t().contiguous(
        memory_format=m.channels_last),
    "empty_like": lambda m: m.empty_like(images(m), memory_format=m.channels_last).stride(),
    "zeros_like of channels_last": lambda m: m.zeros_like(
        images(m).clone(memory_format=m.channels_last)),
    "ones_like contiguous": lambda m: m.ones_like(
        images(m).clone(memory_format=m.channels_last), memory_format=m.contiguous_format),
    "full_like channels_last": lambda m: m.full_like(images(m), 2.0,
                                                      memory_format=m.channels_last),
    "ones_like with a number": lambda m: m.ones_like(images(m), memory_format=3),
    "rand_like channels_last": lambda m: (m.manual_seed(0), m.rand_like(
        images(m), memory_format=m.channels_last))[1],
    "randn_like channels_last": lambda m: (m.manual_seed(0), m.randn_like(
        images(m), memory_format=m.channels_last))[1],
    "randint_like channels_last": lambda m: (m.manual_seed(0), m.randint_like(
        images(m), 10, memory_format=m.channels_last))[1],
    "empty channels_last": lambda m: m.empty(2, 3, 4, 5, memory_format=m.channels_last).stride(),
    "empty channels_last of 2-d": lambda m: m.empty(2, 3, memory_format=m.channels_last),
    "to channels_last": lambda m: images(m).to(memory_format=m.channels_last),
    "to channels_last is self when already so": lambda m: [
        t.to(memory_format=m.channels_last) is t
        for t in (images(m).clone(memory_format=m.channels_last),)],
    "to float64 channels_last": lambda m: images(m).to(m.float64, memory_format=m.channels_last),
    "to float64 preserve_format": lambda m: images(m).to(m.float64,
                                                         memory_format=m.preserve_format),
    "to with a string": lambda m: images(m).to(memory_format="channels_last"),
    "ops on channels_last keep it": lambda m: (
        lambda c: (c * 2, c + images(m), c.sum(1), c.relu(), c.exp()))(
        images(m).clone(memory_format=m.channels_last)),
}


@pytest.mark.parametrize("case", CASES)
def test_memory_formats_as_torch(case):
    parity.run_both(CASES[case])


@pytest.mark.parametrize("convert", ["clone", "contiguous", "to"])
def test_gradients_through_a_change_of_memory_format(convert):
    def run(m):
        x = images(m).requires_grad_()
        y = getattr(x, convert)(memory_format=m.channels_last)
        (y * images(m)).sum().backward()
        return type(y.grad_fn).__name__, x.grad
    parity.run_both(run)
