"""The program families: actions aimed at the classes of bugs issue 25 found off the path.

Each family is a few actions (as in generator.py: ``action(b) -> list[str] | None``) and, for
some, a few changed choices of the builder in its programs (builder.py: the "empty" family's
shapes have a size 0 or no dimension, the "extremes" family's numbers are at or past the ends
of a dtype's range...). ``generator.generate`` gives half of the programs one family each,
drawn by ``Family.weight``; its actions then write half of the program's statements, the
course's classic actions (working on what the family made) the other half.

The families, and what observe.py/compare.py look at for them:

* extremes: integer (and float16) numbers at the ends of the range and just past them, written
  by every write path (setitem with numbers, 0-d tensors, masks, index lists; fill_,
  masked_fill_, index_fill_, scatter_, copy_, in-place scalar ops; full/full_like), and
  arithmetic, conversions and reductions of such values: values and errors.
* overflow: float16/float32/float64 values near the max in reductions (std, var, norm, sum,
  mean, cumsum, prod, softmax, logsumexp...) and in creation: values (inf, nan).
* empty: tensors with a size 0 and 0-d tensors through every op family, numpy interop.
* once_differentiable: Functions whose backward is @once_differentiable, under create_graph.
* grad_modes: nested no_grad / enable_grad / set_grad_enabled / inference_mode blocks with
  ops, views and in-place ops made in each level: graph lines and the grad mode line.
* third_derivative: autograd.grad with create_graph=True twice through the course's ops.
* signatures: the same call written with positional and keyword arguments, methods and
  functions, ``input=``, ``out=``, aliases, keyword-only arguments given by position.
* layouts: non-contiguous inputs (transposed, sliced, expanded, permuted) through every op
  family, gradients of non-contiguous leaves: the strides of every result.
* zero_signs: zeros and negative zeros through forward ops, backward formulas and losses:
  compare.py tells 0.0 from -0.0 (and an exact zero from a rounding residue).
* versions: the _version of results of ops and of tensors sharing a version counter; what
  an op keeps for backward (an input or a result changed in place before it: torch's version
  check names the tensor and the node that made it).
* warnings: what warns in torch (degrees of freedom, implicit dims, copy construction,
  deprecated x.T) and what numpy would warn about in the engine (overflow, 0/0, log(-1)).
* check_order: calls with two faults at once (a wrong dtype and a wrong shape, an expanded
  target and an unsupported dtype...): which error comes first.
* transforms: torch.func's grad, jacrev, jacfwd, jvp, hessian and vmap(grad), and forward_ad's
  dual tensors, of small random functions of the course's ops (issue 26): the derivatives'
  values, shapes, strides and dtypes, and the errors.
* hooks: tensor hooks (watching or changing the gradient), retain_grad, a node's pre- and
  post-hooks, post-accumulate-grad hooks and saved_tensors_hooks (pack/unpack pairs that
  transform and restore) on random graphs of the course's ops (issue 26): the order the
  hooks fire in (a list of numbers each hook appends to) and the gradients.
* nested_forward: two forward-mode levels at once (issue 26): jvp of jvp (the inner function
  capturing the outer primal, tangents made of it, strict), make_dual/unpack_dual inside
  nested jvps with and without ``level=0``/``level=1``, dual_level inside dual_level,
  jacfwd/jvp inside dual_level, dual_level or enter_dual_level inside jvp, exit_dual_level
  with a wrong level, jacfwd of jacfwd, jvp of jacfwd: values, tangents and torch's errors.
* structure: tril/triu (attention masks), diagonal/diag/diagflat, unfold windows, masked_select,
  index_add/index_copy, tensor_split, argwhere, fliplr/flipud, asinh/acosh/atanh,
  addmv/addr/addbmm/baddbmm on tensors of any shape and dtype
  (engine/ops/structure.py): values, layouts, views' sharing, errors and gradients.
* mutation_on_saved: ``torch.autograd.graph.allow_mutation_on_saved_tensors`` (issue 26): a
  saved tensor (a constant, an intermediate, a leaf, an op's result) changed in place, once
  or twice, through a view too, then backward / autograd.grad (create_graph, retain_graph)
  inside the context or after it, contexts nested: the gradients and torch's errors.
* pointwise_more: erf, erfc, erfinv, logit (with eps), xlogy, copysign, hypot, fmax, fmin,
  logaddexp(2), deg2rad, rad2deg, signbit, sinc, heaviside, float_power, gcd, lcm, shifts
  (and << >>), isneginf, isposinf, isreal, conj, angle, nextafter, ldexp on every dtype, as
  functions, methods, in place and with out=, and their gradients (first and second) at the
  points their formulas special-case (zeros of either sign, ties, ends of logit's range, nan):
  values, dtypes, grad_fn names, errors.
* int_tensors: ints, sizes, dims and numbers given as tensors (0-d, one-element of one or
  two dims, int32/uint8/bool/float, two elements): each op reads them by its parser's rule
  for int, SymInt, int[], SymInt[], Scalar (some take a one-element tensor, some only a 0-d
  integer one, some none): values, shapes and torch's errors.
* linalg: det, slogdet, logdet, inverse, inv_ex, solve and matrix_power on square matrices,
  singular ones (small whole numbers) too, transposed or flipped, wrong shapes and dtypes,
  out=: values, layouts, info, torch's errors; gradients (first and second) of float64 leaves.
* nn_recent: interpolate / upsample / nn.Upsample* in every mode (sizes, scale factors,
  align_corners, recompute_scale_factor), rms_norm / RMSNorm and batch_norm, instance_norm,
  layer_norm, group_norm (running statistics), adaptive_max_pool1d/2d, lp_pool1d/2d,
  max_unpool1d/2d of max_pool's indices, fold/unfold, Softmax2d, multilabel_margin_loss,
  triplet_margin_with_distance_loss, seeded gumbel_softmax, channels-last inputs, edge shapes
  (size 1, an empty batch) and wrong arguments: values, layouts, errors and gradients.
* half: float64 numbers at float16's edges (65504 and past it, subnormals, ties, numbers a
  rounding through float32 moves onto a tie) into float16 by every path (tensor of an ndarray,
  to/half/type, copy_, setitem, fill_, full, out=, where), float16 reductions, norms, matmul,
  addmm, pow, gelu, silu at those edges: values and gradients.
"""
from __future__ import annotations

from dataclasses import dataclass

from .builder import FLOATS, FUNCTIONS, INT_RANGE, INTS, NEAR_MAX, TensorVar, numel

FLOAT_POOL = ["0.0", "1.0", "-1.0", "0.5", "-0.5", "2.0", "-2.0", "1.5", "3.0", "-2.5", "0.25"]
ZERO_POOL = ["0.0", "-0.0", "0.0", "-0.0", "1.5", "-2.0", "0.5", "-0.25", "3.0"]
ALL_DTYPES = ("bool",) + INTS + FLOATS


@dataclass
class Family:
    weight: float
    actions: list  # (weight, action)


# ---------------------------------------------------------------- shared helpers
def nested(b, shape, pool):
    """Nested list source of ``shape``, each element drawn from ``pool``."""
    if not shape:
        return b.choice(pool)
    return "[" + ", ".join(nested(b, shape[1:], pool) for _ in range(shape[0])) + "]"


def make(b, shape, dtype, pool=None, grad=False, name=None):
    """``(name, statement)``: a new tensor of ``shape`` and ``dtype`` bound to a fresh name,
    its values from ``pool`` (the builder's values for the dtype by default)."""
    name = name or b.fresh_name()
    extra = ", requires_grad=True" if grad else ""
    if numel(shape) == 0 and shape != (0,):
        source = f"torch.zeros({tuple(shape)!r}, dtype=torch.{dtype}{extra})"
    else:
        values = nested(b, shape, pool) if pool else b.values(shape, dtype)
        source = f"torch.tensor({values or '[]'}, dtype=torch.{dtype}{extra})"
    var = TensorVar(tuple(shape), dtype, requires_grad=grad, inference=b.inference)
    if grad:
        var.leaves = {var}
    b.bind(name, var)
    return name, f"{name} = {source}"


def existing_or_new(b, test, shape, dtype, pool=None, grad=False):
    """``(statements, name, var)``: a tensor for which ``test`` holds, or a new one."""
    found = b.pick(lambda v: test(v) and not v.inference) if b.chance(0.6) else None
    if found:
        return [], found[0], found[1]
    name, statement = make(b, shape, dtype, pool, grad)
    return [statement], name, b.tensors[name]


def valid_dim(b, var):
    """A dimension of ``var`` (negative now and then); 0-d tensors take 0 and -1."""
    if not var.ndim:
        return b.choice([0, -1])
    d = b.rng.randrange(var.ndim)
    return d - var.ndim if b.chance(0.25) else d


def unknown(b, name, dtype="float32"):
    """``name`` holds a result whose shape the generator does not follow: kept out of later
    picks (the family's statements use it by name)."""
    b.bind(name, TensorVar(None, dtype))


def fill(template, **names):
    return template.format(**names)


# ---------------------------------------------------------------- extremes
WRITES = ["{x}[{i}] = {v}", "{x}[:{k}] = {v}", "{x}[...] = {v}", "{x}[{x} > 0] = {v}",
          "{x}[{x} == {x}] = {v}", "{x}[[{i}, {j}]] = {v}", "{x}[torch.tensor([{i}])] = {v}",
          "{x}.fill_({v})", "{x}.masked_fill_({x} != 0, {v})",
          "{n} = {x}.masked_fill({x} >= 0, {v})", "{n} = torch.masked_fill({x}, {x} < 1, {v})",
          "{x}.index_fill_(0, torch.tensor([{i}]), {v})", "{x}.copy_({t})", "{x}.add_({v})",
          "{x}.sub_({v})", "{x}.mul_({v})", "{x} += {v}", "{x} -= {v}", "{x} *= {v}",
          "{x}.clamp_(min={v})", "{x}.clamp_(max={v})", "{n} = torch.full_like({x}, {v})",
          "{n} = {x}.new_full((2,), {v})", "{n} = torch.full((2,), {v}, dtype={x}.dtype)",
          "{x}.index_put_((torch.tensor([{i}, {i}]),), torch.as_tensor({v}).to({x}.dtype), "
          "accumulate=True)",
          "{n} = torch.index_put({x}, (torch.tensor([{i}]),), torch.as_tensor({v}).to({x}.dtype))",
          "{x}.put_(torch.tensor([{i}]), torch.as_tensor({v}).to({x}.dtype).reshape(1))",
          "{n} = {x}.masked_scatter({x} != 0, torch.full_like({x}, {v}))"]
WRITES_1D = ["{x}.scatter_(0, torch.tensor([{i}]), {v})", "{x}.remainder_({d})",
             "{x}.floor_divide_({d})"]


def extreme_target(b):
    """A tensor to write into: integer or bool mostly, float16 sometimes."""
    dtype = b.choice(["uint8", "int8", "int16", "int32", "int64", "bool", "float16", "uint8"])
    shape = b.choice([(2,), (3,), (2, 2), (1,)])
    pool = [b.edge_literal(dtype) for _ in range(4)] if dtype != "bool" else ["True", "False"]
    return existing_or_new(b, lambda v: v.dtype != "float32" and v.ndim and v.shape[0] > 0
                           and not v.requires_grad, shape, dtype, pool)


def write_value(b, dtype):
    """A number, or a 0-d or one-element tensor, at or past the end of ``dtype``'s range."""
    literal = b.edge_literal(dtype, past=b.chance(0.6))
    form = b.choice(["number", "number", "tensor", "typed", "list"])
    if form == "number":
        return literal
    if form == "typed":
        other = b.choice(["int16", "int32", "int64", "uint8", "float16", "float64"])
        return f"torch.tensor({b.edge_literal(other)}, dtype=torch.{other})"
    if form == "list":
        return f"torch.tensor([{literal}])"
    return f"torch.tensor({literal})"


def write_extreme(b):
    """A value at or past the end of the target's range, by one of the write paths."""
    statements, x, var = extreme_target(b)
    n = var.shape[0]
    templates = WRITES + (WRITES_1D if var.ndim == 1 else [])
    template = b.choice(templates)
    # (INT_MIN // -1 and INT_MIN % -1 stop the process on x86: not written)
    divisor = b.choice(["2", "-3", "0", "7"] + ["-1"] * (var.dtype in ("int8", "int16", "uint8")))
    copied = b.choice([f"torch.tensor({b.edge_literal('int64', past=True)})",
                       f"torch.tensor([{b.edge_literal('float32', past=True)}])",
                       f"torch.full_like({x}, {b.edge_literal('int64')}, dtype=torch.int64)",
                       f"torch.tensor({b.edge_literal(var.dtype)}, dtype=torch.{var.dtype})"])
    result = b.fresh_name() if "{n}" in template else ""
    statements.append(fill(template, x=x, v=write_value(b, var.dtype), i=b.rng.randrange(n),
                           j=b.rng.randrange(n), k=b.rng.randint(1, n), n=result, d=divisor,
                           t=copied))
    if result:
        b.bind(result, TensorVar(None if "new_full" in template or "full(" in template
                                 else var.shape, var.dtype))
    return statements


EXTREME_OPS = ["{x} + 1", "{x} - 1", "{x} * 2", "-{x}", "{x}.abs()", "torch.abs({x})", "{x}.neg()",
               "{x} + {p}", "{x} * {p}", "{x} - torch.tensor({p})", "{x} * {x}", "{x} // 2",
               "{x} // -2", "{x} % 3", "{x} // 0", "{x} % 0", "{x}.sum()",
               "{x}.sum(dtype=torch.{d})", "{x}.prod()", "{x}.cumsum(0)", "{x}.cumprod(0)",
               "{x}.max()", "{x}.min()", "{x}.argmax()", "{x}.sort()", "{x}.float()", "{x}.half()",
               "{x}.double()", "{x}.to(torch.{d})", "{x}.long()", "{x}.bool()", "{x}.sign()",
               "{x}.square()", "{x} ** 2", "{x}.pow(3)", "{x}.bitwise_not()", "~{x}", "{x} & {e}",
               "{x} | 1", "{x}.clamp(min={e}, max={p})", "torch.clamp({x}, {p})", "{x} == {p}",
               "{x} < {p}", "{x}.eq({e})", "torch.where({x} > 0, {x}, {p})",
               "torch.maximum({x}, torch.tensor({e}))", "{x}.mean()", "{x}.float().mean()",
               "{x}.double().var()", "{x}.sum(0, keepdim=True)", "{x} / 2", "{x} / 0",
               "{x}.true_divide(3)", "torch.floor_divide({x}, 2)", "{x}.remainder(-3)",
               "{x}.fmod(3)", "torch.isclose({x}, {x})", "{x}.unique()", "{x}.topk(1)",
               "{x}.flip(0)", "{x}.count_nonzero()", "{x}.nonzero()", "torch.cat([{x}, {x}])",
               "{x}.repeat(2)", "{x} + torch.tensor({e}, dtype=torch.{d})",
               "{x} + {x}.to(torch.{d})", "torch.tensor({e}) + {x}", "{x}.item()", "{x}.tolist()",
               "{x}.amax()", "{x}.cumsum(0, dtype=torch.{d})", "{x}.sum().item()",
               "{x}.abs().max()"]


def arithmetic_extreme(b):
    """Arithmetic, conversions and reductions of values at the ends of the range (wrapping)."""
    dtype = b.choice(["uint8", "int8", "int16", "int32", "int64", "bool", "float16"])
    statements, x, var = existing_or_new(
        b, lambda v: v.dtype in INTS + ("bool", "float16") and v.ndim == 1 and v.shape[0] > 0,
        (b.choice([1, 2, 3]),), dtype, [b.edge_literal(dtype) for _ in range(3)]
        if dtype != "bool" else ["True", "False"])
    op = b.choice(EXTREME_OPS)
    if var.dtype in ("int32", "int64") and ("//" in op or "%" in op or "remainder" in op
                                            or "floor_divide" in op):
        op = op.replace("-2", "2").replace("-3", "3")
    name = b.fresh_name()
    statements.append(f"{name} = " + fill(op, x=x, p=b.edge_literal(var.dtype, past=True)
                                          if var.dtype in INT_RANGE else "1e5",
                                          e=b.edge_literal(var.dtype)
                                          if var.dtype in INT_RANGE else "6e4",
                                          d=b.choice(["int8", "uint8", "int16", "int32", "int64",
                                                      "float16"])))
    unknown(b, name, var.dtype)
    return statements


def create_extreme(b):
    """Creation at and past the ends of the range: tensor, full, arange, randint, iinfo."""
    dtype = b.choice(["uint8", "int8", "int16", "int32", "int64"])
    low, high = INT_RANGE[dtype]
    name = b.fresh_name()
    inside = ", ".join(b.edge_literal(dtype) for _ in range(b.choice([1, 2, 3])))
    past = b.edge_literal(dtype, past=True)
    other = b.choice(INTS)
    source = b.choice([
        f"torch.tensor([{inside}], dtype=torch.{dtype})",
        f"torch.tensor([{inside}, {past}], dtype=torch.{dtype})",
        f"torch.tensor({past}, dtype=torch.{dtype})",
        f"torch.full((2,), {b.choice([inside.split(', ')[0], past])}, dtype=torch.{dtype})",
        f"torch.full((2,), {past})",
        f"torch.tensor({b.choice([2**63 - 1, -2**63, 2**31, 2**63])})",
        f"torch.arange({high - 3}, {b.choice([high, high + 1, high + 2])}, dtype=torch.{dtype})",
        f"torch.arange({low}, {low + 3}, dtype=torch.{dtype})",
        f"torch.randint({low}, {high}, (4,), dtype=torch.{dtype})",
        f"torch.randint({b.choice([low - 1, 3, 0])}, {b.choice([high + 1, high + 4, 2**31 + 3])}, "
        f"(4,), dtype=torch.{dtype})",
        f"torch.randint({high + 4}, (3,), dtype=torch.{b.choice(['float32', 'float16'])})",
        f"torch.full((2,), torch.iinfo(torch.{dtype}).{b.choice(['max', 'min'])}, "
        f"dtype=torch.{dtype})",
        f"torch.tensor([{past}]).to(torch.{dtype})",
        f"torch.tensor([{b.edge_literal(other)}], dtype=torch.{other}).to(torch.{dtype})",
        f"torch.tensor([{b.choice(['127.9', '-128.9', '255.5', '-0.9', '1e10', '3e9'])}])"
        f".to(torch.{dtype})",
        f"torch.zeros(2, dtype=torch.{dtype}) + {past}",
        f"torch.ones(2, dtype=torch.{dtype}) * {past}"])
    prefix = b.seed_statements() if "rand" in source else []
    b.bind(name, TensorVar(None, dtype))
    return prefix + [f"{name} = {source}"]


# ---------------------------------------------------------------- overflow
REDUCTIONS = ["{x}.std()", "{x}.var()", "{x}.std(unbiased=False)", "{x}.var(correction=0)",
              "{x}.std({d})", "{x}.var({d}, keepdim=True)", "{x}.var(-1)",
              "torch.std({x}, dim={d})", "{x}.norm()", "{x}.norm(p=1)", "{x}.norm(dim={d})",
              "torch.norm({x}, float('inf'))", "torch.linalg.vector_norm({x})", "{x}.sum()",
              "{x}.sum({d})", "{x}.mean()", "{x}.mean({d})", "{x}.cumsum({d})", "{x}.cumprod({d})",
              "{x}.prod()", "{x}.softmax({d})", "{x}.log_softmax({d})", "torch.logsumexp({x}, {d})",
              "{x}.logsumexp({d})", "{x}.nansum()", "{x}.square().sum()", "({x} * {x}).mean()",
              "{x}.amax()", "{x}.exp()", "{x} * 2", "{x} + {x}", "{x}.square()", "{x} ** 2",
              "{x}.sqrt()", "{x}.float()", "{x}.half()", "{x}.double().std()",
              "torch.var({x}, {d}, unbiased=False)", "{x}.var({d}, unbiased=True)",
              "torch.nn.functional.mse_loss({x}, torch.zeros_like({x}))",
              "torch.nn.functional.softmax({x}, dim={d})", "{x}.std(correction=2)",
              "torch.var({x}, dim=None, correction=1)", "{x}.norm(p=2, dim={d}, keepdim=True)",
              "{x}.mean().backward()", "{x}.std().backward()", "{x}.norm().backward()",
              "{x}.var({d}).sum().backward()", "{x}.softmax({d}).sum().backward()",
              "{x}.logsumexp({d}).sum().backward()", "torch.histc({x}, 4)",
              "{x}.histc(3, min=1, max=1)", "torch.histc({x}, bins=2, min=-3e38, max=3e38)",
              "torch.histc({x}, 5, {x}.min().item(), {x}.min().item())"]


def overflow_tensor(b):
    dtype = b.choice(["float32", "float32", "float16", "float64"])
    shape = b.choice([(2,), (3,), (1, 2), (2, 2), (1,), (2, 3)])
    grad = b.chance(0.3)
    return existing_or_new(b, lambda v: v.dtype in FLOATS and v.ndim and numel(v.shape) > 0,
                           shape, dtype, NEAR_MAX[dtype] + ["1.0", "-0.5"], grad=grad)


def reduce_overflow(b):
    """Reductions and elementwise ops of values near the dtype's max."""
    statements, x, var = overflow_tensor(b)
    op = b.choice(REDUCTIONS)
    if "backward" in op and not var.requires_grad:
        op = op.split(".backward")[0].rsplit(".sum()", 1)[0]
    text = fill(op, x=x, d=valid_dim(b, var))
    if "backward" in op:
        return statements + [text]
    name = b.fresh_name()
    unknown(b, name, var.dtype)
    return statements + [f"{name} = {text}"]


def create_overflow(b):
    """Creation and conversion past the float range: full, tensor, half(), float()."""
    name = b.fresh_name()
    source = b.choice([
        f"torch.full({b.choice(['()', '(2,)'])}, {b.choice(['1e5', '-7e4', '65520.0', '65504.0'])}"
        f", dtype=torch.float16)",
        f"torch.tensor({b.choice(['1e5', '[1e5, -1.0]', '70000.0'])}, dtype=torch.float16)",
        f"torch.tensor([{b.choice(['1e39', '-1e39', '3.5e38', '1e-46'])}])",
        "torch.tensor([1e39, 1.0], dtype=torch.float64).float()",
        f"torch.tensor([{b.choice(['7e4', '1e5', '3e38'])}]).half()",
        f"torch.full((2,), {b.choice(['3e38', '-3.4e38'])}) * 2",
        f"torch.tensor([{b.choice(['3e38', '6e4', '1.0'])}]).var(-1)",
        f"torch.tensor([{b.choice(['3e38', '2.5'])}]).std(0, keepdim=True)",
        f"torch.tensor([[3e38, -2.75]]).std({b.choice(['', '1', 'unbiased=False'])})",
        "torch.tensor([6e4, 6e4, -2.75], dtype=torch.float16).var()",
        f"torch.ones(3, dtype=torch.float16).fill_({b.choice(['1e5', '65504.0', '7e4'])})",
        f"torch.zeros(2).fill_({b.choice(['1e39', '3.4e38'])})",
        f"torch.linspace(0, {b.choice(['1e38', '3e38'])}, 3).sum()",
        "torch.arange(0, 7e4, 2e4, dtype=torch.float16)"])
    b.bind(name, TensorVar(None, "float16" if "float16" in source or "half" in source
                           else "float32"))
    return [f"{name} = {source}"]


# ---------------------------------------------------------------- empty and 0-d
EMPTY_MAKERS = ["torch.tensor([])", "torch.tensor([[]])", "torch.zeros(0, 3)",
                "torch.ones(2, 0, dtype=torch.{dtype})", "torch.empty(0)", "torch.empty(0, 2)",
                "torch.arange(0)", "torch.arange(3, 3)", "torch.linspace(0, 1, 0)",
                "torch.linspace(0, 1, 1)", "torch.randn(0)", "torch.randint(0, 5, (0,))",
                "torch.tensor(2.5)", "torch.tensor(3)", "torch.ones(())",
                "torch.tensor([], dtype=torch.{dtype})",
                "torch.zeros(1, 0, 2, dtype=torch.{dtype})", "torch.eye(0)", "torch.tensor(True)",
                "torch.tensor(-0.0)", "torch.full((), 7, dtype=torch.{dtype})",
                "torch.zeros((), dtype=torch.{dtype})", "torch.ones(3)[3:]",
                "torch.ones(2, 3)[:, :0]", "torch.ones(3)[1]"]
