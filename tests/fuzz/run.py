"""The differential fuzzer's command line: random programs under torch and under the engine.

    python -m tests.fuzz.run --seeds 0:10000 --shrink --jobs 2      (make fuzz N=10000)

Prints how many programs matched exactly, within tolerance, or not (by category, known or
new; and by family, generator.py), then the new mismatches grouped by a signature (category,
functions called, torch's text); with ``--shrink`` the first few programs of each group are
reduced to a minimal reproducer and written to ``tests/fuzz/out/`` (git-ignored). The exit
status is 1 when there is a new mismatch. ``--families extremes,empty`` writes only those
families' programs (``--families classic``: only the programs without a family).
"""
import argparse
import collections
import re
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .compare import CATEGORIES, Verdict, compare
from .families import FAMILIES
from .generator import family_of, generate, source
from .known import Known, explainer, known_reason
from .shrink import shrink
from .worker import Worker

OUT = Path(__file__).resolve().parent / "out"
SHRINK_PER_SIGNATURE = 2


@dataclass
class Result:
    seed: int
    statements: list
    verdict: Verdict
    family: str | None = None
    known: Known | None = None
    reproducer: list | None = None
    reproducer_verdict: Verdict | None = None

    @property
    def new(self):
        return self.verdict.status == "mismatch" and self.known is None

    def differing_statement(self):
        index = self.verdict.statement
        return self.statements[index] if index is not None else ""

    def signature(self):
        """What tells one bug from another, roughly: category, calls, torch's text."""
        statement = self.differing_statement()
        names = set(re.findall(r"(?:torch\.|\.)(\w+)\s*\(", statement))
        names = " ".join(sorted(names | ({"[]"} if "[" in statement else set())))
        text = re.sub(r"\d+(\.\d+)?", "#", (self.verdict.torch_text or "")[:70])
        return f"{self.verdict.category} | {names} | {text}"


_NARROW_FLOATS = re.compile(r"torch\.(?:float32|float16|bfloat16|float|half)\b")
_NARROW_CASTS = re.compile(r"\.(?:float|half|bfloat16)\(\)")


# a call of one of the float32 math functions engine_math.py gives the engine's values
_FLOAT32_MATH = re.compile(r"\b(?:exp|log|sin|cos|tanh|tan)\(")


def in_float64(statements):
    """The program computing in float64 where it computed in float32 or float16 (its
    default dtype too: the first statement sets it), for compare's reference."""
    return ["torch.set_default_dtype(torch.float64)"] + [
        _NARROW_CASTS.sub(".double()", _NARROW_FLOATS.sub("torch.float64", statement))
        for statement in statements]


