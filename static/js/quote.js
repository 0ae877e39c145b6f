// The job form's "Check" button: posts what is filled in to the quote endpoint and says
// what would happen to the job if it were submitted now. Nothing is submitted or saved.
(function () {
  var NUMBERS = ["gpus_per_pod", "pods", "max_runtime_minutes", "checkpoint_interval_minutes"];
  var button = document.getElementById("check-quote");
  if (!button) return;
  var form = button.form;
  var out = document.getElementById("quote-result");

  function body() {
    var data = {};
    new FormData(form).forEach(function (value, name) {
      if (name === "csrfmiddlewaretoken" || value === "") return;
      if (name === "command") {
        var lines = value.split("\n").filter(function (l) { return l.trim() !== ""; });
        if (lines.length) data.command = lines;
        return;
      }
      data[name] = NUMBERS.indexOf(name) >= 0 ? Number(value) : value;
    });
    return data;
  }

  function cost(answer) {
    var c = answer.expected_cost;
    if (!c) return answer.cost_note ? " No expected cost: " + answer.cost_note + "." : "";
    var basis = c.run_time_basis === "recorded_p50" ? "median of recorded runs" : "at most";
    return " Expected cost $" + c.usd.toFixed(2) + " (" + c.gpu_hours + " GPU-hours, " + basis + ").";
  }

  function risk(answer) {
    var r = answer.preemption_risk;
    if (!r) return "";
    var who = " Could be preempted by: " + r.policy_summary + ".";
    if (r.probability === null) return who + " Preemption risk unknown: " + r.note + ".";
    if (!r.by_policy.length) return who;
    return who + " Preemption risk " + (r.probability * 100).toFixed(1) + "% over " +
      r.run_hours + " h (" + r.preemptions + " preemptions in " + r.admitted_hours +
      " admitted hours of " + r.scope + ").";
  }

  function words(answer) {
    if (answer.verdict === "never") return "Never: " + answer.summary + ".";
    if (answer.verdict === "now") return "Now: " + answer.summary + "." + cost(answer) + risk(answer);
    if (answer.verdict === "later") return "Later: " + answer.summary + "." + cost(answer) + risk(answer);
    return (answer.field ? answer.field + ": " : "") + answer.detail;
  }

  button.addEventListener("click", function () {
    out.textContent = "Checking…";
    fetch(button.dataset.quoteUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRFToken": form.elements.csrfmiddlewaretoken.value
      },
      body: JSON.stringify(body())
    })
      .then(function (r) { return r.json(); })
      .then(function (answer) { out.textContent = words(answer); })
      .catch(function () { out.textContent = "The check did not answer; try again."; });
  });
})();
