"""Seeded random programs over the course's surface, as Python source that uses the name ``torch``.

``generate(seed)`` returns a program: a list of statements, each a string (a ``with`` or ``for``
block, a function or a class definition is one statement). The same seed always gives the
same program.

The generator keeps what it knows about every variable (shape, dtype, autograd state) in
``TensorVar`` records, so the programs are well typed by construction and most run to the end.
A few statements are learners' mistakes on purpose (``MISTAKES``): torch refuses them, and the
engine must refuse them with the same error. The programs are what a learner could write in
the course: creation, elementwise arithmetic and broadcasting, reductions, matrix products,
indexing, views and shared memory, in-place writes, autograd (backward, grad modes, hooks,
``autograd.grad``, ``autograd.Function``), and small ``nn`` + ``optim`` training steps.

Half of the programs are these classic ones, the same for a seed as before the families
existed; each of the others belongs to one family (families.py: the classes of bugs issue 25
found, such as integer extremes, empty inputs or third derivatives), whose own actions write
``FAMILY_SHARE`` of its statements, the classic actions the rest. ``generate(seed, families)``
picks among the given families only (``()``: classic programs only).
"""
from __future__ import annotations

import random

from .builder import (FLOATS, FUNCTIONS, NAMES, MISTAKES, ModelVar, ProgramBuilder, TensorVar,  # noqa: F401
                      broadcast, category, numel, promote_types, python_dtype, result_type)
from .families import FAMILIES

CLASSIC_SHARE = 0.5  # programs written as before the families existed
FAMILY_SHARE = 0.5  # in a family's program, the share of statements its own actions write


# ---------------------------------------------------------------- the actions
# Each action is ``def action(b: ProgramBuilder) -> list[str] | None``; ACTIONS weighs them.

def create(b):
    """A new tensor: torch.tensor, zeros/ones/full, arange, linspace, rand/randn, *_like."""
    name = b.new_name()
    kind = b.rng.choices(["tensor", "zeros", "full", "arange", "linspace", "random", "like"],
                         [6, 3, 1, 2, 1, 4, 2])[0]
    shape, dtype = b.shape(), b.dtype()
    if b.autograd_focus and dtype not in FLOATS and b.chance(0.7):
        dtype = "float32"
    grad_chance = 0.8 if b.autograd_focus else 0.4
    grad = dtype in FLOATS and b.chance(grad_chance) or b.chance(0.02)  # int + grad: a mistake
    extra = ", requires_grad=True" if grad else ""
    prefix = []
    if kind == "tensor":
        explicit = "" if dtype in ("float32", "int64", "bool") and b.chance(0.7) else \
            f", {b.dtype_arg(dtype)}"
        source = f"torch.tensor({b.values(shape, dtype)}{explicit}{extra})"
    elif kind == "zeros":
        dims = ", ".join(map(str, shape)) if shape and b.chance(0.6) else repr(tuple(shape))
        explicit = "" if dtype == "float32" else f", {b.dtype_arg(dtype)}"
        source = f"torch.{b.choice(['zeros', 'ones'])}({dims}{explicit}{extra})"
    elif kind == "full":
        fill = b.values((), dtype)
        dtype = python_dtype(fill) if b.chance(0.7) else dtype
        explicit = "" if dtype == python_dtype(fill) else f", {b.dtype_arg(dtype)}"
        source = f"torch.full({tuple(shape)!r}, {fill}{explicit}{extra})"
    elif kind == "arange":
        n = b.choice([2, 3, 4, 6, 8, 12])
        if b.chance(0.5):
            dtype, source = "int64" if not grad else "float32", f"torch.arange({n}"
            source += ", dtype=torch.float32" if grad else ""
        else:
            dtype, source = "float32", f"torch.arange(0.0, {n / 2}, 0.5"
        source += f"{extra})"
        shape = (n,)
        if b.chance(0.5) and not grad:
            shape, written = b.reshape_target(shape)
            source += f".reshape({', '.join(map(str, written))})"
    elif kind == "linspace":
        steps = b.choice([2, 3, 5])
        dtype, shape = "float32", (steps,)
        source = f"torch.linspace({b.choice(['0', '-1', '0.0'])}, {b.choice(['1', '2', '3.0'])}, " \
                 f"steps={steps}{extra})"
    elif kind == "random":
        prefix = b.seed_statements()
        if b.chance(0.2):
            dtype = "int64"
            source = f"torch.randint(0, {b.choice([3, 5, 10])}, {tuple(shape)!r})"
        else:
            dtype = dtype if dtype in FLOATS else "float32"
            explicit = "" if dtype == "float32" else f", {b.dtype_arg(dtype)}"
            dims = ", ".join(map(str, shape)) if shape else "()"
            source = f"torch.{b.choice(['rand', 'randn'])}({dims}{explicit}{extra})"
    else:
        found = b.pick()
        if not found:
            return None
        other, like = found
        shape, dtype = like.shape, like.dtype
        function = b.choice(["zeros_like", "ones_like", "full_like", "rand_like", "randn_like"])
        if function.startswith("rand"):
            prefix = b.seed_statements()
            if dtype not in FLOATS:
                dtype = "float32"
                extra = ", dtype=torch.float32" + extra
        if dtype not in FLOATS:
            extra = ""
        fill = ", 2.0" if function == "full_like" else ""
        source = f"torch.{function}({other}{fill}{extra})"
    requires_grad = grad and dtype in FLOATS
    var = TensorVar(tuple(shape), dtype, requires_grad=requires_grad, inference=b.inference)
    if requires_grad:
        var.leaves = {var}
    if not grad or dtype in FLOATS:  # (an integer tensor requiring grad: torch refuses)
        b.bind(name, var)
    return prefix + [f"{name} = {source}"]


