"""Run a program statement by statement and write down, as text, what a learner would see.

``run_program(torch, statements)`` executes each statement (as a notebook runs a cell: an
error is shown and the next statement still runs) in one namespace holding ``torch`` (real
torch, or the engine imported as torch), and returns one record per statement::

    {"lines": [[key, field, text, dtype], ...], "unintended": bool}

The lines are what the statement printed, the warnings it gave, the error it raised
(``error``: its type and the first line of its message), then, for every variable that is new or
changed, its description: ``repr``, exact ``values``, ``dtype``, ``layout`` (shape, stride,
storage offset), ``graph`` (requires_grad, is_leaf, grad_fn and its next functions, version),
``grad`` and ``sharing`` (which earlier variable's memory it shares); and the grad mode
(``mode``: is_grad_enabled, is_inference_mode_enabled) whenever a statement leaves another one
than it found. ``dtype`` in a line is
the tolerance to compare its numbers with. ``unintended`` says that the error did not come from
a ``raise`` in the library's own code (a numpy error, an AttributeError...): a crash.

This module imports neither torch nor the engine: the worker passes the library in.
"""
import contextlib
import io
import linecache
import os
import re
import traceback
import warnings

ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")  # (not "0x1" in "(0x1 and 0x1)")
MAX_VALUES = 256  # elements written out exactly; bigger tensors show their repr only


def run_program(torch, statements):
    grad_enabled = torch.is_grad_enabled()
    try:
        return run_statements(torch, statements)
    finally:
        leave_what_a_program_left_on(torch, grad_enabled)


def leave_what_a_program_left_on(torch, grad_enabled):
    """A program may enter a forward-AD level and never leave it (``enter_dual_level()``, a
    refused nesting) or switch grad mode off outside a ``with``: the next program, and the
    process running the fuzzer's own tests, start as the program did."""
    forward_ad = torch.autograd.forward_ad
    for _ in range(8):
        try:
            forward_ad.exit_dual_level()
        except Exception:  # noqa: BLE001  (none left open: each library words it its own way)
            break
    torch.set_grad_enabled(grad_enabled)


def run_statements(torch, statements):
    namespace = {"torch": torch, "__name__": "__main__"}
    seen = {}
    records = []
    uninitialised = {}  # name -> (tensor, version): an out= tensor a failed op resized
    for index, statement in enumerate(statements):
        shapes = out_shapes(torch, statement, namespace)
        lines, unintended = execute(torch, statement, index, namespace)
        if any(line[0] == "error" for line in lines):
            uninitialised.update(resized_outs(torch, shapes, namespace))
        now = describe_namespace(torch, namespace, uninitialised)
        now["grad mode"] = ("mode", grad_mode_text(torch), None)
        for key, (field, text, dtype) in now.items():
            if seen.get(key) != (field, text, dtype):
                lines.append([key, field, text, dtype])
        for key in seen.keys() - now.keys():
            lines.append([key, "gone", "", None])
        seen = now
        records.append({"lines": lines, "unintended": unintended})
    return records


def execute(torch, statement, index, namespace):
    """Run one statement: its printed output, warnings and error as lines."""
    lines, unintended = [], False
    printed = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(printed):
        try:
            exec(compile(statement, f"<statement {index}>", "exec"), namespace)
        except Exception as error:  # noqa: BLE001  (every error is an observation)
            lines.append(["error", "error", f"{builtin_name(type(error))}: {first_line(error)}",
                          None])
            unintended = is_unintended(error, torch)
    for i, line in enumerate(printed.getvalue().splitlines()):
        lines.append([f"print {i}", "print", clean(line), dtype_in(line)])
    for i, warning in enumerate(caught):
        text = f"{warning.category.__name__}: {first_line(warning.message)}"
        lines.append([f"warning {i}", "warning", text, None])
    return lines, unintended


def grad_mode_text(torch):
    return (f"grad_enabled={torch.is_grad_enabled()} "
            f"inference_mode={torch.is_inference_mode_enabled()}")


def builtin_name(error_type):
    """torch's own error types (torch.OutOfMemoryError ...) count as their builtin base."""
    for cls in error_type.__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    return error_type.__name__


def first_line(error):
    text = str(error).strip()
    return clean(text.splitlines()[0]) if text else ""


def clean(text):
    """Addresses (``<MulBackward0 object at 0x7f...>``) differ from run to run."""
    return ADDRESS.sub("0x…", text)


def dtype_in(text):
    """The tolerance for numbers in printed text: float64 or float16 when the text says so."""
    for name in ("float64", "float16"):
        if name in text:
            return name
    return "float32"


