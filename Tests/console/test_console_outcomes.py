"""The console's outcomes view in a real headless Chromium against a real flagserver with the App Store receiver on
(docs/appstore.md, "The outcomes view"): notifications signed with a throw-away chain that carries Apple's markers
(Tests/appstore/appstore_ca.py) are POSTed to the receiver, two versions of production are published, and the view's
chart, markers and totals are checked against the known set; an empty range and a server without a root too."""
import datetime
import sys
import tempfile
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import ROOT, Server
from test_console import csp_violations, sign_in, text_in, visible, wait
from test_console_ops import screenshot, set_value, sign_out, tab

sys.path.insert(0, str(ROOT / "Tests" / "appstore"))
from appstore_ca import make_chain  # noqa: E402
from appstore_sign import APP_APPLE_ID, BUNDLE_ID, Signer, notification, renewal_info, transaction_info  # noqa: E402

HOUR = 3_600_000
DAY = 24 * HOUR
MONTHLY = "symi_plus_monthly"
YEARLY = "symi_plus_yearly"
# What the chart offers (console/outcomes-chart.js), in the totals table's column order.
METRICS = ["started", "introConversions", "renewals", "autoRenewOff", "refunds", "billingProblems", "active"]


def today_ms():
    """Midnight UTC of today, in ms: the view's default range is the 7 UTC days ending today."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return int(datetime.datetime(now.year, now.month, now.day, tzinfo=datetime.timezone.utc).timestamp() * 1000)


def day_text(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%d")


class Subscription:
    """One subscription's notifications, signed as Apple signs them (nested transaction and renewal info too)."""

    def __init__(self, signer, name, product, offer=None):
        self.signer = signer
        self.original = name
        self.product = product
        self.offer = offer or {}
        self.sequence = 0

    def sign(self, kind, subtype, at, expires, grace=None, offer=True, auto_renew=1):
        self.sequence += 1
        transaction = transaction_info(
            original_transaction_id=self.original, transaction_id=f"{self.original}{self.sequence:02d}", product_id=self.product,
            purchase_date=at, expires_date=expires, signed_date=at, **(self.offer if offer else {}))
        renewal = renewal_info(original_transaction_id=self.original, product_id=self.product, signed_date=at,
                               auto_renew_status=auto_renew, grace_period_expires_date=grace)
        return self.signer.sign(notification(notification_type=kind, subtype=subtype, signed_date=at,
                                             signed_transaction_info=self.signer.sign(transaction),
                                             signed_renewal_info=self.signer.sign(renewal)))


def known_set(signer, today):
    """The notifications of four days before today, with what each should count (outcome metrics, docs/appstore.md).

    Returns the signed payloads, the expected totals per (product, offerType, offerIdentifier), and `started` per day.
    """
    free_week = {"offer_type": 1, "offer_identifier": "free-week", "offer_discount_type": "FREE_TRIAL"}
    a = Subscription(signer, "100001", MONTHLY, free_week)
    b = Subscription(signer, "100002", MONTHLY, free_week)
    c = Subscription(signer, "100003", MONTHLY)
    e = Subscription(signer, "100004", YEARLY)
    f = Subscription(signer, "100005", MONTHLY)
    d = lambda days_before, hour: today - days_before * DAY + hour * HOUR  # noqa: E731
    signed = [
        a.sign("SUBSCRIBED", "INITIAL_BUY", d(4, 9), d(4, 9) + 7 * DAY),             # started, intro (free trial)
        b.sign("SUBSCRIBED", "INITIAL_BUY", d(4, 10), d(4, 10) + 7 * DAY),           # started, intro (free trial)
        c.sign("SUBSCRIBED", "INITIAL_BUY", d(4, 11), d(4, 11) + 3 * DAY),           # started
        e.sign("SUBSCRIBED", "INITIAL_BUY", d(3, 12), d(3, 12) + 365 * DAY),         # started
        b.sign("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", d(3, 8), d(4, 10) + 7 * DAY, auto_renew=0),  # auto-renew off
        a.sign("DID_RENEW", None, d(2, 9), d(2, 9) + 30 * DAY, offer=False),         # renewal, the intro's conversion
        f.sign("SUBSCRIBED", "RESUBSCRIBE", d(2, 15), d(2, 15) + 30 * DAY),          # started
        c.sign("DID_FAIL_TO_RENEW", "GRACE_PERIOD", d(1, 6), d(1, 6), grace=today + 15 * DAY),  # billing problem
        e.sign("REFUND", None, d(1, 14), d(3, 12) + 365 * DAY),                      # refund
        f.sign("DID_RENEW", None, d(1, 15), d(1, 15) + 30 * DAY),                    # renewal
    ]
    zero = dict.fromkeys(METRICS[:-1], 0)
    groups = {
        (MONTHLY, "1", "free-week"): {**zero, "started": 2, "autoRenewOff": 1},
        (MONTHLY, "", ""): {**zero, "started": 2, "introConversions": 1, "renewals": 2, "billingProblems": 1},
        (YEARLY, "", ""): {**zero, "started": 1, "refunds": 1},
    }
    # The 7 days of the default range, oldest first: today-6 ... today.
    started_per_day = [0, 0, 3, 1, 1, 0, 0]
    return signed, groups, started_per_day


