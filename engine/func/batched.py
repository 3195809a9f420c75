"""``BatchedTensor``: what a function under ``vmap`` sees in place of a batched input.

It holds one *physical* tensor whose first dimension is the batch, and shows the rest as
its (logical) shape: ``vmap(f)(x)`` with x of shape (64, 3) calls f once, with a
BatchedTensor of shape (3,). Each operation on it runs once on the physical tensor, by a
*batching rule*: an elementwise op broadcasts (an unbatched operand gets no batch dimension,
a batched one of lower rank gets size-1 dimensions after its batch dimension), a reduction
or a view moves its dimensions one to the right, ``matmul`` lines its operands up so that
the batch is a batch of matrices. A BatchedTensor of an inner ``vmap`` holds a BatchedTensor
of the outer one, so the rules nest without knowing it.

What has a rule: Python's operators, the tensor methods in ``ELEMENTWISE``, ``REDUCTIONS``,
``SCANS`` and the views and products defined in the class; the ``torch.<name>`` functions
(engine/ops/common.py's wrappers hand a call that failed with a BatchedTensor among its
arguments to ``__torch_function__``): the elementwise ones whichever operand is batched
(``elementwise_function``: ``torch.add(2, x)``, ``torch.clamp(w, min=x)``,
``torch.where(c, 1.0, 0.0)``), those of the methods' names, and ``FUNCTION_RULES``:
``torch.cat``/``stack`` of batched and unbatched tensors, ``matmul``/``mm``/``mv``/``dot``/
``bmm``, and torch's refusals (``as_strided_scatter``; ``select_scatter`` and
``slice_scatter`` of a src of another dtype, which torch batches as a scatter);
``NN_RULES``: ``F.linear`` (so ``nn.Linear``), ``F.relu``, ``F.tanh``, ``F.sigmoid``,
``F.mse_loss`` and ``F.cross_entropy`` with class indices (engine/nn/functional.py hands
a BatchedTensor to them the same way). Indexing: ints,
slices, None, Ellipsis, an unbatched index tensor, or one batched integer index tensor.
Anything else (a method of an unbatched tensor given a batched argument, ``w.add(x)``, an
unbatched tensor indexed with a batched one, other layers and losses ...) raises
``NoBatchingRule``, and ``vmap`` runs the function again, once per sample, and stacks the
results (vmap.py): the same numbers, in a Python loop.
"""
from ..core.tensor import Tensor
from ..fidelity import dtypes
from ..ops.creation import arange
from ..ops.join import cat as join_cat
from ..ops.join import stack as join_stack
from ..ops.linalg import matmul as torch_matmul
from ..fidelity.size import Size
from ..fidelity.transforms import NoBatchingRule  # noqa: F401  (vmap.py and others import it here)

# torch refuses what would give each sample a result of its own shape (dynamic shapes)
MASK_ERROR = ("vmap: We do not support batching operators that can support dynamic shape. "
              "Attempting to batch over indexing with a boolean mask.")
NONZERO_ERROR = ("vmap: We do not support batching operators that can output dynamic shape. "
                 "Attempted to vmap over aten::nonzero. Please file an issue at "
                 "https://github.com/pytorch/pytorch/issues if you need this feature.")

# torch's vmap has no rule for as_strided_scatter, and no fallback either
AS_STRIDED_SCATTER_ERROR = ("Error: aten::as_strided_scatter requires special handling, and does "
                            "not yet have a batching rule. Feel free to file a github issue!")

MASKED_SELECT_ERROR = ("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) "
                       "We cannot support this because for each batch this would return a "
                       "differently shaped Tensor. Please file an issue at "
                       "https://github.com/pytorch/pytorch/issues if you need this feature.")




class BatchedOperand(NoBatchingRule):
    """An engine operation read a BatchedTensor's data: the engine's hand-over gives the call
    to its rule, if it has one (else the loop)."""

    vmap_loop = False


ITEM_ERROR = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap "
              "over calling .item() on a Tensor, please try to rewrite what you're doing with "
              "other operations. If error is occurring somewhere inside PyTorch internals, "
              "please file a bug report.")


def _broadcast_shapes(a, b):
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    return tuple(x if y == 1 else y for x, y in zip(a, b))


