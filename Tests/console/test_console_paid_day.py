"""The paid day, guided, in a real headless Chromium against a real flagserver, walked by two real people
(two writer tokens); every ops view at 375 px and in German (docs/console.md)."""
import json
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_console import csp_violations, sign_in, text_in, visible, wait
from conftest import ROOT
from test_console_ops import protect_production, screenshot, set_value, sign_out, tab



def step(driver, step_id):
    return visible(driver, f'[data-step="{step_id}"]')


def evaluate(server, flag, first_install_date=None):
    """One flag through OFREP's single-flag endpoint (the default environment, production), as an app would ask."""
    context = {"targetingKey": "5D0C1E2A-0000-4000-8000-0000000000AA"}
    if first_install_date:
        context["firstInstallDate"] = first_install_date
    status, _, body = server.call("POST", f"/ofrep/v1/evaluate/flags/{flag}", {"context": context})
    assert status == 200, body
    assert body["metadata"]["environment"] == "production", body
    return body["value"]


def test_the_paid_day_walked_by_two_people(page, server):
    protect_production(server)
    approver = server.token("console-approver", "writer")
    page.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Europe/Berlin"})
    try:
        walk_the_paid_day(page, server, approver)
    finally:
        page.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})


def walk_the_paid_day(page, server, approver):
    sign_in(page, server.writer)
    tab(page, "paidday")
    assert "0 done, 0 waiting, 4 to do" in text_in(page, "#paid-day-summary", "to do")
    titles = [element.text for element in page.find_elements(By.CSS_SELECTOR, "#paid-day-steps > li h3 > span:first-child")]
    assert titles == ["1. App Store Connect, days before: billing grace period, prices, introductory offer",
                      "2. The free period is over: hide the start-screen card", "3. Announce the price change",
                      "4. The early-user cohorts, before the lock", "5. Lock the premium features", "6. Watch",
                      "7. If anything goes wrong: roll back"]
    assert "outside the console" in step(page, "app-store").text and "Billing Grace Period: on" in step(page, "app-store").text

    # The lock names cohorts the document does not have yet: blocked, nothing to press.
    card = step(page, "lock")
    assert card.get_attribute("data-status") == "blocked"
    assert "Blocked until step 4 is done: the document does not have these cohorts yet: earlyUsers, installedSinceSwitch." in card.text
    assert card.find_elements(By.CSS_SELECTOR, "button") == []

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

    # Step 4: the switch is chosen here, in the browser's time zone, shown as the UTC instant written; no default.
    card = step(page, "early-users")
    field = card.find_element(By.CSS_SELECTOR, "input.step-input")
    assert field.get_attribute("type") == "datetime-local" and field.get_attribute("value") == ""
    assert "Europe/Berlin" in card.find_element(By.CSS_SELECTOR, f'label[for="{field.get_attribute("id")}"]').text
    card.find_element(By.CSS_SELECTOR, 'button[data-action="preview"]').click()
    assert "Choose the date and time first" in text_in(page, '[data-step="early-users"] .error', "Choose")
    assert not card.find_element(By.CSS_SELECTOR, 'button[data-action="publish"]').is_displayed()
    set_value(page, field.get_attribute("id"), "2027-03-01T01:00")
    assert "Written to the document as 2027-03-01T00:00:00Z (UTC)." in text_in(page, '[data-step="early-users"] .step-utc', "2027")
    card.find_element(By.CSS_SELECTOR, 'button[data-action="preview"]').click()
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="early-users"] button[data-action="publish"]').is_displayed())
    card = step(page, "early-users")
    assert "+ cohort earlyUsers" in card.text and "+ cohort installedSinceSwitch" in card.text
    assert "No sampled install sees a different value." in card.text, "adding the cohorts changes nobody's value yet"
    assert card.find_element(By.CSS_SELECTOR, 'button[data-action="publish"]').text == "Publish"
    card.find_element(By.CSS_SELECTOR, 'button[data-action="publish"]').click()
    text_in(page, "#notice", "Published version 4")
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="early-users"]').get_attribute("data-status") == "done")
    assert "The switch: 2027-03-01T00:00:00Z (UTC)" in step(page, "early-users").text
    fixture = json.loads((ROOT / "Tests" / "FlagKitTests" / "Fixtures" / "early-user-rule.changes.json").read_text())
    _, envelope = server.document()
    assert envelope["message"] == "early-user cohorts: installs first downloaded before the switch stay open"
    assert {name: envelope["document"]["cohorts"][name] for name in fixture["cohorts"]} == fixture["cohorts"]
    assert "internal" in envelope["document"]["cohorts"], "the document's other cohorts are kept"

    # Step 5 is protected by the policy: it becomes a request the author cannot approve.
    card = step(page, "lock")
    assert card.get_attribute("data-status") == "todo" and "Needs a second person" in card.text
    card.find_element(By.CSS_SELECTOR, 'button[data-action="preview"]').click()
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="lock"] button[data-action="publish"]').is_displayed())
    card = step(page, "lock")
    assert "~ flag premiumFeaturesLocked" in card.text and "default:" not in card.text, "the default stays false"
    assert "earlyUsers" in card.text and "installedSinceSwitch" in card.text
    screenshot(page, "console-paid-day-step.png")
    publish_button = card.find_element(By.CSS_SELECTOR, 'button[data-action="publish"]')
    assert publish_button.text == "Ask for approval"
    assert "Published with guards: refunds per hour against the previous week" in card.text, "the lock's guards, planned"
    publish_button.click()
    text_in(page, "#notice", "Nothing published yet")
    # The lock's guards (flags/paid-day/4-lock.guard.json) went on the change request, and the step shows them.
    text_in(page, "#notice", "The lock's guards were added: 1, 2.")
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="lock"]').get_attribute("data-status") == "waiting")
    status, _, listed = server.call("GET", "/v1/environments/production/guards", token=server.writer)
    assert status == 200, listed
    request_id = int(step(page, "lock").find_element(By.CSS_SELECTOR, "p.waits").get_attribute("data-change"))
    rules = json.loads((ROOT / "flags" / "paid-day" / "4-lock.guard.json").read_text())["guards"]
    assert sorted((guard["rule"]["metric"], guard["change"], guard["status"]) for guard in listed["guards"]) == [
        ("autoRenewOff", request_id, "waiting"), ("refunds", request_id, "waiting")]
    for guard in listed["guards"]:
        wanted = next(rule for rule in rules if rule["metric"] == guard["rule"]["metric"])
        assert guard["appStoreEnvironment"] == wanted["appStoreEnvironment"] and guard["product"] is None
        assert {key: guard["rule"][key] for key in wanted if key != "appStoreEnvironment"} == {
            key: value for key, value in wanted.items() if key != "appStoreEnvironment"}
    assert len(step(page, "lock").find_elements(By.CSS_SELECTOR, ".step-guards li.guard")) == 2
    card = step(page, "lock")
    assert "waits for a second person" in card.text and "Your own request" in card.text
    assert card.find_elements(By.CSS_SELECTOR, 'button[data-action="approve"]') == []
    assert "3 done, 1 waiting, 0 to do" in page.find_element(By.ID, "paid-day-summary").text
    screenshot(page, "console-paid-day-waiting.png")
    assert server.document()[1]["version"] == 4

    # The second person sees the same state and approves it in the same view.
    sign_out(page)
    sign_in(page, approver)
    tab(page, "paidday")
    assert "3 done, 1 waiting, 0 to do" in text_in(page, "#paid-day-summary", "waiting")
    card = step(page, "lock")
    assert "console-writer" in card.text and "Symi Plus: premium features need a subscription" in card.text
    # The approver sees what it does before approving: the same diff.
    card.find_element(By.CSS_SELECTOR, 'button[data-action="preview"]').click()
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="lock"] .step-preview').is_displayed())
    card = step(page, "lock")
    assert "~ flag premiumFeaturesLocked" in card.text and "installedSinceSwitch" in card.text
    card.find_element(By.CSS_SELECTOR, 'button[data-action="approve"]').click()
    text_in(page, "#notice", "Published version 5")
    assert "4 done, 0 waiting, 0 to do" in text_in(page, "#paid-day-summary", "4 done")
    _, envelope = server.document()
    assert envelope["version"] == 5 and envelope["author"] == "console-writer"
    lock = envelope["document"]["flags"]["premiumFeaturesLocked"]
    wanted = fixture["flags"]["premiumFeaturesLocked"]
    assert lock["default"] is False and lock["requires"] == wanted["requires"] and lock["rules"] == wanted["rules"]

    # What the apps now get: early users and unknown dates open, installs since the switch locked; the master
    # switch is on for the same context (the lock requires it, so a false lock is not the switch's doing).
    for first_install_date in ["2027-02-28T23:59:59Z", "2027-03-01T00:00:01Z", None]:
        assert evaluate(server, "monetizationEnabled", first_install_date) is True
    assert evaluate(server, "premiumFeaturesLocked", "2027-02-28T23:59:59Z") is False
    assert evaluate(server, "premiumFeaturesLocked", "2027-03-01T00:00:01Z") is True
    assert evaluate(server, "premiumFeaturesLocked", "2027-03-01T00:00:00Z") is False, "the switch's own millisecond stays open"
    assert evaluate(server, "premiumFeaturesLocked", None) is False, "an unknown install date never locks"

    # Back to the first person: everything done, and who approved it.
    sign_out(page)
    sign_in(page, server.writer)
    tab(page, "paidday")
    card = step(page, "lock")
    assert "Proposed by console-writer, approved by console-approver, published as version 5" in text_in(page, '[data-step="lock"]', "approved by")
    # The guards stay with the lock's change once it is applied (waiting until the next pass of the job, then watching).
    guard_cards = step(page, "lock").find_elements(By.CSS_SELECTOR, ".step-guards li.guard")
    assert len(guard_cards) == 2 and {card.get_attribute("data-status") for card in guard_cards} <= {"waiting", "watching"}
    screenshot(page, "console-paid-day.png")
    messages = [entry["message"] for entry in server.call("GET", "/v1/environments/production/versions")[2]["versions"]]
    assert messages[:4] == ["Symi Plus: premium features need a subscription", "early-user cohorts: installs first downloaded before the switch stay open",
                            "announce the price change", "free introductory period is over"]
    assert csp_violations(page) == []


