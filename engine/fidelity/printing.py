"""How tensors print: ``repr(t)``, ``str(t)`` and ``format(t, spec)``.

This follows the rules of PyTorch's ``torch/_tensor_str.py`` so that a learner
sees exactly the text PyTorch would show.  The main ideas:

* One *formatter* looks at all the values that will be shown and decides, once
  for the whole tensor, how every number is written (integer style ``1.``,
  fixed point ``1.2500`` or scientific ``1.2500e+03``) and how wide the widest
  one is, so that columns line up.
* Big tensors (more than ``threshold`` elements) are *summarised*: only the
  first and last ``edgeitems`` entries of each dimension are shown, with
  ``...`` in between.
* Rows longer than ``linewidth`` characters wrap onto new lines.
* After the numbers come *suffixes* such as ``dtype=torch.float64`` or
  ``requires_grad=True``.

Values are always converted to Python numbers (float16 and float32 widen to
float64 exactly) before they are written, as PyTorch does, so printing a
float32 ``0.1`` with ``precision=10`` shows the widened value ``0.1000000015``.

The tensor is read by duck typing: ``t._data`` (a numpy array), ``t.dtype``,
``t.requires_grad`` and ``t.grad_fn``.
"""
import contextlib
import math

import numpy as np

from . import dtypes


# ---------------------------------------------------------------- print options
class _PrintOptions:
    """The current print options; ``set_printoptions`` changes them."""

    def __init__(self):
        self.precision = 4      # digits after the decimal point
        self.threshold = 1000   # more elements than this: summarise
        self.edgeitems = 3      # entries kept at each end when summarising
        self.linewidth = 80     # characters per line before wrapping
        self.sci_mode = None    # None: choose automatically; True/False: force


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set how tensors print, as ``torch.set_printoptions``.

    ``profile`` ("default", "short" or "full") first resets the four numeric
    options; any option given explicitly then wins.  Note that ``sci_mode`` is
    always set, so leaving it out switches back to automatic choice.
    """
    if profile is not None and profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, name, value)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current options as a dict that ``set_printoptions(**d)`` accepts."""
    return {
        "precision": PRINT_OPTS.precision,
        "threshold": PRINT_OPTS.threshold,
        "edgeitems": PRINT_OPTS.edgeitems,
        "linewidth": PRINT_OPTS.linewidth,
        "sci_mode": PRINT_OPTS.sci_mode,
    }