def physical(value):
    """The physical tensor of a BatchedTensor (batch first); anything else as it is."""
    return value.value if isinstance(value, BatchedTensor) else value


def to_real(value):
    """``(tensor, levels)``: the engine tensor under every BatchedTensor layer (the batch
    dimensions first, outermost vmap first) and the levels of those layers."""
    levels = []
    while isinstance(value, BatchedTensor):
        levels.append(value.level)
        value = value.value
    return value, levels[::-1]


def from_real(tensor, levels):
    """``to_real`` undone: the tensor wrapped again, the outermost level first."""
    for level in levels:
        tensor = BatchedTensor(tensor, level)
    return tensor


def logical_rank(value):
    return value.dim() if isinstance(value, (Tensor, BatchedTensor)) else 0


def aligned(value, rank, level):
    """An operand of an elementwise op whose result has logical ``rank``: a BatchedTensor of
    this level with size-1 dims after its batch dim (its logical dims then broadcast
    right-aligned with the others'); anything else as it is (broadcast by the op itself)."""
    if not (isinstance(value, BatchedTensor) and value.level == level):
        return value
    v = value.value
    for _ in range(rank - value.dim()):
        v = v.unsqueeze(1)
    return v


def batch_level(values):
    """The innermost vmap level among ``values`` (None when none is batched)."""
    levels = [v.level for v in values if isinstance(v, BatchedTensor)]
    return max(levels) if levels else None


def elementwise(name, *operands, **kwargs):
    """``operands[0].<name>(*operands[1:], **kwargs)`` run once on the aligned physical
    operands (the first is a tensor: a method's self, a reflected operator's other, or a
    torch.<function>'s first argument, a number there running the loop)."""
    if not isinstance(operands[0], (Tensor, BatchedTensor)):  # torch.add(2, batched): the loop
        raise NoBatchingRule(f"{name} of a number and a batched tensor")
    level = batch_level(operands)
    rank = max(logical_rank(o) for o in operands)
    args = [aligned(o, rank, level) for o in operands]
    return BatchedTensor(getattr(args[0], name)(*args[1:], **kwargs), level)


def elementwise_function(func, args, kwargs):
    """``torch.<func>(*args, **kwargs)`` of an elementwise function, whichever of its operands
    are batched (a number or an unbatched tensor first, a batched bound of clamp, where's
    condition), run once on the aligned physical operands: the function itself does the
    rest (its broadcasting, its dtypes, a number as a number)."""
    operands = (*args, *kwargs.values())
    level = batch_level(operands)
    rank = max(logical_rank(o) for o in operands)
    return BatchedTensor(func(*(aligned(a, rank, level) for a in args),
                              **{k: aligned(v, rank, level) for k, v in kwargs.items()}), level)


def logical_dim(dim, rank):
    """A logical dimension (may be negative) as its physical position (batch first)."""
    size = max(rank, 1)
    if not -size <= dim < size:
        raise NoBatchingRule("dim out of range")  # (the loop gives torch's own error)
    return dim % size + 1


ELEMENTWISE = """abs absolute neg negative exp exp2 expm1 log log1p log2 log10 sqrt rsqrt sin cos
    tan sinh cosh tanh asin acos atan sigmoid relu sign square reciprocal floor ceil round trunc
    frac erf logical_not isnan isinf isfinite nan_to_num float double half long int bool clone
    detach contiguous clamp clamp_min clamp_max clip add sub subtract mul multiply div divide
    true_divide pow maximum minimum eq ne lt le gt ge atan2 fmod remainder logical_and
    logical_or where masked_fill lerp xlogy hypot""".split()
REDUCTIONS = """sum mean prod amax amin std var logsumexp all any argmax argmin
    count_nonzero nansum""".split()
SCANS = "cumsum cumprod softmax log_softmax".split()
# the methods whose batching rule in torch keeps the batch dimension where it was, called
# with no argument (what a custom Function's vmap rule then sees as in_dim)
KEEPS_BATCH_DIM = frozenset(ELEMENTWISE[:ELEMENTWISE.index("add")]) - {"contiguous", "isfinite",
                                                                       "clamp", "clamp_min",
                                                                       "clamp_max", "clip"}
