"""Guards in the console (docs/console.md, "Guards"), in a real headless Chromium against a real flagserver: added to a
waiting change and to the current version with the small form, listed with their badge, rule and last decision,
removed with the second click, an override sent with its message; each guard's window on the outcomes chart; the paid
day's lock step carrying exactly flags/paid-day/4-lock.guard.json."""
import datetime
import json
import sqlite3
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import ROOT
from test_console import csp_violations, open_change, preview, publish, sign_in, text_in, visible, wait
from test_console_ops import protect_production, screenshot, sign_out, tab
from test_console_outcomes import (DAY, HOUR, MONTHLY, Subscription, appstore_page, appstore_server, known_set,  # noqa: F401 (fixtures)
                                   post_notification, show, today_ms, values)
from test_console_outcomes import publish as publish_through_api



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


def test_guards_on_a_change_and_on_a_version(page, server):
    change = request_lock(server)
    sign_in(page, server.writer)
    tab(page, "changes")
    item = visible(page, f'li.change[data-change="{change}"]')
    assert "No guards." in item.find_element(By.CSS_SELECTOR, ".change-guards").text

    # A bad field is refused by the server with the rule's own words; nothing is added.
    form = item.find_element(By.CSS_SELECTOR, "details.guard-add")
    add_guard(form, "autoRenewOff", "notify", 200, 5)
    assert "windowHours: a previousWeek baseline watches at most 168 hours" in text_in(
        page, f'li.change[data-change="{change}"] details.guard-add .error', "windowHours")
    assert guards(server) == []

    add_guard(page.find_element(By.CSS_SELECTOR, f'li.change[data-change="{change}"] details.guard-add'), "autoRenewOff", "notify", 24, 3)
    text_in(page, "#notice", "Guard 1 added.")
    added = card(page, 1)
    assert added.get_attribute("data-status") == "waiting" and added.find_element(By.CSS_SELECTOR, ".badge").text == "waiting"
    assert added.find_element(By.CSS_SELECTOR, ".rule").text == ("auto-renew off per hour against the previous week (at least 3 notifications, "
                                                                 "24 h window, alpha 0.01, a change of +50 % or more) · then: notify")
    assert f"on change {change}" in added.text and "starts watching when its change is published" in added.text
    assert "added by console-writer" in added.text and "No decision yet." in added.text
    [stored] = guards(server)
    assert stored["change"] == change and stored["status"] == "waiting" and stored["createdBy"] == "console-writer"
    assert stored["rule"]["metric"] == "autoRenewOff" and stored["rule"]["windowHours"] == 24 and stored["rule"]["minimumCount"] == 3

    # A guard on the current version watches from its publication.
    version = server.document()[1]["version"]
    box = visible(page, "#guard-list")
    assert f"Add a guard to version {version}" in box.text
    add_guard(box.find_element(By.CSS_SELECTOR, "details.guard-add"), "refunds", "rollback", 72, 5)
    text_in(page, "#notice", "Guard 2 added.")
    watching = card(page, 2)
    assert watching.get_attribute("data-status") == "watching" and f"on version {version}" in watching.text
    assert "watches " in watching.text and "then: roll back" in watching.text
    screenshot(page, "console-guards.png")

    # Override: only a tripped guard, by a second person, with a message. The console's card for a tripped guard
    # (drawn by guards.js itself, as made by someone else) sends it; the server refuses it, since this writer made
    # guard 2, and the card says so.
    page.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import("/console/guards.js").then(({ guardCard }) => {
          const box = document.createElement("ul");
          box.id = "tripped-fixture";
          box.append(guardCard({ id: 2, environment: "production", status: "tripped", change: null, version: arguments[0],
            previousVersion: null, product: null, appStoreEnvironment: "Production",
            rule: { metric: "refunds", measure: "perHour", baseline: "previousWeek", minimumCount: 5, windowHours: 72, action: "rollback",
                    alpha: 0.01, minimumRelativeChange: 0.5 },
            createdBy: "someone-else", createdAt: "2027-03-01T08:00:00.000Z", publishedAt: "2027-03-01T09:00:00.000Z",
            windowEndsAt: "2027-03-04T09:00:00.000Z", trippedAt: "2027-03-01T15:00:30.000Z",
            lastDecision: { verdict: "tripped", message: "guard on refunds tripped: 6 per hour over 6 hours", at: "2027-03-01T15:00:30.000Z" },
            action: { kind: "rollback", outcome: "done", version: 9, changes: [], reason: null },
            overriddenBy: null, overriddenAt: null, overrideMessage: null }));
          document.getElementById("guard-list").append(box);
          done();
        });""", version)
    fixture = visible(page, "#tripped-fixture li.guard")
    assert "Last decision: guard on refunds tripped: 6 per hour over 6 hours" in fixture.text
    assert "What it did: roll back done (version 9)" in fixture.text
    assert fixture.find_elements(By.CSS_SELECTOR, '[data-action="remove-guard"]') == []
    fixture.find_element(By.CSS_SELECTOR, '[data-action="override-guard"]').click()
    assert "Say why you override the guard." in text_in(page, "#tripped-fixture .error", "Say why")
    fixture.find_element(By.CSS_SELECTOR, "input.guard-override-message").send_keys("the spike was a store outage")
    fixture.find_element(By.CSS_SELECTOR, '[data-action="override-guard"]').click()
    assert "a second person must override it" in text_in(page, "#tripped-fixture .error", "second person")
    # Its own author is refused by the server, whatever the state (a second person overrides).
    status, _, body = server.call("POST", "/v1/guards/2/override", {"message": "mine"}, token=server.writer)
    assert status == 403 and body["error"]["code"] == "self_override", body

    # Remove: the first click asks, the second removes.
    tab(page, "flags")
    tab(page, "changes")
    remove = card(page, 1).find_element(By.CSS_SELECTOR, '[data-action="remove-guard"]')
    remove.click()
    assert remove.text == "Remove for good" and guards(server)[-1]["status"] == "waiting"
    remove.click()
    text_in(page, "#notice", "Guard 1 removed.")
    wait(page, lambda d: card(d, 1).get_attribute("data-status") == "removed")
    assert {guard["id"]: guard["status"] for guard in guards(server)} == {1: "removed", 2: "watching"}
    assert csp_violations(page) == []


def test_guards_in_german_at_375_pixels(page, server):
    change = request_lock(server)
    status, _, body = server.call("POST", "/v1/environments/production/guards",
                                  {"change": change, "rule": {"metric": "refunds", "action": "rollback"}}, token=server.writer)
    assert status == 201, body
    page.set_window_size(375, 800)
    sign_in(page, server.writer)
    Select(page.find_element(By.ID, "language")).select_by_value("de")
    tab(page, "changes")
    guard = card(page, body["guard"]["id"])
    assert guard.find_element(By.CSS_SELECTOR, ".badge").text == "wartet"
    assert guard.find_element(By.CSS_SELECTOR, ".rule").text.startswith("Erstattungen je Stunde gegenüber der Vorwoche (mindestens 5")
    assert "dann: zurücksetzen" in guard.text
    assert page.execute_script("return document.scrollingElement.scrollWidth <= window.innerWidth")
    for control in page.find_elements(By.CSS_SELECTOR, "#view-changes input, #view-changes select"):
        assert page.find_elements(By.CSS_SELECTOR, f'label[for="{control.get_attribute("id")}"]'), control.get_attribute("id")
    assert csp_violations(page) == []


def test_a_watching_guard_is_shaded_on_the_outcomes_chart(appstore_page, appstore_server):  # noqa: F811
    page, server = appstore_page, appstore_server
    signed, _, _ = known_set(server.signer, today_ms())
    for payload in signed:
        post_notification(server, payload)
    version = server.document()[1]["version"]
    status, _, body = server.call("POST", "/v1/environments/production/guards",
                                  {"version": version, "rule": {"metric": "refunds", "action": "rollback"}}, token=server.writer)
    assert status == 201, body
    guard = body["guard"]
    sign_in(page, server.writer)
    tab(page, "outcomes")
    Select(page.find_element(By.ID, "outcomes-bucket")).select_by_value("hour")
    show(page)
    wait(page, lambda d: len(values(d, "refunds")) == 168)
    window = visible(page, f'#outcomes-chart rect.guard-window[data-guard="{guard["id"]}"]')
    chart = page.find_element(By.CSS_SELECTOR, "#outcomes-chart svg")
    start, end = float(chart.get_attribute("data-from")), float(chart.get_attribute("data-to"))
    left, width = float(chart.get_attribute("data-plot-left")), float(chart.get_attribute("data-plot-width"))
    published = datetime.datetime.fromisoformat(guard["publishedAt"].replace("Z", "+00:00")).timestamp() * 1000
    assert abs(float(window.get_attribute("x")) - (left + (published - start) / (end - start) * width)) < 0.01
    assert window.get_attribute("data-to") == guard["windowEndsAt"]
    assert "watch window" in page.find_element(By.ID, "outcomes-legend").text
    assert page.find_elements(By.CSS_SELECTOR, "#outcomes-chart path.guard-trip") == [], "it has not tripped"
    assert csp_violations(page) == []

def test_a_change_made_in_the_dialog_carries_its_guard(page, server):
    sign_in(page, server.writer)
    open_change(page, "showIntroFreeSubscriptionBanner")
    preview(page)
    assert not page.find_element(By.ID, "change-guard-fields").is_displayed()
    page.find_element(By.ID, "change-guard").click()
    Select(page.find_element(By.ID, "change-guard-metric")).select_by_value("started")
    Select(page.find_element(By.ID, "change-guard-action")).select_by_value("notify")
    publish(page, "hide the start-screen card")
    notice = text_in(page, "#notice", "watches it")
    assert "Published version 2." in notice and "Guard 1 watches it." in notice
    [guard] = guards(server)
    assert guard["version"] == 2 and guard["change"] is None and guard["status"] == "watching"
    assert guard["rule"]["metric"] == "started" and guard["rule"]["action"] == "notify" and guard["rule"]["windowHours"] == 72
    assert csp_violations(page) == []


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


def test_a_tripped_pause_guard_holds_a_schedule_until_a_second_person_overrides_it(appstore_page, appstore_server):  # noqa: F811
    """A pauseSchedules guard really trips in the flagserver process on refunds posted through its receiver: the held
    schedule says which guard holds it and on what, in the changes and the schedules view (English and German); the
    watched version's author and the guard's creator get no override form; a second person overrides it with the form
    and its message, which releases the schedule.

    The process's guards read the wall clock and watch complete hours only, so the guard's publication is moved three
    hours back in its database row (what stepping the clock does in process, Tests/FlagServiceTests/GuardHarness.swift):
    the three complete hours since hold the 25 refunds, against a ceiling of 0.5 an hour (1.5 expected, p < 10⁻²⁰)."""
    page, server = appstore_page, appstore_server
    publish_through_api(server, False, "switch monetization off")
    version = server.document()[1]["version"]
    # Added by a third writer: the console-writer published the version, which the server counts as its own too.
    carol = server.token("console-carol", "writer")
    status, _, body = server.call("POST", "/v1/environments/production/guards",
                                  {"version": version, "rule": {"metric": "refunds", "baseline": "ceiling", "threshold": 0.5,
                                                                "action": "pauseSchedules"}}, token=carol)
    assert status == 201, body
    guard_id = body["guard"]["id"]
    at = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)).isoformat(timespec="milliseconds")
    status, _, body = server.call("POST", "/v1/environments/production/schedules",
                                  {"at": at, "message": "lock tomorrow", "flags": {"premiumFeaturesLocked": True}}, token=server.writer)
    assert status == 201, body
    change_id = body["change"]["id"]
    database = sqlite3.connect(server.database, timeout=30)
    with database:
        database.execute("UPDATE guards SET published_at = published_at - ? WHERE id = ?", (3 * HOUR, guard_id))
    database.close()
    now = int(time.time() * 1000)
    last_hour = now - now % HOUR - HOUR
    for index in range(25):
        refunded = Subscription(server.signer, f"7000{index:02d}", MONTHLY)
        post_notification(server, refunded.sign("REFUND", None, last_hour + index * 60_000, last_hour + 30 * DAY))
    # The job evaluates at least once a minute.
    deadline = time.time() + 150
    while (stored := server.call("GET", f"/v1/guards/{guard_id}", token=server.writer)[2]["guard"])["status"] != "tripped":
        assert stored["status"] == "watching" and time.time() < deadline, stored
        time.sleep(1)
    assert stored["action"]["kind"] == "pauseSchedules" and stored["action"]["changes"] == [change_id], stored
    assert stored["lastDecision"]["count"] == 25, stored["lastDecision"]
    assert server.call("GET", f"/v1/changes/{change_id}", token=server.writer)[2]["change"]["heldByGuard"] == guard_id

    held = f"Held by guard {guard_id} (refunds per hour): not published when due until the guard is overridden or removed."
    sign_in(page, server.writer)
    tab(page, "changes")
    assert visible(page, f'li.change[data-change="{change_id}"] p.held').text == held
    own = card(page, guard_id)
    assert own.get_attribute("data-status") == "tripped" and "Your own guard or change: another person overrides it." in own.text
    assert own.find_elements(By.CSS_SELECTOR, '[data-action="override-guard"]') == []
    # The paid-day view's guard cards learn the version's author through the same helper as the changes view.
    author = server.call("GET", f"/v1/environments/production/versions/{version}", token=server.writer)[2]["author"]
    looked_up = page.execute_async_script("""const done = arguments[arguments.length - 1];
        import("/console/guards.js").then((guards) => guards.withVersionAuthors("production", [{ id: 0, status: "tripped", version: arguments[0] }]))
          .then(([guard]) => done(guard.versionAuthor ?? null), (failure) => done(String(failure)));""", version)
    assert looked_up == author and author, (looked_up, author)
    tab(page, "schedules")
    assert visible(page, f'li[data-schedule="{change_id}"] p.held').text == held
    Select(page.find_element(By.ID, "language")).select_by_value("de")
    text_in(page, f'li[data-schedule="{change_id}"] p.held', f"Angehalten von Wächter {guard_id} (Erstattungen je Stunde): ")
    Select(page.find_element(By.ID, "language")).select_by_value("en")
    text_in(page, f'li[data-schedule="{change_id}"] p.held', held)
    sign_out(page)
    sign_in(page, carol)
    tab(page, "changes")
    assert "Your own guard or change: another person overrides it." in card(page, guard_id).text
    assert card(page, guard_id).find_elements(By.CSS_SELECTOR, '[data-action="override-guard"]') == []
    sign_out(page)

    bob = server.token("console-bob", "writer")
    sign_in(page, bob)
    tab(page, "changes")
    tripped = card(page, guard_id)
    assert "What it did: pause the schedules done" in tripped.text
    tripped.find_element(By.CSS_SELECTOR, '[data-action="override-guard"]').click()
    assert "Say why you override the guard." in text_in(page, f"#guard-{guard_id}-error", "Say why")
    card(page, guard_id).find_element(By.CSS_SELECTOR, "input.guard-override-message").send_keys("refunds from a store outage")
    card(page, guard_id).find_element(By.CSS_SELECTOR, '[data-action="override-guard"]').click()
    text_in(page, "#notice", f"Guard {guard_id} overridden.")
    wait(page, lambda d: card(d, guard_id).get_attribute("data-status") == "overridden")
    assert "Overridden by console-bob: refunds from a store outage" in card(page, guard_id).text
    wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, f'li.change[data-change="{change_id}"] p.held') == [])
    stored = server.call("GET", f"/v1/guards/{guard_id}", token=bob)[2]["guard"]
    assert stored["status"] == "overridden" and stored["overriddenBy"] == "console-bob", stored
    change = server.call("GET", f"/v1/changes/{change_id}", token=bob)[2]["change"]
    assert change["status"] == "scheduled" and change["heldByGuard"] is None, change
    tab(page, "schedules")
    visible(page, f'li[data-schedule="{change_id}"]')
    assert page.find_elements(By.CSS_SELECTOR, f'li[data-schedule="{change_id}"] p.held') == []
    assert csp_violations(page) == []
