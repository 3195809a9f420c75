"""Recurrent layers as torch 2.15 runs them on the CPU, one layer and direction at a time.

Two ways, as in torch, so that a learner who looks at ``output.grad_fn`` finds torch's nodes:

* A float32 LSTM on a padded (T, B, features) input without projections: torch hands the
  layer to oneDNN, which records one ``MkldnnRnnLayerBackward0`` node per layer and direction.
  ``rnn_layer`` does the same: each time step is numpy arithmetic, and the node's backward
  walks the steps in reverse (backpropagation through time). The cell (torch's gate order):
  i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of (x W_ih^T + b_ih + h W_hh^T + b_hh), split
  in 4; c' = f * c + i * g; h' = o * tanh(c'). Its numpy backward gives gradients without a
  graph; under ``create_graph=True`` the node computes the layer again with engine operations
  (``layer_with_ops``) and differentiates that, so second derivatives work as in torch.
* Everything else (GRU, RNN, float64 or projected LSTMs, every packed sequence): torch's
  composite code (ATen's RNN.cpp), step by step with ordinary operations. ``native_layer`` and
  ``native_packed_layer`` make the same operations in the same order (``native_cell``), so
  the graph is torch's node for node and autograd differentiates it as any other:
  GRU: r, z = sigmoid of (h W_hr^T + b_hr) + (x W_ir^T + b_ir) and likewise for z;
  n = tanh(x W_in^T + b_in + (h W_hn^T + b_hn) * r); h' = (h - n) * z + n.
  RNN: h' = tanh (or relu) of (h W_hh^T + b_hh) + (x W_ih^T + b_ih).
  For packed data, rows that have finished (forward) or not started yet (reverse) keep their
  hidden state, so the final state of each sequence is the one after its own last step.
"""
import numpy as np

from ..core.backward import grad as autograd_grad
from ..core.grad_mode import enable_grad, is_grad_enabled
from ..core.node import Node, record
from ..core.tensor import wrap
from ..fidelity.dtypes import float32
from ..ops import join
from .functional import linear


def _sigmoid(x):
    with np.errstate(over="ignore"):  # exp(-x) = inf for very negative x: sigmoid is 0, quietly
        return 1.0 / (1.0 + np.exp(-x))


def step_slices(batch_sizes, total_steps, batch):
    """(first row, number of rows) of each time step in the 2-D rows: packed data's steps
    follow its batch_sizes; a padded (T, B) sequence has B rows at every step."""
    if batch_sizes is None:
        return [(t * batch, batch) for t in range(total_steps)]
    sizes = batch_sizes._data  # (a tensor: PackedSequence's batch_sizes)
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return [(int(o), int(n)) for o, n in zip(offsets, sizes)]


