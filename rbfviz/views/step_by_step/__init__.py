"""The Step by step page's arrays, figures and words (no Streamlit)."""
