"""One recurrent layer in one direction, forward and backward through time, as one node.

``rnn_layer`` runs an LSTM, GRU or plain RNN layer over a whole sequence. Its input is either
a padded sequence, shape (T, B, features), or the ``data`` of a PackedSequence, shape
(N, features), whose ``batch_sizes`` say how many sequences are still running at each step
(the longest first). Each time step is numpy arithmetic on the (rows, features) slices; the
whole layer is one autograd node whose backward walks the steps in reverse (backpropagation
through time), as torch's CPU LSTM records one ``MkldnnRnnLayerBackward0`` per layer and
direction. The cell formulas (torch's, gate order included):

* LSTM: i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of (x W_ih^T + b_ih + h W_hh^T + b_hh),
  split in 4; c' = f * c + i * g; h' = o * tanh(c') (then h' W_hr^T with ``proj_size``).
* GRU: r, z = sigmoid of the first two thirds of (x W_ih^T + b_ih) + (h W_hh^T + b_hh);
  n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)); h' = (1 - z) * n + z * h.
* RNN: h' = tanh (or relu) of (x W_ih^T + b_ih + h W_hh^T + b_hh).

Rows that have finished (forward) or not started yet (reverse) keep their hidden state, so
the final state of each sequence is the one after its own last step.

The numpy backward gives gradients without a graph. Under ``create_graph=True`` the node
instead computes the layer again with engine operations (``layer_with_ops``) and
differentiates that, so second derivatives work as in torch.
"""
import numpy as np

from ..core.backward import grad as autograd_grad
from ..core.grad_mode import enable_grad, is_grad_enabled
from ..core.node import Node, record
from ..core.tensor import wrap
from ..ops import join

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


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
    run = {"LSTM": _lstm_forward, "GRU": _gru_forward}.get(mode, _rnn_forward)
    out, h, c, cache = run(mode, x, steps, [None if w is None else w._data for w in weights],
                           hx._data, None if cx is None else cx._data)
    output = wrap(out.reshape(input._data.shape[:-1] + out.shape[-1:]))
    results = (output, wrap(h), wrap(c)) if mode == "LSTM" else (output, wrap(h))
    node_class = {"LSTM": MkldnnRnnLayerBackward0, "GRU": GruLayerBackward}.get(
        mode, RnnLayerBackward)
    inputs = (input, w_ih, w_hh, b_ih, b_hh) + ((w_hr,) if w_hr is not None else ()) + \
        (hx,) + ((cx,) if mode == "LSTM" else ())
    record(node_class, results, inputs, saved=(input, w_ih, w_hh, hx),
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


def _gru_forward(mode, x, steps, weights, h0, c0):
    w_ih, w_hh, b_ih, b_hh, _ = weights
    hidden = w_hh.shape[0] // 3
    xw = x @ w_ih.T
    if b_ih is not None:
        xw += b_ih
    h = h0.copy()
    rows = x.shape[0]
    out = np.empty((rows, hidden), x.dtype)
    gates = np.empty((rows, 3 * hidden), x.dtype)  # r, z, n after their activations
    h_prev = np.empty((rows, hidden), x.dtype)
    hidden_n = np.empty((rows, hidden), x.dtype)   # h W_hn^T + b_hn, which r multiplies
    for first, n in steps:
        at = slice(first, first + n)
        h_prev[at] = h[:n]
        hw = h[:n] @ w_hh.T
        if b_hh is not None:
            hw += b_hh
        act = gates[at]
        act[:, :2 * hidden] = _sigmoid(xw[at, :2 * hidden] + hw[:, :2 * hidden])
        r, z = act[:, :hidden], act[:, hidden:2 * hidden]
        hidden_n[at] = hw[:, 2 * hidden:]
        act[:, 2 * hidden:] = np.tanh(xw[at, 2 * hidden:] + r * hw[:, 2 * hidden:])
        new = act[:, 2 * hidden:]
        h_new = (h[:n] - new) * z + new
        out[at] = h_new
        h[:n] = h_new
    return out, h, None, (x, gates, h_prev, hidden_n)


def _rnn_forward(mode, x, steps, weights, h0, c0):
    w_ih, w_hh, b_ih, b_hh, _ = weights
    xw = x @ w_ih.T
    if b_ih is not None:
        xw += b_ih + b_hh
    h = h0.copy()
    out = np.empty((x.shape[0], h.shape[1]), x.dtype)
    h_prev = np.empty_like(out)
    for first, n in steps:
        at = slice(first, first + n)
        h_prev[at] = h[:n]
        pre = xw[at] + h[:n] @ w_hh.T
        out[at] = np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)
        h[:n] = out[at]
    return out, h, None, (x, out, h_prev)


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
        if mode == "LSTM":
            i, f, g, o = (x_part + h_part).chunk(4, 1)
            c_new = f.sigmoid() * c[:n] + i.sigmoid() * g.tanh()
            h_new = o.sigmoid() * c_new.tanh()
            if w_hr is not None:
                h_new = h_new.matmul(w_hr.t())
            c = c_new if n == c.shape[0] else join.cat([c_new, c[n:]])
        elif mode == "GRU":
            x_r, x_z, x_n = x_part.chunk(3, 1)
            h_r, h_z, h_n = h_part.chunk(3, 1)
            r, z = (x_r + h_r).sigmoid(), (x_z + h_z).sigmoid()
            new = (x_n + r * h_n).tanh()
            h_new = (h_t - new) * z + new
        else:
            pre = x_part + h_part
            h_new = pre.tanh() if mode == "RNN_TANH" else pre.relu()
        pieces[first] = h_new
        h = h_new if n == h.shape[0] else join.cat([h_new, h[n:]])
    rows = join.cat([pieces[first] for first in sorted(pieces)])
    output = rows.reshape(tuple(input.shape[:-1]) + (rows.shape[-1],))
    return (output, h, c) if mode == "LSTM" else (output, h)


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