UNARY_FLOAT = ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid"]
UNARY_SAME = ["neg", "abs", "relu", "square"]


def unary(b):
    """An elementwise function of one tensor: exp, log, sqrt, sin, tanh, sigmoid, relu, clamp."""
    found = b.pick()
    if not found:
        return None
    x, var = found
    op = b.choice(UNARY_FLOAT + UNARY_SAME + ["clamp", "neg_op", "abs_builtin"])
    if op in UNARY_FLOAT:
        dtype = var.dtype if var.is_float else "float32"
        source = b.choice([f"torch.{op}({x})", f"{x}.{op}()"])
    elif op == "clamp":
        low, high = b.choice([("-1.0", "1.0"), ("0", "2"), ("-0.5", None), (None, "0.5"),
                              ("0", None)])
        args = ", ".join(a for a in (f"min={low}" if low else "", f"max={high}" if high else "")
                         if a)
        dtype = result_type(var, *(v for v in (low, high) if v))
        source = b.choice([f"torch.clamp({x}, {args})", f"{x}.clamp({args})"])
    elif op == "neg_op":
        dtype, source = var.dtype, f"-{x}"
    elif op == "abs_builtin":
        dtype, source = var.dtype, f"abs({x})"
    else:
        dtype = var.dtype if op != "square" or var.dtype != "bool" else "int64"
        source = b.choice([f"torch.{op}({x})", f"{x}.{op}()"])
    name = b.new_name()
    b.bind(name, b.result(var.shape, dtype, var))
    return [f"{name} = {source}"]


BINARY_OPERATORS = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
COMPARISONS = [">", "<", ">=", "<=", "==", "!="]


def binary(b):
    """x op y with broadcasting, Python numbers and mixed dtypes; comparisons; torch.where."""
    found = b.pick()
    if not found:
        return None
    x, var = found
    other_source, other = b.operand(var)
    other_var = other if isinstance(other, TensorVar) else None
    shape = broadcast(var.shape, other_var.shape) if other_var else var.shape
    if shape is None:
        return None
    kind = b.rng.choices(["operator", "function", "compare", "pow", "maximum", "where"],
                         [8, 3, 3, 2, 1, 2])[0]
    dtype = result_type(var, other)
    differentiable = True
    subtracts_bool = "bool" in (var.dtype, other_var.dtype if other_var else python_dtype(other))
    if kind == "operator":
        op = b.choice([o for o in BINARY_OPERATORS if o != "-" or not subtracts_bool])
        source = f"{x} {op} {other_source}" if b.chance(0.8) else f"{other_source} {op} {x}"
        if op == "/" and category(dtype) < 2:
            dtype = "float32"
    elif kind == "function":
        function = b.choice(["add", "mul", "div"] + ["sub"] * (not subtracts_bool))
        alpha = f", alpha={b.choice(['2', '0.5'] if category(dtype) == 2 else ['2'])}" \
            if function in ("add", "sub") and b.chance(0.3) else ""
        source = f"torch.{function}({x}, {other_source}{alpha})"
        if function == "div" and category(dtype) < 2:
            dtype = "float32"
    elif kind == "compare":
        source = f"{x} {b.choice(COMPARISONS)} {other_source}"
        dtype, differentiable = "bool", False
    elif kind == "pow":
        exponent = b.choice(["2", "3", "0.5", "2.0", "-1"])
        source = b.choice([f"{x} ** {exponent}", f"torch.pow({x}, {exponent})",
                           f"{x}.pow({exponent})"])
        dtype, shape = result_type(var, exponent), var.shape
    elif kind == "maximum":
        if other_var is None:
            return None
        source = f"torch.{b.choice(['maximum', 'minimum'])}({x}, {other_source})"
    else:
        condition = b.pick(lambda v: v.dtype == "bool" and broadcast(v.shape, shape) == shape)
        condition = condition[0] if condition and b.chance(0.5) else \
            f"{x} {b.choice(['>', '<'])} 0"
        source = f"torch.where({condition}, {x}, {other_source})"
    name = b.new_name()
    b.bind(name, b.result(shape, dtype, var, other_var, differentiable=differentiable))
    return [f"{name} = {source}"]


