"""What the generator knows while it writes a program: dtypes, shapes, variables.

``ProgramBuilder`` holds one program being written (its statements, the random stream, what
each name holds as a ``TensorVar``), and the choices every action shares (shapes, dtypes,
literals, second operands). The actions themselves are in generator.py (the course's surface)
and families.py (the families aimed at the classes of issue 25); a family changes a few of
the builder's choices here (``ProgramBuilder.family``), only in its own programs.
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field

_SERIAL = itertools.count()

FLOATS = ("float16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
# How often each dtype is picked for a new tensor (float32 is what learners mostly see).
DTYPE_WEIGHTS = {"float32": 55, "float64": 12, "int64": 14, "int32": 4, "bool": 6,
                 "float16": 3, "uint8": 2, "int8": 2, "int16": 2}
FLOAT_LITERALS = ["0.0", "1.0", "-1.0", "0.5", "-0.5", "2.0", "-2.0", "1.5", "3.0", "-2.5",
                  "0.25", "4.0", "0.1", "-0.3"]
INT_LITERALS = ["0", "1", "-1", "2", "3", "-2", "4", "5", "-3", "7"]
NAMES = ["x", "y", "z", "w", "a", "b", "c", "d", "u", "v", "p", "q", "r", "s", "h", "k"]
MISTAKES = 0.03  # share of statements that are a misuse torch refuses
# The ends of each dtype's range: the "extremes" family writes them, and numbers just past them.
INT_RANGE = {"bool": (0, 1), "uint8": (0, 255), "int8": (-128, 127), "int16": (-2**15, 2**15 - 1),
             "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}
# Numbers whose square, sum or product overflows the dtype (the "overflow" family).
NEAR_MAX = {"float16": ["6e4", "-6e4", "65504.0", "-65504.0", "3e4", "300.0", "-2.75"],
            "float32": ["3e38", "-3e38", "3.4e38", "1e38", "2e19", "-1.5e19", "-2.75"],
            "float64": ["1e308", "-1.7e308", "1e154", "-2.75"]}
# Shapes with a size 0, and no dimension at all (the "empty" family).
EMPTY_SHAPES = [(), (), (0,), (0,), (2, 0), (0, 3), (1, 0), (0, 2, 2), (2, 0, 1)]


# ---------------------------------------------------------------- dtypes and shapes
def category(dtype):
    """0 for bool, 1 for integers, 2 for floating point: the order of type promotion."""
    return 0 if dtype == "bool" else 1 if dtype in INTS else 2


def promote_types(a, b):
    """torch.promote_types for the engine's dtypes (None means 'no operand yet')."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if category(a) != category(b):
        return a if category(a) > category(b) else b
    if category(a) == 2:
        return max(a, b, key=FLOATS.index)
    if "uint8" in (a, b):
        other = b if a == "uint8" else a
        return "int16" if other == "int8" else other
    return max(a, b, key=INTS.index)


def result_type(*operands):
    """The dtype of an elementwise result, by torch's rules: tensors with dimensions first,
    then 0-d tensors, then Python numbers, a later group counting only when it is of a
    higher category. An operand is a TensorVar or a Python literal's source text."""
    dimensioned = zero_dim = wrapped = None
    for operand in operands:
        if isinstance(operand, TensorVar):
            if operand.shape == ():
                zero_dim = promote_types(zero_dim, operand.dtype)
            else:
                dimensioned = promote_types(dimensioned, operand.dtype)
        else:
            wrapped = promote_types(wrapped, python_dtype(operand))
    return _combine(dimensioned, _combine(zero_dim, wrapped))


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None or category(higher) == 2:
        return higher
    if higher == "bool" or category(lower) == 2:
        return promote_types(higher, lower)
    return higher


def python_dtype(literal):
    """The dtype torch gives a Python number written as ``literal``."""
    if literal in ("True", "False"):
        return "bool"
    return "float32" if any(c in literal for c in ".e") or "float(" in literal else "int64"


def broadcast(a, b):
    """The broadcast shape of shapes a and b, or None when they do not broadcast."""
    result = []
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da != db and 1 not in (da, db):
            return None
        result.append(db if da == 1 else da)
    return tuple(reversed(result))


def numel(shape):
    return math.prod(shape)


@dataclass(eq=False)
class TensorVar:
    """What the generator knows about one tensor (the object, whatever names it has)."""
    shape: tuple | None  # None: depends on values (x[x > 0])
    dtype: str
    requires_grad: bool = False
    is_leaf: bool = True
    contiguous: bool = True
    view_of: TensorVar | None = None
    leaves: set = field(default_factory=set)  # the leaves requiring grad it was computed from
    inference: bool = False  # made inside inference_mode
    has_grad: bool = False  # a leaf whose .grad was filled by a backward
    # The order of creation: sets of TensorVars are sorted by it (not by id(), which
    # changes from run to run and made a seed's program differ between processes).
    serial: int = field(default_factory=lambda: next(_SERIAL))

    @property
    def ndim(self):
        return len(self.shape) if self.shape is not None else None

    @property
    def is_float(self):
        return self.dtype in FLOATS


