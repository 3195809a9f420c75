"""nn.RNN, nn.LSTM, nn.GRU, their cells and nn.utils.rnn's packing against torch 2.15:
seeded initialisation bit for bit, parameter names and order, outputs, final states and
gradients through time (float32: torch's oneDNN kernels and numpy round differently, so within
a few ulps), packed sequences, initial states, dropout between layers, node names, printing,
warnings and errors."""
import io

import numpy as np
import pytest

import engine
from tests.parity import assert_same_snippet, run_both

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch

TOL = {"rtol": 2e-5, "atol": 2e-6}

MODULES = [
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2}),
    ("LSTM", {"bidirectional": True}),
    ("LSTM", {"batch_first": True, "num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 3}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 2}),
    ("LSTM", {"bias": False}),
    ("GRU", {}),
    ("GRU", {"num_layers": 3, "bidirectional": True}),
    ("GRU", {"batch_first": True, "bias": False}),
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 3}),
    ("RNN", {"bidirectional": True, "batch_first": True}),
]


def _data(shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _loss(m, out, states):
    """A loss that weighs every output element differently (so wrong gradients show)."""
    total = (out * m.arange(out.numel(), dtype=out.dtype).reshape(out.shape).sin()).sum()
    return total + sum((s * s).sum() for s in states)


def _run_module(m, mode, options, x, initial=None, packed=None):
    m.manual_seed(0)
    layer = getattr(m.nn, mode)(4, 6, **options)
    x = x.detach().clone().requires_grad_()
    states = None
    if initial is not None:
        states = tuple(m.tensor(s, requires_grad=True) for s in initial)
    inp = x
    if packed is not None:
        inp = m.nn.utils.rnn.pack_padded_sequence(x, packed, batch_first=layer.batch_first,
                                                  enforce_sorted=False)
    arg = states if mode == "LSTM" or states is None else states[0]
    out, h = layer(inp) if states is None else layer(inp, arg)
    if packed is not None:
        out, lengths = m.nn.utils.rnn.pad_packed_sequence(out, batch_first=layer.batch_first)
    hs = h if isinstance(h, tuple) else (h,)
    _loss(m, out, hs).backward()
    grads = [x.grad] + [p.grad for p in layer.parameters()]
    if states is not None:
        grads += [s.grad for s in states]
    return out, list(hs), grads


@pytest.mark.parametrize("packed", [None, [5, 2, 3]], ids=["padded", "packed"])
@pytest.mark.parametrize("mode,options", MODULES, ids=str)
def test_forward_and_gradients_through_time(mode, options, packed):
    shape = (3, 5, 4) if options.get("batch_first") else (5, 3, 4)
    run_both(lambda m, x: _run_module(m, mode, options, x, packed=packed), _data(shape),
             exact=False, **TOL, check_repr=False)


@pytest.mark.parametrize("mode,options", [("LSTM", {"num_layers": 2, "bidirectional": True}),
                                          ("LSTM", {"proj_size": 4}), ("GRU", {"num_layers": 2}),
                                          ("RNN", {"bidirectional": True})], ids=str)
def test_initial_states_and_their_gradients(mode, options):
    directions = 2 if options.get("bidirectional") else 1
    layers = options.get("num_layers", 1) * directions
    h0 = _data((layers, 3, options.get("proj_size", 6)), seed=2)
    c0 = _data((layers, 3, 6), seed=3)
    initial = (h0, c0) if mode == "LSTM" else (h0,)
    run_both(lambda m, x: _run_module(m, mode, options, x, initial=initial), _data((5, 3, 4)),
             exact=False, **TOL, check_repr=False)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_unbatched_input(mode):
    def run(m, x, h):
        m.manual_seed(0)
        layer = getattr(m.nn, mode)(4, 6, num_layers=2)
        x = x.detach().clone().requires_grad_()
        h0 = h
        out, hn = layer(x, (h0, h0) if mode == "LSTM" else h0)
        hs = hn if isinstance(hn, tuple) else (hn,)
        _loss(m, out, hs).backward()
        return out, list(hs), x.grad
    run_both(run, _data((5, 4)), _data((2, 6), seed=4), exact=False, **TOL, check_repr=False)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_seeded_init_names_order_and_repr(mode):
    code = f"""
m.manual_seed(5)
layer = m.nn.{mode}(3, 4, num_layers=2, bidirectional=True)
after = m.rand(2)
r = [[(n, p) for n, p in layer.named_parameters()], after, repr(layer), list(layer.state_dict()),
     [[tuple(p.shape) for p in ws] for ws in layer.all_weights], layer._flat_weights_names]
"""
    scopes = []
    from tests.parity import run_snippet
    for m in (torch, engine):
        scopes.append(run_snippet(code, m)[0]["r"])
    t, e = scopes
    assert [n for n, _ in e[0]] == [n for n, _ in t[0]]
    for (_, a), (_, b) in zip(e[0], t[0]):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())  # bit for bit
    np.testing.assert_array_equal(e[1].numpy(), t[1].numpy())
    assert e[2:] == t[2:]


