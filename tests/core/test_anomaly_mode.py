"""Anomaly detection against torch 2.15: detect_anomaly(), set_detect_anomaly(mode),
torch.is_anomaly_enabled() & co.

Each scenario runs with both libraries, catching every warning and the error; the texts
must be torch's: "Anomaly Detection has been enabled...", "Error detected in DivBackward0.
Traceback of forward call that caused the error: <the learner's lines>",
"Function 'DivBackward0' returned nan values in its 1th output.", the parent chain of a
double backward, the in-place error's anomaly hint. The recorded tracebacks are compared
from this file's frames on (above them, pytest's and parity's frames), without the
libraries' own frames (torch shows a few of its Python frames where the engine's are C++).
"""
import math
import re
import warnings

import pytest

import engine

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

THIS_FILE = __file__


def _frames_of_this_file(text):
    """A recorded traceback with only this file's frames (and the text around them): above
    them are pytest's, below them the libraries' own (engine/..., site-packages/torch/...)."""
    kept, in_frame, keep_frame = [], False, True
    for line in text.split("\n"):
        if line.startswith('  File "'):
            in_frame, keep_frame = True, THIS_FILE in line
        elif in_frame and not line.startswith("    "):
            in_frame = False
        if not in_frame or keep_frame:
            kept.append(line)
    return "\n".join(kept)