class GruLayerBackward(_LayerBackward):
    """GRU layer (h' = (1 - z) n + z h), backward through time: dn = dh' (1 - z),
    dz = dh' (h - n), dh = dh' z + dG_h W_hh; n's pre-activation gradient dn (1 - n^2) goes to
    the input gates as it is and to h W_hn^T + b_hn times r; dr = that times (h W_hn^T + b_hn)"""

    def through_time(self, steps, cache, d_out, d_states, w_ih, w_hh):
        x, gates, h_prev, hidden_n = cache
        hidden = w_hh.shape[0] // 3
        (d_h,) = d_states
        d_in = np.empty_like(gates)   # gradients of x W_ih^T + b_ih's three parts
        d_hid = np.empty_like(gates)  # and of h W_hh^T + b_hh's
        for first, n in steps:
            at = slice(first, first + n)
            dh = d_h[:n] + d_out[at]
            act = gates[at]
            r, z, new = act[:, :hidden], act[:, hidden:2 * hidden], act[:, 2 * hidden:]
            d_new = dh * (1 - z) * (1 - new * new)
            d_r = d_new * hidden_n[at] * r * (1 - r)
            d_z = dh * (h_prev[at] - new) * z * (1 - z)
            d_in[at, :hidden], d_in[at, hidden:2 * hidden], d_in[at, 2 * hidden:] = \
                d_r, d_z, d_new
            d_hid[at, :hidden], d_hid[at, hidden:2 * hidden] = d_r, d_z
            d_hid[at, 2 * hidden:] = d_new * r
            d_h[:n] = dh * z + d_hid[at] @ w_hh
        has_b = self.has_biases
        return (d_in @ w_ih, d_in.T @ x, d_hid.T @ h_prev, d_in.sum(0) if has_b else None,
                d_hid.sum(0) if has_b else None, None, [d_h])


class RnnLayerBackward(_LayerBackward):
    """Plain RNN layer (h' = tanh or relu of the pre-activation a), backward through time:
    da = dh' (1 - h'^2) for tanh, dh' [a > 0] for relu; dh = da W_hh"""

    def through_time(self, steps, cache, d_out, d_states, w_ih, w_hh):
        x, out, h_prev = cache
        (d_h,) = d_states
        d_pre = np.empty_like(out)
        for first, n in steps:
            at = slice(first, first + n)
            dh = d_h[:n] + d_out[at]
            d_pre[at] = dh * (1 - out[at] * out[at]) if self.mode == "RNN_TANH" else \
                dh * (out[at] > 0)
            d_h[:n] = d_pre[at] @ w_hh
        d_b = d_pre.sum(0) if self.has_biases else None
        return d_pre @ w_ih, d_pre.T @ x, d_pre.T @ h_prev, d_b, d_b, None, [d_h]
