"""engine: a small, readable re-implementation of PyTorch's tensors and autograd.

``import engine as torch`` and the code you write runs the same way it would with
PyTorch, so everything learned here transfers unchanged. Values live in numpy
arrays; the rules PyTorch adds on top (dtypes and promotion, shapes, strides and
shared memory, printing, random numbers, errors) are reproduced here and checked
against torch 2.13 by the tests in ``tests/``.

Where the engine knowingly differs from PyTorch:

* Only the CPU and the dtypes bool, uint8, int8, int16, int32, int64, float16,
  float32 and float64 exist (no complex, bfloat16 or wider unsigned integers).
* Reductions (sum, mean, std, norm ...), matrix products and the transcendental
  functions (exp, log, sin ...) can differ from torch in the last bit: numpy adds
  in another order and uses another math library. (``sum()`` and ``mean()`` of a
  whole float32/float64 tensor of up to 32,768 elements add in torch's order.)
  In float32: exp, log, sin, cos and tanh come from Intel MKL in torch, whose
  algorithms are not public; the engine returns the correctly rounded value, which is
  MKL's for 93% (log near 1) to 99.9% (tanh) of inputs, always within an ulp of it.
  sigmoid and pow (and the gradients of tanh and sigmoid) are torch's bits, which
  depend on each element's position: torch's vectorised loop computes steps of 32
  floats (AVX-512; 16 with AVX2 or ``ATEN_CPU_CAPABILITY=avx2``/``default``) with SLEEF
  and the rest of each row with the C library (glibc), and splits tensors of 32,768
  elements or more between its threads (the engine counts them as torch does, from
  ``OMP_NUM_THREADS``/``MKL_NUM_THREADS``, else the physical cores, which only Linux
  tells the engine: elsewhere it counts the CPUs). On ARM (no MKL in torch; NEON's
  8-float steps; macOS's own C library) these are best effort. See
  ``engine/fidelity/float32_math.py``.
* Random numbers match torch bit for bit on x86 CPUs with AVX2 (torch's own
  values differ on other CPUs); ranges over 32,768 elements may differ in the last
  bit (torch splits them across threads).
* ``type(x)`` is ``engine.Tensor``, not ``torch.Tensor``; dtypes and sizes print
  as torch's (``torch.float32``, ``torch.Size([2])``), because learners compare
  outputs with PyTorch.
* An elementwise result whose input has unusual strides only on dimensions of
  size 0 or 1 is laid out row-major (torch keeps the input's order there);
  ``from_numpy`` of an empty array takes the usual strides (torch keeps numpy's 0s);
  a reduction over a dimension of a non-contiguous tensor (``x.transpose(1, 2).sum(0)``)
  keeps numpy's order of the remaining dimensions (torch's result is row-major).
* Autograd: a second derivative (``create_graph=True``) through an in-place write
  into a view of a graph tensor (CopySlices) raises a clear error, where torch can
  differentiate it; views made inside ``inference_mode`` of ordinary tensors report
  ``requires_grad=False``; when four or more leaves become ready at once, their
  hooks may fire in another order than torch's; ``nll_loss`` / ``cross_entropy`` of
  one sample (1-d input) with a 1-element target differentiate, where torch's
  backward refuses that target ("size mismatch"). A leaf's first gradient is always
  copied into ``.grad`` (version 0, memory of its own); torch adopts a gradient that
  nothing else holds instead, and copies one that is held elsewhere or laid out
  differently (then ``.grad._version`` is 1).
* Tracebacks: in IPython and Jupyter an error the engine raises on purpose (torch's
  error, torch's message) is shown without the engine's frames, as torch's C++ errors
  show none (torch shows 2-3 frames of its Python code for a failed ``backward``); the
  learner's own frames (cells, modules, hooks, ``autograd.Function``) always stay, and an
  unexpected error inside the engine (a bug) keeps every frame. ``%xmode --show`` shows
  the engine's frames (``%tb`` re-shows the last error); plain Python and pytest show
  them always. See ``engine/fidelity/tracebacks.py``.
"""
from .fidelity.dtypes import (bool, uint8, int8, int16, int32, int64, float16,  # noqa: A004
                              float32, float64, half, float, double, short, int, long, dtype,
                              finfo, iinfo, get_default_dtype, set_default_dtype, promote_types,
                              can_cast)
from .fidelity.layout import UntypedStorage
from .fidelity.size import Size, device, strided
from .fidelity.printing import set_printoptions
from .fidelity.random import (Generator, default_generator, manual_seed, seed, initial_seed,
                              get_rng_state, set_rng_state)
from .core.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                             is_inference_mode_enabled, no_grad, set_grad_enabled)
from .core.tensor import Tensor
from .ops import methods as _methods  # noqa: F401  (attaches x.op() and x.op_() to Tensor)
from .ops.arithmetic import *  # noqa: F401,F403  (each family lists its torch names in __all__)
from .ops.compare import *  # noqa: F401,F403
from .ops.convert import *  # noqa: F401,F403
from .ops.creation import *  # noqa: F401,F403
from .ops.join import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.reduce import *  # noqa: F401,F403
from .ops.unary import *  # noqa: F401,F403
from .ops.views import *  # noqa: F401,F403
from .ops.convert import TYPES as _LEGACY_TYPES
from . import random  # noqa: F401
from . import autograd, cuda, nn, optim, viz  # noqa: F401
from .fidelity import tracebacks as _tracebacks  # noqa: F401  (IPython: tracebacks without engine frames)

globals().update(_LEGACY_TYPES)  # FloatTensor, LongTensor ...: old-style constructors

__version__ = "0.1.0"

# type(x) prints <class 'engine.Tensor'> (PyTorch: <class 'torch.Tensor'>), not the private module.
for _public_type in (Tensor, dtype, Size, device, Generator, UntypedStorage):
    _public_type.__module__ = "engine"
