"""Graphs the lessons draw, built with either tensor module (``engine`` or ``torch``), for the
picture and widget tests: ``y = (w + x) * (w + 1)``, the course's running example."""


def course_graph(lib):
    """Lessons 5, 6 and 9: ``y = (w + x) * (w + 1)`` on one-element tensors."""
    w = lib.tensor([1.0], requires_grad=True)
    x = lib.tensor([2.0], requires_grad=True)
    a = lib.add(w, x)
    b = lib.add(w, 1)
    return dict(w=w, x=x, a=a, b=b, y=lib.mul(a, b))


def gallery_graph(lib):
    """The gallery's: the same on 0-d tensors, ``a = x + w`` written as in the articles."""
    x = lib.tensor(2.0, requires_grad=True)
    w = lib.tensor(3.0, requires_grad=True)
    a = x + w
    b = w + 1
    return dict(x=x, w=w, a=a, b=b, y=a * b)


def two_outputs_cat(lib):
    """Lesson 6's widest graph: two outputs of the course graph, cat together."""
    names = course_graph(lib)
    names["y0"] = names.pop("y")
    names["y1"] = lib.add(names["a"], names["b"])
    names["loss"] = lib.cat([names["y0"], names["y1"]], dim=0)
    return names
