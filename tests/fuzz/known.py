"""Differences already known, so that the fuzzer reports only new ones.

Each entry says why the difference is allowed for now and who removes it: a bug being fixed
on another branch, a torch 2.15 change the lead fixes on main, a difference documented in
notebooks/DIFFERENCES.md (``difference`` names the item there that explains it), or one
reported and left for a larger change. An entry matches a mismatch by
its category and by regular expressions over the first statement that differs and over
torch's and the engine's text for the deciding line (or by a ``test`` function). When a fix
lands, delete its entry: the fuzz test then guards the fix.
"""
import ast
import math
import re
from dataclasses import dataclass
from collections.abc import Callable

import numpy as np

from .compare import NUMBER, close_enough

DOCUMENTED = "documented in notebooks/DIFFERENCES.md"
REPORTED = "reported by the fuzzer, not fixed yet"


@dataclass
class Known:
    reason: str
    owner: str
    categories: tuple = ()   # empty: any category
    statement: str = ""      # regex searched in the first statement that differs
    torch: str = ""          # regex searched in torch's text for the deciding line
    engine: str = ""         # regex searched in the engine's text for it
    test: Callable | None = None  # or a function of the verdict
    program: str = ""        # regex searched in the whole program
    difference: str = ""     # DOCUMENTED: the title of its item in notebooks/DIFFERENCES.md
    # or a function of (the statement, the program) for what a regex cannot say
    program_test: Callable | None = None
    # The difference changes nothing a later line shows (a node's name): the comparison goes
    # on past it, so that it does not hide a bug after it. A function of the verdict when only
    # some of the entry's mismatches are such. (Not a version counter: a later view, detach or
    # .data of the gradient shows the same counter.)
    continues: bool | Callable = False

    def matches(self, verdict, statement, program=""):
        return ((not self.categories or verdict.category in self.categories)
                and re.search(self.statement, statement or "", re.S) is not None
                and re.search(self.program, program, re.S) is not None
                and re.search(self.torch, verdict.torch_text or "", re.S) is not None
                and re.search(self.engine, verdict.engine_text or "", re.S) is not None
                and (self.test is None or self.test(verdict))
                and (self.program_test is None or self.program_test(statement or "", program)))


def _residues_of_float64_sums(verdict):
    """The same decimal numbers but for float64 rounding (a residue near 0 included), even
    where a printed residue changed how a tensor's repr wraps its lines."""
    decimal = re.compile(r"-?\d+\.\d*(?:e[+-]\d+)?")
    numbers = [[float(n) for n in decimal.findall(text or "")]
               for text in (verdict.torch_text, verdict.engine_text)]
    return len(numbers[0]) == len(numbers[1]) > 0 and all(
        abs(e - t) <= 1e-7 + 1e-6 * abs(t) for t, e in zip(*numbers))


def _one_column_cdists_only(statement, program):
    """Every cdist in the program is between points of one column (x.reshape(-1, 1))."""
    calls = re.findall(r"\bcdist\(([^\n]*)", program)
    return bool(calls) and all(call.count(".reshape(-1, 1)") >= 2 for call in calls)


def _engines_residues_of_zero(verdict):
    """The engine's numbers all float32 residues of an exact 0 (below 1e-4), torch's
    finite."""
    decimal = re.compile(r"-?\d+\.\d*(?:e[+-]\d+)?|nan|inf")
    numbers = [decimal.findall(text or "") for text in (verdict.torch_text, verdict.engine_text)]
    return len(numbers[0]) == len(numbers[1]) > 0 and \
        all(math.isfinite(float(n)) for n in numbers[0]) and \
        all(abs(float(n)) < 1e-4 for n in numbers[1])


def _finite_on_both_sides(verdict):
    """The same count of numbers on both sides, every one finite."""
    decimal = re.compile(r"-?\d+\.\d*(?:e[+-]\d+)?|nan|inf")
    numbers = [decimal.findall(text or "") for text in (verdict.torch_text, verdict.engine_text)]
    return len(numbers[0]) == len(numbers[1]) > 0 and all(
        math.isfinite(float(n)) for side in numbers for n in side)


def _float32_residues_of_zero(verdict):
    """Both sides' numbers all float32 residues of an exact 0 (a sum that cancels): below
    1e-5 in size, as many on each side."""
    decimal = re.compile(r"-?\d+\.\d*(?:e[+-]\d+)?")
    numbers = [[float(n) for n in decimal.findall(text or "")]
               for text in (verdict.torch_text, verdict.engine_text)]
    return len(numbers[0]) == len(numbers[1]) > 0 and all(
        abs(n) < 1e-5 for side in numbers for n in side)


def _residues_below(limit):
    """A gradient that is exactly 0 (each group one value, or the gradient of a sum of the
    outputs): both sides' numbers residues of it, below ``limit``, as many on each side."""
    def test(verdict):
        decimal = re.compile(r"-?\d+\.\d*(?:e[+-]\d+)?")
        numbers = [[float(n) for n in decimal.findall(text or "")]
                   for text in (verdict.torch_text, verdict.engine_text)]
        return len(numbers[0]) == len(numbers[1]) > 0 and all(
            abs(n) < limit for side in numbers for n in side)
    return test


# A program whose group_norm gradient the engine takes from its own formula: with grad mode
# on in the backward pass (a graph of the gradient)
_GROUP_NORM_BY_FORMULA = (r"(?=.*\b(?:group_norm|GroupNorm)\()"
                          r"(?=.*(?:create_graph=True|torch\.func\.))")


def _residues_of_float32_sums(verdict):
    """The same numbers but for float32 rounding of sums whose terms cancel (an exact 0
    kept as 1e-5 on one side): within 5e-5 + 1e-5 of each other."""
    decimal = re.compile(r"-?\d+\.\d*(?:e[+-]\d+)?")
    numbers = [[float(n) for n in decimal.findall(text or "")]
               for text in (verdict.torch_text, verdict.engine_text)]
    return len(numbers[0]) == len(numbers[1]) > 0 and all(
        abs(e - t) <= 5e-5 + 1e-5 * abs(t) for t, e in zip(*numbers))


def _equal_up_to_signs(verdict):
    """The same numbers but for their signs (singular vectors: unique only up to sign)."""
    decimal = re.compile(r"-?\d+\.\d*(?:e[+-]\d+)?")
    numbers = [[abs(float(n)) for n in decimal.findall(text or "")]
               for text in (verdict.torch_text, verdict.engine_text)]
    return len(numbers[0]) == len(numbers[1]) > 0 and all(
        abs(e - t) <= 1e-6 + 1e-5 * t for t, e in zip(*numbers))


