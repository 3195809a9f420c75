"""Anomaly detection, as ``torch.autograd.detect_anomaly()`` / ``set_detect_anomaly(mode)``.

When a backward pass fails, the error names a node (``DivBackward0``) but not the line of
your forward pass that made it. With anomaly detection on:

* every node made remembers the traceback of the forward pass at that moment
  (``node.metadata["traceback_"]``; a node made while another node's backward runs, with
  ``create_graph=True``, also remembers that node: ``metadata["parent_"]``);
* when a node's backward raises, a warning shows that traceback ("Error detected in
  DivBackward0. Traceback of forward call that caused the error: ..."), then the error
  goes on as usual;
* with ``check_nan`` (the default), a node whose backward returns a nan raises
  "Function 'DivBackward0' returned nan values in its 0th output.", after the same warning.

The core calls in here at two places, and only while detection is on (``mode.anomaly`` is
None otherwise, so it costs nothing when off): ``core.node.connect``, which wires every
node, calls ``node_built``, and backward wraps its ``run_node`` with ``wrap``.
"""
import os
import sys
import traceback
import warnings

from ..core.grad_mode import mode

# torch's warnings from C++ end with where they were raised (torch 2.15's Linux wheel)
_TRIGGERED = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/" \
             "python_anomaly_mode.cpp:{}.)"
_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_MODULES_DIR = os.path.join(_ENGINE_DIR, "nn", "modules") + os.sep

_check_nan = [True]  # torch keeps the flag even while detection is off


class AnomalyChecks:
    """What anomaly detection does while it is on (``mode.anomaly`` holds one)."""

    def __init__(self, check_nan):
        self.check_nan = check_nan
        self.running = None  # the node whose backward runs now (a new node's parent)

    def node_built(self, node):
        """Called by the core for every node made: remember where, and during what."""
        node.metadata["traceback_"] = forward_traceback()
        if self.running is not None:
            node.metadata["parent_"] = self.running

    def wrap(self, run_node):
        """``run_node`` (the backward walk's), checked: a failing node shows where it was made."""
        def checked_run_node(node, grads):
            previous, self.running = self.running, node
            try:
                input_grads = run_node(node, grads)
                if self.check_nan:
                    _refuse_nan(node, input_grads)
                return input_grads
            except Exception:
                warn_forward_traceback(node)
                raise
            finally:
                self.running = previous

        return checked_run_node


def _refuse_nan(node, input_grads):
    for index, grad in enumerate(input_grads):
        if grad is not None and grad.isnan().any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th "
                               "output.")


# ====================================================================== tracebacks
def _inside_engine(filename):
    """A frame of the engine's own machinery (torch's C++); the nn modules' frames stay, as
    torch's Python modules show theirs."""
    path = os.path.abspath(filename)
    return path.startswith(_ENGINE_DIR) and not path.startswith(_MODULES_DIR)


def forward_traceback():
    """traceback.format_stack() as torch records it: the frames down to the learner's line
    that called the operation (the engine's own frames below it left out)."""
    frames = traceback.extract_stack()
    while frames and _inside_engine(frames[-1].filename):
        frames.pop()
    return traceback.format_list(frames)


def _stacklevel():
    """The warning's place: the first frame outside the engine (the learner's backward())."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _inside_engine(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def warn_forward_traceback(node):
    """torch's warnings for a failed node: where it was made, then where each node whose
    backward made it was made."""
    stack = node.metadata.get("traceback_")
    if stack is None:
        _warn(f"Error detected in {node.name()}. No forward pass information available. Enable "
              "detect anomaly during forward pass for more information." + _TRIGGERED.format(90))
        return
    _warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
          + "".join(stack) + _TRIGGERED.format(108))
    parent = node.metadata.get("parent_")
    while parent is not None:
        _warn(f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward "
              "call that induced the previous calculation:\n"
              + "".join(parent.metadata.get("traceback_", ())) + _TRIGGERED.format(115))
        parent = parent.metadata.get("parent_")


def _warn(message):
    warnings.warn(message, UserWarning, stacklevel=_stacklevel())


# ====================================================================== switching it on
def set_anomaly_enabled(enabled, check_nan=True):
    """torch.set_anomaly_enabled: switch anomaly detection on or off."""
    mode.anomaly = AnomalyChecks(check_nan) if enabled else None
    _check_nan[0] = bool(check_nan)


def is_anomaly_enabled():
    return mode.anomaly is not None


def is_anomaly_check_nan_enabled():
    return _check_nan[0]


class detect_anomaly:  # noqa: N801 - torch's name
    """``with detect_anomaly():`` anomaly detection on inside the block (see the module's
    docstring); warns that it slows everything down."""

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:  # noqa: N801
    """``set_detect_anomaly(True)`` switches anomaly detection on at once; as ``with``, for a
    block only."""

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
