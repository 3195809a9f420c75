"""engine.optim.lr_scheduler against torch 2.15: learning rates over long runs (exactly equal
Python floats, chainable and closed forms), momentum cycling, state_dict round trips, warnings
and errors with torch's type and message.

Each case is a snippet run once with ``m = torch`` and once with ``m = engine``; its ``r`` (the
recorded learning rates ...) must be equal, float for float, and so must its warnings.
"""
import pytest

from tests.parity import assert_same_snippet, run_snippet, snippet_facts

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch

SETUP = """
w = m.zeros(3, requires_grad=True)
b = m.zeros(2, requires_grad=True)
opt = m.optim.SGD([{'params': [w]}, {'params': [b], 'lr': 0.3}], lr=0.1, momentum=0.9)
lr_scheduler = m.optim.lr_scheduler
"""

# each builds ``s`` from ``opt``; the run then steps it STEPS times
SCHEDULERS = {
    "StepLR": "s = lr_scheduler.StepLR(opt, step_size=30, gamma=0.5)",
    "StepLR positional": "s = lr_scheduler.StepLR(opt, 7, 0.9)",
    "MultiStepLR": "s = lr_scheduler.MultiStepLR(opt, milestones=[10, 50, 50, 400], gamma=0.3)",
    "ExponentialLR": "s = lr_scheduler.ExponentialLR(opt, gamma=0.99)",
    "ExponentialLR odd gamma": "s = lr_scheduler.ExponentialLR(opt, 0.9973)",
    "CosineAnnealingLR": "s = lr_scheduler.CosineAnnealingLR(opt, T_max=100)",
    "CosineAnnealingLR eta_min": "s = lr_scheduler.CosineAnnealingLR(opt, 37, eta_min=0.001)",
    "CosineAnnealingWarmRestarts": "s = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=10)",
    "CosineAnnealingWarmRestarts T_mult": (
        "s = lr_scheduler.CosineAnnealingWarmRestarts(opt, 7, T_mult=2, eta_min=1e-4)"),
    "LinearLR": "s = lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=40)",
    "LinearLR down": "s = lr_scheduler.LinearLR(opt, 1.0, 0.05, 333)",
    "LinearLR default": "s = lr_scheduler.LinearLR(opt)",
    "ConstantLR": "s = lr_scheduler.ConstantLR(opt, factor=0.3, total_iters=17)",
    "ConstantLR default": "s = lr_scheduler.ConstantLR(opt)",
    "LambdaLR": "s = lr_scheduler.LambdaLR(opt, lambda e: 0.95 ** e)",
    "LambdaLR per group": (
        "s = lr_scheduler.LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: 0.5 ** (e // 9)])"),
    "MultiplicativeLR": "s = lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda e: 0.997)",
    "PolynomialLR": "s = lr_scheduler.PolynomialLR(opt, total_iters=300, power=2.0)",
    "PolynomialLR default": "s = lr_scheduler.PolynomialLR(opt)",
    "OneCycleLR": "s = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=1001)",
    "OneCycleLR linear three phase": (
        "s = lr_scheduler.OneCycleLR(opt, [0.5, 2.0], epochs=10, steps_per_epoch=101, "
        "pct_start=0.25, anneal_strategy='linear', three_phase=True, div_factor=10.0)"),
    "OneCycleLR no momentum": (
        "s = lr_scheduler.OneCycleLR(opt, 0.1, 1001, cycle_momentum=False)"),
    "CyclicLR": "s = lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=37)",
    "CyclicLR triangular2": (
        "s = lr_scheduler.CyclicLR(opt, [0.01, 0.02], [0.1, 0.3], 50, 23, mode='triangular2')"),
    "CyclicLR exp_range": (
        "s = lr_scheduler.CyclicLR(opt, 0.001, 0.1, 40, mode='exp_range', gamma=0.999, "
        "base_momentum=0.7, max_momentum=0.95)"),
    "CyclicLR scale_fn": (
        "s = lr_scheduler.CyclicLR(opt, 0.001, 0.1, 25, scale_fn=lambda x: 1 / (1 + x / 100), "
        "scale_mode='iterations', cycle_momentum=False)"),
    "SequentialLR": (
        "s = lr_scheduler.SequentialLR(opt, [lr_scheduler.LinearLR(opt, 0.1, total_iters=20), "
        "lr_scheduler.ExponentialLR(opt, 0.99), lr_scheduler.StepLR(opt, 50)], "
        "milestones=[20, 300])"),
    "SequentialLR cosine": (
        "s = lr_scheduler.SequentialLR(opt, schedulers=[lr_scheduler.ConstantLR(opt, 0.5, 10), "
        "lr_scheduler.CosineAnnealingLR(opt, 200)], milestones=[10])"),
    "ChainedScheduler": (
        "s = lr_scheduler.ChainedScheduler([lr_scheduler.ConstantLR(opt, 0.1, 20), "
        "lr_scheduler.ExponentialLR(opt, 0.995), lr_scheduler.StepLR(opt, 100, 0.5)])"),
    "ChainedScheduler optimizer": (
        "s = lr_scheduler.ChainedScheduler([lr_scheduler.LinearLR(opt, 0.2, total_iters=50), "
        "lr_scheduler.CosineAnnealingLR(opt, 80)], optimizer=opt)"),
}


