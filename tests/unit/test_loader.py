"""The CSV loader (rbfviz.loader): every bad file gets a DataError a student can act on, any bytes at
all give a DataError or valid points (hypothesis), good files in their common dialects load exactly,
the limits hold at their edges, and the export round-trips.

References: the numbers written into each file, Python's repr (exact float round trip) and
scikit-learn's PCA for the projection.
"""

import csv
import io
import string

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.decomposition import PCA

import rbfviz
from rbfviz import MAX_BYTES, MAX_ROWS, DataError, LoadedPoints, csv_safe, load_points, points_to_csv
from rbfviz.loader import MAX_COLUMNS, MAX_LINE_CHARS
from rbfviz.validate import check_points

GARBAGE = settings(derandomize=True, max_examples=300, deadline=None)

XY = np.array([[1.5, -2.0], [3.0, 4.25], [-0.5, 0.0], [10.0, 7.0]])


def csv_bytes(rows, delimiter=",", newline="\n", bom=False) -> bytes:
    text = newline.join(delimiter.join(str(cell) for cell in row) for row in rows) + newline
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


def xy_file(**kwargs) -> bytes:
    return csv_bytes([["x", "y"], *XY.tolist()], **kwargs)


def load_error(data, **kwargs) -> str:
    with pytest.raises(DataError) as info:
        load_points(data, **kwargs)
    assert isinstance(info.value, ValueError)
    return str(info.value)


def check_outcome(data, **kwargs):
    """The contract for any input: a DataError with a message, or valid points. Nothing else escapes."""
    try:
        result = load_points(data, **kwargs)
    except DataError as err:
        assert 20 < len(str(err)) < 600
        return None
    X = result.X
    assert isinstance(result, LoadedPoints)
    assert X.dtype == np.float64 and X.ndim == 2 and X.shape[1] == 2 and X.flags.c_contiguous
    assert X.shape[0] == result.n_rows >= 2
    assert np.isfinite(X).all() and not (X == X[0]).all()
    check_points(X)  # every loaded file is accepted by the core functions
    assert result.projection in ("columns", "pca") and len(result.column_names) == 2
    assert set(result.numeric_columns).isdisjoint(result.ignored_columns)
    return result


# --- bad files: each a DataError that says what, where and what to do ------------------------------