@contextlib.contextmanager
def printoptions(**kwargs):
    """Change the print options inside a ``with`` block only."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------- one formatter per tensor
class _Formatter:
    """Decides how every value of one tensor is written, and pads to a common width.

    ``values`` is a numpy array holding the values that will be shown (for a
    summarised tensor, only the edge entries).
    """

    def __init__(self, values, dtype):
        self.floating = dtype.is_floating_point
        self.int_mode = True     # every float is a whole number: print as ``3.``
        self.sci_mode = False    # scientific notation ``3.0000e+00``
        self.max_width = 1

        values = values.reshape(-1)
        if not self.floating:
            # Integers and booleans print as Python prints them: 7, -3, True.
            for value in values.tolist():
                self.max_width = max(self.max_width, len(str(value)))
            return

        # Only the finite, non-zero values take part in the decisions below.
        shown = values[np.isfinite(values) & (values != 0)]
        if shown.size == 0:
            return  # only zeros, nan and inf: keep integer style, width 1

        magnitudes = np.abs(shown).astype(np.float64)
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())

        self.int_mode = bool(np.all(shown == np.ceil(shown)))

        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = (largest / smallest > 1000.0
                             or largest > 1.0e8
                             or smallest < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        precision = PRINT_OPTS.precision
        for value in shown.tolist():  # tolist() widens to Python floats
            if self.sci_mode:
                text = f"{value:.{precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}" + "."  # the "." marks the tensor as floating
            else:
                text = f"{value:.{precision}f}"
            self.max_width = max(self.max_width, len(text))

    def width(self):
        """Width of the widest value; every value is padded to this."""
        return self.max_width

    def format(self, value):
        """Write one Python number, right-aligned to the common width."""
        precision = PRINT_OPTS.precision
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                text += "."
        else:
            text = f"{value:.{precision}f}"
        return text.rjust(self.max_width)


# ---------------------------------------------------------------- the bracketed numbers
def _summarized_data(data):
    """The entries a summarised print will show, as an array (for the formatter)."""
    edge = PRINT_OPTS.edgeitems
    if data.ndim == 0:
        return data
    if data.ndim == 1:
        if data.shape[0] > 2 * edge:
            # With edge == 0, data[-0:] is the whole vector; torch does the same.
            return np.concatenate((data[:edge], data[-edge:]))
        return data
    if not edge:
        return np.empty((0,) * data.ndim, dtype=data.dtype)
    if data.shape[0] > 2 * edge:
        rows = [data[i] for i in range(edge)] + \
               [data[i] for i in range(data.shape[0] - edge, data.shape[0])]
    else:
        rows = list(data)
    return np.stack([_summarized_data(row) for row in rows])


def _vector_str(data, indent, summarize, formatter):
    """``[1, 2, 3]`` for a 1-D array, wrapped to the line width."""
    edge = PRINT_OPTS.edgeitems
    element_length = formatter.width() + 2  # the value plus ", "
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))

    if summarize and not edge:
        items = ["..."]
    elif summarize and data.shape[0] > 2 * edge:
        items = ([formatter.format(v) for v in data[:edge].tolist()]
                 + [" ..."]
                 + [formatter.format(v) for v in data[-edge:].tolist()])
    else:
        items = [formatter.format(v) for v in data.tolist()]

    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(data, indent, summarize, formatter):
    """The bracketed text of an array of any number of dimensions.

    Sub-arrays are separated by a comma, then one blank line fewer than the
    dimensions they have (none between rows of a matrix, one between matrices),
    and indented one more column than their enclosing bracket.
    """
    if data.ndim == 0:
        return formatter.format(data.item())
    if data.ndim == 1:
        return _vector_str(data, indent, summarize, formatter)

    edge = PRINT_OPTS.edgeitems
    n = data.shape[0]
    if summarize and n > 2 * edge:
        parts = ([_nested_str(data[i], indent + 1, summarize, formatter) for i in range(edge)]
                 + ["..."]
                 + [_nested_str(data[i], indent + 1, summarize, formatter)
                    for i in range(n - edge, n)])
    else:
        parts = [_nested_str(data[i], indent + 1, summarize, formatter) for i in range(n)]

    separator = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _tensor_str(data, dtype, indent):
    """The numbers part of the repr, e.g. ``[[1., 2.],\\n        [3., 4.]]``."""
    if data.size == 0:
        return "[]"
    summarize = data.size > PRINT_OPTS.threshold
    formatter = _Formatter(_summarized_data(data) if summarize else data, dtype)
    return _nested_str(data, indent, summarize, formatter)


# ---------------------------------------------------------------- suffixes and the whole repr
def _add_suffixes(text, suffixes, indent):
    """Append ``, suffix`` items and the closing ``)``, wrapping long lines.

    A suffix moves to its own line (indented under the first bracket) when it
    would make the current line longer than ``linewidth``.
    """
    pieces = [text]
    # torch counts two characters more than the last line really has.
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            last_line_len += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)


def _grad_fn_name(grad_fn):
    """``MulBackward0`` for a node whose ``name()`` gives it (or its class name)."""
    name_method = getattr(grad_fn, "name", None)
    name = name_method() if callable(name_method) else type(grad_fn).__name__
    return name.rsplit("::", 1)[-1]


def tensor_repr(t, prefix="tensor(", tangent=None):
    """Exactly what ``repr()`` of the same PyTorch tensor gives.

    ``prefix`` is the text before the numbers; wrapped lines are indented by
    its length (``tensor(`` is 7 characters, so rows start in column 8).
    """
    data = t._data
    dtype = t.dtype
    indent = len(prefix)
    suffixes = []
    default_float = dtypes.get_default_dtype()

    if data.size == 0:
        # Numpy shows the shape of an empty array unless it is (0,).
        if data.ndim != 1:
            suffixes.append("size=" + str(tuple(data.shape)))
        # No values to tell an int64 tensor from a float one: name any non-float-default dtype.
        if dtype != default_float:
            suffixes.append("dtype=" + str(dtype))
        text = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(data.shape)))
        # int64 and bool can be recognised from the printed values; other dtypes are named.
        if dtype not in (default_float, dtypes.int64, dtypes.bool):
            suffixes.append("dtype=" + str(dtype))
        text = _tensor_str(data, dtype, indent)

    try:
        grad_fn = t.grad_fn
        grad_fn_name = None if grad_fn is None else _grad_fn_name(grad_fn)
    except RuntimeError:  # a view changed in place that torch refuses to rebase: it says so
        grad_fn_name = "Invalid"
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:  # a dual tensor of forward-mode AD: its tangent, as format() shows it
        suffixes.append(f"tangent={tangent}")

    return _add_suffixes(prefix + text, suffixes, indent)


def tensor_format(t, format_spec):
    """``format(t, spec)``: a 0-dim tensor formats its Python number; others as objects.

    So ``f"{loss:.3f}"`` works for a scalar loss, ``f"{t}"`` gives ``str(t)``,
    and a non-empty spec on a bigger tensor raises ``TypeError`` as in PyTorch.
    """
    if t._data.ndim == 0:
        return t._data.item().__format__(format_spec)
    return object.__format__(t, format_spec)