EMPTY_OPS = ["{x}.exp()", "{x}.neg()", "{x}.abs()", "{x}.relu()", "{x}.sigmoid()", "{x}.sqrt()",
             "{x}.sign()", "{x}.round()", "{x}.floor()", "{x}.clamp(min=0)", "{x}.bool()",
             "{x}.float()", "{x}.long()", "~({x} > 0)", "{x}.logical_not()", "{x}.isnan()",
             "{x}.nan_to_num()", "{x} + {x}", "{x} * 2", "{x} / {x}", "{x} + torch.ones(1)",
             "{x} + torch.tensor(2.0)", "{x} > 0", "torch.where({x} > 0, {x}, 0.0)",
             "torch.maximum({x}, {x})", "{x} ** 2", "{x} // 2", "torch.isclose({x}, {x})",
             "torch.allclose({x}, {x})", "torch.equal({x}, {x})", "{x} @ {x}",
             "torch.dot({x}, {x})", "torch.outer({x}, {x})", "{x} @ {x}.t()", "{x}.t() @ {x}",
             "torch.mm({x}, {x}.t())", "{x}.bool() @ {x}.bool().t()",
             "torch.mv({x}, torch.ones(2))", "torch.matmul({x}, {x}.mT)",
             "{x}.int() @ {x}.int().t()", "{x}.sum()", "{x}.sum({d})", "{x}.sum({d}, keepdim=True)",
             "{x}.prod({d})", "{x}.mean()", "{x}.mean({d})", "{x}.max()", "{x}.max({d})",
             "{x}.min({d})", "{x}.argmax()", "{x}.argmax({d})", "{x}.amax({d})", "{x}.amax()",
             "{x}.std()", "{x}.var({d})", "{x}.std({d}, keepdim=True)", "{x}.norm()",
             "{x}.norm(dim={d})", "{x}.logsumexp({d})", "{x}.softmax({d})", "{x}.log_softmax({d})",
             "{x}.cumsum({d})", "{x}.cumprod({d})", "{x}.all()", "{x}.any({d})",
             "{x}.count_nonzero()", "{x}.nansum()", "torch.max({x}, {d})", "{x}.int().softmax({d})",
             "{x}.min()", "{x}.sort({d})", "{x}.argsort()", "{x}.topk(0)", "{x}.topk(1)",
             "{x}.topk(1, dim={d})", "{x}.topk(2, dim=1)", "{x}.unique()", "{x}.nonzero()",
             "{x}.flip({d})", "torch.sort({x}, descending=True)", "{x}.bool().topk(1)",
             "{x}.view(-1)", "{x}.reshape(0, -1)", "{x}.reshape(-1, 1)", "{x}.flatten()",
             "{x}.squeeze()", "{x}.unsqueeze(0)", "{x}.t()", "{x}.T", "{x}.transpose(0, -1)",
             "{x}.expand(2, *{x}.shape)", "{x}.narrow({d}, 0, 0)", "{x}.split(1)", "{x}.chunk(2)",
             "{x}.unbind()", "torch.cat([{x}, {x}])", "torch.cat([{x}, torch.ones(0)])",
             "torch.stack([{x}, {x}])", "{x}.repeat(2)", "{x}.repeat_interleave(2)", "{x}[...]",
             "{x}[None]", "{x}[{x} > 0]", "{x}.index_select(0, torch.tensor([], dtype=torch.long))",
             "{x}.masked_fill({x} > 0, 1.0)", "{x}.item()", "{x}.tolist()", "{x}.clone()",
             "{x}.masked_scatter({x} > 0, {x}.flatten())",
             "{x}.put(torch.tensor([], dtype=torch.long), {x}[:0].flatten())",
             "{x}.index_put((torch.tensor([], dtype=torch.long),), torch.tensor(1.0))",
             "{x}.index_put(({x} > 0,), torch.tensor(2.0), accumulate=True)",
             "{x}.contiguous()", "{x}.as_strided((1,), (1,))", "{x}.as_strided((0,), (1,))",
             "{x}.as_strided((), ())", "torch.zeros_like({x})", "torch.randn_like({x})",
             "torch.randn_like({x}, dtype=torch.int16)",
             "torch.rand_like({x}, dtype=torch.float64)", "torch.full_like({x}, 7)",
             "{x}.new_zeros({x}.shape)", "torch.broadcast_to({x}, (2,) + tuple({x}.shape))",
             "{x}.movedim(0, -1)", "{x}.numel()", "{x}.dim()", "{x}.size()", "{x}.stride()",
             "{x}.is_contiguous()", "{x}.gather(0, {x}.long())",
             "{x}.scatter(0, torch.zeros_like({x}, dtype=torch.long), 1)",
             "{x}.take_along_dim(torch.zeros_like({x}, dtype=torch.long), 0)"]
EMPTY_GRAD = ["{x}.sum().backward()", "({x} * 2).sum().backward()", "{x}.mean().backward()",
              "torch.autograd.grad({x}.exp().sum(), {x})", "{x}.prod().backward()",
              "{x}.norm().backward()", "({x} @ {x}).backward()", "{x}.softmax(-1).sum().backward()",
              "{x}.max().backward()", "{x}.std().backward()"]


def is_small(var):
    return var.shape is not None and (var.shape == () or numel(var.shape) == 0)


def create_empty(b):
    """An empty or 0-d tensor, made in one of the ways a learner meets them."""
    name = b.fresh_name()
    dtype = b.dtype()
    source = fill(b.choice(EMPTY_MAKERS), dtype=dtype)
    grad = b.chance(0.25) and ("dtype" not in source or dtype in FLOATS) and "(" in source \
        and not any(w in source for w in ("randint", "arange(0)", "True", "tensor(3)", "]", "[:"))
    if grad:
        source += ".requires_grad_()"
    var = TensorVar(None, dtype, requires_grad=grad)
    b.bind(name, var)
    prefix = b.seed_statements() if "rand" in source else []
    return prefix + [f"{name} = {source}"]


def empty_op(b):
    """An op of any family on an empty or 0-d tensor (a known one, else one made here)."""
    found = b.pick(is_small) if b.chance(0.8) else b.pick()
    if not found:
        shape = b.choice([s for s in ((), (0,), (2, 0), (0, 3)) ])
        dtype = b.choice(["float32", "float32", "int64", "bool", "int32", "float64", "float16"])
        name, statement = make(b, shape, dtype, grad=dtype in FLOATS and b.chance(0.3))
        return [statement]
    x, var = found
    if var.requires_grad and b.chance(0.3):
        return [fill(b.choice(EMPTY_GRAD), x=x)]
    op = fill(b.choice(EMPTY_OPS), x=x, d=valid_dim(b, var) if not b.chance(0.05) else 2)
    name = b.fresh_name()
    unknown(b, name, var.dtype)
    prefix = b.seed_statements() if "rand" in op else []
    return prefix + [f"{name} = {op}"]


def interop(b):
    """numpy arrays, 0-d ones too, into tensors (asarray, as_tensor, from_numpy, tensor): does
    the tensor see a later write into the array?"""
    dtype = b.choice(["int32", "int64", "float32", "float64", "uint8", "bool", "int16"])
    value = b.choice(["True", "False"]) if dtype == "bool" else b.choice(["1", "3", "0"])
    shape = b.choice(["()", "(2,)", "(0,)", "(2, 1)"])
    n, t = b.fresh_name(), b.fresh_name()
    function = b.choice(["torch.asarray", "torch.as_tensor", "torch.from_numpy", "torch.tensor",
                         "torch.asarray"])
    keyword = b.choice(["", "", ", dtype=torch.float32", ", copy=False", ", copy=True"]) \
        if function == "torch.asarray" else ""
    b.reserved.add(n)
    b.bind(t, TensorVar(None, dtype))
    new_value = "False" if dtype == "bool" else "7"
    return ["import numpy as np", f"{n} = np.full({shape}, {value}, dtype=np.{dtype})",
            f"{t} = {function}({n}{keyword})", f"{n}[...] = {new_value}", f"print({t})"]


# ---------------------------------------------------------------- once_differentiable
def _once_differentiable(name, source):
    """A classic program's Function under another name, its backward marked once_differentiable."""
    old_name = source.split("(", 1)[0].removeprefix("class ")
    return source.replace(f"class {old_name}(", f"class {name}(", 1).replace(
        "    @staticmethod\n    def backward",
        "    @staticmethod\n    @once_differentiable\n    def backward", 1)


ONCE_FUNCTIONS = {"OnceSquare": _once_differentiable("OnceSquare", FUNCTIONS["Square"]),
                  "OnceExp": _once_differentiable("OnceExp", FUNCTIONS["Exp"]),
                  "OnceScale": _once_differentiable("OnceScale", FUNCTIONS["MulConstant"]),
                  "OnceMul": '''class OnceMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * y, grad_output * x'''}
ONCE_THEN = [
    ["{g}, = torch.autograd.grad({y}.sum(), {x}, create_graph=True)",
     "print({g}.requires_grad, {g}.grad_fn is None)"],
    ["{g}, = torch.autograd.grad({y}.sum(), {x}, create_graph=True)", "{g}.sum().backward()"],
    ["{g}, = torch.autograd.grad({y}.sum(), {x}, create_graph=True)",
     "{h}, = torch.autograd.grad({g}.sum(), {x})"],
    ["{z} = {y} * {x}", "{g}, = torch.autograd.grad({z}.sum(), {x}, create_graph=True)",
     "{g}.sum().backward()"],
    ["{z} = {y} + {x}.sin()", "{g}, = torch.autograd.grad({z}.sum(), {x}, create_graph=True)",
     "{h}, = torch.autograd.grad({g}.sum(), {x}, allow_unused=True)"],
    ["{y}.sum().backward(create_graph=True)",
     "print({x}.grad.requires_grad, {x}.grad.grad_fn is None)",
     "{x}.grad.sum().backward()"],
    ["{y}.backward(torch.ones_like({y}), create_graph=True)", "{g} = {x}.grad * 1"],
    ["{y}.sum().backward()"],
    ["{g}, = torch.autograd.grad({y}.sum(), {x})", "print({g}.requires_grad)"],
    ["with torch.no_grad():\n    {z} = {y} * 2", "{g}, = torch.autograd.grad({y}.sum(), {x}, "
     "create_graph=True)"],
]


def once(b):
    """A Function with a @once_differentiable backward, differentiated once and twice."""
    name = b.choice(sorted(ONCE_FUNCTIONS))
    statements = []
    if "once_differentiable" not in b.functions:
        b.functions.add("once_differentiable")
        # (not an import statement: the engine worker would import the real torch)
        statements.append("once_differentiable = torch.autograd.function.once_differentiable")
    if name not in b.functions:
        b.functions.add(name)
        statements.append(ONCE_FUNCTIONS[name])
    dtype = b.choice(["float32", "float32", "float64"])
    shape = b.choice([(2,), (), (2, 2), (3,), (0,)])
    more, x, var = existing_or_new(b, lambda v: v.is_float and v.requires_grad and v.is_leaf,
                                   shape, dtype, FLOAT_POOL, grad=True)
    statements += more
    y = b.fresh_name()
    args = {"OnceScale": f"{x}, {b.choice(['3.0', '-0.5', '2'])}",
            "OnceMul": f"{x}, {x}" if b.chance(0.5) else f"{x}, {x}.detach() * 2"}.get(name, x)
    statements.append(f"{y} = {name}.apply({args})")
    b.bind(y, b.result(var.shape, var.dtype, var))
    g, h, z = b.fresh_name(), b.fresh_name(), b.fresh_name()
    for template in b.choice(ONCE_THEN):
        statements.append(fill(template, x=x, y=y, g=g, h=h, z=z))
    for name in (g, h, z):
        if any(f"{name} " in s or f"{name}," in s for s in statements):
            unknown(b, name)
    var.has_grad = True
    return statements


# ---------------------------------------------------------------- nested grad modes
MODES = ["torch.no_grad()", "torch.enable_grad()", "torch.set_grad_enabled(False)",
         "torch.set_grad_enabled(True)", "torch.inference_mode()", "torch.inference_mode(False)",
         "torch.inference_mode(mode=True)", "torch.no_grad()", "torch.inference_mode()"]
IN_MODE = ["{n} = {x} * 2", "{n} = {x}.view(-1)", "{n} = {x}[0]", "{n} = {x}.detach()",
           "{n} = {x}.sum()", "{n} = {x}.clone()", "{n} = {x}.exp()", "{n} = torch.ones(2)",
           "{n} = {x}.unsqueeze(0)", "{n} = {x}.expand(2, *{x}.shape)", "{n} = {x}[...]",
           "{n} = {x}.t()", "{n} = {x} + 0",
           "print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())",
           "print({x}.requires_grad, {x}.is_inference())"]
AFTER_MODE = ["{m} = {n} * {x}", "{n}.sum().backward()", "{n}.add_(1)", "{n}.mul_(2)",
              "print({n}.requires_grad, {n}.is_leaf, {n}.grad_fn)", "print({n}.is_inference())",
              "{m} = {n}.view(-1)", "{m} = {n}.clone()", "{n}.requires_grad_()",
              "print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())", "{m} = {n} + 1",
              "{m}, = torch.autograd.grad({n}.sum(), {x}, allow_unused=True)"]


def nested_modes(b):
    """Nested grad-mode blocks (or a decorated function called in one), with ops, views and
    in-place ops made in each level, before and after the inner block (is the outer mode
    back?); then the tensors used outside."""
    more, x, var = existing_or_new(b, lambda v: v.is_float and v.ndim in (1, 2) and v.shape[0]
                                   and not v.inference, (2, 2), "float32", FLOAT_POOL,
                                   grad=True)
    statements, made = list(more), []
    modes = [b.choice(MODES) for _ in range(b.choice([2, 2, 3]))]
    function = None
    if b.chance(0.2):  # a decorated function called inside the innermost block
        decorator = b.choice(["torch.no_grad()", "torch.enable_grad()", "torch.inference_mode()",
                              "torch.set_grad_enabled(True)"])
        function = b.fresh_name()
        b.reserved.add(function)
        statements.append(f"@{decorator}\ndef {function}(t):\n    return t.view(-1) * 2")
    statements.append(_mode_block(b, modes, x, made, function))
    for name in made:
        unknown(b, name)
    for _ in range(b.choice([1, 2, 2]) if made else 0):
        m = b.fresh_name()
        statements.append(fill(b.choice(AFTER_MODE), n=b.choice(made), x=x, m=m))
        unknown(b, m)
    return statements


def _mode_block(b, modes, x, made, function):
    """``with modes[0]:`` holding a few statements, the block of ``modes[1:]``, and a few
    more statements; the innermost one calls ``function``."""
    body = _in_mode(b, x, made, b.choice([0, 1, 1, 2]))
    if len(modes) > 1:
        body.append(_mode_block(b, modes[1:], x, made, function))
        body += _in_mode(b, x, made, b.choice([0, 1, 1]))
    else:
        if function:
            name = b.fresh_name()
            made.append(name)
            body.append(f"{name} = {function}({x})")
        if b.chance(0.15):
            body.append(f"torch.set_grad_enabled({b.choice(['False', 'True'])})")
        body = body or _in_mode(b, x, made, 1)
    text = "\n".join(body).replace("\n", "\n    ")
    return f"with {modes[0]}:\n    {text}"


def _in_mode(b, x, made, count):
    """``count`` statements for a grad-mode block: an op, a view, an in-place op on a tensor
    made earlier in the blocks, a print of the mode."""
    lines = []
    for _ in range(count):
        if made and b.chance(0.25):
            lines.append(f"{b.choice(made)}.{b.choice(['add_(1)', 'mul_(2)', 'zero_()'])}")
            continue
        template = b.choice(IN_MODE)
        name = b.fresh_name()
        if "{n}" in template:
            made.append(name)
        lines.append(fill(template, x=x, n=name))
    return lines


# ---------------------------------------------------------------- third derivatives
THIRD = ["{x}.relu() * {x}", "{x} ** 3", "{x}.exp()", "{x}.sin()", "{x}.tanh()", "{x}.sigmoid()",
         "{x} * {x} * {x}", "{x}.softmax(-1)", "{x}.log_softmax(-1)", "({x} * {x}).sum()",
         "{x}.abs() * {x}", "torch.where({x} > 0, {x} ** 2, -{x})", "{x}.clamp(min=-0.5) ** 2",
         "{x} / ({x} * {x} + 1)", "{x}.sqrt()", "{x}.log()", "{x}.cos() * {x}",
         "{x}.square().mean()", "{x}.norm()", "{x}.max() * {x}", "{x}.cumsum(0) ** 2", "{x}.prod()",
         "torch.nn.functional.relu({x}) ** 2", "{x}.exp().sum().log()", "{x}.logsumexp(-1)",
         "{x}.mean() * {x}", "{x}.pow(4)", "{x}.reciprocal()", "1 / {x}", "{x} / {x}",
         "{x}.exp() * {x}.sin()", "torch.maximum({x}, -{x}) ** 3", "{x}.sigmoid() * {x}",
         "{x}.var() * {x}", "{x}.std()", "{x}.rsqrt()", "{x}.atan()", "{x}.tan()", "{x}.sinh()",
         "{x}.expm1()", "{x}.log1p()", "{x} @ {x}", "{x}.unsqueeze(0) @ {x}.unsqueeze(1)",
         "torch.nn.functional.silu({x})", "torch.nn.functional.gelu({x})",
         "torch.nn.functional.softplus({x})", "torch.nn.functional.elu({x})",
         "torch.nn.functional.leaky_relu({x}) * {x}", "{x}.clamp(-1, 1) * {x}",
         "torch.nn.functional.hardtanh({x}) * {x}", "torch.nn.functional.softshrink({x}) ** 2",
         "torch.nn.functional.hardshrink({x}) * {x}", "torch.nn.functional.relu6({x}) * {x}",
         "torch.nn.functional.threshold({x}, 0.1, 2.0) * {x}",
         "torch.nn.functional.rrelu({x}) * {x}", "torch.nn.functional.hardsigmoid({x}) * {x}",
         "torch.cdist({x}.reshape(-1, 1), {x}.reshape(-1, 1))",
         "torch.cdist({x}.reshape(1, -1), {x}.reshape(1, -1).flip(1), p=1.5)",
         "torch.cdist({x}.reshape(-1, 1), {x}.reshape(-1, 1) * 2, p=3)",
         "torch.nn.functional.max_pool1d({x}.reshape(1, 1, -1), 1) * {x}",
         "torch.nn.functional.avg_pool1d({x}.reshape(1, 1, -1), 1) ** 2",
         "torch.nn.functional.adaptive_avg_pool1d({x}.reshape(1, 1, -1), 1) * {x}",
         "torch.nn.functional.multi_margin_loss({x}.reshape(1, -1), torch.tensor([0]))",
         "torch.nn.functional.pad({x}.reshape(1, -1), (1, 1), mode='reflect') ** 2",
         "torch.nn.functional.pad({x}.reshape(1, -1), (2, 1), mode='replicate') ** 3"]


def third(b):
    """Three derivatives: autograd.grad with create_graph=True twice, then once more."""
    dtype = b.choice(["float32", "float64", "float32"])
    shape = b.choice([(), (2,), (3,), (2, 2)])
    pool = ["0.5", "1.5", "-0.75", "2.0", "0.0", "-1.25", "0.25"]
    more, x, var = existing_or_new(b, lambda v: v.is_float and v.requires_grad and v.is_leaf
                                   and v.ndim in (0, 1, 2), shape, dtype, pool, grad=True)
    expression = b.choice(THIRD).format(x=x)
    if b.chance(0.3):
        expression = b.choice(THIRD).format(x=f"({expression})")
    y, g1, g2, g3 = (b.fresh_name() for _ in range(4))
    statements = more + [f"{y} = {expression}"]
    if b.chance(0.2):
        statements += [f"{y}.sum().backward(create_graph=True)",
                       f"{g1}, = torch.autograd.grad({x}.grad.sum(), {x}, create_graph=True)"]
    else:
        statements.append(f"{g1}, = torch.autograd.grad({y}.sum(), {x}, create_graph=True)")
    statements.append(f"{g2}, = torch.autograd.grad({g1}.sum(), {x}, create_graph=True)")
    statements.append(b.choice([f"{g3}, = torch.autograd.grad({g2}.sum(), {x})",
                                f"{g2}.sum().backward()",
                                f"{g3}, = torch.autograd.grad({g2}.sum(), {x}, create_graph=True,"
                                f" allow_unused=True)",
                                f"{g3}, = torch.autograd.grad({g2}, {x}, "
                                f"torch.ones_like({g2}))"]))
    for name in (y, g1, g2, g3):
        unknown(b, name, var.dtype)
    var.has_grad = True
    return statements


# ---------------------------------------------------------------- keyword/positional mixes
# name: (positional-or-keyword parameters after the input, keyword-only parameters,
#        whether it is a Tensor method too)
SIGNATURES = {
    "sum": (["dim", "keepdim"], ["dtype"]), "mean": (["dim", "keepdim"], ["dtype"]),
    "prod": (["dim1", "keepdim"], ["dtype"]), "nansum": (["dim", "keepdim"], ["dtype"]),
    "std": (["dim", "unbiased", "keepdim"], ["correction"]),
    "var": (["dim", "unbiased", "keepdim"], ["correction"]),
    "max": (["dim1", "keepdim"], []), "min": (["dim1", "keepdim"], []),
    "argmax": (["dim1", "keepdim"], []), "argmin": (["dim1", "keepdim"], []),
    "amax": (["dim", "keepdim"], []), "amin": (["dim", "keepdim"], []),
    "logsumexp": (["dim", "keepdim"], []), "cumsum": (["dim1"], ["dtype"]),
    "cumprod": (["dim1"], ["dtype"]), "softmax": (["dim1", "dtype"], []),
    "log_softmax": (["dim1", "dtype"], []), "sort": (["dim1", "descending"], ["stable"]),
    "argsort": (["dim1", "descending"], ["stable"]),
    "topk": (["k", "dim1", "largest", "sorted"], []),
    "norm": (["p", "dim", "keepdim", "dtype"], []), "all": (["dim1", "keepdim"], []),
    "any": (["dim1", "keepdim"], []), "count_nonzero": (["dim"], []),
    "squeeze": (["dim"], []), "unsqueeze": (["dim1"], []),
    "flatten": (["start_dim", "end_dim"], []),
    "transpose": (["dim0", "dim1"], []), "movedim": (["source", "destination"], []),
    "split": (["split_size", "dim1"], []), "chunk": (["chunks", "dim1"], []),
    "narrow": (["dim1", "start", "length"], []), "flip": (["dims"], []),
    "unique": (["sorted", "return_inverse", "return_counts", "dim1"], []),
    "clamp": (["min", "max"], []), "add": (["other"], ["alpha"]), "sub": (["other"], ["alpha"]),
    "mul": (["other"], []), "div": (["other"], ["rounding_mode"]), "pow": (["exponent"], []),
    "isclose": (["other", "rtol", "atol", "equal_nan"], []),
    "repeat_interleave": (["repeats", "dim1"], []), "index_select": (["dim1", "index"], []),
    "gather": (["dim1", "index"], []), "masked_fill": (["mask", "value"], []),
    "rsub": (["other"], ["alpha"]), "maximum": (["other"], []),
    "where": (["condition", "other"], []), "cross": (["other", "dim"], []),
    "lerp": (["end", "weight"], []), "round": ([], ["decimals"]),
    "nan_to_num": (["nan", "posinf", "neginf"], []), "diff": (["n", "dim1"], []),
    "histc": (["bins", "min", "max"], []), "roll": (["shifts", "dims"], []),
    "rot90": (["k", "dims"], []),
    # sizes and operands by torch's keyword names (view(size=), reshape(shape=) ...) and the
    # ops whose parser lists a tensor-or-number overload (fuzz round 13)
    "view": (["size"], []), "reshape": (["shape"], []), "expand": (["size"], ["implicit"]),
    "repeat": (["tile_repeats"], []), "swapaxes": (["axis0", "axis1"], []),
    "swapdims": (["dim0", "dim1"], []), "fmod": (["other"], []), "remainder": (["other"], []),
    "eq": (["other"], []), "lt": (["other"], []), "true_divide": (["other"], []),
    # sequences of dims and sizes, keyword-only dims, flags (fuzz round 17)
    "tile": (["dims"], []), "permute": (["dims"], []), "unflatten": (["dim1", "sizes"], []),
    "aminmax": ([], ["dim1", "keepdim"]),
    "unique_consecutive": (["return_inverse", "return_counts", "dim1"], []),
    # conversions: to's three overloads, memory formats (fuzz round 18)
    "to": (["to_target", "non_blocking", "copy"], ["memory_format"]),
    "float": ([], ["memory_format"]), "double": ([], ["memory_format"]),
    "contiguous": ([], ["memory_format"]), "type": (["type_dtype", "non_blocking"],
                                                    ["memory_format"]),
    # renorm (missing until round 19) and its checks of p, maxnorm and the input's dims
    "renorm": (["renorm_p", "dim1", "maxnorm"], []),
}
REQUIRED = {"roll": 1, "topk": 1, "unsqueeze": 1, "transpose": 2, "movedim": 2, "split": 1,
            "chunk": 1, "narrow": 3, "flip": 1, "add": 1, "sub": 1, "mul": 1, "div": 1, "pow": 1,
            "isclose": 1, "repeat_interleave": 1, "index_select": 2, "gather": 2,
            "masked_fill": 2, "rsub": 1, "maximum": 1, "where": 2, "cross": 1, "lerp": 2,
            "view": 1, "reshape": 1, "expand": 1, "repeat": 1, "swapaxes": 2, "swapdims": 2,
            "fmod": 1, "remainder": 1, "eq": 1, "lt": 1, "true_divide": 1, "tile": 1,
            "permute": 1, "unflatten": 2, "renorm": 3}
