"""The console's ops views in a real headless Chromium against a real flagserver: schedules, policy, audit,
webhooks, tokens and the guided paid day with two real people (docs/console.md)."""
import datetime
import http.server
import json
import threading
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import ROOT, SCREENSHOTS
from test_console import csp_violations, open_change, preview, publish, sign_in, text_in, visible, wait


def tab(driver, name):
    driver.find_element(By.ID, f"tab-{name}").click()
    visible(driver, f"#view-{name}")


def set_value(driver, element_id, value):
    """A date/time input set as the browser's own picker would, with the input event the page listens to."""
    driver.execute_script("const e = document.getElementById(arguments[0]); e.value = arguments[1];"
                          "e.dispatchEvent(new Event('input', {bubbles: true}));", element_id, value)


def screenshot(driver, name):
    """The whole page, not only the window: the window grown to the page's height for the shot, then restored."""
    size = driver.get_window_size()
    height = driver.execute_script("return document.scrollingElement.scrollHeight")
    driver.set_window_size(size["width"], min(max(height + 140, size["height"]), 4000))
    driver.save_screenshot(str(SCREENSHOTS / name))
    driver.set_window_size(size["width"], size["height"])


def protect_production(server):
    admin = server.token("policy-admin", "admin")
    policy = json.loads((ROOT / "flags" / "policy" / "production.json").read_text())
    status, _, body = server.call("PUT", "/v1/environments/production/policy", policy, token=admin,
                                  headers={"X-Change-Message": "protect the paid launch"})
    assert status == 200, body


def sign_out(driver):
    driver.find_element(By.ID, "tab-flags").click()
    driver.find_element(By.ID, "sign-out").click()


def test_a_schedule_from_the_change_dialog_in_the_browsers_time_zone_then_cancelled(page, server):
    page.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Europe/Berlin"})
    try:
        sign_in(page, server.writer)
        open_change(page, "showIntroFreeSubscriptionBanner")
        preview(page)
        page.find_element(By.ID, "change-later").click()
        assert "Europe/Berlin" in page.find_element(By.ID, "change-at-label").text
        set_value(page, "change-at", "2027-03-01T00:00")
        # Midnight in Berlin (winter time, UTC+1) is 23:00 UTC the day before: what the server gets.
        assert "2027-02-28T23:00:00.000Z" in page.find_element(By.ID, "change-at-utc").text
        assert page.find_element(By.ID, "change-publish").text == "Schedule"
        page.save_screenshot(str(SCREENSHOTS / "console-schedule.png"))
        publish(page, "the free intro period is over")
        notice = text_in(page, "#notice", "Scheduled change")
        change_id = notice.split("Scheduled change ")[1].split(":")[0]
        status, _, shown = server.call("GET", f"/v1/changes/{change_id}")
        assert shown["change"]["applyAt"] == "2027-02-28T23:00:00.000Z" and shown["change"]["status"] == "scheduled"
        assert shown["change"]["author"] == "console-writer" and shown["change"]["message"] == "the free intro period is over"
        assert server.document()[1]["version"] == 1, "nothing published now"
    finally:
        page.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})

    tab(page, "schedules")
    card = visible(page, f'[data-schedule="{change_id}"]')
    assert "showIntroFreeSubscriptionBanner → false" in card.text and card.get_attribute("data-status") == "scheduled"
    card.find_element(By.ID, f"schedule-{change_id}-note").send_keys("not yet")
    card.find_element(By.CSS_SELECTOR, 'button[data-action="cancel"]').click()
    text_in(page, "#notice", f"Change {change_id} cancelled")
    assert server.call("GET", f"/v1/changes/{change_id}")[2]["change"]["status"] == "cancelled"
    Select(page.find_element(By.ID, "schedule-filter")).select_by_value("done")
    card = visible(page, f'[data-schedule="{change_id}"]')
    assert "console-writer: not yet" in card.text
    assert csp_violations(page) == []