@pytest.fixture
def appstore_server():
    """flagserver with the receiver on: the throw-away chain's root, the peer's bundle id and app id, Production."""
    with tempfile.TemporaryDirectory(prefix="console-outcomes-") as directory:
        chain = make_chain()
        root_pem, _ = chain.write_root(directory)
        running = Server(directory, extra=["--appstore-root-certificate", root_pem, "--appstore-bundle-id", BUNDLE_ID,
                                           "--appstore-app-apple-id", str(APP_APPLE_ID), "--appstore-environments", "Production"])
        running.signer = Signer(chain)
        yield running
        running.stop()


@pytest.fixture
def appstore_page(browser, appstore_server):
    """The browser on a fresh tab state for the receiver's server (as conftest's `page` for `server`)."""
    browser.set_window_size(1280, 900)
    browser.get(appstore_server.url + "/console/")
    browser.execute_script("sessionStorage.clear()")
    browser.get(appstore_server.url + "/console/")
    return browser


def post_notification(server, signed_payload):
    status, _, body = server.call("POST", "/v1/appstore/notifications", {"signedPayload": signed_payload})
    assert status == 200 and body == {"stored": True}, (status, body)


def publish(server, value, message):
    etag, _ = server.document()
    status, _, body = server.call("PUT", "/v1/environments/production/flags/monetizationEnabled", value, token=server.writer,
                                  headers={"If-Match": etag, "X-Change-Message": message})
    assert status == 200 and body["changed"], body


def points(page, metric):
    return page.find_elements(By.CSS_SELECTOR, f'#outcomes-chart .series[data-metric="{metric}"] circle.point')


def values(page, metric):
    """The points of a metric as {bucket: value}, read in one script (the chart may be redrawn between two reads)."""
    return page.execute_script("""
        return Object.fromEntries([...document.querySelectorAll(`#outcomes-chart .series[data-metric="${arguments[0]}"] circle.point`)]
          .map((p) => [p.dataset.bucket, Number(p.dataset.value)]))""", metric)


def table_rows(page):
    """The totals table: (product, offerType, offerIdentifier) -> {metric: count}, and the All row."""
    rows = {}
    for row in page.find_elements(By.CSS_SELECTOR, "#outcomes-totals tbody tr"):
        key = (row.get_attribute("data-product"), row.get_attribute("data-offer-type"), row.get_attribute("data-offer"))
        rows[key] = {cell.get_attribute("data-metric"): int(cell.get_attribute("data-value")) for cell in row.find_elements(By.CSS_SELECTOR, "td.count")}
    total = page.find_element(By.CSS_SELECTOR, "#outcomes-totals tfoot tr")
    return rows, {cell.get_attribute("data-metric"): int(cell.get_attribute("data-value")) for cell in total.find_elements(By.CSS_SELECTOR, "td.count")}


def show(page):
    page.find_element(By.CSS_SELECTOR, "#outcomes-form button[type=submit]").click()


