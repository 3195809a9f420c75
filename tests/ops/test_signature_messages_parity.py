"""torch's argument parser's messages against torch 2.15: "invalid combination of arguments -
got (...)" (which keywords, in which order), "takes from # to # positional arguments", and the
calls no overload of torch's takes.

torch copies a call's keywords into a C++ unordered_map before printing them, so its list
follows the map's hash order, not the call's (fidelity/messages.py keyword_order): each case
below names its keywords in several orders, with input= among them or not.
"""
import itertools

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch

REDUCTIONS = ["mean", "sum", "prod", "min", "max", "std", "var", "all", "any", "nansum",
              "amax", "argmax"]
KEYWORD_SETS = [("keepdim",), ("keepdims",), ("dims",), ("unbiased", "keepdim"),
                ("unbiased", "correction"), ("stable", "descending"), ("out", "keepdim"),
                ("axis", "foo", "keepdim"), ("dtype", "unbiased", "keepdim", "out")]
_VALUES = {"keepdim": True, "keepdims": False, "dims": 0, "unbiased": False, "correction": 2,
           "stable": False, "descending": True, "axis": 0, "foo": 1.5, "dtype": None}


def _cases():
    for op, keys in itertools.product(REDUCTIONS, KEYWORD_SETS):
        if op in ("all", "any", "nansum") and keys == ("out", "keepdim"):
            continue  # (a call torch takes: the engine's all, any and nansum take no out=)
        for order in list(itertools.permutations(keys))[:3]:
            yield op, order


@pytest.mark.parametrize("form", ["input=", "positional", "method"])
@pytest.mark.parametrize("op,keys", list(_cases()), ids=lambda v: "-".join(v) if
                         isinstance(v, tuple) else v)
def test_keywords_listed_in_torchs_order(op, keys, form):
    def call(m, x):
        kwargs = {k: (m.empty(0) if k == "out" else _VALUES[k]) for k in keys}
        if form == "method":
            return getattr(x, op)(**kwargs)
        if form == "positional":
            return getattr(m, op)(x, **kwargs)
        return getattr(m, op)(**{"input": x, **kwargs})

    parity.run_both(call, parity.make_tensor((2, 3), "float32"), exact=False)


@pytest.mark.parametrize("order", list(itertools.permutations(["input", "dim", "keepdim",
                                                                "foo"], 3)))
def test_input_keyword_among_others(order):
    def call(m, x):
        values = {"input": x, "dim": 0, "keepdim": True, "foo": 1}
        return m.mean(**{k: values[k] for k in order})

    parity.run_both(call, parity.make_tensor((2, 3), "float32"), exact=False)


# Calls no overload takes (or one does): round's keyword-only decimals ("takes from 1 to 0
# positional arguments"), div's keyword-only rounding_mode, sort's and argsort's two overloads
# (a bool is no dim; stable= comes with dim and descending by name), repeat_interleave's
# unknown keywords.
OVERLOAD_CALLS = [
    "x.round(0)", "m.round(x, 0)", "x.round(1, 2)", "m.round(x, decimals=1)",
    "m.round(input=x, decimals=1)", "x.round(decimals=None)", "x.round()",
    "m.round(x, decimals=2, out=m.empty(0))", "x.round(foo=1)",
    "m.div(x, 2.5, 'floor')", "x.div(2.5, 'floor')", "m.div(x, x, 'trunc')",
    "m.div(x, x, 'trunc', 1)", "x.div(x, 'a', 1)", "m.div(x, x, 'trunc', 1, 2)",
    "x.div(m.tensor(2.0), 'floor')", "m.div(x, 2, rounding_mode=None)",
    "m.repeat_interleave(x, m.tensor(2), dims=0)", "x.repeat_interleave(m.tensor(2), dims=-2)",
    "x.repeat_interleave(2, foo=1)", "m.repeat_interleave(x, 2, 0, foo=1)",
    "m.repeat_interleave(x, foo=1)", "x.repeat_interleave(foo=1)",
    "m.repeat_interleave(x, 2, 0, output_size=6, foo=1)",
]
for _op in ["sort", "argsort"]:
    for _form in ["m.{op}(x{a})", "x.{op}({b})", "m.{op}(input=x{a})"]:
        for _extra in ["", "0", "False", "0, True", "-1, False, True", "stable=True",
                       "dims=-1, stable=False", "0, stable=True", "dim=0, descending=True",
                       "dim=0, descending=True, stable=None", "axis=0", "descending=1",
                       "dim=True", "keepdim=True", "0, True, stable=False", "stable=1",
                       "foo=1, bar=2", "stable=True, out=m.empty(0)"]:
            if "input=" in _form and _extra and "=" not in _extra.split(",")[0]:
                continue
            OVERLOAD_CALLS.append(_form.format(op=_op, a=", " + _extra if _extra else "",
                                               b=_extra))