def reduction(b):
    """sum/mean/prod/max/min/argmax/std/var/norm/softmax/cumsum, whole or along a dim."""
    found = b.pick()
    if not found:
        return None
    x, var = found
    op = b.choice(["sum", "sum", "mean", "prod", "max", "min", "argmax", "std", "var", "norm",
                   "softmax", "log_softmax", "cumsum", "max_dim", "amax"])
    name = b.new_name()
    dim = b.dim(var)
    keepdim = b.chance(0.3)
    reduced = _reduced_shape(var.shape, dim, keepdim)
    float_dtype = var.dtype if var.is_float else "float32"
    if op in ("softmax", "log_softmax", "cumsum"):
        if dim is None:
            dim = 0 if var.ndim == 0 else -1
        dtype = float_dtype if op != "cumsum" else \
            (var.dtype if var.is_float else "int64")
        if op != "cumsum" and not var.is_float:
            dtype = var.dtype  # softmax of integers: a mistake torch refuses
        source = b.choice([f"{x}.{op}(dim={dim})", f"torch.{op}({x}, {dim})"])
        b.bind(name, b.result(var.shape, dtype, var))
        return [f"{name} = {source}"]
    if op == "max_dim":
        if dim is None:
            return None
        function = b.choice(["max", "min"])
        values, indices = b.new_name(), None
        b.bind(values, b.result(reduced, var.dtype, var))
        indices = b.new_name()
        if indices == values:
            indices = "idx"
        b.bind(indices, TensorVar(reduced, "int64", inference=b.inference))
        keep = ", keepdim=True" if keepdim else ""
        return [f"{values}, {indices} = {x}.{function}(dim={dim}{keep})"]
    args = "" if dim is None else (f"{dim}" if b.chance(0.5) and op != "norm" else f"dim={dim}")
    if dim is not None and keepdim:
        args += ", keepdim=True"
    if dim is None:
        reduced = ()
    if op in ("max", "min"):  # (along a dim they give (values, indices): max_dim)
        args, reduced = "", ()
    dtype = {"sum": "int64" if not var.is_float else var.dtype,
             "prod": "int64" if not var.is_float else var.dtype,
             "mean": float_dtype, "std": float_dtype, "var": float_dtype, "norm": float_dtype,
             "argmax": "int64"}.get(op, var.dtype)
    if op in ("mean", "std", "var", "norm") and not var.is_float and b.chance(0.8):
        return None  # (integers: a mistake; mostly not written)
    source = b.choice([f"{x}.{op}({args})", f"torch.{op}({x}{', ' if args else ''}{args})"])
    b.bind(name, b.result(reduced, dtype, var, differentiable=op != "argmax"))
    return [f"{name} = {source}"]


def _reduced_shape(shape, dim, keepdim):
    if dim is None or not shape:
        return ()
    dim %= len(shape)
    if keepdim:
        return tuple(1 if i == dim else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i != dim)


def matmul(b):
    """Matrix products: @, matmul, mm, mv, dot, bmm, with a partner of the right shape."""
    found = b.pick(lambda v: v.ndim in (1, 2, 3) and v.dtype != "bool")
    if not found:
        return None
    x, var = found
    dtype = var.dtype
    p = b.choice([1, 2, 3])
    if var.ndim == 1:
        other_shape, shape = (var.shape[0],), ()
        op = b.choice(["torch.dot({x}, {y})", "{x} @ {y}", "torch.matmul({x}, {y})"])
    elif var.ndim == 2:
        if b.chance(0.3):
            other_shape, shape = (var.shape[1],), (var.shape[0],)
            op = b.choice(["torch.mv({x}, {y})", "{x} @ {y}", "{x}.mv({y})"])
        else:
            other_shape, shape = (var.shape[1], p), (var.shape[0], p)
            op = b.choice(["torch.mm({x}, {y})", "{x} @ {y}", "torch.matmul({x}, {y})",
                           "{x}.mm({y})"])
    else:
        if b.chance(0.5):
            other_shape, shape = (var.shape[0], var.shape[2], p), (var.shape[0], var.shape[1], p)
            op = b.choice(["torch.bmm({x}, {y})", "{x} @ {y}"])
        else:
            other_shape, shape = (var.shape[2], p), (var.shape[0], var.shape[1], p)
            op = "{x} @ {y}"
    if b.chance(0.05):  # a mistake: the inner sizes disagree
        other_shape = other_shape[:-1] + (other_shape[-1] + 1,) if len(other_shape) > 1 else \
            (other_shape[0] + 1,)
    found = b.pick(lambda v: v.shape == other_shape and v.dtype == dtype and not v.inference)
    prefix = []
    if found and b.chance(0.5):
        y, other = found
    else:
        if dtype in FLOATS and b.chance(0.5):
            prefix = b.seed_statements()
            explicit = "" if dtype == "float32" else f", {b.dtype_arg(dtype)}"
            grad = ", requires_grad=True" if b.chance(0.4) else ""
            dims = ", ".join(map(str, other_shape))
            y = b.new_name()
            other = TensorVar(other_shape, dtype, requires_grad=bool(grad))
            if grad:
                other.leaves = {other}
            prefix.append(f"{y} = torch.randn({dims}{explicit}{grad})")
            b.bind(y, other)
        else:
            other = TensorVar(other_shape, dtype)
            y = b.tensor_source(other_shape, dtype)
    name = b.new_name()
    b.bind(name, b.result(shape, dtype, var, other))
    return prefix + [f"{name} = {op.format(x=x, y=y)}"]


def index(b):
    """Reading with an index: basic (a view), advanced (a copy), a boolean mask."""
    found = b.pick(lambda v: v.ndim >= 1)
    if not found:
        return None
    x, var = found
    shape, n = var.shape, var.shape[0]
    kind = b.rng.choices(["int", "slice", "column", "ellipsis", "list", "tensor", "mask"],
                         [3, 3, 2, 1, 2, 1, 2])[0]
    view = kind in ("int", "slice", "column", "ellipsis")
    if kind == "int":
        i = b.rng.randrange(-n, n) if n and not b.chance(0.03) else n  # n: out of range
        source, shape = f"{x}[{i}]", shape[1:]
    elif kind == "slice":
        start, stop = sorted(b.rng.sample(range(n + 1), 2)) if n else (0, 0)
        step = b.choice([1, 1, 2])
        source = f"{x}[{start}:{stop}{':2' if step == 2 else ''}]"
        shape = (len(range(start, stop, step)),) + shape[1:]
    elif kind == "column":
        if var.ndim < 2 or shape[1] == 0:
            return None
        j = b.rng.randrange(shape[1])
        source, shape = f"{x}[:, {j}]", shape[:1] + shape[2:]
    elif kind == "ellipsis":
        if shape[-1] == 0:
            return None
        source, shape = f"{x}[..., {b.rng.randrange(shape[-1])}]", shape[:-1]
        if b.chance(0.3):
            source, shape = f"{x}[None]", (1,) + var.shape
    elif kind in ("list", "tensor"):
        if n == 0:
            return None
        picks = [b.rng.randrange(n) for _ in range(b.choice([1, 2, 3]))]
        written = f"torch.tensor({picks})" if kind == "tensor" else f"{picks}"
        source, shape = f"{x}[{written}]", (len(picks),) + shape[1:]
    else:
        mask = b.pick(lambda v: v.dtype == "bool" and v.shape == var.shape)
        source = f"{x}[{mask[0] if mask else f'{x} > 0'}]"
        shape = None  # as many as the mask holds
    name = b.new_name()
    b.bind(name, b.result(shape, var.dtype, var, view_of=var if view else None,
                          contiguous=kind in ("int", "ellipsis") and var.contiguous))
    return [f"{name} = {source}"]