def test_the_outcomes_chart_counts_what_followed_each_version(appstore_page, appstore_server):
    page, server = appstore_page, appstore_server
    today = today_ms()
    signed, groups, started_per_day = known_set(server.signer, today)
    for payload in signed:
        post_notification(server, payload)
    publish(server, False, "pause monetization before the price change")
    time.sleep(0.05)
    publish(server, True, "monetization back on")
    _, _, history = server.call("GET", "/v1/environments/production/versions")
    published = {entry["version"]: entry for entry in history["versions"]}
    assert sorted(published) == [1, 2, 3], "the flags directory's import, then the two publishes"

    status, _, answer = server.call("GET", "/v1/appstore/outcomes", token=server.writer)
    assert status == 200 and answer["receiver"] == "on", answer

    sign_in(page, server.writer)
    tab(page, "outcomes")
    wait(page, lambda d: len(values(d, "started")) == 7)
    assert page.find_element(By.ID, "outcomes-state").get_attribute("data-state") == "shown"
    assert page.find_element(By.ID, "outcomes-from").get_attribute("value") == day_text(today - 6 * DAY)
    assert page.find_element(By.ID, "outcomes-through").get_attribute("value") == day_text(today)

    # One point per UTC day for each metric, `started` counted on the days the set started subscriptions.
    started = values(page, "started")
    assert list(started.values()) == started_per_day
    assert list(started)[2] == day_text(today - 4 * DAY) + "T00:00:00.000Z"
    for metric in METRICS:
        assert len(points(page, metric)) == 7, metric
    legend = page.find_element(By.ID, "outcomes-legend").text
    assert "started" in legend and "refunds" in legend and "a published version of production" in legend

    # Every version of production in the range is a marker, in the order and at the place of its publishedAt.
    chart = page.find_element(By.CSS_SELECTOR, "#outcomes-chart svg")
    start, end = float(chart.get_attribute("data-from")), float(chart.get_attribute("data-to"))
    left, width = float(chart.get_attribute("data-plot-left")), float(chart.get_attribute("data-plot-width"))
    markers = page.find_elements(By.CSS_SELECTOR, "#outcomes-chart .version-marker")
    places = []
    for marker in markers:
        version = int(marker.get_attribute("data-version"))
        entry = published[version]
        at = datetime.datetime.fromisoformat(entry["publishedAt"].replace("Z", "+00:00")).timestamp() * 1000
        x = float(marker.find_element(By.TAG_NAME, "line").get_attribute("x1"))
        assert abs(x - (left + (at - start) / (end - start) * width)) < 0.01, version
        assert marker.find_element(By.TAG_NAME, "text").text == f"v{version}"
        title = marker.find_element(By.TAG_NAME, "title").get_attribute("textContent")
        assert f"Version {version}" in title and entry["author"] in title and entry["message"] in title, title
        places.append((x, version))
    assert [version for _, version in sorted(places)] == [1, 2, 3]
    assert places[0][0] < places[1][0] < places[2][0], "each later version further right"
    title = next(m for m in markers if m.get_attribute("data-version") == "2").find_element(By.TAG_NAME, "title").get_attribute("textContent")
    assert "console-writer" in title and "pause monetization before the price change" in title

    # The totals by product and offer equal the known set's; `active` at the range's end: A, B, C (in grace), F.
    rows, total = table_rows(page)
    for key, expected in groups.items():
        assert {metric: rows[key][metric] for metric in expected} == expected, key
    for key, counts in rows.items():
        if key not in groups:
            assert all(counts[metric] == 0 for metric in METRICS[:-1]), (key, counts)
    assert {metric: total[metric] for metric in METRICS[:-1]} == {
        "started": 5, "introConversions": 1, "renewals": 2, "autoRenewOff": 1, "refunds": 1, "billingProblems": 1}
    assert total["active"] == 4
    assert "introductory: free-week" in page.find_element(By.ID, "outcomes-totals").text
    screenshot(page, "console-outcomes.png")

    # A metric unticked leaves the chart; per hour there is a point for each of the 168 hours.
    page.find_element(By.ID, "outcomes-metric-refunds").click()
    wait(page, lambda d: not points(d, "refunds"))
    assert "refunds" not in page.find_element(By.ID, "outcomes-legend").text
    Select(page.find_element(By.ID, "outcomes-bucket")).select_by_value("hour")
    show(page)
    wait(page, lambda d: len(values(d, "started")) == 168)
    hourly = values(page, "started")
    assert sum(hourly.values()) == 5 and hourly[day_text(today - 3 * DAY) + "T12:00:00.000Z"] == 1

    # One product: only its group, only its starts.
    Select(page.find_element(By.ID, "outcomes-bucket")).select_by_value("day")
    Select(page.find_element(By.ID, "outcomes-product")).select_by_value(YEARLY)
    show(page)
    wait(page, lambda d: list(values(d, "started").values()) == [0, 0, 0, 1, 0, 0, 0])
    rows, total = table_rows(page)
    assert list(rows) == [(YEARLY, "", "")] and total["refunds"] == 1 and total["started"] == 1

    # The set is Production's: Sandbox alone has nothing in the range.
    Select(page.find_element(By.ID, "outcomes-store")).select_by_value("Sandbox")
    show(page)
    text_in(page, "#outcomes-state", "No notifications in this range for symi_plus_yearly")
    Select(page.find_element(By.ID, "outcomes-store")).select_by_value("Production")
    show(page)
    wait(page, lambda d: d.find_element(By.ID, "outcomes-state").get_attribute("data-state") == "shown")
    assert table_rows(page)[1]["started"] == 1

    # A range with nothing in it says so, and draws no chart.
    Select(page.find_element(By.ID, "outcomes-product")).select_by_value("")
    set_value(page, "outcomes-from", day_text(today - 40 * DAY))
    set_value(page, "outcomes-through", day_text(today - 34 * DAY))
    show(page)
    text_in(page, "#outcomes-state", "No notifications in this range")
    assert page.find_element(By.ID, "outcomes-state").get_attribute("data-state") == "empty"
    assert not page.find_element(By.ID, "outcomes-figure").is_displayed()
    assert not page.find_element(By.ID, "outcomes-table-box").is_displayed()
    # A range that runs backwards is refused in the page.
    set_value(page, "outcomes-from", day_text(today))
    show(page)
    text_in(page, "#outcomes-error", "must not be after")
    assert csp_violations(page) == []


