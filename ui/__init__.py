"""Streamlit-only helpers for the app's pages (rbfviz/ never imports Streamlit; only app.py, pages/
and ui/ do).

* ``ui.state``   the shared controls (``Controls``), their URL form, parsing with notices.
* ``ui.page``    ``setup_page(title)`` (page config, sidebar of shared controls, URL state, notices,
                 presenter mode), ``panel(what)`` (error boundary), ``chart(fig, ctrl, key,
                 description=...)`` (a figure, enlarged in presenter mode, with its one-sentence
                 description), ``page_links(ctrl)``.
* ``ui.upload``  the sidebar's CSV upload: the session's uploaded points (``Upload``), messages.
* ``ui.exports`` download buttons: points CSV, figure HTML, JSON, the view's receipt
(rbfviz.views.common.receipt).
* ``ui.compute`` cached calls into rbfviz keyed by plain parameters: data, σ range, start,
                 annealing path (progress bar, once per setting), centres at σ, field, each view's arrays.
* ``ui.scrub_parts`` ``scrub_payload`` (a view at every σ, once per setting, shared by all sessions;
                 a new setting's levels near the σ on screen first).
* ``ui.progress`` progress bars of long computations (``with_progress_bar``, ``progress_slot``; ``in_stages``,
                 ``in_worker``: the work in a thread under a bar redrawn each tick, so Cancel lands).
* ``ui.settings`` every RBFVIZ_* environment variable, read and checked once (``settings.current()``).
* ``ui.session_keys`` the names of everything the app keeps in ``st.session_state``.
* ``ui.sidebar_mark`` the sidebar's hidden mark: a press from a browser that had not yet received the last
                 answer does not undo what it changed (old sidebar values, an old address).
* ``ui.hold_rest`` tests only: holds back a new setting's other σ levels while a file exists.
* ``ui.websocket_deflate`` the compressed websocket sends a large message deflate would not shrink (a σ
                 payload, gzip already) as it is (``install()``, once per process, below).
* ``ui.scrub``   ``scrub_figure(payload, key, grid)``: the σ slider and its figure, drawn in the
                 browser from a rbfviz.views.common.scrub payload; σ reaches the page when it settles.

How to add a page ``pages/<N>_<Name>.py`` — the story every page tells:

    import streamlit as st
    from rbfviz.views.something.figures import something_figure  # figure builder, unit-tested
    from rbfviz.views.something.words import something_in_words  # the "In words" sentence
    from ui import compute, exports
    from ui.page import chart, panel, setup_page

    ctx = setup_page("Something")                    # 1. controls (ctx.ctrl: σ already on the grid)
    with panel("The something figure"):              #    errors become a short st.error
        X, _ = compute.data(ctx.ctrl)                # 2. compute (cached, in rbfviz)
        fig = something_figure(X, ...)               # 3. figure (built in rbfviz/views/<page>/figures.py)
        fig, _ = chart(fig, ctx.ctrl, "something", description=something_in_words(...))
        st.latex(r"z_{ij} = -\\frac{\\lVert x_i - c_j\\rVert^2}{2\\sigma^2}")   # 4. explanation
        st.markdown("What it shows, and where measurement differs from the paper.")
        exports.download_row(ctx.ctrl, [exports.figure_download(fig, "something")], key="something")

A figure that changes with σ scrubs in the browser instead: ``setup_page(..., sigma_on_figure=True)``,
build one ``ScrubLevel(figure, side_html, sentence)`` per σ of ``ctx.scale.grid`` inside a
``levels_of(progress)``, and draw ``scrub_figure(scrub_parts.grid_payload("something", ctrl, ctx.scale,
levels_of), key=..., grid=ctx.scale.grid)`` (pages/5_Stability.py is the model). A view with its own
config or grid gives ``scrub_parts.scrub_payload`` a ``build(progress)`` that returns
``rbfviz.views.common.scrub.scrub_payload(levels, grid, ...)`` (pages/1_Explorer.py). Build the levels
after the first as ``ScrubPatch``es of the first figure, straight from each level's arrays
(``rbfviz.views.explorer.levels``: the same payload bytes, without a Plotly figure per σ), and compare them
with a full figure per level in tests/unit/test_scrub_levels.py.

Add its (path, label, blurb) to ``ui.page.PAGES`` so the home page links to it. Heavy work over
~0.5 s: cache it in ui/compute.py keyed by plain values, and show progress (see ``annealing``).
"""

import plotly.graph_objects  # noqa: E402,F401  loaded before the freeze below, with the library

import rbfviz  # noqa: E402

from . import settings, websocket_deflate  # noqa: E402

# A bad RBFVIZ_* value stops here, with a message that names it (never a traceback).
_settings = settings.at_start_up()

# The same count for scikit-learn's OpenMP pool (K-Means), before torch or scikit-learn loads OpenMP.
settings.default_openmp_threads(_settings.torch_threads)

# The app is a server: one torch thread, allocator tuning, a frozen garbage collector and a full
# collection every minute in place of Streamlit's after every script run (runner.postScriptGC = false in
# .streamlit/config.toml), once per process. With a class connected a full collection walks every
# session's objects (tens of milliseconds holding the GIL); Python's own young-generation collections
# still run as objects are allocated, so the minute only bounds how long old cyclic garbage waits.
rbfviz.tune_process(
    torch_threads=_settings.torch_threads,
    malloc_tuning=_settings.malloc_tuning,
    collect_every=_settings.gc_seconds,
)

# permessage-deflate (.streamlit/config.toml) leaves the σ payloads, gzip already, as they are.
websocket_deflate.install()