def _layouts(verdict):
    """``((shape, stride), (shape, stride))`` of torch's and the engine's layout line, or
    None where either is not one."""
    layouts = []
    for text in (verdict.torch_text, verdict.engine_text):
        found = re.match(r"shape=\(([\d, ]*)\) stride=\(([\d, ]*)\)", text or "")
        if not found:
            return None
        layouts.append([tuple(int(n) for n in group.split(",") if n.strip())
                        for group in found.groups()])
    return layouts


def _engine_row_major(verdict):
    """The engine's result row-major (torch's in another order), shapes equal."""
    layouts = _layouts(verdict)
    if layouts is None:
        return False
    (shape, _), (engine_shape, engine_stride) = layouts
    expected, size = [], 1
    for extent in reversed(shape):
        expected.insert(0, size)
        size *= max(extent, 1)
    return shape == engine_shape and tuple(expected) == engine_stride


def _layout_differs_only_on_sizes_0_and_1(verdict):
    """notebooks/DIFFERENCES.md: an elementwise result whose input has unusual strides only on
    dimensions of size 0 or 1 is laid out row-major."""
    layouts = _layouts(verdict)
    if layouts is None:
        return False
    (shape, torch_stride), (engine_shape, engine_stride) = layouts
    if shape != engine_shape:
        return False
    return 0 in shape or all(size == 1 for size, a, b in zip(shape, torch_stride, engine_stride)
                             if a != b)


def _only_version_differs(verdict):
    """The texts differ only in the version counter (or the engine's line did not change
    while torch's, a leaf's, changed only there)."""
    if verdict.engine_text is None:
        return re.fullmatch(r"requires_grad=\w+ is_leaf=True version=\d+",
                            verdict.torch_text or "") is not None
    texts = [re.sub(r"version=\d+", "version=#", t or "-")
             for t in (verdict.torch_text, verdict.engine_text)]
    return texts[0] == texts[1]


def _leaf_starts_at_version_0(verdict):
    """The engine's result is the same kind of leaf at version 0 (or its line did not change:
    ``b, c = w.max(dim=1)`` where the old ``b`` was such a leaf)."""
    if verdict.engine_text is None:
        return True
    requires_grad = re.match(r"requires_grad=(\w+)", verdict.torch_text).group(1)
    return verdict.engine_text == f"requires_grad={requires_grad} is_leaf=True version=0"


def _only_nodes_differ(verdict, versions=True):
    """The texts differ only in the nodes (a graph line's grad_fn and next functions, a repr's
    or a print's grad_fn) and, with ``versions``, the version counter: the same requires_grad
    and is_leaf, the same values (a gradient that lost its graph is not this)."""
    strip = r" grad_fn=.*| version=\S+" if versions else r" grad_fn=.*"
    texts = [re.sub(r"grad_fn=<\w+>", "grad_fn=#", t or "") for t in (verdict.torch_text,
                                                                     verdict.engine_text)]
    if all("grad_fn=#" in text for text in texts):  # reprs: rounded as any other
        return texts[0] == texts[1] or close_enough(*texts, "float32", printed=True)
    texts = [re.sub(strip, "", t or "") for t in (verdict.torch_text, verdict.engine_text)]
    return texts[0] == texts[1] and texts[0] != ""


def _only_next_differs(verdict):
    """Graph lines that differ only in the names of the next functions (as many of them,
    None in the same places)."""
    texts = [re.sub(r"'\w+'", "'#'", t or "") for t in (verdict.torch_text,
                                                       verdict.engine_text)]
    return texts[0] == texts[1] and " next=" in texts[0]


def _names_another_node_of_a_view(verdict):
    """The "modified by an inplace operation" error, word for word but the node it names:
    torch's AsStrided (the node of a view changed through its base)."""
    texts = [re.sub(r"which is output \d+ of \w+,", "which is output # of #,", t or "")
             for t in (verdict.torch_text, verdict.engine_text)]
    return texts[0] == texts[1] and "which is output 0 of AsStrided," in (verdict.torch_text or "")


def _only_node_names_differ(verdict):
    return _only_nodes_differ(verdict, versions=False)


def _only_strides_differ(verdict):
    """The same shape and offset; only the strides differ."""
    texts = [re.sub(r"stride=\([\d, ]*\)", "stride=#", t or "-")
             for t in (verdict.torch_text, verdict.engine_text)]
    return texts[0] == texts[1] and texts[0].startswith("shape=")


def _literal_matrices(program):
    """The numbers of every torch.tensor([[...]]) literal of two or more dimensions."""
    for found in re.finditer(r"torch\.tensor\((\[\[)", program):
        depth, start = 0, found.start(1)
        for end in range(start, len(program)):
            depth += {"[": 1, "]": -1}.get(program[end], 0)
            if depth == 0:
                break
        try:
            matrix = np.array(ast.literal_eval(program[start:end + 1]), dtype=np.float64)
        except (ValueError, SyntaxError, TypeError):
            continue
        if matrix.ndim >= 2:
            yield matrix


def _singular_literal(statement, program):
    """A literal square matrix (2 x 2 or larger) of lower rank in the program."""
    for matrix in _literal_matrices(program):
        if matrix.shape[-1] == matrix.shape[-2] >= 2 and matrix.size and \
                (np.linalg.matrix_rank(matrix) < matrix.shape[-1]).any():
            return True
    return False


def _singular_to_working_precision(statement, program):
    """A literal matrix of 4 or more rows or columns whose rank is less than that: it, and
    products such as y @ y.mT, are singular, so their det is rounding noise that a logdet, an
    inverse or a solve magnifies (fuzz 3098641: a 4 x 4 matrix of rank 3)."""
    for matrix in _literal_matrices(program):
        size = max(matrix.shape[-2:])
        if size >= 4 and matrix.size and (np.linalg.matrix_rank(matrix) < size).any():
            return True
    return False


def _nan_in_torch_only(verdict):
    """torch's numbers nan at some places where the engine's are finite (or none), all the
    others the same but for float64 rounding or for float32 residues of an exact 0 (less
    than 1e-3 apart: the terms of a third derivative, tens in size, cancel; added into a
    gradient that accumulates, they show beside its value); a nan of the engine's only where
    torch's is one too (fuzz 4340100: a nan an earlier x / x left in the accumulated .grad)."""
    token = re.compile(r"nan|-?inf|-?\d+\.\d*(?:e[+-]\d+)?")
    numbers = [[float(n) for n in token.findall(text or "")]
               for text in (verdict.torch_text, verdict.engine_text)]
    torch_numbers, engine_numbers = numbers
    if not (len(torch_numbers) == len(engine_numbers) > 0):
        return False
    nan_only_in_torch = [math.isnan(t) and not math.isnan(e)
                         for t, e in zip(torch_numbers, engine_numbers)]
    return all(
        math.isnan(t) if math.isnan(e) else
        nan or t == e or abs(e - t) <= 1e-7 + 1e-6 * abs(t) or abs(e - t) < 1e-3
        for nan, t, e in zip(nan_only_in_torch, torch_numbers, engine_numbers))


