"""The calls of the PyTorch tutorials a learner reads after lesson 11, in the tutorials' order,
run with torch and with the engine on small synthetic data: everything they print must be the
same (issue 27, section 3).

The code is ours, not the tutorials' text: each case exercises the same calls in the same
order ("Learn the Basics" to "Save and load the model", "What is torch.nn really?", "Learning
PyTorch with examples", the sequence-models tutorial). Where a tutorial downloads a dataset
(FashionMNIST, MNIST) the data here is made from a seeded generator of the same shape; the
download lines are left out. ``torch`` in the code is the library under test; the tutorials'
``from torch import nn`` lines become ``nn = torch.nn``.
"""
import contextlib
import io
import math
import random
import re

import pytest

import engine

torch_module = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch


def _printed(code, library, tmp_path):
    out = io.StringIO()
    scope = {"torch": library, "math": math, "random": random, "PATH": str(tmp_path)}
    with contextlib.redirect_stdout(out):
        exec(code, scope)  # noqa: S102 - the same tutorial code for both libraries
    return out.getvalue()


_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]\d+)?|-?\d+")


def _same_up_to_last_digits(got, expected):
    """The same text; numbers may differ by one unit in their last printed digit (float32 sums
    and matrix products round differently in their last bits: notebooks/DIFFERENCES.md)."""
    if got == expected:
        return True
    if _NUMBER.split(got) != _NUMBER.split(expected):
        return False  # words, punctuation, layout: exactly torch's
    for a, b in zip(_NUMBER.findall(got), _NUMBER.findall(expected)):
        if a == b:
            continue
        mantissa = b.split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exponent = int(b.split("e")[1]) if "e" in b else 0
        if "." not in a or abs(float(a) - float(b)) > 1.01 * 10.0 ** (exponent - decimals):
            return False
    return True


def _assert_prints_the_same(code, tmp_path):
    expected = _printed(code, torch_module, tmp_path / "torch")
    got = _printed(code, engine, tmp_path / "engine")
    assert _same_up_to_last_digits(got, expected), (got, expected)
    assert expected.count("\n") >= 3  # the case printed something to compare


COMMON = """
nn = torch.nn
F = torch.nn.functional
Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader
torch.manual_seed(0)
"""