# torch.<name> functions run by ``elementwise_function`` (their operands in any position)
ELEMENTWISE_FUNCTIONS = frozenset(ELEMENTWISE) - {"clone", "detach", "contiguous", "float",
                                                  "double", "half", "long", "int", "bool"}


class BatchedTensor:
    """A tensor with a hidden batch dimension (the first of ``value``) at vmap ``level``.

    ``bdim`` is where torch's batched tensor keeps that dimension (it moves it only when an
    operation needs to): a custom Function's vmap rule sees it as its ``in_dim``, on the
    tensor ``value.movedim(0, bdim)``, or ``origin``, the very tensor torch's wraps (a vmap
    input, a rule's output), when it is known (function_vmap.py)."""

    __slots__ = ("value", "level", "bdim", "origin")
    # the mark the engine's functions look for before handing a call to __torch_function__
    # (a real torch.Tensor has __torch_function__ too: it must get the engine's TypeError)
    __engine_vmap__ = True
    __array_priority__ = 1000  # (numpy scalars on the left defer to our operators)

    def __init__(self, value, level, bdim=0, origin=None):
        self.value, self.level, self.bdim, self.origin = value, level, bdim, origin

    def __getattr__(self, name):
        """A public Tensor method without a batching rule (``x.flip(0)``, ``x.index_select``):
        vmap's per-sample loop runs it, as torch's vmap runs it (by its own rule)."""
        if not name.startswith("_") and callable(getattr(Tensor, name, None)):
            raise NoBatchingRule(name)
        raise AttributeError(f"'BatchedTensor' object has no attribute '{name}'")

    # ------------------------------------------------------------ what it looks like
    @property
    def shape(self):
        return Size(tuple(self.value.shape)[1:])

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def dim(self):
        return self.value.dim() - 1

    ndim = property(dim)
    ndimension = dim

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    nelement = numel

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    dtype = property(lambda self: self.value.dtype)
    device = property(lambda self: self.value.device)
    requires_grad = property(lambda self: self.value.requires_grad)
    grad_fn = property(lambda self: self.value.grad_fn)
    def is_floating_point(self):
        return self.value.is_floating_point()

    def __repr__(self):
        inner = repr(self.value).replace("\n", "\n    ")
        return f"BatchedTensor(lvl={self.level}, bdim=0, value=\n    {inner}\n)"

    def item(self):
        raise RuntimeError(ITEM_ERROR)

    def tolist(self):
        raise RuntimeError(ITEM_ERROR)

    __float__ = __int__ = __bool__ = item

    def __index__(self):  # w[i] with i batched, w not: the loop (torch indexes with each i)
        if self.value.dtype == dtypes.bool:  # (a batched mask: torch refuses)
            raise RuntimeError(MASK_ERROR)
        raise NoBatchingRule("an unbatched tensor indexed with a batched one")

    def nonzero(self, *, as_tuple=False):
        if as_tuple:  # (torch's nonzero_numpy has no fallback either)
            raise RuntimeError("Batching rule not implemented for aten::nonzero_numpy. We could "
                               "not generate a fallback.")
        raise RuntimeError(NONZERO_ERROR)

    def as_strided_scatter(self, *args, **kwargs):
        raise RuntimeError(AS_STRIDED_SCATTER_ERROR)

    def select_scatter(self, src, *args, **kwargs):
        return _scatter_as_torch_batches(self, src)

    def slice_scatter(self, src, *args, **kwargs):
        return _scatter_as_torch_batches(self, src)

    def masked_select(self, mask):
        if isinstance(mask, BatchedTensor):  # (each sample would pick its own number)
            raise RuntimeError(MASKED_SELECT_ERROR)
        raise NoBatchingRule("masked_select: the loop, each sample picks as many")

    @property
    def _data(self):  # an engine operation reads this: its rule (the hand-over) or the loop
        raise BatchedOperand("no batching rule")

    # ------------------------------------------------------------ torch.<name>(batched)
    def __torch_function__(self, func, types, args=(), kwargs=None):
        """A torch.<name>(...) call with a BatchedTensor among its arguments (handed over by
        engine/ops/common.py or nn/functional.py): its batching rule."""
        kwargs = kwargs or {}
        name = func.__name__
        rule = (NN_RULES if func.__module__.startswith("engine.nn") else FUNCTION_RULES).get(name)
        if rule is not None:
            return rule(*args, **kwargs)
        if name in ELEMENTWISE_FUNCTIONS:
            return elementwise_function(func, args, kwargs)
        method = getattr(BatchedTensor, name, None)
        if method is None or name.startswith("_") or not isinstance(args[0], BatchedTensor):
            raise NoBatchingRule(name)
        return method(*args, **kwargs)

    # ------------------------------------------------------------ reductions
    def _reduce(self, name, dim=None, *args, **kwargs):
        if dim is None:  # over the whole sample: its elements in one row
            flat = self.value.reshape(self.value.shape[0], -1)
            return BatchedTensor(getattr(flat, name)(1, *args, **kwargs), self.level)
        rank = self.dim()
        if isinstance(dim, (tuple, list)):
            dims = tuple(logical_dim(d, rank) for d in dim)
        else:
            dims = logical_dim(dim, rank)
        if rank == 0:  # dim 0 or -1 of a 0-d sample: the sample itself, as a 1-element row
            return BatchedTensor(getattr(self.value.unsqueeze(1), name)(1, *args, **kwargs),
                                 self.level)
        return BatchedTensor(getattr(self.value, name)(dims, *args, **kwargs), self.level)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        if dim is None:
            flat = self.value.reshape(self.value.shape[0], -1)
            return BatchedTensor(flat.norm(2 if p == "fro" else p, 1), self.level)
        dims = tuple(logical_dim(d, self.dim()) for d in (dim if isinstance(dim, (tuple, list))
                                                          else (dim,)))
        return BatchedTensor(self.value.norm(p, dims, keepdim), self.level)

    def max(self, dim=None, keepdim=False):
        if dim is None:
            return self._reduce("amax")
        if isinstance(dim, (Tensor, BatchedTensor)):
            return elementwise("maximum", self, dim)
        values, indices = self.value.max(logical_dim(dim, self.dim()), keepdim)
        return type(self.value.max(0))(BatchedTensor(values, self.level),
                                       BatchedTensor(indices, self.level))

    def min(self, dim=None, keepdim=False):
        if dim is None:
            return self._reduce("amin")
        if isinstance(dim, (Tensor, BatchedTensor)):
            return elementwise("minimum", self, dim)
        values, indices = self.value.min(logical_dim(dim, self.dim()), keepdim)
        return type(self.value.min(0))(BatchedTensor(values, self.level),
                                       BatchedTensor(indices, self.level))

    # ------------------------------------------------------------ views
    def view(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return BatchedTensor(self.value.view(self.value.shape[0], *shape), self.level)

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return BatchedTensor(self.value.reshape(self.value.shape[0], *shape), self.level)

    def view_as(self, other):
        return self.view(tuple(other.shape))

    def reshape_as(self, other):
        return self.reshape(tuple(other.shape))

    def flatten(self, start_dim=0, end_dim=-1):
        if self.dim() == 0:
            return self.reshape(1)
        return BatchedTensor(self.value.flatten(logical_dim(start_dim, self.dim()),
                                                logical_dim(end_dim, self.dim())), self.level)

    def unsqueeze(self, dim):
        return BatchedTensor(self.value.unsqueeze(logical_dim(dim, self.dim() + 1)), self.level)

    def squeeze(self, dim=None):
        if dim is None:
            dims = tuple(d + 1 for d, s in enumerate(self.shape) if s == 1)
            return BatchedTensor(self.value.squeeze(dims) if dims else self.value, self.level)
        if self.dim() == 0:
            return self
        dims = tuple(logical_dim(d, self.dim()) for d in (dim if isinstance(dim, tuple)
                                                          else (dim,)))
        return BatchedTensor(self.value.squeeze(dims), self.level)

    def transpose(self, dim0, dim1):
        if self.dim() == 0:
            return self
        return BatchedTensor(self.value.transpose(logical_dim(dim0, self.dim()),
                                                  logical_dim(dim1, self.dim())), self.level)

    swapaxes = swapdims = transpose

    def t(self):
        return self if self.dim() < 2 else self.transpose(0, 1)

    T = property(lambda self: self.permute(*reversed(range(self.dim()))))
    mT = property(lambda self: self.transpose(-2, -1))

    def permute(self, *dims):
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        return BatchedTensor(self.value.permute(0, *(logical_dim(d, self.dim()) for d in dims)),
                             self.level)

    def movedim(self, source, destination):
        rank = self.dim()
        if isinstance(source, int):
            source, destination = (source,), (destination,)
        return BatchedTensor(self.value.movedim(tuple(logical_dim(d, rank) for d in source),
                                                tuple(logical_dim(d, rank) for d in destination)),
                             self.level)

    def expand(self, *sizes):
        sizes = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
        value = self.value
        for _ in range(len(sizes) - self.dim()):
            value = value.unsqueeze(1)
        return BatchedTensor(value.expand(value.shape[0], *sizes), self.level)

    def expand_as(self, other):
        return self.expand(tuple(other.shape))

    def narrow(self, dim, start, length):
        return BatchedTensor(self.value.narrow(logical_dim(dim, self.dim()), start, length),
                             self.level)

    def diagonal(self, offset=0, dim1=0, dim2=1):  # (a view of the batch, as torch's)
        rank = self.dim()
        if rank < 2 or logical_dim(dim1, rank) == logical_dim(dim2, rank):
            raise NoBatchingRule("diagonal: the loop gives torch's errors")
        return BatchedTensor(self.value.diagonal(offset, logical_dim(dim1, rank),
                                                 logical_dim(dim2, rank)), self.level)

    def unfold(self, dimension, size, step):
        if self.dim() == 0:
            raise NoBatchingRule("unfold of a 0-d sample: the loop")
        return BatchedTensor(self.value.unfold(logical_dim(dimension, self.dim()), size, step),
                             self.level)

    def select(self, dim, index):
        return BatchedTensor(self.value.select(logical_dim(dim, self.dim()), index), self.level)

    def unbind(self, dim=0):
        return tuple(BatchedTensor(v, self.level)
                     for v in self.value.unbind(logical_dim(dim, self.dim())))

    def split(self, split_size, dim=0):
        return tuple(BatchedTensor(v, self.level)
                     for v in self.value.split(split_size, logical_dim(dim, self.dim())))

    def chunk(self, chunks, dim=0):
        return tuple(BatchedTensor(v, self.level)
                     for v in self.value.chunk(chunks, logical_dim(dim, self.dim())))

    def __getitem__(self, index):
        items = index if isinstance(index, tuple) else (index,)
        if any(isinstance(item, BatchedTensor) and item.value.dtype == dtypes.bool
               for item in items):  # each sample's mask picks its own number of elements
            raise RuntimeError(MASK_ERROR)
        if isinstance(index, BatchedTensor):  # x[i] with i batched (a row per sample)
            return _batched_index(self, index)
        index = items
        for item in index:
            if isinstance(item, (BatchedTensor, list)) or (isinstance(item, Tensor) and
                                                           item.dtype.is_floating_point):
                raise NoBatchingRule("indexing with a batched or advanced index")
            if isinstance(item, Tensor) and len(index) > 1:
                raise NoBatchingRule("advanced indexing beside other indices")
        return BatchedTensor(self.value[(slice(None),) + index], self.level)

    # ------------------------------------------------------------ matrix products
    def matmul(self, other):
        return matmul(self, other)

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(other, self)

    def mm(self, mat2):
        return FUNCTION_RULES["mm"](self, mat2)

    def mv(self, vec):
        return FUNCTION_RULES["mv"](self, vec)

    def dot(self, other):
        return FUNCTION_RULES["dot"](self, other)

    def bmm(self, mat2):
        return FUNCTION_RULES["bmm"](self, mat2)

    # ------------------------------------------------------------ in place
    def inplace_refused(self, target):
        """torch's error for ``target.add_(self)`` when target is not batched: the batch
        does not fit into it."""
        shape = list(Size(_broadcast_shapes(tuple(target.shape), tuple(self.value.shape))))
        return RuntimeError(f"output with shape {list(target.shape)} doesn't match the "
                            f"broadcast shape {shape}")

    def _inplace(self, name, *args, **kwargs):
        others = [aligned(a, self.dim(), self.level) for a in args]
        if any(isinstance(a, BatchedTensor) and a.level > self.level for a in args):
            raise NoBatchingRule("in-place with an operand of an inner level")
        getattr(self.value, name)(*others, **kwargs)
        return self


def matmul(a, b):
    """``a @ b`` with a batch of one or both sides, as one physical matmul."""
    level = batch_level((a, b))
    ra, rb = logical_rank(a), logical_rank(b)
    if ra == 0 or rb == 0:
        raise NoBatchingRule("matmul of a 0-d tensor")  # (the loop gives torch's error)
    pa, pb = aligned(a, 0, level), aligned(b, 0, level)
    a_batched = isinstance(a, BatchedTensor) and a.level == level
    b_batched = isinstance(b, BatchedTensor) and b.level == level
    # vectors as matrices, so that every sample is a (stack of) matrix product(s)
    if b_batched and not a_batched and rb == 1 and ra >= 2:
        # a matrix times a batch of vectors: torch's rule multiplies by the vectors as the
        # columns of one matrix (w @ x.T), and the batch comes back as its last dimension
        return BatchedTensor(torch_matmul(pa, pb.movedim(0, -1)).movedim(-1, 0), level)
    if a_batched and not b_batched and ra == 1 and rb == 2:
        # a batch of vectors times a matrix: torch's rule, one product of the rows (so the
        # same bits as the matrix of rows, x @ w.T in a 2-d nn.Linear)
        return BatchedTensor(torch_matmul(pa, pb), level)
    if ra == 1:
        pa = pa.unsqueeze(-2)
    if rb == 1:
        pb = pb.unsqueeze(-1)
    ra2, rb2 = max(ra, 2), max(rb, 2)
    rank = max(ra2, rb2)
    if a_batched:
        for _ in range(rank - ra2):
            pa = pa.unsqueeze(1)
    if b_batched:
        for _ in range(rank - rb2):
            pb = pb.unsqueeze(1)
    result = torch_matmul(pa, pb)  # (the function: an outer level's operand hands over)
    if rb == 1:
        result = result.squeeze(-1)
    if ra == 1:
        result = result.squeeze(-2 if rb > 1 else -1)
    if not a_batched and not b_batched:
        return result
    return BatchedTensor(result, level)


def _method(name):
    def method(self, *args, **kwargs):
        result = elementwise(name, self, *args, **kwargs)
        if not args and not kwargs and name in KEEPS_BATCH_DIM:
            result.bdim = self.bdim  # (torch's unary rules leave the batch where it was)
        return result

    method.__name__ = name
    return method


def _reduction(name):
    def method(self, dim=None, *args, **kwargs):
        if "dim" in kwargs:
            dim = kwargs.pop("dim")
        return self._reduce(name, dim, *args, **kwargs)

    method.__name__ = name
    return method


def _scan(name):
    def method(self, dim, *args, **kwargs):
        return BatchedTensor(getattr(self.value, name)(logical_dim(dim, self.dim()), *args,
                                                       **kwargs), self.level)

    method.__name__ = name
    return method


def _inplace_method(name):
    def method(self, *args, **kwargs):
        return self._inplace(name, *args, **kwargs)

    method.__name__ = name
    return method


for _name in ELEMENTWISE:
    setattr(BatchedTensor, _name, _method(_name))
for _name in REDUCTIONS:
    setattr(BatchedTensor, _name, _reduction(_name))
for _name in SCANS:
    setattr(BatchedTensor, _name, _scan(_name))
for _name in """add_ sub_ mul_ div_ pow_ clamp_ relu_ exp_ neg_ zero_ fill_ copy_ sigmoid_
        tanh_ abs_ sqrt_""".split():
    setattr(BatchedTensor, _name, _inplace_method(_name))

_OPERATORS = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "pow": "pow",
              "floordiv": "floor_divide", "mod": "remainder", "lt": "lt", "le": "le",
              "gt": "gt", "ge": "ge", "eq": "eq", "ne": "ne", "and": "logical_and",
              "or": "logical_or"}


