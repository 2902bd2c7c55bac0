"""The class-session store (rbfviz.classroom): the same test functions on an SQLite file and on
PostgreSQL (a throw-away Debian cluster started once per test session).

Outside CI the PostgreSQL half is skipped, with the reason, where Debian's postgresql is not installed;
with CI=true it fails instead (.ci/run installs it)."""

import math
import threading
import time

import pytest
import sqlalchemy as sa
from hang import HANG_TIMEOUT_S

from harness.scratch_pg import ScratchPostgres, find_bin_dir
from harness.settings import in_ci
from rbfviz.classroom import store as store_module
from rbfviz.classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    RATE_LIMIT,
    RATE_WINDOW_SECONDS,
    SECRET_LENGTH,
    ClassError,
    QuestionSpec,
    Store,
    format_code,
    new_code,
    new_secret,
    new_student_id,
    normalise_code,
    normalise_secret,
)

NUMBER = QuestionSpec("anneal", "number", answer=1.25, low=0.0, high=5.0)
CHOICE = QuestionSpec("voronoi", "choice", answer=1, n_options=3)
SQL_LIKE = ("1; DROP TABLE rbfviz_answers; --", "' OR '1'='1", "0); DELETE FROM rbfviz_rooms; --")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1.8e9):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="session")
def postgres_url():
    if find_bin_dir() is None:
        reason = "Debian's postgresql is not installed (apt-get install postgresql); .ci/run installs it"
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    cluster = ScratchPostgres().start()
    yield cluster.url
    cluster.stop()


