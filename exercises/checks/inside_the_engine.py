"""Checkers for the exercises of lesson 9, "Inside the engine".

The "build an op" checkers receive a class (a subclass of ``autograd.Function``); they
find the tensor library it was written with (the engine or torch) from its base class, and
then run it: its forward against the expected values, its backward against the derivative
with an upstream gradient that is not all ones, and ``gradcheck`` on float64 inputs.
"""
import sys
from collections.abc import Iterator, Mapping

import numpy as np

from exercises.checks.toolkit import (
    N_,
    _,
    all_of,
    as_values,
    checker,
    correct,
    describe,
    expect_equal,
    expect_tensor,
    is_function,
    is_tensor_like,
    n_,
    not_done,
    nth,
    unpack,
    wrong,
    wrong_form,
)

# ====================================================================== helpers
_LEAF_PREFIX = "torch::autograd::"


def _library(function_class):
    """The module (engine or torch) whose ``autograd.Function`` the class derives from."""
    for base in getattr(function_class, "__mro__", ()):
        root = base.__module__.split(".")[0]
        if base.__name__ == "Function" and root in ("engine", "torch") and root in sys.modules:
            return sys.modules[root]
    return None


def _node_name(name):
    """A node's name as learners may write it: ``AccumulateGrad`` with or without torch's
    C++ namespace, ``None`` (the string) for an entry without a node."""
    if name is None:
        return "None"
    if _is_node(name):  # the node itself
        name = name.name()
    name = str(name).strip()
    if name.lower() == "none":
        return "None"
    return name[len(_LEAF_PREFIX):] if name.startswith(_LEAF_PREFIX) else name


def _is_node(value):
    return hasattr(value, "next_functions") and callable(getattr(value, "name", None))


NAME_FORM = N_('a node\'s name in quotes, such as "SinBackward0", or "None"')


def _name_list(value, what, form):
    """``value`` (a list, tuple or NumPy array of names) as a list of names, or the Feedback
    saying how to write it."""
    names = None if isinstance(value, (str, Mapping)) else as_values(value)
    if names is None:
        return wrong_form(what, value, form)
    for index, name in enumerate(names):
        if not (isinstance(name, str) or name is None or _is_node(name)):
            return wrong_form(_("the {nth} name in {what}", nth=nth(index), what=what), name,
                              _(NAME_FORM))
    return [_node_name(v) for v in names]


def _check_function(function_class, *, name, inputs, forward, derivative, hints):
    """Run a learner's one-input Function: forward values, backward with an upstream
    gradient, and gradcheck. ``forward``/``derivative`` map a numpy array to the expected
    values; ``hints`` may hold "forward", "backward", "chain" and "gradcheck"."""
    if not isinstance(function_class, type) or not hasattr(function_class, "apply"):
        return wrong(_("your answer is {value}; the class {name} (a subclass of "
                       "torch.autograd.Function) is expected here",
                       value=describe(function_class), name=name))
    lib = _library(function_class)
    if lib is None:
        return wrong(_("{name} is not a subclass of torch.autograd.Function", name=name))
    values = np.array(inputs, dtype=np.float64)

    x = lib.tensor(values.tolist(), requires_grad=True)
    try:
        y = function_class.apply(x)
    except Exception as error:  # the learner's forward failed
        return wrong(_("{name}.apply(x) raised {error}: {message}",
                       name=name, error=type(error).__name__, message=error),
                     hints.get("forward"))
    if y is None:
        return not_done(_("{name}.apply(x) returns None: write forward (and backward), then "
                          "run this cell again", name=name))
    result = expect_tensor(y, what=_("the result of {name}.apply(x)", name=name),
                           values=forward(values).tolist(), atol=1e-5, rtol=1e-4,
                           hints={"values": hints.get("forward")})
    if not result.ok:
        return result
    if not y.requires_grad or y.grad_fn is None:
        return wrong(_("the result of {name}.apply(x) has no grad_fn: call {name}.apply(x), "
                       "not {name}.forward(...)", name=name))

    upstream = np.linspace(0.5, 2.0, values.size)  # not all ones: catches a missing grad_output
    try:
        (y * lib.tensor(upstream.tolist())).sum().backward()
    except Exception as error:  # the learner's backward failed
        return wrong(_("backward raised {name}: {error}", name=type(error).__name__, error=error),
                     hints.get("backward"))
    if x.grad is None:
        return wrong(_("after backward, x.grad is None: backward did not send a gradient to x"),
                     hints.get("backward"))
    if np.allclose(x.grad.tolist(), derivative(values), rtol=1e-4, atol=1e-6):
        return wrong(_("x.grad comes out as if the gradient arriving from further down the "
                       "graph were all ones"), hints.get("chain"))
    result = expect_tensor(x.grad, what=_("x.grad (after backward with an upstream gradient)"),
                           values=(upstream * derivative(values)).tolist(), atol=1e-5,
                           rtol=1e-4, hints={"values": hints.get("backward")})
    if not result.ok:
        return result

    x64 = lib.tensor(values.tolist(), dtype=lib.float64, requires_grad=True)
    try:
        passed = lib.autograd.gradcheck(function_class.apply, (x64,), raise_exception=False)
    except Exception as error:  # e.g. a backward that only works in float32
        return wrong(_("gradcheck raised {name}: {error}", name=type(error).__name__, error=error),
                     hints.get("gradcheck"))
    if not passed:
        return wrong(_("gradcheck found a difference between your backward and the finite "
                       "differences of your forward"), hints.get("gradcheck"))
    return correct(_("{name} computes the right values, its backward applies the chain rule, "
                     "and gradcheck passes", name=name))


