"""What a check says: a ``Feedback``, one of four results, as one line and as a coloured box.

Standard library only: the kernel-side log of cell runs (answer_cells.py) says "not checked
yet" with it, and that log is also read by the workspace tool, which runs without the
course's environment. The checker toolkit (toolkit.py) re-exports everything here.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

__all__ = ["CORRECT", "NOT_CHECKED", "NOT_DONE", "NOT_DONE_MESSAGE", "WRONG", "Feedback",
           "correct", "not_checked", "not_done", "wrong"]

CORRECT, NOT_DONE, WRONG, NOT_CHECKED = "correct", "not_done", "wrong", "not_checked"

_LABELS = {
    CORRECT: ("✅", "Correct", "#e6f4ea", "#1e7e34"),
    NOT_DONE: ("⏳", "Not done yet", "#fff8e1", "#8a6d00"),
    WRONG: ("❌", "Not quite", "#fdecea", "#b00020"),
    # the answer cell raised an error, or did not run: nothing is judged
    NOT_CHECKED: ("⚠️", "Not checked yet", "#e8f0fe", "#1a56b0"),
}

NOT_DONE_MESSAGE = "replace the ... with your answer, then run this cell again."


@dataclass(frozen=True)
class Feedback:
    """The result of a checker: ``status`` is "correct", "not_done", "wrong" or
    "not_checked" (the answer cell above raised an error or did not run, so nothing was judged).

    It is true only when correct (``assert check(answer)`` in tests), prints as one
    deterministic line (``str``/``repr``, which nbval compares) and shows as a coloured
    box in Jupyter (``_repr_html_``).
    """

    status: str
    message: str

    def __post_init__(self):
        if self.status not in _LABELS:
            raise ValueError(f"unknown status {self.status!r}")

    @property
    def ok(self) -> bool:
        return self.status == CORRECT

    @property
    def done(self) -> bool:
        return self.status not in (NOT_DONE, NOT_CHECKED)

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        icon, label, _, _ = _LABELS[self.status]
        return f"{icon} {label}: {self.message}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        icon, label, background, colour = _LABELS[self.status]
        return (
            f'<div style="background:{background}; border-left:4px solid {colour}; '
            f'padding:6px 10px; margin:4px 0;">'
            f"{icon} <strong>{label}:</strong> {html.escape(self.message)}</div>"
        )


def _sentence(message: str, hint: str | None = None) -> str:
    message = message.strip()
    if message and message[-1] not in ".!?":
        message += "."
    if hint:
        message += f" Hint: {hint.strip()}"
    return message


def correct(message: str = "well done.") -> Feedback:
    return Feedback(CORRECT, _sentence(message))


def not_done(message: str = NOT_DONE_MESSAGE) -> Feedback:
    return Feedback(NOT_DONE, _sentence(message))


def wrong(message: str, hint: str | None = None) -> Feedback:
    return Feedback(WRONG, _sentence(message, hint))


def not_checked(message: str) -> Feedback:
    return Feedback(NOT_CHECKED, _sentence(message))
