"""How each map (softmax, entmax-1.5, naive exp/sum) and each precision is named and drawn, the same in every
view."""

from __future__ import annotations

from rbfviz.i18n import N_

KIND_COLORS = {"softmax": "#004488", "entmax15": "#BB5566", "naive": "#DDAA33"}


# How each map is named on screen: in figures and tables, and in the controls (with what it is for).
# Shown as tr(KIND_LABELS[kind]): the maths' own names stay, "naive" is a word.
KIND_LABELS = {"softmax": "softmax", "entmax15": "entmax-1.5", "naive": N_("naive exp/sum")}


KIND_CONTROL_LABELS = {  # shown as tr(KIND_CONTROL_LABELS[kind])
    "softmax": N_("softmax (stable)"),
    "entmax15": N_("entmax-1.5 (sparse)"),
    "entmax": N_("α-entmax (family)"),
    "naive": N_("naive exp/sum"),
}


DTYPE_DASH = {"float64": "solid", "float32": "dot"}
