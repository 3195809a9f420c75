"""Fuzz round twenty-two (seeds 7000000 and on, pinned to AVX2, the nn_recent and half
families) against torch 2.15.

- interpolate's size that is not an int (``size=2.0``, ``size=True``, a float tensor) or a
  scale factor that is a tensor: torch._C._nn's parser refuses it (an invalid combination of
  arguments: it reads the first element of a list only), where the engine truncated the size
  (fuzz 7000222: ``nn.UpsamplingBilinear2d(size=0.1)``).
- bicubic's gradient of a channels-last input is row-major, as torch's backward kernel
  writes it (fuzz 7000347: the engine kept the incoming gradient's channels-last layout).
- batch_norm (float32, float64) and group_norm of a channels-last input: the result and the
  input's gradient stay channels-last, as torch's kernels write them (fuzz 7000307, 7000004).
"""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


def _outcome(m, code):
    """The shape of what ``code`` gives, or its error's type and whole message."""
    scope = {"torch": m, "F": m.nn.functional, "x": m.ones(1, 2, 3, 3)}
    try:
        return tuple(eval(code, scope).shape)  # noqa: S307 - the same code for both libraries
    except Exception as error:  # noqa: BLE001 - comparing what each library raises
        return type(error).__name__, str(error)


@pytest.mark.parametrize("code", [
    "F.interpolate(x, size=2.0)", "F.interpolate(x, size=0.1)",
    "F.interpolate(x, size=2.5, mode='bilinear')", "F.interpolate(x, size=2.0, mode='bicubic')",
    "F.interpolate(x, size=2.0, mode='bicubic', align_corners=True)",
    "F.interpolate(x[0], size=True, mode='nearest-exact')",
    "F.interpolate(x[None], size=2.0, mode='trilinear')",
    "F.interpolate(x[0], size=1.5, mode='linear', align_corners=True)",
    "F.interpolate(x, size=torch.tensor(2.5))", "F.interpolate(x, size=torch.tensor(3))",
    "F.interpolate(x, scale_factor=torch.tensor(2.))",
    "F.interpolate(x, scale_factor=(torch.tensor(2.), 2))",
    "F.interpolate(x, scale_factor=(2, torch.tensor(2)))", "F.interpolate(x, scale_factor=True)",
    "F.interpolate(x, size=(torch.tensor(2), 3))", "F.interpolate(x, size=2.0, mode='area')",
    "F.upsample_bilinear(x, size=0.1)", "torch.nn.UpsamplingBilinear2d(size=0.1)(x)",
    "torch.nn.Upsample(2.0)(x)", "torch.nn.UpsamplingNearest2d(size=1.5)(x)",
    "F.upsample(x, 2.0, None, 'bilinear')",
])
def test_a_resize_to_a_size_that_is_not_an_int_is_refused_by_the_parser(code):
    assert _outcome(engine, code) == _outcome(torch, code)


def _layouts(m, run, dtype, shape, layout, incoming):
    """The strides of ``run``'s result and of its input's gradient, and their values."""
    gen = m.Generator().manual_seed(0)
    x = m.randn(shape, generator=gen, dtype=getattr(m, dtype))
    if layout:
        x = x.contiguous(memory_format=getattr(m, layout))
    x.requires_grad_()
    y = run(m, x)
    grad = {"ones_like": lambda: m.ones_like(y), "row_major": lambda: m.ones(y.shape,
                                                                               dtype=y.dtype),
            "channels_last": lambda: m.ones(y.shape, dtype=y.dtype).contiguous(
                memory_format=getattr(m, CHANNELS_LAST[len(shape)]))}[incoming]()
    g, = m.autograd.grad(y, x, grad)
    return y.stride(), g.stride(), y.detach().double().tolist(), g.double().tolist()


CHANNELS_LAST = {4: "channels_last", 5: "channels_last_3d"}


