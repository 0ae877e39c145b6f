// Times as the pages write them (core.dates.format_when): "2026-12-04 14:39 UTC", always
// with the zone. The browser writes UTC: it does not know the zone the server shows.
window.qmWhen = function (iso, seconds) {
  if (!iso) return "—";
  return new Date(iso).toISOString().slice(0, seconds ? 19 : 16).replace("T", " ") + " UTC";
};