def _run_code(build, steps, closed_form=False):
    step = "s.step(i + 1)" if closed_form else "s.step()"
    return SETUP + build + f"""
r = [s.get_last_lr(), getattr(s, 'last_epoch', None)]
for i in range({steps}):
    opt.step()
    {step}
    r.append(s.get_last_lr() + [g['momentum'] for g in opt.param_groups])
r.append(sorted(k for k in s.state_dict() if k != 'lr_lambdas'))
"""


@pytest.mark.parametrize("case", SCHEDULERS)
def test_1000_steps_equal_torch(case):
    assert_same_snippet(_run_code(SCHEDULERS[case], 1000), warnings_too=True)


CLOSED_FORM = ["StepLR", "MultiStepLR", "ExponentialLR", "ExponentialLR odd gamma",
               "CosineAnnealingLR", "CosineAnnealingLR eta_min", "LinearLR", "LinearLR down",
               "ConstantLR", "PolynomialLR", "LambdaLR", "CosineAnnealingWarmRestarts T_mult"]


@pytest.mark.parametrize("case", CLOSED_FORM)
def test_step_with_epoch_uses_the_closed_form_and_warns(case):
    # step(epoch) warns (except CosineAnnealingWarmRestarts) and takes the closed form, whose
    # rounding differs from the chainable one's: both as torch's
    assert_same_snippet(_run_code(SCHEDULERS[case], 300, closed_form=True), warnings_too=True)


def test_closed_and_chainable_forms_differ_as_in_torch():
    code = SETUP + """
s = lr_scheduler.ExponentialLR(opt, 0.9973)
for i in range(1000):
    opt.step(); s.step()
chained = s.get_last_lr()
r = [chained, [base * 0.9973 ** 1000 for base in s.base_lrs]]
r.append(r[0] != r[1])
"""
    assert_same_snippet(code)
    scope, _ = run_snippet(code, torch)
    assert scope["r"][2]  # the test means something: the two forms do differ


def test_adam_betas_cycle():
    code = """
w = m.zeros(3, requires_grad=True)
opt = m.optim.Adam([w], lr=0.1, betas=(0.9, 0.99))
s = m.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=50)
s2 = None
r = []
for i in range(49):
    opt.step(); s.step()
    r.append((s.get_last_lr(), opt.param_groups[0]['betas']))
opt2 = m.optim.Adam([m.zeros(1, requires_grad=True)], betas=(0.8, 0.9))
s2 = m.optim.lr_scheduler.CyclicLR(opt2, 0.01, 0.1, 5)
for i in range(20):
    opt2.step(); s2.step()
    r.append((s2.get_last_lr(), opt2.param_groups[0]['betas']))
r.append(sorted(opt.param_groups[0]))
"""
    assert_same_snippet(code, warnings_too=True)


PLATEAU = {
    "default": "s = lr_scheduler.ReduceLROnPlateau(opt)",
    "max abs cooldown": ("s = lr_scheduler.ReduceLROnPlateau(opt, mode='max', factor=0.5, "
                         "patience=3, threshold=0.01, threshold_mode='abs', cooldown=4)"),
    "min_lr list": ("s = lr_scheduler.ReduceLROnPlateau(opt, 'min', 0.3, 2, min_lr=[0.01, 0.05],"
                    " eps=1e-3)"),
}


