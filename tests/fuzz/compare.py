"""Compare what torch and the engine showed for one program.

``compare(torch_answer, engine_answer)`` returns a ``Verdict``:

* ``exact``: every line identical;
* ``tolerance``: identical except floating-point numbers within torch.testing's default
  rtol/atol for their dtype (reductions and matrix products add in another order; float32
  transcendental functions round differently in the last bit): reported apart, not a failure.
  Zeros are not rounding, though: until a first value has differed, a value or gradient that
  is 0.0 on one side must not be -0.0 on the other, and a gradient that is 0.0 not a residue
  such as -2.98e-08 (the order of a backward formula's operations);
* ``mismatch``, with a category: the first statement whose output differs decides, and in it
  the most telling difference (``CATEGORIES`` is in that order); a known difference that
  hides nothing after it is passed over (``compare``'s ``explain``).

Residues of terms that cancel. A third derivative of ``y / y`` is a sum of terms of size 10
or 100 whose exact total is 0: in float32 torch leaves ``-1.5e-05`` there and the engine
another residue, or 0. Once an earlier value has differed in its last bit (``drifted``),
such a residue is no bug, but no absolute tolerance tells it from a wrong gradient of a
program whose values are small (a sign flip of a 1e-5 gradient). So the size of the terms
is measured, on the program itself: run.py runs it once more under torch in float64 (the
``reference``: float32 and float16 replaced by float64) when a value or gradient would
otherwise be a mismatch. Torch's own float32 error there, ``|torch - reference|``, is the
rounding of the terms that produced the number (about 1e-7 of their size). A number after
a drift is within tolerance when the engine is no further from torch than
``REFERENCE_FACTOR`` times that error: both libraries rounded terms of the same size, in
other orders. A correct gradient computed without cancellation has a tiny float32 error, so
a wrong one (a sign flip, a factor 2, a missing term) stays a mismatch at any magnitude;
and a reference that is not the same program's (float64 random numbers differ from
float32's) is not used: its difference from torch must be float32 noise, at most
``DRIFT_RTOL`` of the largest number torch showed so far.
"""
import math
import re
from dataclasses import dataclass

# (rtol, atol) of torch.testing.assert_close, by dtype
TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}
# Once values have differed within tolerance, later ones may differ more: exp(x) multiplies
# x's relative error by |x|, a product adds its factors' errors. Up to these relative
# differences they still count as tolerance (by the dtype that drifted first).
DRIFT_RTOL = {"float16": 1e-2, "float32": 1e-3, "float64": 1e-6}
# After a drift, how far the engine may be from torch, in units of torch's own error against
# the float64 reference (the module's docstring): each library's error is of the terms' size
# and they may add up, with room for one being twice the other.
REFERENCE_FACTOR = 3.0

CATEGORIES = [
    "engine crash",   # the engine raised an error it did not mean (numpy's, an AttributeError)
    "hang",           # the engine did not answer in time
    "error type",     # one raised and the other not, or another exception type
    "error message",  # the same type, another first line
    "dtype",
    "shape/stride",
    "graph",          # requires_grad, is_leaf, grad_fn, next functions, version counter
    "sharing",        # which tensors share memory
    "gradient",       # .grad values
    "value",          # values, repr, Python values
    "printed",        # what print() showed
    "warning",
]
FIELD_CATEGORY = {"error": "error type", "dtype": "dtype",
                  "layout": "shape/stride", "graph": "graph", "sharing": "sharing",
                  "grad": "gradient", "repr": "value", "values": "value", "python": "value",
                  "type": "value", "gone": "value", "crash": "engine crash", "print": "printed",
                  "warning": "warning", "mode": "graph"}

# Fields whose numbers are rounded for printing: one unit in the last printed digit is allowed
# too (a last-bit difference can round 0.12345 either way); the exact values are compared in
# the "values" lines.
PRINTED = ("repr", "print", "grad")
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan)"
                    r"(?![\w.])")


@dataclass
class Verdict:
    status: str                  # "exact", "tolerance" or "mismatch"
    category: str | None = None  # for a mismatch
    statement: int | None = None  # index of the first statement that differs
    key: str | None = None       # the line that decided the category
    torch_text: str | None = None
    engine_text: str | None = None
    # torch given the engine's float32 math functions shows the engine's numbers (run.py)
    engines_math_explains: bool = False
    # the error both raised at the statement, when they raised the same one
    both_raised: str | None = None

    def fingerprint(self):
        """What a shrunk program must keep to count as the same failure: the category, the
        kind of line, and the error types or the grad_fn names of both sides."""
        if self.status != "mismatch":
            return None
        field = (self.key or "").rsplit(".", 1)[-1].split(" ")[0]
        texts = [self.torch_text or "", self.engine_text or ""]
        if self.category in ("engine crash", "error type", "error message"):
            # the types, and the first words of torch's message (which error it is)
            details = tuple(text.split(":")[0] for text in texts) + (
                " ".join(re.sub(r"\d+", "#", texts[0]).split()[:5]),)
        else:
            details = tuple(_grad_fn_name(text) for text in texts)
        return self.category, field, details

    def __str__(self):
        if self.status != "mismatch":
            return self.status
        return (f"{self.category} at statement {self.statement} ({self.key}):\n"
                f"  torch:  {self.torch_text}\n  engine: {self.engine_text}")


