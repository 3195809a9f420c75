"""Checkers for the exercises of lesson 5, ``05_graphs_and_leaves``
(solutions/05_graphs_and_leaves.ipynb)."""
import math
from collections.abc import Mapping

from exercises.checks.toolkit import (
    _,
    all_of,
    as_number,
    as_values,
    checker,
    correct,
    describe,
    expect_equal,
    expect_items,
    expect_tensor,
    is_function,
    is_tensor_like,
    n_,
    not_done,
    unpack,
    wrong,
    wrong_form,
)

ACCUMULATE_GRAD = "torch::autograd::AccumulateGrad"

# --- private helpers -------------------------------------------------------------------


def _written_node_name(value):
    """"<MulBackward0>" and " MulBackward0" name the same node."""
    return value.strip().strip("<>").strip() if isinstance(value, str) else value


def _node_name(node):
    return None if node is None else node.name()


def _leaf_variables(node):
    """The leaves (AccumulateGrad variables) below ``node``, each once, in walking order."""
    found, seen, todo = [], set(), [node]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if hasattr(current, "variable"):
            found.append(current.variable)
        todo.extend(child for child, _unused in reversed(current.next_functions))
    return found


# --- exercise 4.1: which tensors are leaves ---------------------------------------------

LEAF_NAMES = ("p", "q", "r", "s", "t")
LEAF_FLAGS = [True, True, False, True, False]


@checker(right=lambda torch: list(LEAF_FLAGS),
         wrong=lambda torch: [[True, False, False, False, False],   # "q, s are not leaves"
                              [True, True, False, False, False],    # "computed means non-leaf"
                              [True, False, False, True, False],
                              (True, True, False, True),            # one missing
                              ["True", "True", "False", "True", "False"],  # in quotes
                              [1, 1, 0, 1, 0]])                     # 1 and 0 for True/False
def check_05_leaves(prediction):
    """Exercise 5.1: predict ``is_leaf`` of p, q, r, s and t, as a list of five bools."""
    return expect_items(prediction, LEAF_FLAGS, LEAF_NAMES, form=bool, hints={
        "q": _("a tensor you create is a leaf, whether it requires grad or not."),
        "s": _("s is computed only from q, which does not require grad: was a node recorded?"),
        "r": _("r is computed from p, which requires grad."),
        "t": _("t is computed from r, which requires grad."),
    })


# --- exercise 4.2: grad_fn names ----------------------------------------------------------

NODE_NAMES = ("v", "z", "m")
NODE_EXPECTED = ["MulBackward0", "ExpBackward0", "MeanBackward0"]


@checker(right=lambda torch: list(NODE_EXPECTED),
         wrong=lambda torch: [["MulBackward0", "AddBackward0", "MeanBackward0"],
                              ["MulBackward", "ExpBackward", "MeanBackward"],
                              ["MulBackward0", "ExpBackward0", "SumBackward0"],
                              ["MulBackward0", "ExpBackward0"],                 # one missing
                              "MulBackward0, ExpBackward0, MeanBackward0"])     # one string
def check_05_node_names(prediction):
    """Exercise 5.2: predict ``grad_fn.name()`` of v, z and m, as a list of three strings."""
    values = None if isinstance(prediction, (str, Mapping)) else as_values(prediction)
    if values is not None and len(values) == 3 and all(
            isinstance(p, str) and p.strip().strip("<>").strip().rstrip("0123456789") ==
            e.rstrip("0123456789") for p, e in zip(values, NODE_EXPECTED)):
        if list(p.strip().strip("<>").strip() for p in values) != NODE_EXPECTED:
            return wrong(_("the operations are right, but a node's name also ends in a number"),
                         _("print any grad_fn.name() from the lesson to see the full form."))
    return expect_items(prediction, NODE_EXPECTED, NODE_NAMES, form=str,
                        normalise=_written_node_name,
                        hints={
        "z": _("a node is named after the last operation that made the tensor."),
        "m": _("which operation makes m from z?"),
        "v": _("which operation makes v from u?"),
    })


# --- exercise 4.3: which gradients survive ------------------------------------------------

GRAD_NAMES = ("a", "b", "c", "d")
HAS_GRAD = [True, False, True, False]
GRAD_VALUES = [36.0, 12.0]