class Pair:
    """A torch worker and an engine worker, each its own long-lived process."""

    def __init__(self, timeout=10.0):
        self.torch = Worker("torch", timeout=max(timeout, 30.0))
        self.engine = Worker("engine", timeout=timeout)
        # torch with the engine's float32 math functions (engine_math.py), started when needed
        self.engine_math = Worker("torch", timeout=max(timeout, 30.0),
                                  env={"FUZZ_ENGINE_MATH": "1"})

    def verdict(self, statements):
        torch_answer, engine_answer = self.torch.run(statements), self.engine.run(statements)
        if {torch_answer["status"], engine_answer["status"]} != {"ok"}:
            # a worker that hung or died starts afresh for the next program: the other one
            # too, so that what a process does only once (torch's first forward-mode call
            # warns that torch.jit.script is deprecated) happens on both sides alike
            # (fuzz 1042035: a torch worker restarted after a hang warned, the engine not)
            self.torch.stop()
            self.engine.stop()
        verdict = compare(torch_answer, engine_answer, explain=explainer(statements))
        if verdict.status == "mismatch" and verdict.category in ("gradient", "value"):
            # residues of cancelling terms: measure torch's own float32 error on the program
            # run in float64 (compare.py's docstring), only where a number is in question
            reference = self.torch.run(in_float64(statements))
            if reference["status"] == "ok":
                reference = dict(reference, records=reference["records"][1:])
                verdict = compare(torch_answer, engine_answer, explain=explainer(statements),
                                  reference=reference)
        if verdict.status == "mismatch" and verdict.category in ("gradient", "value") and \
                _FLOAT32_MATH.search("\n".join(statements)):
            verdict.engines_math_explains = self._engines_math_explains(
                statements, engine_answer, verdict.statement)
        return verdict

    def _engines_math_explains(self, statements, engine_answer, differing):
        """Does torch, given the engine's float32 exp, log, sin, cos, tanh and tan, show what
        the engine showed (engine_math.py), up to the statement that differed and beyond it
        but for a known difference?"""
        answer = self.engine_math.run(statements)
        if answer["status"] != "ok":
            self.engine_math.stop()
            return False
        explain = explainer(statements)
        again = compare(answer, engine_answer, explain=explain)
        # (compare returns a known difference it went on past, such as a gradient's node
        # names under create_graph, when nothing else differs: fuzz 4748724)
        return again.status != "mismatch" or explain(again) or again.statement > differing \
            and known_reason(again, statements[again.statement], "\n".join(statements)) \
            is not None

    def check(self, seed, families=None):
        statements = generate(seed, families)
        verdict = self.verdict(statements)
        result = Result(seed, statements, verdict, family_of(seed, families))
        if verdict.status == "mismatch":
            result.known = known_reason(verdict, result.differing_statement(),
                                        "\n".join(statements))
        return result

    def reduce(self, result, budget=300):
        """``result``'s program shrunk while it mismatches in the same category."""
        fingerprint = result.verdict.fingerprint()

        def still_fails(statements):
            return self.verdict(statements).fingerprint() == fingerprint

        result.reproducer = shrink(result.statements, still_fails, budget=budget)
        result.reproducer_verdict = self.verdict(result.reproducer)

    def close(self):
        self.torch.stop()
        self.engine.stop()
        self.engine_math.stop()


