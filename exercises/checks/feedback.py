"""What a check says: a ``Feedback``, one of four results, as one line and as a coloured box.

Its words are in the language of the notebook it is shown in (i18n.py): the message is
made in it, and the label ("Correct", "正确", ...) is shown in the language the Feedback
was made in.

Standard library only: the kernel-side log of cell runs (answer_cells.py) says "not checked
yet" with it, and that log is also read by the workspace tool, which runs without the
course's environment. The checker toolkit (toolkit.py) re-exports everything here.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

from exercises.checks.i18n import N_, _, language, translate

__all__ = ["CORRECT", "NOT_CHECKED", "NOT_DONE", "NOT_DONE_MESSAGE", "WRONG", "Feedback",
           "correct", "not_checked", "not_done", "wrong"]

CORRECT, NOT_DONE, WRONG, NOT_CHECKED = "correct", "not_done", "wrong", "not_checked"

_LABELS = {
    CORRECT: ("✅", N_("Correct"), "#e6f4ea", "#1e7e34"),
    NOT_DONE: ("⏳", N_("Not done yet"), "#fff8e1", "#8a6d00"),
    WRONG: ("❌", N_("Not quite"), "#fdecea", "#b00020"),
    # the answer cell raised an error, or did not run: nothing is judged
    NOT_CHECKED: ("⚠️", N_("Not checked yet"), "#e8f0fe", "#1a56b0"),
}

# English; not_done() says it in the notebook's language.
NOT_DONE_MESSAGE = N_("replace the ... with your answer, then run this cell again.")


def label(status: str, chosen: str | None = None) -> str:
    """A verdict's icon and label as a check shows them ("✅ Correct", "✅ 正确")."""
    icon, text, _background, _colour = _LABELS[status]
    return f"{icon} {translate(text, chosen)}"


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
    # the language of its label: the one the message was made in (not compared, not shown)
    language: str = field(default="", compare=False, repr=False)

    def __post_init__(self):
        if self.status not in _LABELS:
            raise ValueError(f"unknown status {self.status!r}")
        if not self.language:
            object.__setattr__(self, "language", language())

    @property
    def ok(self) -> bool:
        return self.status == CORRECT

    @property
    def done(self) -> bool:
        return self.status not in (NOT_DONE, NOT_CHECKED)

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return translate(N_("{label}: {message}"), self.language).format(
            label=label(self.status, self.language), message=self.message)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        icon, text, background, colour = _LABELS[self.status]
        words = translate(N_("<strong>{label}:</strong> {message}"), self.language).format(
            label=translate(text, self.language), message=html.escape(self.message))
        return (
            f'<div style="background:{background}; border-left:4px solid {colour}; '
            f'padding:6px 10px; margin:4px 0;">'
            f"{icon} {words}</div>"
        )


# A message that already ends a sentence, in either language.
_ENDS = ".!?。！？"


def _sentence(message: str, hint: str | None = None) -> str:
    message = message.strip()
    if message and message[-1] not in _ENDS:
        message = _("{sentence}.", sentence=message)
    if hint:
        message = _("{message} Hint: {hint}", message=message, hint=hint.strip())
    return message


def correct(message: str | None = None) -> Feedback:
    return Feedback(CORRECT, _sentence(_("well done.") if message is None else message))


def not_done(message: str | None = None) -> Feedback:
    return Feedback(NOT_DONE, _sentence(_(NOT_DONE_MESSAGE) if message is None else message))


def wrong(message: str, hint: str | None = None) -> Feedback:
    return Feedback(WRONG, _sentence(message, hint))


def not_checked(message: str) -> Feedback:
    return Feedback(NOT_CHECKED, _sentence(message))
