"""``torch.func.grad``, ``grad_and_value``, ``vjp``, ``jacrev``: gradients as functions.

torch builds these on "levels": each transform call wraps its inputs in a tensor of its own
level, and unwraps results when it returns, so a result depends on the inputs of that call
only. The engine gets the same results from plain autograd, one ``Level`` per call:

* an input the transform differentiates becomes a *fresh* tensor: a new leaf when it does
  not require grad, else a view of it (so an outer ``grad``, or ordinary autograd outside,
  still sees through it);
* the function runs with grad enabled (a transform does not obey a ``no_grad`` outside it,
  as torch's), and ``autograd.grad`` differentiates with respect to the fresh tensors only,
  keeping its own graph (``create_graph``) so that an outer transform can differentiate the
  result again: that is how ``grad(grad(f))`` nests;
* when the call returns, each result is "unwrapped": detached if the caller had grad off,
  or if its graph reaches nothing but this call's fresh leaves (the graph only this level
  could see). A result that depends on a tensor that requires grad outside (an input that
  did, a captured parameter, an outer level's input) keeps its graph, as torch's does.

``jacrev`` computes all the rows of a Jacobian at once as torch does: f runs once (``vjp``),
and the unit vectors go back through its graph as one batch of cotangents, in one walk
(``autograd.grad(..., is_grads_batched=True)``, engine/core/cotangents.py). Under ``vmap``
(``hessian``, ``vmap(jacrev(f))``) it is ``vmap`` of a vector-Jacobian product over the unit
vectors (vmap.py): one batched forward and backward pass, or one pass per row when the
function has an operation without a batching rule.
Under ``vmap``, a transform differentiates the physical (batched) tensors: see
``Level.differentiable``.
"""
import functools

from ..autograd import forward_ad
from ..core import forward, tangents
from ..core.backward import grad as autograd_grad
from ..core.grad_mode import enable_grad, is_grad_enabled
from ..core.node import AccumulateGrad, Node, record
from ..core.tensor import Tensor
from ..fidelity import messages
from ..fidelity.layout import has_internal_overlap
from ..fidelity.transforms import RUNNING as running_transforms
from ..ops.creation import eye, ones_like, zeros, zeros_like
from .batched import BatchedTensor, NoBatchingRule, from_real, to_real
from ..ops.join import cat, stack
from .pytree import spec_text, tree_flatten, tree_map, tree_unflatten
from .function_vmap import levels as vmap_levels
from .vmap import vmap


# ---------------------------------------------------------------- levels
class AliasBackward0(Node):
    """The level's own handle on an input that requires grad outside: the gradient passes
    back unchanged (a view would add a ViewBackward0 to every gradient an outer level
    takes through it, which torch's results do not show)."""

    def backward(self, grad):
        return grad


