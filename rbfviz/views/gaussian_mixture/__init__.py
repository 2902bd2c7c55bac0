"""The Gaussian mixture page's arrays, figures and words (no Streamlit)."""
