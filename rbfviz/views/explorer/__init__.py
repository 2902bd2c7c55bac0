"""The Explorer page's arrays, figures and words (no Streamlit)."""