class Level:
    """One call of a gradient transform: the tensors it made and the grad mode it found."""

    def __init__(self):
        self.outer_grad_enabled = is_grad_enabled()
        self.fresh = set()  # ids of the leaves this call made

    def __enter__(self):  # while f runs: the leaves an inner call makes are this one's too
        RUNNING_LEVELS.append(self)
        running_transforms.append(self)
        return self

    def __exit__(self, *exc_info):
        RUNNING_LEVELS.pop()
        running_transforms.pop()
        return False

    def differentiable(self, value):
        """The tensor the function sees in place of ``value``, to differentiate against.

        Under vmap, a tensor that is not batched is first expanded along every running
        vmap's batch (each sample gets its own copy to differentiate: per-sample gradients),
        and the gradient is taken of the physical tensors, batch dimensions included."""
        if not isinstance(value, (Tensor, BatchedTensor)):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")
        real, levels = to_real(value)
        if len(levels) < len(vmap_levels):
            real, levels = _batched_at_every_level(real, levels)
        if real.requires_grad:  # a new tensor whose graph reaches the caller's
            return from_real(record(AliasBackward0, real.detach(), (real,)), levels)
        base = real.detach()
        if base._inference:  # (torch wraps it in a tensor of its own: an ordinary copy here)
            base = base.clone()
        fresh = with_tangent_of(real, base.requires_grad_())
        self.fresh.add(id(fresh))
        for outer in RUNNING_LEVELS:  # (an inner call's leaf is no leaf outside: a grad of
            outer.fresh.add(id(fresh))  # hessian of a captured tensor reaches them, unwanted)
        for made in JVP_CALLS:  # (a jvp running around this call: a leaf made inside it)
            made.add(id(fresh))
        return from_real(fresh, levels)

    def unwrap(self, value):
        """A result as the caller sees it (see the module's docstring)."""
        if not isinstance(value, (Tensor, BatchedTensor)):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(value)}")
        real, levels = to_real(value)
        if real.requires_grad and (not self.outer_grad_enabled or
                                   not self.reaches_outside(real)):
            return from_real(with_tangent_of(real, real.detach()), levels)
        return value

    def graph_needed(self, outputs):
        """Whether the gradients of ``outputs`` need a graph of their own (``create_graph``):
        only when the caller records (grad on) and an output's graph reaches a tensor that
        requires grad outside this call (an outer level, a parameter), or a jvp is running
        (its tangents ride on the backward pass). Else unwrap would detach them anyway:
        recording the backward pass only to drop it was most of a per-sample gradient's time."""
        if not self.outer_grad_enabled:
            return False
        return forward.state.level >= 0 or any(self.reaches_outside(to_real(o)[0])
                                               for o in outputs)

    def reaches_outside(self, tensor):
        """Whether the graph of ``tensor`` reaches a leaf this call did not make."""
        if tensor.grad_fn is None:
            return id(tensor) not in self.fresh
        seen, todo = set(), [tensor.grad_fn]
        while todo:
            node = todo.pop()
            if isinstance(node, AccumulateGrad):
                if id(node.variable) not in self.fresh:
                    return True
                continue
            if isinstance(node, AliasBackward0) and node.next_functions[0][0] is None:
                return True  # (an input that requires grad with no edge: a view made in
                # no_grad mode; torch keeps the results' graph, which leads nowhere)
            for child, _ in node.next_functions:
                if child is not None and id(child) not in seen:
                    seen.add(id(child))
                    todo.append(child)
        return False


RUNNING_LEVELS = []  # the Levels whose function is running, outermost first


def with_tangent_of(tensor, detached):
    """``detached`` with ``tensor``'s tangent, if it has one: inside ``jvp`` (``hessian`` is
    jacfwd of jacrev) a level's fresh tensors and unwrapped results carry it through."""
    return forward.keep_tangents(tensor, detached)  # (every level's: jvp inside jvp has two)


def _batched_at_every_level(real, levels):
    """``real`` (batch dims for ``levels`` first) with a batch dim for every running vmap,
    outermost first: a size-1 dim where one is missing, then all expanded."""
    logical = tuple(real.shape)[len(levels):]
    for position in range(len(vmap_levels)):
        if position + 1 not in levels:
            real = real.unsqueeze(position)
    return real.expand(*vmap_levels, *logical), list(range(1, len(vmap_levels) + 1))