@pytest.mark.parametrize("source", OVERLOAD_CALLS)
def test_overloads_as_torch_parses_them(source):
    parity.run_both(lambda m, x: eval(source), parity.make_tensor((2, 3), "float32"))


# torch.norm and Tensor.norm, torch.unique and Tensor.unique are Python in torch: another
# keyword is Python's own TypeError, named after the function that got it (torch.unique's is
# one of four, picked by return_inverse and return_counts); torch.norm passes out= on to
# linalg.vector_norm (its autograd, dtype and out-dtype errors, a written out).
PYTHON_CALLS = [
    "x.norm(p=0.5, keepdims=False, dtype=m.float64)", "x.norm(axis=None)",
    "x.norm(dims=[0], dtype=m.float32)", "x.norm(out=m.empty(0))", "m.norm(x, axis=0)",
    "m.norm(x, keepdims=True, foo=1)", "x.unique(return_counts=False, axis=-1)",
    "m.unique(x, sorted=False, return_inverse=True, dims=-1)",
    "m.unique(x, True, return_counts=False, dims=-3)", "m.unique(x, True, True, True, foo=1)",
    "m.unique(x, return_counts=True, foo=1)", "x.unique(foo=1)", "m.unique(x, axis=0)",
    # Tensor.split, unique_consecutive and unflatten are Python in torch too (fuzz 617498)
    "x.split(2, axis=1)", "x.split(1, 0, 1)", "x.split()", "x.split(2, dim=0, foo=1)",
    "x.split(split_size=1, dim=1)", "x.split([1, 2], 1)", "m.split(x, 1, axis=1)",
    "x.unique_consecutive(axis=0)", "x.unflatten(axis=0, sizes=(2, 1))",
    # torch.norm's fifth positional argument is out, Tensor.norm's dtype (fuzz 709633)
    "m.norm(x, 3, -1, True, m.int64)", "m.norm(x, 3, -1, True, 5)",
    "m.norm(x, 3, -1, True, None, m.float64)", "m.norm(x, None, None, False, m.float64)",
    "m.norm(x, 2, -1, True, m.empty(0))", "x.norm(3, -1, True, m.float64)",
    "x.norm(3, -1, True, m.float64, 1)", "m.norm(x, 3, -1, True, None, m.float64, 1)",
    "m.norm(x, 3, -1, True, None, m.float64, dtype=m.float64)",
    "x.norm(3, -1, True, m.float64, dtype=m.float64)",
    "m.norm(x, 2, -1, True, m.empty(0), out=m.empty(0))",
    # div's parser counts out= among the arguments (fuzz 600302)
    "m.div(x, 1, 'floor', out=m.empty(0))", "m.div(x, x, 'floor', out=m.empty(0))",
    "m.div(x, 1, 'floor', 3, out=m.empty(0))",
    "m.div(x, 1, 'floor', rounding_mode='floor', out=m.empty(0))",
    "m.div(x, 1, out=m.empty(0), rounding_mode='floor')",
]
for _out in ["m.empty(0)", "m.empty(0, dtype=m.float64)", "m.empty(3)",
             "m.empty(0, dtype=m.int64)"]:
    for _args in ["", ", 'fro'", ", 3", ", p=3, dim=[0]", ", dim=None, dtype=m.float64",
                  ", 1, keepdim=False, dtype=m.int64", ", 2, 1, True"]:
        PYTHON_CALLS += [f"m.norm(x{_args}, out={_out})", f"m.norm(x.long(){_args}, out={_out})",
                         f"m.norm(x.requires_grad_(){_args}, out={_out})"]


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("source", PYTHON_CALLS)
def test_python_functions_keywords_and_out(source):
    parity.run_both(lambda m, x: eval(source), parity.make_tensor((2, 3), "float32"),
                    exact=False)


