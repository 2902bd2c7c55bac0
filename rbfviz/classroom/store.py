"""The class-session store: rooms, lesson questions and anonymous answers, on SQLite or PostgreSQL.

One ``Store`` wraps one SQLAlchemy engine (a connection pool). Every statement is SQLAlchemy Core with
bound parameters; the schema is created at start-up (``CREATE TABLE IF NOT EXISTS``, under an advisory
lock on PostgreSQL so replicas starting together do not race). The same code runs on an embedded
SQLite file (one process; WAL journal, writes serialised with ``BEGIN IMMEDIATE``) and on PostgreSQL
(replicas behind a proxy), chosen by one URL (the app's is ``ui.settings``' ``RBFVIZ_DATABASE_URL``).

Who may do what:

* The teacher creates a room and gets its code (8 characters from Crockford's base-32 alphabet, no
  I, L, O or U: 40 bits) and a secret (16 characters of the same alphabet: 80 bits). Only a hash of
  the secret is stored; every teacher action (open, reveal, close a question, read the answers, clear
  the room) needs the secret, and the secret alone finds the room again (``resume``): a reloaded
  page, another device or another replica gets the room back from it.
* A student joins with the code and a random id the app makes (``new_student_id``); no name. One
  answer per (room, question, student): a new answer replaces the old one (an atomic upsert).
* Every refused request raises ``ClassError`` with a message for the person who made it, and leaves
  nothing behind (the transaction is rolled back).

Rooms and everything in them are deleted ``ttl_seconds`` after they were created (default 24 h) by
``purge_expired`` (called as rooms are created and read), or at once by ``clear_room``.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
import time
from contextlib import contextmanager
from dataclasses import dataclass
from numbers import Integral, Real
from pathlib import Path
from typing import Callable, Iterator

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from ..i18n import N_, Invalid

# Crockford's base 32: digits and capitals without I, L, O and U (look-alikes of 1, 1, 0 and V).
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 8  # 8 × 5 = 40 bits: 10,000 guesses find one room in 2^40 with probability 9e-9
# 16 × 5 = 80 bits: the code is projected, so the secret alone must resist guessing (a billion guesses
# find one of a thousand live rooms with probability 8e-13)
SECRET_LENGTH = 16
_CODE_READS_AS = str.maketrans({"O": "0", "I": "1", "L": "1"})
_STUDENT_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
_QUESTION_KEY = re.compile(r"[a-z0-9_]{1,32}")
MAX_OPTIONS = 26

DEFAULT_TTL_SECONDS = 24 * 3600
RATE_WINDOW_SECONDS = 10.0  # a student may submit RATE_LIMIT answers per window, then must wait
RATE_LIMIT = 10
PRESENT_SECONDS = 45.0  # a student counts as in the room if seen this recently (polls touch every 10 s)
TOUCH_SECONDS = 10.0
OPEN, REVEALED, CLOSED = "open", "revealed", "closed"
CHOICE, NUMBER = "choice", "number"
_PG_SCHEMA_LOCK = 0x72626676  # "rbfv": one replica at a time creates the tables


class ClassError(Invalid):
    """A refused request; the message is written for the teacher or student who made it. Like
    rbfviz.i18n.Invalid, it is a catalog message (marked ``N_``) with named fields: ``str(error)`` is
    the English sentence, ``explain(error, tr)`` the reader's."""


# --- codes, ids, the database URL -------------------------------------------------------------------


def new_code() -> str:
    """A fresh room code: CODE_LENGTH characters of CODE_ALPHABET from the OS's CSPRNG."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_secret() -> str:
    """A fresh teacher's secret: SECRET_LENGTH characters of CODE_ALPHABET from the OS's CSPRNG."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(SECRET_LENGTH))


def _crockford(text, length: int) -> str | None:
    """text as `length` characters of CODE_ALPHABET, ignoring case, spaces and hyphens and reading
    O, I, L as 0, 1, 1 (Crockford's decoding); None if it cannot be read so."""
    if not isinstance(text, str) or len(text) > 4 * length:
        return None
    canonical = re.sub(r"[\s-]", "", text).upper().translate(_CODE_READS_AS)
    if len(canonical) != length or any(ch not in CODE_ALPHABET for ch in canonical):
        return None
    return canonical


