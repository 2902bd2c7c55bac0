// Starts loading Streamlit's own Plotly bundle (the one st.plotly_chart and the σ scrubber use) as
// soon as a page's first element arrives, instead of when its first figure's element arrives: the
// bundle's 4.7 MB of JavaScript is then fetched and run while the page's script still runs on the
// server. The same module URL as the figures' own import, so the browser loads it once.
export default function preloadPlotly() {
  if (window.Plotly || window.__rbfvizPlotlyPreload) return;
  const main = document.querySelector('script[type="module"][src*="/static/js/index"]');
  const url = new URL("__PLOTLY_CHUNK__", main ? main.src : new URL("static/js/", document.baseURI));
  window.__rbfvizPlotlyPreload = import(/* @vite-ignore */ url.href).catch(() => {});
}