REPRS = [
    "m.nn.LSTM(10, 20)",
    "m.nn.LSTM(10, 20, 2, batch_first=True, dropout=0.5, bidirectional=True, proj_size=5)",
    "m.nn.LSTM(10, 20, bias=False)",
    "m.nn.GRU(3, 4, num_layers=3, dropout=0.25)",
    "m.nn.RNN(3, 4, 2, 'relu')",
    "m.nn.RNN(3, 4, nonlinearity='relu', bias=False)",
    "m.nn.LSTMCell(3, 4)",
    "m.nn.GRUCell(3, 4, bias=False)",
    "m.nn.RNNCell(3, 4, nonlinearity='relu')",
    "m.nn.Sequential(m.nn.Embedding(10, 3), m.nn.LSTM(3, 5, batch_first=True))",
]


@pytest.mark.parametrize("code", REPRS)
def test_repr(code):
    assert_same_snippet(f"m.manual_seed(0)\nr = repr({code})", warnings_too=True)


def test_node_names_where_torch_records_the_same():
    code = """
m.manual_seed(0)
x = m.randn(4, 2, 3, requires_grad=True)
names = []
for layer in [m.nn.LSTM(3, 5), m.nn.LSTM(3, 5, num_layers=2), m.nn.LSTM(3, 5, bias=False),
              m.nn.LSTM(3, 5, bidirectional=True), m.nn.GRU(3, 5, bidirectional=True),
              m.nn.LSTM(3, 5, batch_first=True), m.nn.RNN(3, 5, batch_first=True),
              m.nn.GRU(3, 5, batch_first=True), m.nn.LSTM(3, 5, batch_first=True, proj_size=2)]:
    out, h = layer(x)
    h = h[0] if isinstance(h, tuple) else h
    names.append((out.grad_fn.name(), h.grad_fn.name()))
    if out.grad_fn.name() == 'MkldnnRnnLayerBackward0':
        names.append([n.name() if n else None for n, _ in out.grad_fn.next_functions])
r = names
"""
    assert_same_snippet(code)


def test_dropout_between_layers_draws_as_torch():
    def run(m, x):
        m.manual_seed(0)
        layer = m.nn.LSTM(4, 6, num_layers=3, dropout=0.4)
        m.manual_seed(11)
        out, (h, c) = layer(m.tensor(x))
        after = m.rand(3)  # the generator moved as torch's
        layer.eval()
        out_eval, _ = layer(m.tensor(x))
        return out, h, c, after, out_eval
    run_both(run, _data((5, 3, 4)), exact=False, **TOL, check_repr=False)


CELLS = [("LSTMCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {}),
         ("GRUCell", {"bias": False}), ("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"})]


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("given_state", [True, False])
@pytest.mark.parametrize("name,options", CELLS, ids=str)
def test_cells_step_by_step(name, options, given_state, batched):
    def run(m, xs, h0):
        m.manual_seed(0)
        cell = getattr(m.nn, name)(4, 6, **options)
        xs = m.tensor(xs if batched else xs[:, 0], requires_grad=True)
        h = m.tensor(h0 if batched else h0[0], requires_grad=True)
        state = ((h, h * 0.5) if name == "LSTMCell" else h) if given_state else None
        outs = []
        for t in range(xs.shape[0]):
            state = cell(xs[t], state)
            outs.append(state[0] if name == "LSTMCell" else state)
        out = m.stack(outs)
        _loss(m, out, ()).backward()
        first = state[0] if name == "LSTMCell" else state
        names = [first.grad_fn.name()] + [n.name() if n else None
                                          for n, _ in first.grad_fn.next_functions]
        return out, xs.grad, h.grad if given_state else None, \
            [p.grad for p in cell.parameters()], names
    run_both(run, _data((5, 3, 4)), _data((3, 6), seed=2), exact=False, **TOL,
             check_repr=False)


