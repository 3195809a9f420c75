"""Golden values from real torch 2.15, checked without torch.

The parity tests compare the engine with torch and skip when torch is not installed (the
learner's default install). These tests need no torch: each ``@case`` function below
returns plain data (reprs, names, flags, error texts, losses), and ``EXPECTED`` holds what
the same function returned under torch 2.15.0. ``test_golden_values_are_torchs`` (where torch
is installed, as in CI) runs every case on torch itself and fails on any value that is no
longer torch's; its message lists the new ones to paste into ``EXPECTED``.
"""
import math
from pathlib import Path

import pytest

import engine as torch
from engine import viz

CASES = {}  # name -> function returning plain data: str, bool, int, float, tuples/lists


def case(function):
    CASES[function.__name__] = function
    return function


def fn_name(fn):
    """A grad_fn's name, as ``fn.name()`` gives it (``None`` for a missing edge)."""
    return None if fn is None else fn.name()


def next_names(fn):
    """Names of the nodes ``fn.next_functions`` points at."""
    return [fn_name(f) for f, _ in fn.next_functions]


def error_text(action):
    """The message of the error that ``action()`` raises (with its class name)."""
    try:
        action()
    except Exception as error:  # noqa: BLE001 - the class name is part of the expected text
        return f"{type(error).__name__}: {error}"
    return "no error"


# ---------------------------------------------------------------- reprs
@case
def repr_mul_grad_fn():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return repr(x * 2)


@case
def repr_leaf_requires_grad():
    return repr(torch.tensor([1.0, 2.0, 3.0], requires_grad=True))


@case
def repr_sum_scalar():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return repr(x.sum())


@case
def repr_mean_of_square():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return repr((x * x).mean())


@case
def repr_select():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    return repr(x[1])


@case
def repr_view_and_t():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    return repr(x.view(4)), repr(x.t())


@case
def repr_double_and_int_result():
    x = torch.tensor([1.5, -2.0], requires_grad=True)
    return repr(x.double() * 3), repr(x.argmax()), repr(x > 0)


@case
def repr_detach_and_no_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        y = x * 2
    return repr(x.detach()), repr(y), y.requires_grad, y.grad_fn is None


@case
def repr_parameter():
    return repr(torch.nn.Parameter(torch.ones(2, 2)))


@case
def repr_parameter_no_grad_and_grad():
    p = torch.nn.Parameter(torch.tensor([1.0, -1.0]), requires_grad=False)
    q = torch.nn.Parameter(torch.tensor([2.0, 3.0]))
    (q * q).sum().backward()
    return repr(p), repr(q.grad), repr(q * 1)


@case
def repr_sequential():
    return repr(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(),
                                    torch.nn.Linear(4, 1, bias=False), torch.nn.Sigmoid()))


@case
def repr_nested_modules():
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(),
                                            torch.nn.Dropout(0.1))
            self.head = torch.nn.Linear(8, 3)
            self.loss = torch.nn.CrossEntropyLoss()

    return repr(Block())


@case
def repr_named_parameters():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    return [(name, tuple(p.shape), p.requires_grad) for name, p in model.named_parameters()]


@case
def repr_sgd():
    model = torch.nn.Linear(2, 1)
    return repr(torch.optim.SGD(model.parameters(), lr=0.1))


@case
def repr_sgd_momentum():
    model = torch.nn.Linear(2, 1)
    return repr(torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4))


@case
def repr_adam():
    model = torch.nn.Linear(2, 1)
    return repr(torch.optim.Adam(model.parameters(), lr=1e-3))


@case
def repr_max_dim():
    x = torch.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    return repr(torch.max(x, dim=1))


@case
def repr_min_keepdim_grad():
    x = torch.tensor([[1.0, 5.0], [7.0, 0.0]], requires_grad=True)
    return repr(x.min(dim=0, keepdim=True))


@case
def repr_sort_and_topk():
    x = torch.tensor([3.0, 1.0, 2.0])
    return repr(torch.sort(x)), repr(torch.topk(x, 2))


@case
def repr_dtype_size_device():
    x = torch.zeros(2, 3)
    return (repr(x.dtype), str(x.dtype), repr(x.shape), repr(x.size(1)), repr(x.device),
            str(x.device), repr(torch.Size([4])), repr(torch.arange(3).dtype),
            repr(torch.tensor([True]).dtype), repr(torch.float64))


@case
def repr_int_and_double_tensors():
    return (repr(torch.arange(5)), repr(torch.tensor([1.0, 2.5], dtype=torch.float64)),
            repr(torch.tensor([1e-8, 1.0])), repr(torch.tensor(3.0)),
            repr(torch.zeros(0)))


# ---------------------------------------------------------------- grad_fn graphs
def _two():
    a = torch.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
    b = torch.tensor([[1.5, 2.0], [-0.5, 1.0]], requires_grad=True)
    return a, b