def _only_zero_signs_differ(verdict):
    """The same values but for the sign of some zeros (-0.0 against 0.0)."""
    texts = [re.sub(r"-0\.0\b", "0.0", t or "-") for t in (verdict.torch_text,
                                                            verdict.engine_text)]
    return texts[0] == texts[1]


FORWARD_MODE = r"torch\.func\.(jvp|jacfwd|hessian)\(|forward_ad\."


def _zero_signs_and_float32_last_bits_differ(verdict):
    """Some zeros' signs differ and float32 numbers within float32's tolerance (a derived
    tangent's zero signs beside MKL's float32 sin/cos/exp... an ulp away: both documented)."""
    texts = [re.sub(r"-0\.0\b", "0.0", t or "-") for t in (verdict.torch_text,
                                                            verdict.engine_text)]
    return "float16" not in texts[0] and close_enough(*texts, "float32")

def _float16_rounding_level(verdict):
    """Numbers laid out alike, and every pair that differs is within float16's rounding of
    an O(1) value (2**-9): the difference of two float16 results that agree but for how their
    formulas round (jacfwd(f) - jacrev(f))."""
    texts = (verdict.torch_text or "", verdict.engine_text or "")
    skeletons = [re.sub(r"\s+", "", NUMBER.sub("#", text)) for text in texts]
    tokens = [NUMBER.findall(text) for text in texts]
    if skeletons[0] != skeletons[1] or len(tokens[0]) != len(tokens[1]):
        return False
    pairs = [(float(t), float(e)) for t, e in zip(*tokens)]
    return all(t == e or max(abs(t), abs(e)) <= 2 ** -9 for t, e in pairs)


def _overflow_in_one_order_only(verdict):
    """Where the numbers differ, one of them is inf or nan and the other is too, or is near the
    type's largest (above 1e37: float32's lie within 3.4e38, float64's within 1.8e308): which
    partial sum overflows, and whether inf meets -inf, depends on the order of the additions."""
    from .compare import NUMBER
    tokens = [NUMBER.findall(t or "") for t in (verdict.torch_text, verdict.engine_text)]
    if len(tokens[0]) != len(tokens[1]) or tokens[0] == tokens[1]:
        return False

    def non_finite(text):
        return text.lstrip("-") in ("inf", "nan")

    def overflowing(text):
        return non_finite(text) or abs(float(text)) > 1e37
    return all(t == e or (non_finite(t) or non_finite(e)) and overflowing(t) and overflowing(e)
               for t, e in zip(*tokens))


# an assignment that makes a view of (or shares the memory of) another name
_ALIAS = re.compile(r"^(\w+) = (\w+)(?:\[[^\n]*\]|\.(?:data|detach\(\)|view\([^\n]*\)|"
                    r"reshape\([^\n]*\)|t\(\)|T|mT|transpose\([^\n]*\)|expand\([^\n]*\)|"
                    r"view_as\([^\n]*\)|narrow\([^\n]*\)|select\([^\n]*\)|"
                    r"unsqueeze\([^\n]*\)|squeeze\([^\n]*\)|flatten\([^\n]*\)|"
                    r"diagonal\([^\n]*\)|as_strided\([^\n]*\)))$")


def _copy_source_shares_the_destination(statement, program):
    """``y.copy_(a)`` or ``y[i] = a`` where ``a`` was made from ``y``'s memory by a chain of
    views (``z = y[:, 1]; w = z.data; a = w[0:2]``): torch's loop reads the source while it
    writes. (In a ``with`` block, any of its lines: fuzz 3548713.)"""
    lines = statement.strip().splitlines()
    if len(lines) > 1 and lines[0].startswith("with "):
        return any(_copy_source_shares_the_destination(line, program) for line in lines[1:])
    found = re.fullmatch(r"(\w+)\.copy_\((\w+)(?:, non_blocking=\w+)?\)", statement.strip()) \
        or re.fullmatch(r"(\w+)\[[^\]=]*\] = (\w+)", statement.strip()) \
        or re.fullmatch(r"(\w+) [-+*/]= (\w+)", statement.strip()) \
        or re.fullmatch(r"(\w+)\.(?:add|sub|mul|div)_\((\w+)\)", statement.strip())
    if not found:
        return False
    written, source = found.groups()
    family = {}  # name -> the name whose memory it shares, as of each line
    for line in program.splitlines():
        if line.strip() == statement.strip():
            break
        alias = _ALIAS.match(line.strip())
        assigned = re.match(r"^(\w+) = ", line.strip())
        if alias:
            family[alias.group(1)] = family.get(alias.group(2), alias.group(2))
        elif assigned:
            family.pop(assigned.group(1), None)
    return family.get(source, source) == family.get(written, written)


def _median_along_a_stride_0_dim(statement, program):
    """``a.median(d)`` (or nanmedian) where ``a`` came from expand, broadcast_to or a
    gradient (a sum's gradient is expanded): torch's kernel reads beyond the tensor there."""
    found = re.search(r"(?:(\w+)\.(?:nan)?median\(|torch\.(?:nan)?median\((?:input=)?(\w+))",
                      statement)
    if not found:
        return False
    name = found.group(1) or found.group(2)
    made = None
    for line in program.splitlines():
        if line.strip() == statement.strip():
            break
        if re.match(rf"^{name}\b[\w, ]* = ", line.strip()):
            made = line
    return made is not None and re.search(r"\.expand(?:_as)?\(|broadcast_to\(|autograd\.grad\(|"
                                          r"\.grad\b", made) is not None


def _cancelled_on_one_side(verdict, exact, bound):
    """Where the numbers differ, the ``exact`` side's ("torch" or "engine") is 0 and the
    other's a float rounding of the terms that cancel, below ``bound``."""
    tokens = [NUMBER.findall(t or "") for t in (verdict.torch_text, verdict.engine_text)]
    if len(tokens[0]) != len(tokens[1]) or tokens[0] == tokens[1]:
        return False
    pairs = zip(*tokens) if exact == "torch" else zip(*reversed(tokens))
    try:
        return all(z == r or (float(z) == 0 and abs(float(r)) < bound) for z, r in pairs)
    except ValueError:
        return False


def _cancelled_in_torch_only(verdict):
    """torch's 0 against the engine's rounding below 1e-6 (std's second derivative)."""
    return _cancelled_on_one_side(verdict, "torch", 1e-6)


def _cancelled_in_engine_only(verdict):
    """The engine's 0 against torch's float32 rounding below 5e-4 (terms in the hundreds, as
    1 / x^4 at x = 0.25 in x / x's third derivative)."""
    return _cancelled_on_one_side(verdict, "engine", 5e-4)