# cross: a dim that is no int is torch's TypeError (with its position only when given by
# position); without dim, torch looks for a dimension of size 3 in input first, then
# linalg.cross checks the operands.
CROSS_CALLS = []
for _a, _b in [("x", "s"), ("z", "z"), ("M", "s"), ("x", "M"), ("M", "M"), ("s", "s"),
               ("x", "x"), ("x.long()", "x"), ("x", "3"), ("M", "x")]:
    for _d in ["", ", None", ", 0", ", -1", ", (0, 1)", ", [0]", ", dim=(0,)", ", dim=[-1]",
               ", 'a'", ", 1.5", ", True", ", dim=None", ", dim=1", ", 0, 1", ", axis=0"]:
        CROSS_CALLS.append(f"m.cross({_a}, {_b}{_d})")
        if _a != "3":
            CROSS_CALLS.append(f"{_a}.cross({_b}{_d})")


@pytest.mark.filterwarnings("ignore:Using torch.cross without specifying the dim arg")
@pytest.mark.parametrize("source", CROSS_CALLS)
def test_cross_dim_checks(source):
    def call(m, x):
        names = {"m": m, "x": x, "s": m.tensor(2.0), "z": m.ones(2, 2), "M": m.ones(2, 3)}
        return eval(source, names)

    parity.run_both(call, parity.make_tensor((3,), "float32"))


# torch.where(..., out=t): numbers refused (its out overload takes tensors), then the autograd
# check of input and other (not of the condition), out's dtype, and the condition's last.
WHERE_CALLS = [f"m.where({c}, {a}, {b}, out={o})"
               for c in ["g", "g > 0", "f", "f > 0", "f.long()"]
               for a in ["g", "g > 0", "f", "1.0", "m.tensor(2.0)", "f.long()"]
               for b in ["g", "f", "-1.0", "m.ones_like(f)", "f > 0"]
               for o in ["m.empty(0)", "m.empty(0, dtype=m.int64)", "m.empty(3, dtype=m.float64)",
                         "3", "g.detach().clone().requires_grad_()"]]
WHERE_CALLS += ["m.where(f > 0, out=m.empty(0))", "m.where(f > 0, f, out=m.empty(0))"]


@pytest.mark.filterwarnings("ignore:where received a uint8")
@pytest.mark.parametrize("source", WHERE_CALLS)
def test_where_out_checks_in_torchs_order(source):
    def call(m, x):
        return eval(source, {"m": m, "g": x.detach().requires_grad_(), "f": x.detach()})

    parity.run_both(call, parity.make_tensor((3,), "float32"), check_inputs=False)


# softmax and log_softmax with out=: no autograd check of the input (torch's out= variant is
# composite: out gets a NotImplemented node), only of out; the dim, then out's dtype, before
# the kernel's dtype. argmax and argmin with out=: indices, no autograd check.
def _graph(result):
    node = result.grad_fn
    return (result, result.requires_grad, result.is_leaf,
            None if node is None else type(node).__name__.replace("Backward", ""),
            None if node is None else [type(n).__name__ for n, _ in node.next_functions])


SOFTMAX_OUT_CALLS = []
for _op in ["softmax", "log_softmax"]:
    for _input in ["g", "f", "f.double()", "f.long()"]:
        for _out in ["m.empty(0)", "m.empty(0, dtype=m.float64)", "m.empty(0, requires_grad=True)",
                     "m.empty(6)", "3"]:
            for _rest in ["-1", "0, m.float64", "dim=1", "-3"]:
                SOFTMAX_OUT_CALLS += [f"m.{_op}({_input}, {_rest}, out={_out})",
                                      f"m.{_op}(input={_input}, dim={_rest.split(',')[0]}, "
                                      f"out={_out})"]
