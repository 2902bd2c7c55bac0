"""The Equivalence page's arrays, figures and words (no Streamlit)."""
