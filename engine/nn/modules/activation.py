"""Activation layers: each one calls its ``engine.nn.functional`` counterpart."""
from .. import functional as F
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


class LogSoftmax(Module):
    """out = log(softmax(input)) along ``dim``, computed stably"""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"
