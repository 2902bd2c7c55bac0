"""The Stability page's "exact collapse across the family" measurement, cached per data set and k.

Kept apart from ``ui.compute`` (the pages' shared cache module), with the same rules: keyed by small
plain values (``compute.DataKey``, k), bounded, all maths in ``rbfviz.family``.
"""

from __future__ import annotations

import streamlit as st

from rbfviz.family import FAMILY_ALPHAS, family_collapse

from . import compute, language


@st.cache_data(max_entries=64, ttl=compute.TTL, show_spinner=False)
def _family(key: compute.DataKey, k: int):
    X, _ = key.points("float64")
    centers, _ = compute._kmeans_pp(key, k)
    return family_collapse(X, centers, alphas=FAMILY_ALPHAS)


def family(ctrl):
    """rbfviz.family.FamilyCollapse at ``compute.kmeans_centroids(ctrl)`` (the Stability page's C*), for
    α = FAMILY_ALPHAS in float32 and float64; it does not depend on the sidebar's map, α or precision."""
    tr = language.current()
    with st.spinner(tr("Measuring the exact collapse for each α…")):
        return _family(compute._key(ctrl), ctrl.k)