@checker(right=lambda torch: (list(HAS_GRAD), list(GRAD_VALUES)),
         wrong=lambda torch: [([True, False, True, True], [36.0, 12.0]),   # the root keeps 1
                              ([True, False, False, False], [36.0, 12.0]),  # retain_grad missed
                              ([True, True, True, False], [36.0, 12.0]),
                              ([True, False, True, False], [12.0, 12.0]),   # forgot the factor b
                              ([True, False, True, False], [36.0, 6.0]),
                              ([True, False, True, False], ["36", "12"]),   # in quotes
                              ([True, False, True, False], 36.0)])          # one number
def check_05_surviving_grads(answer):
    """Exercise 5.3: ``(has_grad, grads)``: for a, b, c, d whether ``.grad`` is a tensor after
    backward, and the values of a.grad and c.grad."""
    parts = unpack(answer, ("has_grad", "grads"))
    if not isinstance(parts, tuple):
        return parts
    has_grad, grads = parts
    first = expect_items(has_grad, HAS_GRAD, GRAD_NAMES, form=bool, hints={
        "b": _("b was created without requires_grad=True."),
        "c": _("c is not a leaf, but look at the line after c = a * b."),
        "d": _("d is the output: backward starts there, but is it a leaf?"),
        "a": _("a is a leaf that requires grad."),
    })
    if not first.ok:
        return first
    values = None if isinstance(grads, (str, Mapping)) else as_values(grads)
    if values is None or len(values) != 2:
        return wrong_form("grads", grads, _("a list of two numbers: a.grad and c.grad"))
    for name, value, right, hint in zip(("a.grad", "c.grad"), values, GRAD_VALUES, (
            _("dd/da = dd/dc * dc/da, and dc/da is not 1."), _("d = c ** 2, and c = 6."))):
        number = as_number(value)
        if number is None:
            return wrong_form(_("your value for {name}", name=name), value, _("a number"))
        if abs(number - right) > 1e-4:
            return wrong(_("your value for {name} is {number}, which is not right",
                           name=name, number=repr(number)), hint)
    return correct(_("you know which gradients survive, and their values."))


# --- exercise 4.4: a gradient by hand, checked by backward ---------------------------------

SIN_CHAIN_GRAD = math.cos(4.0) * 5.0  # z = sin(x**3 + 2x + 1) at x = 1: y = 4, dy/dx = 5


def _sin_chain(torch, backward=True):
    x = torch.tensor(1.0, requires_grad=True)
    z = torch.sin(x ** 3 + 2 * x + 1)
    if backward:
        z.backward()
    return x


@checker(right=lambda torch: (SIN_CHAIN_GRAD, _sin_chain(torch)),
         wrong=lambda torch: [(math.cos(4.0), _sin_chain(torch)),           # no inner derivative
                              (5.0 * math.sin(4.0), _sin_chain(torch)),     # sin' taken as sin
                              (math.cos(13.0) * 14.0, _sin_chain(torch)),   # the lesson's x = 2
                              (SIN_CHAIN_GRAD, _sin_chain(torch, backward=False)),
                              (SIN_CHAIN_GRAD, torch.tensor(1.0)),
                              (str(SIN_CHAIN_GRAD), _sin_chain(torch)),     # in quotes
                              (SIN_CHAIN_GRAD, 1.0)])                       # x as a number
def check_05_gradient_by_hand(answer):
    """Exercise 5.4: ``(by_hand, x)``: dz/dx of z = sin(x**3 + 2x + 1) at x = 1 worked out by
    hand, and the leaf x after z.backward()."""
    parts = unpack(answer, ("by_hand", "x"))
    if not isinstance(parts, tuple):
        return parts
    by_hand, x = parts
    number = as_number(by_hand, tensors=True)  # a one-number tensor holds the same number
    if number is not None:
        by_hand = number
    elif is_tensor_like(by_hand):
        return wrong_form("by_hand", by_hand, _("one number"))
    return all_of(
        expect_equal(by_hand, SIN_CHAIN_GRAD, what="by_hand", atol=1e-4,
                     hint=_("the chain rule, at x = 1: cos of the inside, times the derivative "
                            "of the inside, 3x² + 2.")),
        expect_tensor(x, what="x", shape=(), values=1.0, requires_grad=True, is_leaf=True,
                      grad=SIN_CHAIN_GRAD, atol=1e-4, hints={
                          "values": _("this exercise takes the derivative at x = 1."),
                          "requires_grad": _("x must be created with requires_grad=True."),
                          "grad": _("did you call z.backward()? (Run the cell only once: "
                                    "gradients add up.)")}),
        success=_("your gradient by hand and the one backward() computed agree."))