for _op in ["argmax", "argmin"]:
    for _input in ["g", "f"]:
        for _out in ["m.empty(0)", "m.empty(0, dtype=m.int64)"]:
            SOFTMAX_OUT_CALLS += [f"m.{_op}({_input}, -1, out={_out})",
                                  f"m.{_op}({_input}, out={_out})"]


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("source", SOFTMAX_OUT_CALLS)
def test_out_of_ops_torch_does_not_differentiate(source):
    def call(m, x):
        result = eval(source, {"m": m, "g": x.detach().requires_grad_(), "f": x.detach()})
        try:
            result.sum().backward()
            error = None
        except RuntimeError as e:
            error = str(e)
        return _graph(result)[:4] + (error,)

    parity.run_both(call, parity.make_tensor((2, 3), "float32"), check_inputs=False,
                    exact=False)


# mean, var and std of an inference tensor that requires grad, outside inference mode: torch's
# kernels call sum(..., out=) with autograd, which refuses it (not under no_grad).
INFERENCE_LEAF_CALLS = ["m.mean(a, 0)", "m.mean(a)", "a.mean(0)", "a.mean(0, keepdim=True)",
                        "m.mean(a, (0,), dtype=m.float64)", "m.mean(h, 1)", "m.mean(h)",
                        "m.mean(b, 0)", "a.std(0)", "a.var(0)", "a.var()",
                        "a.std(unbiased=False)"]


@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("source", INFERENCE_LEAF_CALLS)
def test_moments_of_an_inference_leaf_that_requires_grad(source, no_grad):
    def call(m, x):
        with m.inference_mode():
            names = {"m": m, "a": m.arange(4, dtype=m.float32, requires_grad=True),
                     "h": m.ones(2, 2, dtype=m.float16, requires_grad=True), "b": m.ones(2)}
        with m.no_grad() if no_grad else m.enable_grad():
            result = eval(source, names)
        return result.detach().clone(), result.requires_grad

    parity.run_both(call, parity.make_tensor((3,), "float32"), exact=False)


# torch.mean(..., out=t) with a t that cannot hold the mean: over all elements mean.dtype_out's
# cast check (of the input's dtype, dtype= or not); over dims the in-place division's "result
# type Float" (the default dtype); integer inputs' "could not infer output dtype".
MEAN_OUT_CALLS = [
    form.format(dt=dt, odt=odt, rg=dt.startswith("float"))
    for dt in ["float16", "float32", "float64", "int64", "bool", "uint8"]
    for odt in ["int64", "int32", "bool", "float16", "float64", "uint8"]
    for form in ["m.mean(x.to(m.{dt}), [0], out=m.empty(0, dtype=m.{odt}))",
                 "m.mean(x.to(m.{dt}), out=m.empty(0, dtype=m.{odt}))",
                 "m.mean(x.to(m.{dt}), dim=0, keepdim=True, out=m.empty(0, dtype=m.{odt}))",
                 "m.mean(input=x.to(m.{dt}), out=m.empty(0, dtype=m.{odt}))",
                 "m.mean(x.to(m.{dt}), 0, out=m.empty(0, dtype=m.{odt}), dtype=m.{odt})",
                 "m.mean(x.to(m.{dt}), out=m.empty(0, dtype=m.{odt}), dtype=m.float32)",
                 "m.mean(x.to(m.{dt}).requires_grad_({rg}), 0, out=m.empty(0, dtype=m.{odt}))"]]


@pytest.mark.parametrize("source", MEAN_OUT_CALLS)
def test_mean_out_dtype_messages(source):
    parity.run_both(lambda m, x: eval(source), parity.make_tensor((2, 3), "float32"),
                    exact=False)


# x.floor_divide_(0) & co on a tensor that cannot hold the result: torch's cast error comes
# before the integer division by zero.
DIVIDE_INPLACE_CALLS = [f"x.to(m.{dt}).{op}({other})"
                        for op in ["floor_divide_", "remainder_", "div_", "fmod_"]
                        for dt in ["bool", "uint8", "int32", "int64", "float32"]
                        for other in ["0", "2", "0.5", "0.0", "True", "False", "m.tensor(0)",
                                      "m.tensor(0.5)", "m.zeros(3, dtype=m.int64)",
                                      "m.zeros(3, dtype=m.bool)", "m.tensor([0, 1, 2])"]]


