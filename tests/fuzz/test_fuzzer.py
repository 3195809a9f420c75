"""The fuzzer's own tests: it generates the same programs for a seed, they mostly run, the
comparator sees a planted difference, and shrinking reduces a failing program."""
import copy
import json
import subprocess
import sys
import types

import pytest

import engine
import parity
from fuzz import compare, generator, known, observe, shrink
from fuzz.families import FAMILIES
from fuzz.worker import reset


# ---------------------------------------------------------------- the generator
def test_a_seed_always_gives_the_same_program():
    for seed in (0, 1, 17, 4242):
        assert generator.generate(seed) == generator.generate(seed)
    assert len({generator.source(generator.generate(seed)) for seed in range(20)}) == 20


def test_programs_are_small_and_parse():
    for seed in range(200):
        statements = generator.generate(seed)
        assert 5 <= len(statements) <= 25
        for statement in statements:
            compile(statement, f"<seed {seed}>", "exec")


def test_programs_mostly_run_to_the_end_on_the_engine():
    """Well typed by construction: few statements raise (the mistakes are on purpose). (The
    classic programs: the families write more calls that torch refuses, on purpose too;
    test_family_programs_parse_and_mostly_run.)"""
    runs = raised = complete = 0
    for seed in range(150):
        records = observe.run_program(engine, generator.generate(seed, ()))
        reset(engine)
        errors = sum(any(line[1] == "error" for line in r["lines"]) for r in records)
        runs, raised, complete = runs + len(records), raised + errors, complete + (not errors)
    assert raised / runs < 0.08
    assert complete / 150 > 0.6


def test_the_surface_is_covered():
    text = "\n".join(generator.source(generator.generate(seed)) for seed in range(400))
    for needle in ["torch.tensor(", "torch.zeros", "torch.arange(", "torch.linspace(",
                   "torch.manual_seed(", "_like(", ".backward(", "retain_graph=True",
                   "with torch.no_grad()", "torch.inference_mode()", "torch.autograd.grad(",
                   "create_graph=True", "register_hook(", "ctx.save_for_backward",
                   "ctx.mark_dirty", "torch.nn.Linear(", "torch.optim.Adam(", "momentum=0.9",
                   "CrossEntropyLoss", ".view(", ".transpose(", ".expand(", ".unbind(",
                   ".data_ptr()", ".stride()", "torch.where(", "@", "] = ", ".add_(",
                   ".detach()", ".clone()", ".retain_grad()", "keepdim=True", ".softmax(",
                   "torch.float64", "torch.bool"]:
        assert needle in text, needle


def test_promotion_follows_torch_rules():
    tensor = generator.TensorVar
    assert generator.result_type(tensor((2,), "int32"), "2.5") == "float32"
    assert generator.result_type(tensor((2,), "int8"), tensor((), "int64")) == "int8"
    assert generator.result_type(tensor((2,), "int64"), tensor((), "float64")) == "float64"
    assert generator.result_type(tensor((2,), "uint8"), tensor((3,), "int8")) == "int16"
    assert generator.result_type(tensor((2,), "bool"), "True") == "bool"
    assert generator.result_type(tensor((2,), "float16"), "2.5") == "float16"


# ---------------------------------------------------------------- the observer
def test_the_observer_describes_what_a_learner_sees():
    records = observe.run_program(engine, [
        "x = torch.ones(2, 3, requires_grad=True)", "y = x.t()", "print(y.is_contiguous())",
        "z = (y * 2).sum()", "z.backward()", "x.add_(1)"])
    lines = [{key: text for key, _, text, _ in r["lines"]} for r in records]
    assert lines[1]["y.layout"] == "shape=(3, 2) stride=(1, 3) offset=0"
    assert lines[1]["y.sharing"] == "shares memory with x"
    assert lines[2]["print 0"] == "False"
    assert "grad_fn=SumBackward0" in lines[3]["z.graph"]
    assert lines[4]["x.grad.values"] == "[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]"
    assert lines[5]["error"].startswith("RuntimeError: a leaf Variable that requires grad")
    assert not records[5]["unintended"]


LIBRARY_CODE = """import numpy

def refuse():
    raise RuntimeError("torch's words")

def stumble():
    return numpy.zeros(2) + numpy.zeros(3)
"""


def test_an_error_the_library_did_not_raise_on_purpose_is_unintended(tmp_path):
    """Unintended: numpy's error inside the library, a missing attribute; not: a `raise`."""
    path = tmp_path / "ops.py"
    path.write_text(LIBRARY_CODE)
    library = types.SimpleNamespace(__file__=str(tmp_path / "__init__.py"))
    namespace = {}
    exec(compile(LIBRARY_CODE, str(path), "exec"), namespace)
    for function, unintended in [("refuse", False), ("stumble", True)]:
        with pytest.raises(Exception) as caught:
            namespace[function]()
        assert observe.is_unintended(caught.value, library) is unintended
    # (sum's argument parser refuses an unknown keyword on purpose, with torch's words; exp
    # leaves it to Python)
    records = observe.run_program(engine, ["x = torch.ones(2)", "x.no_such_method()",
                                           "x.exp(no_such_keyword=1)", "x.view(5)",
                                           "x.sum(no_such_keyword=1)"])
    assert [r["unintended"] for r in records] == [False, True, True, False, False]


# ---------------------------------------------------------------- the comparator
def _answer(lines, unintended=False):
    return {"status": "ok", "records": [{"lines": lines, "unintended": unintended}]}


TORCH = _answer([["x", "repr", "tensor([1.0000, 0.3333])", "float32"],
                 ["x.values", "values", "[1.0, 0.3333333432674408]", "float32"],
                 ["x.dtype", "dtype", "torch.float32", None],
                 ["x.graph", "graph", "requires_grad=False is_leaf=True version=0", None]])


def _planted(key, text):
    answer = copy.deepcopy(TORCH)
    for line in answer["records"][0]["lines"]:
        if line[0] == key:
            line[2] = text
    return answer


def test_identical_output_is_an_exact_match():
    assert compare.compare(TORCH, copy.deepcopy(TORCH)).status == "exact"


@pytest.mark.parametrize("key, text, category", [
    ("x.values", "[1.0, 0.3334]", "value"),
    ("x.dtype", "torch.float64", "dtype"),
    ("x.graph", "requires_grad=True is_leaf=True version=0", "graph"),
])
def test_a_planted_difference_is_a_mismatch(key, text, category):
    verdict = compare.compare(TORCH, _planted(key, text))
    assert (verdict.status, verdict.category, verdict.key) == ("mismatch", category, key)


