"""The calls of PyTorch's notes "Autograd mechanics" (saved tensors, in-place checks, inference mode), "Tensor Attributes", "Tensor Views" (t.storage()), "Broadcasting semantics", "Reproducibility" and the print options, in their order, on small made-up data.

Our code, run by tests/tutorials/test_tutorials_imports.py with PyTorch and with
``sys.modules["torch"] = engine``: the import statements are the notes'."""
import torch
x = torch.ones(5, requires_grad=True)
y = x.exp()
print(y.grad_fn._saved_result is y)
a = torch.randn(3, requires_grad=True)
b = a.sin()
try:
    a.mul_(2)
except RuntimeError as e:
    print(e)
c = a.detach().sin_()
print(torch.is_grad_enabled())
with torch.inference_mode():
    z = torch.ones(2) * 2
print(z.is_inference(), z.requires_grad)
print(torch.finfo(torch.float32).eps, torch.finfo(torch.float16).max, torch.iinfo(torch.int8).min)
print(torch.finfo(torch.float32), torch.iinfo(torch.int32))
print(torch.float32.is_floating_point, torch.int64.is_signed, torch.bool.itemsize, torch.float16.itemsize)
t = torch.rand(4, 4)
b = t.view(2, 8)
print(t.storage().data_ptr() == b.storage().data_ptr())
b[0][0] = 3.14
print(t[0][0])
base = torch.tensor([[0, 1],[2, 3]])
print(base.is_contiguous())
t = base.transpose(0, 1)
print(t.is_contiguous())
c = t.contiguous()
print(c.is_contiguous())
x = torch.empty(5, 7, 3)
y = torch.empty(5, 7, 3)
print((x + y).size())
x = torch.empty((0,))
y = torch.empty(2, 2)
try:
    (x + y)
except RuntimeError as e:
    print(e)
x = torch.empty(5, 3, 4, 1)
y = torch.empty(3, 1, 1)
print((x + y).size())
x = torch.empty(1, 3, 1)
y = torch.empty(3, 1, 7)
try:
    x.add_(y)
except RuntimeError as e:
    print(e)
print(torch.empty(4, 1).add_(torch.empty(1, 4).expand(4, 1) if False else torch.ones(4, 1)).shape)
torch.use_deterministic_algorithms(True)
print(torch.are_deterministic_algorithms_enabled())
torch.use_deterministic_algorithms(False)
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.34567]))
torch.set_printoptions(profile="default")
print(torch.tensor([1.23456]))
print(torch.get_default_dtype())
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.2, 3]).dtype)
torch.set_default_dtype(torch.float32)
print(torch.tensor(3.).element_size(), torch.tensor([1, 2]).nbytes)
