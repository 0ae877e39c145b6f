// Polls the run's API while it replays; updates the bar and reloads when done.
// Without JavaScript the page's meta refresh does the same, more coarsely.
(function () {
  var panel = document.getElementById("whatif-progress");
  if (!panel) return;
  var bar = panel.querySelector("progress");
  var label = panel.querySelector(".progress-label");
  var deadline = Date.now() + 30 * 60 * 1000;
  function poll() {
    if (Date.now() > deadline) return;
    fetch(panel.dataset.url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (run) {
        bar.value = run.progress_percent;
        label.textContent = run.replays_done + " of " + run.replays_total + " replays";
        if (run.status === "done" || run.status === "failed") window.location.reload();
        else setTimeout(poll, 1500);
      })
      .catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 1000);
})();
