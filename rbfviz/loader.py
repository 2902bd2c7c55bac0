"""Read a user's CSV file of points, and write points with their responsibilities back out.

``load_points(data)`` turns the raw bytes of an uploaded file into the (n, 2) float64 array the
app clusters, or raises ``DataError`` (a ``ValueError``) whose message tells a student what is
wrong, where (line and column), and what to do. Any bytes give one of those two outcomes.

How a file is read, in order:

1. Size: at most ``MAX_BYTES`` (5 MB), checked before anything else.
2. Text: UTF-8, with or without a byte-order mark. Excel workbooks, UTF-16 and other binary or
   non-UTF-8 files are rejected with a hint to "Save As → CSV UTF-8".
3. Delimiter: comma, semicolon or tab, chosen from the first rows: the one that splits them into
   the same number (≥ 2) of fields, then the one that makes the most fields numbers. With a
   semicolon or tab delimiter a decimal comma (``1,5``) is read as ``1.5``.
4. Rows: blank lines are skipped (at most as many as the row limit); every row must have as many
   values as the first row (empty values at the end of a longer row are ignored). At most
   ``MAX_ROWS`` (20,000) points, ``MAX_COLUMNS`` columns and ``MAX_LINE_CHARS`` characters a line.
5. Header: optional. The first row is column names when it has a non-number in a column whose
   other rows are numbers (so a header-less file with a text column, like iris with its species,
   is still read as data). Without a header the columns are named x, y, x3, x4, ...
6. Columns: a column is numeric when at least half of its non-empty values are numbers; other columns
   (labels, names) are ignored and listed in the result. Every value in a numeric column must then be
   a finite number: text, empty cells, NaN and infinity are errors naming the first bad line.
7. The plane: two numeric columns are used as they are; with more, the caller names two
   (``columns=("a", "b")``) or, by default, the data are projected onto their first two principal
   components (PCA on the raw, unscaled values).

``points_to_csv`` writes points and responsibilities (columns x, y, r_0, ..., label) that
``load_points(..., columns=("x", "y"))`` reads back exactly; ``csv_safe`` neutralises text cells
a spreadsheet would run as a formula (CWE-1236).

Nothing here evaluates or unpickles anything from the file.
"""

from __future__ import annotations

import csv
import io
import math
import re
from array import array
from dataclasses import dataclass

import numpy as np
from sklearn.decomposition import PCA

from .i18n import ENGLISH, N_, Invalid, Translator
from .validate import check_int, check_points

MAX_BYTES = 5 * 1024 * 1024
MAX_ROWS = 20_000
MAX_COLUMNS = 1_000
MAX_LINE_CHARS = 100_000  # one line of a file; also keeps a single parsed row small in memory
DELIMITERS = (",", ";", "\t")  # order breaks ties when the first rows fit several equally well
PROJECTIONS = ("pca", None)

_SNIFF_CHARS = 2 * MAX_LINE_CHARS + 2  # holds the first row unless it is too long
_SNIFF_ROWS = 50
_BLANK_CELL = re.compile(r"[\s,;]*")  # a line of only spaces and delimiters is a blank line
_DECIMAL_COMMA = re.compile(r"\s*[+-]?\d+,\d+(?:[eE][+-]?\d+)?\s*")

# Status of one cell of the table.
_NUMBER, _EMPTY, _TEXT, _NOT_FINITE = 0, 1, 2, 3

# The messages a reader sees, in the catalogs (rbfviz.i18n): shown in the app with explain(error, tr).
_NO_DATA = N_(
    "The file has no data: it contains only blank lines or empty values. "
    "Upload a CSV file with two columns of numbers, x and y."
)
_TOO_CLOSE = N_(
    "The points are too close together to compute their principal components. "
    "Rescale the data or pick two columns."
)
_ROW_WIDTH = {  # a row with another number of values, by the file's delimiter
    ",": N_(
        "Line {line} has {count} value(s) but line {first_line} has {width}. Every row needs the same number "
        "of values, separated by the same delimiter (comma)."
    ),
    ";": N_(
        "Line {line} has {count} value(s) but line {first_line} has {width}. Every row needs the same number "
        "of values, separated by the same delimiter (semicolon)."
    ),
    "\t": N_(
        "Line {line} has {count} value(s) but line {first_line} has {width}. Every row needs the same number "
        "of values, separated by the same delimiter (tab)."
    ),
}
_SEPARATED_BY = {";": N_("Values are separated by semicolons."), "\t": N_("Values are separated by tabs.")}


