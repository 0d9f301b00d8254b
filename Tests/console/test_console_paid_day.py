"""The paid day, guided, in a real headless Chromium against a real flagserver, walked by two real people
(two writer tokens); every ops view at 375 px and in German (docs/console.md)."""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_console import csp_violations, sign_in, text_in, visible, wait
from test_console_ops import protect_production, screenshot, sign_out, tab



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


def test_the_paid_day_steps_are_data_each_kind_proposes_what_the_runbook_says(page, server):
    """The three kinds of a flag step (paid-day-steps.js), through the view's own functions in the browser."""
    result = page.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import("/console/paid-day-view.js").then(({ proposal, isDone }) => {
          const flag = { type: "boolean", default: false, requires: { monetizationEnabled: true },
                         rules: [{ cohort: "internal", value: true }] };
          const early = { cohort: "earlyUsers", value: false };
          const added = proposal({ flag: "x", addRules: [early] }, flag).definition;
          done({
            value: proposal({ flag: "x", value: true }, flag),
            set: proposal({ flag: "x", set: { default: true } }, flag),
            added: added.rules,
            addedTwice: proposal({ flag: "x", addRules: [early] }, added).definition.rules,
            doneValue: isDone({ value: false }, { type: "boolean", default: false }),
            notDoneWithRules: isDone({ value: false }, flag),
            doneSet: isDone({ set: { default: false } }, flag),
            doneAdded: isDone({ addRules: [early] }, added),
            notDoneMissing: isDone({ addRules: [early] }, flag),
          });
        }, (error) => done(String(error)));""")
    assert result["value"] == {"value": True}
    assert result["set"] == {"definition": {"type": "boolean", "default": True, "requires": {"monetizationEnabled": True},
                                            "rules": [{"cohort": "internal", "value": True}]}}
    assert result["added"] == [{"cohort": "earlyUsers", "value": False}, {"cohort": "internal", "value": True}]
    assert result["addedTwice"] == result["added"], "a rule already there is not added again"
    assert result["doneValue"] and not result["notDoneWithRules"] and result["doneSet"]
    assert result["doneAdded"] and not result["notDoneMissing"]