BAD_FILES = {
    "empty": (b"", ["empty"]),
    "blank lines only": (b"\n \r\n\t\n", ["no data", "blank lines"]),
    "delimiters only": (b",,\n;;\n, ,\n", ["no data"]),
    "header only": (b"x,y\n", ["column names (x, y)", "no rows of numbers"]),
    "header only, BOM and CRLF": (b"\xef\xbb\xbfx;y\r\n\r\n", ["column names (x, y)", "no rows"]),
    "latin-1": ("x,y\n1,2\ncaf\xe9,3\n".encode("latin-1"), ["not UTF-8", "0xE9", "line 3", "CSV UTF-8"]),
    "utf-16": ("x,y\n1,2\n".encode("utf-16"), ["UTF-16", "CSV UTF-8"]),
    "xlsx": (b"PK\x03\x04\x14\x00\x06\x00" + bytes(40), ["Excel workbook", "Save"]),
    "xls": (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(40), ["Excel", "Save"]),
    "zero byte": (b"x,y\n1,2\n3,\x004\n", ["binary", "line 3"]),
    "text cell": (b"x,y\n1,2\n3,abc\n5,6\n7,8\n", ['Line 3, column "y"', '"abc" is not a number', "dot"]),
    "first bad cell in reading order": (
        b"x,y\n1,2\n3,4\n5,oops\nbad,8\n9,1\n10,2\n",
        ['Line 4, column "y"', '"oops"'],
    ),
    "bad cell in x before y": (b"x,y\n1,2\n3,4\nbad,6\n7,oops\n9,1\n10,2\n", ['Line 4, column "x"', '"bad"']),
    "thousands separator": (b'x,y\n"1,234",2\n5,6\n7,8\n', ['Line 2, column "x"', '"1,234"', "thousands"]),
    "nan": (b"x,y\n1,2\n3,nan\n5,6\n", ['Line 3, column "y"', '"nan" is not a finite number']),
    "NaN word": (b"x,y\n1,2\nNaN,4\n5,6\n", ['Line 3, column "x"', "not a finite number"]),
    "infinity": (b"x,y\n1,2\n3,-inf\n5,6\n", ['"-inf" is not a finite number']),
    "overflow": (b"x,y\n1,2\n3,1e999\n5,6\n", ['"1e999" is not a finite number']),
    "empty cell": (b"x,y\n1,2\n3,\n5,6\n", ['Line 3, column "y" is empty', "fill it in or delete the row"]),
    "single column": (b"x\n1\n2\n3\n", ["only one column", "comma, a semicolon or a tab"]),
    "single column no header": (b"1\n2\n3\n", ["only one column"]),
    "space separated": (b"1 2\n3 4\n5 6\n", ["only one column", "separated by spaces"]),
    "one numeric column": (
        b"name,y\na,1\nb,2\nc,3\n",
        ['Only one column ("y")', 'Column "name" holds text', "line 2"],
    ),
    "no numbers": (b"a,b\nc,d\ne,f\n", ["No column", "contains numbers"]),
    "all identical": (b"x,y\n1,2\n1,2\n1.0,2.0\n", ["identical", "x = 1, y = 2"]),
    "one point": (b"x,y\n1,2\n", ["only one point", "line 2", "at least 2"]),
    "ragged short row": (b"x,y\n1,2\n3\n5,6\n", ["Line 3 has 1 value(s) but line 1 has 2"]),
    "ragged long row": (b"x,y\n1,2\n3,4,5\n", ["Line 3 has 3 value(s) but line 1 has 2"]),
    "unclosed quote": (b'x,y\n1,2\n"3,4\n5,6\n', ["Line 3", "quote"]),
    "text after closing quote": (b'x,y\n1,2\n"3"4,5\n', ["Line 3", "quote"]),
    "huge values": (b"x,y\n1e300,1\n-1e300,2\n", ["too large", "Rescale"]),
    "values past the core's limit": (b"x,y\n1e154,1\n1.0000001e154,2\n", ["too large", "4.74e+153"]),
    "line too long": (b"x,y\n1," + b"1" * MAX_LINE_CHARS + b"\n", ["Line 2 is longer than 100,000"]),
    "line too long after blank lines": (
        b"\n\r\nx,y\n1," + b"1" * (2 * MAX_LINE_CHARS) + b"\n",
        ["Line 4 is longer"],
    ),
    "too many columns": (csv_bytes([list(range(MAX_COLUMNS + 1))] * 3), ["1,001 columns", "at most 1,000"]),
}


@pytest.mark.parametrize("name", BAD_FILES)
def test_bad_file_raises_a_data_error_naming_the_problem(name):
    data, fragments = BAD_FILES[name]
    message = load_error(data)
    for fragment in fragments:
        assert fragment in message, (name, message)


def test_line_numbers_count_blank_lines_and_quoted_line_breaks():
    data = b'"x\nname",y\n\n1,2\n\n3,4\n5,oops\n7,8\n'
    assert 'Line 7, column "y": "oops"' in load_error(data)


def test_fewer_points_than_k():
    message = load_error(xy_file(), k=5)
    assert "4 points" in message and "5 clusters need at least 5 points" in message
    assert load_points(xy_file(), k=4).n_rows == 4


def test_column_pick_errors():
    three = csv_bytes([["a", "b", "name"], [1, 2, "p"], [3, 5, "q"], [4, 4, "r"]])
    assert 'no column "z"' in load_error(three, columns=("a", "z"))
    assert 'Column "name" does not contain numbers' in load_error(three, columns=("a", "name"))
    assert "two different columns" in load_error(three, columns=("a", "a"))
    many = csv_bytes([["a", "b", "c"], [1, 2, 3], [3, 5, 1], [4, 4, 4]])
    assert "3 numeric columns (a, b, c)" in load_error(many, project=None)
    same = csv_bytes([["a", "b", "c"], [1, 1, 3], [1, 1, 1], [1, 1, 4]])
    assert "identical in the columns used (a = 1, b = 1)" in load_error(same, columns=("a", "b"))
    assert load_points(same, columns=("a", "c")).n_rows == 3


