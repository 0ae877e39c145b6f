"""Steps the browser tests share: signing in, approving as the admin; where screenshots go."""

from testkit.paths import REPO

ARTIFACTS = REPO / "test-artifacts"


def sign_in(page, base_url: str, username: str, password: str = "pw") -> None:
    page.goto(f"{base_url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base_url}/")


def approve_as_admin(page, base_url: str, comment: str) -> None:
    """Sign out, sign in as the admin (``root``) and approve the newest change request."""
    page.click("button[type=submit]:has-text('Sign out')")
    sign_in(page, base_url, "root")
    page.goto(f"{base_url}/change-requests/")
    page.click("table a >> nth=0")
    page.fill("textarea[name=comment]", comment)
    page.click("button[value=approve]")


# What every drawn Plotly chart on a page must satisfy, read from the figure plotly.js
# drew (``el.data``, ``el._fullData``, ``el._fullLayout``): each legend entry has a data
# point, each axis a title, and each axis of values (linear, log, date) its unit in
# parentheses. Answers {chart id: [problems]} and the number of points per chart.
CHART_CHECK = """
() => {
  const points = (t) => {
    if (t.type === "treemap") return (t.values || []).filter((v) => v > 0).length;
    if (t.type === "heatmap") return (t.z || []).flat().filter((v) => v !== null).length;
    const x = t.x || [], y = t.y || [];
    return x.filter((v, i) => v !== null && v !== undefined && y[i] !== null && y[i] !== undefined).length;
  };
  const out = {};
  document.querySelectorAll(".js-plotly-plot").forEach((el, n) => {
    const name = el.id || el.dataset.queueChart || el.dataset.resourceChart || "chart-" + n;
    const problems = [];
    let total = 0;
    (el._fullData || []).forEach((t, i) => {
      const drawn = points(el.data[t.index !== undefined ? t.index : i]);
      total += drawn;
      if (t.showlegend && drawn === 0) problems.push("legend entry '" + t.name + "' has no data");
      if (!["bar", "scatter", "heatmap"].includes(t.type)) return;
      [t.xaxis || "x", t.yaxis || "y"].forEach((ref) => {
        const axis = el._fullLayout[ref.replace(/^([xy])/, "$1axis")];
        const title = (axis && axis.title && axis.title.text) || "";
        if (!title) problems.push(ref + " of '" + t.name + "' has no title");
        else if (["linear", "log", "date"].includes(axis.type) && !/\\(.+\\)/.test(title))
          problems.push(ref + " title '" + title + "' gives no unit in parentheses");
      });
    });
    out[name] = {problems: [...new Set(problems)], points: total};
  });
  return out;
}
"""


def check_charts(page, expected: set[str], screenshot: str) -> dict:
    """Wait for the ``expected`` charts (element ids, a live queue's name, or "queue/resource"
    for its CPU or memory figure), assert they
    are drawn with data and pass ``CHART_CHECK``, and save a screenshot. Answers the check."""
    for name in expected:
        page.wait_for_function(
            f"(() => {{ const el = document.getElementById({name!r}) || "
            f'document.querySelector(\'[data-queue-chart="{name}"], [data-resource-chart="{name}"]\'); '
            "return el && el.data !== undefined && el._fullLayout !== undefined; })()",
            timeout=30_000,
        )
    found = page.evaluate(CHART_CHECK)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{screenshot}.png"), full_page=True)
    assert expected <= set(found), found
    problems = {name: c["problems"] for name, c in found.items() if c["problems"]}
    assert problems == {}, problems
    empty = [name for name in expected if found[name]["points"] == 0]
    assert empty == [], f"drawn without data: {empty}"  # this module's asserts are not rewritten
    return found