OPS = {
    "add": lambda a, b: a + b,
    "add_scalar": lambda a, b: a + 1,
    "sub": lambda a, b: a - b,
    "rsub": lambda a, b: 1 - a,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "neg": lambda a, b: -a,
    "pow_scalar": lambda a, b: a ** 2,
    "pow_tensor": lambda a, b: a.abs() ** b,
    "exp": lambda a, b: a.exp(),
    "log": lambda a, b: b.abs().log(),
    "sin": lambda a, b: a.sin(),
    "tanh": lambda a, b: a.tanh(),
    "sigmoid": lambda a, b: a.sigmoid(),
    "relu": lambda a, b: a.relu(),
    "sum": lambda a, b: a.sum(),
    "sum_dim": lambda a, b: a.sum(dim=0),
    "mean": lambda a, b: a.mean(),
    "matmul": lambda a, b: a @ b,
    "t": lambda a, b: a.t(),
    "transpose": lambda a, b: a.transpose(0, 1),
    "view": lambda a, b: a.view(4),
    "reshape": lambda a, b: a.reshape(4),
    "unsqueeze": lambda a, b: a.unsqueeze(0),
    "expand": lambda a, b: a[0].expand(3, 2),
    "index": lambda a, b: a[:, 0],
    "select": lambda a, b: a[0],
    "cat": lambda a, b: torch.cat([a, b]),
    "stack": lambda a, b: torch.stack([a, b]),
    "clone": lambda a, b: a.clone(),
    "max_all": lambda a, b: a.max(),
    "abs": lambda a, b: a.abs(),
    "clamp": lambda a, b: a.clamp(min=0.0),
    "sqrt": lambda a, b: b.abs().sqrt(),
    "double": lambda a, b: a.double(),
    "softmax": lambda a, b: torch.softmax(a, dim=1),
    "mse_loss": lambda a, b: torch.nn.functional.mse_loss(a, b),
    "linear": lambda a, b: torch.nn.functional.linear(a, b),
}


def graph_of(op):
    a, b = _two()
    out = OPS[op](a, b)
    fn = out.grad_fn
    return fn_name(fn), [(fn_name(f), i) for f, i in fn.next_functions], \
        [next_names(f) if f is not None else None for f, _ in fn.next_functions]


for _op in OPS:
    CASES[f"graph_{_op}"] = (lambda op: lambda: graph_of(op))(_op)


@case
def graph_accumulate_grad_variable():
    a, b = _two()
    fn = (a * b).grad_fn
    leaf_node = fn.next_functions[0][0]
    return (fn_name(leaf_node), leaf_node.variable is a, leaf_node.next_functions,
            a.grad_fn is None)


@case
def graph_no_grad_input_is_none():
    a, _ = _two()
    c = torch.tensor([1.0, 2.0])
    return next_names((a * c).grad_fn), next_names((c * a).grad_fn)


@case
def graph_article():
    x = torch.tensor(1.0, requires_grad=True)
    w = torch.tensor(2.0, requires_grad=True)
    y = (x + w) * (w + 1)
    mul = y.grad_fn
    left, right = (f for f, _ in mul.next_functions)
    return (fn_name(mul), next_names(mul), next_names(left), next_names(right),
            left.next_functions[1][0] is right.next_functions[0][0])


@case
def flags_leaf_and_requires_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([1.0, 2.0])
    y = x * 2
    d = y.detach()
    with torch.no_grad():
        z = x * 2
    return [(t.is_leaf, t.requires_grad) for t in (x, c, y, d, z, c * 2, x.clone())]


@case
def flags_requires_grad_underscore():
    c = torch.tensor([1.0, 2.0])
    c.requires_grad_()
    y = (c * 3).sum()
    y.backward()
    return c.is_leaf, repr(c.grad), repr(y)


@case
def retain_grad_of_intermediate():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.retain_grad()
    y = (h ** 2).sum()
    y.backward()
    return repr(h.grad), repr(x.grad), h.retains_grad, x.retains_grad, h.is_leaf


# ---------------------------------------------------------------- the articles' examples
def article_example(x_value, w_value):
    x = torch.tensor(x_value, requires_grad=True)
    w = torch.tensor(w_value, requires_grad=True)
    a = x + w
    b = w + 1
    a.retain_grad()
    b.retain_grad()
    y = a * b
    y.backward()
    return repr(y), repr(x.grad), repr(w.grad), repr(a.grad), repr(b.grad)


@case
def article_x1_w2():
    return article_example(1.0, 2.0)


@case
def article_x2_w3():
    return article_example(2.0, 3.0)


@case
def article_vectors():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (x + w) * (w + 1)
    y.sum().backward()
    return repr(y), repr(x.grad), repr(w.grad)


@case
def article_backward_with_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.backward(torch.tensor([1.0, 0.5]))
    return repr(x.grad)


