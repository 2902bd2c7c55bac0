"""ui/settings.py: every RBFVIZ_* variable the app reads, its default, what it allows and the message
for a value it does not; a bad value stops the app with that message, never a traceback; the
operator's page documents exactly these variables."""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hang import HANG_TIMEOUT_S

from ui import settings
from ui.settings import VARIABLE_NAMES, VARIABLES, SettingsError, read

ROOT = Path(__file__).resolve().parents[2]
OPERATOR = ROOT / "docs" / "deploy" / "operator.md"


def problem_of(environ: dict) -> str:
    with pytest.raises(SettingsError) as raised:
        read(environ)
    return str(raised.value)


def test_unset_or_empty_means_every_default():
    for environ in ({}, {name: "" for name in VARIABLE_NAMES}, {name: "  " for name in VARIABLE_NAMES}):
        now = read(environ)
        folder = Path(tempfile.gettempdir()) / "rbfviz"
        assert now.data_dir == folder
        assert now.database_url == f"sqlite:///{folder / 'classroom.sqlite3'}"
        assert now.class_ttl_hours == 24.0
        assert now.public_url is None
        assert now.replica_name  # the host name
        assert now.torch_threads == 1 and now.malloc_tuning is True and now.gc_seconds == 60.0
        assert now.test_hold_rest is None


def test_the_database_is_the_url_else_a_file_in_the_data_folder(tmp_path):
    assert read({"RBFVIZ_DATA_DIR": str(tmp_path)}).database_url == f"sqlite:///{tmp_path}/classroom.sqlite3"
    url = "postgresql://rbfviz:secret@db:5432/rbfviz"
    assert read({"RBFVIZ_DATABASE_URL": f" {url} ", "RBFVIZ_DATA_DIR": str(tmp_path)}).database_url == url
    assert read({"RBFVIZ_DATABASE_URL": "sqlite:////srv/class.sqlite3"}).database_url.endswith(
        "class.sqlite3"
    )


GOOD = [
    ("RBFVIZ_CLASS_TTL_HOURS", "1.5", "class_ttl_hours", 1.5),
    (
        "RBFVIZ_PUBLIC_URL",
        "https://rbfviz.example.edu/class/",
        "public_url",
        "https://rbfviz.example.edu/class",
    ),
    ("RBFVIZ_PUBLIC_URL", "http://10.0.0.5:8080", "public_url", "http://10.0.0.5:8080"),
    ("RBFVIZ_REPLICA_NAME", "app3", "replica_name", "app3"),
    ("RBFVIZ_TORCH_THREADS", "4", "torch_threads", 4),
    ("RBFVIZ_MALLOC_TUNING", "0", "malloc_tuning", False),
    ("RBFVIZ_MALLOC_TUNING", "1", "malloc_tuning", True),
    ("RBFVIZ_GC_SECONDS", "0", "gc_seconds", 0.0),
    ("RBFVIZ_GC_SECONDS", "2.5", "gc_seconds", 2.5),
    ("RBFVIZ_TEST_HOLD_REST", "/tmp/hold", "test_hold_rest", Path("/tmp/hold")),
]


@pytest.mark.parametrize("name, text, field, value", GOOD)
def test_an_allowed_value_is_read(name, text, field, value):
    assert getattr(read({name: text}), field) == value


BAD = [
    ("RBFVIZ_CLASS_TTL_HOURS", ["0", "-3", "nan", "inf", "a day"]),
    (
        "RBFVIZ_PUBLIC_URL",
        ["rbfviz.example.edu", "ftp://host", "https://", "https://host/?room=1", "https://h/#x"],
    ),
    ("RBFVIZ_REPLICA_NAME", ["app 1", "x" * 65, "tab\there"]),
    ("RBFVIZ_TORCH_THREADS", ["0", "-1", "1.5", "two", "257"]),
    ("RBFVIZ_MALLOC_TUNING", ["yes", "2", "true"]),
    ("RBFVIZ_GC_SECONDS", ["-1", "nan", "inf", "every minute"]),
    ("RBFVIZ_DATABASE_URL", ["mysql://x@localhost/db", "not a url", "oracle://u:p@h/db"]),
]


