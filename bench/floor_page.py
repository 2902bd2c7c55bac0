"""The floor of bench/bench_first_open.py: the least a Streamlit page with a Plotly figure costs.

    python -m streamlit run bench/floor_page.py

One small Plotly chart and nothing else: no sidebar, no component, no computation. It is served by
the same kind of process as app.py (an ``st.App`` with the app's compressed front-end files), so what
a view takes beyond this page's first open is what the project controls.
"""

import plotly.graph_objects as go
import streamlit as st

from ui.compression import compression_middleware

if __name__ != "__main__":  # uvicorn's import: the server
    app = st.App(__file__, middleware=compression_middleware())
else:  # Streamlit's script run: the page
    st.title("Floor")
    figure = go.Figure(go.Scatter(x=[0, 1, 2, 3], y=[1, 3, 2, 4], mode="markers"))
    st.plotly_chart(figure, width="stretch")