# --- exercise 4.5: build a graph to order ---------------------------------------------------

PATH = ["SumBackward0", "ExpBackward0", "MulBackward0", ACCUMULATE_GRAD]


def _first_path(node, limit=20):
    """Node names along the first input of each node, from ``node`` down to a leaf."""
    names = []
    while node is not None and len(names) < limit:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def _t(torch):
    return torch.tensor([1.0, 2.0, 3.0], requires_grad=True)


@checker(right=lambda torch: (_t(torch) * 2).exp().sum(),
         wrong=lambda torch: [_t(torch).exp().sum() * 2,        # the multiplication last
                              (_t(torch).exp() * 2).sum(),      # the multiplication in between
                              (_t(torch) * 2).exp().mean(),     # mean instead of sum
                              (_t(torch) * 2).exp(),            # no sum: not one number
                              (_t(torch).detach() * 2).exp().sum()])  # out of the graph
def check_05_build_graph(z):
    """Exercise 5.5: z built from t = [1., 2., 3.] whose graph, along first inputs, is
    SumBackward0 -> ExpBackward0 -> MulBackward0 -> AccumulateGrad (of t)."""
    if not is_tensor_like(z):
        return wrong(_("z is {value}, not a tensor", value=describe(z)))
    if z.grad_fn is None:
        return wrong(_("z has no grad_fn: it is not connected to t's graph"),
                     _("compute z from t itself, not from a detached copy or new tensor."))
    names = _first_path(z.grad_fn)
    for step, (got, want) in enumerate(zip(names, PATH)):
        if got != want:
            return wrong(_("step {step} of the path from z.grad_fn is {got}, which is not the "
                           "node this exercise asks for there", step=step, got=got),
                         _("the operation done last is the first node; read the path from the "
                           "top down."))
    if len(names) != len(PATH):
        return wrong(_("the path from z.grad_fn has {count} nodes, not {count2}",
                       count=len(names), count2=len(PATH)))
    leaf = z.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].variable
    if tuple(leaf.shape) != (3,) or leaf.tolist() != [1.0, 2.0, 3.0]:
        return wrong(_("the path does not end at t = [1., 2., 3.]"))
    return correct(_("the graph of z has exactly the nodes asked for."))


# --- exercise 4.6: find the leaves by walking the graph ------------------------------------


def _leaves_graph(torch):
    torch.manual_seed(0)
    p1 = torch.randn(2, requires_grad=True)
    p2 = torch.randn(2, requires_grad=True)
    k = torch.tensor([1.0, 1.0])
    return ((p1 * k).sin() + p2 * p2).sum()


def _find_leaves_right(node):
    leaves, seen = [], set()

    def visit(n):
        if n is None or n in seen:
            return
        seen.add(n)
        if hasattr(n, "variable"):
            leaves.append(n.variable)
        for child, _unused in n.next_functions:
            visit(child)

    visit(node)
    return leaves


def _find_leaves_with_repeats(node):
    if node is None:
        return []
    if hasattr(node, "variable"):
        return [node.variable]
    return [leaf for child, _unused in node.next_functions
            for leaf in _find_leaves_with_repeats(child)]


def _find_leaf_nodes(node):
    if node is None:
        return []
    if hasattr(node, "variable"):
        return [node]
    return [n for child, _unused in node.next_functions for n in _find_leaf_nodes(child)]


def _find_leaves_one_level(node):
    return [child.variable for child, _unused in node.next_functions
            if child is not None and hasattr(child, "variable")]


@checker(right=lambda torch: (_find_leaves_right, _leaves_graph(torch)),
         wrong=lambda torch: [(_find_leaves_with_repeats, _leaves_graph(torch)),
                              (_find_leaf_nodes, _leaves_graph(torch)),
                              (_find_leaves_one_level, _leaves_graph(torch)),
                              (lambda node: [], _leaves_graph(torch))])