def _observed(fn, m):
    """What a learner sees: the warnings (category and text) and the error, if any."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=RuntimeWarning)  # (numpy's, engine side)
        try:
            result = fn(m)
            error = None
        except Exception as exception:  # noqa: BLE001 - compared with torch's
            result, error = None, (type(exception).__name__, str(exception))
    seen = [(w.category.__name__, _frames_of_this_file(str(w.message))) for w in caught]
    return result, error, seen


def _compare(fn):
    # (one call site for both: the recorded tracebacks go through the same lines)
    (e_result, e_error, e_seen), (t_result, t_error, t_seen) = [_observed(fn, m)
                                                                for m in (engine, torch)]
    assert e_error == t_error
    assert e_seen == t_seen
    if t_result is not None:
        parity.assert_same(e_result, t_result)
    return e_seen


def nan_from_division(m):
    with m.autograd.detect_anomaly():
        a = m.tensor([0.0, 1.0], requires_grad=True)
        y = a / a
        y.sum().backward()


def nan_from_sqrt(m):
    with m.autograd.detect_anomaly():
        a = m.zeros(3, requires_grad=True)
        y = a.sqrt() * 0
        y.sum().backward()


def nan_in_a_helper(m):
    def normalise(x):
        return x / x.sum()

    with m.autograd.detect_anomaly():
        a = m.tensor([1.0, -1.0], requires_grad=True)
        loss = normalise(a).pow(2).sum()
        loss.backward()


def modified_in_place(m):
    with m.autograd.detect_anomaly():
        a = m.randn(3, requires_grad=True)
        b = a.exp()
        b.add_(1)
        b.sum().backward()


class Failing:
    @staticmethod
    def function(m):
        class Bad(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, grad):
                raise ValueError("my bad")

        return Bad


def custom_function_fails(m):
    bad = Failing.function(m)
    with m.autograd.detect_anomaly():
        a = m.ones(3, requires_grad=True)
        bad.apply(a).sum().backward()


def made_outside_anomaly_mode(m):
    a = m.zeros(3, requires_grad=True)
    y = a / a
    with m.autograd.detect_anomaly():
        y.sum().backward()


def nan_not_checked(m):
    with m.autograd.detect_anomaly(check_nan=False):
        a = m.zeros(3, requires_grad=True)
        (a / a).sum().backward()
    return a.grad


def through_autograd_grad(m):
    with m.autograd.detect_anomaly():
        a = m.zeros(2, requires_grad=True)
        y = a / a
        m.autograd.grad(y.sum(), a)


def hook_makes_nan(m):
    with m.autograd.detect_anomaly():
        a = m.ones(2, requires_grad=True)
        y = a * 2
        y.register_hook(lambda g: g * math.nan)
        y.sum().backward()


def leaf_hook_makes_nan(m):
    with m.autograd.detect_anomaly():
        a = m.ones(2, requires_grad=True)
        a.register_hook(lambda g: g * math.nan)
        (a * 2).sum().backward()
    return a.grad


def nan_in_a_model(m):
    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = m.nn.Linear(3, 2)

        def forward(self, x):
            return self.fc(x).abs().sqrt()

    m.manual_seed(0)
    net = Net()
    with m.autograd.set_detect_anomaly(True):
        net.fc.bias.data.fill_(0)
        out = net(m.zeros(1, 3))
        out.sum().backward()


def no_error_no_warning(m):
    with m.autograd.set_detect_anomaly(True):
        a = m.ones(2, requires_grad=True)
        (a * a).sum().backward()
    return a.grad


SCENARIOS = [nan_from_division, nan_from_sqrt, nan_in_a_helper, modified_in_place,
             custom_function_fails, made_outside_anomaly_mode, nan_not_checked,
             through_autograd_grad, hook_makes_nan, leaf_hook_makes_nan, nan_in_a_model,
             no_error_no_warning]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_anomaly_detection_like_torch(scenario):
    _compare(scenario)


def test_the_warning_shows_the_learners_forward_line():
    seen = _compare(nan_from_division)
    assert "Error detected in DivBackward0. Traceback of forward call that caused the error:" \
        in seen[1][1]
    assert "    y = a / a\n" in seen[1][1]
    assert seen[0][0] == seen[1][0] == "UserWarning"


def test_double_backward_names_the_node_that_made_the_failing_one():
    def fn(m):
        with m.autograd.detect_anomaly():
            a = m.tensor([0.0, 1.0], requires_grad=True)
            y = a.sqrt()
            (g,) = m.autograd.grad(y.sum(), a, create_graph=True)
            (g * 0).sum().backward()

    seen = _compare(fn)
    assert seen[2][1].startswith("\n\nPrevious calculation was induced by SqrtBackward0.")


def test_metadata_and_switches():
    def fn(m):
        flags = [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
        with m.autograd.set_detect_anomaly(True, check_nan=False):
            flags += [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
            a = m.ones(2, requires_grad=True)

            def twice(x):
                return x * 2

            b = twice(a)
            traceback = b.grad_fn.metadata["traceback_"]
        flags += [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
        m.autograd.set_detect_anomaly(True)
        flags.append(m.is_anomaly_enabled())
        m.set_anomaly_enabled(False)
        c = a * 3
        flags += [m.is_anomaly_enabled(), dict(c.grad_fn.metadata)]
        detector = m.autograd.detect_anomaly()  # warns at once, but is on only inside `with`
        flags.append(m.is_anomaly_enabled())
        with detector:
            flags.append(m.is_anomaly_enabled())
        return flags, [_frames_of_this_file(line) for line in traceback[-2:]], \
            list(b.grad_fn.metadata)

    _compare(fn)


def test_detect_anomaly_warning_points_at_the_with_line():
    for m in (engine, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            line = _line_here() + 1
            with m.autograd.detect_anomaly():
                pass
        assert (caught[0].filename, caught[0].lineno) == (THIS_FILE, line)


def _line_here():
    import inspect
    return inspect.currentframe().f_back.f_lineno


def test_the_error_warning_points_at_backward_in_the_learners_code():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match=re.escape("returned nan values in its 1th")):
            nan_from_division(engine)
    assert caught[1].filename == THIS_FILE  # (torch: its own autograd/graph.py)


def test_anomaly_mode_off_costs_no_metadata():
    a = engine.ones(2, requires_grad=True)
    assert not engine.is_anomaly_enabled()
    assert (a * 2).grad_fn._metadata is None
