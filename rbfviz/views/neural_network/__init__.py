"""The Neural network page's arrays, figures and words (no Streamlit)."""
