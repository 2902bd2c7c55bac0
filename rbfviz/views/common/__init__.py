"""What several views share: layout, palette, presenter mode, the σ pieces, plane traces, words and receipt
helpers, and the σ payload codec (no Streamlit, no torch)."""