PACKING = {
    "pad_sequence": """
a, b, c = (m.tensor(v, requires_grad=True) for v in (A, B, C))
r = [m.nn.utils.rnn.pad_sequence([a, b, c]), m.nn.utils.rnn.pad_sequence([b, a], True, -1.0),
     m.nn.utils.rnn.pad_sequence([a, c], padding_side='left'),
     m.nn.utils.rnn.pad_sequence(m.ones(2, 3))]
""",
    "pack and unpack": """
a, b, c = (m.tensor(v, requires_grad=True) for v in (A, B, C))
packed = m.nn.utils.rnn.pack_sequence([b, a, c], enforce_sorted=False)
padded, lengths = m.nn.utils.rnn.pad_packed_sequence(packed, batch_first=True)
longer, _ = m.nn.utils.rnn.pad_packed_sequence(packed, padding_value=9.0, total_length=6)
(padded * m.arange(padded.numel()).reshape(padded.shape)).sum().backward()
r = [packed.data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices, padded,
     lengths, longer, a.grad, b.grad, c.grad, repr(packed), type(packed).__name__,
     packed.data.grad_fn.name()]
""",
    "pack_padded_sequence": """
x = m.tensor(X, requires_grad=True)
p1 = m.nn.utils.rnn.pack_padded_sequence(x, [4, 2, 1])
p2 = m.nn.utils.rnn.pack_padded_sequence(x.transpose(0, 1), m.tensor([3, 4, 1]),
                                         batch_first=True, enforce_sorted=False)
(p1.data.sum() + (p2.data ** 2).sum()).backward()
r = [p1.data, p1.batch_sizes, p2.data, p2.batch_sizes, p2.sorted_indices, x.grad,
     m.nn.utils.rnn.unpack_sequence(p2),
     error(lambda: m.nn.utils.rnn.unpad_sequence(x, m.tensor([4, 2, 1]))),
     m.nn.utils.rnn.unpad_sequence(x.detach(), m.tensor([4, 2, 1]))]
""",
}


@pytest.mark.parametrize("case", PACKING)
def test_packing_utilities(case):
    code = f"A = {_data((3, 2)).tolist()}\nB = {_data((4, 2), 2).tolist()}\n" \
           f"C = {_data((1, 2), 3).tolist()}\nX = {_data((4, 3, 2), 4).tolist()}\n" + \
           PACKING[case]
    assert_same_snippet(code)


def test_state_dict_moves_between_engine_and_torch():
    engine.manual_seed(3)
    mine = engine.nn.LSTM(4, 6, num_layers=2, bidirectional=True, proj_size=3)
    buffer = io.BytesIO()
    engine.save(mine.state_dict(), buffer)
    buffer.seek(0)
    theirs = torch.nn.LSTM(4, 6, num_layers=2, bidirectional=True, proj_size=3)
    theirs.load_state_dict(torch.load(buffer))
    x = _data((5, 2, 4))
    out_e, _ = mine(engine.tensor(x))
    out_t, _ = theirs(torch.tensor(x))
    np.testing.assert_allclose(out_e.detach().numpy(), out_t.detach().numpy(), **TOL)
    buffer = io.BytesIO()
    torch.save(theirs.state_dict(), buffer)
    buffer.seek(0)
    again = engine.nn.LSTM(4, 6, num_layers=2, bidirectional=True, proj_size=3)
    again.load_state_dict(engine.load(buffer))
    np.testing.assert_array_equal(again(engine.tensor(x))[0].detach().numpy(),
                                  out_e.detach().numpy())