FUNCTION_ONLY = {"rsub"}
METHOD_ONLY = {"view", "expand", "repeat", "to", "float", "double", "contiguous", "type"}
OUT_OK = {"sum", "mean", "prod", "std", "var", "max", "min", "argmax", "amax", "logsumexp",
          "cumsum", "sort", "topk", "norm", "add", "sub", "mul", "div", "pow", "clamp",
          "maximum", "index_select", "gather", "softmax", "log_softmax", "where", "renorm"}
ALIASES = {"dim": ["axis", "dims"], "keepdim": ["keepdims"], "other": ["y"],
           "input": ["x", "self"]}


def signature_value(b, parameter, x, var):
    """Source of a value for ``parameter`` of a call on ``x``."""
    ndim = var.ndim or 0
    size = var.shape[0] if ndim else 1
    dims = list(range(-ndim, ndim)) or [0, -1]
    def flag():
        return b.choice(["True", "False"])

    values = {
        "dim": lambda: b.choice([b.choice(dims), b.choice(dims), "None",
                                 f"({b.choice(dims)}, {b.choice(dims)})", f"[{b.choice(dims)}]"]),
        "dim1": lambda: b.choice(dims + ([ndim] if b.chance(0.1) else [])),
        "dim0": lambda: b.choice(dims), "start_dim": lambda: b.choice(dims),
        "end_dim": lambda: b.choice(dims), "source": lambda: b.choice(dims),
        "destination": lambda: b.choice(dims),
        "keepdim": flag, "unbiased": flag, "descending": flag, "stable": flag, "largest": flag,
        "sorted": flag,
        "return_inverse": lambda: "True", "return_counts": lambda: b.choice(["True", "False"]),
        "equal_nan": lambda: "True",
        "dtype": lambda: b.choice(["torch.float64", "torch.float32", "torch.int64",
                                   "torch.float16"]),
        "correction": lambda: b.choice(["0", "1", "2"]),
        "k": lambda: str(b.choice([1, size, size + 1] if size else [0, 1])),
        "p": lambda: b.choice(["1", "2", "'fro'", "float('inf')", "0.5", "3"]),
        "renorm_p": lambda: b.choice(["1", "2", "float('inf')", "0.5", "3", "0", "-1"]),
        "maxnorm": lambda: b.choice(["0.5", "1", "0", "-1.5", "True", "1e-3", "5"]),
        "split_size": lambda: b.choice(["1", "2", f"[1, {max(size - 1, 0)}]"]),
        "chunks": lambda: b.choice(["1", "2", "3"]), "start": lambda: "0",
        "length": lambda: str(min(1, size)),
        "dims": lambda: b.choice(["(0,)", "[0]", "(0, -1)", "0"]),
        "min": lambda: b.choice(["0", "-0.5", "None"]), "max": lambda: b.choice(["1", "0.5"]),
        "other": lambda: b.choice([b.scalar(var.dtype), f"torch.ones_like({x})", f"{x}",
                                   "torch.tensor(2.0)"]),
        "alpha": lambda: b.choice(["2", "0.5"]),
        "rounding_mode": lambda: b.choice(["'floor'", "'trunc'", "None"]),
        "exponent": lambda: b.choice(["2", "0.5", f"{x}"]), "rtol": lambda: "0.1",
        "atol": lambda: "0.5",
        "repeats": lambda: b.choice(["2", "torch.tensor(2)"]),
        "index": lambda: b.choice(["torch.tensor([0])",
                                   f"torch.zeros_like({x}, dtype=torch.long)"]),
        "mask": lambda: f"{x} > 0", "value": lambda: b.choice(["0.0", "1", "torch.tensor(2.0)"]),
        "condition": lambda: f"{x} > 0", "end": lambda: f"torch.ones_like({x})",
        "weight": lambda: b.choice(["0.5", f"torch.full_like({x}, 0.25)"]),
        "decimals": lambda: b.choice(["0", "1", "2"]),
        "nan": lambda: "0.0", "posinf": lambda: "1.0", "neginf": lambda: "-1.0",
        "n": lambda: b.choice(["0", "1", "2"]), "bins": lambda: b.choice(["1", "4"]),
        "shifts": lambda: b.choice(["1", "-1", "(1,)", "torch.tensor(1)"]),
        "size": lambda: b.choice(["(-1,)", f"[{x}.numel()]", "(1, -1)", f"(2, *{x}.shape)",
                                  f"list({x}.shape)", "-1"]),
        "shape": lambda: b.choice(["(-1,)", f"[{x}.numel()]", "(1, -1)", "-1"]),
        "implicit": flag,
        "tile_repeats": lambda: b.choice([f"[2] * {x}.dim()", f"(1,) * {x}.dim()", "2"]),
        "axis0": lambda: b.choice(dims), "axis1": lambda: b.choice(dims),
        "sizes": lambda: b.choice([f"({size}, 1)", "(-1, 1)", f"[1, {size}]", f"({size},)"]),
        "to_target": lambda: b.choice(["torch.float64", "torch.float32", "torch.int64",
                                       "torch.float16", "'cpu'", "torch.device('cpu')", "None",
                                       "True", "1.5", "float", "int", "bool",
                                       "torch.ones(1, dtype=torch.float64)", f"{x}"]),
        "copy": flag, "non_blocking": flag,
        "memory_format": lambda: b.choice(["torch.contiguous_format", "torch.preserve_format",
                                           "torch.channels_last", "None"]),
        "type_dtype": lambda: b.choice(["torch.float64", "torch.int32", "'torch.DoubleTensor'",
                                        "torch.FloatTensor", "None"]),
    }
    return str(values[parameter]())


def keyword_name(b, parameter):
    """The keyword a learner writes: torch's own mostly, numpy's alias sometimes."""
    name = {"dim1": "dim", "split_size": "split_size_or_sections",
            "tile_repeats": "repeats", "to_target": "dtype",
            "type_dtype": "dtype", "renorm_p": "p"}.get(parameter, parameter)
    if name in ALIASES and b.chance(0.1):
        return b.choice(ALIASES[name])
    return name


def signature_call(b):
    """One op called with its arguments mixed: by position or by keyword, as a method or a
    function (``input=`` too), with ``out=``; sometimes a keyword-only one by position."""
    found = b.pick(lambda v: v.ndim is not None and v.ndim >= 1 and numel(v.shape) > 0
                   and not v.inference) if b.chance(0.8) else b.pick(lambda v: not v.inference)
    if not found:
        dtype = b.choice(["float32", "float32", "int64", "float64", "bool"])
        name, statement = make(b, b.choice([(2, 3), (3,), (2, 2, 2)]), dtype)
        return [statement]
    x, var = found
    op = b.choice(sorted(SIGNATURES))
    positional, keyword_only = SIGNATURES[op]
    required = REQUIRED.get(op, 0)
    chosen = [p for i, p in enumerate(positional) if i < required or b.chance(0.45)]
    chosen += [p for p in keyword_only if b.chance(0.4)]
    # A parameter goes by position while every earlier one did (a mistake now and then).
    arguments, by_keyword = [], False
    for parameter in chosen:
        index = positional.index(parameter) if parameter in positional else None
        can_position = index is not None and index == len(arguments) and not by_keyword
        if parameter in keyword_only and b.chance(0.15) and not by_keyword:
            can_position = True  # a mistake: a keyword-only argument by position
        value = signature_value(b, parameter, x, var)
        if b.chance(0.06):  # a value of a type the parameter does not take: torch's TypeError
            # (None given; a named tuple where a tensor or a sequence was meant; sequences
            # whose first element, or a later one, is no integer)
            # (numpy's bool, which torch's parser takes for no bool, got from a tensor: the
            # programs import no numpy)
            value = b.choice(["torch.ones(2)", "2.5", "'a'", "torch.tensor(1)", "True", "None",
                              "torch.ones(2).aminmax()", "torch.ones(2, 2).max(0)", "(2.0, 1)",
                              "(1, True)", "[True, 1]", "(1, 'a')",
                              "torch.tensor(True).numpy()[()]", "torch.tensor(2).numpy()[()]"])
        if can_position and (index is not None and index < required or b.chance(0.6)):
            arguments.append(value)
        else:
            by_keyword = True
            arguments.append(f"{keyword_name(b, parameter)}={value}")
    form = b.choice(["method", "method", "function", "input"])
    if op in METHOD_ONLY:
        form = "method"
    if op in FUNCTION_ONLY:
        form = "function"
        if b.chance(0.5):  # a number first: torch refuses
            return [f"{b.fresh_name()} = torch.rsub({b.scalar(var.dtype)}, {x})"]
    statements = []
    if form != "method" and op in OUT_OK and b.chance(0.15):
        out = b.fresh_name()
        out_dtype = var.dtype if b.chance(0.8) else b.choice(["float64", "int64", "float32"])
        statements.append(f"{out} = torch.zeros(0, dtype=torch.{out_dtype})")
        unknown(b, out, out_dtype)
        if op in ("max", "min", "sort", "topk"):
            index_out = b.fresh_name()
            statements.append(f"{index_out} = torch.zeros(0, dtype=torch.long)")
            unknown(b, index_out, "int64")
            out = f"({out}, {index_out})"
        arguments.append(f"out={out}")
    if form == "method":
        call = f"{x}.{op}({', '.join(arguments)})"
    elif form == "function":
        call = f"torch.{op}({', '.join([x] + arguments)})"
    else:
        keywords = [a for a in arguments if "=" in a.split("(")[0]]
        if len(keywords) != len(arguments):
            call = f"torch.{op}({', '.join([x] + arguments)})"
        else:
            call = f"torch.{op}({', '.join([f'input={x}'] + arguments)})"
    name = b.fresh_name()
    unknown(b, name, var.dtype)
    return statements + [f"{name} = {call}"]


# ---------------------------------------------------------------- layouts
STRIDED = ["{x}.t()", "{x}.transpose(0, 1)", "{x}[:, ::2]", "{x}[::2]", "{x}.permute(1, 0)",
           "{x}.expand(2, *{x}.shape)", "{x}.narrow(1, 1, 1)", "{x}.mT", "{x}[:, 1:]",
           "{x}.unsqueeze(1).expand(-1, 2, -1)", "{x}[1:, :-1]", "{x}.T[::2]"]
STRIDED_3D = ["{x}.permute(2, 0, 1)", "{x}.transpose(0, 2)", "{x}[:, ::2, :]",
              "{x}.permute(1, 2, 0)", "{x}.mT", "{x}[..., ::2]"]
LAYOUT_OPS = ["{x}.exp()", "{x}.neg()", "{x}.abs()", "{x}.relu()", "{x} * 2", "{x} + {x}",
              "{x} + 1", "{x} > 0", "torch.where({x} > 0, {x}, 0.0)", "{x}.clamp(min=0)",
              "{x} ** 2", "{x}.sqrt()", "{x}.sigmoid()", "{x}.clone()", "{x}.contiguous()",
              "{x}.detach()", "{x}.float()", "{x}.double()", "{x}.to(torch.int32)", "{x}.bool()",
              "{x}.half()", "torch.zeros_like({x})", "torch.ones_like({x})",
              "torch.full_like({x}, 2)", "torch.rand_like({x})", "torch.randn_like({x})",
              "torch.empty_like({x}).fill_(1)", "{x}.sort({d})", "{x}.argsort({d})", "{x}.max({d})",
              "{x}.min({d})", "{x}.topk(1, {d})", "{x}.cumsum({d})", "{x}.cumprod({d})",
              "{x}.softmax({d})", "{x}.log_softmax({d})", "{x}.sum({d})", "{x}.mean({d})",
              "{x}.std({d})", "{x}.argmax({d})", "{x}.flip({d})", "{x}.masked_fill({x} > 0, 0.0)",
              "{x}.index_select({d}, torch.tensor([0]))", "torch.cat([{x}, {x}], {d})",
              "torch.stack([{x}, {x}])", "{x} @ {x}.mT", "{x}.mT @ {x}",
              "{x}.clone(memory_format=torch.contiguous_format)",
              "{x}.clone(memory_format=torch.preserve_format)", "{x}.sign()", "{x}.round()",
              "{x} * {x}.contiguous()", "{x}.contiguous() + {x}", "{x} + torch.ones({x}.shape[-1])",
              "{x}.nan_to_num()", "{x}.lerp({x}, 0.5)", "{x}.pow(2)", "{x}.reciprocal()",
              "torch.maximum({x}, {x}.contiguous())", "{x}.add({x}, alpha=2)",
              "{x}.type(torch.float64)", "{x}.new_zeros({x}.shape)", "{x}.amax({d})",
              "{x}.logsumexp({d})", "{x}.gather({d}, torch.zeros_like({x}, dtype=torch.long))",
              "{x}.scatter({d}, torch.zeros_like({x}, dtype=torch.long), 1.0)",
              "{x}.repeat_interleave(1, {d})", "{x}.nonzero()", "{x}.unique()", "{x}.view(-1)",
              "{x}.reshape(-1)", "{x}.flatten()", "{x}.squeeze()", "{x}.unsqueeze(0)"]


def strided(b):
    """A non-contiguous tensor: transposed, sliced with a step, expanded, permuted, narrowed."""
    found = b.pick(lambda v: v.ndim in (2, 3) and all(v.shape) and not v.inference) \
        if b.chance(0.5) else None
    statements = []
    if found:
        x, var = found
    else:
        dtype = b.choice(["float32", "float32", "float64", "int64", "float16", "bool", "int32"])
        shape = b.choice([(3, 4), (2, 3), (4, 2), (2, 3, 4), (3, 2, 2)])
        grad = dtype in FLOATS and b.chance(0.3)
        x, statement = make(b, shape, dtype, grad=grad)
        statements.append(statement)
        var = b.tensors[x]
    template = b.choice(STRIDED if var.ndim == 2 else STRIDED_3D)
    if var.shape[-1] < 2 and ("narrow" in template or "1:" in template):
        template = "{x}.mT"
    name = b.fresh_name()
    statements.append(f"{name} = {template.format(x=x)}")
    b.bind(name, b.result(None, var.dtype, var, view_of=var, contiguous=False))
    b.tensors[name].shape = _strided_shape(template, var.shape)
    return statements


def _strided_shape(template, shape):
    """The shape of a STRIDED view (None when the generator does not follow it)."""
    if template in ("{x}.t()", "{x}.transpose(0, 1)", "{x}.permute(1, 0)", "{x}.mT") \
            and len(shape) == 2:
        return shape[::-1]
    if template == "{x}.mT":
        return shape[:-2] + (shape[-1], shape[-2])
    return None


def layout_op(b):
    """An op of any family on a non-contiguous tensor: the result's strides."""
    found = b.pick(lambda v: not v.contiguous and v.ndim and not v.inference)
    if not found:
        return strided(b)
    x, var = found
    op = b.choice(LAYOUT_OPS)
    name = b.fresh_name()
    unknown(b, name, var.dtype)
    prefix = b.seed_statements() if "rand" in op else []
    return prefix + [f"{name} = {fill(op, x=x, d=valid_dim(b, var))}"]


def grad_layout(b):
    """A non-contiguous leaf's gradient: torch gives it the leaf's strides."""
    dtype = b.choice(["float32", "float64"])
    shape = b.choice([(3, 2), (2, 3), (2, 2, 3)])
    base = b.fresh_name()
    x = b.fresh_name()
    view = b.choice(["{b}.t()" if len(shape) == 2 else "{b}.mT", "{b}[:, ::2]",
                     "{b}.permute(*range({b}.dim() - 1, -1, -1))",
                     "{b}.expand(2, *{b}.shape)"]).format(b=base)
    make_leaf = b.choice([f"{x} = {view}.requires_grad_()",
                          f"{x} = {view}.detach().requires_grad_()",
                          f"{x} = {view}.clone().requires_grad_()"])
    use = b.choice(["({x} * 2).sum().backward()", "{x}.exp().sum().backward()",
                    "({x} * {x}.detach()).sum().backward()", "{x}.sum().backward()",
                    "({x} @ {x}.mT).sum().backward()", "{x}.softmax(-1).sum().backward()",
                    "{x}.t().contiguous().sum().backward()" if len(shape) == 2 else
                    "{x}.contiguous().sum().backward()"]).format(x=x)
    unknown(b, base, dtype)
    unknown(b, x, dtype)
    return [f"{base} = torch.arange({numel(shape)}, dtype=torch.{dtype}).reshape{shape}", make_leaf,
            use]


VIEW_GRAD_VIEWS = {2: ["{b}.t()", "{b}[:, ::2]", "{b}[:, 1:]", "{b}.mT"],
                   3: ["{b}.permute(2, 0, 1)", "{b}.transpose(0, 1)", "{b}[:, ::2, 1:]",
                       "{b}.mT", "{b}.permute(1, 2, 0)"]}
VIEW_GRAD_OPS = [op.replace("F.", "torch.nn.functional.") for op in [
                 "F.elu({x})", "F.celu({x}, 0.5)", "F.selu({x})", "F.gelu({x})",
                 "F.gelu({x}, approximate='tanh')", "F.hardtanh({x})", "F.relu6({x} * 4)",
                 "F.hardswish({x} * 4)", "F.hardsigmoid({x} * 4)", "F.softshrink({x})",
                 "F.hardshrink({x})", "F.softplus({x})", "F.logsigmoid({x})",
                 "F.threshold({x}, 0.1, 2.0)", "F.rrelu({x})", "F.leaky_relu({x})",
                 "F.mish({x})", "F.silu({x})", "F.tanhshrink({x})", "F.softsign({x})",
                 "{x}.std({d})", "{x}.var({d}, keepdim=True)", "{x}.var({d}, correction=0)",
                 "torch.aminmax({x}, dim={d})[1]", "{x}.logsumexp({d})", "{x}.norm(2, {d})",
                 "{x}.median({d})[0]", "{x}.amax({d})", "{x}.mean({d})", "{x}.prod({d})",
                 "torch.std_mean({x}, {d})[0]", "{x}.softmax({d})",
                 "F.mse_loss({x}, {t}, reduction='{r}')",
                 "F.huber_loss({x}, {t}, reduction='{r}')",
                 "F.smooth_l1_loss({x}, {t}, reduction='{r}')",
                 "F.l1_loss({x}, {t}, reduction='{r}')",
                 "F.soft_margin_loss({x}, {t}.sign(), reduction='{r}')",
                 "F.poisson_nll_loss({x}, {t}, reduction='{r}')",
                 "F.pad({x}, (1, 1), mode='reflect')", "F.pad({x}, (2, 0), mode='replicate')",
                 "F.pad({x}, (1, 1), mode='circular')"]]


def view_grad_layout(b):
    """An activation, a reduction over a dim or a loss of a non-contiguous view of a leaf:
    the result and the gradients of the leaf and of the view (create_graph now and then),
    whose layouts follow torch's backward kernels."""
    dtype = b.choice(["float32", "float64"])
    shape = b.choice([(3, 4), (2, 3, 4), (4, 2), (2, 2, 3)])
    base, values, view, out = (b.fresh_name() for _ in range(4))
    grads = [b.fresh_name(), b.fresh_name()]
    _, statement = make(b, shape, dtype, grad=True, name=base)
    viewed = b.choice(VIEW_GRAD_VIEWS[len(shape)]).format(b=base)
    target = b.choice(["{v}.detach()", "{v}.detach().contiguous()", "{v}.detach() * 0.5"])
    op = fill(b.choice(VIEW_GRAD_OPS), x=view, d=b.rng.randrange(len(shape)),
              t=target.format(v=view), r=b.choice(["none", "sum", "mean"]))
    create_graph = b.choice([False, True])
    for name in (view, out, *grads):
        unknown(b, name, dtype)
    return [statement, f"{view} = {viewed}", f"{out} = {op}",
            f"{values} = torch.arange(1.0, {out}.numel() + 1, dtype={out}.dtype)",
            f"{grads[0]}, {grads[1]} = torch.autograd.grad(({out} * {values}.reshape("
            f"{out}.shape)).sum(), ({base}, {view}), create_graph={create_graph})"]


# ---------------------------------------------------------------- zero signs
ZERO_OPS = ["{x}.relu()", "{x}.abs()", "{x} * 0", "{x} * -0.0", "{x} * {z}", "{x}.clamp(min=0)",
            "{x}.clamp(max=0)", "{x}.clamp(-1, 1)", "torch.maximum({x}, torch.zeros_like({x}))",
            "torch.minimum({x}, -{x})", "{x}.max()", "{x}.min()", "{x}.amax()",
            "torch.where({x} > 0, {x}, 0.0)", "torch.where({x} >= 0, {x}, -{x})", "{x}.sqrt()",
            "{x} ** 2", "{x}.pow(3)", "{x} ** 0.5", "{x}.sin()", "{x}.tanh()", "{x}.sigmoid()",
            "-{x}", "{x} - {x}", "0 - {x}", "{x} / {x}", "{x} / ({x} + 1)", "{x}.exp() * {x}",
            "{x}.sign() * {x}", "{x}.square()", "{x}.neg().relu()", "{x}.softmax(-1)",
            "{x}.log_softmax(-1)", "{x} * {x}.detach()", "{x}.prod()", "{x}.norm()", "{x}.mean()",
            "{x}.cumsum(-1)", "{x}.cumprod(-1)", "{x}.round()", "{x}.floor()", "{x}.trunc()",
            "{x}.ceil()", "{x} * {x}", "{x}.sum()", "{x}.sum() * 0", "{x}.abs().sum()",
            "torch.nn.functional.mse_loss({x}, torch.zeros_like({x}), reduction='none')",
            "torch.nn.functional.mse_loss({x}, {z})", "torch.nn.functional.l1_loss({x}, {z})",
            "torch.nn.functional.l1_loss({x}, torch.zeros_like({x}), reduction='none')",
            "torch.nn.functional.leaky_relu({x})", "torch.nn.functional.elu({x})",
            "torch.nn.functional.silu({x})", "torch.nn.functional.softplus({x})",
            "torch.nn.functional.gelu({x})", "{x}.atan2({z})", "{x}.lerp({z}, 0.5)",
            "{x}.addcmul({z}, {z})", "{x}.addcdiv({x}, {z} + 2)", "{x}.expm1()", "{x}.log1p()",
            "{x}.sinh()", "{x}.asin()", "{x}.atan()", "{x}.tan()", "{x}.frac()", "{x}.fmod(1.5)",
            "{x}.remainder(1.5)", "{x}.dot({z})", "{x}.outer({z}).sum()", "{x}.max(0)[0]",
            "{x}.sort()[0]", "{x}.topk(1)[0]", "{x}.std()", "{x}.var()", "{x}.nan_to_num()",
            "{x}.logsumexp(-1)", "{x}.clamp_min(0)", "{x}.clamp_max(-0.0)", "{x}.flip(0) * {x}",
            "{x}.masked_fill({x} == 0, 0.0)", "{x}.mul(-1)", "{x}.div(-2)", "{x}.sub(0.0)",
            "{x}.add(-0.0)"]
