"""The calls of PyTorch's tutorial "the torch.autograd.Variable of older tutorials and answers", in its order, on small made-up data.

Our code, run by tests/tutorials/test_tutorials_imports.py with PyTorch and with
``sys.modules["torch"] = engine``: the import statements are the tutorial's."""
import torch
from torch.autograd import Variable
t = torch.ones(2)
v = Variable(t, requires_grad=True)
print(v, v is t, v.data_ptr()==t.data_ptr(), v._base is None, isinstance(t, Variable), v.is_leaf, t.requires_grad)
print(Variable(t))
y = torch.ones(2, requires_grad=True)*2
w = Variable(y); print(w, w.requires_grad, w.grad_fn)
import warnings
warnings.simplefilter("always")
for args, kw in [((), {}), ((3,), {}), ((t, True), {}), ((t,), dict(volatile=True)), ((t,), dict(foo=1)), ((torch.ones(2, dtype=torch.long),), dict(requires_grad=True)), ((t,), dict(name='x'))]:
    with warnings.catch_warnings(record=True) as got:
        try: r = Variable(*args, **kw); print(repr(r))
        except Exception as e: print(type(e).__name__, e)
    print([str(g.message) for g in got])
print(issubclass(torch.Tensor, Variable), isinstance(3, Variable))
x = Variable(torch.randn(3, 2), requires_grad=True)
(x * 2).sum().backward(); print(x.grad)