def test_a_sequence_model_trains_as_torch():
    """An embedding, an LSTM and a linear tagger, 20 Adam steps, as the tutorial's."""
    def run(m):
        m.manual_seed(0)
        emb, lstm, tag = m.nn.Embedding(12, 5), m.nn.LSTM(5, 7), m.nn.Linear(7, 3)
        params = [*emb.parameters(), *lstm.parameters(), *tag.parameters()]
        opt = m.optim.Adam(params, lr=0.05)
        words = m.tensor([1, 4, 2, 7, 7, 3, 11, 0])
        tags = m.tensor([0, 1, 2, 1, 1, 0, 2, 0])
        losses = []
        for _ in range(20):
            opt.zero_grad()
            out, _ = lstm(emb(words).view(len(words), 1, -1))
            loss = m.nn.functional.cross_entropy(tag(out.view(len(words), -1)), tags)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return m.tensor(losses), tag.weight
    run_both(run, exact=False, rtol=1e-4, atol=1e-5, check_repr=False)


SECOND = [("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}),
          ("LSTM", {"proj_size": 2}), ("GRU", {"bidirectional": True}),
          ("RNN", {"nonlinearity": "relu"}), ("GRU", {"bias": False})]


@pytest.mark.parametrize("packed", [False, True], ids=["padded", "packed"])
@pytest.mark.parametrize("mode,options", SECOND, ids=str)
def test_second_derivatives_through_time(mode, options, packed):
    """create_graph=True: the gradient can be differentiated again, as torch's."""
    def run(m, x):
        m.manual_seed(0)
        layer = getattr(m.nn, mode)(3, 4, **options)
        x = x.detach().clone().requires_grad_()
        inp = m.nn.utils.rnn.pack_padded_sequence(x, [5, 3]) if packed else x
        out, h = layer(inp)
        out = out.data if packed else out
        hs = h if isinstance(h, tuple) else (h,)
        loss = (out ** 2).sum() + sum((t ** 3).sum() for t in hs)
        (gx,) = m.autograd.grad(loss, x, create_graph=True)
        return [gx.detach(), *m.autograd.grad((gx ** 2).sum(), [*layer.parameters(), x])]
    run_both(run, _data((5, 2, 3)), exact=False, rtol=1e-4, atol=1e-5, check_repr=False)


WARNINGS = {
    "dropout with one layer": "m.nn.LSTM(3, 4, dropout=0.5)",
    "dropout with one layer GRU": "m.nn.GRU(3, 4, 1, True, False, 0.2)",
}


def test_projection_warning_once_per_process():
    """torch warns once per process that a float32 LSTM with proj_size does not use oneDNN
    (packed input and float64 never warn): each library in a fresh interpreter."""
    import subprocess
    import sys
    code = """
import warnings
import {lib} as m
warnings.simplefilter('always')
x = m.randn(4, 1, 2)
lstm = m.nn.LSTM(2, 3, proj_size=1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    lstm(m.nn.utils.rnn.pack_padded_sequence(x, [4]))
    lstm.double()(x.double())
    lstm.float()(x)
    lstm(x)
print([str(w.message) for w in caught])
"""
    printed = [subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True,
                              text=True, check=True).stdout for lib in ("torch", "engine")]
    assert printed[0] == printed[1] and "oneDNN" in printed[0]


@pytest.mark.parametrize("case", WARNINGS)
def test_warnings(case):
    assert_same_snippet(f"m.manual_seed(0)\nr = repr({WARNINGS[case]})", warnings_too=True)


