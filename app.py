"""rbfviz home page: what the app shows, the one σ convention, and a link to each view.

Run: streamlit run app.py   (pages/ holds one file per view; ui/ the shared page helpers)

This file is also the server: `streamlit run` finds the ``st.App`` below and serves it (uvicorn
imports this file as the module ``app``, so the page itself runs only as Streamlit's script, where
``__name__`` is "__main__"). The app adds two things to Streamlit's server: its front-end files are
sent compressed (ui/compression.py), a third of the bytes of a first visit, and a view's page asks
for Plotly's bundle in its HTML (ui/preload.py), so its first figure is not kept waiting for it.
"""

from pathlib import Path

import streamlit as st

from ui import classroom
from ui.compression import compression_middleware
from ui.page import HOME_TITLE, LESSONS, page_links, page_path, panel, setup_page
from ui.preload import preload_middleware

# The documentation site, built by `mkdocs build` into static/docs/ and served by Streamlit's static
# file serving (.streamlit/config.toml: server.enableStaticServing) at /app/static/docs/. The link is
# relative, so it works under any server.baseUrlPath and behind a proxy.
DOCS_INDEX = Path(__file__).resolve().parent / "static" / "docs" / "index.html"
DOCS_HREF = "app/static/docs/index.html"
# the site's Portuguese copy (mkdocs-static-i18n): the teachers' pages in Portuguese, the rest in English
DOCS_HREFS = {"en": DOCS_HREF, "pt-BR": "app/static/docs/pt-BR/index.html"}

if __name__ != "__main__":  # uvicorn's import: the server
    app = st.App(__file__, middleware=preload_middleware() + compression_middleware())
else:  # Streamlit's script run: the home page
    ctx = setup_page(HOME_TITLE)
    tr = ctx.tr

    st.title(tr(HOME_TITLE))
    st.markdown(
        tr(
            "A radial-basis-function (RBF) network with k Gaussian centres gives every point a soft "
            "assignment to each centre. As the width σ shrinks, those soft assignments become the hard "
            "Voronoi cells of K-Means, and a gradient step on the network's loss becomes Lloyd's centroid "
            "update (arXiv 2603.04625). Choose data, k and σ in the sidebar and watch it happen."
        )
    )

    st.subheader(tr("One convention, used everywhere"))
    st.latex(
        r"d_{ij} = \lVert x_i - c_j \rVert^2, \qquad z_{ij} = -\frac{d_{ij}}{2\sigma^2}, \qquad "
        r"r_{ij} = \operatorname{softmax}_j(z_{ij}) \;\text{"
        + tr("or")
        + r"}\; \operatorname{entmax}_{1.5}(z_{ij})"
    )
    st.latex(
        r"L_\sigma(C) = \sum_i \sum_j r_{ij}\, d_{ij} \;\xrightarrow[\sigma \to 0]{}\; "
        r"J(C) = \sum_i \min_j d_{ij} \quad \text{(" + tr("the K-Means distortion") + ")}"
    )
    st.markdown(
        tr(
            "σ is the Gaussian width in the units of the data (the temperature is T = 2σ²). "
            "The sidebar's σ slider runs on a log scale over a range derived from the data: from above the "
            "first critical σ, where the centres split away from the data mean, to below σ* = √g_min / 2, "
            "where entmax-1.5 becomes exactly K-Means."
        )
    )

    st.subheader(tr("Views"))
    with panel(tr("Links to the views")):
        page_links(ctx.ctrl)

    st.subheader(tr("In a classroom"))
    with panel(tr("Joining a class")), st.container(border=True):
        joined = classroom.join_form("home")  # a student told the app's address and the room's code
        if joined is not None:
            st.switch_page(page_path(LESSONS), query_params=joined)
    st.markdown(
        tr(
            "- **Lessons** walk through the result in ten steps: each opens a view in the right state, "
            "asks for a prediction, checks it, then explains. A teacher can ask each step's question to the "
            "whole class (*Start a class session* on Lessons, in presenter mode); students join with the "
            "link, the QR code or the room's code (above).\n"
            "- **Presenter mode** (sidebar toggle, or `?presenter=1` in the address) enlarges text, markers "
            "and figures for a projector and folds away the controls a class does not need.\n"
            "- **Your own data**: upload a CSV file of points in the sidebar (it stays in your browser "
            "session).\n"
            "- **Downloads** under each view: the points with their responsibilities (CSV), the figures as "
            "standalone HTML, annealing trajectories (JSON) and a reproducibility receipt, a Python script "
            "that recomputes the view's numbers with the rbfviz library."
        )
    )

    st.subheader(tr("Documentation"))
    if DOCS_INDEX.is_file():
        st.markdown(
            tr(
                "**[Open the documentation]({href})**, served by this app (no internet needed): how to "
                "teach with each view and which questions to ask, how to deploy it for a class, the maths "
                "and every claim measured, the library's reference and how to contribute.",
                href=DOCS_HREFS.get(tr.lang, DOCS_HREF),
            )
        )
    else:
        st.markdown(
            tr(
                "The documentation is not built on this server. Build it with `mkdocs build` in the "
                "repository (the tools are in `requirements-dev.txt`) and this page links to it; the "
                "container image builds it for you."
            )
        )

    st.caption(
        tr(
            "The sidebar's controls, σ and the steps you take live in the page address: copy the URL to "
            "share this view with them (a few page controls stay at their defaults: the documentation's "
            "page The address lists them). Numbers on screen are computed by the tested rbfviz library; "
            "where a measurement differs from the paper's claims, the view says so."
        )
    )
