"""nn.ModuleDict, nn.ParameterList and nn.ParameterDict against torch 2.15: printing (nested,
with extra_repr), state_dict keys, parameters() order, the dict/list methods, errors."""
import pytest

from tests.parity import assert_same_snippet

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch

CASES = {
    "ModuleDict repr and keys": """
d = m.nn.ModuleDict({'conv': m.nn.Conv2d(1, 2, 3), 'act': m.nn.ReLU()})
d['fc'] = m.nn.Linear(4, 2)
d.update([('out', m.nn.Sigmoid()), ('act', m.nn.Tanh())])
r = [repr(d), list(d), list(d.keys()), [type(v).__name__ for v in d.values()],
     [k for k, _ in d.items()], len(d), 'fc' in d, 'x' in d,
     list(d.state_dict()), [n for n, _ in d.named_parameters()]]
popped = d.pop('conv')
del d['out']
r += [repr(d), type(popped).__name__, len(d)]
d.clear()
r += [repr(d), len(d)]
""",
    "ModuleDict inside a model": """
class Net(m.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = m.nn.ModuleDict([('a', m.nn.Linear(3, 2)),
                                      ('b', m.nn.Sequential(m.nn.Linear(3, 3), m.nn.ReLU()))])
        self.scales = m.nn.ParameterList([m.nn.Parameter(m.ones(2)), m.zeros(3)])
        self.extra = m.nn.ParameterDict({'z': m.ones(1), 'y': m.ones(2, 2)})
    def forward(self, x):
        return self.heads['a'](x) * self.scales[0] + self.extra['z']
net = Net()
out = net(m.ones(4, 3))
out.sum().backward()
r = [repr(net), list(net.state_dict()), [n for n, _ in net.named_parameters()],
     [tuple(p.shape) for p in net.parameters()], net.scales[0].grad is not None,
     [n for n, _ in net.named_modules()]]
""",
    "nested containers print": """
d = m.nn.ModuleDict({'blocks': m.nn.ModuleList([m.nn.Linear(2, 2), m.nn.Linear(2, 2)]),
                     'params': m.nn.ParameterList([m.ones(2)]),
                     'named': m.nn.ParameterDict({'k': m.ones(3)}),
                     'empty': m.nn.ModuleDict()})
r = repr(d)
""",
    "ParameterList": """
p = m.nn.ParameterList([m.nn.Parameter(m.randn(3, 4)), m.zeros(2, dtype=m.float64)])
p.append(m.ones(1))
p.extend([m.nn.Parameter(m.ones(2, 2), requires_grad=False)])
p += [m.ones(5)]
r = [repr(p), len(p), [type(x).__name__ for x in p], [x.requires_grad for x in p],
     list(p.state_dict()), [n for n, _ in p.named_parameters()], repr(p[1:3]), repr(p[::2]),
     tuple(p[-1].shape), 'extend' in dir(p), '0' in dir(p)]
p[0] = m.zeros(7)
r += [repr(p), type(p[0]).__name__]
""",
    "ParameterList of one, and of other objects": """
p = m.nn.ParameterList([m.ones(3)])
q = m.nn.ParameterList([m.ones(2), 5, 'text', m.nn.Linear(1, 1)])
r = [repr(p), repr(q), [n for n, _ in q.named_parameters()], list(q.state_dict()),
     repr(m.nn.ParameterList())]
""",
    "ParameterDict": """
d = m.nn.ParameterDict({'b': m.ones(2), 'a': m.nn.Parameter(m.zeros(3, dtype=m.float64))})
d['c'] = m.ones(1, 1)
d.update([('e', m.ones(4)), ('d', m.ones(5))])
r = [repr(d), list(d), list(d.keys()), [k for k, _ in d.items()],
     [tuple(v.shape) for v in d.values()], len(d), 'a' in d, list(reversed(d)),
     list(d.state_dict()), [n for n, _ in d.named_parameters()]]
r += [tuple(d.pop('a').shape), d.get('zz', 3), tuple(d.setdefault('f', m.ones(6)).shape)]
k, v = d.popitem()
r += [k, tuple(v.shape), repr(d), repr(d.copy()), list(d.fromkeys(['x', 'y'], m.ones(1)))]
merged = d | m.nn.ParameterDict({'zz': m.ones(2)})
d |= {'yy': m.ones(1)}
r += [list(merged), list(d), repr(m.nn.ParameterDict())]
d.clear()
r += [len(d), repr(d)]
""",
    "ParameterDict of objects": """
d = m.nn.ParameterDict({'n': 3, 't': m.ones(2), 'lin': m.nn.Linear(2, 1)})
r = [repr(d), list(d.state_dict()), d['n']]
""",
}


