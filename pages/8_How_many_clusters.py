"""How many clusters: this view is being built; it only shows the shared sidebar for now."""

import streamlit as st

from ui.page import setup_page

ctx = setup_page("How many clusters")
st.title("How many clusters")
st.info("This view is being built.")