def test_a_last_bit_difference_is_within_tolerance():
    verdict = compare.compare(TORCH, _planted("x.values", "[1.0, 0.33333337306976320]"))
    assert verdict.status == "tolerance"


def test_after_a_difference_within_tolerance_later_ones_may_grow():
    """exp(x) of an x off in the last bit is off by |x| times more: still tolerance; a value
    off by much more is not."""
    first = [["a.values", "values", "[29.556224822998047]", "float32"]]
    torch_answer = {"status": "ok", "records": [
        {"lines": first, "unintended": False},
        {"lines": [["b.values", "values", "[6856545140736.0]", "float32"]], "unintended": False}]}
    engine_answer = copy.deepcopy(torch_answer)
    engine_answer["records"][0]["lines"][0][2] = "[29.55622673034668]"
    engine_answer["records"][1]["lines"][0][2] = "[6856532033536.0]"
    assert compare.compare(torch_answer, engine_answer).status == "tolerance"
    engine_answer["records"][1]["lines"][0][2] = "[6956532033536.0]"
    assert compare.compare(torch_answer, engine_answer).category == "value"
    engine_answer["records"][0]["lines"][0][2] = "[29.556224822998047]"
    engine_answer["records"][1]["lines"][0][2] = "[6856532033536.0]"
    assert compare.compare(torch_answer, engine_answer).category == "value"  # (no drift before)


def test_a_value_that_changed_in_its_last_bit_on_one_side_only_is_within_tolerance():
    """c.grad += a residue of 1e-17 in torch (an exp one ulp off), += 0 in the engine: the
    engine writes no line (nothing changed); its last line is compared (fuzz 605708). A
    gradient that becomes a residue where the other stays 0 is still a mismatch, and so is a
    statement's own output (an error) that only one side shows."""
    def grad(text):
        return [["c.grad.values", "grad", text, "float64"]]
    torch_answer = {"status": "ok", "records": [{"lines": grad("[0.12435300177159628]"),
                                                 "unintended": False},
                                                {"lines": grad("[0.12435300177159617]"),
                                                 "unintended": False}]}
    engine_answer = copy.deepcopy(torch_answer)
    engine_answer["records"][1]["lines"] = []
    assert compare.compare(torch_answer, engine_answer).status == "tolerance"
    torch_answer["records"][1]["lines"] = grad("[0.5]")
    assert compare.compare(torch_answer, engine_answer).category == "gradient"
    for record in torch_answer["records"] + engine_answer["records"]:
        record["lines"] = [[k, f, "[0.0]" if f == "grad" else t, d] for k, f, t, d in
                           record["lines"]]
    torch_answer["records"][1]["lines"] = grad("[-2.98e-08]")
    assert compare.compare(torch_answer, engine_answer).category == "gradient"
    torch_answer["records"][1]["lines"] = [["error", "error", "RuntimeError: no", None]]
    engine_answer["records"][0]["lines"].append(["error", "error", "RuntimeError: no", None])
    assert compare.compare(torch_answer, engine_answer).category == "error type"


def test_an_out_tensor_resized_by_a_failed_op_is_not_observed_until_it_changes():
    """torch resizes out= before its kernel fails and leaves uninitialised memory there: its
    values are no observation (known.py had a REPORTED entry for it); once written they are."""
    program = ["x = torch.tensor([1, 7, -2])", "a = torch.zeros(0, dtype=torch.int64)",
               "b = torch.div(x, torch.tensor([0, 1, 1]), rounding_mode='floor', out=a)",
               "a.fill_(3)"]
    records = observe.run_program(engine, program)
    lines = {key: text for key, _, text, _ in records[2]["lines"]}
    assert lines["a"] == observe.UNINITIALISED and not lines.get("a.values")  # (gone)
    assert "shape=(3,)" in lines["a.layout"]  # (its shape is torch's, and observed)
    lines = {key: text for key, _, text, _ in records[3]["lines"]}
    assert lines["a.values"] == "[3, 3, 3]"


def _two_statements(first, second, field="values"):
    """q's values (drifted or not), then p's (field "values" or "grad")."""
    key = "p.values" if field == "values" else "p.grad.values"
    return {"status": "ok", "records": [
        {"lines": [["q.values", "values", first, "float32"]], "unintended": False},
        {"lines": [[key, field, second, "float32"]], "unintended": False}]}


# fuzz 608394: tan(log_softmax(d))'s second derivative, whose terms (about 60) cancel: torch's
# float32 residues, the engine's after log_softmax's forward differed in its last bit, and the
# same program in float64 (the reference: 1e-16, the exact 0 rounded)
DRIFTED_Q = ("[-0.3342585265636444]", "[-0.33425840735435486]", "[-0.33425850398048627]")
RESIDUES = ("[-1.2604035873664543e-05, -4.2704996872089396e-07, 1.0348136129323393e-05]",
            "[3.565505721780937e-07, -8.860230445861816e-08, 8.997626043856144e-08]",
            "[-8.335895476188457e-16, -3.7529490743910756e-17, 3.9143667594833517e-17]")


@pytest.mark.parametrize("field", ["values", "grad"])
def test_after_a_drift_a_residue_within_torchs_own_error_is_tolerance(field):
    torch_answer = _two_statements(DRIFTED_Q[0], RESIDUES[0], field)
    engine_answer = _two_statements(DRIFTED_Q[1], RESIDUES[1], field)
    reference = _two_statements(DRIFTED_Q[2], RESIDUES[2], field)
    category = "value" if field == "values" else "gradient"
    assert compare.compare(torch_answer, engine_answer).category == category
    assert compare.compare(torch_answer, engine_answer, reference=reference).status \
        == "tolerance"
    # a residue beyond REFERENCE_FACTOR times torch's own error is not
    engine_answer["records"][1]["lines"][0][2] = "[3.565505721780937e-07, 0.0, 4.5e-05]"
    assert compare.compare(torch_answer, engine_answer, reference=reference).category \
        == category
    # nor without an earlier difference: a backward formula's order, to be fixed
    engine_answer = _two_statements(DRIFTED_Q[0], RESIDUES[1], field)
    assert compare.compare(torch_answer, engine_answer, reference=reference).category \
        == category


WRONG = {"sign flipped": "[1.2604035873664543e-05, -4.2704996872089396e-07, "
                         "1.0348136129323393e-05]",
         "doubled": "[-2.5208071747329086e-05, -4.2704996872089396e-07, "
                    "1.0348136129323393e-05]",
         "a term missing": "[-1.2604035873664543e-05, -4.2704996872089396e-07, "
                           "2.2348136129323393e-05]"}


