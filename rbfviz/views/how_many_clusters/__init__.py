"""The How many clusters page's arrays, figures and words (no Streamlit)."""