def index_assign(b):
    """Writing through an index: x[0] = 1.0, x[:, 1] += 2, x[x > 0] = 0, x[[0, 1]] = y."""
    found = b.pick(lambda v: v.ndim >= 1 and v.shape[0] > 0)
    if not found:
        return None
    x, var = found
    if var.is_leaf and var.requires_grad and not b.chance(0.15) and b.grad_enabled:
        return None  # (writing into a leaf that requires grad is a mistake)
    n = var.shape[0]
    kind = b.choice(["int", "slice", "column", "mask", "list", "augmented"])
    if kind == "int":
        target, shape = f"{x}[{b.rng.randrange(n)}]", var.shape[1:]
    elif kind == "slice":
        target, shape = f"{x}[:{b.rng.randint(1, n)}]", None
    elif kind == "column":
        if var.ndim < 2 or var.shape[1] == 0:
            return None
        target, shape = f"{x}[:, {b.rng.randrange(var.shape[1])}]", var.shape[:1] + var.shape[2:]
    elif kind == "mask":
        mask = b.pick(lambda v: v.dtype == "bool" and v.shape == var.shape)
        target, shape = f"{x}[{mask[0] if mask else f'{x} < 0'}]", None
    elif kind == "list":
        target, shape = f"{x}[[{', '.join(str(b.rng.randrange(n)) for _ in range(2))}]]", None
    else:
        target = f"{x}[{b.rng.randrange(n)}]"
        return [f"{target} {b.choice(['+=', '-=', '*='])} {b.scalar(var.dtype)}"]
    value = b.scalar(var.dtype)
    if shape and b.chance(0.3):
        found = b.pick(lambda v: v.shape is not None and broadcast(v.shape, shape) == shape
                       and v is not var)
        if found:
            value = found[0]
    other = b.tensors.get(value)
    if other is not None and other.requires_grad and b.grad_enabled and var.is_float:
        var.requires_grad, var.is_leaf = True, False  # CopySlices: now part of the graph
        var.leaves = var.leaves | other.leaves
    return [f"{target} = {value}"]


def view(b):
    """Views: view/reshape/flatten, transpose/t/T/permute, (un)squeeze, expand, narrow,
    split/chunk/unbind, contiguous."""
    found = b.pick()
    if not found:
        return None
    x, var = found
    shape = var.shape
    op = b.choice(["view", "reshape", "flatten", "transpose", "t", "permute", "unsqueeze",
                   "squeeze", "expand", "narrow", "split", "contiguous", "view_minus_one"])
    contiguous, is_view = False, True
    if op in ("view", "reshape", "view_minus_one"):
        if op == "view_minus_one":
            new_shape, written = (numel(shape),), [-1]
            op = "view"
        else:
            new_shape, written = b.reshape_target(shape)
        args = ", ".join(map(str, written)) if b.chance(0.7) else repr(tuple(written))
        source = f"{x}.{op}({args})"
        contiguous = var.contiguous
        is_view = op == "view" or var.contiguous
        if op == "view" and not var.contiguous and not b.chance(0.3):
            return None  # (a view of a non-contiguous tensor: a mistake, sometimes written)
        shape = new_shape
    elif op == "flatten":
        source, shape, contiguous = f"{x}.flatten()", (numel(shape),), var.contiguous
    elif op in ("transpose", "t"):
        if var.ndim < 2 and op == "transpose":
            return None
        if op == "t":
            if var.ndim > 2:
                return None
            source = b.choice([f"{x}.t()", f"{x}.T"]) if var.ndim == 2 else f"{x}.t()"
            shape = tuple(reversed(shape))
        else:
            d0, d1 = b.rng.sample(range(var.ndim), 2)
            source = f"{x}.transpose({d0}, {d1})"
            shape = list(shape)
            shape[d0], shape[d1] = shape[d1], shape[d0]
    elif op == "permute":
        if var.ndim == 0:
            return None
        order = list(range(var.ndim))
        b.rng.shuffle(order)
        source = f"{x}.permute({', '.join(map(str, order))})"
        shape = tuple(shape[i] for i in order)
    elif op == "unsqueeze":
        d = b.rng.randint(0, var.ndim)
        source, shape = f"{x}.unsqueeze({d})", shape[:d] + (1,) + shape[d:]
        contiguous = var.contiguous
    elif op == "squeeze":
        ones = [i for i, s in enumerate(shape) if s == 1]
        if ones and b.chance(0.5):
            d = b.choice(ones)
            source, shape = f"{x}.squeeze({d})", shape[:d] + shape[d + 1:]
        else:
            source, shape = f"{x}.squeeze()", tuple(s for s in shape if s != 1)
        contiguous = var.contiguous
    elif op == "expand":
        target = tuple(b.choice([2, 3]) if s == 1 else s for s in shape)
        if b.chance(0.4):
            target = (2,) + target
        source, shape = f"{x}.expand({', '.join(map(str, target))})", target
    elif op == "narrow":
        if var.ndim == 0 or shape[0] == 0:
            return None
        d = b.rng.randrange(var.ndim)
        if shape[d] == 0:
            return None
        start = b.rng.randrange(shape[d])
        length = b.rng.randint(1, shape[d] - start)
        source = f"{x}.narrow({d}, {start}, {length})"
        shape = shape[:d] + (length,) + shape[d + 1:]
    elif op == "split":
        return _split(b, x, var)
    else:
        source, contiguous, is_view = f"{x}.contiguous()", True, var.contiguous
    name = b.new_name()
    b.bind(name, b.result(shape, var.dtype, var, view_of=var if is_view else None,
                          contiguous=contiguous))
    return [f"{name} = {source}"]