def _operator(op_name):
    def operator(self, other):
        return elementwise(op_name, self, other)

    return operator


def _reflected_elementwise(op_name):
    def operator(self, other):
        if isinstance(other, (Tensor, BatchedTensor)):
            return elementwise(op_name, other, self)
        return BatchedTensor(getattr(self.value, f"__r{_DUNDER[op_name]}__")(other), self.level)

    return operator


_DUNDER = {v: k for k, v in _OPERATORS.items()}
for _dunder, _op in _OPERATORS.items():
    setattr(BatchedTensor, f"__{_dunder}__", _operator(_op))
    if _dunder not in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(BatchedTensor, f"__r{_dunder}__", _reflected_elementwise(_op))
    setattr(BatchedTensor, f"__i{_dunder}__", _inplace_method(_op + "_"))
BatchedTensor.__neg__ = _method("neg")
BatchedTensor.__abs__ = _method("abs")
BatchedTensor.__invert__ = _method("logical_not")
BatchedTensor.__hash__ = object.__hash__


# ---------------------------------------------------------------- torch.nn.functional
# The layers and losses a per-sample-gradient model uses (nn.Linear, activations, mse_loss,
# cross_entropy with class indices), composed of the rules above; any other argument
# (weights, label smoothing, ignore_index met ...) runs the per-sample loop.
def _linear(input, weight, bias=None):
    if weight.dim() != 2 or input.dim() == 0:
        raise NoBatchingRule("linear: the loop gives torch's errors")
    if isinstance(weight, BatchedTensor):  # per-sample weights (grad under vmap):
        # W x (W X^T, transposed back), whose backward leaves dW laid out as torch's
        out = matmul(weight, input) if input.dim() == 1 else matmul(weight, input.mT).mT
    else:
        out = matmul(input, weight.t())
    return out if bias is None else out + bias


