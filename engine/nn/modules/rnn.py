"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` (whole sequences, several layers, both
directions) and their one-step cells ``RNNCell``, ``LSTMCell``, ``GRUCell``.

The layers run each layer and direction as torch does on the CPU (``functional_rnn``): a
float32 LSTM on padded input as one oneDNN-like node, everything else step by step with
engine operations in torch's order; the cells are such compositions too, so their nodes are
torch's (``UnsafeSplitBackward0``, ``MulBackward0``, ``AddBackward0`` ...).
"""
import math
import numbers
import warnings

from ...fidelity import dtypes
from ...ops import creation, join
from .. import functional as F
from .. import init
from ..functional_rnn import native_layer, native_packed_layer, rnn_layer, uses_one_node
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


class RNNBase(Module):
    """What RNN, LSTM and GRU share: their parameters (weight_ih_l0, weight_hh_l0, bias_ih_l0,
    bias_hh_l0, ... with ``_reverse`` for the second direction), checks and printing."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or \
                isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else \
                    real_hidden_size * num_directions
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input_size)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden_size))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for pattern, shape in shapes:
                    name = pattern.format(layer, suffix)
                    setattr(self, name, Parameter(creation.empty(shape, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        """torch's start: every parameter uniform in +-1/sqrt(hidden_size), in order."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """(cuDNN's weight layout: nothing to do on the CPU)"""

    @property
    def _flat_weights(self):
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    # ------------------------------------------------------------ checks
    def check_input(self, input, batch_sizes):
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or "
                             f"convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got "
                               f"{input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg="Expected hidden size {}, got {}"):
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    # ------------------------------------------------------------ the layers
    def _run(self, input, hx, cx, batch_sizes):
        """All layers, both directions: torch's _VF.lstm / gru / rnn_tanh on the CPU.
        Returns the output and each (layer, direction)'s final h (and c), stacked."""
        if self.batch_first and batch_sizes is None:
            input = input.transpose(0, 1)
        directions = 2 if self.bidirectional else 1
        per_layer = len(self._flat_weights_names) // (self.num_layers * directions)
        one_node = uses_one_node(self.mode, input.dtype, batch_sizes, self.proj_size)
        if not one_node:  # torch's composite code takes each layer's states so
            states = hx.unbind(0) if cx is None else list(zip(hx.unbind(0), cx.unbind(0)))
        hs, cs = [], []
        layer_input = input
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                names = self._flat_weights_names[index * per_layer:(index + 1) * per_layer]
                params = dict(zip((n.split("_l")[0] for n in names),
                                  (getattr(self, n) for n in names)))
                weights = (params["weight_ih"], params["weight_hh"], params.get("bias_ih"),
                           params.get("bias_hh"), params.get("weight_hr"))
                if one_node:
                    result = rnn_layer(self.mode, layer_input, weights, hx[index],
                                       None if cx is None else cx[index], batch_sizes,
                                       reverse=direction == 1)
                elif batch_sizes is None:
                    output, state = native_layer(self.mode, layer_input, weights,
                                                 states[index], reverse=direction == 1)
                    result = (output, *state) if cx is not None else (output, state)
                else:
                    output, state = native_packed_layer(self.mode, layer_input, batch_sizes,
                                                        weights, states[index],
                                                        reverse=direction == 1)
                    result = (output, *state) if cx is not None else (output, state)
                outputs.append(result[0])
                hs.append(result[1])
                if cx is not None:
                    cs.append(result[2])
            layer_output = outputs[0] if directions == 1 else join.cat(outputs, -1)
            if self.dropout != 0 and self.training and layer < self.num_layers - 1:
                layer_output = F.dropout(layer_output, self.dropout, True)
            layer_input = layer_output
        output = layer_input
        if self.batch_first and batch_sizes is None:
            # torch's LSTM transposes its result; its GRU and RNN transpose in place
            # (TransposeBackward1)
            output = output.transpose(0, 1) if self.mode == "LSTM" else \
                output.transpose_(0, 1)
        h_n = join.stack(hs, 0)
        return (output, h_n, join.stack(cs, 0)) if cx is not None else (output, h_n)

    def _zeros(self, input, max_batch_size, size):
        directions = 2 if self.bidirectional else 1
        return creation.zeros(self.num_layers * directions, max_batch_size, size,
                              dtype=input.dtype)


class RNN(RNNBase):
    """h_t = tanh(x_t W_ih^T + b_ih + h_(t-1) W_hh^T + b_hh) (or relu), layer after layer."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return _single_state_forward(self, "RNN", input, hx)


class GRU(RNNBase):
    """Gated recurrent unit layers: h' = (1 - z) * n + z * h (see functional_rnn)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return _single_state_forward(self, "GRU", input, hx)


def _single_state_forward(module, name, input, hx):
    """RNN's and GRU's forward (one state tensor h), torch's checks in torch's order."""
    if isinstance(input, PackedSequence):
        input, batch_sizes, sorted_indices, unsorted_indices = input
        if hx is None:
            hx = module._zeros(input, int(batch_sizes[0]), module.hidden_size)
        else:
            hx = module.permute_hidden(hx, sorted_indices)
        module.check_forward_args(input, hx, batch_sizes)
        output, hidden = module._run(input, hx, None, batch_sizes)
        return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                module.permute_hidden(hidden, unsorted_indices))
    if input.dim() not in (2, 3):
        if name == "RNN":
            raise ValueError(f"RNN: Expected input to be 2D or 3D, got {input.dim()}D tensor "
                             "instead")
        raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
    is_batched = input.dim() == 3
    batch_dim = 0 if module.batch_first else 1
    if not is_batched:
        input = input.unsqueeze(batch_dim)
        if hx is not None:
            if hx.dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                                   f"{hx.dim()}-D tensor")
            hx = hx.unsqueeze(1)
    elif hx is not None and hx.dim() != 3:
        raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D "
                           "tensor")
    max_batch_size = input.size(0) if module.batch_first else input.size(1)
    if hx is None:
        hx = module._zeros(input, max_batch_size, module.hidden_size)
    module.check_forward_args(input, hx, None)
    output, hidden = module._run(input, hx, None, None)
    if not is_batched:
        output = output.squeeze(batch_dim)
        hidden = hidden.squeeze(1)
    return output, hidden


_warned_about_projections = []


def _warn_projections_once():
    """torch warns once per process when a float32 LSTM with projections cannot use oneDNN
    (padded input only: packed input never tries oneDNN)."""
    if not _warned_about_projections:
        _warned_about_projections.append(True)
        warnings.warn("LSTM with projections is not supported with oneDNN. Using default "
                      "implementation. (Triggered internally at /__w/pytorch/pytorch/aten/src/"
                      "ATen/native/RNN.cpp:1603.)", UserWarning, stacklevel=2)


class LSTM(RNNBase):
    """Long short-term memory layers: a cell state c carried beside h (see functional_rnn);
    ``proj_size`` projects h to a smaller size."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return (_apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation))

    def forward(self, input, hx=None):
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                hx = (self._zeros(input, max_batch_size, real_hidden_size),
                      self._zeros(input, max_batch_size, self.hidden_size))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
            self.check_forward_args(input, hx, batch_sizes)
            output, h_n, c_n = self._run(input, hx[0], hx[1], batch_sizes)
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden((h_n, c_n), unsorted_indices))
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        max_batch_size = input.size(0) if self.batch_first else input.size(1)
        if hx is None:
            hx = (self._zeros(input, max_batch_size, real_hidden_size),
                  self._zeros(input, max_batch_size, self.hidden_size))
        else:
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but "
                                       f"got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D "
                                       f"but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        if self.proj_size > 0 and input.dtype == dtypes.float32:
            _warn_projections_once()  # (attributed to this line, as torch names its rnn.py)
        output, h_n, c_n = self._run(input, hx[0], hx[1], None)
        if not is_batched:
            output = output.squeeze(batch_dim)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)


# ====================================================================== one step
class RNNCellBase(Module):
    """weight_ih, weight_hh, bias_ih, bias_hh of one cell (``num_chunks`` gates)."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(creation.empty((num_chunks * hidden_size, input_size),
                                                  dtype=dtype))
        self.weight_hh = Parameter(creation.empty((num_chunks * hidden_size, hidden_size),
                                                  dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            text += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _gates(self, input, hx):
        """torch's cell: linear(hx, W_hh, b_hh) += linear(input, W_ih, b_ih)."""
        return F.linear(hx, self.weight_hh, self.bias_hh) + \
            F.linear(input, self.weight_ih, self.bias_ih)


def _check_cell_sizes(cell, input, hx, index=0):
    """torch's checks of a cell's input and state sizes (the state named hidden0, hidden1)."""
    if input.size(1) != cell.input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{cell.input_size}")
    if hx.size(0) != input.size(0):
        raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{index} batch "
                           f"size {hx.size(0)}")
    if hx.size(1) != cell.hidden_size:
        raise RuntimeError(f"hidden{index} has inconsistent hidden_size: got {hx.size(1)}, "
                           f"expected {cell.hidden_size}")


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        _check_cell_sizes(self, input, hx)
        gates = self._gates(input, hx)
        ret = gates.tanh() if self.nonlinearity == "tanh" else gates.relu()
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: (h', c') from (x, (h, c)), gates i, f, g, o in that order."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        _check_cell_sizes(self, input, hx[0], 0)
        _check_cell_sizes(self, input, hx[1], 1)
        ingate, forgetgate, cellgate, outgate = self._gates(input, hx[0]).unsafe_chunk(4, 1)
        ingate, forgetgate = ingate.sigmoid(), forgetgate.sigmoid()
        cellgate, outgate = cellgate.tanh(), outgate.sigmoid()
        cy = forgetgate * hx[1] + ingate * cellgate
        hy = outgate * cy.tanh()
        return (hy, cy) if is_batched else (hy.squeeze(0), cy.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: h' = (h - n) * z + n (torch's order of the same formula)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        _check_cell_sizes(self, input, hx)
        i_r, i_z, i_n = F.linear(input, self.weight_ih, self.bias_ih).unsafe_chunk(3, 1)
        h_r, h_z, h_n = F.linear(hx, self.weight_hh, self.bias_hh).unsafe_chunk(3, 1)
        reset_gate = (h_r + i_r).sigmoid()
        input_gate = (h_z + i_z).sigmoid()
        new_gate = (i_n + h_n * reset_gate).tanh()
        ret = (hx - new_gate) * input_gate + new_gate
        return ret if is_batched else ret.squeeze(0)


__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
