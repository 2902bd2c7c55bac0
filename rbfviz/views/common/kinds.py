"""How each map (softmax, entmax-1.5, naive exp/sum) and each precision is named and drawn, the same in every
view."""

from __future__ import annotations

from rbfviz.i18n import N_

KIND_COLORS = {"softmax": "#004488", "entmax15": "#BB5566", "naive": "#DDAA33"}


# How each map is named on screen: in figures and tables, and in the controls (with what it is for).
KIND_LABELS = {"softmax": "softmax", "entmax15": "entmax-1.5", "naive": N_("naive exp/sum")}


KIND_CONTROL_LABELS = {
    "softmax": "softmax (stable)",
    "entmax15": "entmax-1.5 (sparse)",
    "entmax": "α-entmax (family)",
    "naive": "naive exp/sum",
}


DTYPE_DASH = {"float64": "solid", "float32": "dot"}