def _mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None or tuple(input.shape) != tuple(
            target.shape) or reduction not in ("mean", "sum", "none"):
        raise NoBatchingRule("mse_loss: the loop gives torch's warnings and errors")
    squares = (input - target) ** 2
    return squares if reduction == "none" else getattr(squares, reduction)()


def _cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                   reduce=None, reduction="mean", label_smoothing=0.0):
    level = batch_level((input, target))
    if (weight is not None or size_average is not None or reduce is not None or
            label_smoothing != 0.0 or reduction not in ("mean", "sum", "none") or
            input.dim() not in (1, 2) or target.dim() != input.dim() - 1 or
            target.is_floating_point() or input.level != level):
        raise NoBatchingRule("cross_entropy: the loop gives torch's other cases")
    logp = physical(input.log_softmax(-1))
    picked = physical(target) if isinstance(target, BatchedTensor) else \
        target.unsqueeze(0).expand(logp.shape[0], *target.shape)
    if not isinstance(logp, Tensor) or not isinstance(picked, Tensor) or \
            bool((picked == ignore_index).any()) or bool((picked < 0).any()) or \
            bool((picked >= logp.shape[-1]).any()):
        raise NoBatchingRule("cross_entropy: nested, ignored or out-of-range targets")
    losses = BatchedTensor(-logp.gather(-1, picked.unsqueeze(-1)).squeeze(-1), level)
    if reduction == "none" or input.dim() == 1:
        return losses
    return getattr(losses, reduction)()


