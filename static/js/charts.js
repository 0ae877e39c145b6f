// Draws every element with data-chart="<json_script id>" using plotly.js from our static files;
// pages that swap in fresh content (autorefresh.js) call qmDrawCharts on it again.
window.qmDrawCharts = function (root) {
  (root || document).querySelectorAll("[data-chart]").forEach(function (el) {
    var spec = JSON.parse(document.getElementById(el.dataset.chart).textContent);
    Plotly.newPlot(el, spec.data, spec.layout, {displaylogo: false, responsive: true});
  });
};
window.qmDrawCharts(document);