class DataError(Invalid):
    """An uploaded file cannot be used; the message says what is wrong, where, and what to do (a
    ValueError, told in the reader's language by rbfviz.i18n.explain)."""


@dataclass(frozen=True, eq=False)
class LoadedPoints:
    """The points read from a file, and how they were read.

    X                  (n, 2) float64, read-only: the points to cluster.
    column_names       the names of X's two columns: the two file columns used, or ("PC1", "PC2").
    projection         "columns" (two file columns used directly) or "pca" (first two principal
                       components of all numeric columns).
    numeric_columns    every numeric column of the file, in file order (the choices for ``columns``).
    ignored_columns    columns that are not numeric (text labels, empty columns), in file order.
    explained_variance for "pca": the fraction of the total variance on PC1 and on PC2; else None.
    n_rows             the number of points, X.shape[0].
    delimiter          ",", ";" or "\\t".
    has_header         whether the first row was read as column names.
    notes              short sentences for the user about choices made while reading the file (English);
                       ``notes_in(tr)`` in tr's language.
    note_messages      the same as (catalog message, fields) pairs.
    """

    X: np.ndarray
    column_names: tuple[str, str]
    projection: str
    numeric_columns: tuple[str, ...]
    ignored_columns: tuple[str, ...]
    explained_variance: tuple[float, float] | None
    n_rows: int
    delimiter: str
    has_header: bool
    notes: tuple[str, ...]
    note_messages: tuple[tuple[str, dict], ...] = ()

    def notes_in(self, tr: Translator = ENGLISH) -> tuple[str, ...]:
        """``notes`` in ``tr``'s language."""
        return tuple(tr(message, **fields) for message, fields in self.note_messages)


def load_points(
    data, columns=None, project="pca", k=None, *, max_rows: int = MAX_ROWS, max_bytes: int = MAX_BYTES
) -> LoadedPoints:
    """Parse and validate an uploaded CSV file of points.

    data      the file's raw bytes (bytes, bytearray or memoryview), e.g. ``uploaded.getvalue()``.
    columns   None, or the names of two numeric columns to use as x and y.
    project   what to do with more than two numeric columns when ``columns`` is None: "pca"
              (default) projects onto the first two principal components; None raises DataError
              asking for two columns. Ignored when ``columns`` is given.
    k         if given, the file must have at least k points.
    max_rows, max_bytes   the limits (default 20,000 points and 5 MB).

    Returns a ``LoadedPoints``; raises ``DataError`` for any file that cannot be used, and
    ``TypeError``/``ValueError`` only for wrong arguments from the calling code.
    """
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise TypeError(
            f"load_points expects the file's bytes (e.g. uploaded_file.getvalue()), got "
            f"{type(data).__name__}."
        )
    if project not in PROJECTIONS:
        raise ValueError(f"project={project!r} is not allowed; use 'pca' or None.")
    max_rows = check_int(max_rows, "max_rows", 1)
    max_bytes = check_int(max_bytes, "max_bytes", 1)
    if k is not None:
        k = check_int(k, "k", 1)
    columns = _check_column_pick(columns)

    text = _decode(data, max_bytes)
    delimiter = _sniff_delimiter(text)
    table = _read_table(text, delimiter, max_rows)
    used, projection = _choose_columns(table, columns, project)
    _check_cells(table, used)
    A = table.values[:, used]
    _check_usable(A, table, used, projection, k)
    if projection == "pca":
        X, explained = _pca_2d(A)
        names = ("PC1", "PC2")
    else:
        X, explained = np.array(A, dtype=np.float64, order="C"), None
        names = (table.names[used[0]], table.names[used[1]])

    notes = list(table.notes)
    if projection == "pca":
        notes.append(
            _note(
                N_(
                    "The file has {count} numeric columns; the plot shows their first two principal "
                    "components, which carry {first:.0%} and {second:.0%} of the variance."
                ),
                count=len(table.numeric),
                first=explained[0],
                second=explained[1],
            )
        )
    if not np.isfinite(X).all() or (X == X[0]).all():  # projection of points a few ulps apart
        raise DataError(_TOO_CLOSE)
    _check_core_limits(X)
    X.flags.writeable = False
    return LoadedPoints(
        X=X,
        column_names=names,
        projection=projection,
        numeric_columns=tuple(table.names[j] for j in table.numeric),
        ignored_columns=tuple(table.names[j] for j in table.ignored),
        explained_variance=explained,
        n_rows=X.shape[0],
        delimiter=delimiter,
        has_header=table.has_header,
        notes=tuple(ENGLISH(message, **fields) for message, fields in notes),
        note_messages=tuple(notes),
    )


