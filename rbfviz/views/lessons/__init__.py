"""The Lessons page's arrays, figures and words (no Streamlit)."""