def normalise_code(text) -> str | None:
    """The room code a person typed or a link carried, in canonical form, or None if it cannot be one.

    Case, spaces and hyphens are ignored, and O, I, L read as 0, 1, 1 (Crockford's decoding)."""
    return _crockford(text, CODE_LENGTH)


def normalise_secret(text) -> str | None:
    """A teacher's resume code as typed or carried by a link, in canonical form, or None if it cannot
    be one (read like a room code: case, spaces, hyphens and O, I, L do not matter)."""
    return _crockford(text, SECRET_LENGTH)


def format_code(code: str) -> str:
    """A room code or a secret as it is shown: groups of four (``7KQ2-XM9D``)."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def new_student_id() -> str:
    """An anonymous student's id: 128 random bits, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


def _hash_secret(secret: str) -> str:
    # one SHA-256, no salt or stretching: the secret is 80 random bits, not a password a person chose
    return hashlib.sha256(secret.encode()).hexdigest()


# --- what a question accepts, what the store returns ------------------------------------------------


@dataclass(frozen=True)
class QuestionSpec:
    """A question as the store checks it.

    key: the lesson step's key. kind: "choice" (answers are option indices 0 … n_options−1) or
    "number" (answers are finite numbers from low to high, in the question's unit). answer: the
    correct option index or number, shown to students only once revealed."""

    key: str
    kind: str
    answer: float
    n_options: int = 0
    low: float = 0.0
    high: float = 0.0

    def __post_init__(self):
        if not isinstance(self.key, str) or not _QUESTION_KEY.fullmatch(self.key):
            raise ValueError(f"a question key is 1–32 of a–z, 0–9 and _, got {self.key!r}.")
        if self.kind == CHOICE:
            if isinstance(self.n_options, bool) or not isinstance(self.n_options, Integral):
                raise ValueError(f"n_options must be an integer, got {self.n_options!r}.")
            if not 2 <= self.n_options <= MAX_OPTIONS:
                raise ValueError(f"a choice has 2 to {MAX_OPTIONS} options, got {self.n_options}.")
            _choice_index(self.answer, self.n_options)
        elif self.kind == NUMBER:
            low, high = float(self.low), float(self.high)
            if not (math.isfinite(low) and math.isfinite(high) and low < high):
                raise ValueError(f"a number question needs finite bounds low < high, got {low!r}, {high!r}.")
            _number_in_range(self.answer, low, high)
        else:
            raise ValueError(f"kind must be {CHOICE!r} or {NUMBER!r}, got {self.kind!r}.")


@dataclass(frozen=True)
class Room:
    """A teacher's room: its code, and the teacher's secret (never stored in clear: only its hash)."""

    code: str
    secret: str
    expires_at: float


@dataclass(frozen=True)
class RoomView:
    """What a student sees: the current question, its state, their own answer, and the correct answer
    once revealed (else None)."""

    code: str
    question: str | None
    state: str | None
    kind: str | None
    low: float | None
    high: float | None
    n_options: int | None
    mine: float | None
    answer: float | None
    expires_at: float


@dataclass(frozen=True)
class Tally:
    """What the teacher sees of the current question: students present and joined, the answers (one per
    student, in no particular order) and the correct answer once revealed (else None)."""

    code: str
    question: str | None
    state: str | None
    kind: str | None
    low: float | None
    high: float | None
    n_options: int | None
    present: int
    joined: int
    values: tuple[float, ...]
    answer: float | None
    expires_at: float

    @property
    def answered(self) -> int:
        return len(self.values)


# --- answer validation (before any database work) ---------------------------------------------------