ZERO_BACKWARD = ["{y}.sum().backward()", "{y}.backward(torch.full_like({y}, -0.0))",
                 "{y}.backward(-torch.ones_like({y}))", "{y}.mean().backward()",
                 "(-{y}).sum().backward()", "({y} * 0).sum().backward()",
                 "{y}.backward(torch.zeros_like({y}))",
                 "{g}, = torch.autograd.grad({y}.sum(), {x})",
                 "{g}, = torch.autograd.grad({y}, {x}, torch.full_like({y}, -0.0))",
                 "({y} - {y}).sum().backward()"]
LOSSES = [
    # (statements, the backward), with {n}: a fresh name
    ["torch.manual_seed({s})",
     "{n} = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))",
     "{n}_out = {n}(torch.randn(5, 3))",
     "{n}_loss = torch.nn.MSELoss(reduction={r})({n}_out, torch.randn(5, 2))",
     "{n}_loss.backward(torch.ones_like({n}_loss))", "print({n}[0].weight.grad)"],
    ["{n}_logits = torch.tensor([[0.0, -0.0, 1.5], [2.0, 0.5, -1.0], [0.0, 0.0, 0.0]], "
     "requires_grad=True)",
     "{n}_loss = torch.nn.CrossEntropyLoss(ignore_index={i}, reduction={r})({n}_logits, "
     "torch.tensor([0, 2, 1]))",
     "{n}_loss.backward(torch.ones_like({n}_loss))"],
    ["{n}_logits = torch.tensor([[0.0, -0.0, 1.5], [2.0, 0.5, -1.0]], requires_grad=True)",
     "{n}_loss = torch.nn.CrossEntropyLoss(label_smoothing={l})({n}_logits, torch.tensor([[0.25, "
     "0.75, 0.0], [1.0, 0.0, 0.0]]))", "{n}_loss.backward()"],
    ["{n}_logp = torch.tensor([[0.0, -0.0], [-1.5, 0.5]], requires_grad=True)",
     "{n}_loss = torch.nn.NLLLoss(ignore_index={i}, reduction={r})({n}_logp, torch.tensor([1, 0]))",
     "{n}_loss.backward(torch.ones_like({n}_loss))"],
    ["{n}_p = torch.tensor([0.5, 0.0, 1.0, 0.25], requires_grad=True)",
     "{n}_loss = torch.nn.BCELoss(reduction={r})({n}_p, torch.tensor([1.0, 0.0, 1.0, 0.0]))",
     "{n}_loss.backward(torch.ones_like({n}_loss))"],
    ["{n}_z = torch.tensor([0.0, -0.0, 2.0, -3.0], requires_grad=True)",
     "{n}_loss = torch.nn.BCEWithLogitsLoss(reduction={r})({n}_z, "
     "torch.tensor([1.0, 0.0, 0.0, 1.0]))",
     "{n}_loss.backward(torch.ones_like({n}_loss))"],
    ["{n}_a = torch.tensor([0.0, -0.0, 1.0, 2.5], requires_grad=True)",
     "{n}_loss = torch.nn.{loss}(reduction={r})({n}_a, torch.tensor([0.0, 0.0, 1.0, 2.0]))",
     "{n}_loss.backward(torch.ones_like({n}_loss))"],
]


def zero_grad(b):
    """Zeros and negative zeros through an op and its backward formula: signbit compared."""
    dtype = b.choice(["float32", "float32", "float64", "float16"])
    shape = b.choice([(4,), (2, 2), (3,), ()])
    statements = []
    x, statement = make(b, shape, dtype, ZERO_POOL, grad=True)
    statements.append(statement)
    z, statement = make(b, shape, dtype, ZERO_POOL)
    statements.append(statement)
    y, g = b.fresh_name(), b.fresh_name()
    statements.append(f"{y} = {fill(b.choice(ZERO_OPS), x=x, z=z)}")
    statements.append(fill(b.choice(ZERO_BACKWARD), x=x, y=y, g=g))
    unknown(b, y, dtype)
    unknown(b, g, dtype)
    b.tensors[x].has_grad = True
    return statements


def zero_values(b):
    """Forward ops on zeros and negative zeros: values' signbit compared."""
    dtype = b.choice(["float32", "float64", "float16"])
    x, statement = make(b, b.choice([(4,), (2, 3), (2,)]), dtype,
                        ZERO_POOL + ["-0.4", "0.4", "-0.5"])
    z, other = make(b, b.tensors[x].shape, dtype, ZERO_POOL)
    y = b.fresh_name()
    unknown(b, y, dtype)
    return [statement, other, f"{y} = {fill(b.choice(ZERO_OPS), x=x, z=z)}"]


def loss_zero(b):
    """Losses with ignored targets, reductions, probability targets: gradients' zero signs."""
    n = b.fresh_name()
    b.reserved.update({f"{n}_out", f"{n}_loss", f"{n}_logits", f"{n}_logp", f"{n}_p", f"{n}_z",
                       f"{n}_a"})
    return [fill(s, n=n, s=b.choice([0, 1, 7]), r=b.choice(["'none'", "'mean'", "'sum'"]),
                 i=b.choice([0, 1, 2, -100]), l=b.choice(["0.0", "0.1"]),
                 loss=b.choice(["MSELoss", "L1Loss"]))
            for s in b.choice(LOSSES)]


# ---------------------------------------------------------------- versions
VERSION_OPS = ["{a} @ {m}", "{m} @ {a}", "torch.matmul({a}, {m})", "torch.mv({m}.t(), {a})",
               "torch.dot({a}, {a})", "torch.outer({a}, {a})", "{m} @ {m}.t()",
               "torch.mm({m}, {m}.t())", "torch.isclose({a}, {a})",
               "torch.isclose({m}, {m} + 1e-9)", "{a}.sort()", "{a}.topk(1)", "{m}.max(0)",
               "{a}.unique()", "{a}.nonzero()", "{a}.std()", "{m}.var(0)", "{a}.norm()",
               "{a}.softmax(0)", "{a}.cumsum(0)", "torch.where({a} > 0, {a}, 0.0)",
               "{a}.masked_fill({a} > 0, 1)", "{a}.clamp(0, 1)", "{a}.clone()",
               "{m}.t().contiguous()", "{a}.to(torch.float64)", "{a}.flip(0)", "{a}.repeat(2)",
               "torch.cat([{a}, {a}])", "torch.stack([{a}, {a}])", "{m}.unbind()", "{a}.argsort()",
               "{a} > 0", "{m}.sum(0)", "{m}.mean(0)", "{m}.prod(0)", "{m}.logsumexp(0)",
               "{m}.amax(0)", "{m}.argmax(0)", "torch.zeros_like({a})", "torch.full_like({a}, 2)",
               "torch.linspace(0, 1, 3)", "torch.arange(3)", "torch.eye(3)", "torch.randperm(4)",
               "{a}.new_zeros(2)", "torch.nn.functional.relu({a})",
               "torch.nn.functional.linear({m}, {m})", "torch.addmm({m}, {m}, {m})",
               "torch.bmm({m}.unsqueeze(0), {m}.unsqueeze(0))", "{a}.allclose({a})",
               "{m}.flatten()", "torch.nn.functional.softmax({m}, 1)", "{a}.lerp({a}, 0.5)",
               "{a}.addcmul({a}, {a})", "{m}.inner({m})", "torch.ger({a}, {a})", "{a}.sum()",
               "{a}.split(1)", "{m}.chunk(2)", "{a}.index_select(0, torch.tensor([0, 1]))",
               "{a}.gather(0, torch.tensor([1, 0]))", "{a}.take_along_dim(torch.tensor([1]))",
               "{a}.count_nonzero()", "{a}.round()", "{a}.nan_to_num()", "{a}.sgn()",
               "torch.nn.Linear(3, 2)({a})", "torch.nn.functional.layer_norm({a}, (3,))",
               "torch.nn.functional.dropout({a}, 0.0)", "torch.broadcast_tensors({a}, {m})[0]",
               "{a}.expand(2, 3)", "{m}.repeat_interleave(2, 0)", "torch.linalg.norm({m})"]
VERSION_INPLACE = [
    ["{v} = {m}[0]", "{v}.add_(1)"], ["{v} = {m}.detach()", "{v}.mul_(2)"],
    ["{m}.data.add_(1)"], ["{v} = {m}.t()", "{v}[0, 0] = 5"], ["{v} = {m}.view(-1)", "{v}.zero_()"],
    ["{v} = {m}.unbind(0)[1]", "{v}.fill_(3)"], ["torch.add({a}, 1, out={a})"],
    ["{v} = torch.zeros(3)", "torch.add({a}, 1, out={v})", "torch.mul({a}, 2, out={v})"],
    ["{v} = torch.zeros(0)", "torch.sum({m}, 0, out={v})"],
    ["{v} = {a}.clone()", "{v}.copy_({a})", "{v}.copy_({a})"],
    ["{m}.requires_grad_()", "{v} = ({m} * 2).sum()", "{v}.backward()", "{m}.grad.add_(1)"],
    ["{v} = {a}.expand(2, 3)", "{a}.add_(1)"], ["{a}[{a} > 0] = 0"], ["{a}.clamp_(0, 1)"],
    ["{v} = {m}.split(1)", "{v}[0].add_(1)"], ["{v} = {a}.detach()", "{v}.requires_grad_()"],
    ["{v} = {m}[:, 0]", "{m}.t_()"], ["{v} = {a}.unsqueeze(0)", "{v}.squeeze_()"],
    ["with torch.no_grad():\n    {a}.mul_(2)"],
    ["{v} = torch.nn.functional.relu({a}, inplace=True)"],
    ["{v} = torch.nn.Parameter({m})", "{v}.data.mul_(2)"],
]


# what each op keeps for backward, found by changing it in place before backward: torch's
# version check names the tensor and the node that made it (fuzz 2931834: sgn kept nothing)
KEEPING_OPS = [
    "{h}.{u}()", "torch.{u}({h})", "{h} * {c}", "{h} / {c}", "{h} ** {c}", "{c} ** {h}",
    "torch.atan2({h}, {c})", "torch.hypot({h}, {c})", "{h}.aminmax()", "{h}.aminmax(dim=0)",
    "torch.frexp({h})", "{h}.sort(0)", "{h}.max(0)", "{h}.min(0)", "{h}.cummax(0)",
    "{h}.median(0)", "{h}.kthvalue(1, 0)", "{h}.topk(2, 0)", "torch.std_mean({h}, 0)",
    "torch.var_mean({h})", "{h}.norm()", "{h}.logsumexp(0)", "{h}.softmax(0)",
    "{h}.log_softmax(0)", "{h}.prod(0)", "{h}.cumprod(0)", "torch.linalg.svd({h}, "
    "full_matrices=False)", "torch.linalg.slogdet({h})", "{h}.clamp(-1, 1)",
    "torch.where({h} > 0, {h}, {c})", "{h}.abs().sum()", "torch.nn.functional.gelu({h})",
    "torch.nn.functional.elu({h})", "torch.nn.functional.silu({h})", "{h}.lerp({c}, 0.25)",
    "torch.maximum({h}, {c})", "torch.cdist({h}, {c})", "{h} @ {c}",
    "torch.nn.functional.layer_norm({h}, (3,))", "torch.nn.functional.normalize({h})"]
KEPT_UNARY = ["sgn", "sign", "exp", "sqrt", "rsqrt", "reciprocal", "tanh", "sigmoid", "sin",
              "log", "abs", "round", "floor", "relu", "square", "exp2", "expm1", "log1p",
              "atan", "erf", "digamma", "angle", "frac", "neg", "trunc", "sinc", "logit"]
KEPT_CHANGES = ["{t}.mul_(2)", "{t}.add_(1)", "{t}[0] = 0.5", "{t}.zero_()", "{t}.sin_()",
                "{t}.gt_(0.5)", "{t}.ne_({t}.detach().flip(0))"]


def saved_changed(b):
    """An op on a graph tensor, then one of its inputs or results changed in place (with or
    without grad), then backward: torch's version check, or the gradient (create_graph too)."""
    dtype = b.choice(["float32", "float64"])
    pool = ["0.5", "1.5", "-0.75", "2.0", "-1.25", "0.25", "3.0", "-2.0"]
    x, first = make(b, (3, 3), dtype, pool, grad=True)
    c, second = make(b, (3, 3), dtype, pool, grad=b.chance(0.3))
    h, y, z = (b.fresh_name() for _ in range(3))
    op = b.choice(KEEPING_OPS).format(h=h, c=c, u=b.choice(KEPT_UNARY))
    statements = [first, second, f"{h} = {x} * 1", f"{y} = {op}"]
    result = f"({y} if not isinstance({y}, tuple) else {y}[{b.choice([0, 1, -1])}])"
    target = b.choice([h, h, c, x, result])
    change = b.choice(KEPT_CHANGES).format(t=target)
    statements.append(f"with torch.no_grad():\n    {change}" if target == x or b.chance(0.5)
                      else change)
    total = f"sum(t.float().sum() for t in ({y} if isinstance({y}, tuple) else ({y},)) " \
            f"if t.requires_grad)"
    statements.append(b.choice([f"{z} = {total}.backward()",
                                f"{z} = torch.autograd.grad({total}, {x}, create_graph=True)"]))
    for name in (h, y, z):
        unknown(b, name, dtype)
    return statements


def version_op(b):
    """A fresh result of an op: its version counter (torch's counts steps done in place)."""
    a, sa = make(b, (3,), b.choice(["float32", "float32", "float64"]), FLOAT_POOL)
    m, sm = make(b, (3, 3), b.tensors[a].dtype, FLOAT_POOL)
    name = b.fresh_name()
    unknown(b, name, b.tensors[a].dtype)
    prefix = b.seed_statements() if "rand" in "".join(VERSION_OPS) and b.chance(0.1) else []
    return prefix + [sa, sm, f"{name} = {fill(b.choice(VERSION_OPS), a=a, m=m)}"]


def version_inplace(b):
    """In-place writes through views, detach(), .data, out=: whose counter moves."""
    a, sa = make(b, (3,), "float32", FLOAT_POOL)
    m, sm = make(b, (3, 3), "float32", FLOAT_POOL)
    v = b.fresh_name()
    steps = [fill(s, a=a, m=m, v=v) for s in b.choice(VERSION_INPLACE)]
    unknown(b, v)
    return [sa, sm] + steps + [f"print({a}._version, {m}._version)"]


# ---------------------------------------------------------------- warnings
WARNS = ["{x}.var()", "{x}.std(0)", "torch.ones(0).var()", "torch.ones(2, 0).std(1)",
         "torch.ones(3).var(correction=3)", "torch.ones(1).std()", "{x}.log()", "{x}.sqrt()",
         "{x} / 0", "0 / torch.zeros(2)", "{x}.exp() * 1e38", "torch.tensor([1e38]) * 1e38",
         "torch.tensor([300.0, -5.0]).to(torch.int8)", "torch.tensor([float('nan')]).long()",
         "torch.tensor([float('inf')]).int()", "torch.ones(0).mean()", "torch.ones(0, 2).mean(0)",
         "torch.ones(0, 2).sum(0)", "torch.ones(2, dtype=torch.int32)[:0].softmax(0)",
         "torch.nn.functional.softmax({x})", "torch.nn.functional.log_softmax({x})",
         "torch.tensor({x})", "torch.ones(2, 2, 2).T",
         "torch.nn.functional.mse_loss(torch.ones(2, 1), torch.ones(2))",
         "torch.nn.MSELoss()(torch.ones(3), torch.ones(3, 1))", "{x}.half() * 1e5",
         "torch.tensor([6e4], dtype=torch.float16) * 2",
         "torch.tensor([65504.0, 65504.0], dtype=torch.float16).sum()",
         "torch.tensor([1e5]).half()", "torch.tensor([1e39], dtype=torch.float64).float()",
         "torch.tensor([1.0, -1.0]) ** 0.5", "torch.tensor([0.0]).log()",
         "torch.tensor([-2.0]).acos()", "torch.tensor([0.0]) ** -1", "torch.tensor([2.0]).pow(1e5)",
         "torch.tensor([0.0]).reciprocal()", "torch.tensor([0, 1]).reciprocal()",
         "torch.tensor([1.0, 0.0]).rsqrt()", "torch.tensor([[1.0, 2.0]]).std(0)",
         "torch.tensor([-1000.0, 1000.0]).sigmoid()", "torch.tensor([1000.0]).exp()",
         "torch.tensor([-1000.0, 1000.0]).softmax(0)", "torch.tensor([89.0, -1000.0]).cosh()",
         "torch.tensor([1e30]).square()", "torch.tensor([1e20]) * torch.tensor([1e20])",
         "torch.tensor([1e-45]) / 1e10", "torch.tensor([float('inf')]) - float('inf')",
         "torch.tensor([float('inf')]) * 0", "torch.tensor([0.0]) / torch.tensor([0.0])",
         "torch.tensor([2, 3]) ** -1", "torch.tensor([-8.0]) ** (1 / 3)",
         "torch.tensor([1.0, 2.0]).log2() / 0", "torch.ones(0).max()", "torch.ones(0).amax()",
         "torch.ones(0).prod()", "torch.ones(0).norm()", "torch.ones(0).std()",
         "torch.ones(0, 3).var(0)", "torch.ones(1, 3).var(0, keepdim=True)",
         "torch.tensor([1, 2], dtype=torch.int8) * 100",
         "torch.tensor([200], dtype=torch.uint8) + 100",
         "torch.tensor([1.5, -0.0]).atan2(torch.tensor([0.0, 0.0]))",
         "torch.tensor([1e-40]) * 1e-10", "torch.tensor([0.0]).log1p()",
         "torch.tensor([-1.0]).log1p()", "torch.tensor([709.8], dtype=torch.float64).exp()",
         "torch.tensor([1.0]).lgamma() * 0", "torch.tensor([0.0, -1.0]).lgamma()",
         "torch.tensor([0.0, -1.0]).digamma()", "torch.tensor([3.0, -4.0]).remainder(0.0)",
         "torch.tensor([3.0]).fmod(0.0)",
         "torch.tensor([3, 4]).float().div(0, rounding_mode='floor')",
         "torch.tensor([3.0, -0.0]) // 0.0", "torch.tensor([1e308], dtype=torch.float64) * 10",
         "torch.tensor([60000.0], dtype=torch.float16).square()", "torch.tensor([1e20]).norm()",
         "torch.tensor([3e38, 3e38]).mean()", "torch.tensor([3e38, 3e38]).sum()",
         "torch.tensor([3e38, -3e38]).std()", "torch.tensor([65504.0], dtype=torch.float16).exp()"]
WARNS_GRAD = ["{y}.grad", "{x}.grad", "{y}.retain_grad()",
              "torch.autograd.grad({y}.sum(), {x}, allow_unused=True)",
              "{x}.sqrt().sum().backward()", "{x}.log().sum().backward()",
              "({x} / {x}).sum().backward()", "{x}.norm().backward()", "{x}[:1].std().backward()",
              "{x}.pow(0.5).sum().backward()", "{x}.reciprocal().sum().backward()",
              "({x} * 1e38).sum().backward()", "{x}.acos().sum().backward()",
              "{x}.atan2({x}).sum().backward()"]


def warn(b):
    """What warns in torch (degrees of freedom, implicit dims, copy construction, x.T), and
    what would make numpy warn inside the engine (overflow, 0/0, log of negatives)."""
    name = b.fresh_name()
    if b.chance(0.35):
        x, statement = make(b, b.choice([(2,), (3,), (1,)]), "float32",
                            ["0.0", "-1.0", "2.0", "1e38", "0.5"], grad=True)
        y = b.fresh_name()
        unknown(b, y)
        unknown(b, name)
        return [statement, f"{y} = {x} * 2",
                f"{name} = {fill(b.choice(WARNS_GRAD), x=x, y=y)}"]
    found = b.pick(lambda v: v.is_float and not v.inference)
    x = found[0] if found else "torch.tensor([1.0])"
    unknown(b, name)
    return [f"{name} = {fill(b.choice(WARNS), x=x)}"]


# ---------------------------------------------------------------- two faults at once
# (call, operand shapes that fit, shapes that do not): the operands get random dtypes.
TWO_FAULTS = [
    ("torch.mm({a}, {b})", ((2, 3), (3, 2)), ((2, 3), (2, 3))),
    ("torch.addmm({c}, {a}, {b})", ((2, 3), (3, 2), (2, 2)), ((2, 3), (2, 3), (2, 2))),
    ("torch.matmul({a}, {b})", ((2, 3), (3,)), ((2, 3), (2,))),
    ("{a} @ {b}", ((3,), (3, 2)), ((3,), (2, 2))),
    ("torch.bmm({a}, {b})", ((1, 2, 3), (1, 3, 2)), ((1, 2, 3), (2, 3))),
    ("torch.mv({a}, {b})", ((2, 3), (3,)), ((), (3,))),
    ("torch.dot({a}, {b})", ((3,), (3,)), ((3,), (2,))),
    ("{a} ^ {b}", ((3,), (3,)), ((3,), (2,))), ("{a} & {b}", ((2, 3), (3,)), ((2, 3), (2,))),
    ("{a} | {b}", ((3,), ()), ((3,), (4,))), ("{a} % {b}", ((3,), (3,)), ((3,), (2,))),
    ("{a} // {b}", ((3,), (3,)), ((3,), (2,))), ("{a} - {b}", ((3,), (3,)), ((3,), (2,))),
    ("torch.cat([{a}, {b}])", ((2, 3), (1, 3)), ((2, 3), (2, 4))),
    ("torch.stack([{a}, {b}])", ((3,), (3,)), ((3,), (2,))),
    ("torch.where({a} > 0, {a}, {b})", ((3,), (3,)), ((3,), (2,))),
    ("torch.maximum({a}, {b})", ((3,), (3,)), ((3,), (2,))),
    ("{a}.add_({b})", ((2, 3), (3,)), ((3,), (2, 3))),
    ("{a}.copy_({b})", ((2, 3), (3,)), ((3,), (2,))),
    ("{a}.masked_fill_({b}, 1)", ((3,), (3,)), ((3,), (2,))),
    ("torch.isclose({a}, {b})", ((3,), (3,)), ((3,), (2,))),
    ("torch.atan2({a}, {b})", ((3,), (3,)), ((3,), (2,))),
    ("torch.lerp({a}, {b}, 0.5)", ((3,), (3,)), ((3,), (2,))),
    ("{a}.topk({k})", ((3,), ()), ((), ())), ("{a}.topk(2, dim=1)", ((3,), ()), ((), ())),
    ("{a}.neg_()", ((3,), ()), ((1,), ())), ("{a}.expand(3).neg_()", ((1,), ()), ((2,), ())),
    ("{a}.expand(2, 3).sqrt_()", ((3,), ()), ((2,), ())),
    ("{a}.expand(2, 3).logical_not_()", ((3,), ()), ((2,), ())),
    ("{a}.softmax({k})", ((3,), ()), ((2, 2), ())), ("{a}.mean({k})", ((3,), ()), ((), ())),
    ("{a}.sum({k}, dtype=torch.{d})", ((3,), ()), ((), ())),
    ("{a}.index_select({k}, {b})", ((3,), (2,)), ((3,), (2, 2))),
    ("{a}.gather(0, {b})", ((3,), (2,)), ((3,), (2, 2))),
    ("{a}.masked_fill({b}, 0)", ((3,), (3,)), ((3,), (2,))),
    ("{a}.view(-1, 7)", ((2, 3), ()), ((3, 2), ())),
    ("{a}.t().view(6)", ((2, 3), ()), ((2, 3), ())),
    ("{a}.cumsum({k}, dtype=torch.{d})", ((3,), ()), ((), ())),
    ("{a}.sort({k}, stable=True)", ((3,), ()), ((2,), ())),
    ("{a}.div_({b})", ((3,), (3,)), ((3,), (2,))), ("{a}.pow_({b})", ((3,), (3,)), ((3,), (2,))),
    ("{a}.clamp({b}, 0)", ((3,), (3,)), ((3,), (2,))),
    ("torch.outer({a}, {b})", ((3,), (2,)), ((3, 1), (2,))),
    ("{a}.item()", ((1,), ()), ((2,), ())), ("{a}.backward()", ((), ()), ((2,), ())),
    ("{a}.unflatten(0, (2, {k}))", ((4,), ()), ((3,), ())),
    ("{a}.repeat({k})", ((3,), ()), ((2, 2), ())),
]