def test_rows_identical_in_every_column_under_pca():
    assert "All points are identical" in load_error(csv_bytes([[1, 2, 3]] * 4))


def test_too_many_blank_lines():
    body = b"x,y\n1,2\n" + b"\n" * MAX_ROWS + b"3,4\n"
    assert load_points(body).n_rows == 2
    assert "more than 20,000 blank lines" in load_error(b"x,y\n1,2\n" + b"\n" * (MAX_ROWS + 1) + b"3,4\n")


def test_wrong_arguments_are_not_data_errors():
    with pytest.raises(TypeError, match="getvalue"):
        load_points("x,y\n1,2\n")
    with pytest.raises(ValueError, match="project"):
        load_points(xy_file(), project="tsne")
    with pytest.raises(ValueError, match="two column names"):
        load_points(xy_file(), columns="xy")
    with pytest.raises(ValueError, match="k must be"):
        load_points(xy_file(), k=0)


# --- limits, exactly at and just over -----------------------------------------------------------------


def rows_file(n: int, header: bool) -> bytes:
    body = b"".join(b"%d,%d\n" % (i, i % 7) for i in range(n))
    return (b"x,y\n" if header else b"") + body


@pytest.mark.parametrize("header", [True, False])
def test_row_limit(header):
    assert MAX_ROWS == 20_000
    result = load_points(rows_file(MAX_ROWS, header))
    assert result.n_rows == MAX_ROWS and result.has_header is header
    assert result.X[-1].tolist() == [MAX_ROWS - 1, (MAX_ROWS - 1) % 7]
    message = load_error(rows_file(MAX_ROWS + 1, header))
    assert "more than 20,000 rows" in message and "sample" in message


def test_byte_limit_exactly_5_mb():
    assert MAX_BYTES == 5 * 1024 * 1024
    width = (MAX_BYTES - 4) // MAX_ROWS  # the "x,y\n" header is 4 bytes
    rows = [b"%d,%d" % (i, i % 5) for i in range(MAX_ROWS)]
    body = b"".join(row.ljust(width - 1) + b"\n" for row in rows)  # spaces after the number
    data = b"x,y" + b" " * (MAX_BYTES - 4 - len(body)) + b"\n" + body
    assert len(data) == MAX_BYTES
    result = load_points(data)
    assert result.n_rows == MAX_ROWS and result.column_names == ("x", "y")
    np.testing.assert_array_equal(result.X[:3], [[0, 0], [1, 1], [2, 2]])
    assert "too large" in load_error(data + b"\n")


def test_byte_limit_is_checked_before_decoding():
    message = load_error(b"\xff" * (MAX_BYTES + 1))
    assert "too large" in message and "5 MB" in message and "UTF-8" not in message


def test_limits_can_be_lowered_by_the_caller():
    assert "limit is 3" in load_error(xy_file(), max_rows=3)
    assert "too large" in load_error(xy_file(), max_bytes=10)


# --- good files -------------------------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("bom", [False, True])
def test_delimiters_line_ends_and_bom(delimiter, newline, bom):
    result = load_points(xy_file(delimiter=delimiter, newline=newline, bom=bom))
    np.testing.assert_array_equal(result.X, XY)
    assert result.column_names == ("x", "y") and result.has_header and result.delimiter == delimiter
    assert result.projection == "columns" and result.explained_variance is None


def test_header_is_optional():
    result = load_points(csv_bytes(XY.tolist()))
    assert not result.has_header and result.column_names == ("x", "y")
    np.testing.assert_array_equal(result.X, XY)
    named = load_points(csv_bytes([["height (cm)", " weight "], *XY.tolist()]))
    assert named.has_header and named.column_names == ("height (cm)", "weight")