def is_unintended(error, torch):
    """True when the library did not raise this error on purpose: the innermost frame is not
    a ``raise`` statement in its own code (numpy's errors, a failed attribute lookup...)."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return False
    last = frames[-1]
    library = os.path.dirname(torch.__file__)
    if last.filename.startswith("<statement"):
        # the program's own line: a missing attribute or keyword is the library's gap
        return isinstance(error, AttributeError) and "NoneType" not in str(error) or (
            isinstance(error, TypeError) and "unexpected keyword" in str(error))
    if not last.filename.startswith(library):
        return not _inside_program(frames)
    line = (linecache.getline(last.filename, last.lineno) or "").strip()
    return not line.startswith("raise")


def _inside_program(frames):
    """An error raised by the learner's own function (a hook, a Function's backward)."""
    return frames[-1].filename.startswith("<statement")


# ---------------------------------------------------------------- out= of a failed op
OUT_NAME = re.compile(r"\bout=(\w+)")
UNINITIALISED = "<uninitialised: an out= tensor resized by an op that then failed>"


def out_shapes(torch, statement, namespace):
    """The shapes of the tensors a statement passes as out=, before it runs."""
    return {name: (namespace[name], tuple(namespace[name].shape))
            for name in OUT_NAME.findall(statement)
            if isinstance(namespace.get(name), torch.Tensor)}


def resized_outs(torch, shapes, namespace):
    """The out= tensors that a statement which failed resized: torch resizes out before its
    kernel fails (no kernel for the dtype, a division by zero, an index out of range) and
    leaves uninitialised memory there; its values are not observed until it changes again."""
    resized = {}
    for name, (tensor, shape) in shapes.items():
        if namespace.get(name) is tensor and tuple(tensor.shape) != shape:
            resized[name] = (tensor, _version_of(tensor))
    return resized


def _version_of(tensor):
    try:
        return tensor._version
    except RuntimeError:  # an inference tensor
        return None


# ---------------------------------------------------------------- describing values
def describe_namespace(torch, namespace, uninitialised=None):
    """{key: (field, text, dtype)} for every variable a learner could look at (the values of
    ``uninitialised`` tensors, unchanged since, are not: see resized_outs)."""
    entries = {}
    tensors = []  # (key, tensor) in order, for the sharing relations
    for name, value in namespace.items():
        if name.startswith("__") or name == "torch":
            continue
        try:
            describe(torch, name, value, entries, tensors)
        except Exception as error:  # noqa: BLE001  (a crash while looking is an observation)
            entries[name] = ("crash", f"{type(error).__name__}: {first_line(error)}", None)
        garbage = (uninitialised or {}).get(name)
        if garbage is not None and garbage[0] is value and _version_of(value) == garbage[1]:
            entries[name] = ("repr", UNINITIALISED, None)
            entries.pop(name + ".values", None)
    owners = {}
    for key, tensor in tensors:
        try:
            storage = tensor.untyped_storage()
            pointer = storage.data_ptr() if storage.nbytes() else None
        except Exception as error:  # noqa: BLE001
            entries[key + ".sharing"] = ("crash", f"{type(error).__name__}: {error}", None)
            continue
        if pointer is None:
            text = "no memory"
        else:
            owner = owners.setdefault(pointer, key)
            text = "own memory" if owner == key else f"shares memory with {owner}"
        entries[key + ".sharing"] = ("sharing", text, None)
    return entries


def describe(torch, name, value, entries, tensors):
    if isinstance(value, torch.Tensor):
        describe_tensor(torch, name, value, entries, tensors)
    elif isinstance(value, torch.nn.Module):
        entries[name] = ("repr", repr(value), None)
        for parameter_name, parameter in value.named_parameters():
            describe_tensor(torch, f"{name}.{parameter_name}", parameter, entries, tensors)
    elif isinstance(value, torch.optim.Optimizer):
        entries[name] = ("repr", repr(value), None)
    elif isinstance(value, (tuple, list)) and all(
            isinstance(v, (torch.Tensor, int, float, bool)) for v in value):
        entries[name] = ("type", f"{type(value).__name__} of {len(value)}", None)
        for i, item in enumerate(value):
            describe(torch, f"{name}[{i}]", item, entries, tensors)
    elif isinstance(value, (bool, int, float, str, type(None), torch.Size, torch.dtype)):
        text = f"{type(value).__name__} {value!r}"
        entries[name] = ("python", clean(text), "float32" if isinstance(value, float) else None)


def describe_tensor(torch, name, tensor, entries, tensors):
    dtype = str(tensor.dtype).split(".")[-1]
    entries[name] = ("repr", clean(repr(tensor)), dtype)
    if tensor.numel() <= MAX_VALUES:
        entries[name + ".values"] = ("values", repr(tensor.tolist()), dtype)
    entries[name + ".dtype"] = ("dtype", str(tensor.dtype), None)
    entries[name + ".layout"] = ("layout", f"shape={tuple(tensor.shape)} stride={tensor.stride()}"
                                           f" offset={tensor.storage_offset()}", None)
    entries[name + ".graph"] = ("graph", graph_text(tensor), None)
    if tensor.is_leaf or tensor.retains_grad:
        grad = tensor.grad
        entries[name + ".grad"] = ("grad", "None" if grad is None else clean(repr(grad)), dtype)
        if grad is not None and grad.numel() <= MAX_VALUES:
            entries[name + ".grad.values"] = ("grad", repr(grad.tolist()), dtype)
    tensors.append((name, tensor))


def graph_text(tensor):
    node = tensor.grad_fn
    try:
        version = tensor._version
    except RuntimeError as error:  # torch: "Inference tensors do not track version counter."
        version = f"<{first_line(error)}>"
    text = f"requires_grad={tensor.requires_grad} is_leaf={tensor.is_leaf} version={version}"
    if node is not None:
        following = [type(n).__name__ if n is not None else None
                     for n, _ in node.next_functions]
        text += f" grad_fn={type(node).__name__} next={following}"
    if tensor.retains_grad:
        text += " retains_grad"
    return text