def test_conflicted_and_failed_schedules_say_why(page, server):
    # A flag the failing schedule's flag will require, removed again before its time.
    etag, _ = server.document()
    status, _, body = server.call("PUT", "/v1/environments/production/flags/tempGate", {"type": "boolean", "default": True},
                                  token=server.writer, headers={"If-Match": etag, "X-Change-Message": "a gate"})
    assert status == 200, body
    at = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=10)).isoformat(timespec="milliseconds")
    status, _, body = server.call("POST", "/v1/environments/production/schedules",
                                  {"at": at, "message": "pause", "flags": {"monetizationEnabled": False}}, token=server.writer)
    assert status == 201, body
    change_id = body["change"]["id"]
    status, _, body = server.call("POST", "/v1/environments/production/schedules",
                                  {"at": at, "message": "gated feature", "flags": {"gatedFeature": {
                                      "type": "boolean", "default": True, "requires": {"tempGate": True}}}}, token=server.writer)
    assert status == 201, body
    failing_id = body["change"]["id"]
    etag, envelope = server.document()
    document = envelope["document"]
    del document["flags"]["tempGate"]
    status, _, body = server.call("PUT", "/v1/environments/production/document", document, token=server.writer,
                                  headers={"If-Match": etag, "X-Change-Message": "the gate is gone"})
    assert status == 200, body
    etag, _ = server.document()
    # Someone else changes the same flag to something else before its time: the schedule must not overwrite it.
    status, _, _ = server.call("PUT", "/v1/environments/production/flags/monetizationEnabled",
                               {"type": "boolean", "default": True, "description": "changed meanwhile"}, token=server.writer,
                               headers={"If-Match": etag, "X-Change-Message": "meanwhile"})
    assert status == 200
    deadline = time.time() + 30
    while server.call("GET", f"/v1/changes/{failing_id}")[2]["change"]["status"] != "failed" or \
            server.call("GET", f"/v1/changes/{change_id}")[2]["change"]["status"] != "conflicted":
        assert time.time() < deadline, "the schedules never ran"
        time.sleep(0.2)
    sign_in(page, server.reader)
    tab(page, "schedules")
    Select(page.find_element(By.ID, "schedule-filter")).select_by_value("problems")
    card = visible(page, f'[data-schedule="{change_id}"]')
    assert card.get_attribute("data-status") == "conflicted"
    assert "Not published" in card.text and "/flags/monetizationEnabled" in card.text
    assert card.find_elements(By.CSS_SELECTOR, "button") == [], "a reader cancels nothing"
    failed = visible(page, f'[data-schedule="{failing_id}"]')
    assert failed.get_attribute("data-status") == "failed"
    assert "does not validate" in failed.text and "/flags/gatedFeature/requires" in failed.text, failed.text
    page.save_screenshot(str(SCREENSHOTS / "console-schedules-problems.png"))


def test_the_policy_is_edited_and_its_errors_shown_at_their_paths(page, server):
    admin = server.token("console-admin", "admin")
    sign_in(page, admin)
    tab(page, "policy")
    form = visible(page, "#policy-form")
    assert "No policy set yet" in form.text
    page.find_element(By.ID, "policy-new-flag").send_keys("premiumFeaturesLocked")
    page.find_element(By.ID, "policy-add").click()
    row = visible(page, '[data-policy-flag="premiumFeaturesLocked"]')
    row.find_element(By.CSS_SELECTOR, "input[type=checkbox]").click()
    owner = row.find_element(By.ID, "policy-flag-0-owner")
    owner.send_keys("monetization")
    row.find_element(By.ID, "policy-flag-0-remove-after").send_keys("2027-13-01")
    ttl = page.find_element(By.ID, "policy-ttl")
    ttl.clear()
    ttl.send_keys("1000")
    page.find_element(By.ID, "policy-save").click()
    text_in(page, "#policy-issues", "/requestTTLHours")
    assert "/flags/premiumFeaturesLocked/removeAfter" in page.find_element(By.ID, "policy-issues").text
    # Each problem also next to its field.
    assert "/requestTTLHours" in page.find_element(By.ID, "policy-ttl-error").text
    assert "removeAfter" in page.find_element(By.ID, "policy-flag-0-remove-after-error").text
    assert page.find_element(By.ID, "policy-ttl").get_attribute("aria-invalid") == "true"
    screenshot(page, "console-policy.png")
    assert server.call("GET", "/v1/environments/production/policy")[2]["updatedBy"] is None, "nothing saved"

    ttl = page.find_element(By.ID, "policy-ttl")
    ttl.clear()
    ttl.send_keys("48")
    date = page.find_element(By.ID, "policy-flag-0-remove-after")
    date.clear()
    date.send_keys("2027-06-01")
    page.find_element(By.ID, "policy-save").click()
    text_in(page, "#notice", "policy of production is saved")
    _, _, saved = server.call("GET", "/v1/environments/production/policy")
    assert saved["updatedBy"] == "console-admin"
    assert saved["policy"]["requestTTLHours"] == 48
    assert saved["policy"]["flags"]["premiumFeaturesLocked"] == {"owner": "monetization", "protected": True, "removeAfter": "2027-06-01"}
    text_in(page, "#policy-form", "Last changed by console-admin")

    # A writer sees no admin views at all.
    sign_out(page)
    sign_in(page, server.writer)
    for name in ["policy", "audit", "webhooks", "tokens"]:
        assert not page.find_element(By.ID, f"tab-{name}").is_displayed(), name
    assert csp_violations(page) == []