NN_RULES = {"linear": _linear, "mse_loss": _mse_loss, "cross_entropy": _cross_entropy,
            "relu": lambda input, inplace=False: input.relu_() if inplace else input.relu(),
            "sigmoid": lambda input: input.sigmoid(), "tanh": lambda input: input.tanh()}


def _batched_index(x, index):
    """``x[index]``, an integer index tensor batched: x's rows that each sample's index picks
    (an index batched at an outer level only, or a mask, runs the loop)."""
    level = batch_level((x, index))
    if index.level != level or index.dtype not in (dtypes.int64, dtypes.int32) or x.dim() == 0:
        raise NoBatchingRule("a batched mask or an outer level's index: the loop")
    if x.level != level:  # the same x for every sample: index it with all of them at once
        return BatchedTensor(x[index.value], level)
    picks = index.value
    rows = arange(picks.shape[0]).view(-1, *([1] * (picks.dim() - 1)))
    return BatchedTensor(x.value[rows, picks], level)


# ---------------------------------------------------------------- torch.<function>(...)
# Functions whose batched operand is not their first argument (cat's list, where's condition
# first) or whose method of the same name means something else (torch.where(c, a, b) is
# a.where(c, b)). A call these rules do not cover (shapes torch refuses, a legacy empty
# tensor in cat) runs the per-sample loop, which gives torch's own error.
def _per_sample(values, level):
    """Each of ``values`` with the batch of ``level`` first: an unbatched one expanded."""
    size = next(v.value.shape[0] for v in values if isinstance(v, BatchedTensor) and
                v.level == level)
    return [v.value if isinstance(v, BatchedTensor) and v.level == level else
            v.unsqueeze(0).expand(size, *v.shape) for v in values]