def rnn_layer(mode, input, weights, hx, cx, batch_sizes, reverse):
    """Run one layer in one direction. ``weights`` = (w_ih, w_hh, b_ih, b_hh, w_hr), absent
    ones None; ``hx`` (B, hidden or proj), ``cx`` (B, hidden, LSTM only). Returns
    (output, h_n, c_n), output shaped as input with the hidden size last."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    x = input._data.reshape(-1, input._data.shape[-1])
    steps = step_slices(batch_sizes, input._data.shape[0], hx._data.shape[0])
    if reverse:
        steps = steps[::-1]
    out, h, c, cache = _lstm_forward(mode, x, steps,
                                     [None if w is None else w._data for w in weights],
                                     hx._data, cx._data)
    output = wrap(out.reshape(input._data.shape[:-1] + out.shape[-1:]))
    results = (output, wrap(h), wrap(c))
    inputs = (input, w_ih, w_hh, b_ih, b_hh) + ((w_hr,) if w_hr is not None else ()) + (hx, cx)
    record(MkldnnRnnLayerBackward0, results, inputs, saved=(input, w_ih, w_hh, hx),
           mode=mode, reverse=reverse, has_biases=b_ih is not None, num_outputs=len(results))
    if results[0].grad_fn is not None:
        results[0].grad_fn.cache = (steps, cache)
        results[0].grad_fn.layer_inputs = (input, weights, hx, cx)
    return results


def _lstm_forward(mode, x, steps, weights, h0, c0):
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    hidden = w_hh.shape[0] // 4
    xw = x @ w_ih.T  # every step's input part at once
    if b_ih is not None:
        xw += b_ih + b_hh
    h, c = h0.copy(), c0.copy()
    rows = x.shape[0]
    out = np.empty((rows, h.shape[1]), x.dtype)
    gates = np.empty((rows, 4 * hidden), x.dtype)   # i, f, g, o after their activations
    h_prev, c_prev = np.empty((rows, h.shape[1]), x.dtype), np.empty((rows, hidden), x.dtype)
    tanh_c = np.empty((rows, hidden), x.dtype)
    before_proj = np.empty((rows, hidden), x.dtype) if w_hr is not None else None
    for first, n in steps:
        at = slice(first, first + n)
        h_prev[at], c_prev[at] = h[:n], c[:n]
        pre = xw[at] + h[:n] @ w_hh.T
        act = gates[at]
        act[:, :2 * hidden] = _sigmoid(pre[:, :2 * hidden])
        act[:, 2 * hidden:3 * hidden] = np.tanh(pre[:, 2 * hidden:3 * hidden])
        act[:, 3 * hidden:] = _sigmoid(pre[:, 3 * hidden:])
        i, f, g, o = (act[:, k * hidden:(k + 1) * hidden] for k in range(4))
        c_new = f * c[:n] + i * g
        tanh_c[at] = np.tanh(c_new)
        h_new = o * tanh_c[at]
        if w_hr is not None:
            before_proj[at] = h_new
            h_new = h_new @ w_hr.T
        out[at] = h_new
        h[:n], c[:n] = h_new, c_new
    return out, h, c, (x, gates, h_prev, c_prev, tanh_c, before_proj, w_hr)


class _LayerBackward(Node):
    """Backpropagation through time for one layer and direction (``rnn_layer``)."""

    _saved_names = ("input", "weight0", "weight1", "hx_")
    mode: str
    reverse: bool
    has_biases: bool
    num_outputs: int
    cache = None

    layer_inputs = None

    def backward(self, *grads):
        if is_grad_enabled():
            # create_graph=True: the numpy steps below would give a gradient without a graph
            # (a second derivative of zero), so the layer is computed again with engine
            # operations and differentiated through them
            return self.differentiable_backward(grads)
        input, w_ih, w_hh, hx = self.saved_tensors
        steps, cache = self.cache
        dtype = input._data.dtype
        d_out = grads[0]
        d_out = np.zeros(cache[0].shape[:1] + hx._data.shape[1:], dtype) if d_out is None \
            else d_out._data.reshape(-1, d_out._data.shape[-1])
        batch = hx._data.shape[0]
        shapes = [hx._data.shape] + ([(batch, w_hh._data.shape[0] // 4)]
                                     if self.mode == "LSTM" else [])
        d_states = [np.zeros(shape, dtype) if g is None else g._data.copy()
                    for shape, g in zip(shapes, grads[1:])]
        grad_list = self.through_time(steps[::-1], cache, d_out, d_states, w_ih._data,
                                      w_hh._data)
        d_x, d_w_ih, d_w_hh, d_b_ih, d_b_hh, d_w_hr, d_states = grad_list
        result = [wrap(d_x.reshape(input._data.shape)), wrap(d_w_ih), wrap(d_w_hh),
                  None if d_b_ih is None else wrap(d_b_ih),
                  None if d_b_hh is None else wrap(d_b_hh)]
        if d_w_hr is not None:
            result.append(wrap(d_w_hr))
        return tuple(result + [wrap(s) for s in d_states])


    def differentiable_backward(self, grads):
        self.saved_tensors  # noqa: B018 (raises if the graph was already freed)
        input, weights, hx, cx = self.layer_inputs
        steps, _ = self.cache
        inputs = [t for t in (input, *weights, hx, cx) if t is not None and t.requires_grad]
        with enable_grad():
            outputs = layer_with_ops(self.mode, input, weights, hx, cx, steps)
            pairs = [(o, g) for o, g in zip(outputs, grads) if g is not None]
            found = autograd_grad([o for o, _ in pairs], inputs, [g for _, g in pairs],
                                  create_graph=True, allow_unused=True)
        found = dict(zip(map(id, inputs), found)).get
        result = [found(id(t)) for t in (input, *weights[:4])]
        if weights[4] is not None:
            result.append(found(id(weights[4])))
        return tuple(result + [found(id(hx))] + ([found(id(cx))] if cx is not None else []))


def layer_with_ops(mode, input, weights, hx, cx, steps):
    """``rnn_layer``'s forward again, written with engine operations (differentiable any
    number of times): used for gradients with create_graph=True."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    x = input.reshape(-1, input.shape[-1])
    h, c = hx, cx
    pieces = {}
    for first, n in steps:
        x_t, h_t = x[first:first + n], h[:n]
        x_part = x_t.matmul(w_ih.t()) if b_ih is None else x_t.matmul(w_ih.t()) + b_ih
        h_part = h_t.matmul(w_hh.t()) if b_hh is None else h_t.matmul(w_hh.t()) + b_hh
        i, f, g, o = (x_part + h_part).chunk(4, 1)
        c_new = f.sigmoid() * c[:n] + i.sigmoid() * g.tanh()
        h_new = o.sigmoid() * c_new.tanh()
        if w_hr is not None:
            h_new = h_new.matmul(w_hr.t())
        c = c_new if n == c.shape[0] else join.cat([c_new, c[n:]])
        pieces[first] = h_new
        h = h_new if n == h.shape[0] else join.cat([h_new, h[n:]])
    rows = join.cat([pieces[first] for first in sorted(pieces)])
    output = rows.reshape(tuple(input.shape[:-1]) + (rows.shape[-1],))
    return output, h, c