ERRORS = {
    "dropout out of range": "m.nn.LSTM(3, 4, dropout=1.5)",
    "dropout bool": "m.nn.GRU(3, 4, dropout=True)",
    "bias type": "m.nn.LSTM(3, 4, bias=1)",
    "batch_first type": "m.nn.RNN(3, 4, batch_first='yes')",
    "input_size type": "m.nn.LSTM(3.0, 4)",
    "input_size zero": "m.nn.LSTM(0, 4)",
    "hidden_size type": "m.nn.LSTM(3, 4.0)",
    "hidden_size zero": "m.nn.GRU(3, 0)",
    "num_layers zero": "m.nn.LSTM(3, 4, num_layers=0)",
    "proj_size negative": "m.nn.LSTM(3, 4, proj_size=-1)",
    "proj_size too large": "m.nn.LSTM(3, 4, proj_size=4)",
    "proj_size for GRU": "m.nn.GRU(3, 4, proj_size=2)",
    "nonlinearity": "m.nn.RNN(3, 4, nonlinearity='sigmoid')",
    "input size": "m.nn.LSTM(3, 4)(m.ones(2, 1, 5))",
    "input dims": "m.nn.LSTM(3, 4)(m.ones(2, 1, 1, 3))",
    "input dims GRU": "m.nn.GRU(3, 4)(m.ones(3))",
    "input dims RNN": "m.nn.RNN(3, 4)(m.ones(3))",
    "input dtype": "m.nn.GRU(3, 4)(m.ones(2, 1, 3, dtype=m.float64))",
    "hidden size": "m.nn.GRU(3, 4)(m.ones(2, 1, 3), m.zeros(1, 2, 4))",
    "hidden dims": "m.nn.GRU(3, 4)(m.ones(2, 1, 3), m.zeros(1, 4))",
    "unbatched hidden dims": "m.nn.RNN(3, 4)(m.ones(2, 3), m.zeros(1, 1, 4))",
    "lstm hidden sizes": "m.nn.LSTM(3, 4)(m.ones(2, 1, 3), (m.zeros(1, 1, 4), m.zeros(1, 1, 5)))",
    "lstm h size": "m.nn.LSTM(3, 4)(m.ones(2, 1, 3), (m.zeros(2, 1, 4), m.zeros(1, 1, 4)))",
    "lstm hidden dims": "m.nn.LSTM(3, 4)(m.ones(2, 1, 3), (m.zeros(1, 4), m.zeros(1, 1, 4)))",
    "lstm unbatched dims": "m.nn.LSTM(3, 4)(m.ones(2, 3), (m.zeros(1, 1, 4), m.zeros(1, 4)))",
    "cell input dims": "m.nn.LSTMCell(3, 4)(m.ones(1, 1, 3))",
    "cell hx dims": "m.nn.LSTMCell(3, 4)(m.ones(1, 3), (m.ones(1, 1, 4), m.ones(1, 4)))",
    "gru cell hidden dims": "m.nn.GRUCell(3, 4)(m.ones(1, 3), m.ones(1, 1, 4))",
    "rnn cell input dims": "m.nn.RNNCell(3, 4)(m.ones(1, 1, 3))",
    "cell input size": "m.nn.GRUCell(3, 4)(m.ones(2, 5))",
    "cell batch": "m.nn.RNNCell(3, 4)(m.ones(2, 3), m.ones(3, 4))",
    "cell hidden size": "m.nn.LSTMCell(3, 4)(m.ones(2, 3), (m.ones(2, 5), m.ones(2, 4)))",
    "pack unsorted": "m.nn.utils.rnn.pack_padded_sequence(m.zeros(3, 3, 1), [1, 2, 1])",
    "pack zero length": "m.nn.utils.rnn.pack_padded_sequence(m.zeros(3, 3, 1), [2, 0, 0])",
    "pack lengths count": "m.nn.utils.rnn.pack_padded_sequence(m.zeros(3, 3, 1), [2, 1])",
    "pad empty": "m.nn.utils.rnn.pad_sequence([])",
    "pad side": "m.nn.utils.rnn.pad_sequence([m.ones(2)], padding_side='middle')",
    "total_length": ("m.nn.utils.rnn.pad_packed_sequence(m.nn.utils.rnn.pack_sequence("
                     "[m.ones(3)]), total_length=2)"),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_as_torch(case):
    assert_same_snippet(f"import warnings\nwarnings.simplefilter('ignore')\n"
                        f"r = error(lambda: {ERRORS[case]})\nassert r is not None")


def _graph(tensor):
    """Every node reachable from tensor.grad_fn, depth first, as (depth, name, first-seen id):
    the whole graph's shape, shared nodes included."""
    seen, lines = {}, []

    def visit(node, depth):
        if node is None:
            return
        known = id(node) in seen
        seen.setdefault(id(node), len(seen))
        lines.append((depth, node.name(), seen[id(node)]))
        if not known:
            for child, _ in node.next_functions:
                visit(child, depth + 1)

    visit(tensor.grad_fn, 0)
    return lines


GRAPHS = {
    "RNN tanh": ("RNN", {}, None, False),
    "RNN relu 2 layers, h0": ("RNN", {"nonlinearity": "relu", "num_layers": 2}, None, True),
    "RNN bidirectional batch_first": ("RNN", {"bidirectional": True, "batch_first": True},
                                      None, False),
    "GRU": ("GRU", {}, None, False),
    "GRU no bias, h0": ("GRU", {"bias": False}, None, True),
    "GRU 2 layers bidirectional": ("GRU", {"num_layers": 2, "bidirectional": True}, None, False),
    "GRU batch_first": ("GRU", {"batch_first": True}, None, False),
    "LSTM float64": ("LSTM", {"dtype": "float64"}, None, True),
    "LSTM projections": ("LSTM", {"proj_size": 2, "num_layers": 2}, None, False),
    "LSTM projections bidirectional": ("LSTM", {"proj_size": 2, "bidirectional": True}, None,
                                       True),
    "LSTM float32 (one node)": ("LSTM", {"num_layers": 2}, None, True),
    "RNN packed": ("RNN", {}, [3, 2, 1], False),
    "RNN packed 2 layers bidirectional, h0": ("RNN", {"num_layers": 2, "bidirectional": True},
                                              [3, 3, 1], True),
    "GRU packed bidirectional": ("GRU", {"bidirectional": True}, [3, 1, 2], False),
    "LSTM packed": ("LSTM", {}, [2, 3, 1], True),
    "LSTM packed bidirectional projections": ("LSTM", {"bidirectional": True, "proj_size": 2},
                                              [3, 2, 2], True),
}


@pytest.mark.parametrize("case", GRAPHS)
def test_graphs_node_by_node_as_torch(case):
    """torch records GRU, RNN, float64 or projected LSTM and every packed sequence's steps one
    operation at a time (ATen's composite RNN.cpp): the engine's graph is the same, node for
    node, for the output and the final states; values and gradients within float32 rounding."""
    import warnings
    mode, options, lengths, with_state = GRAPHS[case]

    def run(m):
        options_m = dict(options)
        dtype = getattr(m, options_m.pop("dtype", "float32"))
        m.manual_seed(0)
        layer = getattr(m.nn, mode)(3, 4, **options_m).to(dtype)
        x = m.randn(3, 3, 3, dtype=dtype, requires_grad=True)
        inp = x if lengths is None else m.nn.utils.rnn.pack_padded_sequence(
            x, lengths, batch_first=layer.batch_first, enforce_sorted=False)
        directions = 2 if layer.bidirectional else 1
        size = layer.proj_size or layer.hidden_size
        state = None
        if with_state:
            h0 = m.randn(layer.num_layers * directions, 3, size, dtype=dtype, requires_grad=True)
            c0 = m.randn(layer.num_layers * directions, 3, 4, dtype=dtype, requires_grad=True)
            state = (h0, c0) if mode == "LSTM" else h0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the projections' warning: tested above)
            out, h = layer(inp, state)
        data = out if lengths is None else out.data
        states = h if isinstance(h, tuple) else (h,)
        graphs = [_graph(data)] + [_graph(s) for s in states]
        _loss(m, data, states).backward()
        return graphs, data, list(states), [x.grad] + [p.grad for p in layer.parameters()]

    e, t = run(engine), run(torch)
    assert e[0] == t[0]
    run_both(lambda m: run(m)[1:], exact=False, **TOL)


def test_cell_graphs_as_torch():
    """The cells split their gates with unsafe_chunk (UnsafeSplitBackward0), as torch's."""
    def run(m):
        m.manual_seed(0)
        x = m.randn(2, 3, requires_grad=True)
        h = m.randn(2, 4, requires_grad=True)
        graphs = []
        for cell in (m.nn.RNNCell(3, 4), m.nn.RNNCell(3, 4, nonlinearity="relu", bias=False),
                     m.nn.GRUCell(3, 4), m.nn.GRUCell(3, 4, bias=False), m.nn.LSTMCell(3, 4)):
            result = cell(x, (h, h * 2) if isinstance(cell, m.nn.LSTMCell) else h)
            graphs += [_graph(t) for t in (result if isinstance(result, tuple) else (result,))]
        return graphs

    assert run(engine) == run(torch)


def test_unsafe_chunk_and_split():
    def run(m, x):
        x = x.detach().clone().requires_grad_()
        pieces = x.unsafe_chunk(3, 1) + m.unsafe_split(x, 2, 0) + m.unsafe_chunk(x, 4, -1)
        sum(p.sum() * (i + 1) for i, p in enumerate(pieces)).backward()
        return [p.grad_fn.name() for p in pieces], pieces, x.grad, \
            [p.data_ptr() - x.data_ptr() for p in pieces], [p._base is None for p in pieces]

    run_both(run, np.arange(24, dtype=np.float32).reshape(4, 6))