def test_header_names_blank_and_repeated():
    result = load_points(
        csv_bytes([["a", "", "a"], [1, 2, 3], [4, 5, 7]]), project=None, columns=("a (2)", "column 2")
    )
    assert result.numeric_columns == ("a", "column 2", "a (2)")
    np.testing.assert_array_equal(result.X, [[3, 2], [7, 5]])


def test_layout_variations():
    data = (
        b"\n\n  x , y \r\n"  # leading blank lines, spaces around names
        b'"1.5", "-2"\r\n'  # quoted fields, a space after the delimiter
        b"\r\n"  # a blank line inside
        b"3, 4.25  \r\n"
        b"-0.5,0,\r\n"  # a trailing delimiter
        b"1e1,7.0"
    )  # no newline at the end
    result = load_points(data + b"\n\n\n")
    np.testing.assert_array_equal(result.X, XY)
    assert result.column_names == ("x", "y")
    np.testing.assert_array_equal(load_points(data).X, XY)


def test_trailing_delimiters_on_every_line_add_no_column():
    result = load_points(b"x,y,\n1,2,\n3,4,\n")
    assert result.numeric_columns == ("x", "y") and result.ignored_columns == ()


def test_decimal_commas_with_semicolons():
    result = load_points("x;y\n1,5;-2\n3;4,25\n-0,5;0\n10;7\n".encode())
    np.testing.assert_array_equal(result.X, XY)
    assert any("Decimal commas" in note for note in result.notes)
    no_header = load_points(b"1,5;2,5\n3,5;4\n")  # also tells semicolons from commas without a header
    np.testing.assert_array_equal(no_header.X, [[1.5, 2.5], [3.5, 4.0]])


def test_more_columns_pick_two_by_name():
    A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0], [7.0, 8.0, 1.0], [2.0, 0.5, 9.0]])
    data = csv_bytes([["a", "b", "c"], *A.tolist()], delimiter="\t")
    result = load_points(data, columns=("c", "a"))
    np.testing.assert_array_equal(result.X, A[:, [2, 0]])
    assert result.column_names == ("c", "a") and result.projection == "columns"
    assert result.numeric_columns == ("a", "b", "c")


def test_more_columns_default_to_pca_like_scikit_learn():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(60, 4)) * [5.0, 2.0, 1.0, 0.2] + [10, -3, 0, 1]
    result = load_points(csv_bytes([["a", "b", "c", "d"], *A.tolist()]))
    assert result.projection == "pca" and result.column_names == ("PC1", "PC2")
    reference = PCA(n_components=2, svd_solver="full").fit(A)
    expected = reference.transform(A)
    signs = np.sign((result.X * expected).sum(axis=0))  # a component's sign is arbitrary
    np.testing.assert_allclose(result.X, expected * signs, atol=1e-10)
    np.testing.assert_allclose(result.explained_variance, reference.explained_variance_ratio_, rtol=1e-10)
    assert any("principal components" in note and "%" in note for note in result.notes)
    # repeatable orientation: each axis points along its largest loading
    again = load_points(csv_bytes([["a", "b", "c", "d"], *A[::-1].tolist()]))
    np.testing.assert_allclose(again.X, result.X[::-1], atol=1e-10)


def test_text_column_without_header_is_ignored_not_taken_as_header():
    iris_like = (
        b"5.1,3.5,1.4,0.2,setosa\n4.9,3.0,1.4,0.2,setosa\n"
        b"7.0,3.2,4.7,1.4,versicolor\n6.3,3.3,6.0,2.5,virginica\n"
    )
    result = load_points(iris_like)
    assert not result.has_header and result.n_rows == 4
    assert result.numeric_columns == ("x", "y", "x3", "x4") and result.ignored_columns == ("x5",)
    picked = load_points(iris_like, columns=("x3", "x4"))
    np.testing.assert_array_equal(picked.X, [[1.4, 0.2], [1.4, 0.2], [4.7, 1.4], [6.0, 2.5]])