def gradients(outputs, inputs, seeds=None, retain_graph=False, create_graph=True,
              keep_for_outer=True, fill=True, batch=None):
    """functorch's ``_autograd_grad``: zeros for inputs the outputs do not depend on.

    torch keeps one graph per level; here all levels share the one graph, so a graph an
    outer level will differentiate again (``create_graph``) is also kept. Under vmap the
    outputs, inputs and seeds are batched: the walk runs on their physical tensors (a
    seed that is not batched is expanded to its output's batch), and the gradients come
    back batched as their inputs. With ``batch``, each seed holds that many cotangents along
    its first dimension, all sent back in one walk (autograd.grad's ``is_grads_batched``)."""
    if batch is not None:
        return _batch_of_seeds(outputs, inputs, seeds, retain_graph, create_graph, fill, batch)
    inputs, input_levels = zip(*(to_real(t) for t in inputs)) if inputs else ((), ())
    outputs, output_levels = zip(*(to_real(o) for o in outputs)) if outputs else ((), ())
    if seeds is not None:
        seeds, seed_levels = zip(*(to_real(s) for s in seeds)) if seeds else ((), ())
        if any(set(mine) - set(its) for mine, its in zip(seed_levels, output_levels)):
            # (vmap(vjp_fn)(rows): a batch of cotangents for one output; vmap then calls
            # vjp_fn once per row)
            raise NoBatchingRule("a cotangent batched where its output is not")
        seeds = [s.expand(o.shape) if s.dim() < o.dim() else s  # (a wrong shape: autograd's
                 for s, o in zip(seeds, outputs)]                 # own error)
    elif any(o.dim() for o in outputs):  # a batch of scalars: one gradient per sample
        seeds = [ones_like(o) for o in outputs]
    found = _gradients(outputs, inputs, seeds, retain_graph or (create_graph and keep_for_outer),
                       create_graph, False)
    if fill:  # zeros for an unused input: the same for every sample (stride 0), as torch's
        found = [_unused(t, lv) if g is None else g
                 for g, t, lv in zip(found, inputs, input_levels)]
    return tuple(g if g is None else from_real(g, lv) for g, lv in zip(found, input_levels))


def _batch_of_seeds(outputs, inputs, seeds, retain_graph, create_graph, fill, batch):
    """``gradients`` of ``batch`` seeds at once (each seed's first dimension), in one walk;
    under vmap the walk runs on the physical tensors: a seed is broadcast over its output's
    batch dimensions, and each gradient's seed dimension goes after its input's."""
    inputs, input_levels = zip(*(to_real(t) for t in inputs)) if inputs else ((), ())
    outputs, output_levels = zip(*(to_real(o) for o in outputs)) if outputs else ((), ())
    seeds = [s.view(batch, *[1] * len(levels), *s.shape[1:]).expand(batch, *o.shape)
             if levels else s for s, o, levels in zip(seeds, outputs, output_levels)]
    found = _gradients(outputs, inputs, seeds, retain_graph, create_graph, False, True)
    if fill:
        found = [_unused(t, levels).expand(batch, *t.shape) if g is None else g
                 for g, t, levels in zip(found, inputs, input_levels)]
    return tuple(g if g is None else from_real(g.movedim(0, len(levels)), levels)
                 for g, levels in zip(found, input_levels))


def _unused(real, levels):
    if not levels:
        return zeros_like(real)
    logical = tuple(real.shape)[len(levels):]
    return zeros(logical, dtype=real.dtype).expand(real.shape)


def _gradients(outputs, inputs, seeds, retain_graph, create_graph, fill, batched=False):
    given = seeds is not None
    pairs = [(o, s) for o, s in zip(outputs, seeds if given else outputs) if o.requires_grad]
    if not pairs:
        return tuple(zeros_like(t) if fill else None for t in inputs)
    found = autograd_grad([o for o, _ in pairs], inputs,
                          [s for _, s in pairs] if given else None,
                          retain_graph=retain_graph, create_graph=create_graph,
                          allow_unused=True, is_grads_batched=batched)
    return tuple(zeros_like(t) if g is None and fill else g for g, t in zip(found, inputs))


# ---------------------------------------------------------------- argnums
def _wrap_argnum(argnum, count):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -count <= argnum < count:
        return argnum % count
    raise RuntimeError(f"Got argnum={argnum}, but only {count} positional inputs")