def _grad_fn_name(text):
    found = re.search(r"grad_fn=(\w+)", text)
    return found.group(1) if found else None


def compare(torch_answer, engine_answer, explain=None, reference=None):
    """The verdict on one program. ``explain(verdict)`` (run.py) says whether a mismatch is a
    known difference that hides nothing after it (the names of a gradient's nodes...): then
    the comparison goes on, and such a verdict is returned only when nothing else differs.
    ``reference``: torch's answer for the program in float64 (the module's docstring)."""
    if torch_answer["status"] != "ok":
        return Verdict("skipped", torch_answer["status"])  # torch itself hung or died
    if engine_answer["status"] == "hang":
        return Verdict("mismatch", "hang")
    if engine_answer["status"] != "ok":
        return Verdict("mismatch", "engine crash", engine_text=engine_answer.get("detail"))
    status, drifted, explained = "exact", None, None
    before = ({}, {})  # each side's last line for each key of the namespace
    references = reference["records"] if reference and reference["status"] == "ok" else []
    largest = 0.0  # the largest finite number torch showed so far
    for index, (ours, theirs) in enumerate(zip(engine_answer["records"],
                                                torch_answer["records"])):
        largest = max([largest] + [abs(x) for line in theirs["lines"]
                                   for x in _numbers(line[2]) if math.isfinite(x)])
        measured = (references[index], largest) if index < len(references) else None
        statement_status, mismatches, drifted = compare_statement(theirs, ours, drifted,
                                                                  before, measured)
        for verdict in mismatches:
            verdict.statement = index
            if explain is None or not explain(verdict):
                return verdict
            explained = explained or verdict
        if statement_status == "tolerance":
            status = "tolerance"
    return explained or Verdict(status)


def compare_statement(torch_record, engine_record, drifted=None, before=None, measured=None):
    """One statement's lines: ``(status, mismatches, drifted)``, the mismatches (Verdicts)
    most telling first (by CATEGORIES), and the loosest dtype whose values differed within
    tolerance so far (``drifted``): once float32 values differ in the last bit, a float64 copy
    of them differs by as much, so later lines get that dtype's tolerance. ``before`` (torch's
    and the engine's last line for each key of the namespace, updated here): a line only one
    side wrote (a value that changed in its last bit in one only: a gradient accumulated with
    a residue of 1e-16) is compared with the other side's last line for that key.
    ``measured``: (the float64 reference's record of the statement, the largest number torch
    showed so far), for residues after a drift (the module's docstring)."""
    theirs = {key: (field, text, dtype) for key, field, text, dtype in torch_record["lines"]}
    ours = {key: (field, text, dtype) for key, field, text, dtype in engine_record["lines"]}
    if before is not None:
        theirs, ours = _with_unchanged(theirs, ours, *before)
    mismatches, status = [], "exact"
    values_drifted = drifted is not None  # (a repr rounds the same numbers: it does not count)
    for key in list(theirs) + [k for k in ours if k not in theirs]:
        t, e = theirs.get(key), ours.get(key)
        if t == e:
            continue
        dtype = loosest(t[2], drifted) if t is not None else None
        exact = t is not None and _exact_numbers(t[0], key)
        if t is not None and e is not None and close_enough(t[1], e[1], dtype,
                                                             printed=t[0] in PRINTED and not exact,
                                                             drifted=drifted is not None) \
                and not (exact and not values_drifted
                         and zeros_differ(t[1], e[1], residues=t[0] == "grad")):
            status, drifted = "tolerance", loosest(t[2], drifted)
            values_drifted = values_drifted or exact
            continue
        if (t is not None and e is not None and values_drifted and measured is not None
                and within_torchs_own_error(key, t, e, dtype, *measured)):
            status = "tolerance"
            continue
        field = (t or e)[0] if e is None or e[0] != "crash" else "crash"
        category = FIELD_CATEGORY.get(field, "value")
        if t is not None and t[0] == "crash":
            category = "error type"  # torch raised when the value was looked at
        if field == "error" and engine_record["unintended"]:
            category = "engine crash"
        elif field == "error" and t and e and t[1].split(":")[0] == e[1].split(":")[0]:
            category = "error message"
        errors = [record.get("error") for record in (theirs, ours)]
        mismatches.append(Verdict("mismatch", category, key=key, torch_text=t and t[1],
                                  engine_text=e and e[1],
                                  both_raised=errors[0][1] if errors[0] and errors[0] == errors[1]
                                  else None))
    mismatches.sort(key=lambda verdict: CATEGORIES.index(verdict.category))  # (stable)
    return status, mismatches, drifted


# a statement's own output, not the state of the namespace
_EVENTS = ("error", "print", "warning", "crash")