@pytest.mark.parametrize("wrong", list(WRONG))
@pytest.mark.parametrize("field", ["values", "grad"])
def test_a_wrong_gradient_as_small_as_a_residue_is_a_mismatch(wrong, field):
    """The same numbers as a correct gradient of a program whose values are small (its float64
    reference agrees with torch to float32's precision): a sign flip, a factor 2, a missing
    term are caught, though an absolute tolerance of 1e-4 would take them. (Differences
    under torch.testing's own float32 atol, 1e-5, are tolerance in any case.)"""
    correct = "[-1.260403543e-05, -4.270499658e-07, 1.034813617e-05]"
    torch_answer = _two_statements(DRIFTED_Q[0], RESIDUES[0], field)
    reference = _two_statements(DRIFTED_Q[2], correct, field)
    engine_answer = _two_statements(DRIFTED_Q[1], WRONG[wrong], field)
    assert compare.compare(torch_answer, engine_answer, reference=reference).category \
        == ("value" if field == "values" else "gradient")


def test_a_reference_that_computed_something_else_is_not_used():
    """torch.rand in float64 draws other numbers than in float32: a reference far from torch
    (beyond float32 noise of the program's numbers) accepts nothing."""
    torch_answer = _two_statements(DRIFTED_Q[0], RESIDUES[0])
    engine_answer = _two_statements(DRIFTED_Q[1], RESIDUES[1])
    reference = _two_statements("[0.71]", "[0.5, -0.2, 0.25]")
    assert compare.compare(torch_answer, engine_answer, reference=reference).category \
        == "value"


def test_the_reference_program_computes_in_float64():
    from tests.fuzz.run import in_float64
    assert in_float64(["x = torch.ones(2, dtype=torch.float32)", "y = x.half().float()",
                       "z = x.to(torch.float16) + torch.zeros(1, dtype=torch.float)",
                       "w = x.to(torch.float64)"]) == [
        "torch.set_default_dtype(torch.float64)",
        "x = torch.ones(2, dtype=torch.float64)", "y = x.double().double()",
        "z = x.to(torch.float64) + torch.zeros(1, dtype=torch.float64)",
        "w = x.to(torch.float64)"]


def test_errors_are_told_apart():
    torch_error = _answer([["error", "error", "RuntimeError: shapes differ", None]])
    other_message = _answer([["error", "error", "RuntimeError: other words", None]])
    other_type = _answer([["error", "error", "ValueError: shapes differ", None]])
    crash = _answer([["error", "error", "ValueError: operands could not be broadcast", None]],
                    unintended=True)
    assert compare.compare(torch_error, other_message).category == "error message"
    assert compare.compare(torch_error, other_type).category == "error type"
    assert compare.compare(torch_error, crash).category == "engine crash"
    assert compare.compare(torch_error, _answer([])).category == "error type"
    assert compare.compare(torch_error, {"status": "hang"}).category == "hang"


# ---------------------------------------------------------------- shrinking
def test_shrinking_keeps_only_what_the_failure_needs():
    program = [f"a{i} = {i}" for i in range(12)]
    program[7] = "b = torch.ones(3, 4) * 2.5"
    program[9] = "c = b.sum(dim=1, keepdim=True)"

    def fails(statements):
        return any("b = torch.ones(" in s for s in statements) and \
            any("c = b.sum" in s for s in statements)

    assert shrink.shrink(program, fails) == ["b = torch.ones(1, 1) * 0.0", "c = b.sum(dim=1)"]


def test_shrinking_takes_statements_out_of_blocks():
    program = ["x = torch.ones(2)", "with torch.no_grad():\n    y = x * 2\n    z = y + 1"]
    assert shrink.shrink(program, lambda s: any("y = x * 2" in t for t in s) and
                         any(t.startswith("x =") for t in s)) == ["x = torch.ones(1)",
                                                                  "y = x * 2"]


@pytest.mark.torch
def test_a_planted_engine_bug_is_found_and_shrunk():
    """End to end: torch against the engine with x.abs() off by one (fuzz/planted_bug.py)."""
    pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
    from fuzz.run import Pair, Result
    from fuzz.worker import Worker

    pair = Pair()
    pair.engine.stop()
    pair.engine = Worker("fuzz.planted_bug")
    try:
        program = ["x = torch.tensor([-1.5, 2.0])", "y = torch.ones(3)", "z = y * 2",
                   "w = x.abs()", "print(w.sum())", "v = z.sum()"]
        verdict = pair.verdict(program)
        assert (verdict.status, verdict.category, verdict.statement) == ("mismatch", "value", 3)
        result = Result(seed=-1, statements=program, verdict=verdict)
        pair.reduce(result, budget=60)
        assert len(result.reproducer) == 2 and result.reproducer[1] == "w = x.abs()"
        assert result.reproducer[0].startswith("x = torch.tensor([")
        assert result.reproducer_verdict.category == "value"
    finally:
        pair.close()


def test_a_worker_that_hung_restarts_both():
    """Both sides start afresh after one hung or died: what a process does once (torch's first
    forward-mode call warns) then happens on both alike, not on the restarted side only."""
    from fuzz.run import Pair

    class Stub:
        def __init__(self, status):
            self.status, self.stopped = status, 0

        def run(self, statements):
            return {"status": self.status, "records": []}

        def stop(self):
            self.stopped += 1

    for torch_status, engine_status, restarted in [("ok", "ok", 0), ("hang", "ok", 1),
                                                   ("ok", "died", 1), ("hang", "hang", 1)]:
        pair = Pair.__new__(Pair)
        pair.torch, pair.engine = Stub(torch_status), Stub(engine_status)
        pair.verdict(["x = torch.ones(1)"])
        assert (pair.torch.stopped, pair.engine.stopped) == (restarted, restarted)


