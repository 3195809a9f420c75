"""engine: a small, readable re-implementation of PyTorch's tensors and autograd.

``import engine as torch`` and the code you write runs the same way it would with
PyTorch, so everything learned here transfers unchanged. Values live in numpy
arrays; the rules PyTorch adds on top (dtypes and promotion, shapes, strides and
shared memory, printing, random numbers, errors) are reproduced here and checked
against torch 2.15 by the tests in ``tests/``.

Where the engine knowingly differs from PyTorch (the CPU only, the last bit of some
float results, autograd's bookkeeping below what the lessons show ...) is listed in
one document beside the lessons: ``notebooks/DIFFERENCES.md``.

PyTorch's tutorials and d2l's chapters (up to recurrent networks) run with
``import engine as torch`` and print what torch prints, except: an import statement
(``from torch import nn``, ``import torch.nn.functional as F``) finds PyTorch itself, not
the engine: write ``nn = torch.nn``, ``F = torch.nn.functional``, or register the engine
first (``sys.modules["torch"] = engine``, then ``import torch`` and the tutorial's imports
find the engine's modules); there are no datasets or ``torchvision``: make the data with
the engine; a float32 value on a rounding boundary can print its last digit one unit
apart; ``type(x)`` says ``engine.`` where PyTorch says ``torch.``. DIFFERENCES.md's section
"Running PyTorch's tutorials" says more.
"""
import math as _math

from .fidelity.dtypes import (bool, uint8, int8, int16, int32, int64, float16,  # noqa: A004
                              float32, float64, half, float, double, short, int, long, dtype,
                              finfo, iinfo, get_default_dtype, set_default_dtype, promote_types,
                              can_cast)
from .fidelity.layout import UntypedStorage
from .fidelity.size import (Size, channels_last, channels_last_3d, contiguous_format, device,
                            legacy_contiguous_format, memory_format, preserve_format, strided)
from .fidelity.printing import set_printoptions
from .fidelity.random import Generator, default_generator, manual_seed, seed, initial_seed
from .core.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                             is_inference_mode_enabled, no_grad, set_grad_enabled)
from .core.tensor import Tensor
from .ops import methods as _methods  # (attaches x.op() and x.op_() to Tensor)
from .ops.arithmetic import *  # noqa: F401,F403  (each family lists its torch names in __all__)
from .ops.compare import *  # noqa: F401,F403
from .ops.convert import *  # noqa: F401,F403
from .ops.creation import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.inplace import *  # noqa: F401,F403
from .ops.join import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.solve import *  # noqa: F401,F403
from .ops.reduce import *  # noqa: F401,F403
from .ops.sampling import *  # noqa: F401,F403
from .ops.statistics import *  # noqa: F401,F403
from .ops.rearrange import *  # noqa: F401,F403
from .ops.structure import *  # noqa: F401,F403
from .ops.unary import *  # noqa: F401,F403
from .ops.pointwise import *  # noqa: F401,F403
from .ops.views import *  # noqa: F401,F403
from .ops.convert import TYPES as _LEGACY_TYPES
from . import random  # noqa: F401  (Generator.get_state/set_state: uint8 tensors)
from .random import get_rng_state, set_rng_state  # noqa: F401
from . import accelerator, autograd, backends, cuda, distributions, functional, linalg, nn  # noqa: F401
from . import optim, return_types, utils  # noqa: F401
from . import func  # noqa: F401  (torch.func: grad, vjp, jvp, jacrev, jacfwd, hessian, vmap ...)
from . import serialization  # noqa: F401
from . import special  # noqa: F401  (torch.special: erf, expit, logit, xlogy, gammaln ...)
from . import testing  # noqa: F401  (torch.testing: assert_close, make_tensor)
from .serialization import load, save  # noqa: F401
from . import viz  # noqa: F401
from .fidelity import tracebacks as _tracebacks  # noqa: F401  (IPython: tracebacks without engine frames)
from . import _aliasing
from ._determinism import (are_deterministic_algorithms_enabled,  # noqa: F401
                           get_deterministic_debug_mode,
                           is_deterministic_algorithms_warn_only_enabled,
                           set_deterministic_debug_mode, use_deterministic_algorithms)

_aliasing.install()  # (sys.modules["torch"] = engine: import torch.nn ... find the engine's)

globals().update(_LEGACY_TYPES)  # FloatTensor, LongTensor ...: old-style constructors
globals().update(_methods.INPLACE_FUNCTIONS)  # torch.sin_(x), torch.relu_(x) ...
# torch.set_anomaly_enabled & co: anomaly detection lives in engine.autograd.anomaly_mode
set_anomaly_enabled = autograd.anomaly_mode.set_anomaly_enabled
is_anomaly_enabled = autograd.anomaly_mode.is_anomaly_enabled
is_anomaly_check_nan_enabled = autograd.anomaly_mode.is_anomaly_check_nan_enabled
vmap = func.vmap  # torch.vmap is torch.func.vmap
# torch.dropout, torch.layer_norm, torch.kl_div ...: the nn operators under torch's C++ names
globals().update({_name: getattr(nn.torch_functions, _name)
                 for _name in nn.torch_functions.__all__})

__version__ = "0.1.0"
# torch's constants: Python floats (torch.inf is math.inf), and numpy's newaxis (None)
inf, nan, pi, e, newaxis = _math.inf, _math.nan, _math.pi, _math.e, None

# type(x) prints <class 'engine.Tensor'> (PyTorch: <class 'torch.Tensor'>), not the private module.
for _public_type in (Tensor, dtype, Size, device, Generator, UntypedStorage):
    _public_type.__module__ = "engine"