def test_the_cohort_step_never_overwrites_a_publish_made_after_it_was_built(page, server):
    """The cohort step sends the whole document with If-Match of the version it was built from: a publish in between
    is reported (412), nothing is overwritten, and after the reload the step is built on the new version."""
    page.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "UTC"})
    try:
        publish_the_cohorts_across_a_conflict(page, server)
    finally:
        page.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})


def publish_the_cohorts_across_a_conflict(page, server):
    sign_in(page, server.writer)
    tab(page, "paidday")
    card = step(page, "early-users")
    set_value(page, card.find_element(By.CSS_SELECTOR, "input.step-input").get_attribute("id"), "2027-03-01T00:00")
    card.find_element(By.CSS_SELECTOR, 'button[data-action="preview"]').click()
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="early-users"] button[data-action="publish"]').is_displayed())
    status, _, body = server.call("PUT", "/v1/environments/production/flags/billingRetryAccessDays", 5, token=server.writer,
                                  headers={"X-Change-Message": "meanwhile"})
    assert status == 200 and body["version"] == 2, body
    step(page, "early-users").find_element(By.CSS_SELECTOR, 'button[data-action="publish"]').click()
    assert "Someone published version 2 meanwhile" in text_in(page, "#notice", "meanwhile")
    _, envelope = server.document()
    assert envelope["version"] == 2 and "earlyUsers" not in envelope["document"]["cohorts"]

    # The view is drawn again from version 2: the person chooses the instant and previews again.
    wait(page, lambda d: d.find_element(By.ID, "environment-version").text == "version 2")
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="early-users"] input.step-input').get_attribute("value") == "")
    card = step(page, "early-users")
    set_value(page, card.find_element(By.CSS_SELECTOR, "input.step-input").get_attribute("id"), "2027-03-01T00:00")
    card.find_element(By.CSS_SELECTOR, 'button[data-action="preview"]').click()
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, '[data-step="early-users"] button[data-action="publish"]').is_displayed())
    step(page, "early-users").find_element(By.CSS_SELECTOR, 'button[data-action="publish"]').click()
    text_in(page, "#notice", "Published version 3")
    _, envelope = server.document()
    assert envelope["document"]["flags"]["billingRetryAccessDays"]["default"] == 5, "the publish in between is kept"
    assert envelope["document"]["cohorts"]["earlyUsers"] == {"firstInstallDate": {"before": "2027-03-01T00:00:00Z"}}


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