def check_05_find_leaves(answer):
    """Exercise 5.6: ``(find_leaves, out)``: a function that walks ``next_functions`` from a
    node and returns the leaf tensors below it, each once."""
    parts = unpack(answer, ("find_leaves", "out"))
    if not isinstance(parts, tuple):
        return parts
    find_leaves, out = parts
    if not is_function(find_leaves):
        return wrong(_("find_leaves is {value}, not a function", value=describe(find_leaves)))
    if not is_tensor_like(out) or out.grad_fn is None:
        return wrong(_("out should be the tensor given in the exercise, with its graph, not "
                       "{value}",
                       value=describe(out) if not is_tensor_like(out) else 'a tensor without one'))
    # the whole graph, then a part of it (so a list written by hand cannot pass)
    nodes = [out.grad_fn]
    while nodes[-1] is not None and nodes[-1].next_functions and len(nodes) < 3:
        nodes.append(nodes[-1].next_functions[0][0])
    for node in (nodes[0], nodes[-1]):
        if node is None:
            continue
        where = _("the {name} node", name=node.name())
        expected = _leaf_variables(node)
        try:
            got = find_leaves(node)
        except Exception as error:  # the learner's function failed: say how, kindly
            return wrong(_("find_leaves of {where} raised {name}: {error}",
                           where=where, name=type(error).__name__, error=error),
                         _("a slot of next_functions can hold None."))
        if got is None:
            return not_done(_("find_leaves returned None: fill in its body so that it returns "
                              "the list of leaves, then run both cells again."))
        if got is Ellipsis:
            return not_done()
        if not isinstance(got, (list, tuple, set)):
            return wrong(_("find_leaves of {where} returned {value}, not a list",
                           where=where, value=describe(got)))
        for item in got:
            if not is_tensor_like(item):
                return wrong(_("find_leaves of {where} returned a list holding {value}, which "
                               "is not a tensor", where=where, value=describe(item)),
                             _("an AccumulateGrad node's .variable is the leaf tensor."))
        ids = [id(item) for item in got]
        if len(set(ids)) != len(ids):
            return wrong(_("find_leaves of {where} lists a leaf more than once", where=where),
                         _("a leaf used twice is reached by two paths: remember the nodes you "
                           "have visited."))
        if set(ids) != {id(leaf) for leaf in expected}:
            missing = len({id(leaf) for leaf in expected} - set(ids))
            found = n_("find_leaves of {where} returned {n} tensor",
                       "find_leaves of {where} returned {n} tensors", len(got), where=where)
            return wrong(n_("{found}, and misses {n} leaf of the graph",
                            "{found}, and misses {n} leaves of the graph", missing, found=found),
                         _("walk all the way down: the children of every node, recursively."))
    return correct(_("find_leaves finds every leaf of the graph, each once."))


# --- exercise 4.7: fix the missing gradient -----------------------------------------------


def _gradient_of_a(torch, fixed=True, as_leaf=False):
    def gradient_of_a():
        w = torch.tensor([1.0], requires_grad=True)
        x = torch.tensor([2.0], requires_grad=True)
        a = w + x
        if as_leaf:  # "fixed" by cutting a out of the graph: w.grad would be wrong
            a = a.detach().requires_grad_()
        if fixed and not as_leaf:
            a.retain_grad()
        b = w + 1
        y = a * b
        y.backward()
        if not fixed:
            a.retain_grad()
        return a
    return gradient_of_a


@checker(right=lambda torch: _gradient_of_a(torch),
         wrong=lambda torch: [_gradient_of_a(torch, fixed=False),
                              _gradient_of_a(torch, as_leaf=True)])
def check_05_fix_retain_grad(gradient_of_a):
    """Exercise 5.7 (fix the bug): ``gradient_of_a()`` returns the non-leaf a = w + x with its
    gradient dy/da kept."""
    if not is_function(gradient_of_a):
        return wrong(_("pass the function gradient_of_a itself (no parentheses), not {value}",
                       value=describe(gradient_of_a)))
    try:
        a = gradient_of_a()
    except Exception as error:  # the learner's function failed: say how, kindly
        return wrong(_("gradient_of_a() raised {name}: {error}",
                       name=type(error).__name__, error=error))
    if a is None or a is Ellipsis:
        return not_done(_("gradient_of_a() returned nothing: it should return a."))
    return all_of(
        expect_tensor(a, what=_("the a returned"), values=[3.0], requires_grad=True,
                      is_leaf=False, grad_fn="AddBackward0", grad=[2.0], hints={
                          "is_leaf": _("keep a = w + x as it is: a computed tensor, part of "
                                       "the graph."),
                          "grad_fn": _("keep a = w + x as it is."),
                          "grad": _("when does backward compute a's gradient, and when does "
                                    "the function ask to keep it?"),
                      }),
        success=_("a is still a computed tensor, and now keeps its gradient."))