def _function(torch, name, forward, backward, save_output=False):
    """A Function class built with ``torch`` (for the right and wrong answers)."""
    def fwd(ctx, x):
        result = forward(x)
        ctx.save_for_backward(result if save_output else x)
        return result

    def bwd(ctx, grad_output):
        (saved,) = ctx.saved_tensors
        return backward(saved, grad_output)

    return type(name, (torch.autograd.Function,),
                {"forward": staticmethod(fwd), "backward": staticmethod(bwd)})


# ====================================================================== 8.1 next_functions
_NEXT_FUNCTIONS = (["MulBackward0", "AccumulateGrad"], ["ExpBackward0", "None"])


@checker(right=lambda torch: (["MulBackward0", "torch::autograd::AccumulateGrad"],
                              ["ExpBackward0", "None"]),
         wrong=lambda torch: [
             (["AddBackward0", "AccumulateGrad"], ["ExpBackward0", "None"]),  # its own node
             (["MulBackward0"], ["ExpBackward0"]),            # leaves and constants left out
             (["AccumulateGrad", "MulBackward0"], ["ExpBackward0", "None"]),  # order swapped
             (["MulBackward0", "AccumulateGrad"], ["ExpBackward0", "AccumulateGrad"]),
             ["MulBackward0", "AccumulateGrad"],               # only one of the two lists
             (["MulBackward0", "AccumulateGrad"], ["ExpBackward0", 2.0]),  # the number itself
             ("MulBackward0, AccumulateGrad", "ExpBackward0, None"),  # one string per list
         ])
def check_09_next_functions(answer):
    """Exercise 9.1: the node names in out.grad_fn.next_functions and in
    out.grad_fn.next_functions[0][0].next_functions."""
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        return wrong_form(_("your prediction"), answer, _("two lists of names: ([...], [...])"))
    lists = [_name_list(part, _("your {nth} list", nth=nth(place)),
                        _('a list of names, like ["...", "..."]'))
             for place, part in enumerate(answer)]
    for names in lists:
        if not isinstance(names, list):
            return names
    first, second = lists
    return all_of(
        expect_equal(first, _NEXT_FUNCTIONS[0], what=_("your first list"),
                     hint=_("one entry per input of the last operation, in the order of its "
                            "inputs; a leaf is reached through its AccumulateGrad node.")),
        expect_equal(second, _NEXT_FUNCTIONS[1], what=_("your second list"),
                     hint=_("what did the multiplication multiply? A plain number needs no "
                            "gradient.")),
        success=_("both lists are right: one entry per input, a leaf through AccumulateGrad, a "
                  "number through None"),
    )