TUTORIALS = {
    # ------------------------------------------------------------ Learn the Basics
    "basics: tensors": """
data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \\n {x_ones} \\n")
x_rand = torch.rand_like(x_data, dtype=torch.float)
print(f"Random Tensor: \\n {x_rand} \\n")
shape = (2, 3,)
print(torch.rand(shape), torch.ones(shape), torch.zeros(shape), sep="\\n")
tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
print(torch.cuda.is_available())
tensor = torch.ones(4, 4)
print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:, 1] = 0
print(tensor)
t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1)
y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.rand_like(tensor)
torch.mul(tensor, tensor, out=z3)
print(y1, y3, z1, z3)
agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))
print(f"{tensor} \\n")
tensor.add_(5)
print(tensor)
t = torch.ones(5)
n = t.numpy()
t.add_(1)
print(f"t: {t}", f"n: {n}")
""",
    "basics: datasets and dataloaders": """
class SyntheticImages(Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        g = torch.Generator().manual_seed(1)
        self.images = torch.rand(n, 1, 28, 28, generator=g)
        self.labels = torch.randint(0, 10, (n,), generator=g)
        self.transform, self.target_transform = transform, target_transform
    def __len__(self):
        return len(self.labels)
    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx]
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label

labels_map = {i: name for i, name in enumerate(["T-Shirt", "Trouser", "Pullover", "Dress",
              "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle Boot"])}
training_data = SyntheticImages(64)
for i in range(1, 4):
    sample_idx = torch.randint(len(training_data), size=(1,)).item()
    img, label = training_data[sample_idx]
    print(sample_idx, labels_map[label.item()], img.squeeze().shape)
one_hot = lambda y: torch.zeros(10, dtype=torch.float).scatter_(0, torch.tensor(y), value=1)
target_data = SyntheticImages(8, target_transform=one_hot)
print(target_data[3][1])
train_dataloader = DataLoader(training_data, batch_size=16, shuffle=True)
train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")
print(train_labels)
print(train_features[0].squeeze()[10, :6])
""",
    "basics: build the model, autograd, optimization": """
class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 10))
    def forward(self, x):
        x = self.flatten(x)
        return self.linear_relu_stack(x)

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() \\
    else "cpu"
print(f"Using {device} device")
model = NeuralNetwork().to(device)
print(model)
X = torch.rand(1, 28, 28, device=device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
input_image = torch.rand(3, 28, 28)
print(input_image.size())
flat_image = nn.Flatten()(input_image)
print(flat_image.size())
hidden1 = nn.Linear(in_features=28 * 28, out_features=20)(flat_image)
print(hidden1.size())
print(f"Before ReLU: {hidden1}\\n\\n")
hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {hidden1}")
seq_modules = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 20), nn.ReLU(), nn.Linear(20, 10))
logits = seq_modules(input_image)
print(nn.Softmax(dim=1)(logits))
print(f"Model structure: {model}\\n\\n")
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \\n")

x = torch.ones(5)
y = torch.zeros(3)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn.name()}")
print(f"Gradient function for loss = {loss.grad_fn.name()}")
loss.backward()
print(w.grad)
print(b.grad)
z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z_det = (torch.matmul(x, w) + b).detach()
print(z_det.requires_grad)
inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nSecond call\\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nCall after zeroing gradients\\n{inp.grad}")

g = torch.Generator().manual_seed(2)
images, targets = torch.rand(96, 1, 28, 28, generator=g), torch.randint(0, 10, (96,), generator=g)
train_dataloader = DataLoader(torch.utils.data.TensorDataset(images[:64], targets[:64]),
                              batch_size=16, shuffle=True)
test_dataloader = DataLoader(torch.utils.data.TensorDataset(images[64:], targets[64:]),
                             batch_size=16)
learning_rate, batch_size, epochs = 1e-1, 16, 3
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 2 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")

def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \\n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \\n")

for t in range(epochs):
    print(f"Epoch {t+1}\\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")
""",
    "basics: save and load the model": """
model = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 2))
torch.save(model.state_dict(), PATH + "model_weights.pth")
model2 = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 2))
print(model2.load_state_dict(torch.load(PATH + "model_weights.pth", weights_only=True)))
model2.eval()
print(model2)
x = torch.rand(3, 8)
print(torch.equal(model(x), model2(x)), model2(x))
""",
    # ------------------------------------------------------------ What is torch.nn really?
    "nn really: from scratch to nn.Module, optim, DataLoader": """
g = torch.Generator().manual_seed(3)
def images(n):  # like MNIST's: mostly background (0), some strokes in (0, 1]
    return torch.rand(n, 784, generator=g) * (torch.rand(n, 784, generator=g) > 0.8)
x_train, y_train = images(200), torch.randint(0, 10, (200,), generator=g)
x_valid, y_valid = images(50), torch.randint(0, 10, (50,), generator=g)
n, c = x_train.shape
print(x_train, y_train)
print(x_train.shape)
print(y_train.min(), y_train.max())
weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)
def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)
def model(xb):
    return log_softmax(xb @ weights + bias)
bs = 64
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)
def nll(input, target):
    return -input[range(target.shape[0]), target].mean()
loss_func = nll
yb = y_train[0:bs]
print(loss_func(preds, yb))
def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()
print(accuracy(preds, yb))
lr, epochs = 0.5, 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print(loss_func(model(xb), yb), accuracy(model(xb), yb))
loss_func = F.cross_entropy
def model(xb):
    return xb @ weights + bias
print(loss_func(model(xb), yb), accuracy(model(xb), yb))

class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(784, 10) / math.sqrt(784))
        self.bias = nn.Parameter(torch.zeros(10))
    def forward(self, xb):
        return xb @ self.weights + self.bias
model = Mnist_Logistic()
print(loss_func(model(xb), yb))
def fit():
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()
fit()
print(loss_func(model(xb), yb))
class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)
    def forward(self, xb):
        return self.lin(xb)
model = Mnist_Logistic()
print(loss_func(model(xb), yb))
fit()
print(loss_func(model(xb), yb))
optim = torch.optim
def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)
model, opt = get_model()
print(loss_func(model(xb), yb))
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
print(loss_func(model(xb), yb))
TensorDataset = torch.utils.data.TensorDataset
train_ds = TensorDataset(x_train, y_train)
train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)
valid_ds = TensorDataset(x_valid, y_valid)
valid_dl = DataLoader(valid_ds, batch_size=bs * 2)
model, opt = get_model()
for epoch in range(epochs):
    model.train()
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    model.eval()
    with torch.no_grad():
        valid_loss = sum(loss_func(model(xb), yb) for xb, yb in valid_dl)
    print(epoch, valid_loss / len(valid_dl))
""",
    "nn really: CNN, Sequential with Lambda, momentum": """
g = torch.Generator().manual_seed(4)
x_train, y_train = torch.rand(96, 784, generator=g), torch.randint(0, 10, (96,), generator=g)
x_valid, y_valid = torch.rand(32, 784, generator=g), torch.randint(0, 10, (32,), generator=g)
TensorDataset = torch.utils.data.TensorDataset
bs, lr, epochs = 32, 0.1, 2
loss_func = F.cross_entropy
def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True),
            DataLoader(valid_ds, batch_size=bs * 2))
def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)
def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = sum(l * n for l, n in zip(losses, nums)) / sum(nums)
        print(epoch, f"{val_loss:.5f}")
train_dl, valid_dl = get_data(TensorDataset(x_train, y_train),
                              TensorDataset(x_valid, y_valid), bs)
class Mnist_CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1)
    def forward(self, xb):
        xb = xb.view(-1, 1, 28, 28)
        xb = F.relu(self.conv1(xb))
        xb = F.relu(self.conv2(xb))
        xb = F.relu(self.conv3(xb))
        xb = F.avg_pool2d(xb, 4)
        return xb.view(-1, xb.size(1))
model = Mnist_CNN()
opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func
    def forward(self, x):
        return self.func(x)
def preprocess(x, y):
    return x.view(-1, 1, 28, 28), y
class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl, self.func = dl, func
    def __len__(self):
        return len(self.dl)
    def __iter__(self):
        for b in self.dl:
            yield (self.func(*b))
train_dl = WrappedDataLoader(train_dl, preprocess)
valid_dl = WrappedDataLoader(valid_dl, preprocess)
model = nn.Sequential(
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), Lambda(lambda x: x.view(x.size(0), -1)))
opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
print(model)
""",
    # ------------------------------------------------------------ Learning PyTorch with examples
    "examples: tensors, autograd, Function, nn, optim, custom module": """
dtype = torch.float
device = torch.device("cpu")
x = torch.linspace(-math.pi, math.pi, 200, device=device, dtype=dtype)
y = torch.sin(x)
a, b, c, d = (torch.randn((), device=device, dtype=dtype) for _ in range(4))
learning_rate = 1e-6
for t in range(300):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 100 == 99:
        print(t, f"{loss:.3f}")
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d
print(f'Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3')
a, b, c, d = (torch.randn((), dtype=dtype, requires_grad=True) for _ in range(4))
for t in range(300):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f'Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3')
class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
learning_rate = 5e-6
for t in range(300):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None
print(f'Result: y = {a.item():.4f} + {b.item():.4f} * P3({c.item():.4f} + {d.item():.4f} x)')
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction='sum')
learning_rate = 1e-6
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.4f} + {linear_layer.weight[:, 0].item():.4f} x '
      f'+ {linear_layer.weight[:, 1].item():.4f} x^2 + {linear_layer.weight[:, 2].item():.4f} x^3')
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.2f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
    def string(self):
        return (f'y = {self.a.item():.4f} + {self.b.item():.4f} x + {self.c.item():.4f} x^2 + '
                f'{self.d.item():.4f} x^3')
model = Polynomial3()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(300):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f'Result: {model.string()}')
class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))
    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y
random.seed(0)
model = DynamicNet()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(300):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.2f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
    # ------------------------------------------------------------ sequence models
    "sequence models: LSTM part-of-speech tagger": """
torch.manual_seed(1)
lstm = nn.LSTM(3, 3)
inputs = [torch.randn(1, 3) for _ in range(5)]
hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
for i in inputs:
    out, hidden = lstm(i.view(1, 1, -1), hidden)
inputs = torch.cat(inputs).view(len(inputs), 1, -1)
hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
out, hidden = lstm(inputs, hidden)
print(out)
print(hidden)
def prepare_sequence(seq, to_ix):
    idxs = [to_ix[w] for w in seq]
    return torch.tensor(idxs, dtype=torch.long)
training_data = [
    ("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
    ("Everybody read that book".split(), ["NN", "V", "DET", "NN"])]
word_to_ix = {}
for sent, tags in training_data:
    for word in sent:
        if word not in word_to_ix:
            word_to_ix[word] = len(word_to_ix)
print(word_to_ix)
tag_to_ix = {"DET": 0, "NN": 1, "V": 2}
EMBEDDING_DIM = 6
HIDDEN_DIM = 6
class LSTMTagger(nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)
    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        tag_scores = F.log_softmax(tag_space, dim=1)
        return tag_scores
model = LSTMTagger(EMBEDDING_DIM, HIDDEN_DIM, len(word_to_ix), len(tag_to_ix))
loss_function = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with torch.no_grad():
    inputs = prepare_sequence(training_data[0][0], word_to_ix)
    tag_scores = model(inputs)
    print(tag_scores)
for epoch in range(60):
    for sentence, tags in training_data:
        model.zero_grad()
        sentence_in = prepare_sequence(sentence, word_to_ix)
        targets = prepare_sequence(tags, tag_to_ix)
        tag_scores = model(sentence_in)
        loss = loss_function(tag_scores, targets)
        loss.backward()
        optimizer.step()
with torch.no_grad():
    inputs = prepare_sequence(training_data[0][0], word_to_ix)
    tag_scores = model(inputs)
    print(tag_scores)
    print(tag_scores.argmax(1))
print(model)
""",
    "name classification: a character-level RNN": """
import string
import unicodedata
allowed_characters = string.ascii_letters + " .,;'" + "_"
n_letters = len(allowed_characters)
def unicodeToAscii(s):
    return ''.join(c for c in unicodedata.normalize('NFD', s)
                   if unicodedata.category(c) != 'Mn' and c in allowed_characters)
print(unicodeToAscii('Ślusàrski'))
def letterToIndex(letter):
    return allowed_characters.find(letter) if letter in allowed_characters else \
        allowed_characters.find("_")
def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor
print(f"The letter 'a' becomes {lineToTensor('a')}")
print(f"The name 'Ahn' becomes {lineToTensor('Ahn').shape}")
NAMES = {"Scottish": ["Smith", "Brown", "Wilson", "Campbell", "Stewart", "Thomson"],
         "Italian": ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano"],
         "Japanese": ["Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Ito"]}
class NamesDataset(Dataset):
    def __init__(self):
        self.data, self.data_tensors, self.labels, self.labels_tensors = [], [], [], []
        for label, names in NAMES.items():
            for name in names:
                self.data.append(name)
                self.data_tensors.append(lineToTensor(name))
                self.labels.append(label)
        self.labels_uniq = sorted(set(self.labels))
        for idx in range(len(self.labels)):
            temp_tensor = torch.tensor([self.labels_uniq.index(self.labels[idx])],
                                       dtype=torch.long)
            self.labels_tensors.append(temp_tensor)
    def __len__(self):
        return len(self.data)
    def __getitem__(self, idx):
        return self.labels_tensors[idx], self.data_tensors[idx], self.labels[idx], self.data[idx]
alldata = NamesDataset()
print(f"loaded {len(alldata)} items of data")
print(f"example = {alldata[0]}")
train_set, test_set = torch.utils.data.random_split(
    alldata, [.85, .15], generator=torch.Generator(device="cpu").manual_seed(2024))
print(f"train examples = {len(train_set)}, validation examples = {len(test_set)}")
class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)
    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        output = self.softmax(output)
        return output
n_hidden = 16
rnn = CharRNN(n_letters, n_hidden, len(alldata.labels_uniq))
print(rnn)
def label_from_output(output, output_labels):
    top_n, top_i = output.topk(1)
    label_i = top_i[0].item()
    return output_labels[label_i], label_i
input = lineToTensor('Albert')
output = rnn(input)
print(output)
print(label_from_output(output, alldata.labels_uniq))
def train(rnn, training_data, n_epoch=10, n_batch_size=4, report_every=5, learning_rate=0.2,
          criterion=nn.NLLLoss()):
    current_loss = 0
    all_losses = []
    rnn.train()
    optimizer = torch.optim.SGD(rnn.parameters(), lr=learning_rate)
    for iter in range(1, n_epoch + 1):
        rnn.zero_grad()
        batches = list(range(len(training_data)))
        random.shuffle(batches)
        batches = [batches[i:i + n_batch_size] for i in range(0, len(batches), n_batch_size)]
        for idx, batch in enumerate(batches):
            batch_loss = 0
            for i in batch:
                (label_tensor, text_tensor, label, text) = training_data[i]
                output = rnn.forward(text_tensor)
                loss = criterion(output, label_tensor)
                batch_loss += loss
            batch_loss.backward()
            nn.utils.clip_grad_norm_(rnn.parameters(), 3)
            optimizer.step()
            optimizer.zero_grad()
            current_loss += batch_loss.item() / len(batch)
        all_losses.append(current_loss / len(batches))
        if iter % report_every == 0:
            print(f"{iter} ({iter / n_epoch:.0%}): \t average batch loss = {all_losses[-1]:.4f}")
        current_loss = 0
    return all_losses
random.seed(0)
all_losses = train(rnn, train_set)
def evaluate(rnn, testing_data, classes):
    confusion = torch.zeros(len(classes), len(classes))
    rnn.eval()
    with torch.no_grad():
        for i in range(len(testing_data)):
            (label_tensor, text_tensor, label, text) = testing_data[i]
            output = rnn(text_tensor)
            guess, guess_i = label_from_output(output, classes)
            label_i = classes.index(label)
            confusion[label_i][guess_i] += 1
    for i in range(len(classes)):
        denom = confusion[i].sum()
        if denom > 0:
            confusion[i] = confusion[i] / denom
    print(confusion)
evaluate(rnn, test_set, classes=alldata.labels_uniq)
""",
}


@pytest.mark.parametrize("case", TUTORIALS)
def test_tutorial_prints_as_torch(case, tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "engine").mkdir()
    _assert_prints_the_same(COMMON + TUTORIALS[case].replace('PATH + "', 'PATH + "/'),
                            tmp_path)