class MkldnnRnnLayerBackward0(_LayerBackward):
    """LSTM layer (c' = f c + i g, h' = o tanh c'), backward through time, step t from the
    last: dh = dh' (+ d output_t), do = dh tanh c', dc' += dh o (1 - tanh^2 c'),
    di = dc' g, df = dc' c, dg = dc' i, dc = dc' f; the gates' pre-activation gradients dG
    (times each activation's derivative) give dW_ih = dG^T x, dW_hh = dG^T h, db = sum dG,
    dx = dG W_ih, dh_previous = dG W_hh"""

    def through_time(self, steps, cache, d_out, d_states, w_ih, w_hh):
        x, gates, h_prev, c_prev, tanh_c, before_proj, w_hr = cache
        hidden = w_hh.shape[0] // 4
        d_h, d_c = d_states
        d_gates = np.empty_like(gates)
        d_w_hr = None if w_hr is None else np.zeros_like(w_hr)
        for first, n in steps:
            at = slice(first, first + n)
            dh = d_h[:n] + d_out[at]
            if w_hr is not None:
                d_w_hr += dh.T @ before_proj[at]
                dh = dh @ w_hr
            act = gates[at]
            i, f, g, o = (act[:, k * hidden:(k + 1) * hidden] for k in range(4))
            tc = tanh_c[at]
            dc = d_c[:n] + dh * o * (1 - tc * tc)
            dg_all = d_gates[at]
            dg_all[:, :hidden] = dc * g * i * (1 - i)
            dg_all[:, hidden:2 * hidden] = dc * c_prev[at] * f * (1 - f)
            dg_all[:, 2 * hidden:3 * hidden] = dc * i * (1 - g * g)
            dg_all[:, 3 * hidden:] = dh * tc * o * (1 - o)
            d_c[:n] = dc * f
            d_h[:n] = dg_all @ w_hh
        d_b = d_gates.sum(0) if self.has_biases else None
        return (d_gates @ w_ih, d_gates.T @ x, d_gates.T @ h_prev, d_b, d_b, d_w_hr,
                [d_h, d_c])


