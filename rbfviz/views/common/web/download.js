// A figure as PNG or SVG, from the page: Plotly renders the figure as drawn (its size, its theme) into a
// file; PNG at twice the pixels for slides and print. Used by the σ scrubber (scrub.js) and by the
// app's PNG and SVG buttons (ui/exports.py). A chart drawn by st.plotly_chart gets its ink and axis
// text from the page's stylesheet (ui.page.CHART_CSS), which the file does not carry: the copy that
// goes into the file has them written in.
function rbfvizDownloadFigure(gd, format, name) {
  const shown = gd._fullLayout || {};
  const options = { format, filename: name, width: shown.width, height: shown.height,
    scale: format === "png" ? 2 : 1 };
  if (!gd.closest("[data-testid='stPlotlyChart']")) return window.Plotly.downloadImage(gd, options);
  const text = getComputedStyle(gd).color, ink = "__THEME_INK__";
  const swap = (v) => (typeof v === "string" ? (v.toLowerCase() === ink ? text : v)
    : Array.isArray(v) ? v.map(swap)
    : v && typeof v === "object" && !ArrayBuffer.isView(v)
      ? Object.fromEntries(Object.entries(v).map(([key, item]) => [key, swap(item)])) : v);
  const layout = swap(gd.layout);
  for (const key of Object.keys(layout)) {
    if (/^[xy]axis\d*$/.test(key) && layout[key]) {
      layout[key] = { ...layout[key], tickfont: { ...(layout[key].tickfont || {}), color: text } };
      if (layout[key].title) {
        const title = typeof layout[key].title === "string" ? { text: layout[key].title } : layout[key].title;
        layout[key].title = { ...title, font: { ...(title.font || {}), color: text } };
      }
    }
  }
  return window.Plotly.downloadImage({ data: swap(gd.data), layout }, options);
}
