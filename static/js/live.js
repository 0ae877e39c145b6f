// The live queue view: render the embedded answer, then poll /api/v1/live/queues/ and
// render again. No reload, no framework: a few DOM helpers.
(function () {
  var root = document.getElementById("live-queues");
  if (!root) return;
  var every = Math.max(2, Number(root.dataset.every) || 5) * 1000;
  var statusBox = root.querySelector("[data-live-status]");
  var body = root.querySelector("[data-live-body]");

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }
  function when(iso) { return window.qmWhen(iso, true); }
  function workloadLink(w) {
    var href = root.dataset.workloadUrl.replace("namespace-here", encodeURIComponent(w.namespace))
      .replace("name-here", encodeURIComponent(w.name));
    return el("a", {href: href, "data-workload": w.namespace + "/" + w.name}, [w.namespace + "/" + w.name]);
  }
  function requests(map) {
    return Object.keys(map).map(function (k) { return k + ": " + map[k]; }).join(", ") || "—";
  }
  function flavorTable(q) {
    var head = el("tr", {}, ["Flavor", "Resource", "Nominal", "In use", "Borrowed", "Lent"].map(function (h, i) {
      return el("th", i > 1 ? {"class": "num"} : {}, [h]);
    }));
    var rows = q.flavors.map(function (f) {
      var cells = [f.flavor, f.resource, f.nominal, f.in_use, f.borrowed, f.lent];
      var names = ["flavor", "resource", "nominal", "in_use", "borrowed", "lent"];
      return el("tr", {"data-flavor": f.flavor, "data-resource": f.resource}, cells.map(function (c, i) {
        return el("td", i > 1 ? {"class": "num", "data-col": names[i]} : {}, [c]);
      }));
    });
    return el("table", {"class": "live-flavors"}, [head].concat(rows));
  }
  function workloadTable(list, waiting) {
    if (!list.length) return el("p", {"class": "muted"}, [waiting ? "Nothing waiting." : "Nothing admitted."]);
    var titles = waiting ? ["#", "Workload", "Class", "Priority", "Requests", "Why it waits"]
                         : ["Workload", "Class", "State", "Priority", "Requests", "Flavors"];
    var head = el("tr", {}, titles.map(function (t) { return el("th", {}, [t]); }));
    var rows = list.map(function (w) {
      var flavors = w.flavors.map(function (p) {
        return p.pod_set + ": " + Object.keys(p.flavors).map(function (r) { return r + "→" + p.flavors[r]; }).join(", ");
      }).join("; ");
      var cells = waiting
        ? [w.position === null ? "?" : String(w.position), workloadLink(w), w["class"], String(w.priority), requests(w.requests), w.waiting_reason]
        : [workloadLink(w), w["class"], w.state, String(w.priority), requests(w.requests), flavors];
      return el("tr", {"data-state": w.state}, cells.map(function (c) { return el("td", {}, [c]); }));
    });
    return el("table", {"class": waiting ? "live-waiting" : "live-admitted"}, [head].concat(rows));
  }
  // Each queue's chart element, kept from one poll to the next: Plotly.react updates the
  // drawn figure in place, where a new element and newPlot redrew it whole every poll.
  // Keyed by queue name (GPUs) and by "queue/resource" (CPU, memory…); queue names are
  // DNS labels, so neither key can be mistaken for the other.
  var charts = {};
  function chartOf(q) {
    return charts[q.name] || el("div", {"class": "live-chart", "data-queue-chart": q.name, role: "img",
      "aria-label": "GPUs of " + q.name + " per flavor: nominal, in use, borrowed, lent, waiting"});
  }
  function resourceChartOf(q, r) {
    return charts[q.name + "/" + r.resource] || el("div", {"class": "live-chart",
      "data-resource-chart": q.name + "/" + r.resource, role: "img",
      "aria-label": r.resource + " of " + q.name + " per flavor: nominal, in use, borrowed, lent, waiting"});
  }
  // One figure per other resource, each on its own axis and unit (cores, GiB).
  function resourceCharts(q, kept) {
    var boxes = (q.resource_charts || []).map(function (r) {
      return (kept[q.name + "/" + r.resource] = resourceChartOf(q, r));
    });
    return boxes.length ? [el("h3", {}, ["Other resources"]), el("div", {"class": "live-resources"}, boxes)] : [];
  }
  function queueSection(q, chart, others) {
    var counters = "admitted " + q.admitted_workloads + " · reserving " + q.reserving_workloads +
      " · pending " + q.pending_workloads + (q.cohort ? " · cohort " + q.cohort : " · no cohort");
    var parts = [
      el("h2", {}, [q.name + " "].concat(q.active ? [] : [el("span", {"class": "badge bad"}, ["inactive"])])),
      el("p", {"class": "muted", "data-counters": ""}, [counters + (q.active_reason ? " — " + q.active_reason : "")]),
      chart,
    ].concat(others, [
      flavorTable(q),
      el("p", {}, ["Waiting now asks for: " + requests(q.pending_requests)]),
      el("h3", {}, ["Admitted (" + q.admitted.length + ")"]),
      workloadTable(q.admitted, false),
      el("h3", {}, ["Waiting (" + q.waiting.length + ")"]),
      workloadTable(q.waiting, true),
    ]);
    return el("section", {"class": "live-queue", "data-queue": q.name}, parts);
  }
  // Free GPUs per domain of each topology flavor's levels, and the gangs waiting for one.
  function domainTable(f, lv) {
    var head = el("tr", {}, [lv.level, "Allocatable", "In use", "Free"].map(function (h, i) {
      return el("th", i ? {"class": "num"} : {}, [h]);
    }));
    var rows = lv.domains.map(function (d) {
      return el("tr", {"data-domain": f.flavor + ":" + lv.level + ":" + d.domain}, [
        el("td", {}, [d.domain]), el("td", {"class": "num", "data-col": "allocatable"}, [String(d.allocatable)]),
        el("td", {"class": "num", "data-col": "in_use"}, [String(d.in_use)]),
        el("td", {"class": "num", "data-col": "free"}, [String(d.free)])]);
    });
    return el("table", {"class": "live-domains"}, [head].concat(rows));
  }
  // Each level's chart element, kept between polls like the queues' (Plotly.react).
  var domainCharts = {};
  function topologySection(t, kept) {
    if (!t || !t.flavors.length) return [];
    var parts = [el("h2", {}, ["Free GPUs per topology domain"])];
    t.flavors.forEach(function (f) {
      parts.push(el("h3", {}, ["Flavor " + f.flavor]));
      f.levels.forEach(function (lv) {
        var key = f.flavor + ":" + lv.level;
        kept[key] = domainCharts[key] || el("div", {"class": "live-chart", "data-domain-chart": key, role: "img",
          "aria-label": "GPUs in use and free per " + lv.level + " of " + f.flavor});
        parts.push(kept[key], domainTable(f, lv));
      });
    });
    parts.push(el("h3", {}, ["Waiting for a domain to clear (" + t.waiting.length + ")"]));
    parts.push(t.waiting.length ? el("ul", {"class": "live-domain-waits"}, t.waiting.map(function (w) {
      return el("li", {"data-waits": w.namespace + "/" + w.name}, [workloadLink(w), " (" + w.pod_set + "): " + w.summary]);
    })) : el("p", {"class": "muted"}, ["No waiting workload of yours requires one domain."]));
    return [el("section", {"class": "live-topology"}, parts)];
  }
  function render(data) {
    if (data.state === "unreachable") {
      statusBox.className = "panel warn";
      statusBox.textContent = "Cluster unreachable since " + when(data.unreachable_since) +
        (data.fetched_at ? "; showing what it said at " + when(data.fetched_at) : "; nothing to show yet") +
        ". " + data.detail;
    } else {
      statusBox.className = "panel";
      statusBox.textContent = "As of " + when(data.fetched_at) + ".";
    }
    statusBox.setAttribute("data-state", data.state);
    var kept = {};  // a queue gone from the answer takes its chart with it
    var sections = data.queues.map(function (q) {
      kept[q.name] = chartOf(q);
      return queueSection(q, kept[q.name], resourceCharts(q, kept));
    });
    charts = kept;
    if (!sections.length) sections = [el("p", {"class": "muted"}, ["No queues of your teams in the cluster."])];
    var keptDomains = {};
    sections = sections.concat(topologySection(data.topology, keptDomains));
    domainCharts = keptDomains;
    body.replaceChildren.apply(body, sections);
    var options = {displaylogo: false, responsive: true};
    ((data.topology || {}).flavors || []).forEach(function (f) {
      f.levels.forEach(function (lv) {
        if (window.Plotly) Plotly.react(domainCharts[f.flavor + ":" + lv.level], lv.chart.data, lv.chart.layout, options);
      });
    });
    data.queues.forEach(function (q) {  // after the sections are in the page: Plotly measures them
      if (!window.Plotly) return;
      Plotly.react(charts[q.name], q.chart.data, q.chart.layout, options);
      (q.resource_charts || []).forEach(function (r) {
        Plotly.react(charts[q.name + "/" + r.resource], r.chart.data, r.chart.layout, options);
      });
    });
  }
  function poll() {
    fetch(root.dataset.url, {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(render)
      .catch(function () { statusBox.className = "panel warn"; statusBox.textContent = "The portal is not answering; retrying."; })
      .finally(function () { setTimeout(poll, every); });
  }
  render(JSON.parse(document.getElementById("live-data").textContent));
  setTimeout(poll, every);
})();
