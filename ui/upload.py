"""Your own data: the sidebar's CSV upload and the session's uploaded points.

The file is read by ``rbfviz.load_points`` (cached on the hash of its bytes). A good file becomes
the session's ``Upload`` and the data set "upload"; a bad file leaves everything as it was and its
message is shown as an error until the file is removed. An upload lives in this session only (the
URL says dataset=upload, but a link cannot carry the file; see ``ui.state.resolve_upload``).

With more than two numeric columns the user chooses between the first two principal components
(the loader's default) and two columns of their choice; the raw bytes are kept in the session so
the choice can change on any page.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import streamlit as st

from rbfviz.datasets import DATASET_LABELS
from rbfviz.i18n import N_, Translator, explain, translator
from rbfviz.loader import MAX_BYTES, MAX_ROWS, LoadedPoints

from . import compute, state
from . import session_keys as keys
from .state import DRAWN, UPLOAD, Controls

DRAWN_LABEL = N_("drawn by hand")  # the name of the points drawn on the plane (dataset=drawn)


@dataclass(frozen=True, eq=False)
class Upload:
    """The session's uploaded points.

    name: the file's name; file_digest: hash of its bytes; data: the bytes (to read other columns);
    loaded: the loader's result for ``columns`` (None = the loader's default: the two numeric
    columns, or the first two principal components); digest: hash of the points, the caches' key.
    """

    name: str
    file_digest: str
    data: bytes
    loaded: LoadedPoints
    columns: tuple | None
    digest: str

    @property
    def X(self) -> np.ndarray:
        return self.loaded.X

    @property
    def n(self) -> int:
        return int(self.loaded.X.shape[0])

    def describe(self, tr: Translator) -> str:
        """ "name: 300 points, x = a, y = b" or "... first two principal components (87% of the variance)",
        in ``tr``'s language."""
        loaded = self.loaded
        points = tr.ngettext("{n:,} point", "{n:,} points", self.n)
        if loaded.projection == "pca":
            share = sum(loaded.explained_variance or (0.0, 0.0))
            return tr(
                "{name}: {points}, the first two principal components of {columns} columns ({share:.0f}% of "
                "the variance)",
                name=self.name,
                points=points,
                columns=len(loaded.numeric_columns),
                share=100 * share,
            )
        return tr(
            "{name}: {points}, x = {x}, y = {y}",
            name=self.name,
            points=points,
            x=loaded.column_names[0],
            y=loaded.column_names[1],
        )


def data_name(ctrl: Controls) -> str:
    """The data set's name for titles, in ctrl's language: the uploaded file's name, or the generator's
    menu label."""
    upload = current()
    if ctrl.dataset == UPLOAD and upload is not None:
        return upload.name
    label = {DRAWN: DRAWN_LABEL, **DATASET_LABELS}.get(ctrl.dataset)
    return translator(ctrl.lang)(label) if label else ctrl.dataset


def axis_titles(ctrl: Controls) -> tuple[str, str] | None:
    """The uploaded points' column names (or PC1, PC2) for the plane's axes; None for generated data."""
    upload = current()
    if ctrl.dataset != UPLOAD or upload is None:
        return None
    return tuple(upload.loaded.column_names)


def file_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def current() -> Upload | None:
    return st.session_state.get(keys.UPLOAD)


def _accept(ctrl: Controls, upload: Upload) -> Controls:
    """Make upload the session's data set; returns the controls switched to it."""
    st.session_state[keys.UPLOAD] = upload
    new, notes = state.with_upload(ctrl, upload)
    state.add_notices(st, notes)
    st.session_state[keys.CONTROLS] = new
    return new


def _on_columns() -> None:
    """Callback of the plane choice (runs before the script): re-read the file with the new columns."""
    upload = current()
    if upload is None:
        return
    numeric = upload.loaded.numeric_columns
    mode = st.session_state.get(keys.UPLOAD_MODE, "pca")
    x, y = st.session_state.get(keys.UPLOAD_X), st.session_state.get(keys.UPLOAD_Y)
    if x not in numeric or y not in numeric:  # first switch to "columns": the first two numeric columns
        x, y = numeric[0], numeric[1]
    columns = None if mode == "pca" else (x, y)
    if columns == upload.columns:
        return
    result = compute.read_upload(upload.file_digest, columns, upload.data)
    if isinstance(result, ValueError):
        st.session_state[keys.UPLOAD_COLUMN_ERROR] = result
        return
    st.session_state.pop(keys.UPLOAD_COLUMN_ERROR, None)
    new = Upload(
        upload.name, upload.file_digest, upload.data, result, columns, compute.points_digest(result.X)
    )
    _accept(st.session_state.get(keys.CONTROLS) or Controls(), new)


PLANE_LABELS = {"pca": N_("first two principal components"), "columns": N_("two columns I choose")}


