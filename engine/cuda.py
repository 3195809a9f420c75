"""``torch.cuda``: the engine computes on the CPU only, so no GPU is ever available.

``torch.cuda.is_available()`` is how PyTorch code picks a device; here it is False, and
whatever needs a GPU raises what torch 2.15's Linux wheel raises on a machine without one
("Found no NVIDIA driver on your system ..."). A CPU-only build of torch raises
``AssertionError: Torch not compiled with CUDA enabled`` instead: the message depends on how
torch was built.
"""
import warnings

from .fidelity import messages
from .fidelity.dtypes import scalar_type_name


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def manual_seed(seed):
    """Seeding the (absent) GPU generators does nothing, as in PyTorch without CUDA."""


manual_seed_all = manual_seed


def _needs_a_gpu(*args, **kwargs):
    raise RuntimeError(messages.NO_NVIDIA_DRIVER)


current_device = get_device_name = get_device_properties = synchronize = _needs_a_gpu


def empty_cache():
    """Nothing is cached: there is no GPU memory."""


def memory_allocated(device=None):
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


class _CudaTensorType:
    """``torch.cuda.FloatTensor`` and friends: names old code still mentions; no tensor is one."""

    is_cuda = True

    def __init__(self, name):
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        warnings.warn("The torch.cuda.*DtypeTensor constructors are no longer recommended. "
                      "It's best to use methods such as torch.tensor(data, dtype=*, "
                      "device='cuda') to create tensors." + messages.TRIGGERED_IN_PYTHON_TENSOR,
                      UserWarning, stacklevel=2)
        raise RuntimeError(messages.NO_NVIDIA_DRIVER)

    def __instancecheck__(self, obj):
        return False

    def __repr__(self):
        return f"<class 'torch.cuda.{self.__name__}'>"


globals().update({f"{name}Tensor": _CudaTensorType(f"{name}Tensor")
                  for name in scalar_type_name.values()})
