"""The calls of PyTorch's recipe "How to save memory by fusing the optimizer step into the backward pass" and of the hooks it builds on (post-accumulate-grad hooks, node hooks, multi-grad hooks, set_multithreading_enabled), in its order, on small made-up data.

Our code, run by tests/tutorials/test_tutorials_imports.py with PyTorch and with
``sys.modules["torch"] = engine``: the import statements are the recipe's."""
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
optimizer_dict = {p: torch.optim.Adam([p], foreach=False) for p in model.parameters()}
def optimizer_hook(parameter) -> None:
    optimizer_dict[parameter].step()
    optimizer_dict[parameter].zero_grad()
for p in model.parameters():
    p.register_post_accumulate_grad_hook(optimizer_hook)
x = torch.randn(5, 8)
for _ in range(3):
    model(x).sum().backward()
print(model[0].weight[0], model[2].bias)
print([p.grad for p in model.parameters()][:1])
t = torch.ones(3, requires_grad=True)
y = (t * 2).sum()
h = y.grad_fn.register_prehook(lambda gO: print("prehook", gO))
h2 = y.grad_fn.register_hook(lambda gI, gO: print("hook", gI, gO))
y.backward()
hs = []
a = torch.ones(2, requires_grad=True); b = torch.ones(2, requires_grad=True)
torch.autograd.graph.register_multi_grad_hook((a, b), lambda grads: print("multi", [g is None for g in grads]))
(a * 3).sum().backward()
with torch.autograd.set_multithreading_enabled(False):
    pass
print(type(torch.autograd.grad_mode.no_grad()).__name__)