def test_label_column_with_header_is_ignored():
    result = load_points(b"x,y,species\n1,2,a\n3,4,b\n5,7,c\n")
    assert result.projection == "columns" and result.ignored_columns == ("species",)
    assert any("species" in note for note in result.notes)


def test_result_is_read_only_and_exported():
    result = load_points(xy_file())
    with pytest.raises(ValueError):
        result.X[0, 0] = 99.0
    assert rbfviz.load_points is load_points and issubclass(rbfviz.DataError, ValueError)
    for name in ("DataError", "LoadedPoints", "load_points", "csv_safe", "points_to_csv"):
        assert name in rbfviz.__all__


# --- garbage in: only DataError may escape -------------------------------------------------------------


@GARBAGE
@given(st.binary(max_size=3000))
def test_random_bytes(data):
    check_outcome(data)


@GARBAGE
@given(st.text(max_size=2000), st.booleans())
def test_random_text(text, bom):
    check_outcome((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8", "surrogatepass"))


NUMBER_CELL = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(-100, 100).map(lambda v: f"{v:.3f}"),
    st.integers(-(10**6), 10**6).map(str),
)
JUNK_CELL = st.one_of(
    st.floats().map(repr),  # nan, inf and extremes
    st.sampled_from(
        [
            "",
            " ",
            "nan",
            "-inf",
            "1e999",
            "1,5",
            "-0,25",
            '"',
            '""',
            '"1"',
            "=1+1",
            "\ufeff1",
            "x",
            "y",
            "1.2.3",
            "1_000",
            "\x00",
            "\u00a0",
            "\u0663",
            "1e-320",
            "-0",
            "\r",
            "\n",
        ]
    ),
    st.text(alphabet=string.printable + "\u00e9\u20ac\u2028\x0b", max_size=8),
)


@st.composite
def csv_like(draw):
    """Grids of mostly numbers in varied dialects, with a tunable share of junk; sometimes clean."""
    delimiter = draw(st.sampled_from([",", ";", "\t", ",", ";", "\t", " ", "|", ",;"]))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r", "\n\n"]))
    junk = draw(st.sampled_from([0.0, 0.0, 0.02, 0.2, 0.8]))
    width = draw(st.integers(1, 5))
    ragged = draw(st.sampled_from([False, False, False, True]))
    rows = []
    for _ in range(draw(st.integers(0, 12))):
        w = draw(st.integers(1, 6)) if ragged else width
        rows.append([draw(JUNK_CELL if draw(st.floats(0, 1)) < junk else NUMBER_CELL) for _ in range(w)])
    if draw(st.booleans()):
        rows.insert(0, draw(st.lists(st.text(max_size=6), min_size=width, max_size=width)))
    text = newline.join(delimiter.join(row) for row in rows) + draw(st.sampled_from(["", "\n", "\r\n\r\n"]))
    prefix = draw(st.sampled_from([b"", b"", b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b"\xff"]))
    return prefix + text.encode("utf-8", "surrogatepass")


@GARBAGE
@given(csv_like(), st.one_of(st.none(), st.integers(1, 8)), st.sampled_from(["pca", None]))
def test_random_csv_like_grids(data, k, project):
    check_outcome(data, k=k, project=project)


@GARBAGE
@given(csv_like(), st.tuples(st.sampled_from(["x", "y", "x3", "a", ""]), st.sampled_from(["y", "x4", "b"])))
def test_random_csv_like_grids_with_a_column_pick(data, columns):
    check_outcome(data, columns=columns)


FINITE = st.floats(min_value=-1e100, max_value=1e100, allow_nan=False, allow_infinity=False)


@settings(derandomize=True, max_examples=150, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda w: st.lists(st.lists(FINITE, min_size=w, max_size=w), min_size=2, max_size=30)
    ),
    st.sampled_from([",", ";", "\t"]),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_numbers_written_exactly_are_read_exactly(rows, delimiter, newline, header):
    A = np.array(rows)
    assume(not (A[:, :2] == A[0, :2]).all())
    names = [f"c{j}" for j in range(A.shape[1])]
    data = csv_bytes(
        ([names] if header else []) + [[repr(v) for v in row] for row in rows], delimiter, newline
    )
    pick = (names[0], names[1]) if header else ("x", "y")
    result = load_points(data, columns=pick)
    np.testing.assert_array_equal(result.X, A[:, :2])
    assert result.has_header is header and result.delimiter == delimiter


# --- export -------------------------------------------------------------------------------------------


def test_export_round_trip_is_exact():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2)) * 1e3
    resp = rng.dirichlet(np.ones(3), size=50)
    resp[0] = [1.0, 0.0, 0.0]
    labels = resp.argmax(axis=1)
    data = points_to_csv(X, resp, labels)
    header = data.decode().splitlines()[0]
    assert header == "x,y,r_0,r_1,r_2,label"
    back = load_points(data, columns=("x", "y"))
    np.testing.assert_array_equal(back.X, X)
    assert back.numeric_columns == ("x", "y", "r_0", "r_1", "r_2", "label")
    np.testing.assert_array_equal(load_points(data, columns=("r_0", "r_2")).X, resp[:, [0, 2]])
    np.testing.assert_array_equal(load_points(data, columns=("label", "r_1")).X[:, 0], labels)


