"""Step by step: this view is being built; it only shows the shared sidebar for now."""

import streamlit as st

from ui.page import setup_page

ctx = setup_page("Step by step")
st.title("Step by step")
st.info("This view is being built.")