# the PostgreSQL tests share the session's cluster: on one pytest-xdist worker, so it starts once
@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.xdist_group("postgresql"))])
def make_store(request, tmp_path):
    """A factory of Stores on one empty database: an SQLite file, or the session's PostgreSQL cluster
    emptied first. Stores made with the same factory share the database (a restarted app, a replica)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_url")
    made = []

    def make(**kwargs) -> Store:
        store = Store(url, **kwargs)
        made.append(store)
        return store

    with make().engine.begin() as conn:
        for table in store_module.ROOM_TABLES:
            conn.execute(table.delete())
    yield make
    for store in made:
        store.dispose()


def room_with_question(store: Store, spec: QuestionSpec = NUMBER, students: int = 0):
    room = store.create_room()
    store.open_question(room.code, room.secret, spec)
    seats = [new_student_id() for _ in range(students)]
    for seat in seats:
        store.join(room.code, seat)
    return room, seats


# --- codes ---------------------------------------------------------------------------------------------


def test_codes_have_40_bits_from_an_alphabet_without_look_alikes():
    assert len(set(CODE_ALPHABET)) == 32 and not set("ILOU") & set(CODE_ALPHABET)
    assert CODE_LENGTH * math.log2(len(CODE_ALPHABET)) >= 40
    codes = {new_code() for _ in range(2000)}
    assert len(codes) == 2000  # no repeats among 2,000 draws from 2^40
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)
    # every symbol turns up in every position (uniform draws: each has probability 1/32)
    for position in range(CODE_LENGTH):
        assert {c[position] for c in codes} == set(CODE_ALPHABET)


def test_a_typed_code_is_read_as_the_teacher_meant():
    code = "7KQ2XM0D"
    assert format_code(code) == "7KQ2-XM0D"
    for typed in ("7kq2-xm0d", " 7KQ2 XMOD ", "7KQ2-XM0D", "7kq2xmod"):
        assert normalise_code(typed) == code
    assert normalise_code("7KQ2-XM1D") == normalise_code("7kq2-xmld") == normalise_code("7KQ2XMID")
    for bad in ("", "7KQ2XM0", "7KQ2XM0DD", "7KQ2XM0U", "x" * 10_000, None, 12345678, *SQL_LIKE):
        assert normalise_code(bad) is None


def test_the_store_runs_on_an_sqlite_file_or_postgresql_only():
    with pytest.raises(ValueError, match="SQLite file"):
        Store("sqlite://")
    with pytest.raises(ValueError, match="sqlite or postgresql"):
        Store("mysql://x@localhost/db")


def test_question_specs_are_checked():
    for bad in (
        dict(key="q", kind="choice", answer=3, n_options=3),
        dict(key="q", kind="choice", answer=0, n_options=1),
        dict(key="q", kind="number", answer=6.0, low=0.0, high=5.0),
        dict(key="q", kind="number", answer=1.0, low=0.0, high=math.inf),
        dict(key="q", kind="number", answer=1.0, low=2.0, high=1.0),
        dict(key="q", kind="poll", answer=0),
        dict(key="Q; DROP", kind="choice", answer=0, n_options=2),
    ):
        with pytest.raises(ValueError):
            QuestionSpec(**bad)


# --- answers, replacement, reveal ---------------------------------------------------------------------


def test_answers_are_counted_and_a_change_replaces(make_store):
    store = make_store()
    room, (a, b, c) = room_with_question(store, NUMBER, students=3)
    assert store.submit(room.code, a, "anneal", 1.0) == 1.0
    assert store.submit(room.code, b, "anneal", 2) == 2.0
    store.submit(room.code, a, "anneal", 1.3)  # a changes their mind
    tally = store.tally(room.code, room.secret)
    assert (tally.joined, tally.present, tally.answered) == (3, 3, 2)
    assert sorted(tally.values) == [1.3, 2.0]
    assert tally.answer is None and tally.state == "open"
    assert store.view(room.code, a).mine == 1.3 and store.view(room.code, c).mine is None
    assert store.count_rows()["rbfviz_answers"] == 2
    # the code as a student types it
    store.submit(format_code(room.code).lower(), c, "anneal", 0.0)
    assert store.tally(room.code, room.secret).answered == 3


def test_reveal_reaches_students_and_ends_answering(make_store):
    store = make_store()
    room, (a, b) = room_with_question(store, CHOICE, students=2)
    store.submit(room.code, a, "voronoi", 1)
    store.submit(room.code, b, "voronoi", 2)
    before = store.view(room.code, b)
    assert (before.state, before.answer, before.kind, before.n_options) == ("open", None, "choice", 3)
    store.reveal(room.code, room.secret)
    after = store.view(room.code, b)
    assert (after.state, after.answer, after.mine) == ("revealed", 1.0, 2.0)
    assert store.tally(room.code, room.secret).answer == 1.0
    with pytest.raises(ClassError, match="revealed"):
        store.submit(room.code, b, "voronoi", 1)
    assert sorted(store.tally(room.code, room.secret).values) == [1.0, 2.0]
    # the next question closes nothing but itself opens; the old question's answers stay for the CSV
    store.open_question(room.code, room.secret, NUMBER)
    assert store.view(room.code, a).question == "anneal"
    with pytest.raises(ClassError, match="not open"):
        store.submit(room.code, a, "voronoi", 0)
    store.submit(room.code, a, "anneal", 4.5)
    store.close_question(room.code, room.secret)
    with pytest.raises(ClassError, match="closed"):
        store.submit(room.code, a, "anneal", 4.0)
    rows = store.answer_rows(room.code, room.secret)
    assert [(key, value) for key, value, _ in rows] == [("anneal", 4.5), ("voronoi", 1.0), ("voronoi", 2.0)]
    assert all(delay >= 0 for _, _, delay in rows)


def test_answers_survive_a_restart_and_are_shared_between_processes(make_store):
    first = make_store()
    room, (a,) = room_with_question(first, NUMBER, students=1)
    first.submit(room.code, a, "anneal", 3.0)
    first.dispose()
    second = make_store()  # the app restarted, or another replica
    assert second.tally(room.code, room.secret).values == (3.0,)
    second.submit(room.code, a, "anneal", 2.5)
    assert second.tally(room.code, room.secret).values == (2.5,)


def test_only_the_teacher_controls_the_room(make_store):
    store = make_store()
    room, (a,) = room_with_question(store, CHOICE, students=1)
    other = store.create_room()
    for secret in ("", a, other.secret, room.secret[:-1], None, SQL_LIKE[1]):
        for action in (store.reveal, store.close_question, store.tally, store.answer_rows, store.clear_room):
            with pytest.raises(ClassError, match="Only the teacher"):
                action(room.code, secret)
        with pytest.raises(ClassError, match="Only the teacher"):
            store.open_question(room.code, secret, NUMBER)
    assert store.view(room.code, a).state == "open"


# --- the teacher comes back ---------------------------------------------------------------------------


def test_a_secret_has_80_bits_and_is_read_as_typed():
    assert SECRET_LENGTH * math.log2(len(CODE_ALPHABET)) >= 80
    secrets_ = {new_secret() for _ in range(2000)}
    assert len(secrets_) == 2000 and all(set(s) <= set(CODE_ALPHABET) for s in secrets_)
    for position in range(SECRET_LENGTH):
        assert {s[position] for s in secrets_} == set(CODE_ALPHABET)
    secret = "7KQ2XM0D4H8RB2NC"
    assert format_code(secret) == "7KQ2-XM0D-4H8R-B2NC"
    for typed in ("7kq2-xm0d-4h8r-b2nc", " 7KQ2 XMOD 4H8R B2NC ", "7kq2xmod4h8rb2nc"):
        assert normalise_secret(typed) == secret
    for bad in ("", secret[:-1], secret + "0", "7KQ2XM0D", None, new_student_id(), *SQL_LIKE):
        assert normalise_secret(bad) is None


def test_the_teacher_resumes_with_the_secret_only(make_store):
    store = make_store()
    room, (a,) = room_with_question(store, CHOICE, students=1)
    store.submit(room.code, a, "voronoi", 2)
    other = store.create_room()
    back = store.resume(format_code(room.secret).lower())  # as typed from a note
    assert (back.code, back.secret, back.expires_at) == (room.code, room.secret, room.expires_at)
    assert store.resume(other.secret).code == other.code
    tally = store.tally(back.code, back.secret)
    assert (tally.question, tally.state, tally.values) == ("voronoi", "open", (2.0,))
    store.reveal(back.code, back.secret)  # every control works with what resume returned
    assert store.view(room.code, a).answer == 1.0
    before = store.count_rows()
    for wrong in (None, "", room.code, a, room.secret[:-1], new_secret(), *SQL_LIKE):
        with pytest.raises(ClassError, match="resume code"):
            store.resume(wrong)
    assert store.count_rows() == before
    with store.engine.connect() as conn:  # the secret itself is nowhere in the database
        stored = repr(conn.execute(store_module.rooms.select()).all())
    assert room.code in stored and room.secret not in stored and other.secret not in stored


def test_resuming_survives_a_restart_and_reaches_another_replica(make_store):
    first = make_store()
    room, (a,) = room_with_question(first, NUMBER, students=1)
    first.submit(room.code, a, "anneal", 3.0)
    first.dispose()  # the teacher's replica died, or the app restarted
    second = make_store()
    back = second.resume(room.secret)
    assert back.code == room.code
    assert second.tally(back.code, back.secret).values == (3.0,)


def test_an_ended_or_expired_room_cannot_be_resumed(make_store):
    clock = Clock()
    store = make_store(ttl_seconds=3600, clock=clock)
    ended, _ = room_with_question(store, NUMBER)
    store.clear_room(ended.code, ended.secret)
    with pytest.raises(ClassError, match="No open class room"):
        store.resume(ended.secret)
    room, _ = room_with_question(store, NUMBER)
    clock.now += 3599
    assert store.resume(room.secret).code == room.code
    clock.now += 1
    with pytest.raises(ClassError, match="No open class room"):
        store.resume(room.secret)


def test_an_older_database_gets_the_secret_index(make_store):
    store = make_store()
    index = next(iter(store_module.rooms.indexes))
    with store.engine.begin() as conn:
        index.drop(conn)
    store.dispose()
    again = make_store()  # the schema step adds the index to the existing table
    names = {i["name"] for i in sa.inspect(again.engine).get_indexes("rbfviz_rooms")}
    assert index.name in names
    room = again.create_room()
    assert again.resume(room.secret).code == room.code


# --- expiry and clearing ------------------------------------------------------------------------------


def test_rooms_expire_after_their_time_with_everything_in_them(make_store):
    clock = Clock()
    store = make_store(ttl_seconds=3600, clock=clock)
    room, (a,) = room_with_question(store, NUMBER, students=1)
    store.submit(room.code, a, "anneal", 1.0)
    clock.now += 3599
    assert store.tally(room.code, room.secret).answered == 1
    clock.now += 1
    for call in (lambda: store.view(room.code, a), lambda: store.submit(room.code, a, "anneal", 1.0)):
        with pytest.raises(ClassError, match="No class room"):
            call()
    with pytest.raises(ClassError, match="No class room"):
        store.tally(room.code, room.secret)
    assert store.purge_expired() == 1
    assert set(store.count_rows().values()) == {0}
    assert Store.__init__.__kwdefaults__["ttl_seconds"] == 24 * 3600


def test_a_new_room_sweeps_out_expired_ones(make_store):
    clock = Clock()
    store = make_store(ttl_seconds=60, clock=clock)
    room_with_question(store, NUMBER, students=2)
    clock.now += 61
    store.create_room()
    assert store.count_rows() == {
        "rbfviz_answers": 0,
        "rbfviz_members": 0,
        "rbfviz_questions": 0,
        "rbfviz_rooms": 1,
    }


def test_the_teacher_clears_a_room_at_once(make_store):
    store = make_store()
    room, seats = room_with_question(store, NUMBER, students=3)
    kept, (k,) = room_with_question(store, CHOICE, students=1)
    for seat in seats:
        store.submit(room.code, seat, "anneal", 2.0)
    store.submit(kept.code, k, "voronoi", 0)
    store.clear_room(room.code, room.secret)
    assert store.count_rows() == {
        "rbfviz_answers": 1,
        "rbfviz_members": 1,
        "rbfviz_questions": 1,
        "rbfviz_rooms": 1,
    }
    with pytest.raises(ClassError, match="No class room"):
        store.join(room.code, seats[0])
    assert store.tally(kept.code, kept.secret).values == (0.0,)


# --- concurrency --------------------------------------------------------------------------------------


def test_200_threads_leave_one_row_per_student(make_store):
    """100 students, each answering from two threads at once with different values: 100 rows, each
    holding one of its student's two values; the tally counts every one."""
    store = make_store(pool_size=10, max_overflow=20)
    room, seats = room_with_question(store, NUMBER, students=100)
    start = threading.Barrier(200)
    acknowledged: dict[tuple[str, int], float] = {}
    errors = []

    def answer(seat: str, which: int) -> None:
        try:
            start.wait(timeout=HANG_TIMEOUT_S)
            acknowledged[seat, which] = store.submit(
                room.code, seat, "anneal", 1.0 + which + seats.index(seat) / 100
            )
        except Exception as exc:  # collected: the assertion below names it
            errors.append(repr(exc))

    threads = [threading.Thread(target=answer, args=(s, w)) for s in seats for w in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=HANG_TIMEOUT_S)
    assert not any(thread.is_alive() for thread in threads), "a thread still runs after the hang bound"
    assert not errors, errors[:3]
    assert len(acknowledged) == 200
    assert store.count_rows()["rbfviz_answers"] == 100
    tally = store.tally(room.code, room.secret)
    assert tally.answered == 100
    for seat in seats:
        assert store.view(room.code, seat).mine in (acknowledged[seat, 0], acknowledged[seat, 1])