def two_faults(b):
    """A call with two faults at once (or one): which check comes first is torch's order."""
    call, fit, unfit = b.choice(TWO_FAULTS)
    shapes = unfit if b.chance(0.6) else fit
    dtypes = [b.choice(ALL_DTYPES) for _ in shapes]
    if b.chance(0.3):
        dtypes = [dtypes[0]] * len(dtypes)
    names, statements = {}, []
    for label, shape, dtype in zip("abc", shapes, dtypes):
        if not shape and label != "a" and "{" + label + "}" not in call:
            continue
        pool = ["True", "False"] if dtype == "bool" else ["1", "2", "0", "3"] \
            if dtype in INTS else FLOAT_POOL
        grad = dtype in FLOATS and b.chance(0.15)
        names[label], statement = make(b, shape, dtype, pool, grad=grad)
        statements.append(statement)
    name = b.fresh_name()
    unknown(b, name)
    text = fill(call, k=b.choice(["1", "2", "4", "-2", "0"]), d=b.choice(ALL_DTYPES),
                **{label: names.get(label, "torch.tensor(1.0)") for label in "abc"})
    return statements + [f"{name} = {text}"]


# ---------------------------------------------------------------- transforms
# functions of one tensor ``a`` (any shape, float): the body of a lambda, as a learner writes
TRANSFORM_BODIES = [
    "{a}.sin() * {a}", "{a}.exp() - {a}", "{a}.tanh() * 2", "{a}.sigmoid() * {a}", "{a} ** 3",
    "torch.relu({a}) * {a}", "{a}.abs() + {a}", "{a}.clamp(-0.5, 1.0) * {a}",
    "{a} / ({a} * {a} + 1)",
    "{a}.softmax(-1)", "{a}.log_softmax(-1)", "torch.nn.functional.gelu({a})",
    "{a}.cos() * {a}.sum()", "{a} * {a}.mean()", "{a}.cumsum(0) * {a}", "{a}.flip(0) * {a}",
    "torch.where({a} > 0, {a} ** 2, -{a})", "torch.maximum({a}, {a}.sin())",
    "torch.cat([{a}, {a} * 2]) ** 2", "torch.stack([{a}, {a}.exp()])", "{a}.t() * {a}.t()",
    "{a}.reshape(-1).exp()", "{a}.unsqueeze(0).expand(2, *{a}.shape) * 3",
    "{a}.norm() * {a}", "{a}.amax(-1) * {a}.sum()", "{a}.logsumexp(-1)", "{a}.var() * {a}",
    "({a} * {a}).sum(-1, keepdim=True) * {a}", "torch.nn.functional.mse_loss({a}.sin(), {a})",
]
TRANSFORM_MATRIX_BODIES = [  # for a 2-d ``a``
    "{a} @ {a}.t()", "({a}.t() @ {a}).tanh()", "{a}[0] * {a}[-1]", "{a}[:, 1:] * 2",
    "{a}.max(-1).values * {a}.sum()", "torch.nn.functional.linear({a}, {a}.exp())",
    "torch.nn.functional.cross_entropy({a}, torch.tensor([1, 0]))",
    "{a}.mv({a}[0].sin())", "{a}.index_select(1, torch.tensor([2, 0])) ** 2",
]
TRANSFORM_CALLS = [
    "{r} = torch.func.grad(lambda a: ({body}).sum())({x})",
    "{r} = torch.func.jacrev(lambda a: {body})({x})",
    "{r} = torch.func.jacfwd(lambda a: {body})({x})",
    "{r} = torch.func.jvp(lambda a: {body}, ({x},), ({v},))",
    "{r} = torch.func.hessian(lambda a: ({body}).sum())({x})",
    "{r} = torch.func.vmap(torch.func.grad(lambda a: ({body}).sum()))("
    "torch.stack([{x}, -{x} / 2]))",
    "{r} = torch.func.jacfwd(lambda a: {body})({x}) - torch.func.jacrev(lambda a: {body})({x})",
]
DUAL_CALL = ["with torch.autograd.forward_ad.dual_level():",
             "    {d} = torch.autograd.forward_ad.make_dual({x}, {v})",
             "    {r} = torch.autograd.forward_ad.unpack_dual({body})",
             "    {r} = ({r}.primal, {r}.tangent, repr({r}.tangent is None))"]


def transform(b):
    """One of torch.func's transforms (or a dual tensor) of a random function of one tensor."""
    dtype = b.choice(["float32", "float64", "float32"])
    shape = b.choice([(3,), (2, 3), (2,), (2, 3)])
    pool = ["0.5", "1.5", "-0.75", "2.0", "-1.25", "0.25", "1.0", "-2.0"]
    more, x, var = existing_or_new(b, lambda v: v.is_float and not v.requires_grad
                                   and v.shape in ((3,), (2, 3), (2,)), shape, dtype, pool)
    bodies = TRANSFORM_BODIES + (TRANSFORM_MATRIX_BODIES if var.shape == (2, 3) else [])
    v, r = b.fresh_name(), b.fresh_name()
    values = nested(b, var.shape, pool)
    statements = more + [f"{v} = torch.tensor({values}, dtype=torch.{var.dtype})"]
    body = b.choice(bodies)
    if b.chance(0.2):
        d = b.fresh_name()
        statements.append("\n".join(line.format(d=d, x=x, v=v, r=r, body=body.format(a=d))
                                    for line in DUAL_CALL))  # (one statement: the with block)
    else:
        statements.append(b.choice(TRANSFORM_CALLS).format(r=r, x=x, v=v, body=body.format(a="a")))
    unknown(b, v, var.dtype)
    unknown(b, r, var.dtype)
    return statements


# ---------------------------------------------------------------- hooks (issue 26)
HOOK_OPS = ["{a}.sin()", "{a} * {a}", "{a}.exp()", "({a} * 2).tanh()", "{a}.relu()",
            "{a}.sigmoid()", "{a} / ({a} * {a} + 1)", "{a}.pow(2)", "{a}.log_softmax(-1)",
            "torch.cat([{a}, {a}.cos()])", "{a}.sum() * {a}", "{a}.abs().sqrt()",
            "torch.stack([{a}, {a} * 3]).sum(0)", "{a}.cumsum(0)", "{a}.flip(0) * {a}",
            "torch.where({a} > 0, {a}, {a} * 0.5)", "{a}.clamp(-1, 1) * {a}"]
TENSOR_HOOKS = ["lambda g: {o}.append({k})", "lambda g: g * 2",
                "lambda g: ({o}.append({k}), g + 1)[1]", "lambda g: g.neg()"]
PACKS = [("lambda t: ({o}.append(90), t * 2)[1]", "lambda t: ({o}.append(91), t / 2)[1]"),
         ("lambda t: ({o}.append(90), t.clone())[1]", "lambda t: ({o}.append(91), t)[1]"),
         ("lambda t: ({o}.append(90), (t, 4.0))[1]", "lambda p: ({o}.append(91), p[0])[1]")]


def hooks(b):
    """A leaf, two or three ops with hooks of every kind on their results and nodes (tensor
    hooks that watch or change the gradient, retain_grad, a node's pre- and post-hooks, a
    post-accumulate hook on the leaf, saved_tensors_hooks that transform and restore), then
    backward: the firing order (a list of numbers), the gradients, retained ones."""
    dtype = b.choice(["float32", "float64", "float32"])
    pool = ["0.5", "1.5", "-0.75", "2.0", "-1.25", "0.25", "1.0", "-2.0"]
    x, statement = make(b, (3,), dtype, pool, grad=True)
    order = b.fresh_name()
    statements = [statement, f"{order} = []"]
    if b.chance(0.5):
        statements.append(f"{x}.register_post_accumulate_grad_hook(lambda p: {order}.append(1))")
    current = x
    for step in range(b.choice([1, 2, 3])):
        h = b.fresh_name()
        line = f"{h} = " + b.choice(HOOK_OPS).format(a=current)
        if b.chance(0.4):
            pack, unpack = b.choice(PACKS)
            line = (f"with torch.autograd.graph.saved_tensors_hooks({pack}, {unpack}):\n"
                    f"    {line}").format(o=order)
        statements.append(line)
        unknown(b, h, dtype)
        for _ in range(b.choice([1, 2, 3])):
            k = 10 * (step + 1) + b.rng.randrange(10)
            kind = b.choice(["tensor", "tensor", "retain", "pre", "post"])
            if kind == "tensor":
                statements.append(f"{h}.register_hook({b.choice(TENSOR_HOOKS)})".format(
                    o=order, k=k))
            elif kind == "retain":
                statements.append(f"{h}.retain_grad()")
            elif kind == "pre":
                statements.append(f"{h}.grad_fn.register_prehook(lambda go: {order}.append({k}))")
            else:
                statements.append(f"{h}.grad_fn.register_hook(lambda gi, go: {order}.append({k}))")
        current = h
    statements.append(f"{current}.sum().backward()" if b.chance(0.7) else
                      f"{current}.backward(torch.ones_like({current}) * 0.5)")
    if b.chance(0.3):  # retained gradients, read after backward
        statements.append(f"{order}.append(len({order}))")
    return statements


# ---------------------------------------------------------------- nested forward levels (26)
FW = "torch.autograd.forward_ad"
# two forward levels at once: a jvp inside a jvp (functorch's levels), the dual API used at the
# inner one (make_dual/unpack_dual, with or without ``level=``), and what torch refuses (a
# second dual_level, a jvp inside dual_level, a dual_level inside a jvp, exits out of order).
# {f}: a function of b (and of the outer a), {x} the primal, {t}/{s} tangents, {r} the result
NESTED_FORWARD = [
    "{r} = torch.func.jvp(lambda a_: torch.func.jvp(lambda b_: {f}, (a_,), ({t},)), ({x},), "
    "({s},))",
    "{r} = torch.func.jvp(lambda a_: torch.func.jvp(lambda b_: {f}, (a_,), ({t},))[1], ({x},), "
    "({s},))",
    "{r} = torch.func.jvp(lambda a_: torch.func.jvp(lambda b_: {f}, ({x},), ({t},))[{k}], ({x},), "
    "({s},))",
    "{r} = torch.func.jvp(lambda a_: torch.func.jvp(lambda b_: {f}, (a_,), (a_.cos(),))[1], "
    "({x},), ({s},))",
    # (the inner tangent is used, not kept: torch's would be a wrapper of a finished level,
    # whose storage cannot be read, a crash of torch's own when printed or compared)
    "{r} = []\ndef {g}(b_):\n    u_ = {FW}.unpack_dual(b_{lv}).tangent\n"
    "    {r}.append(u_ is None)\n    return {f} if u_ is None else {f} + u_ * 0.5\n"
    "{r}.append(torch.func.jvp(lambda a_: torch.func.jvp({g}, (a_,), ({s},))[1], ({x},), "
    "({t},)))",
    "def {g}(b_):\n    return {FW}.unpack_dual({FW}.make_dual({x}, {s}{lv}) * b_)[{k}]\n"
    "{r} = torch.func.jvp(lambda a_: torch.func.jvp(lambda b_: {g}(b_) * a__, (a_,), ({t},))[1], "
    "({x},), ({s},))",
    "{r} = torch.func.jvp(lambda a_: {FW}.make_dual(a_, {s}{lv}), ({x},), ({t},))",
    "{r} = torch.func.jvp(lambda a_: {FW}.unpack_dual({FW}.make_dual({x}, {s}{lv}) * a_)[{k}], "
    "({x},), ({t},))",
    "with {FW}.dual_level():\n    {d} = {FW}.make_dual({x}, {t}{lv})\n"
    "    {r} = [{FW}.unpack_dual({d}, level=0), {FW}.unpack_dual({d}, level=1)]",
    "with {FW}.dual_level():\n    {d} = {FW}.make_dual({x}, {t})\n"
    "    with {FW}.dual_level():\n        {r} = {FW}.make_dual({d}, {s})",
    "with {FW}.dual_level():\n    {d} = {FW}.make_dual({x}, {t})\n"
    "    {r} = torch.func.jvp(lambda b_: {f} * {d}, ({x},), ({s},))",
    "with {FW}.dual_level():\n    {r} = torch.func.jacfwd(lambda b_: {f})({x})",
    "def {g}(a_):\n    with {FW}.dual_level():\n        return a_ * 2\n"
    "{r} = torch.func.jvp({g}, ({x},), ({t},))",
    "def {g}(a_):\n    {FW}.enter_dual_level()\n    return a_\n"
    "{r} = torch.func.jvp(lambda a_: torch.func.jvp({g}, (a_,), ({s},))[1], ({x},), ({t},))",
    "{r} = [{FW}.enter_dual_level()]\n{r}.append({FW}.enter_dual_level())",
    "{r} = {FW}.exit_dual_level(level={L})",
    "with {FW}.dual_level():\n    {d} = {FW}.make_dual({x}, {t})\n    {r} = {FW}.unpack_dual({f_d})"
    "\n{r} = ({r}, {FW}.unpack_dual({d}))",
    "{r} = torch.func.jacfwd(torch.func.jacfwd(lambda b_: ({f}).sum()))({x})",
    "{r} = torch.func.jacfwd(lambda a_: torch.func.jvp(lambda b_: {f}, (a_,), ({t},))[1])({x})",
    "{r} = torch.func.jvp(torch.func.jacfwd(lambda b_: {f}), ({x},), ({t},))",
    "{r} = torch.func.jvp(lambda a_: torch.func.jvp(lambda b_: {f}, (a_,), ({t},), has_aux=False, "
    "strict={strict}), ({x},), ({s},))",
]
NESTED_BODIES = [body.replace("{a}", "{b}") for body in TRANSFORM_BODIES[:21]] + [
    "{b} * {a}", "({b} * {a}).sin()", "{b}.exp() * {a}.sum()", "{b} + {a} * 0", "{a} * 2",
    "{b}.clone().mul_({a})"]


def nested_forward(b):
    """Two forward-mode levels at once (issue 26): jvp of jvp, the dual API at the inner level,
    dual_level inside dual_level and the other nestings torch refuses: results and errors."""
    dtype = b.choice(["float32", "float64"])
    shape = b.choice([(3,), (2,), (2, 3)])
    pool = ["0.5", "1.5", "-0.75", "2.0", "-1.25", "0.25", "1.0", "-2.0"]
    more, x, var = existing_or_new(b, lambda v: v.is_float and not v.requires_grad
                                   and v.shape in ((3,), (2,), (2, 3)), shape, dtype, pool)
    t, s, r, g, d = (b.fresh_name() for _ in range(5))
    statements = more + [
        f"{t} = torch.tensor({nested(b, var.shape, pool)}, dtype=torch.{var.dtype})",
        f"{s} = torch.tensor({nested(b, var.shape, pool)}, dtype=torch.{var.dtype})"]
    template = b.choice(NESTED_FORWARD)
    body = b.choice([body for body in NESTED_BODIES
                     if "lambda a_" in template or "{a}" not in body])
    statements.append(template.format(
        r=r, g=g, d=d, x=x, t=t, s=s, FW=FW, f=body.format(b="b_", a="a_"),
        f_d=body.format(b=d, a=x), k=b.choice([0, 1]),
        lv=b.choice(["", "", ", level=0", ", level=1"]), L=b.choice([0, 1, -1]),
        strict=b.choice(["False", "True"])))
    for name in (t, s, r, d):
        unknown(b, name, var.dtype)
    return statements


# ---------------------------------------------------------------- mutation of saved tensors (26)
AMS = "torch.autograd.graph.allow_mutation_on_saved_tensors()"
SAVING_OPS = ["{a} * {c}", "{a}.sin()", "{a}.exp()", "{a} ** 2", "{a} / {c}", "{a}.tanh()",
              "({a} * {c}).sum()", "{a}.relu() * {c}", "{a}.pow({c})", "{a}.sigmoid()",
              "{a} @ {c}", "{c}.clamp(-1, 1) * {a}"]
MUTATIONS = ["{m}.mul_(2)", "{m}.add_(1.5)", "{m}[0] = 7.0", "{m}.zero_()", "{m}.sin_()",
             "{m}[1:].mul_(-1)", "{m}.copy_({m}.flip(0))", "{m}.fill_(0.5)",
             "{m}.clamp_(-0.5, 0.5)",
             "{m}.exp_()", "{m}.view(-1)[0] = 3.0", "{m}.t_() if {m}.dim() == 2 else {m}.neg_()"]


def mutation_on_saved(b):
    """``allow_mutation_on_saved_tensors`` (issue 26): ops save a tensor, it is changed in place
    (a constant, an intermediate, through a view), then backward or autograd.grad, inside the
    context or after it, nested contexts: the gradients (torch keeps a clone of each saved
    tensor changed) and the errors."""
    dtype = b.choice(["float32", "float64"])
    pool = ["0.5", "1.5", "-0.75", "2.0", "-1.25", "0.25", "1.0", "-2.0"]
    x, statement = make(b, (3,), dtype, pool, grad=True)
    c, first = make(b, (3,), dtype, pool)
    h, y, z, ctx = (b.fresh_name() for _ in range(4))
    lines = [f"with {AMS} as {ctx}:" if b.chance(0.9) else f"with {AMS} as {ctx}, {AMS}:"]
    lines.append(f"    {h} = {x} * 1")
    lines.append(f"    {y} = " + b.choice(SAVING_OPS).format(a=b.choice([h, x]), c=c))
    for _ in range(b.choice([1, 1, 2])):
        target = b.choice([c, h, h, x, y])
        lines.append("    " + b.choice(MUTATIONS).format(m=target))
    if b.chance(0.2):
        lines.append(f"    {y} = ({y} * {h}).sum() if {y}.dim() else {y} * {h}.sum()")
    end = b.choice([
        f"{z} = {y}.sum().backward()", f"{z} = torch.autograd.grad({y}.sum(), [{x}, {h}])",
        f"{z} = torch.autograd.grad({y}.sum(), {x}, create_graph=True)",
        f"{z} = {y}.sum().backward(retain_graph=True)\n{z} = {y}.sum().backward()"])
    if b.chance(0.75):
        lines += ["    " + part for part in end.split("\n")]
        statements = [statement, first, "\n".join(lines)]
    else:  # backward after the context ended: torch's error
        statements = [statement, first, "\n".join(lines), end]
    if b.chance(0.3):
        statements.append(f"with {AMS}:\n    {z} = ({x} * {c}).sum()\n    {c}.mul_(3)\n"
                          f"    with {AMS}:\n        pass")
    for name in (h, y, z):
        unknown(b, name, dtype)
    b.bind(ctx, TensorVar(None, dtype))
    return statements


# ---------------------------------------------------------------- structure
STRUCTURE_OPS = [
    "torch.tril({x})", "torch.triu({x}, {k})", "{x}.tril(diagonal={k})", "{x}.triu()",
    "torch.triu(torch.ones({n}, {n}), diagonal=1).bool()",
    "{x}.masked_fill(torch.triu(torch.ones_like({x}, dtype=torch.bool), diagonal={k}), 0)",
    "torch.diagonal({x})", "{x}.diagonal({k})", "torch.diagonal({x}, {k}, {d}, -1)",
    "{x}.diagonal(dim1=-1, dim2=0)", "torch.diag({x})", "torch.diag({x}, {k})",
    "{x}.diag(diagonal={k})", "torch.diagflat({x})", "{x}.diagflat({k})",
    "{x}.unfold({d}, {s}, {t})", "{x}.unfold(-1, 1, 1)", "torch.masked_select({x}, {x} > 0)",
    "{x}.masked_select({x} != 0)", "torch.masked_select({x}, torch.tensor(True))",
    "torch.index_add({x}, {d}, torch.tensor([0]), {x}.narrow({d}, 0, 1))",
    "{x}.index_add({d}, torch.tensor([0, 0]), torch.cat([{x}.narrow({d}, 0, 1)] * 2, {d}), "
    "alpha=2)",
    "torch.index_copy({x}, {d}, torch.tensor([0]), {x}.narrow({d}, -1, 1))",
    "torch.tensor_split({x}, {s}, {d})", "{x}.tensor_split([1, {s}], dim={d})",
    "torch.argwhere({x})", "{x}.argwhere()", "torch.fliplr({x})", "{x}.flipud()",
    "torch.asinh({x})", "{x}.acosh()", "torch.arctanh({x} / 4)", "{x}.arcsinh()",
    "torch.addmv({x}.sum(), torch.ones(2, {n}, dtype={x}.dtype), torch.ones({n}, "
    "dtype={x}.dtype), beta={k})",
    "torch.addr({x}, {x}.reshape(-1)[:1], {x}.reshape(-1)[:1], alpha=2)",
    "torch.baddbmm({x}, {x}.reshape(1, 1, -1), {x}.reshape(1, -1, 1), beta=0)",
    "torch.addbmm({x}, {x}.reshape(1, -1, 1), {x}.reshape(1, 1, -1), alpha={k})",
]
STRUCTURE_WRITES = ["{y}.tril_({k})", "{y}.triu_()", "{y}.diagonal().fill_(5)",
                    "{y}.index_add_({d}, torch.tensor([0]), {y}.narrow({d}, 0, 1).clone())",
                    "{y}.index_copy_({d}, torch.tensor([0]), {y}.narrow({d}, 0, 1).clone() * 2)",
                    "{y}.unfold({d}, 1, 1).mul_(2)", "{y}.asinh_()", "{y}.atanh_()"]


def structure_op(b):
    """A structure op (triangles, diagonals, windows, picks) on any tensor: value, layout, or
    torch's error; a copy changed in place through it now and then."""
    found = b.pick(lambda v: not v.inference)
    if not found:
        return None
    x, var = found
    d = valid_dim(b, var)
    names = dict(x=x, d=d, k=b.choice([0, 1, -1, 2, -3]), s=b.choice([1, 2, 3]),
                 t=b.choice([1, 2]), n=b.choice([1, 3, 4]))
    name = b.fresh_name()
    unknown(b, name, var.dtype)
    if b.chance(0.25):
        return [f"{name} = {x}.detach().clone()",
                fill(b.choice(STRUCTURE_WRITES), y=name, **{k: v for k, v in names.items()
                                                            if k != "x"}), f"print({name})"]
    return [f"{name} = {fill(b.choice(STRUCTURE_OPS), **names)}"]


def structure_grad(b):
    """A float64 leaf through a structure op, then backward: the gradient and the graph."""
    x, name = b.fresh_name(), b.fresh_name()
    shape = b.choice([(3, 3), (2, 4), (4, 2), (2, 3, 3), (5,), (3,)])
    op = fill(b.choice(STRUCTURE_OPS), x=x, d=b.rng.randrange(len(shape)),
              k=b.choice([0, 1, -1]), s=b.choice([1, 2]), t=b.choice([1, 2]), n=3)
    unknown(b, x, "float64")
    unknown(b, name, "float64")
    result = f"{name} = {op}" if "tensor_split" not in op else f"{name} = {op}[0]"
    return b.seed_statements() + [
        f"{x} = torch.randn({shape}, dtype=torch.float64, requires_grad=True)", result,
        f"print({name}.grad_fn and {name}.grad_fn.name())",
        f"({name}.sum() if {name}.requires_grad else {x}.sum()).backward()", f"print({x}.grad)"]