@case
def memory_clone_detach():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = x.clone()
    d = x.detach()
    cd = x.clone().detach()
    with torch.no_grad():
        d[0] = 100.0
    cd[1] = -5.0
    return (repr(x), repr(c), repr(d), repr(cd),
            [(t.requires_grad, t.is_leaf, fn_name(t.grad_fn)) for t in (c, d, cd)],
            d.data_ptr() == x.data_ptr(), c.data_ptr() == x.data_ptr(),
            cd.data_ptr() == x.data_ptr(), x._version, d._version)


@case
def memory_grad_through_clone_not_detach():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x.clone() * 3 + x.detach() * 5).sum().backward()
    return repr(x.grad)


@case
def memory_assignment_and_view():
    a = torch.arange(6.0)
    b = a
    v = a.view(2, 3)
    b[0] = 10.0
    v[1, 2] = -1.0
    n = a.numpy()
    n[1] = 7.0
    return repr(a), b is a, v._base is a, v.is_contiguous(), v.t().is_contiguous(), \
        repr(v.t().stride()), a._version


@case
def accumulate_with_retain_graph():
    x = torch.tensor(3.0, requires_grad=True)
    y = x * x
    seen = []
    for _ in range(3):
        y.backward(retain_graph=True)
        seen.append(repr(x.grad))
    x.grad.zero_()
    y.backward()
    seen.append(repr(x.grad))
    return seen


@case
def error_second_backward():
    x = torch.tensor(3.0, requires_grad=True)
    y = x * x
    y.backward()
    return error_text(y.backward)


@case
def error_second_backward_exp():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    y.backward()
    return error_text(y.backward)


@case
def error_non_scalar_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    return error_text((x * 2).backward)


@case
def error_no_grad_fn():
    x = torch.tensor([1.0, 2.0])
    return error_text(x.sum().backward)


@case
def error_sigmoid_detach_zero():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = x.sigmoid()
    s.detach().zero_()
    return s._version, error_text(s.sum().backward)


@case
def error_exp_in_place():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    return error_text(y.sum().backward)


@case
def error_in_place_on_leaf():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    return error_text(lambda: x.add_(1)), error_text(lambda: x.zero_())


@case
def in_place_on_leaf_under_no_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        x.mul_(2)
    return repr(x), x._version, x.is_leaf


@case
def no_grad_results():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        y = x * x + 1
        inside = torch.is_grad_enabled()
    z = x * x
    return (repr(y), y.requires_grad, inside, torch.is_grad_enabled(), repr(z),
            repr(torch.no_grad()(lambda t: t * 2)(x)))


@case
def autograd_grad_create_graph():
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 3
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (g2,) = torch.autograd.grad(g, x)
    return repr(g), repr(g2), x.grad is None


@case
def autograd_grad_two_inputs():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = ((x + w) * (w + 1)).sum()
    return [repr(g) for g in torch.autograd.grad(y, (x, w))]


GRADCHECK = {
    "sin": (lambda x: x.sin(), 1),
    "mul": (lambda x, y: x * y, 2),
    "matmul": (lambda x, y: x @ y, 2),
    "sigmoid_sum": (lambda x: x.sigmoid().sum(), 1),
    "div_pow": (lambda x, y: (x / (y.abs() + 1)) ** 2, 2),
}


def gradcheck_of(name):
    function, count = GRADCHECK[name]
    torch.manual_seed(0)
    inputs = tuple(torch.rand(2, 2, dtype=torch.float64, requires_grad=True)
                   for _ in range(count))
    return torch.autograd.gradcheck(function, inputs)


for _name in GRADCHECK:
    CASES[f"gradcheck_{_name}"] = (lambda name: lambda: gradcheck_of(name))(_name)