# ---------------------------------------------------------------- the families
def test_a_seed_gives_the_same_program_in_another_process():
    """Deterministic per seed across processes too (sets of variables were once ordered by
    id(), which changes from run to run)."""
    seeds = list(range(0, 600, 7))
    code = ("import json, sys; from fuzz.generator import generate; "
            f"print(json.dumps([generate(s) for s in {seeds}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=generator.__file__.rsplit("/fuzz/", 1)[0], check=True)
    assert json.loads(done.stdout) == [generator.generate(s) for s in seeds]


def test_half_of_the_programs_are_classic_and_the_rest_spread_over_the_families():
    families = [generator.family_of(seed) for seed in range(4000)]
    classic = families.count(None) / len(families)
    assert 0.45 < classic < 0.55
    total = sum(f.weight for f in FAMILIES.values())
    for name, family in FAMILIES.items():
        share = families.count(name) / len(families)
        expected = (1 - generator.CLASSIC_SHARE) * family.weight / total
        assert abs(share - expected) < 0.4 * expected + 0.005, name
    assert {generator.family_of(seed, ("empty",)) for seed in range(50)} == {"empty"}
    assert {generator.family_of(seed, ()) for seed in range(50)} == {None}


def test_a_classic_program_is_the_same_with_or_without_the_families():
    """The families draw from their own random stream: a classic seed's program is the one
    it was before they existed, so the old programs' share keeps its meaning."""
    for seed in range(300):
        if generator.family_of(seed) is None:
            assert generator.generate(seed) == generator.generate(seed, ())


# What each family's programs must contain (its classes, in the words of the issue).
HALLMARKS = {
    "extremes": ["fill_(", "masked_fill", "] = ", "copy_(", "torch.iinfo(", "randint("],
    "overflow": ["3e38", ".std(", ".var(", ".norm(", "logsumexp", "softmax", "cumsum",
                 "float16", "histc("],
    "empty": ["torch.zeros((0", "torch.tensor([])", "as_strided", "torch.asarray("],
    "once_differentiable": ["@once_differentiable", "create_graph=True"],
    "grad_modes": ["with torch.inference_mode():", "with torch.no_grad():",
                   "torch.set_grad_enabled(", "with torch.enable_grad():"],
    "third_derivative": ["create_graph=True"],
    "signatures": ["input=", "out=", "keepdim=", "stable=", "aminmax()", "=None"],
    "layouts": [".t()", "::2", ".permute(", ".expand(", "requires_grad_()"],
    "zero_signs": ["-0.0", ".backward(", "ignore_index="],
    "versions": ["out=", ".data", "torch.isclose(", "with torch.no_grad():\n", "frexp("],
    "warnings": [".var()", "torch.nn.functional.softmax("],
    "check_order": ["torch.mm(", "dtype=torch.bool"],
    "transforms": ["torch.func.grad(", "torch.func.jacrev(", "torch.func.jacfwd(",
                   "torch.func.jvp(", "torch.func.hessian(", "torch.func.vmap(",
                   "forward_ad.make_dual("],
    "hooks": [".register_hook(", ".retain_grad()", ".grad_fn.register_prehook(",
              ".grad_fn.register_hook(", "register_post_accumulate_grad_hook(",
              "saved_tensors_hooks("],
    "nested_forward": ["torch.func.jvp(lambda a_: torch.func.jvp(", "forward_ad.dual_level():",
                       "level=0", "level=1", "unpack_dual(", "enter_dual_level()",
                       "exit_dual_level(", "torch.func.jacfwd(torch.func.jacfwd("],
    "mutation_on_saved": ["allow_mutation_on_saved_tensors()", ".backward()",
                          "torch.autograd.grad(", "create_graph=True", ".mul_(", "] = "],
    "structure": ["torch.tril(", ".triu(", ".diagonal(", ".unfold(", "masked_select",
                  "index_add", "index_copy", "tensor_split", "argwhere", ".backward()"],
    "shape_reduce": ["torch.var_mean(", "torch.std_mean(", "aminmax(", "nanmean(", "roll(",
                     "tile(", "diff(", "trace(", "torch.meshgrid(", ".mT", ".backward()"],
    "pointwise_more": ["torch.erf(", ".erfinv(", "torch.logit(", "eps=", "torch.xlogy(",
                       ".copysign(", "torch.hypot(", "torch.fmax(", ".fmin(", "logaddexp2(",
                       "torch.deg2rad(", ".signbit(", "out=torch.empty(0", "_(",
                       "create_graph=True", ".backward(", "frexp("],
    "nn_more": ["hardtanh(", "softshrink(", "prelu(", "float('nan')", "inplace=True",
                "reduction='batchmean'", "margin_ranking_loss(", "torch.autograd.grad("],
    "linalg": ["torch.det(", ".inverse()", "torch.linalg.solve(", "torch.linalg.inv_ex(",
               "matrix_power(", "torch.slogdet(", "left=False", "check_errors=True",
               "create_graph=True", ".mT", "out=torch.empty(0"],
    "int_tensors": ["torch.tensor([[", "dtype=torch.int32)", "dtype=torch.uint8)",
                    "torch.tensor(True)", "requires_grad=True)", "torch.nn.functional.",
                    "torch.arange(", ".tile(", "torch.autograd.grad("],
    "nn_recent": ["functional.interpolate(", "functional.upsample(", "torch.nn.Upsample(",
                  "mode='nearest-exact'", "mode='area'", "mode='bicubic'", "mode='trilinear'",
                  "align_corners=", "recompute_scale_factor=", "scale_factor=(", "rms_norm(",
                  "torch.nn.RMSNorm(", "adaptive_max_pool1d(", "adaptive_max_pool2d(",
                  "return_indices=True", "lp_pool1d(", "lp_pool2d(", "max_unpool1d(",
                  "max_unpool2d(", "torch.nn.Fold(", "torch.nn.Unfold(", "functional.fold(",
                  "functional.unfold(", "torch.nn.Softmax2d()", "multilabel_margin_loss(",
                  "triplet_margin_with_distance_loss(", "gumbel_softmax(", "batch_norm(",
                  "instance_norm(", "layer_norm(", "group_norm(", "torch.channels_last",
                  "torch.randn((0, ", "torch.autograd.grad(", ".backward("],
    "half": ["np.array(", ".half()", ".type('torch.HalfTensor')", ".copy_(", "] = ",
             ".fill_(", "out=", "torch.where(", "torch.full(", "65519.99", "2 ** -25",
             ".sum(", ".std(", ".var(", ".softmax(", ".log_softmax(", ".cumsum(", ".norm(",
             "layer_norm(", "batch_norm(", "group_norm(", "torch.addmm(", "@", ".pow(",
             "gelu(", "silu(", "torch.autograd.grad("],
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_writes_its_classes(family):
    text = "\n".join(generator.source(generator.generate(seed, (family,)))
                     for seed in range(150))
    for needle in HALLMARKS[family]:
        assert needle in text, needle
    if family == "third_derivative":
        assert any(s.count("create_graph=True") >= 2 for s in text.split("\n\n")) or \
            text.count("create_graph=True") > 100


def test_family_programs_parse_and_mostly_run():
    runs = raised = 0
    for seed in range(240):
        statements = generator.generate(seed, tuple(FAMILIES))
        for statement in statements:
            compile(statement, f"<seed {seed}>", "exec")
        records = observe.run_program(engine, statements)
        reset(engine)
        runs += len(records)
        raised += sum(any(line[1] == "error" for line in r["lines"]) for r in records)
    assert raised / runs < 0.25


# ---------------------------------------------------------------- what is compared
def test_a_zero_of_another_sign_is_not_a_rounding_difference():
    """-0.0 against 0.0 (values, gradients); a gradient's residue against an exact 0.0; but
    not once values have drifted, nor in a repr."""
    assert compare.compare(_values("[0.0, 1.0]"), _values("[-0.0, 1.0]")).category == "value"
    assert compare.compare(_values("[0.0, 1.0]", "grad"),
                           _values("[-2.9802322387695312e-08, 1.0]", "grad")).category \
        == "gradient"
    assert compare.compare(_values("[0.0, 1.0]"),
                           _values("[-2.7755575615628914e-17, 1.0]")).status == "tolerance"
    drifted = _values("[0.0, 1.0]")
    drifted["records"].insert(0, {"lines": [["a.values", "values", "[0.1]", "float32"]],
                                  "unintended": False})
    engine_side = copy.deepcopy(drifted)
    engine_side["records"][0]["lines"][0][2] = "[0.10000001]"
    engine_side["records"][1]["lines"][0][2] = "[-0.0, 1.0]"
    assert compare.compare(drifted, engine_side).status == "tolerance"


def _values(text, field="values"):
    key = "x.values" if field == "values" else "x.grad.values"
    return _answer([[key, field, text, "float32"]])


def test_the_grad_mode_a_statement_leaves_is_observed():
    records = observe.run_program(engine, ["x = 1", "torch.set_grad_enabled(False)",
                                           "with torch.enable_grad():\n    y = 2"])
    modes = [{key: text for key, _, text, _ in r["lines"]}.get("grad mode") for r in records]
    assert modes == ["grad_enabled=True inference_mode=False",
                     "grad_enabled=False inference_mode=False", None]
    reset(engine)
    verdict = compare.compare(_answer([["grad mode", "mode", "grad_enabled=True", None]]),
                              _answer([["grad mode", "mode", "grad_enabled=False", None]]))
    assert verdict.category == "graph"


# ---------------------------------------------------------------- each family finds its bug
# The planted bug of each family (fuzz/planted_bug.py) and the categories it shows as.
PLANTED = {"extremes": {"error type", "value"}, "overflow": {"value"}, "empty": {"value"},
           "once_differentiable": {"error type", "engine crash"}, "grad_modes": {"graph"},
           "third_derivative": {"graph", "error type"}, "signatures": {"shape/stride"},
           "layouts": {"shape/stride"}, "zero_signs": {"value", "gradient"}, "versions": {"graph"},
           "warnings": {"warning"},
           # (a planted raise is outside the engine's folder: observe.py calls it a crash)
           "check_order": {"error message", "engine crash"}, "transforms": {"value"},
           "hooks": {"gradient", "value"}, "nested_forward": {"value"},
           "mutation_on_saved": {"error type", "gradient", "value"},
           "structure": {"value", "gradient"},
           "shape_reduce": {"value", "gradient"},
           "pointwise_more": {"value"},
           "nn_more": {"value", "gradient", "graph"},
           "linalg": {"value", "gradient"},
           "int_tensors": {"value", "shape/stride", "error type", "error message"},
           "nn_recent": {"value", "gradient"},
           "half": {"value"}}


@pytest.fixture(scope="module")
def oracle_and_engine():
    pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
    from fuzz.worker import Worker

    workers = Worker("torch", timeout=60.0), Worker("engine")
    yield workers
    for worker in workers:
        worker.stop()


@pytest.mark.torch
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_finds_a_planted_bug_of_its_class(family, oracle_and_engine):
    """With one bug of the family's class planted in the engine, the family's programs show
    a mismatch with torch where the engine without it agrees with torch."""
    from fuzz.worker import Worker

    torch_worker, engine_worker = oracle_and_engine
    planted = Worker("fuzz.planted_bug", env={"FUZZ_PLANTED_BUG": family})
    try:
        for seed in range(120):
            statements = generator.generate(seed, (family,))
            oracle = torch_worker.run(statements)
            verdict = compare.compare(oracle, planted.run(statements))
            if verdict.status != "mismatch" or verdict.category not in PLANTED[family]:
                continue
            if compare.compare(oracle, engine_worker.run(statements)).status != "mismatch":
                return
        pytest.fail(f"120 {family} programs did not find the planted bug")
    finally:
        planted.stop()


def test_a_known_difference_that_hides_nothing_does_not_stop_the_comparison():
    """A gradient's node names differ (documented) in the first statement; the third
    derivative's values in the second still count."""
    statements = ["g, = torch.autograd.grad(y.sum(), x, create_graph=True)", "h = g * 2"]
    graph = "requires_grad=True is_leaf=False version=0 grad_fn={} next=['AccumulateGrad']"
    torch_side = {"status": "ok", "records": [
        {"lines": [["g.graph", "graph", graph.format("SinBackwardBackward0"), None]],
         "unintended": False},
        {"lines": [["h.values", "values", "[1.0]", "float32"]], "unintended": False}]}
    engine_side = copy.deepcopy(torch_side)
    engine_side["records"][0]["lines"][0][2] = graph.format("MulBackward0")
    explain = known.explainer(statements)
    verdict = compare.compare(torch_side, engine_side, explain=explain)
    assert (verdict.category, verdict.statement) == ("graph", 0)
    assert known.known_reason(verdict, statements[0]) is not None
    engine_side["records"][1]["lines"][0][2] = "[2.0]"
    verdict = compare.compare(torch_side, engine_side, explain=explain)
    assert (verdict.category, verdict.statement) == ("value", 1)
    assert compare.compare(torch_side, engine_side).statement == 0  # (without explain)
    lost = copy.deepcopy(torch_side)
    lost["records"][0]["lines"][0][2] = "requires_grad=False is_leaf=True version=0"
    assert known.known_reason(compare.compare(torch_side, lost, explain=explain),
                              statements[0]) is None  # a lost graph is not a node name


def test_the_documented_node_names_are_known_where_they_show_and_nothing_else():
    """A gradient's node names show in reprs, prints and later nodes' next functions too; a
    lost graph, a changed value or another count of next functions is not that."""
    program = "g, = torch.autograd.grad(y.sum(), x, create_graph=True)"
    torch_repr = "tensor([0.5000], grad_fn=<TanhBackwardBackward0>)"
    cases = [("value", torch_repr, "tensor([0.5000], grad_fn=<MulBackward0>)", True),
             ("printed", "hook: " + torch_repr, "hook: tensor([0.5000], grad_fn=<MulBackward0>)",
              True),
             ("value", torch_repr, "tensor([0.7500], grad_fn=<MulBackward0>)", False),
             ("value", torch_repr, "tensor([0.5000])", False)]
    for category, torch_text, engine_text, is_known in cases:
        verdict = compare.Verdict("mismatch", category, torch_text=torch_text,
                                  engine_text=engine_text)
        assert (known.known_reason(verdict, program, program) is not None) == is_known
    graph = "requires_grad=True is_leaf=False version=0 grad_fn=MeanBackward0 next={}"
    later = compare.Verdict("mismatch", "graph", torch_text=graph.format(
        "['SigmoidBackwardBackward0']"), engine_text=graph.format("['MulBackward0']"))
    assert known.known_reason(later, "loss = g.mean()", program) is not None
    assert known.known_reason(later, "loss = g.mean()", "loss = g.mean()") is None
    later.engine_text = graph.format("[None, 'MulBackward0']")
    assert known.known_reason(later, "loss = g.mean()", program) is None


def test_a_write_into_an_inference_tensor_is_no_longer_a_known_difference():
    # the engine writes before refusing, as torch (tests/ops/test_inference_writes_parity.py)
    statement = ("with torch.inference_mode(False):\n    with torch.inference_mode():\n"
                 "        p = u + 0\n    p.mul_(2)")
    verdict = compare.Verdict("mismatch", "value", torch_text="tensor([2., 2.])",
                              engine_text="tensor([1., 1.])")
    assert known.known_reason(verdict, statement, statement) is None


def test_a_reproducer_is_a_program_python_reads(tmp_path):
    """Several-line texts (a tensor's repr) are comments line by line: tests/test_layout.py
    parses every .py file, tests/fuzz/out/ included."""
    from fuzz import run
    verdict = types.SimpleNamespace(category="value", statement=1, key="z",
                                    torch_text="tensor([[inf, nan],\n        [0., 1.]])",
                                    engine_text="tensor([[inf, inf],\n        [0., 1.]])")
    result = types.SimpleNamespace(seed=7, reproducer=None, reproducer_verdict=None,
                                   statements=["x = torch.ones(2, 2)", "z = x @ x"],
                                   verdict=verdict)
    path = run.write_reproducer(result, tmp_path)
    text = path.read_text()
    compile(text, str(path), "exec")
    assert "#                 [0., 1.]])" in text and "z = x @ x" in text


# the second derivative of tan(y) / tan(y): terms of size 200 cancel, to 0.0 in torch and to
# 1.5e-05 in the engine, whose float32 tan(1.5) is an ulp from MKL's (fuzz 2497552)
TAN_OVER_TAN = ["y = torch.tensor([1.5, 0.5, 0.5], requires_grad=True)",
                "d = (y.tan()) / (y.tan())", "d.sum().backward(create_graph=True)",
                "u, = torch.autograd.grad(y.grad.sum(), y, create_graph=True)"]


@pytest.mark.torch
def test_torch_given_the_engines_math_functions_explains_a_cancelled_ulp():
    pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
    from fuzz.known import known_reason
    from fuzz.run import Pair

    pair = Pair()
    try:
        verdict = pair.verdict(TAN_OVER_TAN)
        assert (verdict.status, verdict.category, verdict.statement) == ("mismatch", "value", 3)
        assert verdict.engines_math_explains
        assert "engine's values" in known_reason(verdict, TAN_OVER_TAN[3],
                                                 "\n".join(TAN_OVER_TAN)).reason
    finally:
        pair.close()


# the fourth derivative of 1 / tan(w) at 1.5: tan's ulp grows to 1.1494 in torch, 1.1569 in the
# engine; before that, e's nodes differ as documented (torch's MseLossBackwardBackward0; fuzz
# 4748724 had b's AddBackward1, which the engine's formula records now)
TAN_FOURTH_DERIVATIVE = ["w = torch.tensor([0.25, 1.5], requires_grad=True)",
                         "e, = torch.autograd.grad(torch.nn.functional.mse_loss(w, "
                         "torch.zeros(2)), w, create_graph=True)",
                         "a = (w.tan()).reciprocal()", "a.sum().backward(create_graph=True)",
                         "b, = torch.autograd.grad(w.grad.sum(), w, create_graph=True)",
                         "c, = torch.autograd.grad(b.sum(), w, create_graph=True)",
                         "d, = torch.autograd.grad(c.sum(), w)"]


@pytest.mark.torch
def test_the_engines_math_functions_explain_past_a_known_difference_before_it():
    """torch given the engine's tan shows the engine's numbers; the node names that differ
    earlier (a known difference compare goes on past) do not make the replay count as
    differing (fuzz 4748724)."""
    pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
    from fuzz.compare import compare
    from fuzz.known import explainer
    from fuzz.run import Pair

    program = TAN_FOURTH_DERIVATIVE
    pair = Pair()
    try:
        verdict = pair.verdict(program)
        again = compare(pair.engine_math.run(program), pair.engine.run(program),
                        explain=explainer(program))
    finally:
        pair.close()
    assert (verdict.status, verdict.category, verdict.statement) == ("mismatch", "value", 6)
    assert (again.status, again.category, again.statement) == ("mismatch", "graph", 1)
    assert verdict.engines_math_explains


@pytest.mark.torch
def test_the_engines_math_functions_do_not_explain_a_wrong_value():
    """A program with exp in it whose engine has a planted bug elsewhere (abs off by one): torch
    given the engine's exp still differs, so the mismatch stays new."""
    pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
    from fuzz.known import known_reason
    from fuzz.run import Pair
    from fuzz.worker import Worker

    program = ["x = torch.tensor([-1.5, 2.0])", "w = x.abs()", "v = x.exp()"]
    pair = Pair()
    pair.engine.stop()
    pair.engine = Worker("fuzz.planted_bug")
    try:
        verdict = pair.verdict(program)
        assert (verdict.status, verdict.category, verdict.statement) == ("mismatch", "value", 1)
        assert not verdict.engines_math_explains
        assert known_reason(verdict, program[1], "\n".join(program)) is None
    finally:
        pair.close()


@pytest.mark.torch
@pytest.mark.parametrize("name", ["exp", "log", "sin", "cos", "tanh", "tan"])
def test_torch_given_the_engines_math_functions_shows_the_engines_values(name):
    """Of float32 inputs where MKL's last bit and the engine's differ, function and method."""
    pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
    from fuzz.worker import Worker

    values = "torch.linspace(0.1, 1.55, 3001)"
    program = [f"x = {values}", f"a = x.{name}().tolist()", f"b = torch.{name}(x).tolist()",
               f"c = x.{name}().requires_grad"]
    answers = {}
    for library, env in (("engine", None), ("torch", None), ("torch", {"FUZZ_ENGINE_MATH": "1"})):
        with Worker(library, env=env) as worker:
            answers[library, bool(env)] = worker.run(program)["records"]
    assert answers["torch", True] == answers["engine", False]
    if name != "tanh":  # (MKL's tanh and the nearest float agree on these)
        assert answers["torch", False] != answers["engine", False]


def test_gelus_gradient_is_known_only_within_float32_drift():
    """The documented gelu gradient difference (fuzz 2786619) explains drift-sized numbers in
    a program that calls gelu, not a gradient twice as large, nor the same drift without gelu."""
    from fuzz.compare import Verdict
    from fuzz.known import known_reason

    program = ["x = torch.full((3,), -0.75, requires_grad=True)",
               "y = torch.nn.functional.gelu(x).softmax(-1)", "y.sum().backward()"]

    def verdict(torch_text, engine_text):
        return Verdict("mismatch", "gradient", statement=2, key="x.grad.values",
                       torch_text=torch_text, engine_text=engine_text)

    residue = verdict("[8.399076573128994e-12, 8.4e-12]", "[0.0, 0.0]")
    assert "gelu" in known_reason(residue, program[2], "\n".join(program)).reason
    doubled = verdict("[0.0007742047309875488]", "[0.0015484094619750977]")
    assert known_reason(doubled, program[2], "\n".join(program)) is None
    without_gelu = [line.replace("torch.nn.functional.gelu(x)", "x") for line in program]
    assert known_reason(residue, without_gelu[2], "\n".join(without_gelu)) is None


def test_group_norms_residues_are_known_only_where_the_engine_takes_its_formula():
    """fuzz 7031154: residues of group_norm's exactly-0 gradient are torch's since the engine
    replays its kernel, of a channels-last input too (fuzz 8009153); a graph of the gradient
    still takes the engine's formula, whose residues differ (documented)."""
    from fuzz.compare import Verdict
    from fuzz.known import known_reason

    program = ["x = torch.randn((2, 4), requires_grad=True)",
               "y = torch.nn.functional.group_norm(x, x.shape[1])",
               "g, = torch.autograd.grad(y.sum(), x)"]
    residue = Verdict("mismatch", "value", statement=2, key="g.values",
                      torch_text="[[-1.52587890625e-05, 0.0], [0.0, 3.814697265625e-06]]",
                      engine_text="[[0.0, 0.0], [0.0, 0.0]]")
    assert known_reason(residue, program[2], "\n".join(program)) is None
    for last in ("g, = torch.autograd.grad(y.sum(), x, create_graph=True)",
                 "g = torch.func.grad(lambda x: torch.nn.functional.group_norm(x, 4).sum())(x)"):
        graph = program[:2] + [last]
        assert known_reason(residue, last, "\n".join(graph)) is not None
    laid_out = program[:1] + ["x = x.to(memory_format=torch.channels_last)"] + program[1:]
    assert known_reason(residue, laid_out[3], "\n".join(laid_out)) is None


def test_a_partial_indexed_write_is_known_only_when_both_raised_out_of_bounds():
    """fuzz 2838745: torch writes the places before a bad index, then raises; the engine
    writes nothing. Known only where both raised that IndexError at the statement."""
    from fuzz import compare
    from fuzz.known import known_reason

    error = ["error", "error", "IndexError: index 2 is out of bounds for dimension 0 with size 2",
             None]

    def record(values, raised):
        return {"lines": ([error] if raised else []) + [["b.values", "values", values,
                                                         "float32"]], "unintended": False}

    statement = "b[z] = 1.5"
    for raised, is_known in ((True, True), (False, False)):
        _, mismatches, _ = compare.compare_statement(record("[1.5, 0.0]", raised),
                                                     record("[0.0, 0.0]", raised))
        verdict = mismatches[0]
        assert verdict.category == "value"
        assert (known_reason(verdict, statement, statement) is not None) is is_known


def test_an_in_place_operation_reading_its_own_memory_is_known_only_through_views():
    """fuzz 3028149: z *= w where w is a view of z's memory (torch's loop reads what it wrote,
    documented); the same statement with an unrelated w is no known difference."""
    shares = known._copy_source_shares_the_destination
    assert shares("z *= w", "z = x + 1\nw = z.narrow(1, 1, 1)\nz *= w")
    assert shares("z.mul_(w)", "z = x + 1\nw = z[:, 1:2]\nz.mul_(w)")
    assert not shares("z *= w", "z = x + 1\nw = x.narrow(1, 1, 1)\nz *= w")
    assert not shares("z *= w", "z = x + 1\nw = z.narrow(1, 1, 1)\nw = w + 1\nz *= w")
    block = "with torch.no_grad():\n    y[:, 2] = z\n    w = torch.std(y, 0)"  # (3548713)
    assert shares(block, "y = torch.randn(3, 3)\nz = y[-2]\n" + block)
    assert not shares(block, "y = torch.randn(3, 3)\nz = x[-2]\n" + block)


def test_singular_vectors_are_known_only_up_to_sign():
    """fuzz 3043972: svd's U or Vh with some signs flipped is the documented difference; other
    numbers are not."""
    flipped = types.SimpleNamespace(torch_text="tensor([[-0.9140,  0.4053], [0.0444, 0.05]])",
                                    engine_text="tensor([[0.9140, -0.4053], [0.0444, 0.05]])")
    other = types.SimpleNamespace(torch_text="tensor([[-0.9140,  0.4053], [0.0444, 0.05]])",
                                  engine_text="tensor([[0.9141, -0.4053], [0.0444, 0.05]])")
    assert known._equal_up_to_signs(flipped)
    assert not known._equal_up_to_signs(other)


def test_a_matrix_singular_to_working_precision_is_known_only_when_it_is():
    """fuzz 3098641: logdet's gradient of y @ y.mT where the 4 x 4 literal y has rank 3 is
    rounding noise on both sides (documented); a regular literal, a 3 x 3 one (the engine
    replays LAPACK there) or a program without a literal are not."""
    singular = known._singular_to_working_precision
    rank_three = ("y = torch.tensor([[-1.0, 1.0, 0.0, 0.0], [4.0, -1.0, 4.0, 1.0], "
                  "[0.0, 0.0, 4.0, 4.0], [0.0, 1.0, 0.0, -1.0]], dtype=torch.float64)")
    regular = ("y = torch.tensor([[2.0, 1.0, 0.0, 0.0], [0.0, 1.0, 4.0, 1.0], "
               "[0.0, 0.0, 4.0, 4.0], [0.0, 1.0, 0.0, -1.0]])")
    assert singular("", rank_three + "\nz = torch.logdet(y @ y.mT)")
    assert singular("", "y = torch.tensor([[[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0], "
                        "[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]])")
    assert not singular("", regular + "\nz = torch.logdet(y @ y.mT)")
    assert not singular("", "y = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]])")
    assert not singular("", "y = torch.randn(4, 4)\nz = torch.logdet(y)")
    assert not singular("", "y = torch.tensor([[1.0, [2.0]], [3.0, 4.0]])")


def test_a_singular_literal_matrix_of_any_size_is_told():
    """fuzz 3190812: a 3 x 3 literal of rank 2 under det's second derivative; a regular one,
    or a vector, is not singular."""
    singular = known._singular_literal
    assert singular("", "w = torch.tensor([[0.0, -1.0, 0.0], [0.0, 0.0, 0.0], "
                        "[0.0, -1.0, 2.0]], dtype=torch.float64)")
    assert singular("", "w = torch.tensor([[1.0, 2.0], [2.0, 4.0]])")
    assert not singular("", "w = torch.tensor([[1.0, 2.0], [3.0, 4.0]])")
    assert not singular("", "w = torch.tensor([[1.0, 2.0, 3.0]])")
    assert not singular("", "w = torch.randn(3, 3)")


def test_float32_residues_of_an_exact_zero_are_told_from_values():
    """fuzz 3151345, 3212263: residues below 1e-5 on both sides are the documented
    cancellation; a gradient of a visible size is not."""
    residues = types.SimpleNamespace(torch_text="[9.3e-10, 0.0, -2.3e-10]",
                                     engine_text="[3.7e-09, 2.8e-09, -6.9e-10]")
    visible = types.SimpleNamespace(torch_text="[9.3e-10, 0.0, -2.3e-10]",
                                    engine_text="[3.7e-09, 0.25, -6.9e-10]")
    assert known._float32_residues_of_zero(residues)
    assert not known._float32_residues_of_zero(visible)


def test_float32_residues_of_a_solve_are_told_from_wrong_values():
    """fuzz 3282116: solve(a, a) of a 6 x 6 float32 a, residues of 1e-5 where the exact
    value is 0 or 1; a value off by 1e-3 is not such a residue."""
    residues = types.SimpleNamespace(torch_text="[[1.0, 0.0, -9.7e-06], [0.0, 0.99999881, 0.0]]",
                                     engine_text="[[1.0, -2.8e-06, 0.0], [0.0, 1.0, 3.1e-06]]")
    wrong = types.SimpleNamespace(torch_text="[[1.0, 0.0, -9.7e-06], [0.0, 0.99999881, 0.0]]",
                                  engine_text="[[1.0, -2.8e-06, 0.0], [0.0, 1.001, 3.1e-06]]")
    assert known._residues_of_float32_sums(residues)
    assert not known._residues_of_float32_sums(wrong)


def test_cdists_third_derivative_nan_is_known_only_beside_residues():
    """fuzz 5445197, 3391786, 3434705: torch's third derivative of cdist is nan where two
    points coincide, the engine's finite; the other numbers must be the same (float64
    rounding) or both float32 residues of 0. A nan on the engine's side, or another number,
    is not it."""
    told = known._nan_in_torch_only

    def texts(torch_text, engine_text):
        return types.SimpleNamespace(torch_text=torch_text, engine_text=engine_text)

    assert told(texts("tensor([nan, -3.2e-05, 1.5])", "tensor([6.7e-05, 1.9e-05, 1.5])"))
    assert told(texts("tensor(nan)", "tensor(0.)"))
    assert told(texts("[0.0, 0.0, -9.5367431640625e-07]", "[1.52587890625e-05, 1.5e-05, 0.0]"))
    assert not told(texts("tensor([nan, 0.5])", "tensor([0.0, 0.25])"))
    assert not told(texts("[0.0, 0.0, 0.25]", "[1.52587890625e-05, 1.5e-05, 0.0]"))
    assert told(texts("[-1.0000152587890625, 3.9999847412109375]", "[-1.0, 3.9999847412109375]"))
    assert not told(texts("[-1.25, 3.9999847412109375]", "[-1.0, 3.9999847412109375]"))
    assert told(texts("[0.0, -7.62939453125e-06, 0.0]", "[0.0, 0.0, 0.0001220703125]"))
    assert not told(texts("[0.0, -7.62939453125e-06, 0.0]", "[0.0, 0.0, 0.0125]"))
    assert not told(texts("tensor([1.0, 0.5])", "tensor([0.0, 0.5])"))
    assert not told(texts("tensor([0.0, 0.5])", "tensor([nan, 0.5])"))


def test_a_zero_the_engine_cancels_exactly_is_known_against_torchs_roundings():
    """fuzz 3529713: the third derivative of x / x (exactly 0) is 0. in the engine and float32
    roundings in torch; a torch number of a visible size, or an engine number that is not
    0, is not that."""
    told = known._cancelled_in_engine_only

    def texts(torch_text, engine_text):
        return types.SimpleNamespace(torch_text=torch_text, engine_text=engine_text)

    assert told(texts("[[nan, 7.62939453125e-06], [7.62939453125e-06, 0.0001220703125]]",
                      "[[nan, 0.0], [0.0, 0.0]]"))
    assert not told(texts("[[nan, 7.6e-06], [7.6e-06, 0.25]]", "[[nan, 0.0], [0.0, 0.0]]"))
    assert not told(texts("[[nan, 7.6e-06], [7.6e-06, 0.0001]]", "[[nan, 0.0], [0.0, 2e-05]]"))