def checked_argnums(argnums, count):
    """``argnums`` made non-negative, with torch's checks in torch's order."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, count)
    wrapped = tuple(_wrap_argnum(a, count) for a in argnums)
    if not wrapped:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {wrapped}")
    return wrapped


def slice_argnums(args, argnums, as_tuple=True):
    argnums = checked_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def _with_differentiable(args, argnums, level):
    """``args`` with the differentiated ones replaced; and those (as argnums shapes them)."""
    argnums = checked_argnums(argnums, len(args))
    chosen = (argnums,) if isinstance(argnums, int) else argnums
    new = list(args)
    for i in chosen:
        new[i] = tree_map(level.differentiable, args[i])
    diff = new[argnums] if isinstance(argnums, int) else tuple(new[i] for i in argnums)
    return tuple(new), diff


# ---------------------------------------------------------------- grad, grad_and_value
def grad_and_value(func, argnums=0, has_aux=False):
    """``grad_and_value(f)(*args)``: ``(gradient, f(*args))``; with ``has_aux``,
    ``(gradient, (output, aux))``. f must return a 0-d tensor."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """``grad(f)(*args)``: the gradient of a scalar function f with respect to
    ``args[argnums]`` (a tuple of gradients for a tuple of argnums; a tree of them for a
    tree of tensors). With ``has_aux``, f returns ``(output, aux)`` and grad returns
    ``(gradient, aux)``. Inputs' ``.grad`` are left alone; a ``no_grad`` around the call
    does not stop it; an input f does not use gets zeros."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradient, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    level = Level()
    with enable_grad(), level:
        args, diff_args = _with_differentiable(args, argnums, level)
        output = func(*args, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            output, aux = output
        if not isinstance(output, (Tensor, BatchedTensor)):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                               f"Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted "
                               "to use the vjp or jacrev APIs instead?")
        flat_diff, spec = tree_flatten(diff_args)
        found = gradients((output,), flat_diff, create_graph=level.graph_needed((output,)))
        gradient = tree_map(level.unwrap, tree_unflatten(found, spec))
        output = level.unwrap(output)
        if has_aux:
            aux = tree_map(level.unwrap, aux)
    return gradient, ((output, aux) if has_aux else output)


# ---------------------------------------------------------------- vjp
def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``, and ``aux`` with ``has_aux``: ``vjp_fn(cotangents)``
    is the tuple of vector-Jacobian products, one per primal (any number of calls)."""
    return _vjp(func, primals, None, has_aux)[:3 if has_aux else 2]


def _vjp(func, primals, argnums, has_aux):
    level = Level()
    with enable_grad(), level:
        if argnums is None:
            primals = tree_map(level.differentiable, primals)
            diff_primals = primals
        else:
            primals, diff_primals = _with_differentiable(primals, argnums, level)
        output = func(*primals)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            output, aux = output
            aux = tree_map(level.unwrap, aux)
        flat_output, output_spec = tree_flatten(output)
        _check_outputs(flat_output)
        flat_diff, diff_spec = tree_flatten(diff_primals)
        results = tree_map(level.unwrap, output)
        for out in flat_output:
            if not out.is_floating_point():
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {out.dtype}")

    def flat_vjp(flat_cotangents, retain_graph=True, create_graph=None, fill=True, batch=None):
        """The products as a flat list (None for an input the outputs ignore, unless fill);
        ``batch``: each cotangent holds that many along its first dimension (jacrev's rows)."""
        create_graph = is_grad_enabled() if create_graph is None else \
            level.graph_needed(flat_output) if create_graph == "if needed" else create_graph
        found = gradients(flat_output, flat_diff, flat_cotangents, retain_graph=retain_graph,
                          create_graph=create_graph and level.outer_grad_enabled,
                          keep_for_outer=False, fill=fill, batch=batch)  # (retain_graph: the
        #                                                                  caller's)
        return [g if g is None else level.unwrap(g) for g in found]

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cotangents, cotangents_spec = tree_flatten(cotangents)
        if cotangents_spec != output_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{spec_text(cotangents_spec)}, primal output: "
                               f"{spec_text(output_spec)}")
        return tree_unflatten(flat_vjp(flat_cotangents, retain_graph, create_graph), diff_spec)

    vjp_fn.__name__, vjp_fn.__qualname__ = "wrapper", "_vjp_with_argnums.<locals>.wrapper"
    return results, vjp_fn, aux, flat_vjp  # (vjp_fn prints as torch's function does)


def _check_outputs(flat_output):
    if not flat_output or (len(flat_output) == 1 and flat_output[0] is None):
        raise RuntimeError("vjp(f, *primals): Expected f to be a function that has non-empty "
                           f"output (got output = {flat_output})")
    for out in flat_output:
        if not isinstance(out, (Tensor, BatchedTensor)):
            raise RuntimeError("vjp(f, *primals): expected f(*primals) to return only tensors, "
                               f"got unsupported type {type(out)}")