# ====================================================================== 8.2 the order
_ORDER = ["AddBackward0", "SinBackward0", "ExpBackward0", "MulBackward0", "AccumulateGrad"]


@checker(right=lambda torch: ["AddBackward0", "SinBackward0", "ExpBackward0", "MulBackward0",
                              "torch::autograd::AccumulateGrad"],
         wrong=lambda torch: [
             ["AddBackward0", "SinBackward0", "MulBackward0", "ExpBackward0",
              "AccumulateGrad"],                               # depth first
             ["AddBackward0", "ExpBackward0", "SinBackward0", "MulBackward0",
              "AccumulateGrad"],                               # in the order of the inputs
             ["AccumulateGrad", "MulBackward0", "SinBackward0", "ExpBackward0",
              "AddBackward0"],                                 # forward order
             ["AddBackward0", "SinBackward0", "MulBackward0", "AccumulateGrad",
              "ExpBackward0", "AccumulateGrad"],               # the leaf's node twice
             "AddBackward0, SinBackward0, ExpBackward0, MulBackward0, AccumulateGrad",
         ])
def check_09_backward_order(answer):
    """Exercise 9.2: the order in which backward runs the nodes of z = (x * 2).sin() + x.exp()."""
    names = _name_list(answer, _("your prediction"),
                       _("a list of node names, in the order they run"))
    if not isinstance(names, list):
        return names
    if len(names) != len(_ORDER):
        if not names:
            return wrong(_("your list is empty; count the nodes in the graph again"),
                         _("every node runs exactly once, the leaf's AccumulateGrad included."))
        return wrong(n_("your list has {n} name; count the nodes in the graph again",
                        "your list has {n} names; count the nodes in the graph again",
                        len(names)),
                     _("every node runs exactly once, the leaf's AccumulateGrad included."))
    if names[0] != _ORDER[0]:
        return wrong(_("the first node is not right"),
                     _("backward starts at the output's grad_fn."))
    if names[-1] != _ORDER[-1]:
        return wrong(_("the last node is not right"),
                     _("which node can only run once every path has delivered its gradient?"))
    for position, (given, expected) in enumerate(zip(names, _ORDER)):
        if given != expected:
            return wrong(_("the node at position {position} is not right", position=position),
                         _("a node runs only when all its gradients have arrived; among the "
                           "nodes that are ready, the one recorded last runs first."))
    return correct(_("that is the order backward runs them: every node after all the nodes "
                     "that send it gradients, the most recently recorded first"))


# ====================================================================== 8.3 topological order
def _reference_order(root):
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((n, False) for n, _unused in node.next_functions)
    return order[::-1]


def _preorder(root):  # each node before its inputs, but not after all its consumers
    order, seen = [], set()

    def visit(node):
        if node is None or id(node) in seen:
            return
        seen.add(id(node))
        order.append(node)
        for n, _unused in node.next_functions:
            visit(n)

    visit(root)
    return order


def _with_repeats(root):  # a node reached along two paths is listed twice
    order = []

    def visit(node):
        if node is None:
            return
        order.append(node)
        for n, _unused in node.next_functions:
            visit(n)

    visit(root)
    return order


def _graph(torch):
    x = torch.tensor(2.0, requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)
    a = x * w
    z = a.exp() + a * w
    return z


@checker(right=lambda torch: (_reference_order, _graph(torch)),
         wrong=lambda torch: [(_preorder, _graph(torch)), (_with_repeats, _graph(torch)),
                              (lambda root: _reference_order(root)[::-1], _graph(torch)),
                              (lambda root: [n.name() for n in _reference_order(root)],
                               _graph(torch))])