@pytest.mark.parametrize("case", PLATEAU)
def test_reduce_lr_on_plateau(case):
    code = SETUP + PLATEAU[case] + """
r = [s.get_last_lr()]
metrics = [1.0 / (1 + (i % 37)) + 0.001 * i for i in range(400)]
for i, loss in enumerate(metrics):
    opt.step()
    s.step(m.tensor(loss) if i % 2 else loss)
    r.append((s.get_last_lr(), s.best, s.num_bad_epochs, s.cooldown_counter, s.last_epoch))
r.append(list(s.state_dict()))
"""
    assert_same_snippet(code, warnings_too=True)


def test_reduce_lr_on_plateau_epoch_warns_and_group_added():
    code = SETUP + """
s = lr_scheduler.ReduceLROnPlateau(opt, patience=0)
s.step(1.0, epoch=5)
opt.add_param_group({'params': [m.zeros(1, requires_grad=True)], 'lr': 1.0})
s.step(2.0)
s.step(3.0)
r = [s.get_last_lr(), s.last_epoch, s.min_lrs]
s2 = lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0, 0, 0])
opt.add_param_group({'params': [m.zeros(1, requires_grad=True)]})
s2.step(1.0)
r.append(error(lambda: s2.step(2.0)))
"""
    assert_same_snippet(code, warnings_too=True)


@pytest.mark.parametrize("case", ["StepLR", "CosineAnnealingLR", "OneCycleLR", "CyclicLR",
                                  "SequentialLR", "ChainedScheduler", "LambdaLR",
                                  "CosineAnnealingWarmRestarts T_mult", "MultiStepLR"])
def test_state_dict_round_trip_resumes_the_same_schedule(case):
    # 120 steps straight == 60 steps, save optimizer and scheduler, rebuild, load, 60 more
    code = SETUP + SCHEDULERS[case] + """
for i in range(60):
    opt.step(); s.step()
saved = (copy.deepcopy(opt.state_dict()), copy.deepcopy(s.state_dict()))
straight = []
for i in range(60):
    opt.step(); s.step(); straight.append(s.get_last_lr())
w = m.zeros(3, requires_grad=True)
b = m.zeros(2, requires_grad=True)
opt = m.optim.SGD([{'params': [w]}, {'params': [b], 'lr': 0.3}], lr=0.1, momentum=0.9)
""" + SCHEDULERS[case] + """
opt.load_state_dict(saved[0]); s.load_state_dict(saved[1])
resumed = []
for i in range(60):
    opt.step(); s.step(); resumed.append(s.get_last_lr())
r = [straight, resumed, straight == resumed, list(saved[1])]
"""
    assert_same_snippet("import copy\n" + code, warnings_too=True)


def test_state_dict_through_engine_save_and_load():
    import io

    import engine
    w = engine.zeros(3, requires_grad=True)
    opt = engine.optim.SGD([w], lr=0.1, momentum=0.9)
    s = engine.optim.lr_scheduler.CosineAnnealingLR(opt, 50)
    for _ in range(20):
        opt.step()
        s.step()
    buffer = io.BytesIO()
    engine.save({"optimizer": opt.state_dict(), "scheduler": s.state_dict()}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)  # real torch reads what the engine wrote
    t_w = torch.zeros(3, requires_grad=True)
    t_opt = torch.optim.SGD([t_w], lr=0.1, momentum=0.9)
    t_s = torch.optim.lr_scheduler.CosineAnnealingLR(t_opt, 50)
    t_opt.load_state_dict(loaded["optimizer"])
    t_s.load_state_dict(loaded["scheduler"])
    assert loaded["scheduler"] == s.state_dict()
    for _ in range(30):
        opt.step()
        s.step()
        t_opt.step()
        t_s.step()
        assert s.get_last_lr() == t_s.get_last_lr()
    buffer = io.BytesIO()
    torch.save(t_s.state_dict(), buffer)
    buffer.seek(0)
    assert engine.load(buffer) == s.state_dict()