# ---------------------------------------------------------------- jacrev
def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """``jacrev(f)(*args)``: the Jacobian of f with respect to ``args[argnums]`` by reverse
    mode: the vector-Jacobian products with every unit vector of the outputs, computed at
    once by vmap (``chunk_size`` rows at a time; ``chunk_size=1``: one backward per row).
    Each block has the shape ``output.shape + input.shape``; trees of outputs and of
    inputs give trees of blocks (outputs outside, inputs inside), as torch's."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        output, _, aux, flat_vjp = _vjp(func, args, argnums, has_aux)
        flat_output, output_spec = tree_flatten(output)
        numels = [o.numel() for o in flat_output]
        flat_primals, primals_spec = tree_flatten(slice_argnums(args, argnums))
        if sum(numels) and chunk_size != 1:
            per_input = _batched_rows(flat_vjp, flat_output, numels, chunk_size)
        else:  # (chunk_size=1: torch's "same as a for-loop")
            per_input = _stacked_rows(flat_vjp, flat_output, numels, chunk_size, flat_primals)
        blocks = [[piece.view(tuple(o.shape) + tuple(p.shape))
                   for piece, o in zip(rows.split(numels), flat_output)]
                  for rows, p in zip(per_input, flat_primals)]
        by_output = [tree_unflatten([column[i] for column in blocks], primals_spec)
                     for i in range(len(flat_output))]
        if isinstance(argnums, int):
            by_output = [block[0] for block in by_output]
        jacobian = tree_unflatten(by_output, output_spec)
        return (jacobian, aux) if has_aux else jacobian

    return wrapper


def _unit_seeds(flat_output, numels):
    """Per output, its cotangent of every row: the k-th unit vector of all the outputs laid
    end to end, as a batch ``(sum(numels), *output.shape)``."""
    total, seeds, offset = sum(numels), [], 0
    for o, n in zip(flat_output, numels):
        if n == total:  # one output: its unit vectors (an identity written into zeros costs 13x)
            seeds.append(eye(n, dtype=o.dtype).view(total, *o.shape))
            continue
        block = zeros(total, n, dtype=o.dtype)
        block[offset:offset + n] = eye(n, dtype=o.dtype)
        seeds.append(block.view(total, *o.shape))
        offset += n
    return seeds


def _batched_rows(flat_vjp, flat_output, numels, chunk_size):
    """Per input, the rows of every output's Jacobian, as torch computes them: f ran once
    (vjp), and the unit vectors go back through its graph as one batch of cotangents (under
    vmap too: the graph of the physical tensors), ``chunk_size`` rows a walk (autograd.grad's
    ``is_grads_batched``: each node's formula runs once on the batch, cotangents.py)."""
    seeds, total = _unit_seeds(flat_output, numels), sum(numels)
    step = total if chunk_size is None else chunk_size
    chunks = [flat_vjp([s[start:start + step] for s in seeds], batch=min(step, total - start),
                       create_graph="if needed")  # (as grad's: a graph only an outer one reads)
              for start in range(0, total, step)]
    return list(chunks[0]) if len(chunks) == 1 else [cat(column) for column in zip(*chunks)]


def _stacked_rows(flat_vjp, flat_output, numels, chunk_size, primals):
    """Per input, the rows of every output's Jacobian, stacked: ``(sum(numels), *shape)``.

    Row k is the vjp seeded with the k-th unit vector of all outputs laid end to end, one
    backward pass per row (``chunk_size=1``, torch's "for-loop" case). An input no output
    depends on gets zeros, broadcast along the rows as torch's vmap leaves them (stride 0)."""
    total = sum(numels)
    if total == 0:  # no output element: an empty Jacobian
        return [zeros(0, *p.shape, dtype=p.dtype) for p in primals]
    rows = [[] for _ in primals]
    for k in range(total):
        seeds, offset = [], 0
        for o, n in zip(flat_output, numels):
            seed = zeros(n, dtype=o.dtype)
            if offset <= k < offset + n:
                seed[k - offset] = 1
            seeds.append(seed.view(o.shape))
            offset += n
        for column, g in zip(rows, flat_vjp(seeds, fill=False)):
            column.append(g)
    return [zeros_like(p).expand(total, *p.shape) if column[0] is None else stack(column)
            for column, p in zip(rows, primals)]


# ---------------------------------------------------------------- forward mode: jvp, jacfwd
JVP_STR = "jvp(f, primals, tangents)"


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``, and ``aux`` with ``has_aux``: one forward pass
    with dual tensors (engine.autograd.forward_ad), the Jacobian-vector product coming out
    beside the value. An output that does not depend on the primals gets a zero tangent
    (an error with ``strict=True``)."""
    return _jvp(func, primals, tangents, None, strict, has_aux)


def _jvp(func, primals, tangents, argnums, strict, has_aux):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{JVP_STR}: Expected primals to be a tuple. E.g. it should be "
                           "valid to call f(*primals).")
    diff_args = primals if argnums is None else slice_argnums(primals, argnums, as_tuple=False)
    flat_primals, primals_spec = tree_flatten(diff_args)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{JVP_STR}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{primals_spec} and tangents with structure {tangents_spec}")
    if vmap_levels and any(isinstance(value, BatchedTensor)
                           for value in (*flat_primals, *flat_tangents)):
        return _jvp_under_vmap(func, primals, flat_primals, flat_tangents, primals_spec,
                               argnums, strict, has_aux)
    for values, name in ((flat_primals, "primals"), (flat_tangents, "tangents")):
        if not values:
            raise RuntimeError(f"{JVP_STR}: Expected {name} to contain at least one Tensor.")
        for value in values:
            if not isinstance(value, Tensor):
                raise RuntimeError(f"{JVP_STR}: Expected {name} to only contain Tensors, "
                                   f"got {type(value)}")
    made = set()  # ids of the leaves transforms make inside this call (hessian's jacrev)
    JVP_CALLS.append(made)
    try:
        return _jvp_at_a_level(func, primals, flat_primals, flat_tangents, primals_spec,
                               argnums, strict, has_aux, made)
    finally:
        JVP_CALLS.pop()


JVP_CALLS = tangents.JVP_CALLS  # the sets of leaves made inside each running jvp


class JvpLevel:
    """The dual level of a ``jvp`` call: ``dual_level``'s for the outermost one (so that a
    ``jvp`` inside a ``dual_level`` block raises torch's "Nested forward mode AD" error), one
    more inside it for a ``jvp`` inside a ``jvp`` (torch's functorch levels: forward over
    forward, ``jacfwd(jacfwd(f))``)."""

    def __enter__(self):
        self.nested = len(JVP_CALLS) > 1
        return forward.enter_level(self.nested) if self.nested else forward_ad.enter_dual_level()

    def __exit__(self, *exc_info):
        forward.exit_level(forward.state.level)
        return False


def _jvp_under_vmap(func, primals, flat_primals, flat_tangents, primals_spec, argnums,
                    strict, has_aux):
    """A jvp with batched primals or tangents (``vmap(jvp)``, as torch's jacfwd runs): the
    dual tensors are made of the physical tensors, each primal and tangent with a batch
    dimension for every running vmap (expanded where it has none), and f runs on
    BatchedTensors of those duals. The batching rules run physical operations, which carry
    the tangents as they carry a graph: one forward pass for the whole batch
    (_jvp_at_a_level gives each result and its tangent back batched as the result)."""
    every = list(range(1, len(vmap_levels) + 1))
    for primal in flat_primals:  # (torch copies the batch of tangents into the primal's own
        if isinstance(primal, Tensor) and has_internal_overlap(  # layout: memory that repeats
                primal._data.shape, primal.stride()):  # itself, an expanded one's, refuses)
            raise RuntimeError(messages.INTERNAL_OVERLAP)

    def physical(value):
        real, levels = to_real(value)
        if len(levels) < len(every):  # (laid out in full: make_dual lays the tangent out as
            real = _batched_at_every_level(real, levels)[0].contiguous()  # its primal)
        return real

    real_primals = [physical(p) if isinstance(p, (Tensor, BatchedTensor)) else p
                    for p in flat_primals]
    real_tangents = [physical(t) if isinstance(t, (Tensor, BatchedTensor)) else t
                     for t in flat_tangents]
    chosen = None if argnums is None else (argnums,) if isinstance(argnums, int) else argnums

    def on_batched(*args):  # f, given BatchedTensors of the physical duals
        if chosen is None:
            args = tree_map(lambda d: from_real(d, every), args)
        else:
            args = list(args)
            for i in chosen:
                args[i] = tree_map(lambda d: from_real(d, every), args[i])
        return func(*args)

    if chosen is None:
        call_primals = tree_unflatten(real_primals, primals_spec)
    else:
        call_primals = list(primals)
        pieces = tree_unflatten(real_primals, primals_spec)
        for position, piece in zip(chosen, (pieces,) if isinstance(argnums, int) else pieces):
            call_primals[position] = piece
        call_primals = tuple(call_primals)
    made = set()  # (as _jvp's: the leaves transforms make inside, hessian's jacrev)
    JVP_CALLS.append(made)
    try:
        return _jvp_at_a_level(on_batched, call_primals, real_primals, real_tangents,
                               primals_spec, argnums, strict, has_aux, made)
    finally:
        JVP_CALLS.pop()


def _jvp_at_a_level(func, primals, flat_primals, flat_tangents, primals_spec, argnums,
                    strict, has_aux, made):
    with JvpLevel():
        duals = tree_unflatten([forward_ad.make_dual(p, t) for p, t in
                                zip(flat_primals, flat_tangents)], primals_spec)
        if argnums is not None:
            chosen = (argnums,) if isinstance(argnums, int) else argnums
            args = list(primals)
            for position, dual in zip(chosen, (duals,) if isinstance(argnums, int) else duals):
                args[position] = dual
            duals = tuple(args)
        output = func(*duals)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(f"{JVP_STR}: output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            output, aux = output
        flat_output, spec = tree_flatten(output)
        if not flat_output or (len(flat_output) == 1 and flat_output[0] is None):
            raise RuntimeError(f"{JVP_STR}: Expected f to be a function that has non-empty "
                               f"output (got output = {flat_output})")
        # (under vmap a result is a BatchedTensor: its physical tensor carries the tangent)
        out_levels = [to_real(out)[1] if isinstance(out, BatchedTensor) else []
                      for out in flat_output]
        pairs = [_unpacked(to_real(out)[0] if isinstance(out, BatchedTensor) else out, strict)
                 for out in flat_output]
    # the level is closed: the outputs have no tangent at it (an outer jvp's they keep, and
    # under vmap they are batched again as f's results were); a graph made
    # inside (a jacrev under jvp: hessian) is the call's own, detached, unless it reaches a
    # leaf made outside the call (an input that requires grad, a captured tensor: an outer
    # grad differentiates through it, as torch's)
    outside = Level()
    outside.fresh = made
    pairs = [tuple(from_real(value if value.requires_grad and outside.reaches_outside(value)
                             else with_tangent_of(value, value.detach()), levels)
                   for value in pair)
             for pair, levels in zip(pairs, out_levels)]
    primals_out = tree_unflatten([out for out, _ in pairs], spec)
    tangents_out = tree_unflatten([tangent for _, tangent in pairs], spec)
    return (primals_out, tangents_out, aux) if has_aux else (primals_out, tangents_out)


def _unpacked(out, strict):
    if not isinstance(out, Tensor):
        raise RuntimeError(f"{JVP_STR}: expected f(*primals) to return only tensors, got "
                           f"unsupported type {type(out)}")
    tangent = forward_ad.unpack_dual(out).tangent
    if tangent is None:
        if strict:
            raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                               "independent of the inputs. This is not allowed with strict=True.")
        tangent = zeros_like(out)
    return out, tangent


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """``jacfwd(f)(*args)``: the Jacobian of f with respect to ``args[argnums]`` by forward
    mode: the jvps with every unit vector of the inputs, computed at once by ``vmap`` as
    torch's (one forward pass on dual tensors with a batch of tangents; a function with an
    operation that has no batching rule runs once per column: vmap's loop). Blocks are laid
    out as torch's: ``output.shape + input.shape``, trees of outputs outside, trees of
    inputs inside. With ``has_aux`` the columns are computed one by one."""

    @functools.wraps(func)
    def wrapper(*args):
        if randomness not in ("error", "different", "same"):  # (torch's vmap asks when called)
            raise RuntimeError("Only allowed values for randomness are 'error', 'different', "
                               f"or 'same'. Got {randomness}")
        primals = slice_argnums(args, argnums, as_tuple=False)
        flat_primals, primals_spec = tree_flatten(primals)
        numels = [p.numel() for p in flat_primals]
        if not has_aux and sum(numels):
            bases = _unit_vectors(flat_primals, numels)

            def column(*basis):
                return _jvp(func, args, tree_unflatten(list(basis), primals_spec), argnums,
                            False, False)[1]

            stacked, spec = tree_flatten(vmap(column, randomness=randomness)(*bases))
            return _jacobian_blocks(stacked, spec, flat_primals, primals_spec, numels,
                                    argnums, False, None)
        columns, aux = [], None
        for k in range(sum(numels)):
            basis, offset = [], 0
            for p, n in zip(flat_primals, numels):
                unit = zeros(n, dtype=p.dtype)
                if offset <= k < offset + n:
                    unit[k - offset] = 1
                basis.append(unit.view(p.shape))
                offset += n
            result = _jvp(func, args, tree_unflatten(basis, primals_spec), argnums, False,
                          has_aux)
            if has_aux and aux is None:
                aux = result[2]
            columns.append(tree_flatten(result[1])[0])
        if not columns:
            raise RuntimeError("jacfwd: the inputs have no element (torch's vmap refuses a "
                               "batch of size 0)")
        spec = tree_flatten(_jvp(func, args, tree_unflatten(
            [zeros_like(p) for p in flat_primals], primals_spec), argnums, False, has_aux)[1])[1]
        stacked = [stack([column[i] for column in columns]) for i in range(len(columns[0]))]
        return _jacobian_blocks(stacked, spec, flat_primals, primals_spec, numels, argnums,
                                has_aux, aux)

    return wrapper


def _unit_vectors(flat_primals, numels):
    """Per input, the unit vectors of all inputs laid end to end, as a batch: row k is the
    k-th of them (``(sum(numels), *input.shape)``)."""
    total, bases, offset = sum(numels), [], 0
    for p, n in zip(flat_primals, numels):
        block = zeros(total, n, dtype=p.dtype)
        block[offset:offset + n] = eye(n, dtype=p.dtype)
        bases.append(block.view(total, *p.shape))
        offset += n
    return bases


def _jacobian_blocks(stacked_columns, spec, flat_primals, primals_spec, numels, argnums,
                     has_aux, aux):
    """The columns (per output, stacked along a first dim) as torch's jacfwd lays them out:
    the column index moved last, split per input, unflattened to the input's shape."""
    blocks = []
    for stacked in stacked_columns:
        stacked = stacked.movedim(0, -1)
        # (the last dim split into the input's shape: unflatten's view, written as a
        # reshape, which a BatchedTensor has under an outer vmap)
        pieces = [piece.squeeze(-1) if p.dim() == 0 else
                  piece.reshape(tuple(piece.shape)[:-1] + tuple(p.shape))
                  for piece, p in zip(stacked.split(numels, dim=-1), flat_primals)]
        block = tree_unflatten(pieces, primals_spec)
        blocks.append(block[0] if isinstance(argnums, int) and isinstance(block, tuple)
                      else block)
    jacobian = tree_unflatten(blocks, spec)
    return (jacobian, aux) if has_aux else jacobian


def hessian(func, argnums=0):
    """``hessian(f)(*args)``: the Hessian of a scalar f, as torch builds it: the forward-mode
    Jacobian of the reverse-mode gradient, ``jacfwd(jacrev(f, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)
