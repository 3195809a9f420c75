"""Activation layers: each one calls its ``engine.nn.functional`` counterpart."""
import warnings

from ...ops.creation import empty
from .. import functional as F
from ..init import constant_
from ..parameter import Parameter
from .module import Module


class ReLU(Module):
    """out = max(input, 0)"""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """out = 1 / (1 + exp(-input))"""

    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """out = tanh(input)"""

    def forward(self, input):
        return F.tanh(input)


class Softmax(Module):
    """out = exp(input) / sum(exp(input)) along ``dim``"""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """out = softmax over the channels at each place of an image: (N, C, H, W) or (C, H, W),
    dim -3"""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)


class LogSoftmax(Module):
    """out = log(softmax(input)) along ``dim``, computed stably"""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """out = x * P(Z <= x) for a standard normal Z (approximate='tanh': torch's tanh formula)"""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class LeakyReLU(Module):
    """out = x where x > 0, else negative_slope * x"""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace_str}"


class RReLU(Module):
    """out = x where x > 0, else a * x: a drawn uniformly in [lower, upper) for each element
    when training, (lower + upper) / 2 in eval mode"""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace_str}"


class ELU(Module):
    """out = x where x > 0, else alpha * (exp(x) - 1)"""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace_str}"


class Softplus(Module):
    """out = log(1 + exp(beta * x)) / beta (x itself where beta * x > threshold)"""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class SiLU(Module):
    """out = x * sigmoid(x)"""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


def _inplace_text(inplace, first=True):
    """torch's extra_repr part for inplace=True (after a comma unless it comes first)"""
    if not inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class Hardtanh(Module):
    """out = min(max(input, min_val), max_val)"""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val "
                                 f"({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + _inplace_text(
            self.inplace, first=False)


class ReLU6(Hardtanh):
    """out = min(max(input, 0), 6)"""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_text(self.inplace)


class Hardswish(Module):
    """out = x * min(max(x + 3, 0), 6) / 6 (torch prints no inplace=True for this one)"""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Hardsigmoid(Hardswish):
    """out = min(max(x + 3, 0), 6) / 6"""

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class SELU(Module):
    """out = scale * elu(x, alpha), torch's fixed scale and alpha"""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return _inplace_text(self.inplace)


class Mish(SELU):
    """out = x * tanh(softplus(x))"""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class CELU(Module):
    """out = x where x > 0, else alpha * (exp(x / alpha) - 1)"""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + _inplace_text(self.inplace, first=False)


class PReLU(Module):
    """out = x where x > 0, else weight * x; the weight (one slope, or one per channel)
    is learned, starting at ``init``"""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class GLU(Module):
    """out = a * sigmoid(b), a and b the halves of the input along ``dim``"""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSigmoid(Module):
    """out = log(sigmoid(x))"""

    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    """out = x / (1 + |x|)"""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """out = x - tanh(x)"""

    def forward(self, input):
        return F.tanhshrink(input)


class Softshrink(Module):
    """out = x -+ lambd outside [-lambd, lambd], 0 inside"""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Softshrink):
    """out = x outside [-lambd, lambd], 0 inside"""

    def forward(self, input):
        return F.hardshrink(input, self.lambd)


class Threshold(Module):
    """out = value where x <= threshold, else x"""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + _inplace_text(
            self.inplace, first=False)


class Softmin(Module):
    """out = softmax(-input) along ``dim``"""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"