@dataclass(eq=False)
class ModelVar:
    """An nn model: its input and output features."""
    in_features: int
    out_features: int


# ---------------------------------------------------------------- the program being written
class ProgramBuilder:
    """The state of one program being written: its statements and what each name holds.

    The actions below (functions of a builder) choose what to write; an action returns
    ``None`` when it does not apply to the variables there are."""

    def __init__(self, seed, family=None):
        self.rng = random.Random(seed)
        self.statements: list[str] = []
        self.tensors: dict[str, TensorVar] = {}
        self.models: dict[str, ModelVar] = {}
        self.optimizers: dict[str, str] = {}  # optimizer name -> model name
        self.functions: set[str] = set()  # autograd.Function classes defined
        self.hooks: list[str] = []
        self.seeded = False
        # Half of the programs are about autograd: more tensors require grad, more
        # backward calls, hooks and autograd.grad.
        self.autograd_focus = self.chance(0.5)
        self.grad_enabled = True
        self.inference = False
        # The family this program belongs to (families.py), or None for a classic program.
        # Every choice below draws as before when it is None: a seed's classic program is the
        # one it was before the families existed.
        self.family = family
        self.reserved: set[str] = set()  # names a family's statements hold that are not tensors

    # ------------------------------------------------------------ choosing
    def chance(self, p):
        return self.rng.random() < p

    def choice(self, options):
        return self.rng.choice(list(options))

    def pick(self, test=lambda var: True):
        """A (name, var) among the tensors for which ``test`` holds, or None; tensors in a
        graph are picked more often (the course is about autograd)."""
        names = [n for n, v in self.tensors.items() if v.shape is not None and test(v)]
        if not names:
            return None
        weights = [3 if self.tensors[n].requires_grad else 1 for n in names]
        name = self.rng.choices(names, weights)[0]
        return name, self.tensors[name]

    def new_name(self):
        """A fresh name mostly; sometimes an existing one is reused (``x = x + 1``)."""
        used = set(self.tensors) | set(self.models) | set(self.optimizers) | self.reserved
        if used and self.chance(0.12):
            return self.choice(sorted(self.tensors)) if self.tensors else self.choice(NAMES)
        free = [n for n in NAMES if n not in used]
        return free[0] if free else f"t{len(self.statements)}"

    def fresh_name(self):
        """A name not used so far in the program (several in one statement stay distinct)."""
        used = set(self.tensors) | set(self.models) | set(self.optimizers) | self.reserved
        name = next((n for n in NAMES if n not in used), None)
        number = len(used)
        while name is None or name in used:
            number += 1
            name = f"t{number}"
        self.reserved.add(name)
        return name

    def bind(self, name, var):
        """``name`` now holds ``var`` (forgetting what the name held before)."""
        self.models.pop(name, None)
        self.optimizers.pop(name, None)
        self.tensors[name] = var
        return var

    def result(self, shape, dtype, *inputs, differentiable=True, view_of=None, contiguous=True):
        """A new TensorVar computed from ``inputs`` in the current grad mode."""
        tracked = [v for v in inputs if isinstance(v, TensorVar)]
        requires_grad = (differentiable and dtype in FLOATS and self.grad_enabled
                         and any(v.requires_grad for v in tracked))
        leaves = set().union(*(v.leaves for v in tracked)) if requires_grad else set()
        return TensorVar(tuple(shape) if shape is not None else None, dtype, requires_grad,
                         is_leaf=not requires_grad, contiguous=contiguous, view_of=view_of,
                         leaves=leaves, inference=self.inference)

    def seed_statements(self):
        """``torch.manual_seed(n)`` before the first random numbers (and now and then again)."""
        if self.seeded and not self.chance(0.15):
            return []
        self.seeded = True
        return [f"torch.manual_seed({self.choice([0, 0, 1, 7, 42, 123])})"]

    # ------------------------------------------------------------ literals
    def shape(self, max_ndim=3):
        if self.family == "empty" and self.chance(0.5):
            return self.choice(s for s in EMPTY_SHAPES if len(s) <= max_ndim)
        ndim = self.rng.choices(range(max_ndim + 1), [1, 4, 5, 2][:max_ndim + 1])[0]
        return tuple(self.rng.choices([1, 2, 3, 4, 0], [3, 5, 5, 2, 0.08])[0]
                     for _ in range(ndim))

    def dtype(self, floats_only=False):
        if self.family == "extremes" and not floats_only and self.chance(0.6):
            return self.choice(["uint8", "int8", "int16", "int32", "int64", "bool", "float16"])
        if self.family == "overflow" and self.chance(0.6):
            return self.choice(["float16", "float32"])
        weights = {d: w for d, w in DTYPE_WEIGHTS.items() if not floats_only or d in FLOATS}
        return self.rng.choices(list(weights), list(weights.values()))[0]

    def scalar(self, dtype):
        """A Python number to combine with a tensor of ``dtype`` (mostly of its kind)."""
        if self.family in ("extremes", "overflow") and self.chance(0.3):
            return self.edge_literal(dtype, past=self.family == "extremes")
        kind = dtype if self.chance(0.8) else self.choice(["float32", "int64", "bool"])
        if kind == "bool":
            return self.choice(["True", "False"])
        if kind in INTS:
            return self.choice(["0", "1", "2", "3", "-1"] if kind != "uint8" else ["0", "1", "2"])
        return self.choice(FLOAT_LITERALS)

    def values(self, shape, dtype):
        """Nested list source of ``shape`` with values fit for ``dtype``."""
        if len(shape) == 0:
            if self.family in ("extremes", "overflow") and dtype != "bool" and self.chance(0.4):
                return self.edge_literal(dtype)
            if self.family == "zero_signs" and dtype in FLOATS and self.chance(0.4):
                return self.choice(["0.0", "-0.0"])
            if dtype == "bool":
                return self.choice(["True", "False"])
            pool = INT_LITERALS if dtype in INTS else FLOAT_LITERALS
            if dtype == "uint8":
                pool = [v for v in pool if not v.startswith("-")]
            return self.choice(pool)
        return "[" + ", ".join(self.values(shape[1:], dtype) for _ in range(shape[0])) + "]"

    def edge_literal(self, dtype, past=False):
        """A number at the end of ``dtype``'s range (integers: its min and max; floats: near
        the max), or with ``past``, one a write must refuse or wrap (just past the range, a
        float, inf, nan)."""
        if dtype in FLOATS:
            if past and self.chance(0.5):
                return self.choice(["1e5", "-7e4", "65520.0", "1e39", "-1e39", "float('inf')",
                                    "float('nan')", str(2**64)])
            return self.choice(NEAR_MAX[dtype])
        low, high = INT_RANGE[dtype]
        if not past or self.chance(0.3):
            return str(self.choice([low, high, low + 1, high - 1] if dtype != "bool" else [0, 1]))
        return self.choice([str(low - 1), str(high + 1), str(high + 2), str(2 * high + 2), "-1",
                            f"{high}.5", "2.5", "-0.5", "1e10", "-1e10", "float('inf')",
                            "float('nan')", str(2**63), str(-2**63 - 1)])

    def dtype_arg(self, dtype):
        return f"dtype=torch.{dtype}"

    # ------------------------------------------------------------ shapes
    def partner_shape(self, shape):
        """A shape that broadcasts with ``shape`` to ``shape`` (some dims 1, some dropped)."""
        dims = [1 if self.chance(0.3) else d for d in shape]
        drop = self.rng.randint(0, len(dims)) if self.chance(0.4) else 0
        return tuple(dims[drop:])

    def reshape_target(self, shape):
        """Another shape with as many elements, maybe with one -1."""
        n = numel(shape)
        divisors = [d for d in range(1, n + 1) if n % d == 0] or [1]
        first = self.choice(divisors)
        target = [first, n // first] if self.chance(0.6) else [n]
        if self.chance(0.3) and target[-1] > 1:
            rest = target.pop()
            second = self.choice([d for d in range(1, rest + 1) if rest % d == 0])
            target += [second, rest // second]
        written = list(target)
        if n > 0 and self.chance(0.35):
            written[self.rng.randrange(len(written))] = -1
        return tuple(target), written

    def dim(self, var, allow_none=False):
        if var.ndim == 0 or (allow_none and self.chance(0.3)):
            return None
        d = self.rng.randrange(var.ndim)
        return d - var.ndim if self.chance(0.2) else d

    # ------------------------------------------------------------ tensors to operate on
    def operand(self, var, *, same_dtype=False):
        """Source text of a second operand for ``var``: another variable, a new tensor or a
        Python number; returned with its TensorVar (or its literal) for typing."""
        if self.chance(0.3):
            literal = self.scalar(var.dtype)
            return literal, literal
        shape = self.partner_shape(var.shape)
        others = self.pick(lambda v: v is not var and broadcast(v.shape, var.shape) == var.shape
                           and (not same_dtype or v.dtype == var.dtype) and not v.inference)
        if others and self.chance(0.6):
            return others
        dtype = var.dtype if same_dtype or self.chance(0.7) else self.dtype()
        other = TensorVar(shape, dtype)
        return self.tensor_source(shape, dtype), other

    def tensor_source(self, shape, dtype):
        """An inline tensor literal, ``torch.tensor(...)`` or ``torch.ones(...)``."""
        explicit = "" if dtype in ("float32", "int64", "bool") else f", {self.dtype_arg(dtype)}"
        if 0 < numel(shape) <= 6 and self.chance(0.7):
            return f"torch.tensor({self.values(shape, dtype)}{explicit})"
        dims = ", ".join(map(str, shape)) if shape else "()"
        return f"torch.ones({dims}, {self.dtype_arg(dtype)})"


# custom autograd.Functions the programs define (the classic ones, and the once_differentiable
# family's variants of them)
FUNCTIONS = {
    "Square": '''class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return 2 * x * grad_output''',
    "Exp": '''class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result''',
    "MulConstant": '''class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.k, None''',
    "AddOneInPlace": '''class AddOneInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.add_(1)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output''',
    "WrongCount": '''class WrongCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output''',
}