def test_the_paid_day_steps_are_data_each_kind_proposes_what_the_runbook_says(page, server):
    """The kinds of a change step (paid-day-steps.js), through the view's own functions in the browser."""
    result = page.execute_async_script("""
        const done = arguments[arguments.length - 1];
        Promise.all([import("/console/paid-day-plan.js"), import("/console/paid-day-steps.js")]).then(([plan, { paidDaySteps }]) => {
          const { proposal, isDone, missingCohorts, documentWithCohorts, publishedInput, rfc3339 } = plan;
          const flag = { type: "boolean", default: false, requires: { monetizationEnabled: true },
                         rules: [{ cohort: "internal", value: true }] };
          const early = { cohort: "earlyUsers", value: false };
          const added = proposal({ flag: "x", addRules: [early] }, flag).definition;
          const lockStep = paidDaySteps.find((step) => step.id === "lock");
          const cohortStep = paidDaySteps.find((step) => step.id === "early-users");
          const lock = proposal(lockStep, flag).definition;
          const document = { flags: { premiumFeaturesLocked: flag }, cohorts: { internal: { installId: { in: ["a"] } } } };
          const switchAt = rfc3339(new Date("2027-03-01T00:00:00Z"));
          const withCohorts = documentWithCohorts(cohortStep, document, { switch: switchAt });
          const halfDone = { ...withCohorts, cohorts: { ...withCohorts.cohorts, installedSinceSwitch: { firstInstallDate: { after: "2027-04-01T00:00:00Z" } } } };
          done({
            order: paidDaySteps.map((step) => step.id),
            value: proposal({ flag: "x", value: true }, flag),
            set: proposal({ flag: "x", set: { default: true } }, flag),
            added: added.rules,
            addedTwice: proposal({ flag: "x", addRules: [early] }, added).definition.rules,
            lock, lockTwice: proposal(lockStep, lock).definition,
            doneValue: isDone({ value: false }, { type: "boolean", default: false }),
            notDoneWithRules: isDone({ value: false }, flag),
            doneSet: isDone({ set: { default: false } }, flag),
            doneAdded: isDone({ addRules: [early] }, added),
            notDoneMissing: isDone({ addRules: [early] }, flag),
            blockedBy: missingCohorts(lockStep, document), notBlocked: missingCohorts(lockStep, withCohorts),
            switchAt, millis: rfc3339(new Date("2027-03-01T00:00:00.250Z")), noTime: rfc3339(new Date("")),
            withCohorts, cohortDone: isDone(cohortStep, withCohorts), cohortNotDone: isDone(cohortStep, document),
            twoInstants: isDone(cohortStep, halfDone), input: publishedInput(cohortStep, withCohorts),
          });
        }, (error) => done(String(error)));""")
    assert result["order"] == ["app-store", "free-period-over", "announce", "early-users", "lock", "watch", "roll-back"]
    assert result["value"] == {"value": True}
    assert result["set"] == {"definition": {"type": "boolean", "default": True, "requires": {"monetizationEnabled": True},
                                            "rules": [{"cohort": "internal", "value": True}]}}
    assert result["added"] == [{"cohort": "earlyUsers", "value": False}, {"cohort": "internal", "value": True}]
    assert result["addedTwice"] == result["added"], "a rule already there is not added again"
    fixture = json.loads((ROOT / "Tests" / "FlagKitTests" / "Fixtures" / "early-user-rule.changes.json").read_text())
    wanted = fixture["flags"]["premiumFeaturesLocked"]
    assert result["lock"]["default"] is False and result["lock"]["rules"] == wanted["rules"], "internal first, as the runbook orders them"
    assert result["lockTwice"] == result["lock"]
    assert result["doneValue"] and not result["notDoneWithRules"] and result["doneSet"]
    assert result["doneAdded"] and not result["notDoneMissing"]
    assert result["blockedBy"] == ["earlyUsers", "installedSinceSwitch"] and result["notBlocked"] == []
    assert result["switchAt"] == "2027-03-01T00:00:00Z" and result["millis"] == "2027-03-01T00:00:00.250Z" and result["noTime"] is None
    assert result["withCohorts"]["cohorts"] == {"internal": {"installId": {"in": ["a"]}}, **fixture["cohorts"]}
    assert result["withCohorts"]["flags"] == {"premiumFeaturesLocked": {
        "type": "boolean", "default": False, "requires": {"monetizationEnabled": True}, "rules": [{"cohort": "internal", "value": True}]}}, "flags untouched"
    assert result["cohortDone"] and not result["cohortNotDone"]
    assert not result["twoInstants"], "before and after must name the same instant"
    assert result["input"] == {"switch": "2027-03-01T00:00:00Z"}