@pytest.mark.parametrize("source", DIVIDE_INPLACE_CALLS)
def test_in_place_division_cast_before_zero_division(source):
    parity.run_both(lambda m, x: eval(source), parity.make_tensor((3,), "int64", nonzero=True))


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("size", [0, 5])
@pytest.mark.parametrize("form", ["m.mean(x, [0], out=y)", "m.mean(x, 1, keepdim=True, out=y)",
                                  "m.mean(x, dim=(0, 1), out=y)", "m.mean(x, out=y)",
                                  "m.mean(x, axis=1, out=y)"])
@pytest.mark.parametrize("out_dtype", ["int64", "bool", "uint8", "int8"])
def test_mean_out_refused_after_the_sum_is_written(out_dtype, form, size):
    # (torch's kernel adds up into out, in its dtype, before the division is refused)
    def call(m, x):
        y = m.zeros(size, dtype=getattr(m, out_dtype))
        try:
            eval(form)
            error = None
        except RuntimeError as e:
            error = str(e)
        return y, y._version, error

    parity.run_both(call, parity.make_tensor((2, 3), "float64"))


# torch.tensor(a float, dtype=an integer dtype): torch's overflow check lets a fraction above
# the largest value through (truncated), not one below the smallest.
@pytest.mark.parametrize("value,dtype", [
    (32767.5, "int16"), (32768.5, "int16"), (-32768.9, "int16"), (127.5, "int8"),
    (128.0, "int8"), (255.7, "uint8"), (-0.5, "uint8"), (255.99, "uint8"), (256.0, "uint8"),
    (-128.5, "int8"), (-128.0, "int8"), (127.999, "int8"), (9.223372036854775e18, "int64"),
    (2147483647.9, "int32"), (-2147483648.5, "int32"), (float("nan"), "int16"),
    (float("inf"), "int16"), (-1.5, "int16"), ([32767.5, -1.5], "int16")])
def test_tensor_of_a_float_in_an_integer_dtype(value, dtype):
    parity.run_both(lambda m: m.tensor(value, dtype=getattr(m, dtype)))


# rsub: alpha by position only after a number (torch's Scalar overload), else the list.
@pytest.mark.parametrize("source", [
    "m.rsub(x, 2.0, 2)", "m.rsub(x, 2.0, alpha=2)", "m.rsub(x, x, 2)", "m.rsub(x, x, 2, 3)",
    "m.rsub(x, 'a')", "m.rsub(x, 2.0, foo=1)", "m.rsub(x, x, alpha=2.5)",
    "m.rsub(x.long(), 2, 2.5)", "m.rsub(2.0, x)", "m.rsub(x, 2, 3, 4)", "m.rsub(x, 2, m.tensor(2))",
    "m.rsub(x, m.tensor(2.0), 2)", "2 - x", "m.rsub(x, 2, 2, alpha=3)", "m.rsub(x, True, 2)",
    "m.rsub(x, 2.0, True)"])
def test_rsub_overloads(source):
    parity.run_both(lambda m, x: eval(source), parity.make_tensor((3,), "float32"))


# A name a torch.return_types result lacks: Python names torch's C type by its full name.
@pytest.mark.parametrize("source", [
    "x.sort().exp()", "x.max(0).foo", "m.topk(x, 2).bar", "x.sort().values.exp()",
    "hasattr(x.sort(), 'exp')", "x.max(0, out=(m.empty(0), m.empty(0, dtype=m.long))).exp"])
def test_return_types_missing_attribute(source):
    parity.run_both(lambda m, x: eval(source), parity.make_tensor((3,), "float32"))


# torch.clamp(x, number bounds, out=t): t must have the result's dtype ("Found dtype Long but
# expected Double"); with tensor bounds t only has to hold it.
CLAMP_OUT_CALLS = [
    f"m.{op}(x.to(m.{dt}), {bounds}out=m.empty(0, dtype=m.{out}))"
    for op in ["clamp", "clip"]
    for dt in ["float64", "float32", "float16", "int64", "int32", "bool", "uint8"]
    for bounds in ["max=1, ", "0, 1, ", "min=0.5, ", "max=True, ", "min=m.tensor(0.), ",
                   "m.tensor(0), m.tensor(2), ", "max=1e10, ", "min=-1, max=None, ", ""]
    for out in ["int64", "float64", "float32", "bool"]]


