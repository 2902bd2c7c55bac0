"""Class sessions ("Ask the class"): rooms, lesson questions and anonymous answers in a shared store.

Not maths and not a view: the store is a small SQLAlchemy Core layer that the app uses, the same on an
embedded SQLite file (one process) and on PostgreSQL (replicas behind a proxy). Nothing happens on
import; a ``Store`` connects when it is made.

* ``Store``          – the rooms, questions and answers (``store.Store``).
* ``QuestionSpec``   – what a question accepts (options or a number range) and its correct answer.
* ``ClassError``     – every refused request, with a message meant for the person who made it.
"""

from .store import (
    CODE_ALPHABET,
    ClassError,
    QuestionSpec,
    Store,
    format_code,
    is_student_id,
    new_student_id,
    normalise_code,
    normalise_secret,
)

__all__ = [
    "CODE_ALPHABET",
    "ClassError",
    "QuestionSpec",
    "Store",
    "format_code",
    "is_student_id",
    "new_student_id",
    "normalise_code",
    "normalise_secret",
]