def test_replicas_starting_together_create_the_schema_once(make_store):
    stores, errors = [], []

    def start():
        try:
            stores.append(make_store())
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=HANG_TIMEOUT_S)
    assert not any(thread.is_alive() for thread in threads), "a thread still runs after the hang bound"
    assert not errors and len(stores) == 4


# --- bad input: a clear message, nothing written ------------------------------------------------------


@pytest.mark.parametrize(
    "value, message",
    [
        (math.nan, "finite"),
        (math.inf, "finite"),
        (-math.inf, "finite"),
        (1e308, "from 0 to 5"),
        (-1.0, "from 0 to 5"),
        (-1e-300, "from 0 to 5"),
        (5.000001, "from 0 to 5"),
        (None, "must be a number"),
        (True, "must be a number"),
        ("2.5", "must be a number"),
        ([1.0], "must be a number"),
        *[(text, "must be a number") for text in SQL_LIKE],
    ],
)
def test_bad_numbers_are_refused_and_leave_no_row(make_store, value, message):
    store = make_store()
    room, (a,) = room_with_question(store, NUMBER, students=1)
    before = store.count_rows()
    with pytest.raises(ClassError, match=message):
        store.submit(room.code, a, "anneal", value)
    assert store.count_rows() == before and before["rbfviz_answers"] == 0