def _as_real(value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        # numpy scalars are Real; strings, None, containers are not
        raise ClassError(N_("An answer must be a number, got {type}."), type=type(value).__name__)
    number = float(value)
    if not math.isfinite(number):
        raise ClassError(N_("An answer must be a finite number (not NaN or infinity)."))
    return number


def _choice_index(value, n_options: int) -> int:
    number = _as_real(value)
    if not number.is_integer() or not 0 <= number < n_options:
        raise ClassError(N_("Pick one of the {n_options} options."), n_options=n_options)
    return int(number)


def _number_in_range(value, low: float, high: float) -> float:
    number = _as_real(value)
    if not low <= number <= high:
        raise ClassError(N_("Enter a number from {low:.4g} to {high:.4g}."), low=low, high=high)
    return number


def is_student_id(text) -> bool:
    """Whether text has the form of new_student_id's ids (16–64 URL-safe characters)."""
    return isinstance(text, str) and _STUDENT_ID.fullmatch(text) is not None


def _checked_student(student) -> str:
    if not is_student_id(student):
        raise ClassError(N_("This browser's class seat is not valid: open the join link again."))
    return student


def _checked_code(code) -> str:
    canonical = normalise_code(code)
    if canonical is None:
        raise ClassError(N_("No class room has this code. Check the code on the projector."))
    return canonical


# --- the schema ---------------------------------------------------------------------------------------

metadata = sa.MetaData()
rooms = sa.Table(
    "rbfviz_rooms",
    metadata,
    sa.Column("code", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("teacher_hash", sa.String(64), nullable=False, index=True),
    sa.Column("created_at", sa.Double, nullable=False),
    sa.Column("expires_at", sa.Double, nullable=False, index=True),
    sa.Column("current", sa.String(32)),
)
questions = sa.Table(
    "rbfviz_questions",
    metadata,
    sa.Column("room", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("key", sa.String(32), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("n_options", sa.Integer, nullable=False),
    sa.Column("low", sa.Double, nullable=False),
    sa.Column("high", sa.Double, nullable=False),
    sa.Column("answer", sa.Double, nullable=False),
    sa.Column("state", sa.String(8), nullable=False),
    sa.Column("opened_at", sa.Double, nullable=False),
)
members = sa.Table(
    "rbfviz_members",
    metadata,
    sa.Column("room", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("student", sa.String(64), primary_key=True),
    sa.Column("joined_at", sa.Double, nullable=False),
    sa.Column("last_seen", sa.Double, nullable=False),
    sa.Column("window_start", sa.Double, nullable=False),
    sa.Column("window_count", sa.Integer, nullable=False),
)
answers = sa.Table(
    "rbfviz_answers",
    metadata,
    sa.Column("room", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("question", sa.String(32), primary_key=True),
    sa.Column("student", sa.String(64), primary_key=True),
    sa.Column("value", sa.Double, nullable=False),
    sa.Column("answered_at", sa.Double, nullable=False),
)
ROOM_TABLES = (answers, members, questions, rooms)  # deletion order


# --- the store ----------------------------------------------------------------------------------------


class Store:
    """Rooms, questions and answers in one database (see the module's docstring).

    url: a SQLAlchemy URL, ``sqlite:///path`` or ``postgresql://…`` (psycopg 3 is used).
    ttl_seconds: how long a room and its answers live. clock: seconds since the
    epoch (tests pass their own)."""

    def __init__(
        self,
        url: str,
        *,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.time,
        pool_size: int = 5,
        max_overflow: int = 10,
    ):
        ttl_seconds = float(ttl_seconds)
        if not math.isfinite(ttl_seconds) or ttl_seconds <= 0:
            raise ValueError(f"ttl_seconds must be a positive number of seconds, got {ttl_seconds!r}.")
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        parsed = make_url(url)
        self.dialect = parsed.get_backend_name()
        if self.dialect == "sqlite":
            self.engine = _sqlite_engine(parsed, pool_size, max_overflow)
        elif self.dialect == "postgresql":
            if parsed.drivername == "postgresql":
                parsed = parsed.set(drivername="postgresql+psycopg")
            self.engine = sa.create_engine(
                parsed,
                pool_size=pool_size,
                max_overflow=max_overflow,
                pool_pre_ping=True,
                pool_recycle=1800,
            )
        else:
            raise ValueError(f"the class store runs on sqlite or postgresql, not {self.dialect!r}.")
        self._insert = sqlite.insert if self.dialect == "sqlite" else postgresql.insert
        self._last_purge = -math.inf
        self._create_schema()

    def __repr__(self) -> str:
        return f"Store({self.engine.url.render_as_string(hide_password=True)!r})"

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    # --- transactions ---

    def _create_schema(self) -> None:
        with self._write() as conn:
            if self.dialect == "postgresql":
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_SCHEMA_LOCK)))
            metadata.create_all(conn, checkfirst=True)
            for index in rooms.indexes:  # a table made by an older version has the table, not the index
                index.create(conn, checkfirst=True)

    @contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        """A read-write transaction; on SQLite it takes the write lock at once (BEGIN IMMEDIATE), so two
        writers queue on the busy timeout instead of failing on a stale read snapshot."""
        with self.engine.connect() as conn:
            conn.execution_options(rbfviz_write=True)
            with conn.begin():
                yield conn

    @contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        with self.engine.connect() as conn:
            with conn.begin():
                yield conn

    def _live_room(self, conn, code: str, now: float):
        row = conn.execute(sa.select(rooms).where(rooms.c.code == code)).first()
        if row is None or row.expires_at <= now:
            raise ClassError(
                N_("No class room has this code (or it has ended). Check the code on the projector.")
            )
        return row

    def _teacher_room(self, conn, code, secret, now: float):
        code = _checked_code(code)
        row = self._live_room(conn, code, now)
        canonical = normalise_secret(secret)
        if canonical is None or not hmac.compare_digest(_hash_secret(canonical), row.teacher_hash):
            raise ClassError(N_("Only the teacher who started this room can do that."))
        return row

    # --- the teacher ---

    def create_room(self) -> Room:
        """A new room, open for ttl_seconds. Also deletes expired rooms."""
        now = self.clock()
        self.purge_expired()
        for _ in range(8):
            code, secret = new_code(), new_secret()
            try:
                with self._write() as conn:
                    conn.execute(
                        rooms.insert().values(
                            code=code,
                            teacher_hash=_hash_secret(secret),
                            created_at=now,
                            expires_at=now + self.ttl_seconds,
                            current=None,
                        )
                    )
                return Room(code, secret, now + self.ttl_seconds)
            except IntegrityError:  # the code is taken: draw another
                continue
        raise RuntimeError("could not draw a free room code in 8 tries")

    def resume(self, secret) -> Room:
        """The live room whose teacher's secret this is (typed as a resume code, or from a link or this
        browser's cookie), so a reloaded page, another device or another replica gets its controls back.
        Refused (ClassError): anything that is not a secret of a live room."""
        canonical = normalise_secret(secret)
        if canonical is None:
            raise ClassError(
                N_(
                    "A resume code has {length} letters and digits in groups of four, "
                    "like 7KQ2-XM0D-4H8R-B2NC."
                ),
                length=str(SECRET_LENGTH),
            )
        now = self.clock()
        self._maybe_purge(now)
        with self._read() as conn:
            row = conn.execute(
                sa.select(rooms.c.code, rooms.c.expires_at).where(
                    rooms.c.teacher_hash == _hash_secret(canonical), rooms.c.expires_at > now
                )
            ).first()
        if row is None:
            raise ClassError(N_("No open class room has this resume code (it may have ended or expired)."))
        return Room(row.code, canonical, row.expires_at)

    def open_question(self, code, secret, spec: QuestionSpec) -> None:
        """Make spec the room's current question, open for answers (answers given before are kept).
        Any other open question of the room is closed."""
        if not isinstance(spec, QuestionSpec):
            raise TypeError(f"spec must be a QuestionSpec, got {type(spec).__name__}.")
        now = self.clock()
        with self._write() as conn:
            room = self._teacher_room(conn, code, secret, now)
            conn.execute(
                questions.update()
                .where(questions.c.room == room.code, questions.c.state == OPEN, questions.c.key != spec.key)
                .values(state=CLOSED)
            )
            fields = dict(
                kind=spec.kind,
                n_options=int(spec.n_options) if spec.kind == CHOICE else 0,
                low=float(spec.low),
                high=float(spec.high),
                answer=float(spec.answer),
                state=OPEN,
                opened_at=now,
            )
            upsert = self._insert(questions).values(room=room.code, key=spec.key, **fields)
            conn.execute(upsert.on_conflict_do_update(index_elements=["room", "key"], set_=fields))
            conn.execute(rooms.update().where(rooms.c.code == room.code).values(current=spec.key))

    def _set_state(self, code, secret, state: str) -> None:
        now = self.clock()
        with self._write() as conn:
            room = self._teacher_room(conn, code, secret, now)
            if room.current is None:
                raise ClassError(N_("No question has been asked in this room yet."))
            conn.execute(
                questions.update()
                .where(questions.c.room == room.code, questions.c.key == room.current)
                .values(state=state)
            )

    def reveal(self, code, secret) -> None:
        """Show the current question's correct answer to everyone; no more answers are taken."""
        self._set_state(code, secret, REVEALED)

    def close_question(self, code, secret) -> None:
        """Stop taking answers to the current question without revealing it."""
        self._set_state(code, secret, CLOSED)

    def tally(self, code, secret) -> Tally:
        """The current question's answers, for the teacher's panel."""
        now = self.clock()
        self._maybe_purge(now)
        with self._read() as conn:
            room = self._teacher_room(conn, code, secret, now)
            joined, present = conn.execute(
                sa.select(
                    sa.func.count(),
                    sa.func.coalesce(
                        sa.func.sum(sa.case((members.c.last_seen >= now - PRESENT_SECONDS, 1), else_=0)), 0
                    ),
                ).where(members.c.room == room.code)
            ).one()
            question = None
            values: tuple[float, ...] = ()
            if room.current is not None:
                question = conn.execute(
                    sa.select(questions).where(questions.c.room == room.code, questions.c.key == room.current)
                ).one()
                values = tuple(
                    conn.execute(
                        sa.select(answers.c.value).where(
                            answers.c.room == room.code, answers.c.question == room.current
                        )
                    ).scalars()
                )
        return Tally(
            code=room.code,
            question=room.current,
            state=question.state if question else None,
            kind=question.kind if question else None,
            low=question.low if question else None,
            high=question.high if question else None,
            n_options=question.n_options if question else None,
            present=int(present),
            joined=int(joined),
            values=values,
            answer=question.answer if question is not None and question.state == REVEALED else None,
            expires_at=room.expires_at,
        )

    def answer_rows(self, code, secret) -> list[tuple[str, float, float]]:
        """Every answer in the room, anonymous: (question key, value, seconds after the question opened),
        ordered by question and time."""
        now = self.clock()
        with self._read() as conn:
            room = self._teacher_room(conn, code, secret, now)
            rows = conn.execute(
                sa.select(answers.c.question, answers.c.value, answers.c.answered_at - questions.c.opened_at)
                .join(
                    questions,
                    sa.and_(questions.c.room == answers.c.room, questions.c.key == answers.c.question),
                )
                .where(answers.c.room == room.code)
                .order_by(answers.c.question, answers.c.answered_at)
            ).all()
        return [(key, float(value), float(delay)) for key, value, delay in rows]

    def clear_room(self, code, secret) -> None:
        """Delete the room, its questions, its members and every answer, now."""
        now = self.clock()
        with self._write() as conn:
            room = self._teacher_room(conn, code, secret, now)
            for table in ROOM_TABLES:
                conn.execute(table.delete().where(table.c[_room_column(table)] == room.code))

    def purge_expired(self) -> int:
        """Delete every room past its expiry time with everything in it; returns how many rooms."""
        now = self.clock()
        self._last_purge = now
        expired = sa.select(rooms.c.code).where(rooms.c.expires_at <= now)
        with self._write() as conn:
            for table in ROOM_TABLES[:-1]:
                conn.execute(table.delete().where(table.c.room.in_(expired)))
            return conn.execute(rooms.delete().where(rooms.c.expires_at <= now)).rowcount

    def _maybe_purge(self, now: float) -> None:
        if now - self._last_purge >= 60.0:
            self.purge_expired()

    # --- the students ---

    def join(self, code, student) -> RoomView:
        """Put the student in the room (joining again is harmless) and return what they see."""
        code, student = _checked_code(code), _checked_student(student)
        now = self.clock()
        with self._write() as conn:
            self._live_room(conn, code, now)
            fields = dict(joined_at=now, last_seen=now, window_start=now, window_count=0)
            conn.execute(
                self._insert(members)
                .values(room=code, student=student, **fields)
                .on_conflict_do_update(index_elements=["room", "student"], set_=dict(last_seen=now))
            )
        return self.view(code, student)

    def view(self, code, student) -> RoomView:
        """What the student sees now (a cheap read; it marks them present every TOUCH_SECONDS)."""
        code, student = _checked_code(code), _checked_student(student)
        now = self.clock()
        with self._read() as conn:
            room = self._live_room(conn, code, now)
            last_seen = conn.execute(
                sa.select(members.c.last_seen).where(members.c.room == code, members.c.student == student)
            ).scalar()
            if last_seen is None:
                raise ClassError(N_("You are not in this room: open the join link again."))
            question, mine = None, None
            if room.current is not None:
                question = conn.execute(
                    sa.select(questions).where(questions.c.room == code, questions.c.key == room.current)
                ).one()
                mine = conn.execute(
                    sa.select(answers.c.value).where(
                        answers.c.room == code,
                        answers.c.question == room.current,
                        answers.c.student == student,
                    )
                ).scalar()
        if now - last_seen >= TOUCH_SECONDS:
            with self._write() as conn:
                conn.execute(
                    members.update()
                    .where(members.c.room == code, members.c.student == student)
                    .values(last_seen=now)
                )
        return RoomView(
            code=code,
            question=room.current,
            state=question.state if question else None,
            kind=question.kind if question else None,
            low=question.low if question else None,
            high=question.high if question else None,
            n_options=question.n_options if question else None,
            mine=mine,
            answer=question.answer if question is not None and question.state == REVEALED else None,
            expires_at=room.expires_at,
        )

    def submit(self, code, student, question_key, value) -> float:
        """Store the student's answer to the open question, replacing any earlier one; returns the value
        stored. Refused (ClassError, nothing written): an unknown or ended room, a student not in it, a
        question that is not the room's open one, a value that is not finite, out of range or not an
        option, or more than RATE_LIMIT submissions in RATE_WINDOW_SECONDS."""
        code, student = _checked_code(code), _checked_student(student)
        number = _as_real(value)  # type and finiteness first: no database work for garbage
        if not isinstance(question_key, str) or not _QUESTION_KEY.fullmatch(question_key):
            raise ClassError(N_("This question is not open in the room."))
        now = self.clock()
        with self._write() as conn:
            room = self._live_room(conn, code, now)
            question = conn.execute(
                sa.select(questions).where(questions.c.room == code, questions.c.key == question_key)
            ).first()
            if question is None or room.current != question_key:
                raise ClassError(N_("This question is not open in the room."))
            if question.state != OPEN:
                raise ClassError(
                    N_("The answer has been revealed: no more answers to this question.")
                    if question.state == REVEALED
                    else N_("The teacher has closed this question.")
                )
            if question.kind == CHOICE:
                number = float(_choice_index(number, question.n_options))
            else:
                number = _number_in_range(number, question.low, question.high)
            fresh = members.c.window_start <= now - RATE_WINDOW_SECONDS
            count = conn.execute(
                members.update()
                .where(members.c.room == code, members.c.student == student)
                .values(
                    window_count=sa.case((fresh, 1), else_=members.c.window_count + 1),
                    window_start=sa.case((fresh, now), else_=members.c.window_start),
                    last_seen=now,
                )
                .returning(members.c.window_count)
            ).scalar()
            if count is None:
                raise ClassError(N_("You are not in this room: open the join link again."))
            if count > RATE_LIMIT:
                raise ClassError(
                    N_("Too many answers at once: wait {seconds:.0f} seconds, then answer again."),
                    seconds=RATE_WINDOW_SECONDS,
                )
            fields = dict(value=number, answered_at=now)
            conn.execute(
                self._insert(answers)
                .values(room=code, question=question_key, student=student, **fields)
                .on_conflict_do_update(index_elements=["room", "question", "student"], set_=fields)
            )
        return number

    # --- counting (tests, benchmarks) ---

    def count_rows(self) -> dict[str, int]:
        """Rows in each table."""
        with self._read() as conn:
            return {
                table.name: conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
                for table in ROOM_TABLES
            }


def _room_column(table: sa.Table) -> str:
    return "code" if table is rooms else "room"


def _sqlite_engine(url, pool_size: int, max_overflow: int) -> sa.Engine:
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        raise ValueError("the class store needs an SQLite file (sqlite:///path), shared by every session.")
    Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(
        url,
        pool_size=pool_size,
        max_overflow=max_overflow,
        connect_args={"timeout": 30.0, "check_same_thread": False},
    )

    @sa.event.listens_for(engine, "connect")
    def _configure(dbapi_connection, _record):
        # SQLAlchemy emits BEGIN itself (below); WAL lets readers run beside the one writer
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 30000")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql(
            "BEGIN IMMEDIATE" if conn.get_execution_options().get("rbfviz_write") else "BEGIN"
        )

    return engine