def _split(b, x, var):
    """a, b = x.split(k, dim) / x.chunk(n, dim) / x.unbind(dim): unpacked when short."""
    if var.ndim == 0:
        return None
    d = b.rng.randrange(var.ndim)
    size = var.shape[d]
    function = b.choice(["split", "chunk", "unbind"])
    if function == "unbind":
        parts = [var.shape[:d] + var.shape[d + 1:]] * size
        source = f"{x}.unbind({d})" if b.chance(0.7) else f"torch.unbind({x}, {d})"
    else:
        k = b.choice([1, 2])
        pieces = [min(k, size - i) for i in range(0, size, k)] if function == "split" else \
            _chunks(size, k)
        parts = [var.shape[:d] + (p,) + var.shape[d + 1:] for p in pieces]
        source = f"{x}.{function}({k}, dim={d})" if b.chance(0.5) else f"{x}.{function}({k}, {d})"
    if not 1 <= len(parts) <= 3:
        return None
    names = [b.new_name()]
    free = [n for n in NAMES if n not in b.tensors and n not in names]
    names += free[:len(parts) - 1]
    if len(set(names)) < len(parts):
        return None
    for name, part in zip(names, parts):
        b.bind(name, b.result(part, var.dtype, var, view_of=var, contiguous=False))
    return [f"{', '.join(names)}{',' if len(names) == 1 else ''} = {source}"]