@pytest.mark.parametrize("value", [3, -1, 1.5, 1e308, math.nan, -math.inf, "1", SQL_LIKE[0], False])
def test_bad_options_are_refused_and_leave_no_row(make_store, value):
    store = make_store()
    room, (a,) = room_with_question(store, CHOICE, students=1)
    with pytest.raises(ClassError, match="options|number"):
        store.submit(room.code, a, "voronoi", value)
    assert store.count_rows()["rbfviz_answers"] == 0
    store.submit(room.code, a, "voronoi", 2.0)  # an integral float is the option's index
    assert store.view(room.code, a).mine == 2.0


def test_unknown_rooms_seats_and_questions_are_refused(make_store):
    store = make_store()
    room, (a,) = room_with_question(store, NUMBER, students=1)
    stranger = new_student_id()
    before = store.count_rows()
    unknown_code = next(c for c in iter(new_code, None) if c != room.code)
    cases = [
        (lambda: store.join(unknown_code, stranger), "No class room"),
        (lambda: store.submit(unknown_code, a, "anneal", 1.0), "No class room"),
        (lambda: store.view(unknown_code, a), "No class room"),
        (lambda: store.submit(room.code, stranger, "anneal", 1.0), "not in this room"),
        (lambda: store.view(room.code, stranger), "not in this room"),
        (lambda: store.submit(room.code, a, "voronoi", 1.0), "not open"),
        (lambda: store.submit(room.code, a, "Anneal", 1.0), "not open"),
        (lambda: store.tally(unknown_code, room.secret), "No class room"),
    ]
    for text in SQL_LIKE:
        cases += [
            (lambda t=text: store.join(t, stranger), "No class room"),
            (lambda t=text: store.join(room.code, t), "seat is not valid"),
            (lambda t=text: store.submit(room.code, a, t, 1.0), "not open"),
            (lambda t=text: store.submit(room.code, t, "anneal", 1.0), "seat is not valid"),
        ]
    for call, message in cases:
        with pytest.raises(ClassError, match=message):
            call()
    assert store.count_rows() == before
    fresh = store.create_room()  # no question asked yet
    store.join(fresh.code, a)
    with pytest.raises(ClassError, match="not open"):
        store.submit(fresh.code, a, "anneal", 1.0)
    with pytest.raises(ClassError, match="No question"):
        store.reveal(fresh.code, fresh.secret)