@pytest.mark.parametrize("name, texts", BAD, ids=[name for name, _ in BAD])
def test_a_value_not_allowed_is_named_with_what_is_allowed(name, texts):
    (variable,) = [v for v in VARIABLES if v.name == name]
    for text in texts:
        message = problem_of({name: text})
        assert f"{name} must be {variable.allowed}" in message, message
        if variable.secret:
            assert text not in message and "not shown" in message
        else:
            assert repr(text) in message
        assert "docs/deploy/operator.md" in message


def test_a_database_url_is_never_echoed_it_may_hold_a_password():
    message = problem_of({"RBFVIZ_DATABASE_URL": "mysql://rbfviz:hunter2@db/rbfviz"})
    assert "hunter2" not in message
    assert "hunter2" not in settings.describe(read({"RBFVIZ_DATABASE_URL": "postgresql://u:hunter2@db/x"}))


def test_a_data_folder_that_is_a_file_is_refused(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert "RBFVIZ_DATA_DIR must be a folder path" in problem_of({"RBFVIZ_DATA_DIR": str(a_file)})


def test_every_bad_value_is_listed_in_one_message():
    bad = {"RBFVIZ_TORCH_THREADS": "0", "RBFVIZ_GC_SECONDS": "-1", "RBFVIZ_CLASS_TTL_HOURS": "x"}
    message = problem_of(bad)
    assert message.startswith("The app cannot start: 3 environment variables")
    assert [line.split()[1] for line in message.splitlines() if line.startswith("- ")] == [
        "RBFVIZ_CLASS_TTL_HOURS",
        "RBFVIZ_TORCH_THREADS",
        "RBFVIZ_GC_SECONDS",
    ]


def test_current_reads_the_process_environment_and_follows_a_change(monkeypatch):
    monkeypatch.setenv("RBFVIZ_CLASS_TTL_HOURS", "2")
    assert settings.current().class_ttl_hours == 2.0
    assert settings.current() is settings.current()  # read and checked once
    monkeypatch.setenv("RBFVIZ_CLASS_TTL_HOURS", "3")
    assert settings.current().class_ttl_hours == 3.0
    monkeypatch.setenv("RBFVIZ_CLASS_TTL_HOURS", "never")
    with pytest.raises(SettingsError, match="RBFVIZ_CLASS_TTL_HOURS"):
        settings.current()


def run_python(args: list[str], environ: dict) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir(), "OMP_NUM_THREADS": "1", **environ}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG_TIMEOUT_S
    )


def test_python_m_ui_prints_the_settings_or_stops_with_the_message_and_no_traceback():
    good = run_python(
        ["-m", "ui"], {"RBFVIZ_REPLICA_NAME": "app7", "RBFVIZ_DATABASE_URL": "postgresql://u:pw@h/d"}
    )
    assert good.returncode == 0, good.stderr
    lines = good.stdout.splitlines()
    assert [line.split(" = ")[0] for line in lines] == list(VARIABLE_NAMES)
    assert "RBFVIZ_REPLICA_NAME = app7" in lines and "pw" not in good.stdout
    bad = run_python(["-m", "ui"], {"RBFVIZ_TORCH_THREADS": "many"})
    assert bad.returncode == 2
    assert "RBFVIZ_TORCH_THREADS must be an integer from 1 to 256; it is 'many'." in bad.stderr
    assert "Traceback" not in bad.stderr + bad.stdout


APP_PROBE = """
import json, threading, torch
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=120).run()
print(json.dumps(dict(errors=[e.value for e in at.error], exceptions=[e.value for e in at.exception],
                      titles=[t.value for t in at.title], threads=torch.get_num_threads(),
                      collector=any(t.name == "rbfviz-gc" for t in threading.enumerate()))))
"""


def app_probe(environ: dict) -> dict:
    proc = run_python(["-c", APP_PROBE], environ)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.xdist_group("settings-app-probe")
def test_the_app_shows_a_bad_value_in_place_of_the_page_and_logs_it():
    seen = app_probe({"RBFVIZ_GC_SECONDS": "soon"})
    assert seen["exceptions"] == [] and seen["titles"] == []
    (error,) = seen["errors"]
    assert "RBFVIZ_GC_SECONDS must be a number of seconds >= 0" in error and "'soon'" in error


