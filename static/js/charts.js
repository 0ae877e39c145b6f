// Draws every element with data-chart="<json_script id>" using plotly.js from our static files.
document.querySelectorAll("[data-chart]").forEach(function (el) {
  var spec = JSON.parse(document.getElementById(el.dataset.chart).textContent);
  Plotly.newPlot(el, spec.data, spec.layout, {displaylogo: false, responsive: true});
});