def check_09_topological_order(answer):
    """Exercise 9.3: ``(topological_order, z)``: a function that lists the nodes reachable
    from a node, each before all the nodes it sends gradients to."""
    parts = unpack(answer, ("topological_order", "z"))
    if not isinstance(parts, tuple):
        return parts
    function, tensor = parts
    if not is_function(function):
        return wrong(_("topological_order is {value}, not a function", value=describe(function)))
    root = getattr(tensor, "grad_fn", None)
    if root is None or not _is_node(root):
        if hasattr(tensor, "grad_fn"):
            return wrong(_("z has no grad_fn: build the graph of the exercise again, then pass "
                           "its z"))
        return wrong(_("z is {value}: build the graph of the exercise again, then pass its z",
                       value=describe(tensor)))
    try:
        order = function(root)
    except Exception as error:  # the learner's function is being checked
        return wrong(_("topological_order(z.grad_fn) raised {name}: {error}",
                       name=type(error).__name__, error=error),
                     _("skip the None entries of next_functions, and remember the nodes you "
                       "have already visited."))
    if order is None:
        return not_done(_("topological_order returns None: write it, then run this cell again"))
    if not isinstance(order, (list, tuple, Iterator)):
        return wrong(_("topological_order(z.grad_fn) returned {value}; it should return a list "
                       "of nodes", value=describe(order)))
    order = list(order)
    if any(isinstance(node, str) for node in order):
        return wrong(_("your list holds names; return the nodes themselves (two nodes may have "
                       "the same name)"), _("append node, not node.name()."))
    strangers = [node for node in order if not _is_node(node)]
    if strangers:
        return wrong(_("your list holds {value}, which is not a node of the graph",
                       value=describe(strangers[0])), _("skip the None entries of next_functions."))
    expected = _reference_order(root)
    ids = [id(node) for node in order]
    if len(set(ids)) != len(ids):
        return wrong(_("a node appears more than once in your list"),
                     _("remember which nodes you have already visited."))
    missing = [node for node in expected if id(node) not in set(ids)]
    if missing:
        return wrong(n_("your list misses {n} node, e.g. {name}",
                        "your list misses {n} nodes, e.g. {name}", len(missing),
                        name=missing[0].name()),
                     _("follow every entry of next_functions that is not None, down to the "
                       "AccumulateGrad nodes."))
    if len(order) != len(expected):
        return wrong(_("your list holds something that is not a node of this graph"))
    if order[0] is not root:
        return wrong(_("the first node is not the root"), _("backward starts at the root."))
    position = {id(node): k for k, node in enumerate(order)}
    for node in order:
        for next_node, _unused in node.next_functions:
            if next_node is not None and position[id(next_node)] < position[id(node)]:
                return wrong(_("the {name} at position {position} comes before the {name2} at "
                               "position {position2}, which sends it a gradient",
                               name=next_node.name(), position=position[id(next_node)],
                               name2=node.name(), position2=position[id(node)]),
                             _("a node may only come once every node that feeds it is already "
                               "in the list: think of depth-first search, then reverse."))
    return correct(_("every node comes after all the nodes that send it gradients: a "
                     "topological order"))


# ====================================================================== 8.4 Cube
def _cube(torch):
    return _function(torch, "Cube", lambda x: x ** 3, lambda x, g: g * 3 * x ** 2)


@checker(right=_cube,
         wrong=lambda torch: [
             _function(torch, "Cube", lambda x: x ** 3, lambda x, g: 3 * x ** 2),  # no g
             _function(torch, "Cube", lambda x: x ** 3, lambda x, g: g * 2 * x),   # x**2's
             _function(torch, "Cube", lambda x: x ** 2, lambda x, g: g * 2 * x),   # forward
             _function(torch, "Cube", lambda x: x ** 3, lambda x, g: g * x ** 3),
             "Cube",
         ])
def check_09_cube(answer):
    """Exercise 9.4: ``Cube``, a Function computing x ** 3 with its own backward."""
    return _check_function(
        answer, name="Cube", inputs=[-1.5, 0.5, 2.0], forward=lambda v: v ** 3,
        derivative=lambda v: 3 * v ** 2,
        hints={"forward": _("forward returns x cubed."),
               "backward": _("the derivative of x³ is 3x²; save x in forward to use it here."),
               "chain": _("does backward use every argument it receives?"),
               "gradcheck": _("compare your formula with the derivative of x³.")})


# ====================================================================== 8.5 Sigmoid
def _np_sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _sigmoid(torch):
    return _function(torch, "Sigmoid", lambda x: 1 / (1 + (-x).exp()),
                     lambda s, g: g * s * (1 - s), save_output=True)


