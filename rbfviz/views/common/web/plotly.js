// window.Plotly, loaded once: Streamlit's own Plotly bundle (the one st.plotly_chart uses) defines it
// when imported. The offline page defines window.Plotly itself before any of this runs. Shared by the σ
// scrubber (scrub.js) and the plane editor (plane_edit.js).
async function loadPlotly() {
  if (window.Plotly) return window.Plotly;
  const main = document.querySelector('script[type="module"][src*="/static/js/index"]');
  const url = new URL("__PLOTLY_CHUNK__", main ? main.src : new URL("static/js/", document.baseURI));
  await import(/* @vite-ignore */ url.href);
  if (!window.Plotly) throw new Error("Plotly did not load");
  return window.Plotly;
}