@pytest.mark.parametrize("source", CLAMP_OUT_CALLS)
def test_clamp_out_dtype(source):
    parity.run_both(lambda m, x: eval(source), parity.make_tensor((3,), "float64"))


# torch's deprecated add(Number alpha, Tensor other) & co: a 0-d tensor is a Number there.
@pytest.mark.filterwarnings("ignore:This overload of")
@pytest.mark.parametrize("source", [
    "x.add(t, 0.5)", "m.add(x, t, 0.5)", "x.sub(t, 0.5)", "x.add(0.5, t)", "x.add(2, 0.5)",
    "m.sub(x, t, 0.5)", "x.add(t, 0.5, alpha=2)", "x.clone().add_(t, 0.5)", "x.add(x, t)",
    "x.add(t.requires_grad_(), 0.5)", "x.add(m.tensor([2.0]), 0.5)", "x.add(m.tensor(2), x)",
    "m.addcmul(x, t, x, x)", "x.sub(m.tensor(True), 0.5)"])
def test_deprecated_scale_first_overloads(source):
    parity.run_both(lambda m, x: eval(source, {"m": m, "x": x, "t": m.tensor(2.0)}),
                    parity.make_tensor((3,), "float32"))


# torch parses the arguments before autograd refuses out= for an input that requires grad: a
# number where a tensor goes is a TypeError first (fuzz 604248, 701959)
OUT_TYPE_FIRST_CALLS = ["m.maximum(y, -0.3, out=z)", "m.minimum(y, 2, out=z)",
                        "m.atan2(y, 2.0, out=z)", "m.mv(y, 2.0, out=z)", "m.dot(v, 2.0, out=z)",
                        "m.matmul(y, 2.0, out=z)", "m.cross(y, 2.0, out=z)",
                        "m.maximum(2.0, y, out=z)", "m.vdot(v, 1, out=z)",
                        "m.maximum(y, y, out=z)", "m.add(y, 2, out=z)"]


@pytest.mark.parametrize("source", OUT_TYPE_FIRST_CALLS)
def test_argument_types_before_autograd_refuses_out(source):
    def call(m, x):
        y = x.detach().requires_grad_()
        return eval(source, {"m": m, "y": y, "v": y[0], "z": m.zeros(2, 3)})  # noqa: S307

    parity.run_both(call, parity.make_tensor((2, 3), "float32"), check_inputs=False)


# torch takes a sequence for a tuple of ints when its first element is an int (one look);
# the rest are checked as the chosen overload unpacks them ("failed to unpack ... at pos 2"),
# where bools and one-element integer tensors pass and anything else is named
_DIM_SEQUENCES = {
    "float second": lambda m: (0, 1.5), "float first": lambda m: [1.5],
    "str": lambda m: (0, "1"), "None": lambda m: (0, None), "bool second": lambda m: (0, True),
    "bool first": lambda m: (True, 0), "int tensor": lambda m: (0, m.tensor(1)),
    "float tensor": lambda m: (0, m.tensor(1.0)),
    "one-element tensor": lambda m: (0, m.tensor([1])),
    "two-element tensor": lambda m: (0, m.tensor([1, 0])),
    "bool tensor": lambda m: (0, m.tensor(True)),
    "tensor first": lambda m: (m.tensor(1), 0), "third": lambda m: (0, 1, 2.0),
}


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "std", "nansum", "logsumexp"])
@pytest.mark.parametrize("form", ["method", "function", "keyword"])
@pytest.mark.parametrize("case", sorted(_DIM_SEQUENCES))
def test_a_dim_sequence_is_unpacked_as_torch_unpacks_it(op, form, case):
    def call(m, x):
        dims = _DIM_SEQUENCES[case](m)
        if form == "method":
            return getattr(x, op)(dims)
        if form == "keyword":
            return getattr(m, op)(x, dim=dims)
        return getattr(m, op)(x, dims)

    parity.run_both(call, parity.make_tensor((2, 3, 4), "float32"), exact=False)


@pytest.mark.parametrize("args", [(0, 1.5), (0, "a"), (1, None)], ids=repr)
def test_ints_given_one_by_one_are_unpacked_alike(args):
    parity.run_both(lambda m, x: x.flip(*args), parity.make_tensor((2, 3), "float32"))