# ---------------------------------------------------------------- more reductions and shapes
SHAPE_REDUCE_OPS = [
    "torch.var_mean({x})", "torch.var_mean({x}, {d})", "torch.std_mean({x}, {d}, keepdim=True)",
    "torch.std_mean({x}, correction=0)", "torch.var_mean({x}, ({d},), False)",
    "torch.std_mean({x}, True)", "torch.var_mean({x}, dim={d}, correction=2)",
    "torch.aminmax({x})", "{x}.aminmax(dim={d})", "torch.aminmax({x}, dim={d}, keepdim=True)",
    "torch.nanmean({x})", "{x}.nanmean({d})", "torch.nanmean({x}, {d}, True)",
    "torch.roll({x}, 1)", "{x}.roll(-1, {d})", "torch.roll({x}, (1, 2), ({d}, {d}))",
    "torch.roll({x}, shifts=3)", "torch.tile({x}, (2,))", "{x}.tile(2, 1)",
    "torch.tile({x}, (1, 2, 1))", "torch.diff({x})", "{x}.diff(dim={d})",
    "torch.diff({x}, 2, {d}, prepend={x})", "{x}.diff(append={x})", "torch.trace({x})",
    "{x}.trace()", "torch.meshgrid({x}.flatten(), {x}.flatten()[:2], indexing='xy')",
    "torch.meshgrid({x}.reshape(-1), indexing='ij')", "torch.meshgrid({x}.flatten())",
    "torch.meshgrid([{x}.flatten(), {x}.flatten()], indexing='ij')",
    "torch.median({x})", "{x}.median({d})", "torch.nanmedian({x}, {d}, keepdim=True)",
    "{x}.nanmedian()", "torch.kthvalue({x}, 1)", "{x}.kthvalue(2, {d})", "torch.mode({x})",
    "{x}.mode({d}, True)", "torch.quantile({x}, 0.3)", "{x}.quantile(0.75, {d})",
    "torch.quantile({x}, torch.tensor([0.25, 0.5]), {d}, interpolation='nearest')",
    "torch.nanquantile({x}, 0.5, {d}, True, interpolation='midpoint')",
    "torch.quantile({x}, 0.9, interpolation='lower')", "torch.diagonal({x})",
    "{x}.diagonal(1, -1, 0)", "torch.einsum('ij->ji', {x})", "torch.einsum('...->...', {x})",
    "torch.einsum('ij,kj->ik', {x}, {x})", "torch.einsum('i,i->', {x}.flatten(), {x}.flatten())",
    "torch.einsum('ii->i', {x})", "torch.einsum('bij,bjk->bik', {x}, {x}.mT)",
    "torch.tensordot({x}, {x}, 1)", "torch.tensordot({x}, {x}, dims=([0], [0]))",
    "torch.tensordot({x}, {x}.flatten(), 0)", "torch.rot90({x})", "{x}.rot90(-1, [1, 0])",
    "torch.atleast_2d({x})", "torch.atleast_3d({x}, {x})", "torch.column_stack([{x}, {x}])",
    "torch.dstack([{x}, {x}])", "torch.row_stack([{x}, {x}])", "torch.cummax({x}, {d})",
    "{x}.cummin({d})", "torch.take({x}, torch.tensor([0, -1]))", "torch.diag_embed({x})",
    "torch.block_diag({x}, {x})", "torch.cartesian_prod({x}.flatten(), {x}.flatten())",
    "torch.tensor_split({x}, 2, {d})", "{x}.hsplit(1)", "torch.vsplit({x}, [1])",
    "torch.kron({x}, {x})", "torch.logcumsumexp({x}, {d})", "torch.bincount({x}.flatten())",
    "torch.histc({x}, 4)", "{x}.histc(3, 2, 2)", "torch.histc({x}, bins=1, min=-1, max=-1)",
    "torch.bucketize({x}, torch.tensor([0.0, 1.0, 2.0]))",
    "torch.searchsorted(torch.tensor([-1.0, 0.0, 2.0]), {x}, right=True)",
    "torch.isin({x}, {x}.flatten()[:2])", "torch.cdist({x}, {x})", "torch.cdist({x}, {x}, p=1)",
    "torch.cdist({x}, {x}.repeat(10, 1), compute_mode='use_mm_for_euclid_dist')"]
SHAPE_REDUCE_LAYOUTS = ["{x}", "{x}", "{x}.mT", "{x}[..., ::2]", "{x}.flip(0)"]
SHAPE_REDUCE_GRAD = ["torch.autograd.grad(sum(t.sum() for t in ({r} if isinstance({r}, tuple) "
                     "else ({r},)) if t.requires_grad), {x}, allow_unused=True)",
                     "({r}[0] if isinstance({r}, tuple) else {r}).sum().backward()",
                     "({r}[-1] if isinstance({r}, tuple) else {r}).exp().sum().backward()"]


def shape_reduce(b):
    """var_mean/std_mean, aminmax, nanmean, roll, tile, diff, trace and meshgrid on known
    tensors or new ones (transposed, sliced, with nans), then maybe a gradient through them."""
    found = b.pick(lambda v: v.ndim is not None and v.shape is not None and not v.inference) \
        if b.chance(0.5) else None
    statements = []
    if found:
        x, var = found
    else:
        shape = b.choice([(), (3,), (2, 3), (3, 3), (2, 3, 4), (0,), (2, 0), (4, 1)])
        dtype = b.choice(["float32", "float32", "float64", "float16", "int64", "bool", "uint8"])
        pool = FLOAT_POOL + ["float('nan')"] if dtype in FLOATS else None
        x, statement = make(b, shape, dtype, pool, grad=dtype in FLOATS and b.chance(0.5))
        statements.append(statement)
        var = b.tensors[x]
    layout = b.choice(SHAPE_REDUCE_LAYOUTS) if var.ndim and var.ndim >= 2 else "{x}"
    if var.ndim == 0 or "flip" in layout and not var.ndim:
        layout = "{x}"
    source = fill(b.choice(SHAPE_REDUCE_OPS), x=fill(layout, x=x),
                  d=valid_dim(b, var) if not b.chance(0.05) else 3)
    r = b.fresh_name()
    statements.append(f"{r} = {source}")
    unknown(b, r, var.dtype)
    if var.requires_grad and b.chance(0.6):
        statements.append(fill(b.choice(SHAPE_REDUCE_GRAD), r=r, x=x))
    return statements


# ---------------------------------------------------------------- pointwise_more
POINTWISE_UNARY = ["erf", "erfc", "erfinv", "logit", "deg2rad", "rad2deg", "signbit", "sinc",
                   "isneginf", "isposinf", "isreal", "conj", "conj_physical", "angle", "frexp"]
FREXP_FORMS = ["torch.frexp({x})[0]", "{x}.frexp().mantissa", "torch.frexp(input={x})[1]",
               "torch.frexp({x}).exponent", "torch.frexp({x})"]
POINTWISE_BINARY = ["xlogy", "copysign", "hypot", "fmax", "fmin", "logaddexp", "logaddexp2",
                    "heaviside", "float_power", "gcd", "lcm", "bitwise_left_shift",
                    "bitwise_right_shift", "nextafter", "ldexp"]
POINTWISE_IN_PLACE = {"erf", "erfc", "erfinv", "logit", "deg2rad", "rad2deg", "xlogy",
                      "copysign", "hypot", "sinc", "heaviside", "float_power", "gcd", "lcm",
                      "bitwise_left_shift", "bitwise_right_shift", "nextafter", "ldexp",
                      "conj_physical"}
POINTWISE_OPERATORS = {"bitwise_left_shift": "<<", "bitwise_right_shift": ">>"}
POINTWISE_POOL = ["0.0", "-0.0", "1.0", "-1.0", "0.5", "0.25", "0.9", "2.0", "-2.5", "1e-3",
                  "float('nan')", "float('inf')", "0.999"]
POINTWISE_NUMBERS = ["2", "0.5", "-1.0", "0", "True", "1e-3"]


def _pointwise_call(b, op, x, z):
    """A call of ``op`` on ``x`` (and ``z``, or a number): a function, a method or a keyword
    form; logit with eps now and then."""
    if op == "frexp":
        return fill(b.choice(FREXP_FORMS), x=x)
    if op in POINTWISE_UNARY:
        extra = ""
        if op == "logit" and b.chance(0.5):
            eps = b.choice(["0.1", "1e-6", "0.0", "-1.0", "0.5"])
            extra = b.choice([eps, f"eps={eps}"])
        return b.choice([f"torch.{op}({x}{', ' if extra else ''}{extra})",
                         f"{x}.{op}({extra})"])
    other = z
    if op in ("xlogy", "copysign", "float_power", *POINTWISE_OPERATORS) and b.chance(0.3):
        other = b.choice(POINTWISE_NUMBERS)
    if op in ("xlogy", "float_power", *POINTWISE_OPERATORS) and b.chance(0.15):
        return f"torch.{op}({b.choice(POINTWISE_NUMBERS)}, {z})"
    if op in POINTWISE_OPERATORS and b.chance(0.4):
        return b.choice([f"{x} {POINTWISE_OPERATORS[op]} {other}",
                         f"{b.choice(['2', '1', 'True'])} {POINTWISE_OPERATORS[op]} {x}"])
    keyword = {"heaviside": "values", "float_power": "exponent"}.get(op, "other")
    return b.choice([f"torch.{op}({x}, {other})", f"{x}.{op}({other})",
                     f"torch.{op}(input={x}, {keyword}={other})"])


def pointwise_more_forward(b):
    """The ops of every dtype and shape (broadcast pairs), in place and with out=."""
    dtype, other_dtype = b.choice(ALL_DTYPES), b.choice(ALL_DTYPES)
    shape = b.choice([(), (3,), (2, 3), (0,), (2, 1)])
    other_shape = b.choice([shape, (3,), (), (1,)])
    op = b.choice(POINTWISE_UNARY + POINTWISE_BINARY)
    pool = POINTWISE_POOL if dtype in FLOATS else None
    x, first = make(b, shape, dtype, pool)
    z, second = make(b, other_shape, other_dtype, POINTWISE_POOL if other_dtype in FLOATS
                     else None)
    y = b.fresh_name()
    unknown(b, y)
    form = b.choice(["call", "call", "in_place", "out", "view"])
    if form == "in_place" and op in POINTWISE_IN_PLACE:
        call = _pointwise_call(b, op, f"{x}.clone()", z).replace(f".{op}(", f".{op}_(", 1)
        if call.startswith("torch."):
            call = f"{x}.clone().{op}_({z if op in POINTWISE_BINARY else ''})"
    elif form == "out":
        out_dtype = b.choice(["float32", "float64", "int64", "bool", dtype])
        args = f"{x}, {z}" if op in POINTWISE_BINARY else x
        out = f"torch.empty(0, dtype=torch.{out_dtype})"
        if op == "frexp":  # (a pair: the mantissa's, then the exponent's, int32 or not)
            out = f"({out}, torch.empty(0, dtype=torch.{b.choice(['int32', 'int64'])}))"
        call = f"torch.{op}({args}, out={out})"
    elif form == "view" and shape and op in POINTWISE_IN_PLACE and dtype in FLOATS:
        return [first, second, f"{y} = {x}.clone()",
                f"{y}[:1].{op}_({z + '[:1]' if op in POINTWISE_BINARY and other_shape else z})"
                if op in POINTWISE_BINARY else f"{y}[:1].{op}_()"]
    else:
        call = _pointwise_call(b, op, x, z)
    return [first, second, f"{y} = {call}"]


def pointwise_more_grad(b):
    """Gradients at the special points: ties, signed zeros, logit's ends, nan; sometimes the
    second derivative (create_graph) and the grad_fn's name."""
    dtype = b.choice(["float32", "float64", "float32", "float16"])
    shape = b.choice([(4,), (2, 3), ()])
    op = b.choice([o for o in POINTWISE_UNARY + POINTWISE_BINARY if o not in (
        "signbit", "isneginf", "isposinf", "isreal", "gcd", "lcm", *POINTWISE_OPERATORS)])
    x, first = make(b, shape, dtype, POINTWISE_POOL, grad=True)
    z, second = make(b, b.choice([shape, ()]), dtype, POINTWISE_POOL, grad=b.chance(0.7))
    y, g = b.fresh_name(), b.fresh_name()
    unknown(b, y, dtype)
    unknown(b, g, dtype)
    statements = [first, second, f"{y} = {_pointwise_call(b, op, x, z)}"]
    inputs = f"({x}, {z})" if op in POINTWISE_BINARY and b.tensors[z].requires_grad else x
    if b.chance(0.4):
        statements += [f"{g} = torch.autograd.grad({y}.sum(), {inputs}, create_graph=True, "
                       f"allow_unused=True)[0]",
                       f"{y} = {g}.grad_fn.name() if {g}.grad_fn is not None else None"]
    else:
        statements += [f"{g} = {y}.grad_fn.name() if {y}.grad_fn is not None else None",
                       f"{y}.sum().backward()" if b.chance(0.6) else
                       f"{y}.backward(torch.full_like({y}, -0.75))"]
    return statements


# ---------------------------------------------------------------- more of torch.nn.functional
NN_POOL = ["0.0", "-0.0", "0.5", "-0.5", "1.0", "-1.0", "3.0", "-3.0", "6.0", "0.25", "-2.5",
           "float('nan')", "7.5", "-0.3"]
NN_ACTIVATIONS = [
    "torch.nn.functional.hardtanh({x})", "torch.nn.functional.hardtanh({x}, -0.5, 2.0)",
    "torch.nn.functional.relu6({x})", "torch.nn.functional.hardswish({x})",
    "torch.nn.functional.hardsigmoid({x})", "torch.nn.functional.selu({x})",
    "torch.nn.functional.celu({x}, 0.5)", "torch.nn.functional.logsigmoid({x})",
    "torch.nn.functional.mish({x})", "torch.nn.functional.softsign({x})",
    "torch.nn.functional.tanhshrink({x})", "torch.nn.functional.softshrink({x})",
    "torch.nn.functional.softshrink({x}, 1.0)", "torch.nn.functional.hardshrink({x})",
    "torch.nn.functional.threshold({x}, 0.5, -1.0)", "torch.nn.functional.softmin({x}, -1)",
    "torch.nn.functional.prelu({x}, torch.tensor([0.25], dtype={x}.dtype))",
    "torch.nn.functional.normalize({x}, dim=-1)",
    "torch.nn.functional.cosine_similarity({x}, {z}, -1)",
    "torch.nn.functional.pairwise_distance({x}, {z})",
    "torch.nn.functional.glu(torch.cat([{x}, {z}], -1))",
    "torch.nn.functional.hardtanh({x}.clone(), inplace=True)",
    "torch.nn.functional.relu6({x}.clone(), inplace=True)",
    "torch.nn.functional.threshold({x}.clone(), 0.0, 2.0, inplace=True)",
    "torch.nn.functional.hardswish({x}.clone(), inplace=True)",
    "torch.nn.functional.selu({x}.clone(), inplace=True)",
    # torch's top-level names, with their C++ signatures
    "torch.celu({x}, 0.5)", "torch.selu({x})", "torch.hardshrink({x}, 0.5)", "{x}.hardshrink()",
    "torch.threshold({x}, 0.5, -1.0)", "torch.prelu({x}, torch.tensor([0.25], dtype={x}.dtype))",
    "{x}.prelu(torch.tensor([0.25], dtype={x}.dtype))", "torch.cosine_similarity({x}, {z}, -1)",
    "torch.pairwise_distance({x}, {z})", "torch.threshold_({x}.clone(), 0.0, 2.0)",
    "torch.selu_({x}.clone())", "torch.celu_({x}.clone(), 2.0)",
    "torch.dropout({x}, 0.5, False)", "torch.alpha_dropout({x}, 0.2, False)",
    "torch.dropout({x}, 0.0, True)",
    "torch.nn.functional.rrelu({x})", "torch.nn.functional.rrelu({x}, 0.1, 0.3, True)",
    "torch.rrelu({x}, 0.2, 0.2, True)", "torch.rrelu_({x}.clone(), training=True)",
    "torch.nn.RReLU(0.0, 1.0)({x})",
    "torch.nn.functional.avg_pool1d({x}, 2)", "torch.avg_pool1d({x}, 3, 1, 1, True, False)",
    "torch.adaptive_avg_pool1d({x}, 2)", "torch.nn.AvgPool1d(2, ceil_mode=True)({x})",
    "torch.nn.functional.max_pool1d({x}, 2)", "torch.max_pool1d({x}, 3, 1, 1, 1, True)",
    "torch.max_pool1d_with_indices({x}, 2, (), 0, 2)[1]",
    "torch.nn.MaxPool1d(2, return_indices=True)({x})[0]",
    "torch.pdist({x})", "torch.nn.functional.pdist({x}, 1.0)", "torch.pdist({x}, 0)",
    "torch.pdist({x}, float('inf'))",
    "torch.bilinear({x}, {z}, torch.ones(2, {x}.shape[-1], {z}.shape[-1], dtype={x}.dtype))",
    "torch.nn.functional.bilinear({x}, {z}, torch.ones(1, {x}.shape[-1], {z}.shape[-1], "
    "dtype={x}.dtype), torch.tensor([-0.5], dtype={x}.dtype))",
]
NN_LAYERS = [  # (x is (2, 4, 3, 2) here)
    "torch.nn.functional.group_norm({x}, 2)", "torch.nn.functional.group_norm({x}, 4, eps=0.1)",
    "torch.nn.functional.instance_norm({x})", "torch.nn.functional.pixel_shuffle({x}, 2)",
    "torch.nn.functional.pixel_unshuffle({x}.transpose(-1, -2), 1)",
    "torch.nn.functional.local_response_norm({x}.flatten(2), 3)",
    "torch.nn.functional.scaled_dot_product_attention({x}, {x}, {x})",
    "torch.nn.functional.scaled_dot_product_attention({x}, {x}, {x}, is_causal=True)",
    "torch.nn.functional.scaled_dot_product_attention({x}[0], {x}[1], {x}[1])",
    "torch.nn.functional.scaled_dot_product_attention({x}, {x}, {x}.transpose(-1, -2))",
    "torch.group_norm({x}, 2)", "torch.layer_norm({x}, [3, 2])",
    "torch.instance_norm({x}, None, None, None, None, True, 0.1, 1e-05, False)",
    "torch.batch_norm({x}, None, None, None, None, True, 0.1, 1e-05, False)",
    "torch.pixel_shuffle({x}, 2)", "torch.max_pool2d({x}, 2)",
    "torch.feature_dropout({x}, 0.5, False)", "torch.nn.functional.local_response_norm({x}, 3)",
    "torch.nn.functional.avg_pool3d({x}, (2, 2, 1))",
    "torch.nn.functional.avg_pool3d({x}, 2, 1, 1, True, False)",
    "torch.nn.functional.avg_pool3d({x}.unsqueeze(0), (3, 2, 2), 1, (1, 1, 1), False, True, 2)",
    "torch.nn.AvgPool3d(2, stride=1, ceil_mode=True)({x})",
    "torch.nn.functional.max_pool3d({x}, 2, return_indices=True)[1]",
    "torch.nn.functional.max_pool3d({x}, (2, 2, 1), 1, 1, (1, 1, 2), True)",
    "torch.max_pool3d({x}.unsqueeze(0), 2, (), 0, 1, True)",
    "torch.nn.MaxPool3d(3, stride=2, padding=1)({x})",
    "torch.channel_shuffle({x}, 2)", "torch.nn.ChannelShuffle(4)({x}.transpose(-1, -2))",
]
NN_LOSSES = [
    "torch.nn.functional.kl_div({x}, {z}.abs(), reduction={r})",
    "torch.nn.functional.kl_div({x}, {z}, reduction={r}, log_target=True)",
    "torch.nn.functional.margin_ranking_loss({x}, {z}, {x}.sign(), margin=0.5, reduction={r})",
    "torch.nn.functional.hinge_embedding_loss({x}, torch.ones_like({x}), reduction={r})",
    "torch.nn.functional.soft_margin_loss({x}, -torch.ones_like({x}), reduction={r})",
    "torch.nn.functional.poisson_nll_loss({x}, {z}.abs(), reduction={r})",
    "torch.nn.functional.gaussian_nll_loss({x}, {z}, torch.ones_like({x}), reduction={r})",
    "torch.nn.functional.triplet_margin_loss({x}, {z}, {x} * 2, reduction={r})",
    # torch's top-level names: an int reduction (0 when not given)
    "torch.kl_div({x}, {z}.abs(), {i})", "torch.kl_div({x}, {z})",
    "torch.binary_cross_entropy_with_logits({x}, {z}.sigmoid(), None, None, {i})",
    "torch.hinge_embedding_loss({x}, torch.ones_like({x}), 1.0, {i})",
    "torch.margin_ranking_loss({x}, {z}, {x}.sign(), 0.5, {i})",
    "torch.poisson_nll_loss({x}, {z}.abs(), True, False, 1e-08, {i})",
    "torch.triplet_margin_loss({x}, {z}, {x} * 2, 1.0, 2.0, 1e-06, False, {i})",
]


def nn_more(b):
    """hardtanh, the shrinks, prelu, glu ... and the margin losses: values at their kinks
    (signed zeros, +-0.5, +-3, nan), in SIMD steps and scalar tails, and their gradients."""
    dtype = b.choice(["float32", "float32", "float64", "float16"])
    shape = b.choice([(4,), (2, 3), (20,), (2, 17), (0,), (3, 0)])
    x, statement = make(b, shape, dtype, NN_POOL, grad=b.chance(0.6))
    z, other = make(b, shape, dtype, NN_POOL)
    statements = [statement, other]
    y, g = b.fresh_name(), b.fresh_name()
    if b.chance(0.25) and dtype != "float16":
        layer_input, statement = make(b, (2, 4, 3, 2), dtype, NN_POOL[:11],
                                      grad=b.tensors[x].requires_grad)
        statements.append(statement)
        x, template, shape = layer_input, b.choice(NN_LAYERS), (2, 4, 3, 2)
    elif b.chance(0.3):
        template = b.choice(NN_LOSSES)
        reductions = ["'none'", "'mean'", "'sum'"] + (["'batchmean'"] if "kl_div" in template
                                                      else [])
        template = template.replace("{r}", b.choice(reductions)).replace(
            "{i}", b.choice(["0", "1", "2"]))
        if b.chance(0.3):  # a target of another dtype: torch's kernels promote, or refuse
            z = f"{z}.to(torch.{b.choice(['bool', 'int64', 'uint8', 'float16', 'float64'])})"
    else:
        template = b.choice(NN_ACTIVATIONS)
    statements.append(f"{y} = {fill(template, x=x, z=z)}")
    if b.tensors[x].requires_grad and numel(shape) and "inplace" not in template:
        statements.append(f"{g}, = torch.autograd.grad({y}.sum(), {x})")
        unknown(b, g, dtype)
    unknown(b, y, dtype)
    return statements


# ---------------------------------------------------------------- square matrices
LINALG_OPS = [
    "torch.det({x})", "{x}.det()", "torch.linalg.det({x})", "torch.logdet({x})", "{x}.logdet()",
    "torch.slogdet({x})", "torch.linalg.slogdet({x})", "{x}.slogdet()", "torch.inverse({x})",
    "{x}.inverse()", "torch.linalg.inv({x})", "torch.linalg.inv_ex({x})",
    "torch.linalg.inv_ex({x}, check_errors=True)", "torch.matrix_power({x}, {p})",
    "{x}.matrix_power({p})", "torch.linalg.matrix_power({x}, n={p})",
    "torch.linalg.solve({x}, {x}[..., 0])", "torch.linalg.solve({x}, {x})",
    "torch.linalg.solve({x}, {x}[..., :1, :], left=False)",
    "torch.linalg.solve_ex({x}, {x}[..., :1])", "torch.linalg.solve({x}, {x}[0])",
    "torch.linalg.det({x}, out=torch.empty(0, dtype={x}.dtype))",
    "torch.linalg.inv({x}, out=torch.empty(0, dtype={x}.dtype))",
    "torch.linalg.slogdet({x}, out=(torch.empty(0, dtype={x}.dtype), "
    "torch.empty(0, dtype={x}.dtype)))",
    "torch.matrix_power({x}, {p}, out=torch.empty(0, dtype={x}.dtype))",
    "torch.linalg.inv_ex({x}, out=(torch.empty(0, dtype={x}.dtype), "
    "torch.empty(0, dtype=torch.int32)))",
]
LINALG_SHAPES = [(2, 2), (3, 3), (1, 1), (4, 4), (2, 3, 3), (2, 2, 2), (0, 0), (2, 0, 0),
                 (0, 2, 2), (6, 6), (2, 3), (3,)]
LINALG_LAYOUTS = ["{x}", "{x}", "{x}.mT", "{x}.flip(-1)", "{x}[..., :, :]"]
SINGULAR_POOL = ["1.0", "2.0", "0.0", "-1.0", "4.0", "0.0"]


def linalg_op(b):
    """det, slogdet, logdet, inverse, inv_ex, solve and matrix_power on square matrices (and
    not: 1-d, 2 x 3, integers, float16), often singular (small whole numbers), transposed or
    flipped: values, layouts, info, torch's errors."""
    dtype = b.choice(["float32", "float64", "float64", "float32", "int64", "float16"])
    shape = b.choice(LINALG_SHAPES)
    pool = SINGULAR_POOL if b.chance(0.4) else None
    x, statement = make(b, shape, dtype, pool, grad=dtype.startswith("float") and b.chance(0.3))
    layout = fill(b.choice(LINALG_LAYOUTS), x=x)
    name = b.fresh_name()
    unknown(b, name, dtype)
    call = fill(b.choice(LINALG_OPS), x=layout, p=b.choice([0, 1, 2, 3, 5, -1, -2]))
    return [statement, f"{name} = {call}"]


