"""A throw-away PostgreSQL cluster under a temporary folder, from Debian's ``postgresql`` binaries.

For the store's tests, the class benchmark and ``deploy/run-local --database postgres``: ``initdb`` a
new cluster (as the ``postgres`` user when running as root: initdb refuses root), start it on a free
loopback port with its socket in the same folder, and remove everything on ``stop``. Not for
production: trust authentication, fsync off.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from harness.ports import free_port


def find_bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin holding initdb and pg_ctl, or None."""
    found = []
    for path in glob.glob("/usr/lib/postgresql/*/bin"):
        version = Path(path).parent.name
        if version.isdigit() and all(os.access(Path(path) / tool, os.X_OK) for tool in ("initdb", "pg_ctl")):
            found.append((int(version), Path(path)))
    return max(found)[1] if found else None


class ScratchPostgres:
    """``start()`` a new cluster; ``url`` is its SQLAlchemy URL; ``stop()`` stops and deletes it."""

    def __init__(self, bin_dir: Path | None = None, port: int | None = None, max_connections: int = 200):
        self.bin_dir = bin_dir or find_bin_dir()
        if self.bin_dir is None:
            raise FileNotFoundError(
                "Debian's postgresql is not installed (no /usr/lib/postgresql/*/bin/initdb)"
            )
        self.port = port or free_port()
        self.max_connections = max_connections
        self.folder: Path | None = None

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _as_owner(self, *argv: str) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else list(argv)

    def start(self, timeout: float = 60.0) -> "ScratchPostgres":
        self.folder = Path(tempfile.mkdtemp(prefix="rbfviz-pg-"))
        data = self.folder / "data"
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        run = dict(check=True, capture_output=True, text=True, timeout=timeout)
        subprocess.run(
            self._as_owner(
                str(self.bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"
            ),
            **run,
        )
        options = (
            f"-k {self.folder} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off "
            f"-c max_connections={self.max_connections}"
        )
        subprocess.run(
            self._as_owner(
                str(self.bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(self.folder / "log"),
                "-w",
                "-t",
                str(int(timeout)),
                "start",
            ),
            **run,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:  # pg_ctl -w waited already; make sure TCP answers too
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"PostgreSQL did not listen on 127.0.0.1:{self.port} within {timeout} s")

    def stop(self) -> None:
        if self.folder is None:
            return
        data = self.folder / "data"
        if data.exists():
            subprocess.run(
                self._as_owner(str(self.bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"),
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None

    def __enter__(self) -> "ScratchPostgres":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