@pytest.mark.xdist_group("settings-app-probe")
def test_the_app_tunes_its_process_from_the_settings():
    seen = app_probe({"RBFVIZ_TORCH_THREADS": "2", "RBFVIZ_GC_SECONDS": "0"})
    assert seen["errors"] == [] and seen["exceptions"] == [] and seen["titles"]
    assert seen["threads"] == 2 and seen["collector"] is False
    seen = app_probe({})
    assert seen["threads"] == 1 and seen["collector"] is True


OPENMP_PROBE = """
import json, threading
import ui
from sklearn.utils._openmp_helpers import _openmp_effective_n_threads
seen = []
script = threading.Thread(target=lambda: seen.append(_openmp_effective_n_threads()))  # as Streamlit's
script.start()
script.join()
print(json.dumps(seen[0]))
"""


@pytest.mark.xdist_group("settings-app-probe")
def test_the_app_gives_scikit_learns_openmp_the_torch_thread_count_unless_omp_num_threads_is_set():
    def threads(environ: dict) -> int:
        env = {"PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir(), **environ}
        proc = subprocess.run(
            [sys.executable, "-c", OPENMP_PROBE],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=HANG_TIMEOUT_S,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])

    assert threads({}) == 1
    assert threads({"RBFVIZ_TORCH_THREADS": "2"}) == 2
    assert threads({"OMP_NUM_THREADS": "2"}) == 2  # an operator's own setting stands


# --- the operator's page ----------------------------------------------------------------------------


def operator_tables() -> tuple[list[list[str]], list[list[str]]]:
    """(the app's table's rows, HAProxy's and compose's rows), each row its cells."""
    text = OPERATOR.read_text()
    section = text[text.index("## Environment variables") :]
    tables, rows = [], []
    for line in section.splitlines() + [""]:
        if line.startswith("| `"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        elif rows:
            tables.append(rows)
            rows = []
    app, proxy = tables
    return app, proxy


def test_the_operators_page_documents_every_variable_the_app_reads_and_no_other():
    app, _ = operator_tables()
    documented = [re.fullmatch(r"`(RBFVIZ_\w+)`", row[0]).group(1) for row in app]
    assert documented == list(VARIABLE_NAMES)  # the same variables, in the module's order
    for row, variable in zip(app, VARIABLES):
        assert row[2].replace("`", "") == variable.default, (row, variable.default)


def test_every_variable_on_the_operators_page_is_read_by_the_app_or_by_deploy():
    _, proxy = operator_tables()
    deploy = "".join(
        (ROOT / "deploy" / name).read_text() for name in ("haproxy.cfg", "compose.yaml", "static.lua")
    )
    on_page = set(re.findall(r"RBFVIZ_[A-Z0-9_]*[A-Z0-9]", OPERATOR.read_text()))
    harness_only = {"RBFVIZ_REQUIRE_BROWSER", "RBFVIZ_AXE_JS", "RBFVIZ_E2E_TIMEOUT"}  # named as such
    for name in on_page - set(VARIABLE_NAMES) - harness_only:
        assert name in deploy, f"{name} is on the operator's page but nothing in deploy/ reads it"
    for row in proxy:
        for name in re.findall(r"RBFVIZ_\w+", row[0]):
            assert name in deploy, name


def test_run_local_stops_on_a_bad_value_before_it_starts_anything():
    import os
    import shutil

    if shutil.which("haproxy") is None:
        pytest.skip("deploy/run-local needs haproxy (Debian: apt-get install haproxy)")
    proc = run_python(
        [str(ROOT / "deploy" / "run-local"), "--processes", "1", "--port", "1"],
        {"PATH": os.environ["PATH"], "RBFVIZ_CLASS_TTL_HOURS": "a day"},
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "RBFVIZ_CLASS_TTL_HOURS must be a positive number of hours" in proc.stdout
    assert "logs in" not in proc.stdout and "Traceback" not in proc.stdout + proc.stderr