def test_the_outcomes_at_375_pixels_in_german_and_for_a_reader(appstore_page, appstore_server):
    page, server = appstore_page, appstore_server
    post_notification(server, known_set(server.signer, today_ms())[0][0])
    page.set_window_size(375, 812)
    width = page.execute_script("return window.innerWidth")
    Select(page.find_element(By.ID, "language")).select_by_value("de")
    sign_in(page, server.writer)
    assert page.find_element(By.ID, "tab-outcomes").text == "Ergebnisse"
    tab(page, "outcomes")
    wait(page, lambda d: len(values(d, "started")) == 7)
    assert "begonnen" in page.find_element(By.ID, "outcomes-legend").text
    assert page.execute_script("return document.scrollingElement.scrollWidth") <= max(width, 375)
    unlabelled = page.execute_script("""
        return [...document.querySelectorAll('#view-outcomes input, #view-outcomes select, #view-outcomes button')]
          .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
          .map(e => e.id || e.outerHTML)""")
    assert unlabelled == []

    # The outcomes need a writer (docs/appstore.md): a reader is told so, not shown an empty chart.
    sign_out(page)
    sign_in(page, server.reader)
    tab(page, "outcomes")
    text_in(page, "#outcomes-error", "Schreiber")
    assert not page.find_element(By.ID, "outcomes-figure").is_displayed()
    assert csp_violations(page) == []


def test_a_server_without_an_app_store_root_says_the_receiver_is_off(page, server):
    """conftest's server has no --appstore-root-certificate: the receiver answers 404, the outcomes (what was stored
    before stays readable) say `"receiver": "off"`, and the view says why nothing arrives."""
    assert server.call("POST", "/v1/appstore/notifications", {"signedPayload": "x.y.z"})[0] == 404
    status, _, body = server.call("GET", "/v1/appstore/outcomes?from=2026-01-01&to=2026-01-08&bucket=day", token=server.writer)
    assert status == 200 and body["receiver"] == "off", body
    sign_in(page, server.writer)
    tab(page, "outcomes")
    state = text_in(page, "#outcomes-state", "receiver is off")
    assert "--appstore-root-certificate" in state and "docs/appstore.md" in state, state
    assert page.find_element(By.ID, "outcomes-state").get_attribute("data-state") == "off"
    assert not page.find_element(By.ID, "outcomes-figure").is_displayed(), "nothing was ever stored here"
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
            query: String(view.outcomesQuery("2026-11-30", "2026-12-06", "hour", "symi_plus_yearly", "Sandbox")),
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
    assert result["query"] == "from=2026-11-30&to=2026-12-07&bucket=hour&product=symi_plus_yearly&environment=Sandbox"
    assert result["backwards"] is None
    assert result["offers"] == ["introductory: free-week", "no offer", "offer code"]
    assert result["empty"] == [False, True]