LINALG_GRADS = ["torch.det({x})", "torch.logdet({x} @ {x}.mT)", "torch.slogdet({x})[1]",
                "torch.linalg.slogdet({x}).logabsdet", "torch.inverse({x})",
                "torch.linalg.inv_ex({x})[0]", "torch.matrix_power({x}, {p})",
                "torch.linalg.solve({x}, {x}.sin())", "torch.linalg.solve({x}, {x}[..., 1])",
                "torch.linalg.solve({x}, {x}.cos(), left=False)"]


def linalg_grad(b):
    """A float64 leaf (regular, or singular now and then) through det, slogdet, inverse,
    solve or matrix_power: gradients, first or second (create_graph), and the graph."""
    shape = b.choice([(2, 2), (3, 3), (2, 2, 2), (1, 1), (4, 4)])
    x, y, g = b.fresh_name(), b.fresh_name(), b.fresh_name()
    for name in (x, y, g):
        unknown(b, name, "float64")
    n = shape[-1]
    if b.chance(0.3):
        source = f"torch.tensor({nested(b, shape, SINGULAR_POOL)}, dtype=torch.float64)"
    else:
        source = (f"torch.randn({shape}, dtype=torch.float64) + "
                  f"3 * torch.eye({n}, dtype=torch.float64)")
    layout = fill(b.choice(LINALG_LAYOUTS[:4]), x=x)
    op = fill(b.choice(LINALG_GRADS), x=layout, p=b.choice([2, 3, 4, -1, -2, 0]))
    statements = b.seed_statements() + [f"{x} = ({source}).requires_grad_()", f"{y} = {op}",
                                        f"print({y}.grad_fn and {y}.grad_fn.name())"]
    if b.chance(0.4):
        statements += [f"{g}, = torch.autograd.grad({y}.sum(), {x}, create_graph=True)",
                       f"print({g}.grad_fn and {g}.grad_fn.name())",
                       f"({g} * {g}).sum().backward()", f"print({x}.grad)"]
    else:
        statements += [f"{y}.sum().backward()", f"print({x}.grad)"]
    return statements


# ---------------------------------------------------------------- int_tensors
# {d}, {d2}: a dim of x; {n}: a small size (1 or 2); {k}: 1; {z}: 0; {f}: a float; each
# written as a tensor now and then (INT_TENSOR_FORMS)
INT_TENSOR_OPS = [
    "{x}.sum({d})", "{x}.sum(dim={d})", "{x}.sum(({d}, {d2}))", "{x}.mean({d}, keepdim=True)",
    "{x}.softmax({d})", "torch.nn.functional.softmax({x}, {d})", "{x}.cumsum({d})",
    "{x}.argmax({d})", "{x}.max({d})", "{x}.amax({d})", "{x}.logsumexp({d})", "{x}.unsqueeze({d})",
    "{x}.squeeze({d})", "{x}.transpose({d}, {d2})", "{x}.movedim({d}, {d2})", "{x}.flip({d})",
    "{x}.flip([{d}])", "{x}.roll({n}, {d})", "{x}.roll(({n},), ({d},))",
    "{x}.narrow({d}, {z}, {k})",
    "{x}.select({d}, {z})", "{x}.topk({k})", "{x}.topk({k}, {d})", "{x}.kthvalue({k})",
    "{x}.split({k})", "{x}.split({k}, {d})", "{x}.chunk({n})", "{x}.chunk({n}, {d})",
    "{x}.view({n}, -1)", "{x}.reshape({n}, -1)", "{x}.reshape([{n}, -1])", "{x}.reshape(({n}, -1))",
    "{x}.view(-1, {n})", "{x}.expand({n}, *{x}.shape)", "{x}.repeat({n}, *[1] * {x}.dim())",
    "{x}.tile(({n},))", "{x}.tile({n})", "torch.zeros({n}, 2)", "torch.ones(({n}, 2))",
    "torch.zeros([{n}])", "torch.full(({n},), 1.5)", "torch.arange({n})", "torch.arange({z}, 3)",
    "torch.arange(0, 4, {n})", "torch.eye({n})", "torch.eye(2, {n})", "{x}.diagonal({z})",
    "{x}.diagonal(offset={k})", "torch.tril({x}, {k})", "torch.triu({x}, diagonal={k})",
    "{x}.diff({k})", "{x}.diff(n={k}, dim={d})", "{x}.index_select({d}, torch.tensor([0]))",
    "torch.nn.functional.pad({x}, ({n}, {n}))", "torch.nn.functional.pad({x}, [{n}, {z}])",
    "torch.nn.functional.one_hot(torch.tensor([0, 1]), {n} + 1)",
    "torch.nn.functional.one_hot(torch.tensor([0, 1]), num_classes={n})",
    "{x}.unflatten({d}, (1, -1))", "{x}.new_zeros({n})", "{x}.new_full(({n},), 2.0)",
    "{x}.new_ones(({n}, {k}))", "{x}.clamp({f})", "{x}.clamp(max={f})", "{x}.pow({f})",
    "{x}.add({x}, alpha={f})", "{x}.mul({f})", "{x} * {f}", "{x} + {f}", "{x}.renorm(2, {d}, {f})",
    "{x}.std({d}, correction={k})", "{x}.var(correction={z})", "{x}.repeat_interleave({n})",
    "{x}.repeat_interleave({n}, {d})", "torch.cat([{x}, {x}], {d})", "torch.stack([{x}, {x}], {d})",
    "{x}.size({d})", "{x}.stride({d})", "{x}.fill_diagonal_({f})" , "{x}.masked_fill({x} > 0, {f})",
    "{x}.index_fill({d}, torch.tensor([0]), {f})", "{x}.round(decimals={k})", "{x}.norm({f})",
    "{x}.norm(dim={d})", "{x}.nan_to_num({f})", "torch.full_like({x}, {f})", "{x}.fill_({f})",
    "{x}.lerp({x}, {f})", "{x}.histc({n})", "{x}.unfold({d}, {k}, {k})", "{x}.swapdims({d}, {d2})",
    "{x}.flatten({z})", "{x}.flatten(start_dim={z}, end_dim={d})", "{x}.rot90({k})",
    "{x}.unbind({d})", "{x}.tensor_split({n})", "{x}.tensor_split({n}, {d})",
    "torch.nn.functional.normalize({x}, dim={d})", "torch.nn.functional.dropout({x}, {f}, False)",
    "{x}.cumprod(dim={d})", "{x}.log_softmax({d}, torch.float64)", "{x}.all({d})", "{x}.any({d})",
    "{x}.count_nonzero({d})", "{x}.nansum({d})", "{x}.prod({d})", "{x}.median({d})",
    "{x}.mode({d})", "{x}.sort({d})", "{x}.argsort({d})", "{x}.msort()", "{x}.aminmax(dim={d})",
    # nn.functional, random and creation, the scatter/gather family, numbers of activations
    "torch.nn.functional.max_pool1d({x}.reshape(1, 1, -1), {n})",
    "torch.nn.functional.avg_pool1d({x}.reshape(1, 1, -1), {n}, stride={k})",
    "torch.nn.functional.max_pool1d({x}.reshape(1, 1, -1), kernel_size={n}, padding={z})",
    "torch.nn.functional.one_hot(torch.tensor([0, 1]), {n} + 1)",
    "torch.nn.functional.embedding(torch.tensor([0, 1]), {x}.reshape(-1, 1), padding_idx={z})",
    "torch.nn.functional.cross_entropy({x}.reshape(2, -1), torch.tensor([0, 1]), "
    "ignore_index={k})", "torch.nn.functional.nll_loss({x}.reshape(2, -1), torch.tensor([0, 1]),"
    " ignore_index={z})", "torch.nn.functional.log_softmax({x}, {d})",
    "torch.nn.functional.glu({x}.reshape(-1, 2), {d})", "torch.nn.functional.normalize({x}, {f})",
    "torch.nn.functional.hardtanh({x}, {f}, 2.0)", "torch.nn.functional.leaky_relu({x}, {f})",
    "torch.nn.functional.elu({x}, {f})", "torch.nn.functional.softplus({x}, {f})",
    "torch.nn.functional.threshold({x}, {f}, 0.5)", "torch.nn.functional.celu({x}, alpha={f})",
    "torch.nn.functional.pad({x}, ({n},), value={f})", "torch.randn({n}, 2)",
    "torch.rand(({n},))", "torch.randint(0, 5, ({n},))", "torch.randint({n}, (2,))",
    "torch.randperm({n})", "torch.ones({n}).multinomial({k})",
    "torch.linspace(0, 1, {n})", "torch.linspace(0, {f}, steps=3)", "torch.logspace(0, 1, {n})",
    "torch.eye({n}, {k})", "torch.empty({n}).shape", "torch.full(({n}, {k}), {f})",
    "torch.tril_indices({n}, {n}, {z})", "torch.triu_indices(3, 3, offset={k})",
    "{x}.diag({k})" , "torch.diag_embed({x}, offset={k})", "{x}.diagonal(0, {d}, {d2})",
    "{x}.scatter({d}, torch.zeros_like({x}, dtype=torch.long), {f})",
    "{x}.gather({d}, torch.zeros_like({x}, dtype=torch.long))",
    "{x}.take_along_dim(torch.zeros_like({x}, dtype=torch.long), {d})",
    "{x}.select_scatter({x}.select({d}, {z}), {d}, {z})",
    "{x}.slice_scatter({x}.narrow({d}, {z}, {k}), {d}, {z}, {k})",
    "{x}.as_strided(({n},), ({k},), {z})", "{x}.as_strided(({n}, {k}), (1, 1))",
    "{x}.movedim(({d},), ({d2},))", "{x}.squeeze(({d},))", "{x}.narrow_copy({d}, {z}, {k})",
    "{x}.new_empty(({n},)).shape", "{x}.clamp(min={f})", "{x}.clamp({f}, {f})",
    "{x}.add({x}, alpha={f})", "{x}.sub(1, alpha={f})", "{x}.addcmul({x}, {x}, value={f})",
    "{x}.addcdiv({x}, {x} + 5, value={f})", "{x}.nan_to_num(nan={f}, posinf={f})",
    "{x}.fmod({f})", "{x}.remainder({f})", "{x}.div({f}, rounding_mode='floor')",
    "{x}.histc(bins={n}, min={f}, max=4)", "{x}.quantile({f})", "{x}.float().quantile(0.5, {d})",
    "{x}.cumsum({d}, dtype=torch.float64)", "{x}.kthvalue({k}, {d}, True)",
    "{x}.topk({k}, {d}, largest=False)", "{x}.index_select({d}, torch.tensor([{z}]))",
    "{x}.repeat_interleave(torch.tensor([{n}]))", "torch.combinations(torch.arange(3), {n})",
    "{x}.unfold(0, {k}, {n})", "torch.nn.functional.unfold({x}.reshape(1, 1, -1, 1), ({k}, 1))",
    "{x}.roll({n})", "{x}.rot90({k}, ({z}, {d}))", "torch.manual_seed({n}) and torch.rand(2)",
    "{x}.pow({f}) * {f}", "{x}.float_power({f})", "{x}.xlogy({f})", "{x}.float().clamp({f})",
    "{x}.lerp({x} * 2, {f})", "{x}.mul_({f})", "{x}.add_({f})",
    "{x}.masked_fill_({x} > 0, {f})", "{x}.index_fill_({d}, torch.tensor([0]), {f})",
    "{x}.clamp_({f})", "{x}.bernoulli({f}) * 0",
]
INT_TENSOR_FORMS = ["torch.tensor({v})", "torch.tensor([{v}])", "torch.tensor([[{v}]])",
                    "torch.tensor({v}, dtype=torch.int32)", "torch.tensor({v}, dtype=torch.uint8)",
                    "torch.tensor({v}, dtype=torch.int8)", "torch.tensor({v}.0)",
                    "torch.tensor([{v}.0])", "torch.tensor({b})", "torch.tensor([{v}, {v}])",
                    "torch.tensor([], dtype=torch.long)", "torch.tensor({v}).requires_grad_(False)"]
FLOAT_TENSOR_FORMS = ["torch.tensor({v})", "torch.tensor([{v}])", "torch.tensor({v},"
                      " dtype=torch.float64)", "torch.tensor({v}, dtype=torch.float16)",
                      "torch.tensor({v}, requires_grad=True)", "torch.tensor([[{v}]])",
                      "torch.tensor(2)", "torch.tensor(True)", "torch.tensor([{v}, {v}])"]


def _as_int_tensor(b, value):
    """``value`` (an int) as the learner wrote it: mostly an int, often a tensor of it."""
    if b.chance(0.35):
        return str(value)
    form = b.choice(INT_TENSOR_FORMS)
    if "uint8" in form and value < 0:
        form = "torch.tensor({v})"
    return form.replace("{v}", str(value)).replace("{b}", str(bool(value)))


def int_tensors(b):
    """An op whose ints, sizes, dims or numbers are tensors (0-d, one-element, of another
    dtype, two elements): torch's parser reads some, refuses others, each in its own words."""
    found = b.pick(lambda v: v.ndim is not None and v.shape is not None and not v.inference
                   and v.ndim <= 3) if b.chance(0.5) else None
    statements = []
    if found:
        x, var = found
    else:
        shape = b.choice([(2, 3), (3,), (2, 2), (2, 3, 2), (4,), (1, 3), ()])
        dtype = b.choice(["float32", "float32", "float64", "float16", "int64", "bool"])
        x, statement = make(b, shape, dtype, FLOAT_POOL if dtype in FLOATS else None,
                            grad=dtype in FLOATS and dtype != "float16" and b.chance(0.4))
        statements.append(statement)
        var = b.tensors[x]
    dims = list(range(-var.ndim, var.ndim)) or [0, -1]
    if b.chance(0.05):
        dims = [var.ndim]  # (past the end)
    float_value = b.choice(["0.5", "2.0", "1.0", "0.0", "-1.5", "3.0"])
    float_form = b.choice(FLOAT_TENSOR_FORMS).replace("{v}", float_value) \
        if b.chance(0.6) else float_value
    template = b.choice(INT_TENSOR_OPS)
    source = fill(template, x=x, d=_as_int_tensor(b, b.choice(dims)),
                  d2=_as_int_tensor(b, b.choice(dims)), n=_as_int_tensor(b, b.choice([1, 2])),
                  k=_as_int_tensor(b, 1), z=_as_int_tensor(b, 0), f=float_form)
    r = b.fresh_name()
    statements.append(f"{r} = {source}")
    unknown(b, r, var.dtype)
    if var.requires_grad and b.chance(0.4) and "fill_" not in template:
        g = b.fresh_name()
        statements.append(f"{g} = torch.autograd.grad(torch.as_tensor({r}).float().sum(), {x},"
                          f" allow_unused=True)")
        unknown(b, g, var.dtype)
    return statements


# ---------------------------------------------------------------- nn_recent
NN = "torch.nn.functional"
RESIZE_MODES = {3: ["nearest", "nearest-exact", "area", "linear", "linear"],
                4: ["nearest", "nearest-exact", "area", "bilinear", "bicubic", "bilinear"],
                5: ["nearest", "nearest-exact", "trilinear", "trilinear"]}
RESIZE_SHAPES = {3: [(1, 2, 3), (2, 1, 4), (1, 1, 1), (0, 2, 3), (2, 3, 5)],
                 4: [(1, 2, 3, 2), (2, 1, 2, 3), (1, 1, 1, 1), (0, 1, 2, 2), (1, 2, 4, 5)],
                 5: [(1, 1, 2, 2, 3), (1, 2, 1, 2, 2), (0, 1, 1, 2, 2), (1, 1, 1, 1, 1)]}
RESIZE_SCALES = ["2", "2.0", "0.5", "1.5", "0.75", "3", "1.0", "0.3", "2.5", "1.7", "1.25"]
RESIZE_FAULTS = ["both", "neither", "align", "recompute", "length", "zero", "mode", "scales"]
INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")
NN_RECENT_POOL = ["0.0", "-0.0", "0.5", "-0.5", "1.0", "-1.0", "2.0", "1.5", "-2.5", "0.25",
                  "3.0", "-0.75"]


def _nn_input(b, shape, dtype, grad):
    """``(name, statements)``: an input of ``shape``: literals with ties and signed zeros, or
    seeded randn; channels-last now and then (4-d and 5-d)."""
    if b.chance(0.5):
        x, statement = make(b, shape, dtype, NN_RECENT_POOL, grad=grad)
        statements = [statement]
    else:
        x = b.fresh_name()
        statements = b.seed_statements() + [
            f"{x} = torch.randn({shape}, dtype=torch.{dtype}, requires_grad={grad})"]
        b.bind(x, TensorVar(tuple(shape), dtype, requires_grad=grad))
        if grad:
            b.tensors[x].leaves = {b.tensors[x]}
    if len(shape) in (4, 5) and b.chance(0.3):
        layout = "torch.channels_last" if len(shape) == 4 else "torch.channels_last_3d"
        if grad:  # (a leaf laid out channels-last: its gradient's strides are compared)
            source = statements[-1].split(" = ", 1)[1]
            statements[-1] = f"{x} = ({source}).detach().contiguous(memory_format={layout})" \
                             ".requires_grad_()"
        else:
            statements.append(f"{x} = {x}.to(memory_format={layout})")
    return x, statements


def _nn_grad(b, y, x, dtype):
    """The gradient of a sum or of a random weighting of ``y`` (its first element when a
    tuple) with respect to ``x``."""
    g = b.fresh_name()
    unknown(b, g, dtype)
    first = f"({y}[0] if isinstance({y}, tuple) else {y})"
    return [b.choice([
        f"{g}, = torch.autograd.grad({first}.sum(), {x})",
        f"{g}, = torch.autograd.grad(({first} * torch.randn_like({first})).sum(), {x})",
        f"{first}.backward(torch.linspace(-1, 2, {first}.numel(), dtype={first}.dtype)"
        f".reshape({first}.shape))\n{g} = {x}.grad"])]


def _resize_keywords(b, ndim, mode):
    """The arguments of a resize: a size or a scale factor (a number, a tuple, a list),
    align_corners for the interpolating modes, recompute_scale_factor; now and then a fault."""
    spatial = ndim - 2
    keywords = {}
    if b.chance(0.45):
        sizes = [str(b.choice([1, 2, 3, 4, 6])) for _ in range(spatial)]
        keywords["size"] = b.choice([sizes[0], f"({', '.join(sizes)},)", f"[{', '.join(sizes)}]"])
    else:
        scales = [b.choice(RESIZE_SCALES) for _ in range(spatial)]
        keywords["scale_factor"] = scales[0] if b.chance(0.6) else f"({', '.join(scales)},)"
        if b.chance(0.4):
            keywords["recompute_scale_factor"] = b.choice(["True", "False", "None"])
    keywords["mode"] = repr(mode)
    if mode in INTERPOLATING and b.chance(0.6):
        keywords["align_corners"] = b.choice(["True", "False"])
    if b.chance(0.1):  # a fault torch's Python or ATen refuses
        fault = b.choice(RESIZE_FAULTS)
        if fault == "both":
            keywords.update(size="2", scale_factor="2.0")
        elif fault == "neither":
            keywords.pop("size", None)
            keywords.pop("scale_factor", None)
        elif fault == "align":
            keywords.update(mode="'nearest'", align_corners="True")
        elif fault == "recompute":
            keywords.update(size="3", recompute_scale_factor="True")
            keywords.pop("scale_factor", None)
        elif fault == "length":
            keywords["size" if "size" in keywords else "scale_factor"] = "(2,) * " + str(
                spatial + b.choice([1, -1]))
        elif fault == "zero":
            keywords["scale_factor" if "scale_factor" in keywords else "size"] = b.choice(
                ["0", "0.1", "-1"])
        elif fault == "mode":
            keywords["mode"] = repr(b.choice(["bilinear", "trilinear", "linear", "bicubic",
                                              "cubic"]))
            keywords.pop("align_corners", None)
        else:
            keywords["scale_factor"] = "(2.0, 'a')"
            keywords.pop("size", None)
    return keywords


def _resize_call(b, x, ndim, keywords):
    """interpolate, upsample, nn.Upsample and the 2-d Upsampling modules, keywords or
    positions."""
    order = ["size", "scale_factor", "mode", "align_corners", "recompute_scale_factor"]

    def arguments(names, positional):
        if positional:  # by position up to the last one given, None between
            last = max((names.index(k) for k in keywords if k in names), default=-1)
            return ", ".join(keywords.get(k, "None" if k != "mode" else "'nearest'")
                             for k in names[:last + 1])
        return ", ".join(f"{k}={v}" for k, v in keywords.items() if k in names)

    form = b.choice(["interpolate", "interpolate", "interpolate", "upsample", "module",
                     "module", "nearest2d", "bilinear2d"])
    positional = b.chance(0.3)
    if form == "interpolate":
        rest = arguments(order, positional)
        return f"{NN}.interpolate({x}{', ' if rest else ''}{rest})"
    if form == "upsample" and "recompute_scale_factor" not in keywords:
        rest = arguments(order[:4], positional)
        return f"{NN}.upsample({x}{', ' if rest else ''}{rest})"
    if form == "module" or ndim != 4 or "recompute_scale_factor" in keywords:
        return f"torch.nn.Upsample({arguments(order, positional)})({x})"
    sized = {k: v for k, v in keywords.items() if k in ("size", "scale_factor")}
    rest = ", ".join(f"{k}={v}" for k, v in sized.items())
    if b.chance(0.5):
        function = "upsample_nearest" if form == "nearest2d" else "upsample_bilinear"
        return f"{NN}.{function}({x}, {rest})"
    module = "UpsamplingNearest2d" if form == "nearest2d" else "UpsamplingBilinear2d"
    return f"torch.nn.{module}({rest})({x})"


def resize(b):
    """interpolate / upsample / nn.Upsample* in every mode (area on 3-d and 4-d inputs),
    sizes and scale factors, align_corners, recompute_scale_factor, edge shapes (size 1, an
    empty batch), channels-last inputs, float16 now and then: values, layouts, errors and
    gradients."""
    ndim = b.choice([3, 4, 4, 5])
    dtype = b.choice(["float32", "float32", "float64", "float16"])
    grad = dtype != "float16" and b.chance(0.6)
    x, statements = _nn_input(b, b.choice(RESIZE_SHAPES[ndim]), dtype, grad)
    keywords = _resize_keywords(b, ndim, b.choice(RESIZE_MODES[ndim]))
    y = b.fresh_name()
    unknown(b, y, dtype)
    statements.append(f"{y} = {_resize_call(b, x, ndim, keywords)}")
    if grad:
        statements += _nn_grad(b, y, x, dtype)
    return statements


# the pools: (input's ndim, template); {o}: an output size, {k}: a kernel, {s}: a stride,
# {p}: a norm type, {c}: ceil_mode
RECENT_POOLS = [
    (3, NN + ".adaptive_max_pool1d({x}, {o})"),
    (3, NN + ".adaptive_max_pool1d({x}, {o}, return_indices=True)"),
    (3, NN + ".adaptive_max_pool1d({x}, output_size={o}, return_indices=True)[1]"),
    (3, "torch.nn.AdaptiveMaxPool1d({o}, True)({x})"), (3, "torch.adaptive_max_pool1d({x}, {o})"),
    (4, NN + ".adaptive_max_pool2d({x}, {o})"),
    (4, NN + ".adaptive_max_pool2d({x}, ({o}, None), return_indices=True)"),
    (4, NN + ".adaptive_max_pool2d({x}, ({o}, 1), True)"),
    (4, "torch.nn.AdaptiveMaxPool2d(({o}, {o}), return_indices=True)({x})"),
    (4, "torch.nn.AdaptiveMaxPool2d({o})({x})"),
    (3, NN + ".lp_pool1d({x}, {p}, {k})"),
    (3, NN + ".lp_pool1d({x}, {p}, {k}, stride={s}, ceil_mode={c})"),
    (3, NN + ".lp_pool1d({x}, norm_type={p}, kernel_size={k}, stride={s})"),
    (3, "torch.nn.LPPool1d({p}, {k}, {s}, {c})({x})"),
    (4, NN + ".lp_pool2d({x}, {p}, {k})"),
    (4, NN + ".lp_pool2d({x}, {p}, ({k}, 1), {s}, {c})"),
    (4, NN + ".lp_pool2d({x}, {p}, kernel_size={k}, ceil_mode={c})"),
    (4, "torch.nn.LPPool2d({p}, {k}, stride={s})({x})"),
    # channels-last inputs keep their layout through the pools
    (4, NN + ".max_pool2d({x}, {k}, {s}, ceil_mode={c})"),
    (4, NN + ".max_pool2d({x}, {k}, return_indices=True)"),
    (4, NN + ".avg_pool2d({x}, {k}, {s}, 0, {c})"),
    (4, NN + ".adaptive_avg_pool2d({x}, {o})"),
    (4, "torch.nn.MaxPool2d({k}, {s}, padding=0, dilation=1, ceil_mode={c})({x})"),
]
LP_NORMS = ["1", "2", "2.0", "3", "1.5", "float('inf')", "0.5"]


