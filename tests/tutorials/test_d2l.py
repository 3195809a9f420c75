"""The calls of d2l's PyTorch chapters up to and including recurrent networks (chapter 9) and
modern recurrent networks (chapter 10: LSTM, GRU, deep and bidirectional RNNs, seq2seq), in the
book's order, run with torch and with the engine on small synthetic data: everything they print
must be the same (issue 27, section 3; the harness is test_tutorials.py's).

The code is ours, not the book's text: the book's helper package (its Module/Trainer/DataModule
classes) is replaced by a few lines that make the same torch calls; datasets it downloads
(FashionMNIST, the Kaggle house prices, The Time Machine) are seeded random tensors or an
inline string of the same kind; sizes are tiny so that each case runs in about a second.
The plotting and pandas lines are left out (they are not torch); the book's ``from torch...
import`` lines become attribute look-ups on ``torch`` (an import statement would load the real
torch). What the engine still prints differently is listed in ``help(engine)`` and
notebooks/DIFFERENCES.md (``type(x)``'s class path, for instance, is not printed here).
"""
import pytest

from tests.tutorials.test_tutorials import COMMON, _assert_prints_the_same

pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch

D2L = {
    # ------------------------------------------------------------ 2 Preliminaries
    "2.1 data manipulation": """
x = torch.arange(12, dtype=torch.float32)
print(x, x.numel(), x.shape)
X = x.reshape(3, 4)
print(X, x.reshape(-1, 4).shape, x.reshape(3, -1).shape)
print(torch.zeros((2, 3, 4)), torch.ones((2, 3, 4)))
print(torch.randn(3, 4))
print(torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]]))
print(X[-1], X[1:3])
X[1, 2] = 17
print(X)
X[:2, :] = 12
print(X)
print(torch.exp(x))
x = torch.tensor([1.0, 2, 4, 8])
y = torch.tensor([2, 2, 2, 2])
print(x + y, x - y, x * y, x / y, x ** y)
X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
print(torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1))
print(X == Y, X.sum())
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
print(a, b, a + b)
before = id(Y)
Y = Y + X
print(id(Y) == before)
Z = torch.zeros_like(Y)
print('id(Z):', id(Z) == id(Z))
z_id = id(Z)
Z[:] = X + Y
print(id(Z) == z_id)
before = id(X)
X += Y
print(id(X) == before)
A = X.numpy()
B = torch.from_numpy(A)
print(isinstance(A, type(A)), isinstance(B, torch.Tensor), B.dtype)
a = torch.tensor([3.5])
print(a, a.item(), float(a), int(a))
""",
    "2.2 data preprocessing (the tensor step)": """
import numpy as np
inputs = np.array([[3.0, 1.0, 0.0], [2.0, 0.0, 1.0], [4.0, 0.0, 1.0], [3.0, 1.0, 0.0]])
targets = np.array([127500.0, 106000.0, 178100.0, 140000.0])
X = torch.tensor(inputs)
y = torch.tensor(targets)
print(X, y)
print(torch.tensor(inputs.astype(np.float32)))
""",
    "2.3 linear algebra": """
x = torch.tensor(3.0)
y = torch.tensor(2.0)
print(x + y, x * y, x / y, x**y)
x = torch.arange(3)
print(x, x[2], len(x), x.shape)
A = torch.arange(6).reshape(3, 2)
print(A, A.T)
A = torch.tensor([[1, 2, 3], [2, 0, 4], [3, 4, 5]])
print(A == A.T)
print(torch.arange(24).reshape(2, 3, 4))
A = torch.arange(6, dtype=torch.float32).reshape(2, 3)
B = A.clone()
print(A, A + B, A * B)
a = 2
X = torch.arange(24).reshape(2, 3, 4)
print(a + X, (a * X).shape)
x = torch.arange(3, dtype=torch.float32)
print(x, x.sum())
print(A.shape, A.sum())
print(A.shape, A.sum(axis=0).shape)
print(A.shape, A.sum(axis=1).shape)
print(A.sum(axis=[0, 1]) == A.sum())
print(A.mean(), A.sum() / A.numel())
print(A.mean(axis=0), A.sum(axis=0) / A.shape[0])
sum_A = A.sum(axis=1, keepdims=True)
print(sum_A, sum_A.shape)
print(A / sum_A)
print(A.cumsum(axis=0))
y = torch.ones(3, dtype=torch.float32)
print(x, y, torch.dot(x, y))
print(torch.sum(x * y))
print(A.shape, x.shape, torch.mv(A, x), A@x)
B = torch.ones(3, 4)
print(torch.mm(A, B), A@B)
u = torch.tensor([3.0, -4.0])
print(torch.norm(u))
print(torch.abs(u).sum())
print(torch.norm(torch.ones((4, 9))))
""",
    "2.4-2.5 calculus and automatic differentiation": """
def f(x):
    return 3 * x ** 2 - 4 * x
for h in 10.0**torch.arange(-1, -6, -1):
    print(f'h={h:.5f}, numerical limit={(f(1+h)-f(1))/h:.5f}')
x = torch.arange(4.0)
print(x)
x.requires_grad_(True)
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad)
print(x.grad == 4 * x)
x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)
x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))
print(x.grad)
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)
def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
print(a.grad == d / a)
""",
    "2.6 probability": """
Multinomial = torch.distributions.multinomial.Multinomial
random.seed(0)
num_tosses = 100
heads = sum([random.random() > 0.5 for _ in range(num_tosses)])
tails = num_tosses - heads
print("heads, tails: ", [heads, tails])
fair_probs = torch.tensor([0.5, 0.5])
print(Multinomial(100, fair_probs).sample())
print(Multinomial(100, fair_probs).sample() / 100)
counts = Multinomial(10000, fair_probs).sample()
print(counts / 10000)
counts = Multinomial(1, fair_probs).sample((100,))
cum_counts = counts.cumsum(dim=0)
estimates = cum_counts / cum_counts.sum(dim=1, keepdims=True)
estimates = estimates.numpy()
print(estimates[:5], estimates[-1])
print(torch.ones(4))
""",

    # ------------------------------------------------------------ 3 Linear regression
    "3.1-3.4 linear regression from scratch": """
def synthetic_data(w, b, num_train=60, num_val=20, noise=0.01):
    n = num_train + num_val
    X = torch.randn(n, len(w))
    noise = torch.randn(n, 1) * noise
    y = torch.matmul(X, w.reshape((-1, 1))) + b + noise
    return X, y
true_w, true_b = torch.tensor([2, -3.4]), 4.2
X, y = synthetic_data(true_w, true_b)
print('features:', X[0], '\\nlabel:', y[0])
def get_dataloader(X, y, batch_size, train, num_train=60):
    if train:
        indices = list(range(0, num_train))
        random.shuffle(indices)
    else:
        indices = list(range(num_train, len(X)))
    for i in range(0, len(indices), batch_size):
        batch_indices = torch.tensor(indices[i: i + batch_size])
        yield X[batch_indices], y[batch_indices]
random.seed(0)
Xb, yb = next(iter(get_dataloader(X, y, 16, True)))
print('X shape:', Xb.shape, '\\ny shape:', yb.shape)
w = torch.normal(0, 0.01, (2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
def forward(X):
    return torch.matmul(X, w) + b
def loss(y_hat, y):
    l = (y_hat - y) ** 2 / 2
    return l.mean()
class SGD:
    def __init__(self, params, lr):
        self.params, self.lr = params, lr
    def step(self):
        for param in self.params:
            param -= self.lr * param.grad
    def zero_grad(self):
        for param in self.params:
            if param.grad is not None:
                param.grad.zero_()
optim = SGD([w, b], 0.03)
for epoch in range(3):
    for Xb, yb in get_dataloader(X, y, 16, True):
        l = loss(forward(Xb), yb)
        optim.zero_grad()
        with torch.enable_grad():
            l.backward()
        with torch.no_grad():
            optim.step()
    with torch.no_grad():
        val = [loss(forward(Xv), yv) for Xv, yv in get_dataloader(X, y, 16, False)]
        print(f'epoch {epoch + 1}, val loss {float(sum(val) / len(val)):.4f}')
print(f'error in estimating w: {true_w - w.reshape(true_w.shape)}')
print(f'error in estimating b: {true_b - b}')
""",
    "3.5 and 3.7 concise linear regression, weight decay": """
X = torch.randn(80, 2)
y = torch.matmul(X, torch.tensor([2, -3.4]).reshape((-1, 1))) + 4.2 + torch.randn(80, 1) * 0.01
def get_tensorloader(tensors, train, indices=slice(0, None)):
    tensors = tuple(a[indices] for a in tensors)
    dataset = torch.utils.data.TensorDataset(*tensors)
    return torch.utils.data.DataLoader(dataset, 16, shuffle=train)
class LinearRegression(nn.Module):
    def __init__(self, lr):
        super().__init__()
        self.lr = lr
        self.net = nn.LazyLinear(1)
        self.net.weight.data.normal_(0, 0.01)
        self.net.bias.data.fill_(0)
    def forward(self, X):
        return self.net(X)
    def loss(self, y_hat, y):
        fn = nn.MSELoss()
        return fn(y_hat, y)
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), self.lr)
    def get_w_b(self):
        return (self.net.weight.data, self.net.bias.data)
model = LinearRegression(lr=0.03)
print(model)
optim = model.configure_optimizers()
for epoch in range(3):
    model.train()
    for Xb, yb in get_tensorloader((X, y), True, slice(0, 60)):
        l = model.loss(model(Xb), yb)
        optim.zero_grad()
        l.backward()
        optim.step()
    model.eval()
    with torch.no_grad():
        for Xv, yv in get_tensorloader((X, y), False, slice(60, None)):
            print(f'epoch {epoch + 1}, val loss {model.loss(model(Xv), yv):.4f}')
w, b = model.get_w_b()
print(f'error in estimating w: {torch.tensor([2, -3.4]) - w.reshape((2,))}')
print(f'error in estimating b: {4.2 - b}')
print(nn.HuberLoss()(model(X[:5]), y[:5]), nn.HuberLoss(delta=0.5)(model(X[:5]) * 3, y[:5]))
n_train, num_inputs = 20, 50
Xd = torch.randn(40, num_inputs)
yd = torch.matmul(Xd, torch.ones((num_inputs, 1)) * 0.01) + 0.05 + torch.randn(40, 1) * 0.01
def l2_penalty(w):
    return (w ** 2).sum() / 2
w = torch.normal(0, 0.01, size=(num_inputs, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for epoch in range(5):
    for Xb, yb in get_tensorloader((Xd, yd), True, slice(0, n_train)):
        l = ((torch.matmul(Xb, w) + b - yb) ** 2 / 2).mean() + 3 * l2_penalty(w)
        l.backward()
        with torch.no_grad():
            for param in [w, b]:
                param -= 0.01 * param.grad
                param.grad.zero_()
# (the book prints every digit of a float32 sum, whose last bit follows the summation order)
print(f'L2 norm of w: {float(l2_penalty(w)):.6g}')
class WeightDecay(LinearRegression):
    def __init__(self, wd, lr):
        super().__init__(lr)
        self.wd = wd
    def configure_optimizers(self):
        return torch.optim.SGD([
            {'params': self.net.weight, 'weight_decay': self.wd},
            {'params': self.net.bias}], lr=self.lr)
model = WeightDecay(wd=3, lr=0.01)
model(Xd[:1])
optim = model.configure_optimizers()
print(optim)
for epoch in range(5):
    for Xb, yb in get_tensorloader((Xd, yd), True, slice(0, n_train)):
        l = model.loss(model(Xb), yb)
        optim.zero_grad()
        l.backward()
        optim.step()
print(f'L2 norm of w: {float(l2_penalty(model.get_w_b()[0])):.6g}')
""",
    # ------------------------------------------------------------ 4 Softmax regression
    "4.1-4.5 softmax regression from scratch and concise": """
g = torch.Generator().manual_seed(3)
images = torch.rand(64, 1, 8, 8, generator=g)
labels = torch.randint(0, 10, (64,), generator=g)
text_labels = ['t-shirt', 'trouser', 'pullover', 'dress', 'coat',
               'sandal', 'shirt', 'sneaker', 'bag', 'ankle boot']
print([text_labels[int(i)] for i in labels[:6]])
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels),
                                     batch_size=16, shuffle=True)
X, y = next(iter(loader))
print(X.shape, X.dtype, y.shape, y.dtype)
X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(X.sum(0, keepdims=True), X.sum(1, keepdims=True))
def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdims=True)
    return X_exp / partition
X = torch.rand((2, 5))
X_prob = softmax(X)
print(X_prob, X_prob.sum(1))
num_inputs, num_outputs = 64, 10
W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)
def net(X):
    X = X.reshape((-1, W.shape[0]))
    return softmax(torch.matmul(X, W) + b)
y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])
def cross_entropy(y_hat, y):
    return -torch.log(y_hat[list(range(len(y_hat))), y]).mean()
print(cross_entropy(y_hat, y))
def accuracy(Y_hat, Y, averaged=True):
    Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
    preds = Y_hat.argmax(axis=1).type(Y.dtype)
    compare = (preds == Y.reshape(-1)).type(torch.float32)
    return compare.mean() if averaged else compare
for epoch in range(3):
    for Xb, yb in loader:
        l = cross_entropy(net(Xb), yb)
        l.backward()
        with torch.no_grad():
            for p in (W, b):
                p -= 0.1 * p.grad
                p.grad.zero_()
    with torch.no_grad():
        print(f'epoch {epoch + 1}, loss {cross_entropy(net(images), labels):.4f}, '
              f'acc {accuracy(net(images), labels):.4f}')
preds = net(images[:8]).argmax(axis=1)
wrong = preds.type(labels.dtype) != labels[:8]
print(wrong, accuracy(net(images[:8]), labels[:8], averaged=False))
class SoftmaxRegression(nn.Module):
    def __init__(self, num_outputs, lr):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(nn.Flatten(), nn.LazyLinear(num_outputs))
    def forward(self, X):
        return self.net(X)
    def loss(self, Y_hat, Y, averaged=True):
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        Y = Y.reshape((-1,))
        return F.cross_entropy(Y_hat, Y, reduction='mean' if averaged else 'none')
model = SoftmaxRegression(num_outputs=10, lr=0.1)
print(model)
model(images[:1])
print(model)
optim = torch.optim.SGD(model.parameters(), lr=model.lr)
for epoch in range(3):
    for Xb, yb in loader:
        l = model.loss(model(Xb), yb)
        optim.zero_grad()
        l.backward()
        optim.step()
    with torch.no_grad():
        print(f'epoch {epoch + 1}, loss {model.loss(model(images), labels):.4f}, '
              f'acc {accuracy(model(images), labels):.4f}')
print(model.loss(model(images[:3]), labels[:3], averaged=False))
""",
    # ------------------------------------------------------------ 5 Multilayer perceptrons
    "5.1-5.2 activations, MLP from scratch and concise": """
x = torch.arange(-8.0, 8.0, 0.5, requires_grad=True)
y = torch.relu(x)
print(y)
y.backward(torch.ones_like(x), retain_graph=True)
print(x.grad)
y = torch.sigmoid(x)
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
print(y, x.grad)
y = torch.tanh(x)
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
print(y, x.grad)
g = torch.Generator().manual_seed(4)
images = torch.rand(48, 1, 8, 8, generator=g)
labels = torch.randint(0, 10, (48,), generator=g)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels),
                                     batch_size=16, shuffle=True)
class MLPScratch(nn.Module):
    def __init__(self, num_inputs, num_outputs, num_hiddens, lr, sigma=0.01):
        super().__init__()
        self.lr = lr
        self.W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens) * sigma)
        self.b1 = nn.Parameter(torch.zeros(num_hiddens))
        self.W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs) * sigma)
        self.b2 = nn.Parameter(torch.zeros(num_outputs))
    def forward(self, X):
        X = X.reshape((-1, self.W1.shape[0]))
        H = relu(torch.matmul(X, self.W1) + self.b1)
        return torch.matmul(H, self.W2) + self.b2
def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)
class MLP(nn.Module):
    def __init__(self, num_outputs, num_hiddens, lr):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(nn.Flatten(), nn.LazyLinear(num_hiddens),
                                 nn.ReLU(), nn.LazyLinear(num_outputs))
    def forward(self, X):
        return self.net(X)
for model in (MLPScratch(num_inputs=64, num_outputs=10, num_hiddens=32, lr=0.1),
              MLP(num_outputs=10, num_hiddens=32, lr=0.1)):
    model(images[:1])
    print(model)
    optim = torch.optim.SGD(model.parameters(), lr=model.lr)
    for epoch in range(3):
        for Xb, yb in loader:
            l = F.cross_entropy(model(Xb), yb)
            optim.zero_grad()
            l.backward()
            optim.step()
        with torch.no_grad():
            print(f'epoch {epoch + 1}, loss {F.cross_entropy(model(images), labels):.4f}')
""",
    "5.4-5.6 numerical stability, initialisation, dropout": """
x = torch.arange(-8.0, 8.0, 1.0, requires_grad=True)
y = torch.sigmoid(x)
y.backward(torch.ones_like(x))
print(x.grad)
M = torch.normal(0, 1, size=(4, 4))
print('a single matrix \\n', M)
for i in range(5):
    M = M @ torch.normal(0, 1, size=(4, 4))
print('after multiplying 5 matrices\\n', M)
def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)
X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print('dropout_p = 0:', dropout_layer(X, 0))
print('dropout_p = 0.5:', dropout_layer(X, 0.5))
print('dropout_p = 1:', dropout_layer(X, 1))
class DropoutMLPScratch(nn.Module):
    def __init__(self, num_outputs, num_hiddens_1, num_hiddens_2, dropout_1, dropout_2, lr):
        super().__init__()
        self.lr, self.dropout_1, self.dropout_2 = lr, dropout_1, dropout_2
        self.lin1 = nn.LazyLinear(num_hiddens_1)
        self.lin2 = nn.LazyLinear(num_hiddens_2)
        self.lin3 = nn.LazyLinear(num_outputs)
        self.relu = nn.ReLU()
    def forward(self, X):
        H1 = self.relu(self.lin1(X.reshape((X.shape[0], -1))))
        if self.training:
            H1 = dropout_layer(H1, self.dropout_1)
        H2 = self.relu(self.lin2(H1))
        if self.training:
            H2 = dropout_layer(H2, self.dropout_2)
        return self.lin3(H2)
class DropoutMLP(nn.Module):
    def __init__(self, num_outputs, num_hiddens_1, num_hiddens_2, dropout_1, dropout_2, lr):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(
            nn.Flatten(), nn.LazyLinear(num_hiddens_1), nn.ReLU(),
            nn.Dropout(dropout_1), nn.LazyLinear(num_hiddens_2), nn.ReLU(),
            nn.Dropout(dropout_2), nn.LazyLinear(num_outputs))
    def forward(self, X):
        return self.net(X)
g = torch.Generator().manual_seed(5)
images = torch.rand(32, 1, 6, 6, generator=g)
labels = torch.randint(0, 10, (32,), generator=g)
for cls in (DropoutMLPScratch, DropoutMLP):
    model = cls(10, 16, 16, 0.5, 0.5, 0.1)
    model(images[:1])
    print(model)
    optim = torch.optim.SGD(model.parameters(), lr=model.lr)
    for step in range(4):
        model.train()
        l = F.cross_entropy(model(images), labels)
        optim.zero_grad()
        l.backward()
        optim.step()
        model.eval()
        print(f'step {step}, train loss {l:.4f}, '
              f'eval loss {F.cross_entropy(model(images), labels):.4f}')
def log_rmse(preds, labels):
    clipped_preds = torch.clamp(preds, 1, float('inf'))
    return torch.sqrt(F.mse_loss(torch.log(clipped_preds), torch.log(labels)))
print(log_rmse(torch.tensor([[0.5], [120000.0]]), torch.tensor([[100.0], [110000.0]])))
folds = [torch.randn(4, 3) for _ in range(3)]
print(torch.cat([f for j, f in enumerate(folds) if j != 1], 0).shape)
""",

    # ------------------------------------------------------------ 6 Builders' guide
    "6.1 layers and modules": """
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
X = torch.rand(2, 20)
print(net(X).shape)
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.LazyLinear(256)
        self.out = nn.LazyLinear(10)
    def forward(self, X):
        return self.out(F.relu(self.hidden(X)))
net = MLP()
print(net(X).shape)
class MySequential(nn.Module):
    def __init__(self, *args):
        super().__init__()
        for idx, module in enumerate(args):
            self.add_module(str(idx), module)
    def forward(self, X):
        for module in self.children():
            X = module(X)
        return X
net = MySequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
print(net(X).shape, net)
class FixedHiddenMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.rand_weight = torch.rand((20, 20))
        self.linear = nn.LazyLinear(20)
    def forward(self, X):
        X = self.linear(X)
        X = F.relu(X @ self.rand_weight + 1)
        X = self.linear(X)
        while X.abs().sum() > 1:
            X /= 2
        return X.sum()
net = FixedHiddenMLP()
print(net(X))
class NestMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.LazyLinear(64), nn.ReLU(), nn.LazyLinear(32), nn.ReLU())
        self.linear = nn.LazyLinear(16)
    def forward(self, X):
        return self.linear(self.net(X))
chimera = nn.Sequential(NestMLP(), nn.LazyLinear(20), FixedHiddenMLP())
print(chimera(X))
print(chimera)
""",
    "6.2-6.4 parameters, initialisation, lazy initialisation": """
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
X = torch.rand(size=(2, 4))
print(net(X).shape)
print(net[2].state_dict())
print(net[2].bias, net[2].bias.data)
print(net[2].weight.grad == None)
print([(name, param.shape) for name, param in net.named_parameters()])
shared = nn.LazyLinear(8)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(),
                    nn.LazyLinear(1))
net(X)
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
print(net[2].weight.data[0] == net[4].weight.data[0])
print(len(list(net.parameters())), net)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
net(X)
def init_normal(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)
net.apply(init_normal)
print(net[0].weight.data[0], net[0].bias.data[0])
def init_constant(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 1)
        nn.init.zeros_(module.bias)
net.apply(init_constant)
print(net[0].weight.data[0], net[0].bias.data[0])
def init_xavier(module):
    if type(module) == nn.Linear:
        nn.init.xavier_uniform_(module.weight)
def init_42(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 42)
net[0].apply(init_xavier)
net[2].apply(init_42)
print(net[0].weight.data[0])
print(net[2].weight.data)
def my_init(module):
    if type(module) == nn.Linear:
        print("Init", *[(name, param.shape) for name, param in module.named_parameters()][0])
        nn.init.uniform_(module.weight, -10, 10)
        module.weight.data *= module.weight.data.abs() >= 5
net.apply(my_init)
print(net[0].weight[:2])
net[0].weight.data[:] += 1
net[0].weight.data[0, 0] = 42
print(net[0].weight.data[0])
nn.init.xavier_normal_(net[0].weight)
nn.init.kaiming_uniform_(net[0].weight, nonlinearity='relu')
nn.init.kaiming_normal_(net[2].weight)
nn.init.ones_(net[2].bias)
print(net[0].weight.data[0], net[2].weight, net[2].bias)
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
print(net[0].weight)
print(net)
X = torch.rand(2, 20)
net(X)
print(net[0].weight.shape)
print(net)
def apply_init(net, inputs, init=None):
    net(*inputs)
    if init is not None:
        net.apply(init)
net = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(2))
apply_init(net, [torch.rand(3, 5)], init_xavier)
print(net[0].weight, net[2].bias)
""",
    "6.5-6.7 custom layers, file I/O, the GPU section on the CPU": """
class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, X):
        return X - X.mean()
layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
net = nn.Sequential(nn.LazyLinear(128), CenteredLayer())
Y = net(torch.rand(4, 8))
print(Y.mean().abs() < 1e-6, Y.shape)
class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))
    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)
linear = MyLinear(5, 3)
print(linear.weight)
print(linear(torch.rand(2, 5)))
net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
print(net(torch.rand(2, 64)))
x = torch.arange(4)
torch.save(x, PATH + "x-file")
x2 = torch.load(PATH + "x-file")
print(x2)
y = torch.zeros(4)
torch.save([x, y], PATH + "x-files")
x2, y2 = torch.load(PATH + "x-files")
print(x2, y2)
mydict = {'x': x, 'y': y}
torch.save(mydict, PATH + "mydict")
mydict2 = torch.load(PATH + "mydict")
print(mydict2)
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.LazyLinear(256)
        self.output = nn.LazyLinear(10)
    def forward(self, x):
        return self.output(F.relu(self.hidden(x)))
net = MLP()
X = torch.randn(size=(2, 20))
Y = net(X)
torch.save(net.state_dict(), PATH + "mlp.params")
clone = MLP()
clone.load_state_dict(torch.load(PATH + "mlp.params"))
print(clone.eval())
Y_clone = clone(X)
print(Y_clone == Y)
def cpu():
    return torch.device('cpu')
def gpu(i=0):
    return torch.device(f'cuda:{i}')
print(cpu(), gpu(), gpu(1))
def num_gpus():
    return torch.cuda.device_count()
print(num_gpus())
def try_gpu(i=0):
    if num_gpus() >= i + 1:
        return gpu(i)
    return cpu()
def try_all_gpus():
    return [gpu(i) for i in range(num_gpus())]
print(try_gpu(), try_gpu(10), try_all_gpus())
x = torch.tensor([1, 2, 3])
print(x.device)
X = torch.ones(2, 3, device=try_gpu())
print(X)
Y = torch.rand(2, 3, device=try_gpu(1))
Z = X.to(try_gpu(1))
print(Z.device, Z is X, X.cuda if False else X.cpu() is X)
print(Y + Z - Y)
net = nn.Sequential(nn.LazyLinear(1))
net = net.to(device=try_gpu())
print(net(X))
print(net[0].weight.data.device)
""",

    # ------------------------------------------------------------ 7 Convolutional networks
    "7.1-7.4 cross-correlation, edges, learning a kernel, padding, stride, channels": """
img = torch.ones((2, 3, 4))
print(img.shape, img[0].reshape(-1).shape)
def corr2d(X, K):
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y
X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print(corr2d(X, K))
class Conv2D(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(kernel_size))
        self.bias = nn.Parameter(torch.zeros(1))
    def forward(self, x):
        return corr2d(x, self.weight) + self.bias
print(Conv2D((1, 2))(X))
X = torch.ones((6, 8))
X[:, 2:6] = 0
print(X)
K = torch.tensor([[1.0, -1.0]])
Y = corr2d(X, K)
print(Y)
print(corr2d(X.t(), K))
conv2d = nn.LazyConv2d(1, kernel_size=(1, 2), bias=False)
X = X.reshape((1, 1, 6, 8))
Y = Y.reshape((1, 1, 6, 7))
lr = 3e-2
for i in range(10):
    Y_hat = conv2d(X)
    l = (Y_hat - Y) ** 2
    conv2d.zero_grad()
    l.sum().backward()
    conv2d.weight.data[:] -= lr * conv2d.weight.grad
    if (i + 1) % 2 == 0:
        print(f'epoch {i + 1}, loss {l.sum():.3f}')
print(conv2d.weight.data.reshape((1, 2)))
def comp_conv2d(conv2d, X):
    X = X.reshape((1, 1) + X.shape)
    Y = conv2d(X)
    return Y.reshape(Y.shape[2:])
X = torch.rand(size=(8, 8))
print(comp_conv2d(nn.LazyConv2d(1, kernel_size=3, padding=1), X).shape)
print(comp_conv2d(nn.LazyConv2d(1, kernel_size=(5, 3), padding=(2, 1)), X).shape)
print(comp_conv2d(nn.LazyConv2d(1, kernel_size=3, padding=1, stride=2), X).shape)
print(comp_conv2d(nn.LazyConv2d(1, kernel_size=(3, 5), padding=(0, 1), stride=(3, 4)), X).shape)
def corr2d_multi_in(X, K):
    return sum(corr2d(x, k) for x, k in zip(X, K))
X = torch.tensor([[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
                  [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]])
K = torch.tensor([[[0.0, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])
print(corr2d_multi_in(X, K))
def corr2d_multi_in_out(X, K):
    return torch.stack([corr2d_multi_in(X, k) for k in K], 0)
K = torch.stack((K, K + 1, K + 2), 0)
print(K.shape)
print(corr2d_multi_in_out(X, K))
def corr2d_multi_in_out_1x1(X, K):
    c_i, h, w = X.shape
    c_o = K.shape[0]
    X = X.reshape((c_i, h * w))
    K = K.reshape((c_o, c_i))
    Y = torch.matmul(K, X)
    return Y.reshape((c_o, h, w))
X = torch.normal(0, 1, (3, 3, 3))
K = torch.normal(0, 1, (2, 3, 1, 1))
Y1 = corr2d_multi_in_out_1x1(X, K)
Y2 = corr2d_multi_in_out(X, K)
print(float(torch.abs(Y1 - Y2).sum()) < 1e-6)
""",
    "7.5-7.6 pooling and LeNet": """
def pool2d(X, pool_size, mode='max'):
    p_h, p_w = pool_size
    Y = torch.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            if mode == 'max':
                Y[i, j] = X[i: i + p_h, j: j + p_w].max()
            elif mode == 'avg':
                Y[i, j] = X[i: i + p_h, j: j + p_w].mean()
    return Y
X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
print(pool2d(X, (2, 2)), pool2d(X, (2, 2), 'avg'))
X = torch.arange(16, dtype=torch.float32).reshape((1, 1, 4, 4))
print(X)
pool2d = nn.MaxPool2d(3)
print(pool2d(X))
pool2d = nn.MaxPool2d(3, padding=1, stride=2)
print(pool2d(X))
pool2d = nn.MaxPool2d((2, 3), stride=(2, 3), padding=(0, 1))
print(pool2d(X))
X = torch.cat((X, X + 1), 1)
print(X)
pool2d = nn.MaxPool2d(3, padding=1, stride=2)
print(pool2d(X))
def init_cnn(module):
    if type(module) == nn.Linear or type(module) == nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)
class LeNet(nn.Module):
    def __init__(self, lr=0.1, num_classes=10):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(
            nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
            nn.AvgPool2d(kernel_size=2, stride=2),
            nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
            nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Flatten(),
            nn.LazyLinear(120), nn.Sigmoid(),
            nn.LazyLinear(84), nn.Sigmoid(),
            nn.LazyLinear(num_classes))
    def forward(self, X):
        return self.net(X)
    def layer_summary(self, X_shape):
        X = torch.randn(*X_shape)
        for layer in self.net:
            X = layer(X)
            print(layer.__class__.__name__, 'output shape:\\t', X.shape)
model = LeNet()
model.layer_summary((1, 1, 28, 28))
g = torch.Generator().manual_seed(6)
images = torch.rand(8, 1, 28, 28, generator=g)
labels = torch.randint(0, 10, (8,), generator=g)
model = LeNet(lr=0.1)
model(images[:1])
model.apply(init_cnn)
print(model)
optim = torch.optim.SGD(model.parameters(), lr=model.lr)
for step in range(3):
    l = F.cross_entropy(model(images), labels)
    optim.zero_grad()
    l.backward()
    optim.step()
    print(f'step {step}, loss {l:.4f}')
""",
    # ------------------------------------------------------------ 8 Modern CNNs
    "8.1-8.4 AlexNet, VGG, NiN and GoogLeNet blocks (tiny)": """
alexnet = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=11, stride=4, padding=1), nn.ReLU(),
    nn.MaxPool2d(kernel_size=3, stride=2),
    nn.LazyConv2d(16, kernel_size=5, padding=2), nn.ReLU(),
    nn.MaxPool2d(kernel_size=3, stride=2),
    nn.LazyConv2d(24, kernel_size=3, padding=1), nn.ReLU(),
    nn.LazyConv2d(24, kernel_size=3, padding=1), nn.ReLU(),
    nn.LazyConv2d(16, kernel_size=3, padding=1), nn.ReLU(),
    nn.MaxPool2d(kernel_size=3, stride=2), nn.Flatten(),
    nn.LazyLinear(32), nn.ReLU(), nn.Dropout(p=0.5),
    nn.LazyLinear(32), nn.ReLU(), nn.Dropout(p=0.5),
    nn.LazyLinear(10))
X = torch.randn(1, 1, 96, 96)
for layer in alexnet:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape:\\t', X.shape)
def vgg_block(num_convs, out_channels):
    layers = []
    for _ in range(num_convs):
        layers.append(nn.LazyConv2d(out_channels, kernel_size=3, padding=1))
        layers.append(nn.ReLU())
    layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
    return nn.Sequential(*layers)
arch = ((1, 4), (1, 8), (2, 8))
conv_blks = []
for (num_convs, out_channels) in arch:
    conv_blks.append(vgg_block(num_convs, out_channels))
vgg = nn.Sequential(*conv_blks, nn.Flatten(), nn.LazyLinear(16), nn.ReLU(), nn.Dropout(0.5),
                    nn.LazyLinear(10))
X = torch.randn(1, 1, 32, 32)
for layer in vgg:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape:\\t', X.shape)
print(vgg)
def nin_block(out_channels, kernel_size, strides, padding):
    return nn.Sequential(
        nn.LazyConv2d(out_channels, kernel_size, strides, padding), nn.ReLU(),
        nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU(),
        nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU())
nin = nn.Sequential(
    nin_block(8, kernel_size=5, strides=2, padding=0),
    nn.MaxPool2d(3, stride=2),
    nin_block(10, kernel_size=3, strides=1, padding=1),
    nn.Dropout(0.5),
    nn.AdaptiveAvgPool2d((1, 1)),
    nn.Flatten())
X = torch.randn(1, 1, 32, 32)
for layer in nin:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape:\\t', X.shape)
class Inception(nn.Module):
    def __init__(self, c1, c2, c3, c4, **kwargs):
        super(Inception, self).__init__(**kwargs)
        self.b1_1 = nn.LazyConv2d(c1, kernel_size=1)
        self.b2_1 = nn.LazyConv2d(c2[0], kernel_size=1)
        self.b2_2 = nn.LazyConv2d(c2[1], kernel_size=3, padding=1)
        self.b3_1 = nn.LazyConv2d(c3[0], kernel_size=1)
        self.b3_2 = nn.LazyConv2d(c3[1], kernel_size=5, padding=2)
        self.b4_1 = nn.MaxPool2d(kernel_size=3, stride=1, padding=1)
        self.b4_2 = nn.LazyConv2d(c4, kernel_size=1)
    def forward(self, x):
        b1 = F.relu(self.b1_1(x))
        b2 = F.relu(self.b2_2(F.relu(self.b2_1(x))))
        b3 = F.relu(self.b3_2(F.relu(self.b3_1(x))))
        b4 = F.relu(self.b4_2(self.b4_1(x)))
        return torch.cat((b1, b2, b3, b4), dim=1)
googlenet = nn.Sequential(
    nn.Sequential(nn.LazyConv2d(4, kernel_size=7, stride=2, padding=3), nn.ReLU(),
                  nn.MaxPool2d(kernel_size=3, stride=2, padding=1)),
    nn.Sequential(Inception(2, (2, 4), (1, 2), 2), Inception(4, (2, 4), (1, 2), 2),
                  nn.MaxPool2d(kernel_size=3, stride=2, padding=1)),
    nn.Sequential(Inception(4, (2, 4), (1, 2), 2), nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten()),
    nn.LazyLinear(10))
X = torch.randn(1, 1, 24, 24)
for layer in googlenet:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape:\\t', X.shape)
print(googlenet[1][0])
print(X)
""",
    "8.5 batch normalization from scratch and concise": """
def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data
class BatchNorm(nn.Module):
    def __init__(self, num_features, num_dims):
        super().__init__()
        if num_dims == 2:
            shape = (1, num_features)
        else:
            shape = (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)
    def forward(self, X):
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean,
            self.moving_var, eps=1e-5, momentum=0.1)
        return Y
def lenet_bn(norm2d, norm1d):
    return nn.Sequential(
        nn.LazyConv2d(6, kernel_size=5), norm2d(6), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.LazyConv2d(8, kernel_size=5), norm2d(8), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
        nn.LazyLinear(12), norm1d(12), nn.Sigmoid(),
        nn.LazyLinear(10))
g = torch.Generator().manual_seed(7)
images = torch.rand(8, 1, 20, 20, generator=g)
labels = torch.randint(0, 10, (8,), generator=g)
for net in (lenet_bn(lambda n: BatchNorm(n, num_dims=4), lambda n: BatchNorm(n, num_dims=2)),
            lenet_bn(lambda n: nn.LazyBatchNorm2d(), lambda n: nn.LazyBatchNorm1d())):
    net(images[:2])
    optim = torch.optim.SGD(net.parameters(), lr=0.1)
    for step in range(3):
        l = F.cross_entropy(net(images), labels)
        optim.zero_grad()
        l.backward()
        optim.step()
        print(f'step {step}, loss {l:.4f}')
    print(net[1].gamma.reshape((-1,)) if hasattr(net[1], 'gamma') else net[1].weight,
          net[1].beta.reshape((-1,)) if hasattr(net[1], 'beta') else net[1].bias)
    net.eval()
    with torch.no_grad():
        print(net(images[:2]))
    print(net)
""",
    "8.6-8.8 ResNet, ResNeXt and DenseNet blocks (tiny)": """
class Residual(nn.Module):
    def __init__(self, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1, stride=strides)
        self.conv2 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
        if use_1x1conv:
            self.conv3 = nn.LazyConv2d(num_channels, kernel_size=1, stride=strides)
        else:
            self.conv3 = None
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()
    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)
blk = Residual(3)
X = torch.randn(4, 3, 6, 6)
print(blk(X).shape)
blk = Residual(6, use_1x1conv=True, strides=2)
print(blk(X).shape)
print(blk)
class ResNeXtBlock(nn.Module):
    def __init__(self, num_channels, groups, bot_mul, use_1x1conv=False, strides=1):
        super().__init__()
        bot_channels = int(round(num_channels * bot_mul))
        self.conv1 = nn.LazyConv2d(bot_channels, kernel_size=1, stride=1)
        self.conv2 = nn.LazyConv2d(bot_channels, kernel_size=3, stride=strides, padding=1,
                                   groups=bot_channels // groups)
        self.conv3 = nn.LazyConv2d(num_channels, kernel_size=1, stride=1)
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()
        self.bn3 = nn.LazyBatchNorm2d()
        if use_1x1conv:
            self.conv4 = nn.LazyConv2d(num_channels, kernel_size=1, stride=strides)
            self.bn4 = nn.LazyBatchNorm2d()
        else:
            self.conv4 = None
    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = F.relu(self.bn2(self.conv2(Y)))
        Y = self.bn3(self.conv3(Y))
        if self.conv4:
            X = self.bn4(self.conv4(X))
        return F.relu(Y + X)
blk = ResNeXtBlock(8, 2, 1)
X = torch.randn(2, 8, 5, 5)
print(blk(X).shape)
blk = ResNeXtBlock(8, 2, 1, use_1x1conv=True, strides=2)
print(blk(X).shape, blk.conv2)
def conv_block(num_channels):
    return nn.Sequential(
        nn.LazyBatchNorm2d(), nn.ReLU(),
        nn.LazyConv2d(num_channels, kernel_size=3, padding=1))
class DenseBlock(nn.Module):
    def __init__(self, num_convs, num_channels):
        super(DenseBlock, self).__init__()
        layer = []
        for i in range(num_convs):
            layer.append(conv_block(num_channels))
        self.net = nn.Sequential(*layer)
    def forward(self, X):
        for blk in self.net:
            Y = blk(X)
            X = torch.cat((X, Y), dim=1)
        return X
blk = DenseBlock(2, 5)
X = torch.randn(2, 3, 4, 4)
Y = blk(X)
print(Y.shape)
def transition_block(num_channels):
    return nn.Sequential(
        nn.LazyBatchNorm2d(), nn.ReLU(),
        nn.LazyConv2d(num_channels, kernel_size=1),
        nn.AvgPool2d(kernel_size=2, stride=2))
blk = transition_block(5)
print(blk(Y).shape)
net = nn.Sequential(
    nn.Sequential(nn.LazyConv2d(4, kernel_size=3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU()),
    Residual(4), Residual(8, use_1x1conv=True, strides=2),
    nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.LazyLinear(10))
X = torch.randn(2, 1, 8, 8)
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape:\\t', X.shape)
optim = torch.optim.SGD(net.parameters(), lr=0.05)
labels = torch.tensor([1, 7])
images = torch.randn(2, 1, 8, 8)
for step in range(3):
    l = F.cross_entropy(net(images), labels)
    optim.zero_grad()
    l.backward()
    optim.step()
    print(f'step {step}, loss {l:.4f}')
""",
    # ------------------------------------------------------------ 9 Recurrent networks
    "9.1 sequence models on a noisy sine": """
T, tau = 200, 4
time = torch.arange(1, T + 1, dtype=torch.float32)
x = torch.sin(0.01 * time) + torch.randn(T) * 0.2
features = [x[i: T - tau + i] for i in range(tau)]
features = torch.stack(features, 1)
labels = x[tau:].reshape((-1, 1))
print(features.shape, labels.shape)
dataset = torch.utils.data.TensorDataset(features[:120], labels[:120])
loader = torch.utils.data.DataLoader(dataset, 16, shuffle=True)
net = nn.LazyLinear(1)
net(features[:1])
net.weight.data.normal_(0, 0.01)
net.bias.data.fill_(0)
optim = torch.optim.SGD(net.parameters(), lr=0.01)
loss = nn.MSELoss()
for epoch in range(3):
    for X, y in loader:
        l = loss(net(X), y)
        optim.zero_grad()
        l.backward()
        optim.step()
    print(f'epoch {epoch + 1}, loss {loss(net(features), labels):.4f}')
onestep_preds = net(features).detach().numpy()
# (the book plots these float32 arrays; printed, numpy shows every digit, last bits too)
print(onestep_preds[:3].round(4), onestep_preds.shape)
multistep_preds = torch.zeros(T)
multistep_preds[:] = x
for i in range(120 + tau, T):
    multistep_preds[i] = net(multistep_preds[i - tau:i].reshape((1, -1)))
multistep_preds = multistep_preds.detach().numpy()
print(multistep_preds[-3:].round(4))
def k_step_pred(k):
    features = []
    for i in range(tau):
        features.append(x[i: i + T - tau - k + 1])
    for i in range(k):
        preds = net(torch.stack(features[i: i + tau], 1))
        features.append(preds.reshape(-1))
    return features[tau:]
steps = (1, 4, 16)
preds = k_step_pred(steps[-1])
print([preds[k - 1].detach().numpy()[:2].round(4) for k in steps])
""",
    "9.2-9.3 text preprocessing and language models": """
import collections
import re
raw_text = ('The Time Traveller (for so it will be convenient to speak of him)\\n'
            'was expounding a recondite matter to us. His grey eyes shone and\\n'
            'twinkled, and his usually pale face was flushed and animated. The\\n'
            'fire burned brightly, and the soft radiance of the incandescent\\n'
            'lights in the lilies of silver caught the bubbles that flashed and\\n'
            'passed in our glasses.')
text = re.sub('[^A-Za-z]+', ' ', raw_text).lower()
print(text[:60])
tokens = list(text)
print(','.join(tokens[:30]))
class Vocab:
    def __init__(self, tokens=[], min_freq=0, reserved_tokens=[]):
        if tokens and isinstance(tokens[0], list):
            tokens = [token for line in tokens for token in line]
        counter = collections.Counter(tokens)
        self.token_freqs = sorted(counter.items(), key=lambda x: x[1], reverse=True)
        self.idx_to_token = list(sorted(set(['<unk>'] + reserved_tokens + [
            token for token, freq in self.token_freqs if freq >= min_freq])))
        self.token_to_idx = {token: idx for idx, token in enumerate(self.idx_to_token)}
    def __len__(self):
        return len(self.idx_to_token)
    def __getitem__(self, tokens):
        if not isinstance(tokens, (list, tuple)):
            return self.token_to_idx.get(tokens, self.unk)
        return [self.__getitem__(token) for token in tokens]
    def to_tokens(self, indices):
        if hasattr(indices, '__len__') and len(indices) > 1:
            return [self.idx_to_token[int(index)] for index in indices]
        return self.idx_to_token[indices]
    @property
    def unk(self):
        return self.token_to_idx['<unk>']
vocab = Vocab(tokens)
indices = vocab[tokens[:10]]
print('indices:', indices)
print('words:', vocab.to_tokens(indices))
corpus = [vocab[token] for token in tokens]
print(len(corpus), len(vocab))
words = text.split()
vocab_w = Vocab(words)
print(vocab_w.token_freqs[:5])
bigram_tokens = ['--'.join(pair) for pair in zip(words[:-1], words[1:])]
print(Vocab(bigram_tokens).token_freqs[:3])
num_steps = 10
array = torch.tensor([corpus[i:i + num_steps + 1] for i in range(len(corpus) - num_steps)])
X, Y = array[:, :-1], array[:, 1:]
print(X.shape, Y.shape)
dataset = torch.utils.data.TensorDataset(X[:200], Y[:200])
loader = torch.utils.data.DataLoader(dataset, 2, shuffle=True)
for X_b, Y_b in loader:
    print('X:', X_b, '\\nY:', Y_b)
    break
""",
    "9.4-9.7 RNN from scratch, concise, clipping, perplexity, truncated BPTT": """
X, W_xh = torch.randn(3, 1), torch.randn(1, 4)
H, W_hh = torch.randn(3, 4), torch.randn(4, 4)
print(torch.matmul(X, W_xh) + torch.matmul(H, W_hh))
print(torch.matmul(torch.cat((X, H), 1), torch.cat((W_xh, W_hh), 0)))
text = 'the time machine by h g wells i the time traveller for so it will be convenient ' * 3
idx_to_token = sorted(set(text))
token_to_idx = {t: i for i, t in enumerate(idx_to_token)}
corpus = [token_to_idx[t] for t in text]
vocab_size, num_steps = len(idx_to_token), 8
array = torch.tensor([corpus[i:i + num_steps + 1] for i in range(len(corpus) - num_steps)])
X_all, Y_all = array[:, :-1], array[:, 1:]
class RNNScratch(nn.Module):
    def __init__(self, num_inputs, num_hiddens, sigma=0.01):
        super().__init__()
        self.num_inputs, self.num_hiddens = num_inputs, num_hiddens
        self.W_xh = nn.Parameter(torch.randn(num_inputs, num_hiddens) * sigma)
        self.W_hh = nn.Parameter(torch.randn(num_hiddens, num_hiddens) * sigma)
        self.b_h = nn.Parameter(torch.zeros(num_hiddens))
    def forward(self, inputs, state=None):
        if state is None:
            state = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
        else:
            state, = state
        outputs = []
        for X in inputs:
            state = torch.tanh(torch.matmul(X, self.W_xh) +
                               torch.matmul(state, self.W_hh) + self.b_h)
            outputs.append(state)
        return outputs, state
batch_size, num_inputs, num_hiddens, num_steps_ = 2, 16, 32, 100
rnn = RNNScratch(num_inputs, num_hiddens)
X = torch.ones((num_steps_, batch_size, num_inputs))
outputs, state = rnn(X)
print(len(outputs), outputs[0].shape, state.shape)
class RNNLMScratch(nn.Module):
    def __init__(self, rnn, vocab_size, lr=0.01, sigma=0.01):
        super().__init__()
        self.rnn, self.vocab_size, self.lr = rnn, vocab_size, lr
        self.W_hq = nn.Parameter(torch.randn(rnn.num_hiddens, vocab_size) * sigma)
        self.b_q = nn.Parameter(torch.zeros(vocab_size))
    def one_hot(self, X):
        return F.one_hot(X.T, self.vocab_size).type(torch.float32)
    def output_layer(self, rnn_outputs):
        outputs = [torch.matmul(H, self.W_hq) + self.b_q for H in rnn_outputs]
        return torch.stack(outputs, 1)
    def forward(self, X, state=None):
        embs = self.one_hot(X)
        rnn_outputs, _ = self.rnn(embs, state)
        return self.output_layer(rnn_outputs)
    def loss(self, Y_hat, Y):
        return F.cross_entropy(Y_hat.reshape((-1, Y_hat.shape[-1])), Y.reshape((-1,)))
    def predict(self, prefix, num_preds):
        state, outputs = None, [token_to_idx[prefix[0]]]
        for i in range(len(prefix) + num_preds - 1):
            X = torch.tensor([[outputs[-1]]])
            embs = self.one_hot(X)
            rnn_outputs, state = self.rnn(embs, state)
            if isinstance(self.rnn, RNNScratch):
                state = (state,)
            if i < len(prefix) - 1:
                outputs.append(token_to_idx[prefix[i + 1]])
            else:
                Y = self.output_layer(rnn_outputs)
                outputs.append(int(Y.argmax(axis=2).reshape(1)))
        return ''.join([idx_to_token[i] for i in outputs])
print(F.one_hot(torch.tensor([0, 2]), 5))
model = RNNLMScratch(RNNScratch(num_inputs=vocab_size, num_hiddens=16), vocab_size, lr=1)
print(model(X_all[:2]).shape)
def clip_gradients(model, grad_clip_val):
    params = [p for p in model.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > grad_clip_val:
        for param in params:
            param.grad[:] *= grad_clip_val / norm
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X_all, Y_all), 32,
                                     shuffle=True)
optim = torch.optim.SGD(model.parameters(), lr=model.lr)
for epoch in range(3):
    for X_b, Y_b in loader:
        l = model.loss(model(X_b), Y_b)
        optim.zero_grad()
        l.backward()
        clip_gradients(model, 1)
        optim.step()
    print(f'epoch {epoch + 1}, ppl {torch.exp(l):.3f}')
print(model.predict('the ', 10))
class RNN(nn.Module):
    def __init__(self, num_inputs, num_hiddens):
        super().__init__()
        self.num_inputs, self.num_hiddens = num_inputs, num_hiddens
        self.rnn = nn.RNN(num_inputs, num_hiddens)
    def forward(self, inputs, H=None):
        return self.rnn(inputs, H)
class RNNLM(RNNLMScratch):
    def __init__(self, rnn, vocab_size, lr=0.01):
        nn.Module.__init__(self)
        self.rnn, self.vocab_size, self.lr = rnn, vocab_size, lr
        self.linear = nn.LazyLinear(vocab_size)
    def output_layer(self, hiddens):
        return self.linear(hiddens).swapaxes(0, 1)
model = RNNLM(RNN(num_inputs=vocab_size, num_hiddens=16), vocab_size, lr=1)
print(model.predict('the ', 5))
print(model)
optim = torch.optim.SGD(model.parameters(), lr=model.lr)
for epoch in range(3):
    for X_b, Y_b in loader:
        l = model.loss(model(X_b), Y_b)
        optim.zero_grad()
        l.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1)
        optim.step()
    print(f'epoch {epoch + 1}, ppl {torch.exp(l):.3f}')
print(model.predict('the ', 10))
stream = torch.tensor(corpus[:8 * 24]).reshape(8, 24)
state = None
for start in range(0, 24 - num_steps, num_steps):
    X_b, Y_b = stream[:, start:start + num_steps], stream[:, start + 1:start + num_steps + 1]
    if state is not None:
        state = state.detach()
    rnn_outputs, state = model.rnn(model.one_hot(X_b), state)
    l = model.loss(model.output_layer(rnn_outputs), Y_b)
    optim.zero_grad()
    l.backward()
    optim.step()
    print(f'segment {start // num_steps}, ppl {math.exp(l.item()):.3f}',
          state.requires_grad, state.grad_fn.name())
""",
    # ------------------------------------------------------------ 10 Modern recurrent networks
    "10.1-10.4 LSTM and GRU from scratch and concise, deep and bidirectional RNNs": """
text = 'the time traveller for so it will be convenient to speak of him was expounding ' * 3
idx_to_token = sorted(set(text))
token_to_idx = {t: i for i, t in enumerate(idx_to_token)}
corpus = [token_to_idx[t] for t in text]
vocab_size, num_steps = len(idx_to_token), 6
array = torch.tensor([corpus[i:i + num_steps + 1] for i in range(0, len(corpus) - num_steps, 3)])
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(array[:, :-1], array[:, 1:]), 16, shuffle=True)
class LSTMScratch(nn.Module):
    def __init__(self, num_inputs, num_hiddens, sigma=0.01):
        super().__init__()
        self.num_hiddens = num_hiddens
        init_weight = lambda *shape: nn.Parameter(torch.randn(*shape) * sigma)
        triple = lambda: (init_weight(num_inputs, num_hiddens),
                          init_weight(num_hiddens, num_hiddens),
                          nn.Parameter(torch.zeros(num_hiddens)))
        self.W_xi, self.W_hi, self.b_i = triple()
        self.W_xf, self.W_hf, self.b_f = triple()
        self.W_xo, self.W_ho, self.b_o = triple()
        self.W_xc, self.W_hc, self.b_c = triple()
    def forward(self, inputs, H_C=None):
        if H_C is None:
            H = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
            C = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
        else:
            H, C = H_C
        outputs = []
        for X in inputs:
            I = torch.sigmoid(torch.matmul(X, self.W_xi) + torch.matmul(H, self.W_hi) + self.b_i)
            F_ = torch.sigmoid(torch.matmul(X, self.W_xf) + torch.matmul(H, self.W_hf) + self.b_f)
            O = torch.sigmoid(torch.matmul(X, self.W_xo) + torch.matmul(H, self.W_ho) + self.b_o)
            C_tilde = torch.tanh(torch.matmul(X, self.W_xc) + torch.matmul(H, self.W_hc) + self.b_c)
            C = F_ * C + I * C_tilde
            H = O * torch.tanh(C)
            outputs.append(H)
        return outputs, (H, C)
class GRUScratch(nn.Module):
    def __init__(self, num_inputs, num_hiddens, sigma=0.01):
        super().__init__()
        self.num_hiddens = num_hiddens
        init_weight = lambda *shape: nn.Parameter(torch.randn(*shape) * sigma)
        triple = lambda: (init_weight(num_inputs, num_hiddens),
                          init_weight(num_hiddens, num_hiddens),
                          nn.Parameter(torch.zeros(num_hiddens)))
        self.W_xz, self.W_hz, self.b_z = triple()
        self.W_xr, self.W_hr, self.b_r = triple()
        self.W_xh, self.W_hh, self.b_h = triple()
    def forward(self, inputs, H=None):
        if H is None:
            H = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
        outputs = []
        for X in inputs:
            Z = torch.sigmoid(torch.matmul(X, self.W_xz) + torch.matmul(H, self.W_hz) + self.b_z)
            R = torch.sigmoid(torch.matmul(X, self.W_xr) + torch.matmul(H, self.W_hr) + self.b_r)
            H_tilde = torch.tanh(torch.matmul(X, self.W_xh) +
                                 torch.matmul(R * H, self.W_hh) + self.b_h)
            H = Z * H + (1 - Z) * H_tilde
            outputs.append(H)
        return outputs, H
class Concise(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.rnn = layer
        self.num_hiddens = layer.hidden_size * (2 if layer.bidirectional else 1)
    def forward(self, inputs, H=None):
        return self.rnn(inputs, H)
class BiRNNScratch(nn.Module):
    def __init__(self, num_inputs, num_hiddens):
        super().__init__()
        self.f_rnn = GRUScratch(num_inputs, num_hiddens)
        self.b_rnn = GRUScratch(num_inputs, num_hiddens)
        self.num_hiddens = num_hiddens * 2
    def forward(self, inputs, Hs=None):
        f_H, b_H = Hs if Hs is not None else (None, None)
        f_outputs, f_H = self.f_rnn(inputs, f_H)
        b_outputs, b_H = self.b_rnn(reversed(inputs), b_H)
        outputs = [torch.cat((f, b), -1) for f, b in zip(f_outputs, reversed(b_outputs))]
        return outputs, (f_H, b_H)
class RNNLM(nn.Module):
    def __init__(self, rnn, vocab_size):
        super().__init__()
        self.rnn, self.vocab_size = rnn, vocab_size
        self.linear = nn.LazyLinear(vocab_size)
    def forward(self, X, state=None):
        embs = F.one_hot(X.T, self.vocab_size).type(torch.float32)
        rnn_outputs, _ = self.rnn(embs, state)
        if isinstance(rnn_outputs, list):
            rnn_outputs = torch.stack(rnn_outputs, 0)
        return self.linear(rnn_outputs).swapaxes(0, 1)
    def predict(self, prefix, num_preds):
        outputs = [token_to_idx[c] for c in prefix]
        for _ in range(num_preds):
            Y = self(torch.tensor([outputs]))
            outputs.append(int(Y[:, -1].argmax(axis=1).reshape(1)))
        return ''.join(idx_to_token[i] for i in outputs)
def train(model, epochs=2, lr=4):
    optim = torch.optim.SGD(model.parameters(), lr=lr)
    for epoch in range(epochs):
        for X_b, Y_b in loader:
            Y_hat = model(X_b)
            l = F.cross_entropy(Y_hat.reshape((-1, Y_hat.shape[-1])), Y_b.reshape((-1,)))
            optim.zero_grad()
            l.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1)
            optim.step()
        print(f'epoch {epoch + 1}, ppl {torch.exp(l):.3f}')
    print(model.predict('the ', 8))
H = 16
for rnn in (LSTMScratch(vocab_size, H), Concise(nn.LSTM(vocab_size, H)),
            GRUScratch(vocab_size, H), Concise(nn.GRU(vocab_size, H)),
            Concise(nn.GRU(vocab_size, H, num_layers=2, dropout=0.2)),
            Concise(nn.LSTM(vocab_size, H, num_layers=2)),
            BiRNNScratch(vocab_size, H), Concise(nn.GRU(vocab_size, H, bidirectional=True))):
    model = RNNLM(rnn, vocab_size)
    model(array[:2, :-1])
    print(type(rnn).__name__, sum(p.numel() for p in model.parameters()))
    train(model)
print(model)
X = torch.randn(num_steps, 3, vocab_size)
outputs, state = nn.LSTM(vocab_size, H, num_layers=2, bidirectional=True)(X)
print(outputs.shape, state[0].shape, state[1].shape)
outputs, (f_H, b_H) = BiRNNScratch(vocab_size, 4)(X)
print(len(outputs), outputs[0].shape, f_H.shape, b_H.shape)
""",
    "10.5-10.7 machine translation data, encoder-decoder, seq2seq with masked loss, BLEU": """
raw_text = '''go .\tva !
hi .\tsalut !
run !\tcours !
run !\tcourez !
who ?\tqui ?
wow !\tça alors !
fire !\tau feu !
help !\tà l'aide !
jump .\tsaute .
stop !\tça suffit !
stop !\tstop !
wait !\tattends !
go on .\tpoursuis .
i see .\tje comprends .
i try .\tj'essaye .'''
def tokenize(text):
    src, tgt = [], []
    for line in text.split('\\n'):
        part = line.split('\\t')
        src.append(part[0].split(' ') + ['<eos>'])
        tgt.append(part[1].split(' ') + ['<eos>'])
    return src, tgt
src, tgt = tokenize(raw_text)
print(src[:3], tgt[:3])
class Vocab:
    def __init__(self, tokens, reserved_tokens=()):
        counts = {}
        for t in (t for line in tokens for t in line):
            counts[t] = counts.get(t, 0) + 1
        self.idx_to_token = ['<unk>'] + list(reserved_tokens) + sorted(counts)
        self.token_to_idx = {t: i for i, t in enumerate(self.idx_to_token)}
    def __len__(self):
        return len(self.idx_to_token)
    def __getitem__(self, tokens):
        if not isinstance(tokens, (list, tuple)):
            return self.token_to_idx.get(tokens, 0)
        return [self[t] for t in tokens]
    def to_tokens(self, indices):
        return [self.idx_to_token[int(i)] for i in indices]
num_steps = 5
src_vocab = Vocab(src, ['<pad>', '<bos>', '<eos>'])
tgt_vocab = Vocab(tgt, ['<pad>', '<bos>', '<eos>'])
def build_array(sentences, vocab, is_tgt=False):
    pad_or_trim = lambda seq, t: seq[:t] if len(seq) > t else seq + ['<pad>'] * (t - len(seq))
    sentences = [pad_or_trim(s, num_steps) for s in sentences]
    if is_tgt:
        sentences = [['<bos>'] + s for s in sentences]
    array = torch.tensor([vocab[s] for s in sentences])
    valid_len = (array != vocab['<pad>']).type(torch.int32).sum(1)
    return array, valid_len
src_array, src_valid_len = build_array(src, src_vocab)
tgt_array, _ = build_array(tgt, tgt_vocab, True)
arrays = (src_array, tgt_array[:, :-1], src_valid_len, tgt_array[:, 1:])
print(len(src_vocab), len(tgt_vocab), src_array[:3], src_valid_len, tgt_array[:2])
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(*arrays), 4, shuffle=True)
X, X_valid_len, Y = next(iter(loader))[0], next(iter(loader))[2], next(iter(loader))[3]
print('source:', X.type(torch.int32), 'valid lengths:', X_valid_len, 'label:', Y.shape)
def init_seq2seq(module):
    if type(module) == nn.Linear:
        nn.init.xavier_uniform_(module.weight)
    if type(module) == nn.GRU:
        for param in module._flat_weights_names:
            if 'weight' in param:
                nn.init.xavier_uniform_(module._parameters[param])
class Seq2SeqEncoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)
        self.apply(init_seq2seq)
    def forward(self, X, *args):
        embs = self.embedding(X.t().type(torch.int64))
        outputs, state = self.rnn(embs)
        return outputs, state
class Seq2SeqDecoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.LazyLinear(vocab_size)
        self.apply(init_seq2seq)
    def init_state(self, enc_all_outputs, *args):
        return enc_all_outputs
    def forward(self, X, state):
        embs = self.embedding(X.t().type(torch.int32))
        enc_output, hidden_state = state
        context = enc_output[-1]
        context = context.repeat(embs.shape[0], 1, 1)
        embs_and_context = torch.cat((embs, context), -1)
        outputs, hidden_state = self.rnn(embs_and_context, hidden_state)
        outputs = self.dense(outputs).swapaxes(0, 1)
        return outputs, [enc_output, hidden_state]
class EncoderDecoder(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
    def forward(self, enc_X, dec_X, *args):
        enc_all_outputs = self.encoder(enc_X, *args)
        dec_state = self.decoder.init_state(enc_all_outputs, *args)
        return self.decoder(dec_X, dec_state)[0]
vocab_size, embed_size, num_hiddens, num_layers = 10, 8, 16, 2
batch_size, steps = 4, 9
encoder = Seq2SeqEncoder(vocab_size, embed_size, num_hiddens, num_layers)
X = torch.zeros((batch_size, steps))
enc_outputs, enc_state = encoder(X)
print(enc_outputs.shape, enc_state.shape)
decoder = Seq2SeqDecoder(vocab_size, embed_size, num_hiddens, num_layers)
state = decoder.init_state(encoder(X))
dec_outputs, state = decoder(X, state)
print(dec_outputs.shape, state[1].shape)
pad = tgt_vocab['<pad>']
def masked_loss(Y_hat, Y):
    l = F.cross_entropy(Y_hat.reshape((-1, Y_hat.shape[-1])), Y.reshape((-1,)),
                        reduction='none')
    mask = (Y.reshape(-1) != pad).type(torch.float32)
    return (l * mask).sum() / mask.sum()
encoder = Seq2SeqEncoder(len(src_vocab), 8, 16, 2, dropout=0.2)
decoder = Seq2SeqDecoder(len(tgt_vocab), 8, 16, 2, dropout=0.2)
model = EncoderDecoder(encoder, decoder)
model(arrays[0][:1], arrays[1][:1], arrays[2][:1])
print(model)
optim = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(15):
    model.train()
    for src_b, dec_in, src_len, label in loader:
        l = masked_loss(model(src_b, dec_in, src_len), label)
        optim.zero_grad()
        l.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1)
        optim.step()
    if epoch % 5 == 4:
        print(f'epoch {epoch + 1}, loss {l:.4f}')
def predict(src_b, src_len, num_steps):
    model.eval()
    enc_all_outputs = model.encoder(src_b, src_len)
    dec_state = model.decoder.init_state(enc_all_outputs, src_len)
    outputs = [torch.tensor([tgt_vocab['<bos>']] * src_b.shape[0]).unsqueeze(1)]
    for _ in range(num_steps):
        Y, dec_state = model.decoder(outputs[-1], dec_state)
        outputs.append(Y.argmax(2))
    return torch.cat(outputs[1:], 1)
def bleu(pred_seq, label_seq, k):
    pred_tokens, label_tokens = pred_seq.split(' '), label_seq.split(' ')
    len_pred, len_label = len(pred_tokens), len(label_tokens)
    score = math.exp(min(0, 1 - len_label / len_pred))
    for n in range(1, min(k, len_pred) + 1):
        num_matches, label_subs = 0, {}
        for i in range(len_label - n + 1):
            key = ' '.join(label_tokens[i: i + n])
            label_subs[key] = label_subs.get(key, 0) + 1
        for i in range(len_pred - n + 1):
            key = ' '.join(pred_tokens[i: i + n])
            if label_subs.get(key, 0) > 0:
                num_matches += 1
                label_subs[key] -= 1
        score *= math.pow(num_matches / (len_pred - n + 1), math.pow(0.5, n))
    return score
engs, fras = ['go .', 'i see .', 'stop !'], ['va !', 'je comprends .', 'ça suffit !']
src_b, src_len = build_array([e.split(' ') + ['<eos>'] for e in engs], src_vocab)
preds = predict(src_b, src_len, num_steps)
for en, fr, p in zip(engs, fras, preds):
    translation = []
    for token in tgt_vocab.to_tokens(p):
        if token == '<eos>':
            break
        translation.append(token)
    print(f'{en} => {translation}, bleu, {bleu(" ".join(translation), fr, k=2):.3f}')
""",
}


@pytest.mark.parametrize("case", D2L)
def test_d2l_prints_as_torch(case, tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "engine").mkdir()
    _assert_prints_the_same(COMMON + D2L[case].replace('PATH + "', 'PATH + "/'), tmp_path)
