"""``torch.accelerator``: the device-agnostic way new tutorials pick a device.

The engine computes on the CPU only. As torch 2.15's Linux (CUDA) wheel on a machine without a
GPU: ``is_available()`` is False, ``device_count()`` 0, ``current_accelerator()`` names the
accelerator the build was made for (``device(type='cuda')``; None with
``check_available=True``), and whatever needs the device raises "Found no NVIDIA driver ...".
So ``torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else
"cpu"`` gives "cpu".
"""
from .fidelity import messages
from .fidelity.size import device


def is_available():
    return False


def device_count():
    return 0


def current_accelerator(check_available=False):
    """The accelerator type this build targets (None when ``check_available`` and absent)."""
    return None if check_available else device("cuda")


def _needs_a_gpu(*args, **kwargs):
    raise RuntimeError(messages.NO_NVIDIA_DRIVER)


current_device_index = current_device_idx = set_device_index = set_device_idx = _needs_a_gpu
synchronize = current_stream = set_stream = _needs_a_gpu

__all__ = ["is_available", "device_count", "current_accelerator", "current_device_index",
           "current_device_idx", "set_device_index", "set_device_idx", "synchronize",
           "current_stream", "set_stream"]
