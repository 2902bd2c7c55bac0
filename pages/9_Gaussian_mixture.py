"""Gaussian mixture: this view is being built; it only shows the shared sidebar for now."""

import streamlit as st

from ui.page import setup_page

ctx = setup_page("Gaussian mixture")
st.title("Gaussian mixture")
st.info("This view is being built.")
