"""GPUs and other devices against torch 2.15's Linux wheel on a machine without a GPU.

The engine computes on the CPU only. Whatever asks for a GPU raises what that torch raises
("Found no NVIDIA driver on your system ..."); what only asks whether there is one answers
as it does (``torch.cuda.is_available()`` is False). A CPU-only build of torch raises
``AssertionError: Torch not compiled with CUDA enabled`` instead (notebooks/DIFFERENCES.md
says so).
"""
import warnings

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

NEEDS_A_GPU = {
    "x.cuda()": lambda m, x: x.cuda(),
    "x.cuda(0)": lambda m, x: x.cuda(0),
    "x.to('cuda')": lambda m, x: x.to("cuda"),
    "x.to('cuda:1')": lambda m, x: x.to("cuda:1"),
    "x.to(device('cuda'))": lambda m, x: x.to(m.device("cuda")),
    "x.to('cuda', float64)": lambda m, x: x.to("cuda", m.float64),
    "zeros(device='cuda')": lambda m, x: m.zeros(2, device="cuda"),
    "tensor(device='cuda')": lambda m, x: m.tensor([1.0], device="cuda"),
    "randn(device='cuda:0')": lambda m, x: m.randn(2, device="cuda:0"),
    "x.type(cuda.FloatTensor)": lambda m, x: x.type(m.cuda.FloatTensor),
    "x.type('torch.cuda.FloatTensor')": lambda m, x: x.type("torch.cuda.FloatTensor"),
    "x.pin_memory()": lambda m, x: x.pin_memory(),
    "Linear.cuda()": lambda m, x: m.nn.Linear(2, 2).cuda(),
    "Linear.to('cuda:0')": lambda m, x: m.nn.Linear(2, 2).to("cuda:0"),
    "cuda.get_device_name(0)": lambda m, x: m.cuda.get_device_name(0),
    "cuda.current_device()": lambda m, x: m.cuda.current_device(),
    "cuda.synchronize()": lambda m, x: m.cuda.synchronize(),
}

ANSWERS = {
    "cuda.is_available()": lambda m, x: m.cuda.is_available(),
    "cuda.device_count()": lambda m, x: m.cuda.device_count(),
    "cuda.is_initialized()": lambda m, x: m.cuda.is_initialized(),
    "cuda.manual_seed(0)": lambda m, x: m.cuda.manual_seed(0),
    "cuda.empty_cache()": lambda m, x: m.cuda.empty_cache(),
    "cuda.memory_allocated()": lambda m, x: m.cuda.memory_allocated(),
    "isinstance(x, cuda.FloatTensor)": lambda m, x: isinstance(x, m.cuda.FloatTensor),
    "repr(cuda.FloatTensor)": lambda m, x: repr(m.cuda.FloatTensor),
    "x.is_cuda, x.is_pinned()": lambda m, x: (x.is_cuda, x.is_pinned()),
    "x.to('cpu') is x": lambda m, x: x.to("cpu") is x,
    "ReLU().to('cuda')": lambda m, x: repr(m.nn.ReLU().to("cuda")),  # no tensors to move
    "ReLU().cuda()": lambda m, x: repr(m.nn.ReLU().cuda()),
    "Linear.to('cpu')": lambda m, x: repr(m.nn.Linear(2, 2).to("cpu")),
    "backends.cudnn": lambda m, x: (m.backends.cudnn.enabled, m.backends.cudnn.benchmark,
                                    m.backends.cudnn.deterministic,
                                    m.backends.cudnn.is_available()),
    "backends.mps": lambda m, x: (m.backends.mps.is_available(), m.backends.mps.is_built()),
}


@pytest.mark.parametrize("call", list(NEEDS_A_GPU))
def test_what_needs_a_gpu_raises_as_torch_without_one(call):
    error, torch_error = parity.run_both(NEEDS_A_GPU[call], parity.make_tensor((2,), "float32"))
    assert isinstance(torch_error, RuntimeError) and isinstance(error, RuntimeError)
    assert str(error) == str(torch_error)


@pytest.mark.parametrize("call", list(ANSWERS))
def test_what_asks_about_gpus_answers_as_torch(call):
    parity.run_both(ANSWERS[call], parity.make_tensor((2,), "float32"))


def test_the_old_cuda_constructors_warn_then_raise_as_torch():
    seen = {}
    for m in (torch, __import__("engine")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError) as raised:
                m.cuda.FloatTensor(2)
        seen[m.__name__] = ([str(w.message) for w in caught], str(raised.value))
    assert seen["engine"] == seen["torch"]


def test_import_backends_cudnn_as_tutorials_do():
    import engine.backends.cudnn as cudnn
    cudnn.benchmark = True
    try:
        import engine
        assert engine.backends.cudnn.benchmark is True
    finally:
        cudnn.benchmark = False
