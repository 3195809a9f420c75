"""engine: a small, readable re-implementation of PyTorch's tensors and autograd.

``import engine as torch`` and the code you write runs the same way it would with
PyTorch, so everything learned here transfers unchanged. Values live in numpy
arrays; the rules PyTorch adds on top (dtypes and promotion, shapes, strides and
shared memory, printing, random numbers, errors) are reproduced here and checked
against torch 2.15 by the tests in ``tests/``.

Where the engine knowingly differs from PyTorch:

* Only the CPU and the dtypes bool, uint8, int8, int16, int32, int64, float16,
  float32 and float64 exist (no complex, bfloat16 or wider unsigned integers).
  Asking for a GPU raises what torch 2.15's Linux install raises on a machine without
  one (``RuntimeError: Found no NVIDIA driver on your system ...``); a torch built
  without GPU support says ``AssertionError: Torch not compiled with CUDA enabled``.
* Warnings torch raises from its C++ code end with the source line that raised them,
  ``(Triggered internally at .../TensorBody.h:488.)``; that line changes with every torch
  build, and the engine prints the one of torch 2.15's Linux wheel.
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
  bit (torch splits them across threads). A third derivative of ``lgamma`` (which needs
  ``polygamma``) raises instead of being computed.
* ``engine.utils.data``: everything runs in the calling process. ``num_workers > 0``
  starts no worker processes (map-style datasets give torch's batches all the same;
  ``get_worker_info()`` is always None, so an ``IterableDataset`` is not split among
  workers, and random numbers drawn inside a dataset come from the main generator).
  No ``ChainDataset``, ``StackDataset`` or ``DistributedSampler``.
* ``engine.distributions`` has Normal, Uniform, Bernoulli, Categorical and Multinomial
  (no KL divergences or transforms). ``Normal.cdf`` / ``icdf`` raise (no ``erf``,
  ``erfinv``).
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
  differentiate it; a view made before its base was set to require grad
  (``z = x.t(); x.requires_grad_()``) keeps ``requires_grad=False`` (torch's follows the
  base, although no gradient reaches the view or the base through it); when four or more
  leaves become ready at once, their hooks may fire in another order than torch's;
  ``nll_loss`` / ``cross_entropy`` of one sample (1-d input) with a 1-element target
  differentiate, where torch's
  backward refuses that target ("size mismatch"). A leaf's first gradient is always
  copied into ``.grad`` (version 0, memory of its own); torch adopts a gradient that
  nothing else holds instead, and copies one that is held elsewhere or laid out
  differently (then ``.grad._version`` is 1).
* ``torch.linalg.svd`` / ``torch.svd``: singular vectors are unique only up to sign, and
  numpy's LAPACK and torch's (MKL) choose the signs differently for some matrices, so U and
  Vh may be -U and -Vh of torch's (S, and U @ diag(S) @ Vh, agree to rounding).
  ``torch.unique`` always sorts (torch's CPU kernel does too, except for some inputs with
  ``sorted=False``). ``take_along_dim`` checks its indices (torch reads out of bounds).
  ``with torch.device(...)`` is not a context manager here.
* engine.nn: float32 values of conv1d/conv2d (torch's oneDNN kernel adds the products
  in its own order), layer_norm (torch's vectorised Welford sums) and gelu, elu, softplus,
  silu (torch's vectorised exp/erf/tanh) agree with torch's within the last bits; pooling,
  batch_norm and leaky_relu are bit for bit. batch_norm of (N, C) input in training mode
  adds its rows as torch does on one thread (torch, on several, splits them: last bit).
  Image tensors laid out channels-last (``x.permute(0, 3, 1, 2)`` of NHWC data) give
  row-major results from conv2d (torch keeps channels-last). F.pad has only
  mode='constant', so Conv padding_mode other than 'zeros' raises NotImplementedError. The
  second derivative of a convolution is built from unfold/fold and matrix products (torch:
  one ConvolutionBackwardBackward0 node); NativeLayerNormBackward0 also keeps ``eps``.
* Anomaly detection (``detect_anomaly``): its warnings point at the learner's
  ``backward()`` line (torch's at its own autograd/graph.py), and the recorded forward
  tracebacks leave out the engine's frames below the learner's line (torch's show a few
  frames of its Python code, e.g. inside ``autograd.grad``); a leaf's AccumulateGrad node
  records no traceback.
* Inference tensors (made inside ``inference_mode``) used outside it: torch treats them op
  by op (from a leaf that requires grad some ops record a graph and others silently do not;
  some results start at ``_version`` 1); the engine treats them there as ordinary tensors
  (their views are inference tensors too), except for what torch refuses clearly (changing
  one in place, saving one for backward). Refusing an in-place change, torch has
  already written the new values; the engine refuses before writing. ``.data`` and
  ``detach()`` of one are inference tensors that (in torch only) count versions.
* Autograd's bookkeeping, below what lessons show: with ``create_graph=True`` a gradient's
  graph is built from ordinary ops (``MulBackward0`` ...), not torch's dedicated
  double-backward nodes (``SigmoidBackwardBackward0`` ...; values agree); float16 backward
  formulas round after every step (torch computes each in float32 and rounds once: last
  bits); gradients made by backward formulas can have another ``_version`` (torch counts the
  in-place steps inside each formula); abs's second derivative has ordinary zeros where
  torch has a ZeroTensor (whose ``tolist()`` raises); ``retain_grad`` keeps the gradient
  as it arrives (torch keeps a row-major copy), and after an in-place change of the tensor
  it stays on the tensor's old node (torch moves it to the new one); a write into an
  expanded view of a graph tensor (``b = w.expand(...); b[:, 1] = 0``) gives a backward
  that adds the repeated places' gradients, where torch's refuses to write them; writing a
  tensor that requires grad into an integer tensor (``w[0] = z``) records nothing, as for
  any integer result (torch records it, and the integer tensor then requires grad).
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
from .fidelity.size import (Size, channels_last, channels_last_3d, contiguous_format, device,
                            memory_format, preserve_format, strided)
from .fidelity.printing import set_printoptions
from .fidelity.random import (Generator, default_generator, manual_seed, seed, initial_seed,
                              get_rng_state, set_rng_state)
from .core.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                             is_inference_mode_enabled, no_grad, set_grad_enabled)
from .core.tensor import Tensor
from .ops import methods as _methods  # (attaches x.op() and x.op_() to Tensor)
from .ops.arithmetic import *  # noqa: F401,F403  (each family lists its torch names in __all__)
from .ops.compare import *  # noqa: F401,F403
from .ops.convert import *  # noqa: F401,F403
from .ops.creation import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.join import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.reduce import *  # noqa: F401,F403
from .ops.sampling import *  # noqa: F401,F403
from .ops.unary import *  # noqa: F401,F403
from .ops.views import *  # noqa: F401,F403
from .ops.convert import TYPES as _LEGACY_TYPES
from . import random  # noqa: F401
from . import autograd, backends, cuda, distributions, linalg, nn, optim, utils  # noqa: F401
from . import viz  # noqa: F401
from .fidelity import tracebacks as _tracebacks  # noqa: F401  (IPython: tracebacks without engine frames)

globals().update(_LEGACY_TYPES)  # FloatTensor, LongTensor ...: old-style constructors
globals().update(_methods.INPLACE_FUNCTIONS)  # torch.sin_(x), torch.relu_(x) ...
# torch.set_anomaly_enabled & co: anomaly detection lives in engine.autograd.anomaly_mode
set_anomaly_enabled = autograd.anomaly_mode.set_anomaly_enabled
is_anomaly_enabled = autograd.anomaly_mode.is_anomaly_enabled
is_anomaly_check_nan_enabled = autograd.anomaly_mode.is_anomaly_check_nan_enabled

__version__ = "0.1.0"

# type(x) prints <class 'engine.Tensor'> (PyTorch: <class 'torch.Tensor'>), not the private module.
for _public_type in (Tensor, dtype, Size, device, Generator, UntypedStorage):
    _public_type.__module__ = "engine"
