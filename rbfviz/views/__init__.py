"""What each page of the app shows, as numpy arrays, Plotly figures and words (no Streamlit).

The rule: one package per page, named like the page. Everything a page shows lives in its package;
what several pages share lives in ``common``. The algorithms the views call stay in the core
(``rbfviz/*.py``: ``steps``, ``annealing``, ``choose_k``, ``mixture``, ...).

==================  =================================  ===========================================
package             page (pages/…)                     holds
==================  =================================  ===========================================
explorer            1_Explorer                         arrays, figures, picks (+ picking), levels,
                                                       words, receipt
step_by_step        2_Step_by_step                     arrays (the replayed sequence), figures
annealing           3_Annealing                        arrays, figures, levels, words, receipt
how_many_clusters   4_How_many_clusters                figures
stability           5_Stability                        arrays, figures, levels, words, receipt;
                                                       family (the α-entmax family), collapse (the
                                                       ``rbfviz reproduce`` figure)
equivalence         6_Equivalence                      arrays, figures, levels, words, receipt
gaussian_mixture    7_Gaussian_mixture                 figures
lessons             8_Lessons                          arrays (the lesson steps), class_session
                                                       (a class's answers as the teacher sees them)
neural_network      9_Neural_network                   arrays, figures
common              (every page)                       see below
==================  =================================  ===========================================

Inside a package the files are named by job:

* ``arrays.py``  the numbers the page shows, computed from the core (validated at the boundary);
* ``figures.py`` Plotly figure builders: numpy arrays and plain numbers in, ``go.Figure`` out;
* ``levels.py``  the page's figure at every σ of the slider, for the σ payload (``common.scrub``);
* ``words.py``   the "In words" sentence under each figure (what a screen reader reads);
* ``receipt.py`` the Python snippet that recomputes the numbers on screen.

``common`` holds what several pages draw or say the same way:

* ``layout``    ``figure(data, layout)``, ``base_layout``, ``plane_axes``, field images as PNG, themes;
* ``palette``   cluster colours (cluster j has the same colour everywhere), ``mix_colors``, ``fade``;
* ``kinds``     how each map and precision is named and drawn (``KIND_LABELS``, ``KIND_COLORS``, ...);
* ``plane``     the plane's shared traces and markers (points coloured by r, RBF centres with
  ``CENTER_MARKER``, K-Means centroids with ``KMEANS_MARKER``, step arrows, ``drawn_points``);
* ``sigma``     the σ pieces: log σ axis and ticks, vertical σ lines, the shaded σ window, play/pause
  buttons, zero markers on log axes, ``nearest_index`` (the σ level nearest to σ);
* ``presenter`` presenter mode (larger marks and text for a projector);
* ``words``     number formatting for the "In words" sentences (``number``, ``percent``, ``count``);
* ``receipt``   the ``Receipt`` and the lines every view's receipt shares;
* ``scrub``     the σ payload codec (``ScrubLevel``, ``scrub_payload``, ``read_payload``,
  ``figure_at``); it imports no torch, so a load-test client can decode payloads.

A new page gets a new package here, named like the page, and a new page file pages/<N>_<Name>.py.
"""