def _joined(tensors, dim, new_dim):
    if not isinstance(tensors, (list, tuple)) or not tensors or not all(
            isinstance(t, (Tensor, BatchedTensor)) for t in tensors):
        raise NoBatchingRule("the loop gives torch's errors")
    shapes = [tuple(t.shape) for t in tensors]
    rank = len(shapes[0])
    if not isinstance(dim, int) or isinstance(dim, bool) or \
            not -(rank + new_dim) <= dim < rank + new_dim or (rank == 0 and not new_dim):
        raise NoBatchingRule("the loop gives torch's errors")
    axis = dim % (rank + new_dim)
    for shape in shapes:  # (the same shapes, but for cat's dim; no legacy (0,) tensors)
        if len(shape) != rank or shape == (0,) and not new_dim or any(
                a != b for d, (a, b) in enumerate(zip(shape, shapes[0])) if new_dim or d != axis):
            raise NoBatchingRule("the loop gives torch's errors")
    level = batch_level(tensors)
    return _per_sample(tensors, level), axis + 1, level


def _cat(tensors, dim=0):
    physical, axis, level = _joined(tensors, dim, 0)
    return BatchedTensor(join_cat(physical, axis), level)


def _stack(tensors, dim=0):
    physical, axis, level = _joined(tensors, dim, 1)
    return BatchedTensor(join_stack(physical, axis), level)


