"""The Annealing page's arrays, figures and words (no Streamlit)."""