@checker(right=_sigmoid,
         wrong=lambda torch: [
             _function(torch, "Sigmoid", lambda x: 1 / (1 + (-x).exp()),
                       lambda s, g: s * (1 - s), save_output=True),       # forgot grad_output
             _function(torch, "Sigmoid", lambda x: 1 / (1 + (-x).exp()),
                       lambda x, g: g * x * (1 - x)),                     # the input, not s
             _function(torch, "Sigmoid", lambda x: 1 / (1 + x.exp()),
                       lambda s, g: g * s * (1 - s), save_output=True),   # sign in forward
         ])
def check_09_sigmoid(answer):
    """Exercise 9.5: ``Sigmoid``, 1 / (1 + exp(-x)), saving its output for backward."""
    return _check_function(
        answer, name="Sigmoid", inputs=[-2.0, 0.0, 0.5, 3.0], forward=_np_sigmoid,
        derivative=lambda v: _np_sigmoid(v) * (1 - _np_sigmoid(v)),
        hints={"forward": _("sigmoid(x) = 1 / (1 + exp(-x))."),
               "backward": _("sigmoid' = s * (1 - s), where s is the sigmoid's output (not x): "
                             "save the output in forward."),
               "chain": _("does backward use every argument it receives?"),
               "gradcheck": _("s * (1 - s) uses the output s of forward, not the input x.")})


# ====================================================================== 8.6 fix Multiply
def _multiply(torch, backward):
    def fwd(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    def bwd(ctx, grad_output):
        x, w = ctx.saved_tensors
        return backward(x, w, grad_output)

    return type("Multiply", (torch.autograd.Function,),
                {"forward": staticmethod(fwd), "backward": staticmethod(bwd)})


@checker(right=lambda torch: _multiply(torch, lambda x, w, g: (g * w, g * x)),
         wrong=lambda torch: [
             _multiply(torch, lambda x, w, g: (w, x)),             # the bug: no grad_output
             _multiply(torch, lambda x, w, g: (g * x, g * w)),     # gradients swapped
             _multiply(torch, lambda x, w, g: g * w),              # one gradient for two
         ])
def check_09_multiply(answer):
    """Exercise 9.6: the fixed ``Multiply`` (x * w), checked on inputs of shape (3,)."""
    if not isinstance(answer, type) or not hasattr(answer, "apply"):
        return wrong(_("your answer is {value}; the class Multiply is expected here",
                       value=describe(answer)))
    lib = _library(answer)
    if lib is None:
        return wrong(_("Multiply is not a subclass of torch.autograd.Function"))
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    w = lib.tensor([0.5, 4.0, -1.0], requires_grad=True)
    upstream = lib.tensor([1.0, 2.0, -3.0])
    try:
        product = answer.apply(x, w)
    except Exception as error:  # the learner's forward failed
        return wrong(_("Multiply.apply(x, w) raised {name}: {error}",
                       name=type(error).__name__, error=error))
    if not is_tensor_like(product):
        return wrong(_("Multiply.apply(x, w) returned {value}; it should return the tensor x * "
                       "w", value=describe(product)))
    try:
        (product * upstream).sum().backward()
    except Exception as error:  # the learner's backward failed
        return wrong(_("backward raised {name}: {error}", name=type(error).__name__, error=error),
                     _("backward returns one gradient per input of forward."))
    grads_are_plain = x.grad is not None and w.grad is not None and \
        np.allclose(x.grad.tolist(), [0.5, 4.0, -1.0]) and \
        np.allclose(w.grad.tolist(), [1.0, -2.0, 3.0])
    if grads_are_plain:
        return wrong(_("x.grad and w.grad come out as if the gradient arriving from further "
                       "down the graph were all ones"),
                     _("which argument of backward does this backward never use?"))
    return all_of(
        expect_tensor(x, what="x", grad=[0.5, 8.0, 3.0],
                      hints={"grad": _("d(x * w)/dx is w, times grad_output.")}),
        expect_tensor(w, what="w", grad=[1.0, -4.0, -9.0],
                      hints={"grad": _("d(x * w)/dw is x, times grad_output.")}),
        success=_("Multiply's backward now applies the chain rule: x and w get the right "
                  "gradients"),
    )