WARNINGS = {
    "scheduler before optimizer": SETUP + """
s = lr_scheduler.StepLR(opt, 2)
s.step(); opt.step(); s.step()
r = s.get_last_lr()
""",
    "optimizer step replaced": SETUP + """
s = lr_scheduler.ExponentialLR(opt, 0.5)
opt.step = lambda closure=None: None
opt.step(); s.step()
r = s.get_last_lr()
""",
    "right order": SETUP + """
s = lr_scheduler.ExponentialLR(opt, 0.5)
opt.step(); s.step(); s.step()
r = s.get_last_lr()
""",
    "get_lr called directly": SETUP + """
s = lr_scheduler.StepLR(opt, 1, 0.5)
r = [s.get_lr(), s.get_last_lr()]
""",
    "two schedulers on one optimizer": SETUP + """
s1 = lr_scheduler.StepLR(opt, 3)
s2 = lr_scheduler.ExponentialLR(opt, 0.9)
r = []
for i in range(10):
    opt.step(); s1.step(); s2.step()
    r.append((s1.get_last_lr(), s2.get_last_lr(), s1.base_lrs, s2.base_lrs))
""",
    "last_epoch resume": SETUP + """
for g in opt.param_groups:
    g['initial_lr'] = g['lr']
s = lr_scheduler.CosineAnnealingLR(opt, 20, last_epoch=7)
r = [s.get_last_lr(), s.last_epoch]
opt.step(); s.step(); r.append(s.get_last_lr())
""",
}


@pytest.mark.parametrize("case", WARNINGS)
def test_warnings_as_torch(case):
    assert_same_snippet(WARNINGS[case], warnings_too=True)