def test_a_flood_from_one_session_is_refused_after_the_limit(make_store):
    """1,000 submissions from one student within one second: RATE_LIMIT are taken (each replacing the
    last), the rest refused with a message; one row. After the window the student may answer again."""
    clock = Clock()
    store = make_store(clock=clock)
    room, (a, b) = room_with_question(store, NUMBER, students=2)
    taken, refused = [], []
    t0 = clock.now
    for i in range(1000):
        clock.now = t0 + i / 1000
        try:
            taken.append(store.submit(room.code, a, "anneal", (i % 50) / 10))
        except ClassError as exc:
            refused.append(str(exc))
    assert len(taken) == RATE_LIMIT and len(refused) == 1000 - RATE_LIMIT
    assert set(refused) == {
        f"Too many answers at once: wait {RATE_WINDOW_SECONDS:.0f} seconds, then answer again."
    }
    assert store.count_rows()["rbfviz_answers"] == 1
    assert store.view(room.code, a).mine == taken[-1]
    store.submit(room.code, b, "anneal", 4.0)  # another student is not held up
    clock.now = t0 + RATE_WINDOW_SECONDS + 0.001
    assert store.submit(room.code, a, "anneal", 0.5) == 0.5
    assert sorted(store.tally(room.code, room.secret).values) == [0.5, 4.0]


def test_guessed_codes_find_no_room(make_store):
    """200,000 (room, guess) pairs, as many as 10,000 guesses against 20 rooms, at a hundredth of the
    joins: 2,000 live rooms (20 from create_room, the rest written in one statement with codes from the
    same new_code, none drawn twice) and 100 guessed codes. No guess finds a room or leaves a row; a
    code of the written rooms does let a student in, so every guess was tried against all 2,000."""
    store = make_store()
    made = {store.create_room().code for _ in range(20)}
    written = [new_code() for _ in range(1980)]
    rooms = made | set(written)
    assert len(rooms) == 2000, "new_code drew a code twice"
    now = store.clock()
    row = dict(teacher_hash="0" * 64, created_at=now, expires_at=now + store.ttl_seconds, current=None)
    with store.engine.begin() as conn:
        conn.execute(store_module.rooms.insert(), [dict(row, code=code) for code in written])
    assert store.count_rows()["rbfviz_rooms"] == 2000
    guesser = new_student_id()
    found = 0
    t0 = time.monotonic()
    for _ in range(100):
        guess = new_code()
        try:
            store.join(guess, guesser)
            found += 1
        except ClassError:
            pass
    assert found == 0, f"{found} guesses hit one of {len(rooms)} rooms"
    assert store.count_rows()["rbfviz_members"] == 0
    assert time.monotonic() - t0 < HANG_TIMEOUT_S
    store.join(written[-1], guesser)
    assert store.count_rows()["rbfviz_members"] == 1