@pytest.mark.parametrize("case", CASES)
def test_containers_as_torch(case):
    assert_same_snippet("m.manual_seed(0)\n" + CASES[case], warnings_too=True)


ERRORS = {
    "ModuleDict missing key": "m.nn.ModuleDict()['x']",
    "ModuleDict not a module": "m.nn.ModuleDict({'a': 5})",
    "ModuleDict update not iterable": "m.nn.ModuleDict().update(5)",
    "ModuleDict update element": "m.nn.ModuleDict().update([5])",
    "ModuleDict update pair length": "m.nn.ModuleDict().update([('a', m.nn.ReLU(), 1)])",
    "ModuleDict key with a dot": "m.nn.ModuleDict({'a.b': m.nn.ReLU()})",
    "ModuleDict key clashing": "m.nn.ModuleDict({'train': m.nn.ReLU()})",
    "ParameterList index": "m.nn.ParameterList([m.ones(1)])[3]",
    "ParameterList negative index": "m.nn.ParameterList([m.ones(1)])[-2]",
    "ParameterList extend a tensor": "m.nn.ParameterList().extend(m.ones(3))",
    "ParameterList extend a number": "m.nn.ParameterList().extend(3)",
    "ParameterList called": "m.nn.ParameterList()(1)",
    "ParameterList integer tensor": "m.nn.ParameterList([m.ones(2, dtype=m.int64)])",
    "ParameterDict non-string key": "m.nn.ParameterDict()[1]",
    "ParameterDict missing key": "m.nn.ParameterDict()['x']",
    "ParameterDict update not iterable": "m.nn.ParameterDict().update(3)",
    "ParameterDict update element": "m.nn.ParameterDict().update([3])",
    "ParameterDict update pair length": "m.nn.ParameterDict().update(['abc'])",
    "ParameterDict called": "m.nn.ParameterDict()(1)",
    "ParameterDict pop missing": "m.nn.ParameterDict().pop('x')",
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_as_torch(case):
    assert_same_snippet(f"r = error(lambda: {ERRORS[case]})\nassert r is not None")


def test_optimizer_and_state_dict_round_trip():
    code = """
m.manual_seed(0)
net = m.nn.ModuleDict({'lin': m.nn.Linear(3, 2)})
extra = m.nn.ParameterDict({'s': m.ones(2)})
scales = m.nn.ParameterList([m.ones(2)])
params = list(net.parameters()) + list(extra.parameters()) + list(scales.parameters())
opt = m.optim.SGD(params, lr=0.1)
loss = (net['lin'](m.ones(4, 3)) * extra['s'] * scales[0]).sum()
loss.backward()
opt.step()
copy_net = m.nn.ModuleDict({'lin': m.nn.Linear(3, 2)})
copy_net.load_state_dict(net.state_dict())
copy_extra = m.nn.ParameterDict({'s': m.zeros(2)})
result = copy_extra.load_state_dict(extra.state_dict())
r = [copy_net['lin'].weight, extra['s'], copy_extra['s'], repr(result), scales[0]]
"""
    assert_same_snippet(code)
