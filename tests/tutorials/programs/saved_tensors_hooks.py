"""The calls of PyTorch's tutorial "Hooks for autograd saved tensors", in its order, on small made-up data.

Our code, run by tests/tutorials/test_tutorials_imports.py with PyTorch and with
``sys.modules["torch"] = engine``: the import statements are the tutorial's."""
import torch
import torch.nn as nn
torch.manual_seed(0)
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(y.grad_fn._saved_self)
print(y.grad_fn._saved_self.equal(x))
print(y.grad_fn._saved_self is x)
x = torch.randn(5, requires_grad=True)
y = x.exp()
print(y.grad_fn._saved_result.equal(y))
print(y.grad_fn._saved_result is y)
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(y.grad_fn._raw_saved_self)
def pack_hook(x):
    print("Packing", x)
    return x
def unpack_hook(x):
    print("Unpacking", x)
    return x
a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
y.grad_fn._raw_saved_self.register_hooks(lambda t: t.tolist(), lambda l: torch.tensor(l))
y.sum().backward()
print(x.grad.equal(2 * x))
x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    y = x.pow(2)
y.sum().backward()
print(x.grad)
x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
    y = (x * x).sum()
y.backward()
print(x.grad)
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
try:
    y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
    y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
except RuntimeError as e:
    print(e)
