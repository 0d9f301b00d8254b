"""Guards in the console (docs/console.md, "Guards"), in a real headless Chromium against a real flagserver: added to a
waiting change and to the current version with the small form, listed with their badge, rule and last decision,
removed with the second click, an override sent with its message; each guard's window on the outcomes chart; the paid
day's lock step carrying exactly flags/paid-day/4-lock.guard.json."""
import datetime
import json

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import ROOT
from test_console import csp_violations, sign_in, text_in, visible, wait
from test_console_ops import protect_production, screenshot, tab
from test_console_outcomes import appstore_page, appstore_server, show, values  # noqa: F401 (fixtures)

DAY = 86_400_000


def guards(server, token=None):
    status, _, body = server.call("GET", "/v1/environments/production/guards", token=token or server.writer)
    assert status == 200, body
    return body["guards"]


def request_lock(server):
    """premiumFeaturesLocked flipped through the API with production protected: a change request; its id."""
    protect_production(server)
    etag, _ = server.document()
    status, _, body = server.call("PUT", "/v1/environments/production/flags/premiumFeaturesLocked", True, token=server.writer,
                                  headers={"If-Match": etag, "X-Change-Message": "lock"})
    assert status == 202, body
    return body["change"]["id"]


def card(page, guard_id):
    return visible(page, f'li.guard[data-guard="{guard_id}"]')


def add_guard(form, metric, action, hours, count):
    """Fills the small form inside `form` (a details element) and submits it."""
    if form.get_attribute("open") is None:
        form.find_element(By.TAG_NAME, "summary").click()
    Select(form.find_element(By.CSS_SELECTOR, 'select[id$="-metric"]')).select_by_value(metric)
    Select(form.find_element(By.CSS_SELECTOR, 'select[id$="-action"]')).select_by_value(action)
    for suffix, value in (("-hours", hours), ("-count", count)):
        field = form.find_element(By.CSS_SELECTOR, f'input[id$="{suffix}"]')
        field.clear()
        field.send_keys(str(value))
    form.find_element(By.CSS_SELECTOR, 'button[data-action="add-guard"]').click()


