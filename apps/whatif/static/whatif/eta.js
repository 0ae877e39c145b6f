// Replace each "ask the what-if engine" link with the predicted start it answers.
document.querySelectorAll("a[data-eta]").forEach(function (link) {
  fetch(link.href, {credentials: "same-origin", headers: {Accept: "application/json"}})
    .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
    .then(function (eta) {
      var when = eta.predicted_start ? window.qmWhen(eta.predicted_start) : "not predictable now";
      var error = eta.accuracy && eta.accuracy.median_abs_error_s;
      link.replaceWith(when + (error != null ? " (past predictions were off by " + Math.round(error / 60) + " min, median)" : ""));
    })
    .catch(function () { link.textContent = "not available right now"; });
});
