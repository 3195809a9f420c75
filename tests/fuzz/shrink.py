"""Reduce a failing program to a minimal reproducer.

``shrink(statements, still_fails)`` tries smaller programs and keeps each one for which
``still_fails(program)`` holds (the caller checks: still a mismatch, in the same category).
It drops statements (halves, then quarters ... then one at a time), takes the body out of
``with``/``for`` blocks, drops keyword arguments and makes number literals simpler, until no
change helps or ``budget`` tries are spent.
"""
import re

KEYWORD = re.compile(r",\s*\w+=(?:torch\.\w+|[-\w.]+|\([^()]*\))")
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
# Integers become 1 or 2, never 0: a size of 0 turns most bugs into another one, about
# empty tensors.
SIMPLER = ["1", "2", "0.0", "1.0", "0.5"]


def shrink(statements, still_fails, budget=300):
    shrinker = Shrinker(statements, still_fails, budget)
    shrinker.run()
    return shrinker.program


class Shrinker:
    def __init__(self, statements, still_fails, budget):
        self.program = list(statements)
        self.still_fails, self.budget, self.tries = still_fails, budget, 0

    def attempt(self, candidate):
        """Keep ``candidate`` if it still fails."""
        if self.tries >= self.budget or not candidate or candidate == self.program:
            return False
        self.tries += 1
        if self.still_fails(candidate):
            self.program = candidate
            return True
        return False

    def run(self):
        changed = True
        while changed and self.tries < self.budget:
            changed = self.drop_statements()
            changed |= self.unwrap_blocks()
            changed |= self.simplify_statements()

    def drop_statements(self):
        """Delta debugging: remove runs of statements, long runs first."""
        changed = False
        size = max(len(self.program) // 2, 1)
        while size >= 1:
            start = 0
            while start < len(self.program):
                candidate = self.program[:start] + self.program[start + size:]
                if self.attempt(candidate):
                    changed = True
                else:
                    start += size
            size //= 2
        return changed

    def unwrap_blocks(self):
        """A ``with``/``for`` block replaced by its body, or its body cut line by line."""
        changed = False
        for index in range(len(self.program)):
            if index >= len(self.program):
                break
            header, _, body = self.program[index].partition("\n")
            if not (body and header.startswith(("with ", "for ")) and header.endswith(":")):
                continue
            before, after = self.program[:index], self.program[index + 1:]
            lines = dedent(body).split("\n")
            if self.attempt(before + top_level_statements(lines) + after):
                changed = True
                continue
            for cut in range(len(lines)):
                rest = lines[:cut] + lines[cut + 1:]
                if lines[cut][:1].isspace() or not rest:
                    continue
                block = header + "\n" + "\n".join("    " + line for line in rest)
                if self.attempt(before + [block] + after):
                    changed = True
                    break
        return changed

    def simplify_statements(self):
        changed = False
        for index in range(len(self.program)):
            for simpler in simpler_statements(self.program[index]):
                if self.attempt(self.program[:index] + [simpler] + self.program[index + 1:]):
                    changed = True
                    break
        return changed


def simpler_statements(statement):
    """Variants of one statement: a keyword argument dropped, a number made simpler."""
    for match in KEYWORD.finditer(statement):
        yield statement[:match.start()] + statement[match.end():]
    for match in NUMBER.finditer(statement):
        for simpler in SIMPLER:
            if is_simpler(simpler, match.group()):
                yield statement[:match.start()] + simpler + statement[match.end():]


def is_simpler(candidate, literal):
    if ("." in literal) != ("." in candidate):
        return False  # 2.5 -> 1 would change the dtype
    return abs(float(candidate)) < abs(float(literal)) or (
        float(candidate) == abs(float(literal)) and literal.startswith("-"))


def dedent(body):
    lines = body.split("\n")
    indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
    return "\n".join(line[indent:] for line in lines)


def top_level_statements(lines):
    """A block's body as statements (an indented line belongs to the statement above it)."""
    statements = []
    for line in lines:
        if statements and (line[:1].isspace() or statements[-1].startswith("@")):
            statements[-1] += "\n" + line
        else:
            statements.append(line)
    return statements
