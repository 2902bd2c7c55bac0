"""Explorer (placeholder until the view lands)."""
import streamlit as st

from ui.page import setup_page

ctx = setup_page("Explorer")
st.title("Explorer")
st.info("This view is being built.")
