"""The console's schedules in a real headless Chromium against a real flagserver (docs/console.md), and the
helpers of the ops views' tests (test_console_admin.py, test_console_paid_day.py)."""
import datetime
import json
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import ROOT, SCREENSHOTS
from test_console import csp_violations, open_change, preview, publish, sign_in, text_in, visible



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
    assert "not a valid document: the document would not validate (1 problem)" in failed.text, failed.text
    assert "/flags/gatedFeature/requires/tempGate" in failed.text and 'unknown flag "tempGate"' in failed.text
    page.save_screenshot(str(SCREENSHOTS / "console-schedules-problems.png"))
