"""Dropout layers: zero random elements (or whole channels) while training; identity in eval."""
from .. import functional as F
from .module import Module


class _DropoutNd(Module):
    """The probability ``p`` and ``inplace`` that every dropout layer keeps."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Each element is zeroed with probability ``p`` in training mode; identity in eval mode."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Each channel (input[n, c, :]) is zeroed with probability ``p`` in training mode."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Each channel (input[n, c, :, :]) is zeroed with probability ``p`` in training mode."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Each channel (input[n, c, :, :, :]) is zeroed with probability ``p`` in training mode."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout for SELU networks (keeps mean and variance); torch ignores ``inplace`` here."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout of whole channels; torch ignores ``inplace`` here too."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
