"""The layers of ``engine.nn``, one file per kind as in ``torch.nn.modules``."""
from .batchnorm import (BatchNorm1d, BatchNorm2d, InstanceNorm1d, InstanceNorm2d,
                        LazyBatchNorm1d, LazyBatchNorm2d)
from .activation import (ELU, GELU, LeakyReLU, LogSoftmax, ReLU, RReLU, Sigmoid, SiLU, Softmax,
                         Softmax2d, Softplus, Tanh)
from .activation import (CELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh,
                         LogSigmoid, Mish, PReLU, ReLU6, Softmin, Softshrink, Softsign,
                         Tanhshrink, Threshold)
from .activation_attention import MultiheadAttention
from .distance import CosineSimilarity, PairwiseDistance
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d,
                      ConstantPad2d, ConstantPad3d, ReflectionPad1d, ReflectionPad2d,
                      ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d,
                      ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, LazyConv1d, LazyConv2d
from .dropout import (AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d,
                      FeatureAlphaDropout)
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .linear import Bilinear, Identity, LazyLinear, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss,
                   NLLLoss, SmoothL1Loss)
from .loss import (CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, KLDivLoss,
                   MarginRankingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
                   MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss,
                   TripletMarginWithDistanceLoss)
from .module import Module
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
                      AvgPool1d, AvgPool2d, AvgPool3d, LPPool1d, LPPool2d, MaxPool1d, MaxPool2d,
                      MaxPool3d, MaxUnpool1d, MaxUnpool2d)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
           "Linear", "Bilinear", "Identity", "Flatten", "ReLU",
           "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Dropout", "Dropout1d",
           "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "MSELoss", "L1Loss",
           "BCELoss", "HuberLoss", "SmoothL1Loss",
           "BCEWithLogitsLoss", "CrossEntropyLoss", "NLLLoss",
           "Conv1d", "Conv2d",
           "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d",
           "MaxUnpool1d", "MaxUnpool2d", "Fold", "Unfold", "Softmax2d",
           "BatchNorm1d", "BatchNorm2d", "LayerNorm", "RMSNorm",
           "GELU", "LeakyReLU", "RReLU", "ELU", "Softplus", "SiLU", "LazyLinear", "LazyConv1d",
           "LazyConv2d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "Embedding", "EmbeddingBag",
           "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
           "Hardtanh", "ReLU6", "Hardswish", "Hardsigmoid", "SELU", "CELU", "PReLU", "GLU",
           "LogSigmoid", "Mish", "Softsign", "Tanhshrink", "Softshrink", "Hardshrink",
           "Threshold", "Softmin", "CosineSimilarity", "PairwiseDistance", "Unflatten",
           "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d",
           "CircularPad3d", "KLDivLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "SoftMarginLoss", "MultiLabelSoftMarginLoss",
           "CosineEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
           "GroupNorm", "LocalResponseNorm", "PixelShuffle",
           "PixelUnshuffle", "ChannelShuffle", "InstanceNorm1d", "InstanceNorm2d",
           "MultiheadAttention", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]