def _column_choice(upload: Upload, tr: Translator) -> None:
    numeric = list(upload.loaded.numeric_columns)
    if len(numeric) <= 2:
        return
    mode = "pca" if upload.columns is None else "columns"
    st.session_state[keys.UPLOAD_MODE] = mode
    st.radio(
        tr("Plane"),
        ["pca", "columns"],
        key=keys.UPLOAD_MODE,
        on_change=_on_columns,
        format_func=lambda choice: tr(PLANE_LABELS[choice]),
        help=tr("The file has {count} numeric columns; the plane needs two.", count=len(numeric)),
    )
    if mode == "columns":
        x, y = upload.columns
        st.session_state[keys.UPLOAD_X], st.session_state[keys.UPLOAD_Y] = x, y
        cols = st.columns(2)
        cols[0].selectbox(tr("x column"), numeric, key=keys.UPLOAD_X, on_change=_on_columns)
        cols[1].selectbox(tr("y column"), numeric, key=keys.UPLOAD_Y, on_change=_on_columns)
    error = st.session_state.pop(keys.UPLOAD_COLUMN_ERROR, None)
    if error:
        st.error(explain(error, tr))


def upload_section(ctrl: Controls) -> Controls:
    """The sidebar's "Your own data" section. Returns the controls, switched to the file when a new
    good file arrived; a rejected file's message is kept for ``show_messages``."""
    upload = current()
    tr = translator(ctrl.lang)
    with st.sidebar.expander(
        tr("Your own data (CSV)"), expanded=ctrl.dataset == UPLOAD or keys.UPLOAD_ERROR in st.session_state
    ):
        file = st.file_uploader(
            tr("Points as a CSV file"),
            type=["csv", "txt", "tsv"],
            key="upload_file",
            help=tr(
                "Two numeric columns (x, y), or more: then pick two or use principal components. Comma, "
                "semicolon or tab separated, optional header, at most {rows:,} rows and {megabytes} MB. "
                "The file stays in this browser session: a shared link cannot carry it.",
                rows=MAX_ROWS,
                megabytes=MAX_BYTES // 2**20,
            ),
        )
        if file is None:
            # the same file chosen again later is handled again (and its message shown again)
            st.session_state.pop(keys.UPLOAD_SEEN, None)
            st.session_state.pop(keys.UPLOAD_ERROR, None)
        else:
            raw = file.getvalue()
            digest = file_digest(raw)
            if st.session_state.get(keys.UPLOAD_SEEN) != digest:
                st.session_state[keys.UPLOAD_SEEN] = digest
                result = compute.read_upload(digest, None, raw)
                if isinstance(result, ValueError):
                    st.session_state[keys.UPLOAD_ERROR] = (digest, file.name, result)
                else:
                    st.session_state.pop(keys.UPLOAD_ERROR, None)
                    upload = Upload(file.name, digest, raw, result, None, compute.points_digest(result.X))
                    ctrl = _accept(ctrl, upload)
                    st.session_state[keys.UPLOAD_SUCCESS] = True
        if upload is not None:
            if ctrl.dataset == UPLOAD:
                st.caption(tr("**{upload}** (in use).", upload=upload.describe(tr)))
            else:
                st.caption(tr("**{upload}** (kept: choose it under Dataset).", upload=upload.describe(tr)))
            _column_choice(upload, tr)
        else:
            st.caption(tr("Upload a CSV file of points to explore your own data."))
    return ctrl


def show_messages(ctrl: Controls) -> None:
    """In the main area: a rejected file's error (the data shown stay as they were), or the one-time
    confirmation of a loaded file; and, for uploaded data, a reminder that links cannot carry it."""
    tr = translator(ctrl.lang)
    error = st.session_state.get(keys.UPLOAD_ERROR)
    upload = current()
    if error is not None:
        _, name, reason = error
        if ctrl.dataset == UPLOAD and upload:
            shown = upload.describe(tr)
        else:
            shown = tr("the {dataset} data", dataset=data_name(ctrl))
        st.error(
            tr(
                "**{name} was not loaded.** {reason}\n\nNothing else changed: the view still shows {shown}.",
                name=name,
                reason=explain(reason, tr),
                shown=shown,
            ),
            icon=":material/block:",
        )
    if st.session_state.pop(keys.UPLOAD_SUCCESS, None) and upload is not None:
        notes = " ".join(upload.loaded.notes_in(tr))
        st.success((tr("Loaded {upload}.", upload=upload.describe(tr)) + " " + notes).strip())
    if ctrl.dataset == UPLOAD:
        st.caption(
            tr(
                "These are your uploaded points: they stay in this browser session. A copied link opens "
                "the same settings, but not the file (the link says dataset=upload); share the CSV file "
                "with it."
            )
        )
