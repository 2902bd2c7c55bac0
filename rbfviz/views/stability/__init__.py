"""The Stability page's arrays, figures and words (no Streamlit)."""