def _with_unchanged(theirs, ours, torch_before, engine_before):
    """Both sides' lines, each completed with its unchanged lines (its last line for a key)
    where only the other side wrote one; the namespace's lines are kept for the next
    statement."""
    completed = []
    for lines, other, last in ((theirs, ours, torch_before), (ours, theirs, engine_before)):
        lines = dict(lines)
        for key in other.keys() - lines.keys():
            if key in last and other[key][0] not in _EVENTS:
                lines[key] = last[key]
        completed.append(lines)
    for lines, last in ((theirs, torch_before), (ours, engine_before)):
        last.update((key, line) for key, line in lines.items() if line[0] not in _EVENTS)
    return completed


def _exact_numbers(field, key):
    """A line of exact numbers (``x.values``, ``x.grad.values``, a Python number) rather than
    of rounded ones (a repr, a print)."""
    return field in ("values", "python") or field == "grad" and key.endswith(".values")


def zeros_differ(torch_text, engine_text, residues=False):
    """A zero on one side that is not the same zero on the other: -0.0 against 0.0, or (with
    ``residues``, for gradients: a backward formula's order of operations) 0.0 against a
    residue such as -2.98e-08. (A matrix product's sum can leave a residue where torch's
    fused multiply-adds cancel exactly: not a zero that counts.)"""
    for t, e in zip(NUMBER.findall(torch_text), NUMBER.findall(engine_text)):
        try:
            expected, actual = float(t), float(e)
        except ValueError:
            continue
        if residues and (expected == 0) != (actual == 0):
            return True
        if expected == actual == 0 and t.startswith("-") != e.startswith("-"):
            return True
    return False


def _numbers(text):
    numbers = []
    for token in NUMBER.findall(text or ""):
        try:
            numbers.append(float(token))
        except ValueError:
            pass
    return numbers


def within_torchs_own_error(key, torch_line, engine_line, dtype, reference_record, largest):
    """After a drift: every number of the engine's line is within REFERENCE_FACTOR times
    torch's own error (torch against its float64 reference) of torch's, and that error is
    float32 noise (at most DRIFT_RTOL of the largest number torch showed so far)."""
    if dtype not in DRIFT_RTOL or torch_line[2] not in ("float16", "float32"):
        return False  # (a float64 line's reference is itself)
    references = {k: text for k, _, text, _ in reference_record["lines"]}
    if key not in references:
        return False
    skeletons = [re.sub(r"\s+", "", NUMBER.sub("#", text)) for text in (torch_line[1],
                                                                          engine_line[1])]
    tokens = [NUMBER.findall(text) for text in (torch_line[1], engine_line[1])]
    reference = _numbers(references[key])
    if skeletons[0] != skeletons[1] or not len(tokens[0]) == len(tokens[1]) == len(reference):
        return False
    _, atol = TOLERANCES[dtype]
    printed = torch_line[0] in PRINTED and not _exact_numbers(torch_line[0], key)
    for t, e, r in zip(*tokens, reference):
        expected, actual = float(t), float(e)
        if _close(t, e, DRIFT_RTOL[dtype], atol, printed):
            continue
        if not all(math.isfinite(x) for x in (expected, actual, r)):
            return False
        error = abs(expected - r)  # torch's own rounding of the terms behind this number
        if error > DRIFT_RTOL[dtype] * largest:
            return False  # not float32 noise: the reference is another computation
        slack = max(_last_digit(t), _last_digit(e)) if printed else 0.0
        if abs(actual - expected) > REFERENCE_FACTOR * error + slack:
            return False
    return True


def loosest(dtype, other):
    """Of two dtypes (or None), the one with the larger tolerance."""
    known = [d for d in (dtype, other) if d in TOLERANCES]
    return max(known, key=lambda d: TOLERANCES[d][0]) if known else dtype


def close_enough(torch_text, engine_text, dtype, printed=False, drifted=False):
    """Identical but for numbers within the tolerance of ``dtype`` (spacing ignored: a
    rounded repr's column width can change with the last digit); after an earlier
    difference within tolerance (``drifted``), within DRIFT_RTOL."""
    if dtype not in TOLERANCES:
        return False
    rtol, atol = TOLERANCES[dtype]
    if drifted:
        rtol = DRIFT_RTOL[dtype]
    skeletons = [re.sub(r"\s+", "", NUMBER.sub("#", text)) for text in (torch_text, engine_text)]
    if skeletons[0] != skeletons[1]:
        return False
    tokens = [NUMBER.findall(text) for text in (torch_text, engine_text)]
    if len(tokens[0]) != len(tokens[1]):
        return False
    return all(_close(t, e, rtol, atol, printed) for t, e in zip(*tokens))


def _close(expected_text, actual_text, rtol, atol, printed):
    expected, actual = float(expected_text), float(actual_text)
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    if math.isinf(expected) or math.isinf(actual):
        return expected == actual
    if printed:
        atol = max(atol, _last_digit(expected_text), _last_digit(actual_text))
    return abs(actual - expected) <= atol + rtol * abs(expected)


def _last_digit(token):
    """One unit in the last printed digit of ``token`` ("0.1235" -> 1e-4, "1.5e+03" -> 100)."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals) * 1.0001
