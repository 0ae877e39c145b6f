// Notebook and job pages keep themselves current: poll the object's API record and, when
// its state, queue position or reasons change, swap in the page's fresh <main> in place
// (no reload). Pages of finished work carry no [data-refresh-url], so polling stops there.
(function () {
  var every = 3000;
  var full = null;
  function marker() { return document.querySelector("[data-refresh-url]"); }
  function short(d) { return d.state + "|" + (d.queue_position == null ? "" : d.queue_position); }
  function long(d) { return JSON.stringify([d.state, d.queue_position, d.pending_reason, d.state_reason]); }
  function swap() {
    return fetch(location.href, {credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("main");
        if (!fresh) return;
        document.querySelector("main").replaceWith(fresh);
        if (window.qmDrawCharts) window.qmDrawCharts(fresh);  // the timeline, drawn again
      });
  }
  function tick() {
    var m = marker();
    if (!m) return;
    fetch(m.dataset.refreshUrl, {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (d) {
        // The first answer is compared with what the page was rendered from.
        var changed = full === null ? short(d) !== m.dataset.refreshState : long(d) !== full;
        full = long(d);
        if (changed) return swap();
      })
      .catch(function () {})
      .finally(function () { setTimeout(tick, every); });
  }
  setTimeout(tick, 1000);
})();