def test_the_audit_filters_pages_and_says_why_a_write_was_refused(page, server):
    admin = server.token("console-admin", "admin")
    etag, _ = server.document()
    assert server.call("PUT", "/v1/environments/production/flags/monetizationEnabled", False, token=server.writer,
                       headers={"If-Match": etag, "X-Change-Message": "pause"})[0] == 200
    for _ in range(55):
        status, _, _ = server.call("PUT", "/v1/environments/staging/flags/monetizationEnabled", True, token=server.reader,
                                   headers={"X-Change-Message": "not allowed"})
        assert status == 403
    deadline = time.time() + 10
    while len(server.call("GET", "/v1/audit?outcome=refused&limit=1000", token=admin)[2]["entries"]) < 55:
        assert time.time() < deadline, "refusals are committed within ~50 ms"
        time.sleep(0.1)

    sign_in(page, admin)
    tab(page, "audit")
    visible(page, "#audit-list .audit-entry")
    assert "Europe" in page.find_element(By.ID, "audit-zone").text or "UTC" in page.find_element(By.ID, "audit-zone").text
    Select(page.find_element(By.ID, "audit-outcome")).select_by_value("refused")
    page.find_element(By.ID, "audit-actor").send_keys("console-reader")
    page.find_element(By.CSS_SELECTOR, "#audit-form button[type=submit]").click()
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#audit-list .audit-entry")) == 50)
    first = page.find_element(By.CSS_SELECTOR, "#audit-list .audit-entry")
    assert "Refused (403): forbidden" in first.text and "console-reader" in first.text and "staging" in first.text
    page.save_screenshot(str(SCREENSHOTS / "console-audit.png"))
    more = page.find_element(By.ID, "audit-more")
    assert more.is_displayed()
    more.click()
    wait(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#audit-list .audit-entry")) == 55)
    ids = [int(e.get_attribute("data-audit")) for e in page.find_elements(By.CSS_SELECTOR, "#audit-list .audit-entry")]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 55, "newest first, no line twice"
    wait(page, lambda d: not d.find_element(By.ID, "audit-more").is_displayed())

    # The accepted publish, by environment and action; a time range in the future matches nothing.
    page.find_element(By.ID, "audit-actor").clear()
    Select(page.find_element(By.ID, "audit-outcome")).select_by_value("ok")
    Select(page.find_element(By.ID, "audit-env")).select_by_value("production")
    Select(page.find_element(By.ID, "audit-action")).select_by_value("publish")
    page.find_element(By.CSS_SELECTOR, "#audit-form button[type=submit]").click()
    wait(page, lambda d: "monetizationEnabled" in d.find_element(By.ID, "audit-list").text)
    entries = page.find_elements(By.CSS_SELECTOR, "#audit-list .audit-entry")
    assert all("publish" in e.text and "production" in e.text for e in entries)
    set_value(page, "audit-since", "2099-01-01T00:00:00")
    page.find_element(By.CSS_SELECTOR, "#audit-form button[type=submit]").click()
    text_in(page, "#audit-list", "No audit lines match")
    assert csp_violations(page) == []


class Receiver(http.server.BaseHTTPRequestHandler):
    """A webhook receiver that fails the first delivery (500) and accepts the next (204)."""
    calls = 0

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Receiver.calls += 1
        self.send_response(500 if Receiver.calls == 1 else 204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_webhooks_added_with_the_secret_once_deliveries_with_every_attempt_and_removed(page, server):
    Receiver.calls = 0
    receiver = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        admin = server.token("console-admin", "admin")
        sign_in(page, admin)
        tab(page, "webhooks")
        url = f"http://127.0.0.1:{receiver.server_port}/hook"
        page.find_element(By.ID, "webhook-url").send_keys("https://user:pass@hooks.example/x")
        page.find_element(By.CSS_SELECTOR, '#webhook-events input[value="version.published"]').click()
        page.find_element(By.CSS_SELECTOR, "#webhook-form button[type=submit]").click()
        assert "user information" in text_in(page, "#webhook-url-error", "/url")
        page.find_element(By.ID, "webhook-url").clear()
        page.find_element(By.ID, "webhook-url").send_keys(url)
        page.find_element(By.CSS_SELECTOR, '#webhook-envs input[value="production"]').click()
        page.find_element(By.CSS_SELECTOR, "#webhook-form button[type=submit]").click()
        secret = visible(page, "#webhook-secret-once .secret").text
        assert secret.startswith("whsec_") and "shown only now" in page.find_element(By.ID, "webhook-secret-once").text
        _, _, listed = server.call("GET", "/v1/webhooks", token=admin)
        webhook = listed["webhooks"][0]
        assert webhook["url"] == url and webhook["events"] == ["version.published"] and webhook["environments"] == ["production"]

        etag, _ = server.document()
        assert server.call("PUT", "/v1/environments/production/flags/monetizationEnabled", False, token=server.writer,
                           headers={"If-Match": etag, "X-Change-Message": "pause"})[0] == 200
        deadline = time.time() + 20
        while server.call("GET", f"/v1/webhooks/{webhook['id']}/deliveries", token=admin)[2]["deliveries"][:1] == [] or \
                server.call("GET", f"/v1/webhooks/{webhook['id']}/deliveries", token=admin)[2]["deliveries"][0]["status"] != "delivered":
            assert time.time() < deadline, "the delivery was never retried"
            time.sleep(0.2)

        tab(page, "flags")
        tab(page, "webhooks")
        assert not page.find_element(By.ID, "webhook-secret-once").is_displayed(), "the secret is shown once"
        assert secret not in page.find_element(By.TAG_NAME, "body").text
        card = visible(page, f'[data-webhook="{webhook["id"]}"]')
        card.find_element(By.CSS_SELECTOR, "button[aria-controls]").click()
        delivery = visible(page, f'#deliveries-{webhook["id"]} .delivery')
        assert delivery.get_attribute("data-status") == "delivered" and "version.published" in delivery.text
        attempts = delivery.find_elements(By.CSS_SELECTOR, ".attempts li")
        assert len(attempts) == 2
        assert "Attempt 1" in attempts[0].text and "HTTP 500" in attempts[0].text
        assert "Attempt 2" in attempts[1].text and "HTTP 204" in attempts[1].text
        screenshot(page, "console-webhooks.png")

        remove = card.find_element(By.CSS_SELECTOR, 'button[data-action="remove"]')
        remove.click()
        assert remove.text == "Remove for good"
        assert server.call("GET", "/v1/webhooks", token=admin)[2]["webhooks"] != [], "one click removes nothing"
        remove.click()
        text_in(page, "#webhook-list", "No webhooks")
        assert server.call("GET", "/v1/webhooks", token=admin)[2]["webhooks"] == []
        assert csp_violations(page) == []
    finally:
        receiver.shutdown()
        receiver.server_close()


def test_tokens_created_with_role_and_environments_shown_once_and_revoked(page, server):
    admin = server.token("console-admin", "admin")
    sign_in(page, admin)
    tab(page, "tokens")
    own = visible(page, '[data-token="console-admin"]')
    assert "The token of this session" in own.text and own.find_elements(By.CSS_SELECTOR, "button") == []

    page.find_element(By.ID, "token-name").send_keys("no spaces allowed")
    page.find_element(By.CSS_SELECTOR, "#token-form button[type=submit]").click()
    assert "/name" in text_in(page, "#token-name-error", "/name")
    page.find_element(By.ID, "token-name").clear()
    page.find_element(By.ID, "token-name").send_keys("ops-dana")
    Select(page.find_element(By.ID, "token-role")).select_by_value("writer")
    page.find_element(By.CSS_SELECTOR, '#token-envs input[value="staging"]').click()
    page.find_element(By.CSS_SELECTOR, "#token-form button[type=submit]").click()
    secret = visible(page, "#token-secret-once .secret").text
    assert secret.startswith("sfl_")
    assert page.find_element(By.ID, "token-name-error").text == "", "the earlier error is gone"
    card = visible(page, '[data-token="ops-dana"]')
    assert "writer" in card.text and "staging" in card.text
    screenshot(page, "console-tokens.png")
    status, _, whoami = server.call("GET", "/v1/whoami", token=secret)
    assert status == 200 and whoami == {"name": "ops-dana", "role": "writer", "environments": ["staging"], "readsArePublic": True}

    taken = page.find_element(By.ID, "token-name")
    taken.send_keys("ops-dana")
    page.find_element(By.CSS_SELECTOR, "#token-form button[type=submit]").click()
    assert "revoke it first" in text_in(page, "#token-error", "ops-dana")

    tab(page, "flags")
    tab(page, "tokens")
    assert not page.find_element(By.ID, "token-secret-once").is_displayed()
    card = visible(page, '[data-token="ops-dana"]')
    revoke = card.find_element(By.CSS_SELECTOR, 'button[data-action="revoke"]')
    revoke.click()
    assert server.call("GET", "/v1/whoami", token=secret)[0] == 200, "one click revokes nothing"
    revoke.click()
    text_in(page, "#notice", "ops-dana revoked")
    assert server.call("GET", "/v1/whoami", token=secret)[0] == 401
    page.find_element(By.ID, "token-show-revoked").click()
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-token="ops-dana"]').get_attribute("data-active") == "false")
    assert csp_violations(page) == []


def step(driver, step_id):
    return visible(driver, f'[data-step="{step_id}"]')


def test_the_paid_day_walked_by_two_people(page, server):
    protect_production(server)
    approver = server.token("console-approver", "writer")

    sign_in(page, server.writer)
    tab(page, "paidday")
    assert "0 done, 0 waiting, 3 to do" in text_in(page, "#paid-day-summary", "to do")
    assert "outside the console" in step(page, "app-store").text

    # Step 2: its diff and the share of installs it changes; no publish without a message.
    card = step(page, "free-period-over")
    assert "Needs a second person" not in card.text
    card.find_element(By.CSS_SELECTOR, 'button[data-action="preview"]').click()
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="free-period-over"] .step-preview').is_displayed())
    card = step(page, "free-period-over")
    assert "~ flag showIntroFreeSubscriptionBanner" in card.text and "100.0%" in card.text
    message = card.find_element(By.CSS_SELECTOR, "input.step-message")
    assert message.get_attribute("value") == "free introductory period is over"
    message.clear()
    card.find_element(By.CSS_SELECTOR, 'button[data-action="publish"]').click()
    assert "needs a message" in text_in(page, '[data-step="free-period-over"] .error', "message")
    assert server.document()[1]["version"] == 1
    message.send_keys("free introductory period is over")
    card.find_element(By.CSS_SELECTOR, 'button[data-action="publish"]').click()
    text_in(page, "#notice", "Published version 2")
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="free-period-over"]').get_attribute("data-status") == "done")

    card = step(page, "announce")
    card.find_element(By.CSS_SELECTOR, 'button[data-action="preview"]').click()
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="announce"] button[data-action="publish"]').is_displayed())
    step(page, "announce").find_element(By.CSS_SELECTOR, 'button[data-action="publish"]').click()
    text_in(page, "#notice", "Published version 3")

    # Step 4 is protected by the policy: it becomes a request the author cannot approve.
    card = step(page, "lock")
    assert "Needs a second person" in card.text
    card.find_element(By.CSS_SELECTOR, 'button[data-action="preview"]').click()
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="lock"] button[data-action="publish"]').is_displayed())
    card = step(page, "lock")
    assert "~ flag premiumFeaturesLocked" in card.text and "default: false -> true" in card.text
    screenshot(page, "console-paid-day-step.png")
    publish_button = card.find_element(By.CSS_SELECTOR, 'button[data-action="publish"]')
    assert publish_button.text == "Ask for approval"
    publish_button.click()
    text_in(page, "#notice", "Nothing published yet")
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="lock"]').get_attribute("data-status") == "waiting")
    card = step(page, "lock")
    assert "waits for a second person" in card.text and "Your own request" in card.text
    assert card.find_elements(By.CSS_SELECTOR, 'button[data-action="approve"]') == []
    assert "2 done, 1 waiting, 0 to do" in page.find_element(By.ID, "paid-day-summary").text
    screenshot(page, "console-paid-day-waiting.png")
    assert server.document()[1]["version"] == 3

    # The second person sees the same state and approves it in the same view.
    sign_out(page)
    sign_in(page, approver)
    tab(page, "paidday")
    assert "2 done, 1 waiting, 0 to do" in text_in(page, "#paid-day-summary", "waiting")
    card = step(page, "lock")
    assert "console-writer" in card.text and "Symi Plus: premium features need a subscription" in card.text
    # The approver sees what it does before approving: the same diff and share.
    card.find_element(By.CSS_SELECTOR, 'button[data-action="preview"]').click()
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="lock"] .step-preview').is_displayed())
    card = step(page, "lock")
    assert "default: false -> true" in card.text and "premiumFeaturesLocked:" in card.text
    card.find_element(By.CSS_SELECTOR, 'button[data-action="approve"]').click()
    text_in(page, "#notice", "Published version 4")
    assert "3 done, 0 waiting, 0 to do" in text_in(page, "#paid-day-summary", "3 done")
    _, envelope = server.document()
    assert envelope["version"] == 4 and envelope["author"] == "console-writer"
    lock = envelope["document"]["flags"]["premiumFeaturesLocked"]
    assert lock["default"] is True and lock["requires"] == {"monetizationEnabled": True} and lock["rules"], "rules and requires kept"

    # Back to the first person: everything done, and who approved it.
    sign_out(page)
    sign_in(page, server.writer)
    tab(page, "paidday")
    card = step(page, "lock")
    assert "Proposed by console-writer, approved by console-approver, published as version 4" in text_in(page, '[data-step="lock"]', "approved by")
    screenshot(page, "console-paid-day.png")
    messages = [entry["message"] for entry in server.call("GET", "/v1/environments/production/versions")[2]["versions"]]
    assert messages[:3] == ["Symi Plus: premium features need a subscription", "announce the price change", "free introductory period is over"]
    assert csp_violations(page) == []


def test_the_ops_views_at_375_pixels_and_in_german(page, server):
    admin = server.token("console-admin", "admin")
    page.set_window_size(375, 812)
    width = page.execute_script("return window.innerWidth")
    Select(page.find_element(By.ID, "language")).select_by_value("de")
    sign_in(page, admin)
    labels = {"schedules": "Planungen", "paidday": "Der Bezahltag", "audit": "Audit", "policy": "Richtlinie", "webhooks": "Webhooks", "tokens": "Tokens"}
    for name, label in labels.items():
        assert page.find_element(By.ID, f"tab-{name}").text == label
        tab(page, name)
        time.sleep(0.3)
        assert page.execute_script("return document.scrollingElement.scrollWidth") <= max(width, 375), name
    tab(page, "paidday")
    text_in(page, "#paid-day-summary", "offen")
    assert "Premium-Funktionen sperren" in page.find_element(By.ID, "paid-day-steps").text
    screenshot(page, "console-paid-day-375-de.png")
    unlabelled = page.execute_script("""
        return [...document.querySelectorAll('input, select, textarea, button')]
          .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
          .map(e => e.id || e.outerHTML)""")
    assert unlabelled == []
    assert csp_violations(page) == []