def test_warning_category_and_place():
    import warnings

    for m in (torch, __import__("engine")):
        scope, _ = run_snippet(SETUP, m)
        s = m.optim.lr_scheduler.StepLR(scope["opt"], 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s.step()
        assert [w.category for w in caught] == [UserWarning]
        assert caught[0].filename == __file__  # stacklevel: the line that called step()


ERRORS = {
    "not an optimizer": "lr_scheduler.StepLR(None, 3)",
    "not an optimizer plateau": "lr_scheduler.ReduceLROnPlateau([1])",
    "resume without initial_lr": "lr_scheduler.StepLR(opt, 3, last_epoch=5)",
    "lambdas count": "lr_scheduler.LambdaLR(opt, [lambda e: 1.0])",
    "multiplicative not callable": "lr_scheduler.MultiplicativeLR(opt, [0.9, 0.8])",
    "constant factor": "lr_scheduler.ConstantLR(opt, factor=1.5)",
    "linear start": "lr_scheduler.LinearLR(opt, start_factor=0)",
    "linear end": "lr_scheduler.LinearLR(opt, end_factor=-0.1)",
    "warm restarts T_0": "lr_scheduler.CosineAnnealingWarmRestarts(opt, 0)",
    "warm restarts T_0 float": "lr_scheduler.CosineAnnealingWarmRestarts(opt, 2.0)",
    "warm restarts T_mult": "lr_scheduler.CosineAnnealingWarmRestarts(opt, 3, T_mult=0)",
    "warm restarts eta_min": "lr_scheduler.CosineAnnealingWarmRestarts(opt, 3, eta_min='x')",
    "warm restarts epoch": "lr_scheduler.CosineAnnealingWarmRestarts(opt, 3).step(-1)",
    "cyclic mode": "lr_scheduler.CyclicLR(opt, 0.1, 1.0, mode='sine')",
    "cyclic max_lr count": "lr_scheduler.CyclicLR(opt, 0.1, [1.0])",
    "cyclic no momentum": ("lr_scheduler.CyclicLR(m.optim.Optimizer([m.zeros(1)], "
                           "{'differentiable': False, 'lr': 0.1}), 0.1, 1.0)"),
    "cyclic no lr": ("lr_scheduler.CyclicLR(m.optim.Optimizer([m.zeros(1)], "
                     "{'differentiable': False}), 0.1, 1.0)"),
    "one cycle nothing": "lr_scheduler.OneCycleLR(opt, 1.0)",
    "one cycle total": "lr_scheduler.OneCycleLR(opt, 1.0, total_steps=0)",
    "one cycle epochs": "lr_scheduler.OneCycleLR(opt, 1.0, epochs=2.0, steps_per_epoch=3)",
    "one cycle steps_per_epoch": "lr_scheduler.OneCycleLR(opt, 1.0, epochs=2, steps_per_epoch=-3)",
    "one cycle pct": "lr_scheduler.OneCycleLR(opt, 1.0, 10, pct_start=1)",
    "one cycle anneal": "lr_scheduler.OneCycleLR(opt, 1.0, 10, anneal_strategy='exp')",
    "one cycle too many steps": ("s = lr_scheduler.OneCycleLR(opt, 1.0, 3)\n"
                                 "for i in range(4):\n    s.step()"),
    "plateau factor": "lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)",
    "plateau mode": "lr_scheduler.ReduceLROnPlateau(opt, mode='avg')",
    "plateau threshold mode": "lr_scheduler.ReduceLROnPlateau(opt, threshold_mode='pct')",
    "plateau min_lrs": "lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1])",
    "sequential empty": "lr_scheduler.SequentialLR(opt, [], [])",
    "sequential milestones": ("lr_scheduler.SequentialLR(opt, [lr_scheduler.StepLR(opt, 2)], "
                              "[3])"),
    "sequential plateau": ("lr_scheduler.SequentialLR(opt, [lr_scheduler.StepLR(opt, 2), "
                           "lr_scheduler.ReduceLROnPlateau(opt)], [3])"),
    "sequential not a scheduler": "lr_scheduler.SequentialLR(opt, [5], [])",
    "chained empty": "lr_scheduler.ChainedScheduler([])",
    "base get_lr": ("class S(lr_scheduler.LRScheduler):\n    pass\nS(opt)"),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_as_torch(case):
    code = SETUP + "def run():\n" + "".join(
        "    " + line + "\n" for line in ERRORS[case].splitlines()) + "r = error(run)\n"
    results = [snippet_facts(run_snippet(code, mod)[0]["r"]) for mod in
               (torch, __import__("engine"))]
    assert results[0] is not None and results[1] == results[0]


def test_different_optimizer_error_names_the_optimizers():
    code = SETUP + """
other = m.optim.SGD([m.zeros(1, requires_grad=True)], lr=1.0)
e = error(lambda: lr_scheduler.ChainedScheduler([lr_scheduler.StepLR(opt, 2),
                                                 lr_scheduler.StepLR(other, 2)]))
r = [type(e).__name__, str(e).split(' has ')[0]]
"""
    assert_same_snippet(code)


TENSOR_SETUP = """
w = m.zeros(3, requires_grad=True)
b = m.zeros(2, requires_grad=True)
lr0, lr1 = m.tensor(0.1), m.tensor([0.3])
opt = m.optim.SGD([{'params': [w]}, {'params': [b], 'lr': lr1}], lr=lr0, momentum=0.9)
lr_scheduler = m.optim.lr_scheduler
"""


@pytest.mark.parametrize("case", SCHEDULERS)
def test_tensor_learning_rates_are_filled_in_place(case):
    """``lr=torch.tensor(...)``: every scheduler fills the group's tensor in place (it stays
    the learner's tensor, 0-d or 1-element), get_last_lr() gives copies, as torch 2.15."""
    code = TENSOR_SETUP + SCHEDULERS[case] + """
r = [s.get_last_lr(), getattr(s, "base_lrs", None)]
for i in range(200):
    w.grad, b.grad = m.ones(3), m.ones(2)
    opt.step()
    s.step()
    last = s.get_last_lr()
    r.append([last, opt.param_groups[0]['lr'] is lr0, opt.param_groups[1]['lr'] is lr1,
              lr0, lr1, last[0] is lr0, [g['momentum'] for g in opt.param_groups]])
r += [w, b, opt.param_groups[0]['initial_lr'], opt.param_groups[0]['initial_lr'] is lr0,
      opt.state_dict()['param_groups'][1]['lr']]
"""
    assert_same_snippet(code, warnings_too=True)


def test_tensor_learning_rate_with_reduce_lr_on_plateau():
    code = TENSOR_SETUP + """
s = lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
r = []
for i in range(30):
    opt.step()
    s.step(1.0)
    r.append([s.get_last_lr(), opt.param_groups[0]['lr'] is lr0, lr0, lr1])
"""
    assert_same_snippet(code, warnings_too=True)
