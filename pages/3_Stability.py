"""Stability view (placeholder until the view lands: built on ui.page.setup_page)."""
import streamlit as st

from ui.page import setup_page

ctx = setup_page("Stability")
st.title("Stability")
st.info("This view is being built. The shared controls in the sidebar already work.")