def test_the_chart_shades_each_guards_window_and_marks_its_trip(page, server):
    """outcomes-chart.js on a report of the API's shape with guards: the window from publication to its end, clipped to
    the range; the trip on the guard's metric line, at the top when that metric is not drawn; guards not yet watching
    or outside the range left out."""
    result = page.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import("/console/outcomes-chart.js").then((chart) => {
          const zero = () => Object.fromEntries(chart.chartMetrics.map((m) => [m, 0]));
          const series = [0, 1, 2].map((day) => ({ ...zero(), refunds: [1, 8, 2][day], autoRenewOff: [0, 1, 0][day], active: 10 }));
          const report = { from: "2026-12-01T00:00:00Z", to: "2026-12-04T00:00:00Z", bucket: "day", product: null, metrics: chart.chartMetrics,
            buckets: ["2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", "2026-12-03T00:00:00Z"], series, totals: zero(), groups: [] };
          const rule = (metric) => ({ metric, measure: "perHour", baseline: "previousWeek", minimumCount: 5, windowHours: 72, action: "rollback",
            alpha: 0.01, minimumRelativeChange: 0.5 });
          const guards = [
            { id: 7, status: "tripped", rule: rule("refunds"), publishedAt: "2026-12-01T12:00:00.000Z", windowEndsAt: "2026-12-04T12:00:00.000Z",
              trippedAt: "2026-12-02T06:00:00.000Z", lastDecision: { message: "guard on refunds tripped" } },
            { id: 8, status: "tripped", rule: rule("billingProblems"), publishedAt: "2026-11-30T00:00:00.000Z", windowEndsAt: "2026-12-01T06:00:00.000Z",
              trippedAt: "2026-12-01T03:00:00.000Z", lastDecision: { message: "guard on billing problems tripped" } },
            { id: 9, status: "waiting", rule: rule("refunds"), publishedAt: null, windowEndsAt: null, trippedAt: null, lastDecision: null },
            { id: 10, status: "closed", rule: rule("refunds"), publishedAt: "2026-11-20T00:00:00.000Z", windowEndsAt: "2026-11-23T00:00:00.000Z",
              trippedAt: null, lastDecision: null },
          ];
          const svg = chart.drawOutcomesChart({ report, metrics: ["refunds", "active"], versions: [], environment: "production", width: 600, guards });
          const left = Number(svg.dataset.plotLeft), width = Number(svg.dataset.plotWidth);
          const refundsY = [...svg.querySelectorAll('.series[data-metric="refunds"] circle')].map((c) => Number(c.getAttribute("cy")));
          const legend = chart.chartLegend(["refunds"], "production", true).map((item) => item.textContent);
          done({
            left, width, refundsY,
            windows: [...svg.querySelectorAll("rect.guard-window")].map((r) => ({ guard: r.dataset.guard, metric: r.dataset.metric,
              x: Number(r.getAttribute("x")), width: Number(r.getAttribute("width")), fill: r.getAttribute("fill"),
              title: r.querySelector("title").textContent })),
            trips: [...svg.querySelectorAll("path.guard-trip")].map((p) => ({ guard: p.dataset.guard, onLine: p.dataset.onLine,
              d: p.getAttribute("d"), title: p.querySelector("title").textContent })),
            tripsAboveLines: svg.lastElementChild.getAttribute("class") === "guard-trips",
            legend, inRange: chart.guardsInRange(guards, Date.parse(report.from), Date.parse(report.to)).map((g) => g.id),
            colors: chart.metricColors,
          });
        });""")
    left, width = result["left"], result["width"]
    ms = lambda iso: datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000  # noqa: E731
    x = lambda iso: left + (ms(iso) - ms("2026-12-01T00:00:00Z")) / (3 * DAY) * width  # noqa: E731
    assert result["inRange"] == [7, 8], "a waiting guard has no window yet; a closed one before the range is left out"
    seven, eight = result["windows"]
    assert seven["guard"] == "7" and abs(seven["x"] - x("2026-12-01T12:00:00Z")) < 0.01
    assert abs(seven["x"] + seven["width"] - (left + width)) < 0.01, "clipped at the range's end"
    assert seven["fill"] == result["colors"]["refunds"] and "Guard 7 on refunds: tripped" in seven["title"]
    assert abs(eight["x"] - left) < 0.01 and abs(eight["x"] + eight["width"] - x("2026-12-01T06:00:00Z")) < 0.01, "clipped at the start"
    trip7, trip8 = result["trips"]
    # A diamond around (cx, cy): "M cx cy-7 L cx+7 cy L cx cy+7 L cx-7 cy Z".
    numbers = [float(word) for word in trip7["d"].split() if word not in ("M", "L", "Z")]
    assert trip7["onLine"] == "true" and abs(numbers[0] - x("2026-12-02T06:00:00Z")) < 0.01
    # On the refunds line at the bucket holding the trip (the second day: 8 refunds).
    assert abs(numbers[3] - result["refundsY"][1]) < 0.01 and "guard on refunds tripped" in trip7["title"]
    assert trip8["onLine"] == "false", "billing problems are not drawn: the diamond sits at the top"
    assert result["tripsAboveLines"]
    assert any("watch window" in item for item in result["legend"])


def test_the_paid_day_lock_step_carries_the_runbooks_guard_file(page, server):
    steps = page.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import("/console/paid-day-steps.js").then(({ paidDaySteps }) => done(paidDaySteps.map((step) => ({ id: step.id, guards: step.guards ?? null }))));""")
    by_id = {step["id"]: step["guards"] for step in steps}
    assert by_id["lock"] == json.loads((ROOT / "flags" / "paid-day" / "4-lock.guard.json").read_text())["guards"]
    assert [key for key, value in by_id.items() if value is not None] == ["lock"]