def recent_pool(b):
    """adaptive_max_pool1d/2d (return_indices, None in an output size), lp_pool1d/2d and the
    pools of a channels-last input: values, indices, layouts, errors and gradients."""
    ndim, template = b.choice(RECENT_POOLS)
    dtype = b.choice(["float32", "float32", "float64", "float16"])
    grad = dtype != "float16" and b.chance(0.6)
    shape = b.choice([(1, 2, 5), (2, 3, 4), (1, 1, 1), (0, 2, 4), (2, 1, 7)])
    if ndim == 4:
        shape = b.choice([(1, 2, 4, 4), (2, 3, 3, 5), (1, 1, 1, 1), (0, 2, 4, 4), (1, 2, 2, 6),
                          (2, 4, 4)])
    x, statements = _nn_input(b, shape, dtype, grad)
    call = fill(template, x=x, o=b.choice([1, 2, 3, 2, 5]), k=b.choice([1, 2, 2, 3]),
                s=b.choice([1, 2, "None"]), p=b.choice(LP_NORMS), c=b.choice(["False", "True"]))
    y = b.fresh_name()
    unknown(b, y, dtype)
    statements.append(f"{y} = {call}")
    if grad:
        statements += _nn_grad(b, y, x, dtype)
    return statements


def unpool(b):
    """max_unpool1d/2d (and the modules) of max_pool's values and indices: output_size given
    or not (and wrong), then the gradient through both."""
    two = b.chance(0.6)
    dtype = b.choice(["float32", "float64", "float32"])
    grad = b.chance(0.6)
    shape = b.choice([(1, 2, 4, 4), (2, 1, 5, 4), (1, 1, 2, 2), (0, 1, 4, 4)]) if two else \
        b.choice([(1, 2, 6), (2, 1, 5), (1, 1, 2), (0, 2, 4)])
    x, statements = _nn_input(b, shape, dtype, grad)
    k, s = b.choice([2, 2, 3]), b.choice(["None", "2", "1"])
    y, i, z = b.fresh_name(), b.fresh_name(), b.fresh_name()
    n = "2d" if two else "1d"
    statements.append(f"{y}, {i} = {NN}.max_pool{n}({x}, {k}, {s}, return_indices=True)")
    output_size = b.choice(["", "", f", output_size={x}.shape", f", output_size={x}.shape[2:]",
                            f", output_size={x}.shape[-1:]", ", output_size=(9, 9)"])
    statements.append(b.choice([
        f"{z} = {NN}.max_unpool{n}({y}, {i}, {k}, {s}{output_size})",
        f"{z} = {NN}.max_unpool{n}({y}, {i}, kernel_size={k}, stride={s}{output_size})",
        f"{z} = torch.nn.MaxUnpool{n}({k}, {s})({y}, {i}{output_size})",
        f"{z} = {NN}.max_unpool{n}({y}, {i}.flip(-1), {k})"]))
    for name in (y, i, z):
        unknown(b, name, dtype)
    unknown(b, i, "int64")
    if grad:
        statements += _nn_grad(b, z, x, dtype)
    return statements


def fold_unfold(b):
    """F.unfold / nn.Unfold (im2col) and F.fold / nn.Fold (col2im) with kernels, dilations,
    paddings and strides, the round trip, unbatched inputs, wrong sizes: values, errors and
    gradients."""
    dtype = b.choice(["float32", "float64", "float32", "float16"])
    grad = dtype != "float16" and b.chance(0.6)
    shape = b.choice([(1, 2, 4, 4), (2, 1, 3, 5), (1, 1, 1, 1), (0, 2, 3, 3), (2, 3, 3),
                      (1, 3, 2, 4)])
    x, statements = _nn_input(b, shape, dtype, grad)
    k = b.choice(["2", "1", "(2, 3)", "3", "(1, 2)"])
    extra = b.choice(["", "", ", dilation=2", ", padding=1", ", stride=2",
                      ", dilation=(1, 2), padding=(1, 0), stride=(2, 1)", ", 1, 1, 1"])
    u, f = b.fresh_name(), b.fresh_name()
    unknown(b, u, dtype)
    unknown(b, f, dtype)
    size = b.choice([f"{x}.shape[-2:]", f"tuple({x}.shape[-2:])", "(4, 4)", "3"])
    statements.append(b.choice([f"{u} = {NN}.unfold({x}, {k}{extra})",
                                f"{u} = torch.nn.Unfold({k}{extra})({x})",
                                f"{u} = {NN}.unfold({x}, kernel_size={k}{extra})"]))
    statements.append(b.choice([f"{f} = {NN}.fold({u}, {size}, {k}{extra})",
                                f"{f} = torch.nn.Fold({size}, {k}{extra})({u})",
                                f"{f} = {NN}.fold({u}, output_size={size}, kernel_size={k}"
                                f"{extra})",
                                f"{f} = {NN}.fold({u}[..., :1], {size}, {k})"]))
    if grad:
        statements += _nn_grad(b, b.choice([u, f]), x, dtype)
    return statements


RECENT_NORMS = [
    NN + ".rms_norm({x}, {x}.shape[-1:])", NN + ".rms_norm({x}, ({l},), {w}, 1e-3)",
    NN + ".rms_norm({x}, {x}.shape[-2:], eps=0.1)", "torch.rms_norm({x}, [{l}], {w})",
    "torch.nn.RMSNorm({l})({x})", "torch.nn.RMSNorm([{l}], eps=1e-6, elementwise_affine=False)"
    "({x})", "torch.nn.RMSNorm({x}.shape[1:], dtype={x}.dtype)({x})",
    NN + ".layer_norm({x}, ({l},), {w}, {w} * 0.5, 1e-3)", NN + ".layer_norm({x}, {x}.shape[1:])",
    NN + ".group_norm({x}, 1, eps=0.1)", NN + ".group_norm({x}, {x}.shape[1], {wc}, {wc})",
    NN + ".group_norm({x}, 2)",
    NN + ".batch_norm({x}, None, None, training=True)",
    NN + ".batch_norm({x}, {rm}, {rv}, {wc}, {wc} - 1, True, 0.3, 1e-3)",
    NN + ".batch_norm({x}, {rm}, {rv}, training=False, eps=0.1)",
    NN + ".batch_norm({x}, {rm}, {rv}, {wc}, None, False)",
    NN + ".instance_norm({x})", NN + ".instance_norm({x}, {rm}, {rv}, use_input_stats=True, "
    "momentum=0.5)", NN + ".instance_norm({x}, {rm}, {rv}, {wc}, {wc}, False, 0.1, 1e-3)",
    NN + ".instance_norm({x}, weight={wc}, bias={wc}, eps=0.5)",
]


def recent_norm(b):
    """rms_norm / RMSNorm and batch_norm, instance_norm, layer_norm, group_norm with running
    statistics (their update printed), weights, eps: values, errors (a size that does not
    fit, one value per channel in training) and gradients."""
    dtype = b.choice(["float32", "float32", "float64", "float16"])
    grad = b.chance(0.6)
    shape = b.choice([(2, 4, 3), (3, 2), (2, 4), (1, 2, 3), (2, 2, 2, 2), (1, 4), (0, 2, 3),
                      (2, 3, 1)])
    x, statements = _nn_input(b, shape, dtype, grad)
    channels, last = shape[1], shape[-1]
    rm, rv, w, wc = (b.fresh_name() for _ in range(4))
    statements += [f"{rm} = torch.zeros({channels}, dtype=torch.{dtype})",
                   f"{rv} = torch.ones({channels}, dtype=torch.{dtype})",
                   f"{w} = torch.linspace(0.5, 2, {last}, dtype=torch.{dtype})",
                   f"{wc} = torch.linspace(-1, 1, {channels}, dtype=torch.{dtype})"]
    for name in (rm, rv, w, wc):
        unknown(b, name, dtype)
    if b.chance(0.08):
        channels, last = channels + 1, last + 1  # (a size that does not fit)
    y = b.fresh_name()
    unknown(b, y, dtype)
    statements.append(f"{y} = " + fill(b.choice(RECENT_NORMS), x=x, l=last, w=w, wc=wc, rm=rm,
                                       rv=rv))
    if b.chance(0.3):
        statements.append(f"print({rm}, {rv})")
    if grad:
        statements += _nn_grad(b, y, x, dtype)
    return statements


RECENT_MISC = [
    "torch.nn.Softmax2d()({x})", "torch.nn.Softmax2d()({x}.unsqueeze(0))",
    "torch.nn.Softmax2d()({x}[0])",
    NN + ".multilabel_margin_loss({x}, {t})",
    NN + ".multilabel_margin_loss({x}, {t}, reduction={r})",
    "torch.nn.MultiLabelMarginLoss(reduction={r})({x}, {t})",
    NN + ".multilabel_margin_loss({x}[0], {t}[0])",
    NN + ".multilabel_margin_loss({x}, {t}.float())",
    NN + ".triplet_margin_with_distance_loss({x}, {z}, {x} * 2)",
    NN + ".triplet_margin_with_distance_loss({x}, {z}, {z}.flip(-1), margin=0.5, swap=True, "
    "reduction={r})",
    NN + ".triplet_margin_with_distance_loss({x}, {z}, -{x}, distance_function="
    "torch.nn.PairwiseDistance(p=1.0), reduction={r})",
    NN + ".triplet_margin_with_distance_loss({x}, {z}, {z} + 1, distance_function=lambda a, b:"
    " 1.0 - torch.nn.functional.cosine_similarity(a, b))",
    "torch.nn.TripletMarginWithDistanceLoss(margin=2.0, swap=True)({x}, {z}, {x}.flip(0))",
    NN + ".triplet_margin_with_distance_loss({x}, {z}, {x}, None, 1.0)",
    NN + ".gumbel_softmax({x})", NN + ".gumbel_softmax({x}, tau=0.5, hard=True)",
    NN + ".gumbel_softmax({x}, 2.0, False, dim=0)", NN + ".gumbel_softmax({x}, hard=True, dim=-1)",
]


def recent_misc(b):
    """Softmax2d, multilabel_margin_loss (targets ended by -1), triplet_margin_with_distance_loss
    (distance functions, swap) and gumbel_softmax (seeded): values, errors and gradients."""
    dtype = b.choice(["float32", "float32", "float64"])
    grad = b.chance(0.6)
    shape = b.choice([(2, 3), (3, 4), (1, 3), (2, 2, 3), (0, 3), (2, 1, 2, 2)])
    x, statements = _nn_input(b, shape, dtype, grad)
    z, other = make(b, shape, dtype, NN_RECENT_POOL)
    statements.append(other)
    t = b.fresh_name()
    classes = shape[-1]
    labels = [b.choice(list(range(-1, classes)) + [0]) for _ in range(numel(shape[:-1]) or 1)
              for _ in range(classes)]
    statements.append(f"{t} = torch.tensor({labels}, dtype=torch.int64).reshape({shape})"
                      if numel(shape) else f"{t} = torch.zeros({shape}, dtype=torch.int64)")
    unknown(b, t, "int64")
    template = b.choice(RECENT_MISC)
    if "multilabel" in template.lower() and not numel(shape):
        # (of no samples, reduced, torch returns memory it never wrote: documented)
        template = NN + ".multilabel_margin_loss({x}, {t}, reduction='none')"
    if "gumbel" in template:
        statements += b.seed_statements() or [f"torch.manual_seed({b.choice([0, 3])})"]
    y = b.fresh_name()
    unknown(b, y, dtype)
    statements.append(f"{y} = " + fill(template, x=x, z=z, t=t,
                                       r=b.choice(["'none'", "'mean'", "'sum'"])))
    if grad:
        statements += _nn_grad(b, y, x, dtype)
    return statements


# ---------------------------------------------------------------- half
# float64 numbers at float16's edges: its max and the numbers that round to it or past it,
# its smallest normal and subnormals, ties (2049 between 2048 and 2050), and numbers a
# rounding through float32 first moves onto a float16 tie (double rounding)
HALF_NUMBERS = ["65504.0", "-65504.0", "65519.99", "65520.0", "65519.999999", "-65520.0",
                "6.103515625e-05", "6.1e-05", "5.960464477539063e-08", "2.9802322387695312e-08",
                "2.98023224e-08", "1e-08", "-3e-08", "2049.0", "2051.0", "-2049.0", "0.1",
                "0.3333333333333333", "1.0004882812500002", "(1 + 2 ** -11 + 2 ** -30)",
                "(2 ** -25 + 2 ** -50)", "-0.0", "1e-05", "0.5", "-1.5", "3.0", "1000.0",
                "float('nan')", "float('inf')", "7e4", "-1e5", "300.0"]
HALF_CONVERSIONS = [
    "torch.tensor(np.array({v}), dtype=torch.float16)",
    "torch.tensor(np.array({v}, dtype=np.float64)).half()",
    "torch.as_tensor(np.array({v}), dtype=torch.half)", "torch.from_numpy(np.array({v}))"
    ".to(torch.float16)", "torch.tensor({v}, dtype=torch.float16)",
    "torch.tensor({v}, dtype=torch.float64).half()", "{d}.to(torch.float16)", "{d}.half()",
    "{d}.type(torch.float16)", "{d}.type('torch.HalfTensor')", "{d}.to(dtype=torch.half)",
    "{d}.float().half()", "{d}.to({h})", "{h}.clone().copy_({d})", "{h}.clone().fill_({d}[0])",
    "{h}.clone().fill_({s})", "torch.full(({n},), {s}, dtype=torch.float16)",
    "torch.full_like({h}, {s})", "{h}.new_full((2,), {s})", "torch.add({d}, 0, out={h}.clone())",
    "torch.mul({d}, 1.0, out=torch.empty(0, dtype=torch.float16))",
    "torch.where({d} > 0, {h}, {d})", "torch.where({d} > 0, {h}, {s})",
    "torch.where({h} > 0, {s}, {h})", "{h}.masked_fill({h} != 0, {s})", "{h} + {s}",
    "{h} * {d}[0].item()", "torch.clamp({h}, max={s})", "{h}.to(torch.float64) * 2",
    "torch.tensor([{s}, {s}], dtype=torch.float16)", "{d}.to(torch.float16, copy=True)",
    "torch.stack([{h}, {d}.half()])", "torch.cat([{h}, {d}])", "{h}.lerp({d}.half(), 0.5)",
]
HALF_WRITES = ["{y}[0] = {d}[-1]", "{y}[...] = {s}", "{y}[{y} > 0] = {s}", "{y}[:1] = {d}[:1]",
               "{y}.copy_({d})", "{y}.fill_({s})", "{y}.index_fill_(0, torch.tensor([0]), {s})",
               "{y}.masked_fill_({y} < 1, {s})", "{y} += {s}", "{y}.mul_({d})",
               "{y}.add_({d}, alpha=2)", "{y}[torch.tensor([0, 0])] = {s}"]
HALF_REDUCTIONS = [
    "{h}.sum()", "{h}.sum(-1)", "{h}.sum(0, keepdim=True)", "{h}.sum(dtype=torch.float32)",
    "{h}.mean()", "{h}.mean(-1)", "torch.mean({h}, 0, dtype=torch.float64)", "{h}.std()",
    "{h}.std(-1)", "{h}.var(0, correction=0)", "torch.var_mean({h}, -1)", "{h}.softmax(-1)",
    "{h}.log_softmax(0)", "torch.softmax({h}, -1, dtype=torch.float32)", "{h}.cumsum(-1)",
    "{h}.cumsum(0, dtype=torch.float32)", "{h}.norm()", "{h}.norm(1)", "{h}.norm(dim=-1)",
    "torch.linalg.vector_norm({h}, float('inf'))", "{h}.norm(3, -1)", "{h}.prod(-1)",
    "{h}.logsumexp(-1)", "{h}.amax(0)", "{h}.nansum()", "torch.nn.functional.normalize({h})",
    "{h}.cumprod(-1)",
]
HALF_MATH = [
    "{h} @ {h}.mT", "{h}.mT @ {h}", "torch.matmul({h}, {h}.mT)", "torch.mm({h}, {h}.t())",
    "torch.addmm({h}[:, :1], {h}, {h}.mT)", "torch.addmm({h}[0], {h}, {h}.mT, beta=0.5, alpha=2)",
    "{h}[0] @ {h}[0]", "torch.mv({h}, {h}[0])", "torch.bmm({h}.unsqueeze(0), {h}.mT.unsqueeze(0))",
    "{h} ** 2", "{h}.pow(0.5)", "{h}.pow(3)", "torch.pow({h}, {h})", "2 ** {h}", "{h} ** -1",
    "torch.nn.functional.gelu({h})", "torch.nn.functional.gelu({h}, approximate='tanh')",
    "torch.nn.functional.silu({h})", "{h}.exp()", "{h}.sigmoid()", "{h}.tanh()", "{h}.sqrt()",
    "torch.nn.functional.layer_norm({h}, {h}.shape[-1:])",
    "torch.nn.functional.layer_norm({h}, {h}.shape[-1:], {h}[0], {h}[-1])",
    "torch.nn.functional.batch_norm({h}, None, None, training=True)",
    "torch.nn.functional.batch_norm({h}, torch.zeros({h}.shape[1], dtype=torch.float16), "
    "torch.ones({h}.shape[1], dtype=torch.float16), training=True, momentum=0.5)",
    "torch.nn.functional.batch_norm({h}, torch.zeros({h}.shape[1]), torch.ones({h}.shape[1]))",
    "torch.nn.functional.group_norm({h}.unsqueeze(0), 1)",
    "torch.nn.functional.group_norm({h}.unsqueeze(-1), {h}.shape[1])",
    "torch.nn.functional.linear({h}, {h})", "torch.nn.functional.softplus({h})",
]
HALF_SHAPES = [(2, 3), (3, 3), (2, 4), (1, 5), (4, 2), (3, 17), (2, 40)]
HALF_POOL = ["1.0", "-0.5", "0.25", "2.0", "-3.0", "0.1", "65504.0", "-65504.0", "6e4", "3e4",
             "6.1e-05", "1e-07", "-6e-08", "0.0", "-0.0", "255.0", "1000.0", "0.333", "-2.75"]


def _half_source(b, shape, grad=False):
    """``(name, statements)``: a float16 tensor of ``shape``: ordinary values, values near
    65504 and subnormals, or seeded randn scaled up or down."""
    if b.chance(0.3):
        h = b.fresh_name()
        b.bind(h, TensorVar(tuple(shape), "float16", requires_grad=grad))
        if grad:
            b.tensors[h].leaves = {b.tensors[h]}
        scale = b.choice(["1", "1", "100", "1e-4", "1e4", "6e4"])
        return h, b.seed_statements() + [
            f"{h} = (torch.randn({shape}) * {scale}).half().requires_grad_({grad})"]
    pool = HALF_POOL if b.chance(0.5) else HALF_POOL[:6] + ["0.5", "1.5", "-1.0", "0.75"]
    h, statement = make(b, shape, "float16", pool, grad=grad)
    return h, [statement]


def half_convert(b):
    """float64 numbers at float16's edges into float16 by every path (tensor of an ndarray or
    a list, to/half/type, copy_, setitem, fill_, full, out=, where, in-place ops): values."""
    n = b.choice([1, 2, 3, 4])
    numbers = [b.choice(HALF_NUMBERS) for _ in range(n)]
    d, h, r = b.fresh_name(), b.fresh_name(), b.fresh_name()
    statements = [f"{d} = torch.tensor([{', '.join(numbers)}], dtype=torch.float64)",
                  f"{h} = torch.zeros({n}, dtype=torch.float16)"]
    b.bind(d, TensorVar((n,), "float64"))
    b.bind(h, TensorVar((n,), "float16"))
    template = b.choice(HALF_CONVERSIONS)
    value = b.choice([numbers[0], f"[{', '.join(numbers)}]"])
    if "np." in template:
        statements.insert(0, "import numpy as np")
    unknown(b, r, "float16")
    statements.append(f"{r} = " + fill(template, v=value, d=d, h=h, s=b.choice(HALF_NUMBERS),
                                       n=n))
    if b.chance(0.4):
        y = b.fresh_name()
        unknown(b, y, "float16")
        statements += [f"{y} = {h}.clone()", fill(b.choice(HALF_WRITES), y=y, d=d,
                                                  s=b.choice(HALF_NUMBERS)), f"print({y})"]
    return statements


def half_reduce(b):
    """float16 reductions (sum, mean, std, var, softmax, log_softmax, cumsum, norm ...) of
    values near 65504, subnormals, long rows: values and gradients."""
    grad = b.chance(0.5)
    h, statements = _half_source(b, b.choice(HALF_SHAPES), grad)
    r = b.fresh_name()
    unknown(b, r, "float16")
    statements.append(f"{r} = " + fill(b.choice(HALF_REDUCTIONS), h=h))
    if grad:
        statements += _nn_grad(b, r, h, "float16")
    return statements


def half_math(b):
    """float16 matmul, addmm, pow, gelu, silu, layer_norm, batch_norm, group_norm ... at
    float16's edges: values and gradients."""
    grad = b.chance(0.5)
    h, statements = _half_source(b, b.choice(HALF_SHAPES[:5]), grad)
    r = b.fresh_name()
    unknown(b, r, "float16")
    statements.append(f"{r} = " + fill(b.choice(HALF_MATH), h=h))
    if grad:
        statements += _nn_grad(b, r, h, "float16")
    return statements


FAMILIES = {
    "extremes": Family(3, [(3, write_extreme), (2, arithmetic_extreme), (1, create_extreme)]),
    "overflow": Family(2, [(3, reduce_overflow), (1, create_overflow)]),
    "empty": Family(3, [(1, create_empty), (4, empty_op), (0.4, interop)]),
    "once_differentiable": Family(1, [(1, once)]),
    "grad_modes": Family(2, [(1, nested_modes)]),
    "third_derivative": Family(2, [(1, third)]),
    "signatures": Family(3, [(1, signature_call)]),
    "layouts": Family(2, [(1, strided), (3, layout_op), (0.7, grad_layout),
                          (1, view_grad_layout)]),
    "zero_signs": Family(2, [(3, zero_grad), (2, zero_values), (1, loss_zero)]),
    "versions": Family(2, [(2, version_op), (1, version_inplace), (1, saved_changed)]),
    "warnings": Family(1, [(1, warn)]),
    "check_order": Family(2, [(1, two_faults)]),
    "transforms": Family(2, [(1, transform)]),
    "hooks": Family(2, [(1, hooks)]),
    "nested_forward": Family(2, [(1, nested_forward)]),
    "mutation_on_saved": Family(2, [(1, mutation_on_saved)]),
    "structure": Family(2, [(3, structure_op), (1, structure_grad)]),
    "shape_reduce": Family(2, [(1, shape_reduce)]),
    "pointwise_more": Family(2, [(3, pointwise_more_forward), (2, pointwise_more_grad)]),
    "nn_more": Family(2, [(1, nn_more)]),
    "linalg": Family(2, [(3, linalg_op), (2, linalg_grad)]),
    "int_tensors": Family(2, [(1, int_tensors)]),
    "nn_recent": Family(2, [(2, resize), (2, recent_pool), (1, unpool), (1, fold_unfold),
                            (2, recent_norm), (2, recent_misc)]),
    "half": Family(2, [(2, half_convert), (1, half_reduce), (1, half_math)]),
}