def test_export_without_labels_and_from_float32():
    X = np.array([[-1.5, 0.1], [2.0, 3.0], [1e-7, -3.25e5]], dtype=np.float32)
    data = points_to_csv(X, np.eye(3, dtype=np.float32))
    rows = list(csv.reader(io.StringIO(data.decode())))
    assert rows[0] == ["x", "y", "r_0", "r_1", "r_2"]
    assert rows[1][0] == "-1.5"  # a negative number is written as a number, not escaped
    np.testing.assert_array_equal(load_points(data, columns=("x", "y")).X, X.astype(np.float64))


def test_export_escapes_formula_labels():
    X = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 1.0]])
    data = points_to_csv(X, np.ones((3, 1)), labels=['=HYPERLINK("http://x")', "-2", "@SUM(A1)"])
    labels = [row[-1] for row in csv.reader(io.StringIO(data.decode()))][1:]
    assert labels == ['\'=HYPERLINK("http://x")', "-2", "'@SUM(A1)"]
    back = load_points(data, columns=("x", "y"))
    assert back.ignored_columns == ("label",)
    np.testing.assert_array_equal(back.X, X)


def test_export_checks_shapes():
    with pytest.raises(ValueError, match="rows"):
        points_to_csv(np.zeros((3, 2)), np.ones((2, 1)))
    with pytest.raises(ValueError, match=r"\(n, 2\)"):
        points_to_csv(np.zeros((3, 3)), np.ones((3, 1)))
    with pytest.raises(ValueError, match="labels"):
        points_to_csv(np.zeros((3, 2)), np.ones((3, 1)), labels=[1, 2])
    with pytest.raises(ValueError, match="finite"):
        points_to_csv(np.array([[np.nan, 0.0]]), np.ones((1, 1)))


@pytest.mark.parametrize(
    "text",
    [
        "=1+1",
        "+cmd|' /C calc'!A0",
        "-2+3",
        "-cmd",
        "@SUM(A1:A2)",
        "\tx",
        "\rx",
        "  =1+1",
        "\uff1d1+1",
        "\uff0bcmd",
        "\uff0dcmd",
        "\uff20SUM(A1)",
    ],
)
def test_csv_safe_neutralises_formulas(text):
    assert csv_safe(text) == "'" + text


@pytest.mark.parametrize(
    "value",
    [
        "-1.5",
        "+2",
        "1e-5",
        "-.5",
        "3.",
        "-7E+10",
        "abc",
        "",
        "a=b",
        "x-1",
        -1.5,
        2,
        np.float64(-3.0),
        None,
        True,
    ],
)
def test_csv_safe_leaves_numbers_and_plain_text(value):
    assert csv_safe(value) is value
