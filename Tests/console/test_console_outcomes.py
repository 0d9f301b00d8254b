"""The console's outcomes view in a real headless Chromium against a real flagserver (docs/appstore.md, "The outcomes
view"): the chart and the query through the view's own functions, and a server without an App Store root."""
from selenium.webdriver.common.by import By

from test_console import csp_violations, sign_in, text_in
from test_console_ops import tab


def test_a_server_without_an_app_store_root_says_the_receiver_is_off(page, server):
    """conftest's server has no --appstore-root-certificate: the route answers 404 and the view says why."""
    assert server.call("GET", "/v1/appstore/outcomes?from=2026-01-01&to=2026-01-08&bucket=day", token=server.writer)[0] == 404
    sign_in(page, server.writer)
    tab(page, "outcomes")
    state = text_in(page, "#outcomes-state", "receiver is off")
    assert "--appstore-root-certificate" in state and "docs/appstore.md" in state, state
    assert page.find_element(By.ID, "outcomes-state").get_attribute("data-state") == "off"
    assert not page.find_element(By.ID, "outcomes-figure").is_displayed()
    assert page.find_element(By.ID, "outcomes-error").text == ""
    assert csp_violations(page) == []


def test_the_chart_and_the_query_through_the_views_own_functions(page, server):
    """outcomes-chart.js and outcomes-view.js's pure parts in the browser, on a report of the API's shape."""
    result = page.execute_async_script("""
        const done = arguments[arguments.length - 1];
        Promise.all([import("/console/outcomes-chart.js"), import("/console/outcomes-view.js")]).then(([chart, view]) => {
          const zero = () => Object.fromEntries(chart.chartMetrics.map((m) => [m, 0]));
          const series = [0, 1, 2].map((day) => ({ ...zero(), started: [4, 0, 9][day], refunds: day, active: 10 + day }));
          const report = { from: "2026-12-01T00:00:00Z", to: "2026-12-04T00:00:00Z", bucket: "day", product: null, metrics: chart.chartMetrics,
            buckets: ["2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", "2026-12-03T00:00:00Z"], series,
            totals: { ...zero(), started: 13, refunds: 3, active: 12 }, groups: [] };
          const versions = [
            { version: 9, publishedAt: "2026-12-04T00:00:00Z", author: "late", message: "after the range" },
            { version: 8, publishedAt: "2026-12-02T12:00:00.000Z", author: "anna", message: "<b>lock</b>" },
            { version: 7, publishedAt: "2026-12-01T00:00:00Z", author: "ben", message: "" },
            { version: 6, publishedAt: "2026-11-30T23:59:59Z", author: "old", message: "before the range" },
          ];
          const svg = chart.drawOutcomesChart({ report, metrics: ["started", "refunds", "active"], versions, environment: "production", width: 600 });
          const left = Number(svg.dataset.plotLeft), width = Number(svg.dataset.plotWidth);
          const values = (metric) => [...svg.querySelectorAll(`.series[data-metric="${metric}"] circle`)].map((c) => Number(c.dataset.value));
          const cy = (metric) => [...svg.querySelectorAll(`.series[data-metric="${metric}"] circle`)].map((c) => Number(c.getAttribute("cy")));
          done({
            started: values("started"), refunds: values("refunds"), active: values("active"),
            startedY: cy("started"), activeY: cy("active"),
            series: [...svg.querySelectorAll(".series")].map((g) => g.dataset.metric),
            dashed: svg.querySelector('.series[data-metric="active"] polyline').getAttribute("stroke-dasharray"),
            markers: [...svg.querySelectorAll(".version-marker")].map((g) => ({ version: g.dataset.version,
              x: Number(g.querySelector("line").getAttribute("x1")), label: g.querySelector("text").textContent,
              title: g.querySelector("title").textContent })),
            left, width, rightTicks: [...svg.querySelectorAll(".tick.y-right")].map((t) => t.textContent),
            leftTicks: [...svg.querySelectorAll(".tick.y-left")].map((t) => t.textContent),
            xTicks: [...svg.querySelectorAll(".tick.x")].map((t) => t.textContent),
            styled: svg.querySelectorAll("[style]").length, html: svg.querySelector("title").textContent,
            nice: [chart.niceTicks(0), chart.niceTicks(3), chart.niceTicks(9), chart.niceTicks(230)],
            hourTicks: chart.timeTicks(Date.parse("2026-12-01T00:00:00Z"), Date.parse("2026-12-02T00:00:00Z"), 8).step / 3600000,
            query: String(view.outcomesQuery("2026-11-30", "2026-12-06", "hour", "symi_plus_yearly")),
            backwards: view.outcomesQuery("2026-12-06", "2026-11-30", "day", ""),
            offers: [view.offerText({ offerType: 1, offerIdentifier: "free-week" }), view.offerText({ offerType: null, offerIdentifier: null }),
              view.offerText({ offerType: 3, offerIdentifier: null })],
            empty: [view.isEmpty(report), view.isEmpty({ ...report, totals: { ...zero(), active: 5 } })],
          });
        }, (error) => done({ error: String(error) }));
    """)
    assert "error" not in result, result
    assert result["started"] == [4, 0, 9] and result["refunds"] == [0, 1, 2] and result["active"] == [10, 11, 12]
    assert result["series"] == ["started", "refunds", "active"] and result["dashed"], "only the chosen metrics; active dashed"
    assert result["startedY"][2] < result["startedY"][0] < result["startedY"][1], "a larger count is higher up"
    assert result["leftTicks"] == ["0", "5", "10"] and result["rightTicks"] == ["0", "5", "10", "15"]
    assert result["xTicks"] == ["1 Dec", "2 Dec", "3 Dec", "4 Dec"]
    # The versions in [from, to) only, oldest first, each at the x of its time: the range's start at the plot's left
    # edge, 12:00 of the second day at half of the plot (1.5 of 3 days).
    markers = result["markers"]
    assert [m["version"] for m in markers] == ["7", "8"]
    assert abs(markers[0]["x"] - result["left"]) < 1e-6
    assert abs(markers[1]["x"] - (result["left"] + result["width"] / 2)) < 1e-6
    assert markers[1]["label"] == "v8" and "anna" in markers[1]["title"] and "<b>lock</b>" in markers[1]["title"]
    assert result["styled"] == 0, "no style attribute: the CSP (style-src 'self') would refuse it"
    assert [n["ticks"] for n in result["nice"]] == [[0, 1], [0, 1, 2, 3], [0, 5, 10], [0, 100, 200, 300]]
    assert result["hourTicks"] == 3
    assert result["query"] == "from=2026-11-30&to=2026-12-07&bucket=hour&product=symi_plus_yearly"
    assert result["backwards"] is None
    assert result["offers"] == ["introductory: free-week", "no offer", "offer code"]
    assert result["empty"] == [False, True]
