"""Nested containers of tensors, flattened and rebuilt: the part of ``torch.utils._pytree``
that ``torch.func`` relies on.

A transform's inputs and outputs may be a tensor, or tuples, lists, dicts and named tuples
of them, nested. ``tree_flatten`` lists the leaves (everything that is not one of those
containers) in order, with a spec that ``tree_unflatten`` uses to put new leaves back in
the same shape; ``spec_text`` prints a spec as torch's ``treespec_pprint`` does
(``(*, [*, *])``), which torch's errors quote.
"""


class TreeSpec:
    """The shape of a container tree: its kind, its keys, and one spec per child."""

    __slots__ = ("kind", "context", "children")

    def __init__(self, kind, context, children):
        self.kind = kind          # None for a leaf, else the container's type
        self.context = context    # a dict's keys; a named tuple's type
        self.children = children

    @property
    def num_leaves(self):
        return 1 if self.kind is None else sum(c.num_leaves for c in self.children)

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.kind == other.kind and
                self.context == other.context and self.children == other.children)

    def __hash__(self):
        return hash((self.kind, len(self.children)))


LEAF = TreeSpec(None, None, ())


def is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def tree_flatten(tree):
    """``(leaves, spec)``."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if is_namedtuple(tree):
        return TreeSpec("namedtuple", type(tree), tuple(_flatten(v, leaves) for v in tree))
    if isinstance(tree, (tuple, list)):
        return TreeSpec(type(tree), None, tuple(_flatten(v, leaves) for v in tree))
    if isinstance(tree, dict):
        keys = list(tree)
        return TreeSpec(type(tree), keys, tuple(_flatten(tree[k], leaves) for k in keys))
    leaves.append(tree)
    return LEAF


def tree_unflatten(leaves, spec):
    """The tree of ``spec`` with ``leaves`` in its places."""
    iterator = iter(leaves)
    return _unflatten(iterator, spec)


def _unflatten(leaves, spec):
    if spec.kind is None:
        return next(leaves)
    children = [_unflatten(leaves, child) for child in spec.children]
    if spec.kind == "namedtuple":
        return spec.context(*children)
    if spec.context is not None:
        return spec.kind(zip(spec.context, children))
    return spec.kind(children)


def tree_map(function, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([function(leaf) for leaf in leaves], spec)


def spec_text(spec):
    """``*`` for a leaf, ``(*, *)``, ``[*]``, ``{'a': *}``, ``P(x=*)``: torch's printing."""
    inner = [spec_text(child) for child in spec.children]
    if spec.kind is None:
        return "*"
    if spec.kind == "namedtuple":
        fields = ", ".join(f"{name}={text}" for name, text in zip(spec.context._fields, inner))
        return f"{spec.context.__name__}({fields})"
    if spec.context is not None:
        return "{" + ", ".join(f"{key!r}: {text}" for key, text in zip(spec.context, inner)) + "}"
    if issubclass(spec.kind, list):
        return "[" + ", ".join(inner) + "]"
    return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"


def spec_repr(spec, indent=0):
    """A spec as torch prints a ``TreeSpec`` in vmap's messages."""
    if spec.kind is None:
        return "*"
    kind = "namedtuple" if spec.kind == "namedtuple" else spec.kind.__name__
    context = None if spec.context is None or spec.kind == "namedtuple" else spec.context
    children = (",\n" + "  " * (indent + 1)).join(spec_repr(c, indent + 1)
                                                  for c in spec.children)
    return f"TreeSpec({kind}, {context}, [{children}])"


def broadcast_prefix(dims, tree):
    """``dims`` (an int or None for a whole subtree, else a tree like ``tree``) per leaf of
    ``tree``, or None when the two do not fit (torch's ``_broadcast_to_and_flatten``)."""
    if dims is None or isinstance(dims, int) or not isinstance(dims, (tuple, list, dict)):
        return [dims] * len(tree_flatten(tree)[0])
    spec = tree_flatten(tree)[1]
    if spec.kind is None or spec.kind is not type(dims) and not (
            spec.kind == "namedtuple" and isinstance(dims, tuple)):
        return None
    children = list(dims.values()) if isinstance(dims, dict) else list(dims)
    subtrees = list(tree.values()) if isinstance(tree, dict) else list(tree)
    if len(children) != len(subtrees) or (isinstance(dims, dict) and list(dims) != list(tree)):
        return None
    flat = []
    for child, subtree in zip(children, subtrees):
        found = broadcast_prefix(child, subtree)
        if found is None:
            return None
        flat.extend(found)
    return flat