# ====================================================================== torch's default layers
# torch runs an LSTM through one oneDNN node per layer (MkldnnRnnLayerBackward0, above) only
# for float32 padded input without projections. Everything else (GRU, RNN, float64 or
# projected LSTMs, packed sequences) runs torch's composite CPU code, which records each step
# operation by operation; the engine does the same, with the same operations in the same
# order, so the graph a learner inspects has torch's nodes.
def uses_one_node(mode, dtype, batch_sizes, proj_size):
    """Whether torch 2.15 on the CPU runs this as one oneDNN node per layer and direction."""
    return mode == "LSTM" and batch_sizes is None and proj_size == 0 and dtype == float32


def native_cell(mode, step, hidden, w_hh, b_hh, w_hr):
    """One step of torch's CPU cell (ATen's RNN.cpp), ``step`` = the step's x W_ih^T + b_ih
    (computed for the whole sequence at once). torch changes its gates in place; the
    operations here are the out-of-place twins, which record the same nodes."""
    if mode == "LSTM":
        h, c = hidden
        gates = linear(h, w_hh, b_hh) + step
        i, f, g, o = gates.unsafe_chunk(4, 1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        c_new = f * c + i * g
        h_new = o * c_new.tanh()
        return (h_new if w_hr is None else h_new.matmul(w_hr.t())), c_new
    if mode == "GRU":
        x_r, x_z, x_n = step.unsafe_chunk(3, 1)
        h_r, h_z, h_n = linear(hidden, w_hh, b_hh).unsafe_chunk(3, 1)
        r, z = (h_r + x_r).sigmoid(), (h_z + x_z).sigmoid()
        new = (x_n + h_n * r).tanh()
        return (hidden - new) * z + new
    pre = linear(hidden, w_hh, b_hh) + step
    return pre.tanh() if mode == "RNN_TANH" else pre.relu()


def _output_of(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _hidden_cat(hiddens):
    """Hidden states (an LSTM's pairs, each part apart) joined along the batch."""
    if isinstance(hiddens[0], tuple):
        return tuple(join.cat(list(parts), 0) for parts in zip(*hiddens))
    return join.cat(list(hiddens), 0)


def _hidden_rows(hidden, start, stop):
    if isinstance(hidden, tuple):
        return tuple(part.narrow(0, start, stop - start) for part in hidden)
    return hidden.narrow(0, start, stop - start)


def native_layer(mode, input, weights, hidden, reverse):
    """One layer and direction over a padded (T, B, features) input: torch's FullLayer."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    steps = linear(input, w_ih, b_ih).unbind(0)
    if not steps:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    outputs = []
    for step in (reversed(steps) if reverse else steps):
        hidden = native_cell(mode, step, hidden, w_hh, b_hh, w_hr)
        outputs.append(_output_of(hidden))
    if reverse:
        outputs.reverse()
    return join.stack(outputs, 0), hidden


def native_packed_layer(mode, data, batch_sizes, weights, hidden, reverse):
    """One layer and direction over a PackedSequence's data: torch's PackedLayer (each
    sequence's final state is kept as it finishes) or ReversedPackedLayer (states join as
    their sequences start)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    rows = linear(data, w_ih, b_ih)
    sizes = [int(n) for n in batch_sizes._data]
    outputs = []
    if not reverse:
        first, last, finished = 0, sizes[0], []
        for n in sizes:
            step = rows.narrow(0, first, n)
            first += n
            if n < last:  # sequences that ended: their final states, put aside
                finished.append(_hidden_rows(hidden, n, last))
                hidden = _hidden_rows(hidden, 0, n)
            last = n
            hidden = native_cell(mode, step, hidden, w_hh, b_hh, w_hr)
            outputs.append(_output_of(hidden))
        finished.append(hidden)
        return join.cat(outputs, 0), _hidden_cat(finished[::-1])
    initial, end, last = hidden, rows.shape[0], sizes[-1]
    hidden = _hidden_rows(initial, 0, last)
    for n in reversed(sizes):
        if n > last:  # sequences that start here (from the end): their initial states join
            hidden = _hidden_cat([hidden, _hidden_rows(initial, last, n)])
        step = rows.narrow(0, end - n, n)
        end -= n
        last = n
        hidden = native_cell(mode, step, hidden, w_hh, b_hh, w_hr)
        outputs.append(_output_of(hidden))
    outputs.reverse()
    return join.cat(outputs, 0), hidden