class WrongSquare(torch.autograd.Function):
    """x**2 with a wrong backward (forgets the factor 2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x


@case
def gradcheck_wrong_function():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = WrongSquare.apply(x)
    try:
        torch.autograd.gradcheck(WrongSquare.apply, (x,))
    except RuntimeError as error:  # torch.autograd.gradcheck.GradcheckError
        first = f"{type(error).__name__}: {str(error).splitlines()[0]}"
    else:
        first = "no error"
    return (repr(y), fn_name(y.grad_fn), first,
            torch.autograd.gradcheck(WrongSquare.apply, (x,), raise_exception=False))


# ---------------------------------------------------------------- seeded random numbers
@case
def random_rand():
    torch.manual_seed(0)
    return repr(torch.rand(3))


@case
def random_randn():
    torch.manual_seed(0)
    return repr(torch.randn(2, 2))


@case
def random_randn_17():
    torch.manual_seed(0)
    return repr(torch.randn(17)[:4])


@case
def random_randint():
    torch.manual_seed(0)
    return repr(torch.randint(0, 10, (5,)))


@case
def random_randperm():
    torch.manual_seed(0)
    return repr(torch.randperm(6))


@case
def random_sequence_after_seed():
    torch.manual_seed(42)
    return repr(torch.rand(2)), repr(torch.randn(3)), repr(torch.randint(5, (3,)))


@case
def random_seed_1_randn_double():
    torch.manual_seed(1)
    return repr(torch.randn(3, dtype=torch.float64))


# ---------------------------------------------------------------- nn and optim
@case
def nn_linear_init():
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 1)
    return repr(layer.weight), repr(layer.bias), repr(layer)


@case
def nn_linear_forward():
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 2)
    out = layer(torch.tensor([[1.0, 2.0, 3.0]]))
    return repr(out)


@case
def nn_sequential_init():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    return [repr(p) for p in model.parameters()]


def train(optimizer_class, **options):
    """Five steps of a seeded linear regression; the five losses, to 6 decimals."""
    torch.manual_seed(0)
    inputs = torch.randn(8, 3)
    targets = torch.randn(8, 1)
    model = torch.nn.Linear(3, 1)
    optimizer = optimizer_class(model.parameters(), **options)
    losses = []
    for _ in range(5):
        loss = torch.nn.functional.mse_loss(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 6))
    return losses


@case
def train_sgd():
    return train(torch.optim.SGD, lr=0.1)


@case
def train_sgd_momentum():
    return train(torch.optim.SGD, lr=0.05, momentum=0.9)


@case
def train_adam():
    return train(torch.optim.Adam, lr=0.1)


@case
def train_mlp_bce_adam():
    torch.manual_seed(0)
    inputs = torch.randn(6, 2)
    targets = torch.tensor([[1.0], [0.0], [1.0], [0.0], [1.0], [1.0]])
    model = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    losses = []
    for _ in range(5):
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 6))
    return losses


@case
def optimizer_state_after_step():
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    model(torch.tensor([[1.0, -1.0]])).sum().backward()
    optimizer.step()
    optimizer.zero_grad()
    return repr(model.weight), repr(model.bias), model.weight.grad is None


# ---------------------------------------------------------------- viz
# torch has no viz: the golden values were computed from torch's own graph (next_functions,
# AccumulateGrad.variable) and storages (untyped_storage().data_ptr(), numpy's buffers),
# counted the way draw_graph / draw_memory count them: boxes for the root, each op and
# each leaf; one arrow from the root and one per next_functions edge.
def graph_summary(*roots, **names):
    return repr(viz.draw_graph(*roots, names=names))


def storages(**named):
    return viz.draw_memory(**named).storages


@case
def viz_graph_article():
    x = torch.tensor(1.0, requires_grad=True)
    w = torch.tensor(2.0, requires_grad=True)
    y = (x + w) * (w + 1)
    return graph_summary(y, x=x, w=w, y=y)


@case
def viz_graph_article_vectors_after_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = ((x + w) * (w + 1)).sum()
    y.backward(retain_graph=True)
    return graph_summary(y, x=x, w=w, loss=y)


@case
def viz_graph_square_uses_x_twice():
    x = torch.tensor(3.0, requires_grad=True)
    return graph_summary(x * x + x.exp(), x=x)


@case
def viz_graph_constant_input():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    return graph_summary((x * c).sigmoid().sum(), x=x)


@case
def viz_graph_linear_model():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    loss = torch.nn.functional.mse_loss(model(torch.randn(4, 3)), torch.zeros(4, 1))
    return graph_summary(loss, **dict(model.named_parameters()))


@case
def viz_graph_mlp():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    out = model(torch.randn(5, 2)).sigmoid().mean()
    return graph_summary(out, **dict(model.named_parameters()))


@case
def viz_memory_assignment():
    a = torch.arange(4.0)
    b = a
    return storages(a=a, b=b)


@case
def viz_memory_clone_detach():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return storages(x=x, c=x.clone(), d=x.detach(), cd=x.clone().detach(),
                    dc=x.detach().clone())


@case
def viz_memory_views():
    a = torch.arange(6.0).reshape(2, 3)
    return storages(a=a, col=a[:, 1], t=a.t(), row=a[1], flat=a.view(-1),
                    copy=a.contiguous().t().contiguous(), b=torch.arange(6.0))


@case
def viz_memory_numpy():
    a = torch.arange(4.0)
    n = a.numpy()
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    return storages(a=a, n=n, m=n.copy(), half=n[2:], back=torch.from_numpy(n),
                    copied=torch.tensor(n), xn=x.detach().numpy(), x=x)


# printed by torch 2.15.0 running the cases above (see the module docstring)
EXPECTED = {
    'accumulate_with_retain_graph': ['tensor(6.)', 'tensor(12.)', 'tensor(18.)', 'tensor(6.)'],
    'article_backward_with_gradient': 'tensor([2., 2.])',
    'article_vectors': ('tensor([16., 30.], grad_fn=<MulBackward0>)',
                        'tensor([4., 5.])',
                        'tensor([ 8., 11.])'),
    'article_x1_w2': ('tensor(9., grad_fn=<MulBackward0>)',
                      'tensor(3.)',
                      'tensor(6.)',
                      'tensor(3.)',
                      'tensor(3.)'),
    'article_x2_w3': ('tensor(20., grad_fn=<MulBackward0>)',
                      'tensor(4.)',
                      'tensor(9.)',
                      'tensor(4.)',
                      'tensor(5.)'),
    'autograd_grad_create_graph': ('tensor(12., grad_fn=<MulBackward0>)', 'tensor(12.)', True),
    'autograd_grad_two_inputs': ['tensor([4., 5.])', 'tensor([ 8., 11.])'],
    'error_exp_in_place': ('RuntimeError: one of the variables needed for gradient computation '
                           'has been modified by an inplace operation: [torch.FloatTensor [2]], '
                           'which is output 0 of Exp, is at version 1; expected version 0 '
                           'instead. Hint: enable anomaly detection to find the operation that '
                           'failed to compute its gradient, with '
                           'torch.autograd.set_detect_anomaly(True, check_nan=False).'),
    'error_in_place_on_leaf': ('RuntimeError: a leaf Variable that requires grad is being used in '
                               'an in-place operation.',
                               'RuntimeError: a leaf Variable that requires grad is being used in '
                               'an in-place operation.'),
    'error_no_grad_fn': ('RuntimeError: element 0 of tensors does not require grad and does not '
                         'have a grad_fn'),
    'error_non_scalar_backward': ('RuntimeError: grad can be implicitly created only for scalar '
                                  'outputs'),
    'error_second_backward': ('RuntimeError: Trying to backward through the graph a second time '
                              '(or directly access saved tensors after they have already been '
                              'freed). Saved intermediate values of the graph are freed when you '
                              'call .backward() or autograd.grad(). Specify retain_graph=True if '
                              'you need to backward through the graph a second time or if you '
                              'need to access saved tensors after calling backward.'),
    'error_second_backward_exp': ('RuntimeError: Trying to backward through the graph a second '
                                  'time (or directly access saved tensors after they have already '
                                  'been freed). Saved intermediate values of the graph are freed '
                                  'when you call .backward() or autograd.grad(). Specify '
                                  'retain_graph=True if you need to backward through the graph a '
                                  'second time or if you need to access saved tensors after '
                                  'calling backward.'),
    'error_sigmoid_detach_zero': (1,
                                  'RuntimeError: one of the variables needed for gradient '
                                  'computation has been modified by an inplace operation: '
                                  '[torch.FloatTensor [3]], which is output 0 of Sigmoid, is at '
                                  'version 1; expected version 0 instead. Hint: enable anomaly '
                                  'detection to find the operation that failed to compute its '
                                  'gradient, with torch.autograd.set_detect_anomaly(True, '
                                  'check_nan=False).'),
    'flags_leaf_and_requires_grad': [(True, True),
                                     (True, False),
                                     (False, True),
                                     (True, False),
                                     (True, False),
                                     (True, False),
                                     (False, True)],
    'flags_requires_grad_underscore': (True,
                                       'tensor([3., 3.])',
                                       'tensor(9., grad_fn=<SumBackward0>)'),
    'gradcheck_div_pow': True,
    'gradcheck_matmul': True,
    'gradcheck_mul': True,
    'gradcheck_sigmoid_sum': True,
    'gradcheck_sin': True,
    'gradcheck_wrong_function': ('tensor([1., 4.], dtype=torch.float64, '
                                 'grad_fn=<WrongSquareBackward>)',
                                 'WrongSquareBackward',
                                 'GradcheckError: Jacobian mismatch for output 0 with respect to '
                                 'input 0,',
                                 False),
    'graph_abs': ('AbsBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_accumulate_grad_variable': ('torch::autograd::AccumulateGrad', True, (), True),
    'graph_add': ('AddBackward0',
                  [('torch::autograd::AccumulateGrad', 0), ('torch::autograd::AccumulateGrad', 0)],
                  [[], []]),
    'graph_add_scalar': ('AddBackward0',
                         [('torch::autograd::AccumulateGrad', 0), (None, 0)],
                         [[], None]),
    'graph_article': ('MulBackward0',
                      ['AddBackward0', 'AddBackward0'],
                      ['torch::autograd::AccumulateGrad', 'torch::autograd::AccumulateGrad'],
                      ['torch::autograd::AccumulateGrad', None],
                      True),
    'graph_cat': ('CatBackward0',
                  [('torch::autograd::AccumulateGrad', 0), ('torch::autograd::AccumulateGrad', 0)],
                  [[], []]),
    'graph_clamp': ('ClampBackward1', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_clone': ('CloneBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_div': ('DivBackward0',
                  [('torch::autograd::AccumulateGrad', 0), ('torch::autograd::AccumulateGrad', 0)],
                  [[], []]),
    'graph_double': ('ToCopyBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_exp': ('ExpBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_expand': ('ExpandBackward0',
                     [('SelectBackward0', 0)],
                     [['torch::autograd::AccumulateGrad']]),
    'graph_index': ('SelectBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_linear': ('MmBackward0',
                     [('torch::autograd::AccumulateGrad', 0), ('TBackward0', 0)],
                     [[], ['torch::autograd::AccumulateGrad']]),
    'graph_log': ('LogBackward0', [('AbsBackward0', 0)], [['torch::autograd::AccumulateGrad']]),
    'graph_matmul': ('MmBackward0',
                     [('torch::autograd::AccumulateGrad', 0),
                      ('torch::autograd::AccumulateGrad', 0)],
                     [[], []]),
    'graph_max_all': ('MaxBackward1', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_mean': ('MeanBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_mse_loss': ('MseLossBackward0',
                       [('torch::autograd::AccumulateGrad', 0),
                        ('torch::autograd::AccumulateGrad', 0)],
                       [[], []]),
    'graph_mul': ('MulBackward0',
                  [('torch::autograd::AccumulateGrad', 0), ('torch::autograd::AccumulateGrad', 0)],
                  [[], []]),
    'graph_neg': ('NegBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_no_grad_input_is_none': (['torch::autograd::AccumulateGrad', None],
                                    [None, 'torch::autograd::AccumulateGrad']),
    'graph_pow_scalar': ('PowBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_pow_tensor': ('PowBackward1',
                         [('AbsBackward0', 0), ('torch::autograd::AccumulateGrad', 0)],
                         [['torch::autograd::AccumulateGrad'], []]),
    'graph_relu': ('ReluBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_reshape': ('ViewBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_rsub': ('RsubBackward1', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_select': ('SelectBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_sigmoid': ('SigmoidBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_sin': ('SinBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_softmax': ('SoftmaxBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_sqrt': ('SqrtBackward0', [('AbsBackward0', 0)], [['torch::autograd::AccumulateGrad']]),
    'graph_stack': ('StackBackward0',
                    [('torch::autograd::AccumulateGrad', 0),
                     ('torch::autograd::AccumulateGrad', 0)],
                    [[], []]),
    'graph_sub': ('SubBackward0',
                  [('torch::autograd::AccumulateGrad', 0), ('torch::autograd::AccumulateGrad', 0)],
                  [[], []]),
    'graph_sum': ('SumBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_sum_dim': ('SumBackward1', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_t': ('TBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_tanh': ('TanhBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_transpose': ('TransposeBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_unsqueeze': ('UnsqueezeBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'graph_view': ('ViewBackward0', [('torch::autograd::AccumulateGrad', 0)], [[]]),
    'in_place_on_leaf_under_no_grad': ('tensor([2., 4.], requires_grad=True)', 1, True),
    'memory_assignment_and_view': ('tensor([10.,  7.,  2.,  3.,  4., -1.])',
                                   True,
                                   True,
                                   True,
                                   False,
                                   '(1, 3)',
                                   2),
    'memory_clone_detach': ('tensor([100.,   2.,   3.], requires_grad=True)',
                            'tensor([1., 2., 3.], grad_fn=<CloneBackward0>)',
                            'tensor([100.,   2.,   3.])',
                            'tensor([ 1., -5.,  3.])',
                            [(True, False, 'CloneBackward0'),
                             (False, True, None),
                             (False, True, None)],
                            True,
                            False,
                            False,
                            1,
                            1),
    'memory_grad_through_clone_not_detach': 'tensor([3., 3.])',
    'nn_linear_forward': 'tensor([[-0.8219,  0.0526]], grad_fn=<AddmmBackward0>)',
    'nn_linear_init': ('Parameter containing:\n'
                       'tensor([[-0.0043,  0.3097, -0.4752]], requires_grad=True)',
                       'Parameter containing:\ntensor([-0.4249], requires_grad=True)',
                       'Linear(in_features=3, out_features=1, bias=True)'),
    'nn_sequential_init': ['Parameter containing:\n'
                           'tensor([[-0.0053,  0.3793],\n'
                           '        [-0.5820, -0.5204],\n'
                           '        [-0.2723,  0.1896]], requires_grad=True)',
                           'Parameter containing:\n'
                           'tensor([-0.0140,  0.5607, -0.0628], requires_grad=True)',
                           'Parameter containing:\n'
                           'tensor([[ 0.1528, -0.1745, -0.1135]], requires_grad=True)',
                           'Parameter containing:\ntensor([-0.5516], requires_grad=True)'],
    'no_grad_results': ('tensor([2., 5.])',
                        False,
                        False,
                        True,
                        'tensor([1., 4.], grad_fn=<MulBackward0>)',
                        'tensor([2., 4.])'),
    'optimizer_state_after_step': ('Parameter containing:\n'
                                   'tensor([[-0.5053,  0.8793]], requires_grad=True)',
                                   'Parameter containing:\ntensor([-1.0820], requires_grad=True)',
                                   True),
    'random_rand': 'tensor([0.4963, 0.7682, 0.0885])',
    'random_randint': 'tensor([4, 9, 3, 0, 3])',
    'random_randn': 'tensor([[ 1.5410, -0.2934],\n        [-2.1788,  0.5684]])',
    'random_randn_17': 'tensor([-1.1258, -1.6959,  0.5667,  0.7935])',
    'random_randperm': 'tensor([2, 5, 3, 0, 1, 4])',
    'random_seed_1_randn_double': 'tensor([0.6614, 0.2669, 0.0617], dtype=torch.float64)',
    'random_sequence_after_seed': ('tensor([0.8823, 0.9150])',
                                   'tensor([0.4740, 0.1978, 1.1561])',
                                   'tensor([3, 4, 0])'),
    'repr_adam': ('Adam (\n'
                  'Parameter Group 0\n'
                  '    amsgrad: False\n'
                  '    betas: (0.9, 0.999)\n'
                  '    capturable: False\n'
                  '    decoupled_weight_decay: False\n'
                  '    differentiable: False\n'
                  '    eps: 1e-08\n'
                  '    foreach: None\n'
                  '    fused: None\n'
                  '    lr: 0.001\n'
                  '    maximize: False\n'
                  '    weight_decay: 0\n'
                  ')'),
    'repr_detach_and_no_grad': ('tensor([1., 2.])', 'tensor([2., 4.])', False, True),
    'repr_double_and_int_result': ('tensor([ 4.5000, -6.0000], dtype=torch.float64, '
                                   'grad_fn=<MulBackward0>)',
                                   'tensor(0)',
                                   'tensor([ True, False])'),
    'repr_dtype_size_device': ('torch.float32',
                               'torch.float32',
                               'torch.Size([2, 3])',
                               '3',
                               "device(type='cpu')",
                               'cpu',
                               'torch.Size([4])',
                               'torch.int64',
                               'torch.bool',
                               'torch.float64'),
    'repr_int_and_double_tensors': ('tensor([0, 1, 2, 3, 4])',
                                    'tensor([1.0000, 2.5000], dtype=torch.float64)',
                                    'tensor([1.0000e-08, 1.0000e+00])',
                                    'tensor(3.)',
                                    'tensor([])'),
    'repr_leaf_requires_grad': 'tensor([1., 2., 3.], requires_grad=True)',
    'repr_max_dim': 'torch.return_types.max(\nvalues=tensor([5., 7.]),\nindices=tensor([1, 0]))',
    'repr_mean_of_square': 'tensor(4.6667, grad_fn=<MeanBackward0>)',
    'repr_min_keepdim_grad': ('torch.return_types.min(\n'
                              'values=tensor([[1., 0.]], grad_fn=<MinBackward0>),\n'
                              'indices=tensor([[0, 1]]))'),
    'repr_mul_grad_fn': 'tensor([2., 4., 6.], grad_fn=<MulBackward0>)',
    'repr_named_parameters': [('0.weight', (4, 3), True),
                              ('0.bias', (4,), True),
                              ('2.weight', (1, 4), True),
                              ('2.bias', (1,), True)],
    'repr_nested_modules': ('Block(\n'
                            '  (body): Sequential(\n'
                            '    (0): Linear(in_features=2, out_features=8, bias=True)\n'
                            '    (1): Tanh()\n'
                            '    (2): Dropout(p=0.1, inplace=False)\n'
                            '  )\n'
                            '  (head): Linear(in_features=8, out_features=3, bias=True)\n'
                            '  (loss): CrossEntropyLoss()\n'
                            ')'),
    'repr_parameter': ('Parameter containing:\n'
                       'tensor([[1., 1.],\n'
                       '        [1., 1.]], requires_grad=True)'),
    'repr_parameter_no_grad_and_grad': ('Parameter containing:\ntensor([ 1., -1.])',
                                        'tensor([4., 6.])',
                                        'tensor([2., 3.], grad_fn=<MulBackward0>)'),
    'repr_select': 'tensor([3., 4.], grad_fn=<SelectBackward0>)',
    'repr_sequential': ('Sequential(\n'
                        '  (0): Linear(in_features=3, out_features=4, bias=True)\n'
                        '  (1): ReLU()\n'
                        '  (2): Linear(in_features=4, out_features=1, bias=False)\n'
                        '  (3): Sigmoid()\n'
                        ')'),
    'repr_sgd': ('SGD (\n'
                 'Parameter Group 0\n'
                 '    dampening: 0\n'
                 '    differentiable: False\n'
                 '    foreach: None\n'
                 '    fused: None\n'
                 '    lr: 0.1\n'
                 '    maximize: False\n'
                 '    momentum: 0\n'
                 '    nesterov: False\n'
                 '    weight_decay: 0\n'
                 ')'),
    'repr_sgd_momentum': ('SGD (\n'
                          'Parameter Group 0\n'
                          '    dampening: 0\n'
                          '    differentiable: False\n'
                          '    foreach: None\n'
                          '    fused: None\n'
                          '    lr: 0.01\n'
                          '    maximize: False\n'
                          '    momentum: 0.9\n'
                          '    nesterov: False\n'
                          '    weight_decay: 0.0001\n'
                          ')'),
    'repr_sort_and_topk': ('torch.return_types.sort(\n'
                           'values=tensor([1., 2., 3.]),\n'
                           'indices=tensor([1, 2, 0]))',
                           'torch.return_types.topk(\n'
                           'values=tensor([3., 2.]),\n'
                           'indices=tensor([0, 2]))'),
    'repr_sum_scalar': 'tensor(6., grad_fn=<SumBackward0>)',
    'repr_view_and_t': ('tensor([1., 2., 3., 4.], grad_fn=<ViewBackward0>)',
                        'tensor([[1., 3.],\n        [2., 4.]], grad_fn=<TBackward0>)'),
    'retain_grad_of_intermediate': ('tensor([ 6., 12.])', 'tensor([18., 36.])', True, False, False),
    'train_adam': [2.568972, 1.976228, 1.471959, 1.05666, 0.729137],
    'train_mlp_bce_adam': [0.698471, 0.643369, 0.593729, 0.549706, 0.510773],
    'train_sgd': [2.568972, 1.586019, 1.050074, 0.73689, 0.541544],
    'train_sgd_momentum': [2.568972, 2.038625, 1.289337, 0.671435, 0.380635],
    'viz_graph_article': 'Graph: 6 nodes, 6 edges: MulBackward0, AddBackward0 x2; leaves: x, w',
    'viz_graph_article_vectors_after_backward': ('Graph: 7 nodes, 7 edges: SumBackward0, '
                                                 'MulBackward0, AddBackward0 x2; leaves: x, w'),
    'viz_graph_constant_input': ('Graph: 5 nodes, 4 edges: SumBackward0, SigmoidBackward0, '
                                 'MulBackward0; leaves: x'),
    'viz_graph_linear_model': ('Graph: 6 nodes, 5 edges: MseLossBackward0, AddmmBackward0, '
                               'TBackward0; leaves: bias, weight'),
    'viz_graph_mlp': ('Graph: 12 nodes, 11 edges: MeanBackward0, SigmoidBackward0, AddmmBackward0 '
                      'x2, ReluBackward0, TBackward0 x2; leaves: 2.bias, 2.weight, 0.bias, '
                      '0.weight'),
    'viz_graph_square_uses_x_twice': ('Graph: 5 nodes, 6 edges: AddBackward0, MulBackward0, '
                                      'ExpBackward0; leaves: x'),
    'viz_memory_assignment': [['a', 'b']],
    'viz_memory_clone_detach': [['x', 'd'], ['c'], ['cd'], ['dc']],
    'viz_memory_numpy': [['a', 'n', 'half', 'back'], ['m'], ['copied'], ['xn', 'x']],
    'viz_memory_views': [['a', 'col', 't', 'row', 'flat'], ['copy'], ['b']],
}


# ---------------------------------------------------------------- the tests
def close(actual, expected):
    """Equal; floats (losses rounded to 6 decimals) to a relative 1e-6, or one in the
    6th decimal when float32 rounding flips the last printed digit."""
    if isinstance(expected, float) and isinstance(actual, float):
        return math.isclose(actual, expected, rel_tol=1e-6, abs_tol=1.5e-6)
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(actual) == len(expected) and all(map(close, actual, expected))
    return actual == expected


def test_every_case_has_a_golden_value():
    assert sorted(CASES) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_torch(name):
    actual = CASES[name]()
    expected = EXPECTED[name]
    assert close(actual, expected), f"\nengine: {actual!r}\ntorch:  {expected!r}"


@pytest.mark.torch
def test_golden_values_are_torchs():
    """Every case run on torch (this module's code, with ``torch`` the real one) gives its
    golden value: the values above stay the current oracle's, not a copy of the engine's."""
    real_torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
    source = Path(__file__).read_text().replace("import engine as torch\n", "import torch\n", 1)
    namespace = {"__name__": "golden_on_torch"}
    exec(compile(source, __file__, "exec"), namespace)  # noqa: S102 - this file's own code
    assert namespace["torch"] is real_torch
    changed = {}
    for name, function in sorted(namespace["CASES"].items()):
        actual = function()
        if not close(actual, EXPECTED[name]):
            changed[name] = actual
    assert not changed, f"torch {real_torch.__version__} now gives: {changed!r}"