def _note(message: str, /, **fields) -> tuple[str, dict]:
    """A note for the reader: its catalog message (marked N_ where written) and fields."""
    return message, fields


# --- 1-2. bytes to text -------------------------------------------------------------------------


def _decode(data: bytes, max_bytes: int) -> str:
    if len(data) > max_bytes:
        raise DataError(
            "The file is too large: {size:.3g} MB ({size_bytes:,} bytes); the limit is {limit:.3g} MB "
            "({limit_bytes:,} bytes). Upload fewer points (a random sample keeps the shape of the data).",
            size=len(data) / 2**20,
            size_bytes=len(data),
            limit=max_bytes / 2**20,
            limit_bytes=max_bytes,
        )
    if not data:
        raise DataError("The file is empty. Upload a CSV file with two columns of numbers, x and y.")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(
            "The file is UTF-16 text, but CSV files must be UTF-8. Save it as CSV (in Excel: File → Save "
            'As → "CSV UTF-8 (comma delimited)") and upload that file.'
        )
    if data.startswith(b"PK\x03\x04"):
        raise DataError(
            "This is an Excel workbook (.xlsx) or another zip file, not a CSV file. Save it as CSV (in "
            'Excel: File → Save As → "CSV UTF-8 (comma delimited)") and upload that file.'
        )
    if data.startswith(b"\xd0\xcf\x11\xe0"):
        raise DataError(
            "This is an old Excel workbook (.xls), not a CSV file. Save it as CSV (in Excel: File → Save "
            'As → "CSV UTF-8 (comma delimited)") and upload that file.'
        )
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise DataError(
            "The file contains binary data (a zero byte on line {line}); it is not a CSV text file. Save it "
            'as CSV (in Excel: File → Save As → "CSV UTF-8 (comma delimited)") and upload that file.',
            line=line,
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise DataError(
            "The file is not UTF-8 text: byte 0x{byte:02X} on line {line} cannot be read (often an accented "
            'letter saved in another encoding). Save it as CSV (in Excel: File → Save As → "CSV UTF-8 '
            '(comma delimited)") and upload that file.',
            byte=data[err.start],
            line=line,
        ) from None
    text = text.lstrip("\ufeff")  # some tools write the byte-order mark twice
    if not text.strip():
        raise DataError(_NO_DATA)
    return text


# --- 3. delimiter -------------------------------------------------------------------------------


def _sniff_delimiter(text: str) -> str:
    """The delimiter that splits the first rows most consistently into >= 2 fields, most of them numbers."""
    text = text.lstrip()  # leading blank lines (line numbers do not matter here)
    sample = text[:_SNIFF_CHARS]
    truncated = len(text) > len(sample)
    if truncated:  # end the sample at a line end (if a line is too long, keep it to report)
        end = max(sample.rfind("\n"), sample.rfind("\r"))
        sample = sample[: end + 1] if end >= 0 else sample
    best, best_score, unreadable, blank = None, None, False, True
    for rank, delimiter in enumerate(DELIMITERS):
        rows, broken = _sample_rows(sample, delimiter)
        unreadable |= broken
        if not rows:
            continue
        blank = False
        counts = [len(row) for row in rows]
        width = max(set(counts), key=lambda c: (counts.count(c), c))
        if width < 2:
            continue
        consistency = counts.count(width) / len(counts)
        cells = [cell for row in rows for cell in row]
        numeric = sum(
            _parse_cell(cell, delimiter != ",")[0] in (_NUMBER, _NOT_FINITE) for cell in cells
        ) / len(cells)
        score = (consistency, numeric, -rank)
        if best_score is None or score > best_score:
            best, best_score = delimiter, score
    if best is not None:
        return best
    if unreadable or (blank and truncated):
        return DELIMITERS[0]  # broken quoting, or data only after many empty rows: the full read tells
    if blank:
        raise DataError(_NO_DATA)
    _raise_single_column(sample)


def _is_blank(row: list[str]) -> bool:
    return not row or all(_BLANK_CELL.fullmatch(cell) for cell in row)


def _sample_rows(sample: str, delimiter: str) -> tuple[list[list[str]], bool]:
    """Up to _SNIFF_ROWS non-blank rows of the sample, and whether its quoting broke the CSV reader."""
    rows = []
    reader = csv.reader(_checked_lines(sample), delimiter=delimiter, skipinitialspace=True, strict=True)
    try:
        for row in reader:
            if not _is_blank(row):
                rows.append(row)
                if len(rows) == _SNIFF_ROWS:
                    break
    except (csv.Error, DataError):  # broken quoting or a too long line: the full read names the line
        return rows, True
    return rows, False


def _raise_single_column(sample: str):
    lines = [line for line in sample.splitlines() if line.strip()][:_SNIFF_ROWS]
    spaced = lines and all(len(line.split()) >= 2 for line in lines[1:] or lines)
    if spaced:
        raise DataError(
            "The file has only one column. Each point needs two numbers, x and y, on one line, separated by "
            "a comma, a semicolon or a tab (for example: 1.5,2.0). The values seem to be separated by "
            "spaces; use commas, semicolons or tabs instead."
        )
    raise DataError(
        "The file has only one column. Each point needs two numbers, x and y, on one line, separated by a "
        "comma, a semicolon or a tab (for example: 1.5,2.0)."
    )


# --- 4-6. table ---------------------------------------------------------------------------------


def _parse_cell(cell: str, decimal_comma: bool) -> tuple[int, float]:
    """(status, value) of one cell; value is NaN unless the status is _NUMBER or _NOT_FINITE."""
    if not cell.strip():
        return _EMPTY, math.nan
    try:
        value = float(cell)
    except ValueError:
        if not (decimal_comma and _DECIMAL_COMMA.fullmatch(cell)):
            return _TEXT, math.nan
        value = float(cell.replace(",", "."))
    return (_NUMBER if math.isfinite(value) else _NOT_FINITE), value


@dataclass
class _Table:
    """Everything _read_table learns about the file; ``values``/``status`` are (n_points, width)."""

    names: list[str]
    values: np.ndarray
    status: np.ndarray
    lines: np.ndarray  # file line number of each point
    raw: dict  # (column, status) -> text of the first such cell, for messages
    numeric: list[int]  # column indices
    ignored: list[int]
    has_header: bool
    notes: list[tuple[str, dict]]  # (catalog message, fields)


def _checked_lines(text: str):
    """The file's physical lines, refusing absurdly long ones before the CSV parser splits them."""
    for number, line in enumerate(io.StringIO(text, newline=""), start=1):
        if len(line) > MAX_LINE_CHARS:
            raise DataError(
                "Line {line} is longer than {most:,} characters, the most allowed. Each line of the file "
                "should hold one point.",
                line=number,
                most=MAX_LINE_CHARS,
            )
        yield line


def _records(text: str, delimiter: str, max_rows: int):
    """(line number, fields) of each non-blank row; a row that spans lines gets its first line.

    Blank rows are skipped, at most max_rows of them (a file of blank lines must not keep the
    server busy).
    """
    reader = csv.reader(_checked_lines(text), delimiter=delimiter, skipinitialspace=True, strict=True)
    blank = 0
    while True:
        line = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            raise DataError(
                "Line {line} cannot be read as CSV ({error}). Check the quotes there: a value that starts "
                'with a quote (") must end with one, followed by the delimiter.',
                line=line,
                error=str(err),
            ) from None
        if not _is_blank(row):
            yield line, row
        else:
            blank += 1
            if blank > max_rows:
                raise DataError(
                    "The file has more than {most:,} blank lines (or lines of only delimiters). Delete them "
                    "and upload the file again.",
                    most=max_rows,
                )


def _read_table(text: str, delimiter: str, max_rows: int) -> _Table:
    decimal_comma = delimiter != ","
    values, status, lines = array("d"), bytearray(), array("q")
    raw = {}  # (column, status) -> first such cell after the first row
    first_row = width = first_line = None
    used_decimal_comma = False
    for line, row in _records(text, delimiter, max_rows):
        if width is None:
            first_row, width, first_line = row, len(row), line
            if width > MAX_COLUMNS:
                raise DataError(
                    "The file has {width:,} columns; at most {most:,} are supported.",
                    width=width,
                    most=MAX_COLUMNS,
                )
        while len(row) > width and not row[-1].strip():
            row.pop()  # trailing delimiters
        if len(row) != width:
            raise DataError(
                _ROW_WIDTH[delimiter], line=line, count=len(row), first_line=first_line, width=width
            )
        if len(lines) > max_rows:  # this is point max_rows + 1, even if the first row is a header
            _raise_too_many_rows(max_rows)
        try:  # fast path: a row of finite numbers
            parsed = [float(cell) for cell in row]
            if not all(map(math.isfinite, parsed)):
                raise ValueError
            values.extend(parsed)
            status.extend(bytes(width))
        except ValueError:
            for j, cell in enumerate(row):
                state, value = _parse_cell(cell, decimal_comma)
                values.append(value)
                status.append(state)
                if lines:
                    raw.setdefault((j, state), cell)
                used_decimal_comma |= state == _NUMBER and "," in cell
        lines.append(line)

    n = len(lines)
    if not n:
        raise DataError(_NO_DATA)
    values = np.frombuffer(values, dtype=np.float64).reshape(n, width)
    status = np.frombuffer(status, dtype=np.uint8).reshape(n, width)
    lines = np.frombuffer(lines, dtype=np.int64)

    has_header = _first_row_is_header(status)
    if has_header:
        names = _header_names(first_row)
        values, status, lines = values[1:], status[1:], lines[1:]
        if not n - 1:
            raise DataError(
                "The file has column names ({names}) but no rows of numbers below them. Add one point per "
                "line.",
                names=", ".join(names),
            )
    else:
        names = ["x", "y"] + [f"x{j + 1}" for j in range(2, width)]
        if n > max_rows:
            _raise_too_many_rows(max_rows)
        for j, cell in enumerate(first_row):  # the first row comes first
            raw[(j, int(status[0, j]))] = cell

    # columns with neither a name nor a value (from trailing delimiters) are dropped
    keep = [
        j for j in range(width) if (has_header and first_row[j].strip()) or (status[:, j] != _EMPTY).any()
    ]
    if len(keep) < width:
        names = [names[j] for j in keep]
        values, status = values[:, keep], status[:, keep]
        raw = {(keep.index(j), state): cell for (j, state), cell in raw.items() if j in keep}

    numeric, ignored = _classify_columns(status)
    notes = []
    if has_header:
        notes.append(_note(N_("The first row was read as column names: {names}."), names=", ".join(names)))
    if delimiter != ",":
        notes.append(_note(_SEPARATED_BY[delimiter]))
    if used_decimal_comma:
        notes.append(_note(N_("Decimal commas (1,5) were read as decimal points (1.5).")))
    texts = [names[j] for j in ignored if (status[:, j] != _EMPTY).any()]
    if texts:
        notes.append(_note(N_("Columns without numbers were ignored: {names}."), names=", ".join(texts)))
    return _Table(names, values, status, lines, raw, numeric, ignored, has_header, notes)


def _raise_too_many_rows(max_rows: int):
    raise DataError(
        "The file has more than {most:,} rows of points; the limit is {most:,}. Upload a random sample of "
        "the points.",
        most=max_rows,
    )


def _first_row_is_header(status: np.ndarray) -> bool:
    """A header has text where the rows below have numbers (or there are no rows below)."""
    text = status[0] == _TEXT
    if len(status) == 1:
        return bool(text.any())
    below = status[1:]
    numbers_below = (below == _NUMBER).sum(0) + (below == _NOT_FINITE).sum(0)
    return bool((text & (numbers_below > (below == _TEXT).sum(0))).any())


def _header_names(row: list[str]) -> list[str]:
    """Stripped names; blanks become "column 3", repeats get " (2)", " (3)", ..."""
    names, seen = [], set()
    for j, cell in enumerate(row):
        base = cell.strip() or f"column {j + 1}"
        name, copy = base, 1
        while name in seen:
            copy += 1
            name = f"{base} ({copy})"
        seen.add(name)
        names.append(name)
    return names


def _classify_columns(status: np.ndarray) -> tuple[list[int], list[int]]:
    """Numeric columns: some numbers, and at least as many as texts. The rest (text or empty) are ignored."""
    numbers = (status == _NUMBER).sum(0) + (status == _NOT_FINITE).sum(0)
    texts = (status == _TEXT).sum(0)
    is_numeric = (numbers > 0) & (numbers >= texts)
    numeric = [j for j in range(status.shape[1]) if is_numeric[j]]
    ignored = [j for j in range(status.shape[1]) if not is_numeric[j]]
    return numeric, ignored


# --- 7. the plane -------------------------------------------------------------------------------


def _check_column_pick(columns):
    if columns is None:
        return None
    if (
        isinstance(columns, str)
        or not hasattr(columns, "__len__")
        or len(columns) != 2
        or not all(isinstance(c, str) for c in columns)
    ):
        raise ValueError(f"columns must be None or two column names, e.g. ('x', 'y'); got {columns!r}.")
    return tuple(columns)


def _choose_columns(table: _Table, columns, project) -> tuple[list[int], str]:
    """The file columns to use, and "columns" (use them as x, y) or "pca" (project them)."""
    if len(table.numeric) < 2:
        _raise_too_few_numeric(table)
    if columns is not None:
        if columns[0] == columns[1]:
            raise DataError('Pick two different columns, not "{column}" twice.', column=columns[0])
        return [_numeric_column(table, name) for name in columns], "columns"
    if len(table.numeric) == 2:
        return table.numeric, "columns"
    if project is None:
        raise DataError(
            "The file has {count} numeric columns ({names}). Choose two of them as x and y, or show the "
            "first two principal components.",
            count=len(table.numeric),
            names=_listed(table, table.numeric),
        )
    return table.numeric, "pca"


def _listed(table: _Table, columns: list[int]) -> str:
    return ", ".join(table.names[j] for j in columns)


def _raise_too_few_numeric(table: _Table):
    texts = [j for j in table.ignored if (table.status[:, j] == _TEXT).any()]
    if texts:
        j = texts[0]
        row = int(np.argmax(table.status[:, j] == _TEXT))
        example = dict(
            column=table.names[j], text=_shorten(table.raw[(j, _TEXT)].strip()), line=table.lines[row]
        )
        if not table.numeric:
            raise DataError(
                'No column of the file contains numbers; two are needed, x and y. Column "{column}" holds '
                'text, e.g. "{text}" on line {line}.',
                **example,
            )
        raise DataError(
            'Only one column ("{numeric}") contains numbers; two are needed, x and y. Column "{column}" '
            'holds text, e.g. "{text}" on line {line}. Numbers must use a dot as the decimal point (1.5) and '
            "no thousands separators.",
            numeric=table.names[table.numeric[0]],
            **example,
        )
    if not table.numeric:
        raise DataError("No column of the file contains numbers; two are needed, x and y.")
    raise DataError(
        'Only one column ("{numeric}") contains numbers; two are needed, x and y. Numbers must use a dot '
        "as the decimal point (1.5) and no thousands separators.",
        numeric=table.names[table.numeric[0]],
    )


def _numeric_column(table: _Table, name: str) -> int:
    if name not in table.names:
        raise DataError(
            'There is no column "{name}" in the file. Numeric columns: {names}.',
            name=name,
            names=", ".join(table.names[j] for j in table.numeric),
        )
    j = table.names.index(name)
    if j not in table.numeric:
        raise DataError(
            'Column "{name}" does not contain numbers. Numeric columns: {names}.',
            name=name,
            names=", ".join(table.names[j] for j in table.numeric),
        )
    return j


def _check_cells(table: _Table, used: list[int]):
    """Every cell of the used numeric columns is a finite number; else name the first bad one."""
    bad = table.status[:, used] != _NUMBER
    if not bad.any():
        return
    row, col = np.unravel_index(int(np.argmax(bad)), bad.shape)  # first in reading order
    j = used[col]
    state = int(table.status[row, j])
    where = dict(line=table.lines[row], column=table.names[j])
    if state == _EMPTY:
        raise DataError(
            'Line {line}, column "{column}" is empty. Every point needs a number in this column: fill it in '
            "or delete the row.",
            **where,
        )
    # the first bad cell of column j is also its first cell in this state: the one kept in raw
    shown = _shorten(table.raw[(j, state)].strip())
    if state == _NOT_FINITE:
        raise DataError(
            'Line {line}, column "{column}": "{text}" is not a finite number (NaN, infinity and numbers '
            "beyond ±1.8e308 are not allowed). Replace it with a number or delete the row.",
            text=shown,
            **where,
        )
    raise DataError(
        'Line {line}, column "{column}": "{text}" is not a number. Every value in this column must be a '
        "number, written with a dot as the decimal point (1.5) and no thousands separators or units.",
        text=shown,
        **where,
    )


def _pca_2d(A: np.ndarray) -> tuple[np.ndarray, tuple[float, float]]:
    """Scores on the first two principal components of A (n, d), and their share of the variance.

    scikit-learn's PCA: each component's sign makes its largest loading positive, so the picture does
    not flip between runs."""
    try:
        pca = PCA(n_components=min(2, *A.shape), svd_solver="full").fit(A)
    except (np.linalg.LinAlgError, ValueError):
        raise DataError(_TOO_CLOSE) from None
    X = pca.transform(A)
    if X.shape[1] < 2:  # two points in d dims: one component; the second axis is flat
        X = np.column_stack([X[:, 0], np.zeros(len(X))])
    share = np.nan_to_num(pca.explained_variance_ratio_)
    explained = (float(share[0]), float(share[1]) if len(share) > 1 else 0.0)
    return np.ascontiguousarray(X), explained


def _check_usable(A: np.ndarray, table: _Table, used: list[int], projection: str, k):
    """Enough points, not all in one place, and within the limits of the core functions."""
    n = len(A)
    if n < 2:
        raise DataError(
            "The file has only one point (line {line}); at least 2 are needed.", line=table.lines[0]
        )
    if k is not None and n < k:
        raise DataError(
            "The file has {n} points, but {k} clusters need at least {k} points. Add points or choose at "
            "most {n} clusters.",
            n=n,
            k=k,
        )
    if (A == A[0]).all():
        if projection == "pca":
            raise DataError(
                "All points are identical: every row has the same numbers. Clustering needs points in "
                "different places."
            )
        values = ", ".join(f"{table.names[j]} = {v:g}" for j, v in zip(used, A[0]))
        raise DataError(
            "All points are identical in the columns used ({values}). Clustering needs points in different "
            "places: check the file or pick other columns.",
            values=values,
        )
    _check_core_limits(A)


def _check_core_limits(points: np.ndarray):
    """The core's own check (check_points): e.g. no magnitudes whose squared distances overflow."""
    try:
        check_points(points, name="the data")
    except ValueError as err:
        raise DataError("The numbers are too large to compute distances: {reason}", reason=str(err)) from None


def _shorten(cell: str, limit: int = 40) -> str:
    return cell if len(cell) <= limit else cell[:limit] + "…"


# --- export -------------------------------------------------------------------------------------

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def csv_safe(value):
    """A cell value that a spreadsheet will not run as a formula (CSV injection, CWE-1236).

    Text starting with = + - @, a tab or a carriage return (or the full-width = + - @), also after
    leading spaces, gets a leading apostrophe, which spreadsheets show as plain text. Numbers, and
    text that is just a number such as "-1.5", are returned unchanged; so is anything not a string.
    """
    if not isinstance(value, str) or _PLAIN_NUMBER.fullmatch(value):
        return value
    if value.lstrip(" ").startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def points_to_csv(X, resp, labels=None) -> bytes:
    """UTF-8 CSV bytes with columns x, y, r_0, ..., r_{k-1} and, if labels are given, label.

    X (n, 2) points, resp (n, k) responsibilities, labels None or n values (e.g. the cluster of
    each point). Numbers are written in Python's shortest exact form, so
    ``load_points(points_to_csv(X, resp), columns=("x", "y")).X`` equals X (as float64) exactly.
    Text labels go through ``csv_safe``.
    """
    X = check_points(X, "X")
    resp = check_points(resp, "resp")
    if X.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2), got {X.shape}.")
    if resp.shape[0] != X.shape[0]:
        raise ValueError(f"resp has {resp.shape[0]} rows but X has {X.shape[0]}; they must match.")
    if labels is not None:
        labels = list(labels)
        if len(labels) != X.shape[0]:
            raise ValueError(f"labels has {len(labels)} values but X has {X.shape[0]} rows; they must match.")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["x", "y"] + [f"r_{j}" for j in range(resp.shape[1])]
    writer.writerow(header + (["label"] if labels is not None else []))
    for i in range(X.shape[0]):
        row = [repr(float(v)) for v in X[i]] + [repr(float(v)) for v in resp[i]]
        if labels is not None:
            label = labels[i]
            row.append(
                repr(float(label)) if isinstance(label, (float, np.floating)) else csv_safe(str(label))
            )
        writer.writerow(row)
    return out.getvalue().encode("utf-8")
