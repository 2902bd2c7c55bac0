"""Plotly figure builders (no Streamlit): every figure the app shows is built here and unit-tested.

Modules
-------
palette   cluster colours (Okabe–Ito; cluster j has the same colour in every view), ``mix_colors``
          (colours mixed by responsibilities), ``fade`` (toward white), ``KMEANS_COLOR``.
layout    ``figure(data, layout)`` (go.Figure from dicts, unvalidated: fast; tests call
          ``validated``), ``base_layout`` (fonts, margins, legend), ``plane_axes`` (the plane in data
          units, equal aspect), ``png_data_uri``/``field_image`` (a field as a compact PNG under the
          data; top-left pixel = (x_min, y_max)), ``legend_only``.
plane     the Explorer's plane: soft field image, Voronoi edges, points coloured by r, centres.
equivalence  the Equivalence view: one GD step vs one Lloyd step, trajectories, L_σ − J vs σ.

Conventions for new builders: take numpy arrays and plain numbers (no Streamlit, no caching),
return a ``go.Figure``; mark RBF centres with ``CENTER_MARKER`` and K-Means centroids with
``KMEANS_MARKER`` (plane.py) so symbols mean the same thing everywhere; colour cluster j with
``cluster_colors(k)[j]``.
"""

from . import layout, palette  # noqa: F401