def fuzz(seeds, jobs=1, timeout=10.0, progress=None, families=None):
    """A Result for every seed, checked by ``jobs`` worker pairs in parallel; ``families`` as
    in generator.generate."""
    pending = iter(seeds)
    lock = threading.Lock()
    results = []

    def work():
        pair = Pair(timeout)
        try:
            while True:
                with lock:
                    seed = next(pending, None)
                if seed is None:
                    return
                result = pair.check(seed, families)
                with lock:
                    results.append(result)
                    if progress:
                        progress(len(results))
        finally:
            pair.close()

    threads = [threading.Thread(target=work) for _ in range(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(results, key=lambda r: r.seed)


def shrink_new(results, per_signature=SHRINK_PER_SIGNATURE, timeout=10.0):
    """Shrink the first new mismatches of each signature; returns {signature: [results]}."""
    groups = collections.defaultdict(list)
    for result in results:
        if result.new:
            groups[result.signature()].append(result)
    pair = Pair(timeout)
    try:
        for members in groups.values():
            for result in members[:per_signature]:
                pair.reduce(result)
    finally:
        pair.close()
    return groups


def write_reproducer(result, folder):
    """tests/fuzz/out/<category>-seed<N>.py: the program with what differs, as comments."""
    statements = result.reproducer or result.statements
    verdict = result.reproducer_verdict or result.verdict
    slug = re.sub(r"\W+", "-", verdict.category or "mismatch")
    path = folder / f"{slug}-seed{result.seed}.py"
    index = verdict.statement
    header = [f"# fuzz seed {result.seed}: {verdict.category}"
              + (f" at statement {index + 1}: {statements[index]!r}" if index is not None else "")
              + (f", in {verdict.key}" if verdict.key else ""),
              commented("# torch:  ", verdict.torch_text),
              commented("# engine: ", verdict.engine_text),
              "import torch  # or: import engine as torch"]
    path.write_text("\n".join(header) + "\n" + source(statements), encoding="utf-8")
    return path


def commented(label, text):
    """``label`` and ``text`` as comment lines (a tensor's text spans several): the reproducer
    stays a program Python can read."""
    lines = str(text).split("\n")
    return "\n".join([label + lines[0]] + [f"#{' ' * (len(label) - 1)}{line}"
                                          for line in lines[1:]])


def report(results, seconds, jobs, groups=None, out=None, stream=sys.stdout):
    counts = collections.Counter()
    for result in results:
        verdict = result.verdict
        if verdict.status == "mismatch":
            counts[("mismatch", verdict.category, "known" if result.known else "new")] += 1
        else:
            counts[(verdict.status,)] += 1
    total = len(results)
    print(f"{total} programs in {seconds:.0f} s ({jobs} job{'s' * (jobs > 1)})", file=stream)
    for status in ("exact", "tolerance", "skipped"):
        print(f"  {status:<30} {counts[(status,)]:>6}", file=stream)
    mismatches = sum(n for key, n in counts.items() if key[0] == "mismatch")
    print(f"  {'mismatch':<30} {mismatches:>6}", file=stream)
    for category in CATEGORIES:
        known, new = counts[("mismatch", category, "known")], counts[("mismatch", category, "new")]
        if known or new:
            print(f"    {category:<28} {known + new:>6}  (known {known}, new {new})",
                  file=stream)
    families = collections.defaultdict(collections.Counter)
    for result in results:
        status = result.verdict.status
        if status == "mismatch":
            status = "known" if result.known else "new"
        families[result.family or "classic"][status] += 1
    if any(r.family for r in results):
        print(f"  {'by family':<22} programs  exact  tolerance  known  new", file=stream)
        for family, n in sorted(families.items()):
            print(f"    {family:<20} {sum(n.values()):>8} {n['exact']:>6} {n['tolerance']:>10}"
                  f" {n['known']:>6} {n['new']:>4}", file=stream)
    reasons = collections.Counter(r.known.reason for r in results if r.known)
    if reasons:
        print("known differences seen:", file=stream)
        for reason, n in reasons.most_common():
            print(f"  {n:>5}  {reason}", file=stream)
    groups = groups or _group_new(results)
    if groups:
        print(f"new mismatches: {len(groups)} signatures", file=stream)
    for signature, members in sorted(groups.items(), key=lambda item: -len(item[1])):
        example = members[0]
        print(f"  {len(members):>5}  {signature}   e.g. seed {example.seed}", file=stream)
        if out is not None and example.reproducer is not None:
            print(f"         -> {write_reproducer(example, out)}", file=stream)


def _group_new(results):
    groups = collections.defaultdict(list)
    for result in results:
        if result.new:
            groups[result.signature()].append(result)
    return groups


def parse_seeds(text):
    start, _, stop = text.partition(":")
    return range(int(start), int(stop)) if stop else range(int(start), int(start) + 1)


def parse_families(text):
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if names == ("classic",):
        return ()
    unknown = [name for name in names if name not in FAMILIES]
    if unknown:
        raise argparse.ArgumentTypeError(f"no family {', '.join(unknown)} (families: "
                                         f"{', '.join(FAMILIES)}, classic)")
    return names


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=parse_seeds, default=range(0, 1000),
                        help="START:STOP (default 0:1000) or one seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker pairs run in parallel")
    parser.add_argument("--shrink", action="store_true",
                        help="shrink the first new mismatches of each signature and write "
                             "them to tests/fuzz/out/")
    parser.add_argument("--per-signature", type=int, default=SHRINK_PER_SIGNATURE,
                        help="how many programs of each signature --shrink reduces")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds before an engine program counts as a hang")
    parser.add_argument("--families", type=parse_families, default=None,
                        help="NAME,NAME...: only these families' programs (classic: only the "
                             "programs without a family); default: the generator's mix")
    parser.add_argument("--show", type=int, metavar="SEED",
                        help="print one seed's program and verdict, and stop")
    args = parser.parse_args(argv)
    if args.show is not None:
        pair = Pair(args.timeout)
        try:
            result = pair.check(args.show, args.families)
        finally:
            pair.close()
        print(f"# family: {result.family or 'classic'}")
        print(source(result.statements))
        print(result.verdict, f"\n(known: {result.known.reason})" if result.known else "")
        return 0
    started = time.monotonic()

    def progress(done):
        if done % 500 == 0:
            print(f"... {done} programs, {time.monotonic() - started:.0f} s", file=sys.stderr)

    results = fuzz(args.seeds, jobs=args.jobs, timeout=args.timeout, progress=progress,
                   families=args.families)
    groups, out = None, None
    if args.shrink:
        out = OUT
        out.mkdir(exist_ok=True)
        groups = shrink_new(results, args.per_signature, timeout=args.timeout)
    report(results, time.monotonic() - started, args.jobs, groups, out)
    return 1 if any(r.new for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