def _product(name, ranks):
    """torch.mm / mv / dot / bmm: matmul's rule for the logical ranks torch's function takes
    (other ranks: torch's vmap error; sizes or dtypes that do not fit: the physical product's
    error, as torch's rule gives its own)."""
    def rule(input, other):
        if not isinstance(input, (Tensor, BatchedTensor)) or not isinstance(
                other, (Tensor, BatchedTensor)):
            raise NoBatchingRule(f"{name}: the loop gives torch's errors")
        if (input.dim(), other.dim()) != ranks:
            if name == "dot":
                raise RuntimeError("Got wrong shapes for dot")
            raise RuntimeError(f"Shape mismatch: Got incorrect dims for {name}(a, b). a has dim "
                               f"{input.dim()}and b has dim {other.dim()}but expected them to "
                               f"have dim {ranks[0]} and dim {ranks[1]}")
        return matmul(input, other)

    rule.__name__ = name
    return rule


def _matmul(input, other):
    if not isinstance(input, (Tensor, BatchedTensor)) or not isinstance(
            other, (Tensor, BatchedTensor)):
        raise NoBatchingRule("matmul: the loop gives torch's errors")
    return matmul(input, other)


def _masked_select(input, mask, **kwargs):
    """torch.masked_select: a batched mask is refused; a batched input alone, the loop."""
    if isinstance(mask, BatchedTensor):
        raise RuntimeError(MASKED_SELECT_ERROR)
    raise NoBatchingRule("masked_select: the loop, each sample picks as many")


def _scatter_as_torch_batches(input, src, *args, **kwargs):
    """select_scatter, slice_scatter: torch batches them as a scatter, which wants src of
    input's dtype (unbatched, each converts src as copy_ does); then the loop, same values."""
    tensors = all(isinstance(value, (Tensor, BatchedTensor)) for value in (input, src))
    if tensors and input.dtype != src.dtype:  # (other arguments: the parser's errors)
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    raise NoBatchingRule("the loop: the same values")


FUNCTION_RULES = {"cat": _cat, "concat": _cat, "concatenate": _cat, "stack": _stack,
                  "matmul": _matmul, "mm": _product("mm", (2, 2)), "mv": _product("mv", (2, 1)),
                  "dot": _product("dot", (1, 1)), "bmm": _product("bmm", (3, 3)),
                  "masked_select": _masked_select,
                  "as_strided_scatter": BatchedTensor.as_strided_scatter,
                  "select_scatter": _scatter_as_torch_batches,
                  "slice_scatter": _scatter_as_torch_batches}
