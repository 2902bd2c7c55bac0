"""Offline pages: a scrubbed view, or the ten lessons, as one self-contained HTML file that works from
file:// with no network (no server, no CDN, no outside fonts).

* ``build.Setting``, ``build.view_payload`` – a view's σ payload from its settings, without the app.
* ``page.interactive_page``               – one view's payload as an HTML page (the app's σ scrubber,
                                            rbfviz/views/common/web/scrub.js, draws it).
* ``lesson_pack.lesson_pack``             – the ten Lessons steps as one HTML page.
* ``maths.equation_html``                 – a LaTeX equation as MathML, which the browser draws itself.
"""