def _integer_of_a_float32_math_last_bit(verdict):
    """Integers that differ by one: a float32 value an ulp apart (exp, log ... MKL's in torch,
    correctly rounded in the engine) truncated by a conversion to an integer dtype."""
    tokens = [NUMBER.findall(t or "") for t in (verdict.torch_text, verdict.engine_text)]
    if len(tokens[0]) != len(tokens[1]) or tokens[0] == tokens[1]:
        return False
    try:
        return all(abs(int(t) - int(e)) <= 1 for t, e in zip(*tokens))
    except ValueError:
        return False


def _float32_tan_amplified(verdict):
    """Numbers laid out alike, within float32's drift tolerance: an ulp of difference in a
    float32 tan (MKL's in torch), made larger by a steep tan after it."""
    return close_enough(verdict.torch_text or "", verdict.engine_text or "", "float32",
                        printed=True, drifted=True)


KNOWN = [
    # ---- torch's own noise
    Known("torch warns 'torch.jit.script is deprecated' from its own functorch code the first "
          "time a process runs a forward-mode transform (no learner's code asks for it; the "
          "fuzz worker's first jvp, whichever program that is)", REPORTED, ("warning",),
          torch=r"torch\.jit\.script` is deprecated"),
    # ---- documented in notebooks/DIFFERENCES.md
    Known("a call with too few or too many arguments: torch's argument parser words its "
          "TypeError its own way, the engine lets Python's through (exp() missing 1 required "
          "positional arguments: \"input\" / ... argument: 'input')", DOCUMENTED,
          ("error message",), torch=r"^TypeError: ",
          engine=r"^TypeError: [\w.]+\(\) (?:missing \d+ required (?:positional|keyword-only) "
                 r"argument|takes \d+ positional arguments? but \d+ (?:was|were) given|got an "
                 r"unexpected keyword argument|takes from \d+ to \d+ positional arguments but)",
          difference="Calls with too few or too many arguments"),
    Known("float32 exp/log/sin/cos/tanh/tan an ulp apart, made visible by terms that cancel: "
          "torch run with the engine's values of these functions shows the engine's numbers "
          "(engine_math.py; fuzz 2497552: the second derivative of tan(y) / tan(y), 0.0 in "
          "torch, 1.5e-05 in the engine)", DOCUMENTED, ("value", "gradient"),
          test=lambda verdict: verdict.engines_math_explains,
          difference="float32 `exp`, `log`, `sin`, `cos`, `tanh`, `sqrt`"),
    Known("float32 sin/cos/exp/log/tanh an ulp apart inside a backward formula (sin's "
          "gradient multiplies by cos(x)), which the replay with the engine's values does not "
          "reach, made visible by terms that cancel: the engine's 0 against torch's float32 "
          "rounding, or the other way round (fuzz 3563031: the gradient of sin(z / "
          "z.clamp(max=0.5)), -1.19e-07 in torch, cos(1.) = 0.54030234 there, 0.54030228 "
          "correctly rounded in the engine)", DOCUMENTED, ("gradient",),
          program=r"\b(?:exp|log|sin|cos|tanh|sigmoid)\(",
          test=lambda verdict: _cancelled_on_one_side(verdict, "engine", 1e-6) or
          _cancelled_on_one_side(verdict, "torch", 1e-6),
          difference="float32 `exp`, `log`, `sin`, `cos`, `tanh`, `sqrt`"),
    Known("float32 gelu's gradient: torch's vector kernel is not replayed, and where "
          "cdf(x) + x pdf(x) nearly cancels the difference grows (x = -0.75: 0.00077420 in "
          "torch, 0.00077426 in the engine), as do residues after it (fuzz 2786619: a third "
          "derivative of softmax(gelu(x)), 8.4e-12 against 0)", DOCUMENTED, ("gradient", "value"),
          program=r"\bgelu\(", test=_float32_tan_amplified,
          difference="float32 `exp`, `log`, `sin`, `cos`, `tanh`, `sqrt`"),
    Known("float16 math functions computed through float32: torch's float32 value an ulp from "
          "the engine's can round to the other float16 at a tie (sin(300.): -0.9995 in torch, "
          "-1. in the engine), and a gradient through it differs by a float16 ulp (fuzz "
          "2832444: cos's gradient in a float16 std, -1.5e-05 against 0.0)", DOCUMENTED,
          ("gradient", "value"), program=r"float16",
          program_test=lambda statement, program: re.search(
              r"\b(?:sin|cos|tan|exp|log|tanh|sigmoid)\(", program) is not None,
          test=_float16_rounding_level,
          difference="float32 `exp`, `log`, `sin`, `cos`, `tanh`, `sqrt`"),
    Known("float32 tan: torch's is MKL's, the engine's numpy's (72% of the bits agree), and a "
          "steep tan turns an ulp of its input into a visible difference (tan(tan(1.5)): "
          "27.9621 in torch, 27.9628 in the engine; fuzz 1076349)", DOCUMENTED,
          ("value", "gradient"), statement=r"\btan\(", test=_float32_tan_amplified,
          difference="float32 `exp`, `log`, `sin`, `cos`, `tanh`, `sqrt`"),
    Known("which of two equal zeros maximum/minimum/clamp/amax/amin keep: torch's vectorised "
          "loop takes the second operand's, its scalar loop the first's, by the element's "
          "place in memory order (the engine: the scalar loop's everywhere; fuzz 2054304)",
          DOCUMENTED, ("value",),
          statement=r"\b(?:maximum|minimum|fmax|fmin|clamp|clip|amax|amin|aminmax|max|min)\(",
          test=_only_zero_signs_differ, difference="Which of two equal zeros"),
    Known("abs's second derivative: torch's is a ZeroTensor, skipped when gradients are "
          "added, so a higher derivative through abs keeps a -0.0 that the engine's ordinary "
          "zeros turn into 0.0 (fuzz 2061162: (x.abs() * x).std())", DOCUMENTED,
          ("value", "gradient"), program=r"\babs\(|\.sgn\(|l1_loss\(",
          test=_only_zero_signs_differ, difference="abs's second derivative"),
    Known("create_graph=True: a gradient of a gradient whose terms cancel (std's second "
          "derivative summed over a row): torch's order of operations gives exactly 0, the "
          "engine's a float32 rounding of the terms (6e-8; fuzz 2060026), or the other way "
          "round (x / x's third derivative: 1.2e-4 in torch; fuzz 3529713), or both keep "
          "float32 residues of that 0, different ones (1e-9; fuzz 3212263)", DOCUMENTED,
          ("gradient", "value"), program=r"create_graph=True",
          test=lambda verdict: _cancelled_in_torch_only(verdict) or
          _cancelled_in_engine_only(verdict) or _float32_residues_of_zero(verdict),
          difference="The nodes of a gradient's graph"),
    Known("cdist's matrix-product path (p=2, more than 25 rows or use_mm_for_euclid_dist): the "
          "product's last bits are not torch's BLAS's, and sqrt makes a zero distance's "
          "residue visible (about 2e-4 in float32; fuzz 3101838)", DOCUMENTED,
          ("value", "gradient"), statement=r"\bcdist\(",
          program=r"use_mm_for_euclid_dist",
          difference="`cdist` through a matrix product"),
    Known("cdist's matrix-product path, its gradient: read where backward ran, the residues of "
          "the product's last bits where a distance is 0 (fuzz 5286919: -7.6e-06 in torch "
          "where the engine's is 0, beside 120.31449 against 120.31448)", DOCUMENTED,
          ("gradient",), statement=r"\.backward\(|autograd\.grad\(|\.grad\b",
          program=r"\bcdist\([^\n]*use_mm_for_euclid_dist",
          difference="`cdist` through a matrix product"),
    Known("an indexed write with an index out of range (x[i] = v, index_put_): torch's "
          "kernel writes the places before the bad index, in its loop order, then raises; the "
          "engine checks every index first and writes nothing (fuzz 2838745)", DOCUMENTED,
          ("value", "graph"), statement=r"\] = |\.index_put_\(",
          test=lambda verdict: "is out of bounds" in (verdict.both_raised or ""),
          difference="An indexed write with an index out of range"),
    Known("the sign of a zero in the gradient of a singular matrix's det (or slogdet, "
          "inverse, solve): MKL's triangular solves skip some zero terms the engine's replay "
          "subtracts (fuzz 2809977: det of [[-1, 4], [0, 0]], -0.0 against 0.0)", DOCUMENTED,
          ("gradient", "value"),
          program=r"\b(?:det|slogdet|logdet|inverse|inv|inv_ex|solve|solve_ex)\(",
          test=_only_zero_signs_differ, difference="Determinants, inverses, `linalg.solve`"),
    Known("the derivatives of a singular matrix's det (create_graph): torch's backward goes "
          "through its singular-matrix branch, whose float64 last bits the engine does not "
          "replay, so a second derivative keeps other residues (-4.4e-16 against 0.0; fuzz "
          "3190812)", DOCUMENTED, ("gradient", "value", "printed"),
          program=r"\b(?:det|slogdet|logdet)\(.*create_graph=True",
          program_test=_singular_literal,
          test=lambda verdict: _residues_of_float64_sums(verdict),
          difference="Determinants, inverses, `linalg.solve`"),
    Known("det, slogdet, inverse, solve beyond 3 x 3: MKL's LU and triangular solves add in "
          "their own order, so a value or gradient whose terms cancel keeps another residue "
          "(-2.8e-17 against -0.0; fuzz 2500386, 2500396; in float32 about 1e-5: solve(a, a) "
          "of a 6 x 6, fuzz 3282116)", DOCUMENTED,
          ("gradient", "value", "printed"),
          program=r"\b(?:det|slogdet|logdet|inverse|inv|inv_ex|solve|solve_ex|matrix_power)\(",
          # (a 4 x 4 or larger matrix in the program: a shape (.., 4, 4) or a row of 4 numbers)
          program_test=lambda statement, program: re.search(
              r"\b[4-9], [4-9]\)|\[(?:[^\[\],]+,){3,}[^\[\]]+\]", program) is not None,
          # (float32's residues: the lists a verdict compares do not say their dtype)
          test=lambda verdict: _residues_of_float64_sums(verdict) or
          _residues_of_float32_sums(verdict),
          difference="Determinants, inverses, `linalg.solve`"),
    Known("a matrix singular to working precision, 4 x 4 or larger (a literal of lower rank, "
          "or y @ y.mT of one): its det is rounding noise, and logdet, inverse, solve and their "
          "gradients magnify that noise, so the numbers of both sides differ entirely (a 4 x 4 "
          "of rank 3: logdet's gradient 1.0 in torch, 1.375 in the engine; fuzz 3098641); "
          "smaller ones from their second derivative on, whose formula is not torch's (the "
          "logdet of x.mT @ x, x a 3 x 3 with a row of zeros: -4.95e16 against -4.05e16; fuzz "
          "3840729)",
          DOCUMENTED, ("gradient", "value", "printed"),
          program=r"\b(?:slogdet|logdet|inverse|inv|inv_ex|solve|solve_ex|matrix_power|pinv)\(",
          program_test=lambda statement, program: _singular_to_working_precision(
              statement, program) or ("create_graph=True" in program and _singular_literal(
                  statement, program)),
          difference="Determinants, inverses, `linalg.solve`"),
    Known("singular vectors of svd: unique only up to sign, numpy's LAPACK and torch's MKL "
          "choose some signs differently (fuzz 3043972: a matrix with two equal rows)",
          DOCUMENTED, ("value",), statement=r"\bsvd\(", test=_equal_up_to_signs,
          difference="Singular vectors (`torch.linalg.svd`, `torch.svd`)"),
    Known("layer_norm's gradient: the engine's formula in its own operations, torch's kernel "
          "adds in its vector order, so where the terms cancel (the gradient of a sum of "
          "layer_norm's outputs, exactly 0) the residues differ (fuzz 5104129, 5104699; in "
          "float32, 4.8e-07 against 2.4e-07: fuzz 3151345), amplified by rstd where a row's "
          "values are close (fuzz 8032275: torch's 0, the engine's 2.8e-04)",
          DOCUMENTED, ("gradient", "value", "printed"),
          program=r"\blayer_norm\(|\bLayerNorm\(",
          test=lambda verdict: _residues_of_float64_sums(verdict) or
          _float32_residues_of_zero(verdict) or _residues_below(1e-3)(verdict),
          difference="float32 values"),
    Known("batch_norm's gradient in training: where its terms cancel (a value whose gradient "
          "is exactly 0), torch's kernel gives 0 (or -0.) and the engine's formula a float32 "
          "residue of its own order (fuzz 8024148: -0.0 against -9.9e-09)",
          DOCUMENTED, ("gradient",), program=r"\bbatch_norm\(|\bBatchNorm\dd\(",
          test=_cancelled_in_torch_only, difference="float32 values"),
    Known("group_norm's gradient in a graph of it (create_graph=True, torch.func's "
          "transforms): the engine's formula in its own operations, torch's own formula, so "
          "where the gradient is exactly 0 (each group one value; the gradient of a sum of the "
          "outputs) the residues differ, amplified by rstd = 1 / sqrt(eps) (up to 3e-05 "
          "against 0 in float32; elsewhere the engine replays torch's kernels, residues "
          "included, channels-last ones too: fuzz 7031154, 5003179, 5032984, 8009153)",
          DOCUMENTED, ("gradient", "value", "printed"), program=_GROUP_NORM_BY_FORMULA,
          test=_residues_below(2e-4), difference="float32 values"),
    Known("group_norm's gradient of float16 values where it is exactly 0, in a graph of it: "
          "torch's residues and the engine's differ, both below 2e-3 (the statistics rounded "
          "to float16)",
          DOCUMENTED, ("gradient", "value", "printed"),
          program=_GROUP_NORM_BY_FORMULA + r"(?=.*float16)",
          test=_residues_below(2e-3), difference="float32 values"),
    Known("stack of channels-last tensors: torch's result keeps the inputs' memory order around "
          "the new dimension, the engine's is row-major (fuzz 5069990: strides (16, 2, 1, 8, 4) "
          "against (16, 8, 4, 2, 1))",
          DOCUMENTED, ("shape/stride",), statement=r"\bstack\(",
          program=r"channels_last", engine=r"^shape=\([\d, ]*\) stride=\([\d, ]*\)",
          test=_engine_row_major, difference="`stack` of channels-last tensors"),
    Known("Python's own TypeError about a torch.return_types value or a torch.Size (r < 1, "
          "'a' + x.shape): Python names the engine's class 'topk' or 'Size', torch's C type "
          "prints 'torch.return_types.topk' or 'torch.Size' (fuzz 5112694)",
          DOCUMENTED, ("error message",),
          torch=r"""['"]torch\.(return_types\.\w+|Size)['"]""", engine=r"^TypeError: ",
          test=lambda verdict: re.sub(r"""(?<=['"])torch\.(return_types\.)?""", "",
                                      verdict.torch_text or "") == (verdict.engine_text or ""),
          difference="Python's own errors about a `torch.return_types` value or a `torch.Size`"),
    Known("layout of results whose inputs have unusual strides on dimensions of size 0 or 1",
          DOCUMENTED, ("shape/stride",), test=_layout_differs_only_on_sizes_0_and_1,
          difference="Results of inputs with unusual strides on dimensions of size 0 or 1"),
    Known("torch.func.jacfwd, jvp or hessian of a view made in no_grad mode of a tensor that "
          "requires grad: torch's results require grad (a graph leading nowhere), the "
          "engine's do not; vjp's and vmap's results name a node past them (AliasBackward0, "
          "PermuteBackward0) where torch's name none (fuzz 4097294 found jacrev's, which "
          "keeps the graph as torch's)",
          DOCUMENTED, ("graph",), program=r"no_grad\(\)|set_grad_enabled\(False\)",
          statement=r"torch\.func\.(?:jacfwd|jvp|hessian|vjp|vmap)\(",
          torch=r"requires_grad=True",
          engine=r"requires_grad=False|next=\[[^\]]*(?:AliasBackward0|PermuteBackward0)",
          difference="Transforms of a view made in no_grad mode"),
    Known("the sign of a nan from sqrt or log2 of a negative number (x ** 0.5): set in the "
          "engine's (numpy's), clear in torch's; it shows in histc's error for a range of one "
          "nan (fuzz 4243416: [-nan, -nan] against [nan, nan])", DOCUMENTED,
          ("error message",), statement=r"\bhistc\(", torch=r"range of \[nan, nan\]",
          engine=r"range of \[-nan, -nan\]", difference="The sign of a nan"),
    Known("inference tensors used outside inference_mode: torch's results of some ops start at "
          "version 1 (sum(dim), sort, clone...) or 2 (max(dim), min(dim), mode)", DOCUMENTED,
          ("graph",), program=r"inference_mode\(", torch=r"^requires_grad=(\w+) is_leaf=True "
          r"version=[12]$", test=_leaf_starts_at_version_0,
          difference="Inference tensors outside inference_mode"),
    Known("inference tensors used outside inference_mode: torch treats them op by op (some "
          "ops record nothing from a leaf that requires grad, its views are inference tensors "
          "that cannot be saved, clone records CopyBackwards); the engine as ordinary tensors",
          DOCUMENTED, ("error type", "error message", "graph"),
          program=r"inference_mode\(\):(?:\n    [^\n]*)*?\n    [^\n]*"
                  r"requires_grad(?:=True|_\()",
          # (a backward through an op that recorded nothing in torch: fuzz 2741208, z.sum()
          # of a 0-d inference leaf)
          test=lambda v: re.search("Inference tensors|requires_grad=True|does not require grad "
                                   "and does not have a grad_fn",
                                   f"{v.torch_text} {v.engine_text}") is not None,
          difference="Inference tensors outside inference_mode"),
    Known("the node the 'modified by an inplace operation' error names for the saved result of "
          "an in-place op on a view changed again through its base or another view: torch's "
          "is the view's node while the view keeps it (AsStrided), the engine's the op's (fuzz "
          "3623203: w = z.t(); w.relu_(); w[0] -= -1.0; z.backward(...): 'output 0 of "
          "AsStrided' in torch, 'output 0 of Relu' in the engine)", DOCUMENTED,
          ("error message",), test=_names_another_node_of_a_view,
          difference="The node named for a value changed in place"),
    Known("an in-place op whose operand is a view into the tensor it writes (a = w[1]; "
          "w *= a): torch's loop reads values it already changed, the engine reads first",
          DOCUMENTED, ("value",), statement=r"^\w+ [-+*/]= \w+$|\.(?:add|sub|mul|div)_\(",
          program=r"\n(\w+) = (\w+)\[[^\n]*\n(?:[^\n]*\n)*?(?:\2 [-+*/]= \1|\2\.(?:add|sub|"
                  r"mul|div)_\(\1)\b",
          difference="An in-place operation that reads what it writes"),
    Known("quantile of a q that requires grad: torch's result has a gradient to q (linear "
          "interpolation: SqueezeBackward4 after LerpBackward1), the engine takes q as a "
          "constant", DOCUMENTED, ("graph",), statement=r"quantile\(",
          torch=r"grad_fn=SqueezeBackward4", engine=r"requires_grad=False",
          difference="`quantile` of a `q` that requires grad"),
    Known("writing a tensor that requires grad into an integer tensor: torch records it "
          "(CopySlices on an integer tensor that requires grad), the engine records nothing",
          DOCUMENTED, ("graph",), statement=r"\] = |\.(?:fill_|masked_fill_|index_fill_)\(",
          torch=r"grad_fn=(?:(?:CopySlices|FillBackward3|MaskedFillBackward1|IndexFillBackward1)"
          r" next=\[None, '\w+'\]|AsStridedBackward0 next=\['CopySlices'\])", engine=r"^$|"
          r"requires_grad=False",
          difference="Writing a tensor that requires grad into an integer tensor"),
    Known("writing a tensor that requires grad into an integer tensor: torch records it, and "
          "then refuses to read the history of a view of the integer tensor that split or "
          "unbind made (a view of a view changed in place); the engine records nothing",
          DOCUMENTED, ("error type",),
          statement=r"\] = |\.(?:fill_|masked_fill_|index_fill_)\(",
          torch=r"its base or another view of its base has been modified inplace",
          engine=r"^$", difference="Writing a tensor that requires grad into an integer tensor"),
    Known("writing a tensor that requires grad into an integer tensor: torch records it, and "
          "then refuses to read a view of the integer tensor made in no_grad mode (its base "
          "changed in place with grad mode on); the engine records nothing, the view reads "
          "fine (fuzz 4925646)", DOCUMENTED, ("error type",),
          program=r"\.(?:fill_|masked_fill_|index_fill_)\([^\n]*requires_grad=True",
          torch=r"^RuntimeError: A view was created in no_grad mode and its base or another "
                r"view of its base has been modified inplace",
          difference="Writing a tensor that requires grad into an integer tensor"),
    Known("create_graph=True: torch's double-backward nodes (SiluBackwardBackward0, "
          "MseLossBackwardBackward0...) and operand orders; the "
          "engine builds its backward formulas from ordinary ops (values agree)", DOCUMENTED,
          ("graph", "value", "printed"), statement=r"create_graph=True", test=_only_nodes_differ,
          difference="The nodes of a gradient's graph", continues=_only_node_names_differ),
    Known("create_graph=True: a later node whose inputs are a gradient's nodes names them "
          "(next=['SigmoidBackwardBackward0'] in torch, the engine's ordinary ops)", DOCUMENTED,
          ("graph",), program=r"create_graph=True", test=_only_next_differs,
          difference="The nodes of a gradient's graph", continues=True),
    Known("float16 backward formulas: torch computes each in float32 and rounds once, the "
          "engine rounds every step", DOCUMENTED, ("gradient",), torch=r"float16",
          difference="float16 backward formulas"),
    Known("cdist's third derivative: where two points coincide (a zero distance) torch's "
          "double-backward node divides by the distance, nan, the engine's formula gives 0 "
          "(fuzz 5445197: cdist(x, x) of one point); elsewhere float32 residues of an exact 0, "
          "torch's formula being its own (fuzz 3434705: 0.0 against 1.5e-05)", DOCUMENTED,
          ("value", "gradient", "printed"), program=r"\bcdist\(.*create_graph=True",
          test=_nan_in_torch_only,
          difference="A third derivative of `cdist`"),
    Known("cdist's third derivative between one-column points: the distance is |a - b|, so "
          "every derivative past the first is exactly 0; torch's double-backward formula "
          "divides by powers of the distance, and where points are close its float32 residues "
          "of that 0 grow (fuzz 3587730: cdist(x.reshape(-1, 1), x.reshape(-1, 1) * 2, p=3), "
          "0.0078 in torch, 1.5e-05 in the engine)", DOCUMENTED, ("value", "gradient"),
          program=r"\bcdist\(.*create_graph=True", program_test=_one_column_cdists_only,
          test=_engines_residues_of_zero, difference="A third derivative of `cdist`"),
    Known("cdist's second derivative between one-column points a rounding apart (4.0 and "
          "the float64 cube root of 64, 4.4e-16 less): the exact derivative is 0 there too, "
          "and both double-backward formulas divide by powers of that distance, so each keeps "
          "a residue of the cancelling terms, in the hundreds and different ones (fuzz "
          "3849308: cdists of cdists, p=3, 395.0 in torch, 412.0 in the engine)", DOCUMENTED,
          ("value", "gradient"), program=r"\bcdist\(.*create_graph=True",
          program_test=_one_column_cdists_only, test=_finite_on_both_sides,
          difference="A third derivative of `cdist`"),
    Known("the version counter of gradients computed by backward formulas (torch's counts "
          "the in-place steps inside each formula)", DOCUMENTED, ("graph",),
          statement=r"autograd\.grad|backward|\.grad\b",  # (or x.grad.zero_(): from there)
          test=_only_version_differs,
          difference="The version counter of gradients"),
    Known("torch's gradient of sgn (in abs's second derivative) is a ZeroTensor, whose tolist() "
          "raises; the engine's are ordinary zeros", DOCUMENTED, ("error type",),
          torch=r"tolist\(\) shouldn't be called on a tensor with unallocated storage",
          difference="abs's second derivative"),
    Known("expand(-1, 0) of a 0-d tensor: torch skips its check of a -1 in a new leading "
          "dimension and makes a tensor of size (-1, 0), which fails when read (SystemError); "
          "the engine raises torch's usual error (fuzz 5470222)", DOCUMENTED,
          ("error type", "value", "error message", "shape/stride", "printed"),
          program=r"\.expand\(-1, (?:0|False)\)", difference="`expand(-1, 0)` of a 0-d tensor"),
    Known("a .grad that is torch's ZeroTensor (the backward of abs's gradient: d, = grad("
          "y.abs().sum(), y, create_graph=True); d.sum().backward()): a later backward adding "
          "into it raises in torch ('ZeroTensors are immutable'), the engine adds (fuzz "
          "3934990)", DOCUMENTED, ("error type",), program=r"\babs\(|\.sgn\(|l1_loss\(",
          torch=r"ZeroTensors are immutable", difference="abs's second derivative"),
    Known("an index out of range of a 0-dim tensor: torch's message names a size it reads "
          "from memory past the tensor's sizes (1 after a reduction over a dimension)",
          DOCUMENTED, ("error message",),
          torch=r"^IndexError: (index -?\d+ is out of bounds for dimension 0 with size 1|"
                r"select\(\) cannot be applied to a 0-dim tensor)",
          engine=r"^IndexError: index -?\d+ is out of bounds for dimension 0 with size 0",
          difference="An index out of range of a 0-dim tensor"),
    Known("a float32 result an ulp from torch's (the documented last bits of sums and norms), "
          "promoted to float64 by a later op with a float64 operand, where the ulp shows at "
          "float64's precision (fuzz 3762118: triplet_margin_loss of a float32 anchor and "
          "negative with a float64 positive, 3.68436976 in torch, 3.68437071 in the engine: "
          "pairwise_distance(a, a * 2) in float32 an ulp apart)", DOCUMENTED, ("value",),
          program=r"float64|\.double\(\)",
          program_test=lambda statement, program: re.search(r"float32|torch\.tensor\(\[",
                                                            program) is not None,
          test=_residues_of_float64_sums, difference="Sums, products and math functions"),
    Known("the mean var_mean and std_mean return: torch's Welford updates leave a residue where "
          "the values cancel, the engine computes it as mean() does (fuzz 3727523: float16 "
          "std_mean(a.mT), -0. in torch, 0. in the engine; float32: -6.9e-18 against 0.)",
          DOCUMENTED, ("value",), statement=r"\b(?:std_mean|var_mean)\(",
          test=lambda verdict: _only_zero_signs_differ(verdict) or
          _cancelled_in_engine_only(verdict),
          difference="The mean that `var_mean` and `std_mean` return"),
    Known("CopySlices into an expanded base (b = w.expand(...); b[:, 1] = 0): torch's backward "
          "refuses to write the gradient into overlapping memory first (or refuses where the "
          "engine's backward adds the repeated places' gradients: fuzz 3653258, "
          "c = a.expand(2, *a.shape); c.zero_(); a.backward(...))", DOCUMENTED,
          ("error message", "error type"), torch=r"more than one element of the written-to tensor",
          difference="A write into an expanded view"),
    Known("forward-mode tangents derived from backward formulas: zero signs may differ from "
          "torch's own forward formulas (values otherwise equal)", DOCUMENTED, ("value",),
          statement=FORWARD_MODE, test=_only_zero_signs_differ,
          difference="Forward-mode AD (`torch.autograd.forward_ad`, `torch.func.jvp`)"),
    Known("forward-mode tangents derived from backward formulas: zero signs differ, beside "
          "float32 math functions' last bits (fuzz 911956: a hessian through sin)", DOCUMENTED,
          ("value",), statement=FORWARD_MODE, test=_zero_signs_and_float32_last_bits_differ,
          difference="Forward-mode AD (`torch.autograd.forward_ad`, `torch.func.jvp`)"),
    Known("float16 backward formulas inside torch.func's transforms (jacrev, hessian, grad, "
          "vmap(grad)): torch computes each in float32 and rounds once, the engine rounds "
          "every step (fuzz 902867: a float16 hessian of logsumexp)", DOCUMENTED, ("value",),
          statement=r"torch\.func\.(?:jacrev|jacfwd|hessian|grad|vjp|vmap)\(",
          torch=r"dtype=torch\.float16", difference="float16 backward formulas"),
    Known("float16 results of two transforms that agree but for rounding (jacfwd(f) - "
          "jacrev(f)): torch's formulas round once from float32, the engine's every step, so "
          "the difference is float16 rounding, not zero (fuzz 1009086: logsumexp)", DOCUMENTED,
          ("value",), statement=r"torch\.func\.(?:jacrev|jacfwd|hessian)\(",
          program=r"float16", test=_float16_rounding_level,
          difference="float16 backward formulas"),
    Known("median/nanmedian along a dimension of stride 0 (an expanded tensor, a sum's "
          "gradient): torch 2.15's CPU kernel reads beyond the tensor (fuzz 2404179)",
          DOCUMENTED, ("value",), statement=r"median\(",
          program_test=_median_along_a_stride_0_dim,
          difference="`median` and `nanmedian` along an expanded dimension"),
    Known("copy_ (or y[i] = a, z *= a, z.mul_(a)) from a source made of the destination's own "
          "memory by views (z = y[:, 1]; w = z.data; a = w[0:2]; y.copy_(a); fuzz 2826663: z = "
          "x[:, 0]; x[1] = z; fuzz 3028149: w = z.narrow(1, 1, 1); z *= w): torch's loop reads "
          "what it already wrote (fuzz 2015493)", DOCUMENTED, ("value",),
          # ((?m): a line of a with block, fuzz 3548713)
          statement=r"(?m)\.copy_\(|\] = \w+$|^\s*\w+ [-+*/]= \w+$|\.(?:add|sub|mul|div)_\(\w+\)$",
          program_test=_copy_source_shares_the_destination,
          difference="An in-place operation that reads what it writes"),
    Known("float32 exp/log/sin/cos/tanh/sqrt an ulp apart (MKL's in torch), turned into "
          "integers one apart by .int(), .long() or to(): log(exp(1)) is 1.0 in torch, "
          "0.99999994 in the engine (fuzz 2019168)", DOCUMENTED, ("value",),
          statement=r"\.(?:int|long|short|char|byte)\(\)|\.to\(|\.type\(",
          program=r"\b(?:exp|log|sin|cos|tanh|sqrt)\(", test=_integer_of_a_float32_math_last_bit,
          difference="float32 `exp`, `log`, `sin`, `cos`, `tanh`, `sqrt`"),
    Known("a matrix product near the largest float64 values: a partial sum overflows in "
          "torch's BLAS order and not in numpy's (fuzz 909923: torch inf, engine 1.6358e+308; "
          "2006725: torch nan, engine inf)",
          DOCUMENTED, ("value",), statement=r" @ |\b(?:mm|mv|matmul|bmm|addmm|linear)\(",
          test=_overflow_in_one_order_only, difference="Matrix products that overflow"),
    Known("allow_mutation_on_saved_tensors: a write through a view that starts further into a "
          "saved tensor (y[1:].mul_): torch makes no copy and backward reads the new values, "
          "the engine's gradient is of the values saved (fuzz mutation_on_saved, 19 of 1192)",
          DOCUMENTED, ("gradient", "value"),
          program=r"allow_mutation_on_saved_tensors\(\)[^\n]*:\n(?:    [^\n]*\n)*?"
                  r"    \w+\[1:\]\.\w+_\(",
          difference="`allow_mutation_on_saved_tensors` and a write through a view"),
    Known("forward-mode tangents: torch's formulas write in place (a tangent at version 1)",
          DOCUMENTED, ("graph",), statement=FORWARD_MODE, test=_only_version_differs,
          difference="Forward-mode AD (`torch.autograd.forward_ad`, `torch.func.jvp`)"),
    Known("jacfwd and hessian: some results' strides are not those of torch's batched "
          "columns (zeros expanded, transposed products; has_aux: column by column)", DOCUMENTED,
          ("shape/stride",), statement=r"torch\.func\.(jacfwd|hessian)\(",
          test=_only_strides_differ,
          difference="Forward-mode AD (`torch.autograd.forward_ad`, `torch.func.jvp`)"),
    Known("vmap(grad(...)) and jacrev: some results' strides differ from torch's batched "
          "layout (found by the transforms family; the values are equal)", REPORTED,
          ("shape/stride",), statement=r"torch\.func\.(vmap|jacrev)\(",
          test=_only_strides_differ),
]


def explainer(statements):
    """``compare``'s ``explain`` for a program: is a mismatch a known difference the
    comparison may go on past?"""
    program = "\n".join(statements)

    def explain(verdict):
        entry = known_reason(verdict, statements[verdict.statement], program)
        if entry is None or not entry.continues:
            return False
        return entry.continues is True or entry.continues(verdict)
    return explain


def known_reason(verdict, statement, program=""):
    """The entry that explains this mismatch, or None when it is new."""
    for entry in KNOWN:
        if entry.matches(verdict, statement, program):
            return entry
    return None