@pytest.mark.parametrize("incoming", ["ones_like", "row_major", "channels_last"])
@pytest.mark.parametrize("shape", [(2, 4, 3, 5), (1, 4, 2, 3), (2, 4, 3, 1, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", [
    lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True),
    lambda m, x: m.nn.functional.batch_norm(x, m.zeros(4, dtype=x.dtype),
                                            m.ones(4, dtype=x.dtype), training=False),
    lambda m, x: m.nn.functional.group_norm(x, 2, m.linspace(0.5, 2, 4, dtype=x.dtype)),
    lambda m, x: m.nn.functional.group_norm(x, 4),
], ids=["batch_norm_train", "batch_norm_eval", "group_norm_affine", "group_norm"])
@pytest.mark.parametrize("layout", [None, "cl"])
def test_norms_of_a_channels_last_input_stay_channels_last(op, dtype, shape, incoming, layout):
    layout = layout and CHANNELS_LAST[len(shape)]
    found, expected = (_layouts(m, op, dtype, shape, layout, incoming) for m in (engine, torch))
    assert found[:2] == expected[:2]
    # (the values: within the last bits, documented: "float32 values")
    for got, want in zip(found[2:], expected[2:]):
        assert torch.allclose(torch.tensor(got), torch.tensor(want), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("incoming", ["ones_like", "row_major", "channels_last"])
@pytest.mark.parametrize("mode", ["bicubic", "bilinear", "nearest", "nearest-exact", "area"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_a_resize_gradient_is_laid_out_as_torchs_backward_kernel_writes_it(mode, dtype,
                                                                           incoming):
    def run(m, x):
        return m.nn.functional.interpolate(x, size=(5, 3), mode=mode)

    found, expected = (_layouts(m, run, dtype, (1, 4, 3, 4), "channels_last", incoming)
                       for m in (engine, torch))
    assert found[:2] == expected[:2]


@pytest.mark.parametrize("code", [
    "F.fold(torch.ones(1, 9, 1), (1, 1), 3)", "F.fold(torch.ones(9, 1), 1, 3)",
    "F.fold(torch.ones(1, 9, 4), (1, 1), 3)", "F.fold(torch.ones(1, 4, 1), (2, 1), 2)",
    "F.fold(torch.ones(1, 4, 1), (1, 3), (1, 4), padding=(0, 1))",
    "torch.nn.Fold((2, 2), 3, padding=0)(torch.ones(1, 9, 1))",
])
def test_fold_of_too_few_sliding_blocks_is_refused(code):
    """fuzz 7001391: -1 x -1 blocks pass the count's check (1 column); torch's next check
    refuses their shape, where the engine crashed (numpy's reshape)."""
    assert _outcome(engine, code) == _outcome(torch, code)


@pytest.mark.parametrize("code", [
    "F.instance_norm(torch.ones(0, 3, 4), None, None, torch.ones(3), torch.zeros(3))",
    "F.instance_norm(torch.ones(0, 3, 4), None, None, None, torch.zeros(3))",
    "F.instance_norm(torch.ones(0, 3, 4))", "F.batch_norm(torch.ones(0, 3), None, None, "
    "torch.ones(0), torch.ones(0), training=True)",
    "F.batch_norm(torch.ones(0, 3), None, None, torch.ones(3), torch.ones(3), training=True)",
])
def test_an_empty_batch_norm_takes_the_first_weight_by_select(code):
    """fuzz 7000860: torch's answer for an empty input multiplies by weight[0] in C++ (select:
    its IndexError's words when the repeated weight is empty too)."""
    assert _outcome(engine, code) == _outcome(torch, code)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["row_major", "channels_last"])
@pytest.mark.parametrize("scale, align_corners", [(1.25, False), (1.25, True), (1.0, False),
                                                  (1.4, False)])
def test_bicubic_gradient_of_the_inputs_size_is_copied(dtype, layout, scale, align_corners):
    """fuzz 7033595: a scale that rounds the size down to the input's (2 x 3 at 1.25): torch's
    forward resamples, its backward kernel copies the gradient (all ones for a sum); the
    engine gave the forward's derivative."""
    def run(m):
        m.manual_seed(0)
        x = m.randn(2, 1, 2, 3, dtype=getattr(m, dtype))
        if layout == "channels_last":
            x = x.contiguous(memory_format=m.channels_last)
        x.requires_grad_()
        y = m.nn.functional.interpolate(x, None, scale, "bicubic", align_corners)
        m.manual_seed(1)
        g, = m.autograd.grad(y, x, m.randn(y.shape, dtype=y.dtype))
        return y.detach().numpy(), g.numpy(), g.stride()
    got, expected = run(engine), run(torch)
    assert got[2] == expected[2]
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("make", [
    "torch.ones(2, 2, 2, 2, dtype=torch.float16).to(memory_format=torch.channels_last)",
    "torch.ones(2, 1, 2, 2, dtype=torch.float16).to(memory_format=torch.channels_last)",
    "torch.ones(2, 2, 2, 2, 2, dtype=torch.float64).to(memory_format=torch.channels_last_3d)",
    "torch.ones(2, 1, 2, 2, dtype=torch.float16)", "torch.ones(2, 4, dtype=torch.float64)",
    "torch.ones(4, 2, dtype=torch.float16).t()",
    "torch.ones(2, 2, 2, 2, dtype=torch.float16).permute(0, 2, 3, 1)",
])
def test_rms_norm_warns_of_mixed_dtypes_only_on_its_way_to_the_fused_kernel(make):
    """fuzz 5029697: a channels-last input takes torch's composite path, which does not warn
    of a float32 weight (the warning is once per process: each case in a fresh one)."""
    code = ("import warnings, torch\n"
            f"x = {make}\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always')\n"
            "    y = torch.nn.functional.rms_norm(x, (x.shape[-1],), torch.ones(x.shape[-1]))\n"
            "print(y.dtype, [str(w.message)[:60] for w in caught])\n")
    expected, got = parity.printed_in_fresh_interpreters(code)
    assert got == expected


@pytest.mark.parametrize("code", [
    "torch.tensordot(y.cummin(0), y, dims=([0], [0]))", "torch.tensordot(y, 3, dims=1)",
    "torch.tensordot([1.], y, dims=0)", "torch.tensordot(y, y.cummin(0), dims=([0], [0]))",
    "torch.tensordot(y.cummin(0), y, dims=2)", "torch.tensordot(y.cummin(0), y, dims=-1)",
    "torch.tensordot(y, y, dims=([0], [0]), out=3)", "torch.tensordot(3, y, dims=([0], ['a']))",
    "torch.tensordot(y, y, dims=([0], ['a']))",
])
def test_tensordot_of_what_is_not_a_tensor(code):
    """fuzz 5022703: with lists of dims torch's parser names the argument that is no tensor
    (a torch.return_types.cummin); with a number of dims its Python asks a.dim() first."""
    def outcome(m):
        try:
            return tuple(eval(code, {"torch": m, "y": m.ones(2, 3)}).shape)  # noqa: S307
        except Exception as error:  # noqa: BLE001 - comparing what each library raises
            return type(error).__name__, str(error)
    assert outcome(engine) == outcome(torch)