def _chunks(size, n):
    if size == 0:
        return [0]
    each = -(-size // n)
    return [min(each, size - i) for i in range(0, size, each)]


def convert(b):
    """.float()/.double()/.long()/.int()/.bool()/.to(dtype)/.type(dtype)."""
    found = b.pick()
    if not found:
        return None
    x, var = found
    method, dtype = b.choice([("float", "float32"), ("double", "float64"), ("long", "int64"),
                              ("int", "int32"), ("bool", "bool"), ("half", "float16"),
                              ("to", None), ("type", None)])
    if dtype is None:
        dtype = b.dtype()
        source = f"{x}.{method}(torch.{dtype})"
    else:
        source = f"{x}.{method}()"
    name = b.new_name()
    same = dtype == var.dtype
    b.bind(name, b.result(var.shape, dtype, var, view_of=var if same else None,
                          contiguous=var.contiguous if same else True))
    return [f"{name} = {source}"]


def query(b):
    """What a learner prints: is_contiguous, stride, shape, data_ptr equality, item, grad."""
    found = b.pick()
    if not found:
        return None
    x, var = found
    other = b.pick(lambda v: v is not var)
    y = other[0] if other else x
    options = [f"{x}.is_contiguous()", f"{x}.stride()", f"{x}.shape, {x}.dtype",
               f"{x}.data_ptr() == {y}.data_ptr()", f"{x}.storage_offset()",
               f"{x}.untyped_storage().data_ptr() == {y}.untyped_storage().data_ptr()",
               f"{x}", f"{x}.size({var.ndim - 1})" if var.ndim else f"{x}.dim()",
               f"{x}.numel(), {x}.dim()", f"{x}.is_leaf, {x}.requires_grad, {x}.grad_fn",
               f"{x}._version", "torch.is_grad_enabled()", f"{x}.tolist()"]
    if var.shape is not None and numel(var.shape) == 1 or b.chance(0.02):
        options += [f"{x}.item()"] * 3
    if var.is_leaf and var.requires_grad:
        options += [f"{x}.grad"] * 3
    return [f"print({b.choice(options)})"]


INPLACE = ["add_(1)", "mul_(2)", "sub_(0.5)", "div_(2)", "zero_()", "fill_(3)", "clamp_(min=0)",
           "relu_()", "exp_()", "sigmoid_()", "neg_()", "tanh_()", "sqrt_()", "pow_(2)"]


def inplace(b):
    """In-place writes (x.add_(1), x += y, x.copy_(y)) on tensors, views, saved tensors."""
    found = b.pick(lambda v: not v.inference or b.inference)
    if not found:
        return None
    x, var = found
    if var.is_leaf and var.requires_grad and b.grad_enabled and not b.chance(0.1):
        return None  # (in place on a leaf that requires grad is a mistake)
    kind = b.choice(["method", "method", "augmented", "copy"])
    if kind == "method":
        method = b.choice(INPLACE)
        if not var.is_float and method.split("(")[0] in ("exp_", "sigmoid_", "tanh_", "sqrt_",
                                                         "div_", "sub_"):
            if not b.chance(0.2):
                return None  # (a float result into an integer tensor: a mistake)
        statement = f"{x}.{method}"
        operand = None
    elif kind == "augmented":
        source, operand = b.operand(var)
        statement = f"{x} {b.choice(['+=', '-=', '*='])} {source}"
        if isinstance(operand, TensorVar) and broadcast(operand.shape, var.shape) != var.shape:
            return None
    else:
        other = b.pick(lambda v: v is not var and broadcast(v.shape, var.shape) == var.shape)
        if not other:
            return None
        statement, operand = f"{x}.copy_({other[0]})", other[1]
    if isinstance(operand, TensorVar) and operand.requires_grad and b.grad_enabled \
            and var.is_float:
        var.requires_grad, var.is_leaf = True, False
        var.leaves = var.leaves | operand.leaves
    return [statement]


def clone_detach(b):
    """clone / detach / .data / detach().requires_grad_() / requires_grad_ / retain_grad."""
    found = b.pick()
    if not found:
        return None
    x, var = found
    kind = b.choice(["clone", "detach", "data", "detach_clone", "requires_grad_", "retain_grad",
                     "retain_grad"])
    if kind == "requires_grad_":
        if not var.is_leaf or var.requires_grad or not (var.is_float or b.chance(0.05)):
            return None
        if var.is_float:
            var.requires_grad = True
            var.leaves = {var}
        return [f"{x}.requires_grad_()" if b.chance(0.7) else f"{x}.requires_grad_(True)"]
    if kind == "retain_grad":
        if not var.requires_grad or var.is_leaf:
            return None
        return [f"{x}.retain_grad()"]
    name = b.new_name()
    if kind == "clone":
        new = b.result(var.shape, var.dtype, var)
        source = f"{x}.clone()"
    else:
        new = TensorVar(var.shape, var.dtype, view_of=var, contiguous=var.contiguous,
                        inference=var.inference)
        source = {"detach": f"{x}.detach()", "data": f"{x}.data",
                  "detach_clone": f"{x}.detach().clone()"}[kind]
        if kind == "detach_clone" and var.is_float and b.chance(0.5):
            source += ".requires_grad_()"
            new.requires_grad, new.leaves, new.view_of = True, set(), None
            new.leaves = {new}
    b.bind(name, new)
    return [f"{name} = {source}"]


GRAPHS = ["{x} * {x}", "{x}.exp()", "({x} * 3).tanh()", "{x} ** 2 + {x}", "{x}.sigmoid() * 2",
          "{x}.relu() - {x}.sin()"]


def backward(b):
    """loss.backward() on a scalar; y.backward(gradient=...); retain_graph; repeated calls."""
    found = b.pick(lambda v: v.requires_grad and not v.is_leaf)
    statements = []
    if not found:  # no graph yet: make one from a leaf that requires grad
        found = b.pick(lambda v: v.requires_grad and v.is_leaf)
        if not found:
            return None
        x, leaf = found
        y = b.new_name()
        statements.append(f"{y} = " + b.choice(GRAPHS).format(x=x))
        found = y, b.bind(y, b.result(leaf.shape, leaf.dtype, leaf))
    y, var = found
    retain = ", retain_graph=True" if b.chance(0.35) else ""
    if var.ndim == 0:
        statements.append(f"{y}.backward({retain[2:]})")
    elif b.chance(0.4):
        gradients = ["torch.ones_like({y})", "torch.full_like({y}, 0.5)", "torch.randn_like({y})"]
        if b.chance(0.1):  # a gradient of another dtype
            gradients.append("torch.ones_like({y}, dtype=torch.float64)")
        gradient = b.choice(gradients).format(y=y)
        if "randn" in gradient:
            statements += b.seed_statements()
        keyword = "gradient=" if b.chance(0.5) else ""
        statements.append(f"{y}.backward({keyword}{gradient}{retain})")
    elif b.chance(0.05):
        statements.append(f"{y}.backward()")  # a mistake: not a scalar (unless one element)
    else:
        loss = "loss" if "loss" not in b.tensors or b.chance(0.5) else b.new_name()
        reduce = b.choice(["{y}.sum()", "{y}.mean()", "({y} ** 2).sum()", "{y}.sum() * 2"])
        statements.append(f"{loss} = {reduce.format(y=y)}")
        b.bind(loss, b.result((), var.dtype, var))
        statements.append(f"{loss}.backward({retain[2:]})")
    for leaf in var.leaves:
        leaf.has_grad = True
    return statements


def grad_access(b):
    """After a backward: zero the gradient, set it to None, or use it (manual SGD)."""
    found = b.pick(lambda v: v.has_grad and v.is_leaf)
    if not found:
        return None
    x, var = found
    kind = b.choice(["zero", "none", "sgd", "sgd_data", "copy"])
    if kind == "zero":
        return [f"{x}.grad.zero_()"]
    if kind == "none":
        var.has_grad = False
        return [f"{x}.grad = None"]
    if kind == "sgd":
        return [f"with torch.no_grad():\n    {x} -= 0.1 * {x}.grad"]
    if kind == "sgd_data":
        return [f"{x}.data -= 0.1 * {x}.grad"]
    name = b.new_name()
    b.bind(name, TensorVar(var.shape, var.dtype))
    return [f"{name} = {x}.grad.clone()"]


GRAD_MODES = ["torch.no_grad()", "torch.enable_grad()", "torch.set_grad_enabled(False)",
              "torch.inference_mode()"]


def grad_mode(b):
    """A `with` block under no_grad / enable_grad / set_grad_enabled / inference_mode, or a
    function decorated with @torch.no_grad()."""
    if b.grad_enabled is False or b.inference:
        return None
    mode = b.choice(GRAD_MODES + ["nested", "decorator"])
    if mode == "decorator":
        found = b.pick(lambda v: v.is_float)
        if not found:
            return None
        x, var = found
        name = b.new_name()
        b.bind(name, TensorVar(var.shape, var.dtype))
        return ["@torch.no_grad()\ndef scaled(t):\n    return t * 2", f"{name} = scaled({x})"]
    header = {"nested": "with torch.no_grad():\n    with torch.enable_grad():"}.get(
        mode, f"with {mode}:")
    b.grad_enabled = mode in ("torch.enable_grad()", "nested")
    b.inference = mode == "torch.inference_mode()"
    body = []
    for _ in range(b.choice([1, 1, 2])):
        action = b.rng.choices(list(BODY_ACTIONS), list(BODY_ACTIONS.values()))[0]
        body += action(b) or []
    b.grad_enabled, b.inference = True, False
    if not body:
        return None
    indent = "        " if mode == "nested" else "    "
    return [header + "\n" + "\n".join(indent + line.replace("\n", "\n" + indent)
                                      for line in body)]


def autograd_grad(b):
    """torch.autograd.grad, with create_graph=True for a second derivative."""
    found = b.pick(lambda v: v.requires_grad and not v.is_leaf and v.leaves)
    if not found:
        return None
    y, var = found
    leaf = b.choice(sorted(var.leaves, key=lambda v: v.serial))
    x = next((n for n, v in b.tensors.items() if v is leaf), None)
    if x is None:
        return None
    output = y if var.ndim == 0 else f"{y}.sum()"
    create = b.chance(0.6)
    g = b.new_name()
    statements = [f"{g}, = torch.autograd.grad({output}, {x}"
                  f"{', create_graph=True' if create else ''})"]
    gvar = TensorVar(leaf.shape, leaf.dtype, requires_grad=create, is_leaf=not create,
                     leaves={leaf} if create else set())
    b.bind(g, gvar)
    if create and b.chance(0.6):
        g2 = b.new_name()
        statements.append(f"{g2}, = torch.autograd.grad({g}.sum(), {x})" if b.chance(0.5)
                          else f"{g}.sum().backward()")
        if "backward" in statements[-1]:
            leaf.has_grad = True
        else:
            b.bind(g2, TensorVar(leaf.shape, leaf.dtype))
    return statements


HOOKS = ["lambda grad: grad * 2", "lambda grad: print('hook:', grad)", "lambda grad: None",
         "lambda grad: grad + 1", "lambda grad: grad.clamp(min=0)"]


def hook(b):
    """A tensor hook that prints or changes the gradient; removing it again."""
    if b.hooks and b.chance(0.3):
        return [f"{b.hooks.pop()}.remove()"]
    found = b.pick(lambda v: v.requires_grad)
    if not found:
        return None
    x, var = found
    function = b.choice(HOOKS) if not b.chance(0.04) else "lambda grad: grad.sum()"  # mistake
    handle = f"handle{len(b.hooks) + 1}" if b.chance(0.5) else None
    if handle:
        b.hooks.append(handle)
        return [f"{handle} = {x}.register_hook({function})"]
    return [f"{x}.register_hook({function})"]




def function(b):
    """A custom autograd.Function (save_for_backward, ctx attributes, mark_dirty), applied."""
    name = b.rng.choices(list(FUNCTIONS), [4, 3, 3, 2, 0.5])[0]
    found = b.pick(lambda v: v.is_float and (name != "AddOneInPlace" or not v.is_leaf
                                             or not v.requires_grad))
    if not found:
        return None
    x, var = found
    statements = [] if name in b.functions else [FUNCTIONS[name]]
    b.functions.add(name)
    args = {"MulConstant": f"{x}, 3.0", "WrongCount": f"{x}, {x}"}.get(name, x)
    out = b.new_name()
    statements.append(f"{out} = {name}.apply({args})")
    b.bind(out, b.result(var.shape, var.dtype, var))
    return statements


def nn_model(b):
    """A seeded nn.Linear / nn.Sequential with an input, a loss and an optimizer."""
    if b.models and b.chance(0.6):
        return train_step(b)
    in_features, hidden, out_features = b.choice([2, 3, 4]), b.choice([3, 4]), b.choice([1, 2, 3])
    statements = b.seed_statements() or ["torch.manual_seed(0)"]
    b.seeded = True
    if b.chance(0.4):
        layers = f"torch.nn.Linear({in_features}, {out_features})"
        statements.append(f"model = {layers}")
    else:
        activation = b.choice(["ReLU", "Tanh", "Sigmoid"])
        statements.append(f"model = torch.nn.Sequential(torch.nn.Linear({in_features}, "
                          f"{hidden}), torch.nn.{activation}(), torch.nn.Linear({hidden}, "
                          f"{out_features}))")
    b.models["model"] = ModelVar(in_features, out_features)
    b.tensors.pop("model", None)
    batch = b.choice([2, 3, 4])
    statements.append(f"inputs = torch.randn({batch}, {in_features})")
    b.bind("inputs", TensorVar((batch, in_features), "float32"))
    if out_features > 1 and b.chance(0.5):
        labels = [b.rng.randrange(out_features) for _ in range(batch)]
        statements.append(f"targets = torch.tensor({labels})")
        statements.append("loss_fn = torch.nn.CrossEntropyLoss()")
        b.bind("targets", TensorVar((batch,), "int64"))
    else:
        statements.append(f"targets = torch.randn({batch}, {out_features})")
        statements.append("loss_fn = torch.nn.MSELoss()")
        b.bind("targets", TensorVar((batch, out_features), "float32"))
    optimizer = b.choice(["torch.optim.SGD(model.parameters(), lr=0.1)",
                          "torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)",
                          "torch.optim.Adam(model.parameters(), lr=0.01)"])
    statements.append(f"opt = {optimizer}")
    b.optimizers["opt"] = "model"
    b.tensors.pop("opt", None)
    return statements


def train_step(b):
    """One training step, or a few in a loop."""
    if "opt" not in b.optimizers or "inputs" not in b.tensors or "targets" not in b.tensors:
        return None
    step = ("opt.zero_grad()\nout = model(inputs)\nloss = loss_fn(out, targets)\n"
            "loss.backward()\nopt.step()")
    b.bind("out", TensorVar(None, "float32", requires_grad=True, is_leaf=False))
    b.bind("loss", TensorVar((), "float32", requires_grad=True, is_leaf=False))
    if b.chance(0.4):
        body = step.replace("\n", "\n    ")
        return [f"for step in range({b.choice([2, 3])}):\n    {body}\n    print(loss.item())"]
    return step.split("\n")


def join(b):
    """torch.cat / torch.stack of tensors of fitting shapes (the same one, or a new one)."""
    found = b.pick(lambda v: v.ndim >= 1)
    if not found:
        return None
    x, var = found
    name = b.new_name()
    if b.chance(0.5):
        dim = b.rng.randrange(var.ndim + 1)
        shape = var.shape[:dim] + (2,) + var.shape[dim:]
        b.bind(name, b.result(shape, var.dtype, var))
        return [f"{name} = torch.stack([{x}, {x} * 2], dim={dim})"]
    dim = b.rng.randrange(var.ndim)
    extra = var.shape[:dim] + (1,) + var.shape[dim + 1:]
    other = b.tensor_source(extra, var.dtype)
    shape = var.shape[:dim] + (var.shape[dim] + 1,) + var.shape[dim + 1:]
    b.bind(name, b.result(shape, var.dtype, var))
    return [f"{name} = torch.cat([{x}, {other}], dim={dim})"]


def mistake(b):
    """A learner's mistake torch refuses with an error (the engine must raise the same)."""
    found = b.pick()
    if not found:
        return None
    x, var = found
    wrong = (var.shape[-1] + 1) if var.ndim else 2  # a size that does not broadcast
    options = [f"{x} + torch.ones({wrong}, 5)", f"{x} / torch.ones({wrong}, 3)",
               f"{x} % torch.ones({wrong}, 2)", f"torch.stack([{x}, torch.ones({wrong})])",
               f"{x}.view(-1, 7)", f"{x}.item()", f"{x}.t().view(-1)",
               "torch.zeros(2, dtype=torch.int64, requires_grad=True)",
               f"{x}.backward()", f"{x}.numpy()", f"{x}[{(var.shape[0] if var.ndim else 0) + 3}]",
               f"{x}.sum(dim={var.ndim + 1})", f"torch.cat([{x}, torch.ones(7, 7, 7)])",
               f"{x}.reshape({numel(var.shape) + 1})", f"{x}.grad.zero_()",
               "torch.tensor([1, 2]).mean()", f"{x}.squeeze({var.ndim + 1})"]
    return [f"{b.new_name()} = {b.choice(options)}" if b.chance(0.5) else b.choice(options)]


ACTIONS = [(14, create), (8, unary), (12, binary), (7, reduction), (5, matmul), (5, index),
           (4, index_assign), (8, view), (2, convert), (5, query), (5, inplace),
           (4, clone_detach), (10, backward), (3, grad_access), (3, grad_mode),
           (3, autograd_grad), (2, hook), (2, function), (2, nn_model), (2, join)]
AUTOGRAD_ACTIONS = (backward, grad_access, autograd_grad, hook, function, clone_detach)
BODY_ACTIONS = {action: weight for weight, action in ACTIONS
                if action in (create, unary, binary, reduction, view, inplace, index_assign,
                              clone_detach)}


def family_of(seed, families=None):
    """The family of ``seed``'s program (None: a classic one), drawn from a random stream of
    its own so that the classic programs' stream stays as it was. ``families``: the names to
    choose among (None: all of FAMILIES, and classic programs for CLASSIC_SHARE of seeds)."""
    chooser = random.Random(f"family of {seed}")
    if families is None:
        if chooser.random() < CLASSIC_SHARE:
            return None
        families = FAMILIES
    names = [name for name in FAMILIES if name in families]
    if not names:
        return None
    return chooser.choices(names, [FAMILIES[name].weight for name in names])[0]


def generate(seed, families=None):
    """The program for ``seed``: 5 to 15 statements (a list of source strings); a family's
    programs may be longer (some of its actions write several statements)."""
    family = family_of(seed, families)
    b = ProgramBuilder(seed, family)
    length = b.rng.randint(5, 15)
    own = FAMILIES[family].actions if family else ()
    for _ in range(200):
        if len(b.statements) >= length:
            break
        if own and b.chance(FAMILY_SHARE):
            action = b.rng.choices([a for _, a in own], [w for w, _ in own])[0]
        elif len(b.tensors) < 2:
            action = create
        elif b.chance(MISTAKES):
            action = mistake
        else:
            weights = [w * (2 if b.autograd_focus and a in AUTOGRAD_ACTIONS else 1)
                       for w, a in ACTIONS]
            action = b.rng.choices([a for _, a in ACTIONS], weights)[0]
        statements = action(b)
        if statements:
            b.statements.extend(statements)
    return b.statements


def source(statements):
    """The program as one Python source text."""
    return "\n".join(statements) + "\n"
