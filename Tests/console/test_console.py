"""The ops console in a real headless Chromium against a real flagserver (docs/console.md)."""
import json

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import ROOT, SCREENSHOTS

CSP = "default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"


def wait(driver, condition, timeout=20):
    # A view re-renders while a condition reads it (a language change, a submitted form): an element found a moment
    # ago may be gone by the time its text is read, which is "not yet", not a failure.
    return WebDriverWait(driver, timeout, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)
                         ).until(condition)


def visible(driver, selector):
    return wait(driver, ec.visibility_of_element_located((By.CSS_SELECTOR, selector)))


def text_in(driver, selector, text):
    def present(d):
        shown = d.find_element(By.CSS_SELECTOR, selector).text
        return shown if text in shown else False
    return wait(driver, present)


def sign_in(driver, token):
    field = visible(driver, "#token")
    field.clear()
    field.send_keys(token)
    field.send_keys(Keys.ENTER)
    visible(driver, "#workspace")
    visible(driver, "#flag-list .card")


def open_change(driver, key):
    driver.find_element(By.CSS_SELECTOR, f'[data-flag="{key}"] button.change').click()
    visible(driver, "#change")


def preview(driver):
    driver.find_element(By.ID, "change-preview-button").click()
    return visible(driver, "#change-preview")


def publish(driver, message):
    box = driver.find_element(By.ID, "change-message")
    box.clear()
    box.send_keys(message)
    driver.find_element(By.ID, "change-publish").click()


def csp_violations(driver):
    return [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]


def test_console_responses_carry_the_policy_and_nosniff(server):
    for path in ["/console", "/console/", "/console/app.js", "/console/console.css"]:
        status, headers, _ = server.call("GET", path)
        assert status == 200, path
        assert headers["Content-Security-Policy"] == CSP, path
        assert headers["X-Content-Type-Options"] == "nosniff", path
    assert server.call("GET", "/console/missing.js")[0] == 404
    assert server.call("GET", "/console/../Package.swift")[0] in (400, 404)


def test_a_wrong_or_revoked_token_is_refused_with_a_clear_message(page, server):
    visible(page, "#token").send_keys("sfl_not-a-real-token", Keys.ENTER)
    assert "unknown or has been revoked" in text_in(page, "#sign-in-error", "revoked")
    assert page.find_element(By.ID, "workspace").get_attribute("hidden") is not None
    revoked = server.token("gone", "writer")
    server.admin("token", "revoke", "--name", "gone")
    page.find_element(By.ID, "token").clear()
    page.find_element(By.ID, "token").send_keys(revoked, Keys.ENTER)
    wait(page, lambda d: d.find_element(By.ID, "sign-in-error").text and "revoked" in d.find_element(By.ID, "sign-in-error").text)
    assert page.execute_script("return sessionStorage.length") == 0, "a refused token is not kept"


def test_sign_in_flip_a_flag_with_a_message_and_see_the_new_version(page, server):
    sign_in(page, server.writer)
    assert "console-writer (writer)" in page.find_element(By.ID, "who").text
    assert page.execute_script("return location.href").find("sfl_") == -1, "no token in the URL"
    card = page.find_element(By.CSS_SELECTOR, '[data-flag="premiumFeaturesLocked"]')
    assert "cohort internal" in card.text and "monetizationEnabled = true" in card.text
    page.save_screenshot(str(SCREENSHOTS / "console-flags.png"))

    open_change(page, "showIntroFreeSubscriptionBanner")
    assert Select(page.find_element(By.ID, "change-value")).first_selected_option.text == "false"
    preview(page)
    diff = page.find_element(By.ID, "change-diff").text
    assert "~ flag showIntroFreeSubscriptionBanner" in diff
    assert "default: true -> false" in diff
    # The numbers are the server's, the same FlagKit code and sample as flagctl diff --impact.
    status, _, expected = server.call("POST", "/v1/environments/production/preview",
                                      {"flag": "showIntroFreeSubscriptionBanner", "value": False}, token=server.writer)
    assert status == 200
    impact = page.find_element(By.ID, "change-impact").text
    for line in expected["impact"]["lines"]:
        assert line in impact
    assert "100.0%" in impact and "100,000" in impact
    page.save_screenshot(str(SCREENSHOTS / "console-change.png"))

    publish(page, "free intro period is over")
    assert "Published version 2" in text_in(page, "#notice", "version 2")
    _, envelope = server.document()
    assert envelope["version"] == 2
    assert envelope["message"] == "free intro period is over"
    assert envelope["author"] == "console-writer"
    assert envelope["document"]["flags"]["showIntroFreeSubscriptionBanner"]["default"] is False
    assert csp_violations(page) == []


def test_invalid_values_are_refused_at_their_json_path(page, server):
    sign_in(page, server.writer)
    open_change(page, "premiumFeaturesLocked")
    page.find_element(By.ID, "change-use-definition").click()
    definition = page.find_element(By.ID, "change-definition")
    flag = json.loads(definition.get_attribute("value"))
    flag["rules"][0]["rollout"] = 140
    definition.clear()
    definition.send_keys(json.dumps(flag))
    page.find_element(By.ID, "change-preview-button").click()
    assert "/flags/premiumFeaturesLocked/rules/0/rollout" in text_in(page, "#change-issues", "rollout")
    assert page.find_element(By.ID, "change-publish").get_attribute("hidden") is not None
    page.find_element(By.ID, "change-cancel").click()

    open_change(page, "legalLinks")
    value = page.find_element(By.ID, "change-value")
    value.clear()
    value.send_keys('{"privacyPolicyURL": ')
    page.find_element(By.ID, "change-preview-button").click()
    assert "/flags/legalLinks/default" in text_in(page, "#change-issues", "/flags/legalLinks/default")
    assert "Not valid JSON" in page.find_element(By.ID, "change-error").text
    assert server.document()[1]["version"] == 1, "nothing was published"


def test_a_conflict_is_shown_and_reapplied_after_a_reload(page, server):
    sign_in(page, server.writer)
    open_change(page, "monetizationEnabled")
    preview(page)
    # Someone else publishes between the preview and the save.
    etag, _ = server.document()
    status, _, _ = server.call("PUT", "/v1/environments/production/flags/subscriptionPriceIncreaseMessagingEnabled", True,
                               token=server.writer, headers={"If-Match": etag, "X-Change-Message": "meanwhile"})
    assert status == 200
    publish(page, "pause monetization")
    assert "version 2 meanwhile" in text_in(page, "#change-conflict-text", "meanwhile")
    assert server.document()[1]["version"] == 2
    page.find_element(By.ID, "change-reapply").click()
    wait(page, lambda d: d.find_element(By.ID, "change-publish").is_displayed())
    assert "~ flag monetizationEnabled" in page.find_element(By.ID, "change-diff").text
    publish(page, "pause monetization")
    text_in(page, "#notice", "version 3")
    _, envelope = server.document()
    assert envelope["version"] == 3
    flags = envelope["document"]["flags"]
    assert flags["monetizationEnabled"]["default"] is False
    assert flags["subscriptionPriceIncreaseMessagingEnabled"]["default"] is True, "the other change is kept"


def test_history_shows_each_diff_and_rolls_back(page, server):
    etag, _ = server.document()
    server.call("PUT", "/v1/environments/production/flags/monetizationEnabled", False, token=server.writer,
                headers={"If-Match": etag, "X-Change-Message": "pause"})
    sign_in(page, server.writer)
    page.find_element(By.ID, "tab-history").click()
    second = visible(page, '[data-version="2"]')
    assert "pause" in second.text and "console-writer" in second.text
    second.find_element(By.CSS_SELECTOR, "button[aria-controls]").click()
    assert "default: true -> false" in text_in(page, "#diff-2", "monetizationEnabled")
    page.find_element(By.CSS_SELECTOR, '[data-version="1"] button.rollback').click()
    visible(page, "#change-preview")
    assert "~ flag monetizationEnabled" in page.find_element(By.ID, "change-diff").text
    publish(page, "undo the pause")
    text_in(page, "#notice", "version 3")
    _, envelope = server.document()
    assert envelope["version"] == 3
    assert envelope["rolledBackFrom"] == 1
    assert envelope["document"]["flags"]["monetizationEnabled"]["default"] is True


def test_a_description_holding_markup_is_shown_as_text_and_never_run(page, server):
    hostile = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b>bold</b>'
    etag, envelope = server.document()
    flag = dict(envelope["document"]["flags"]["introOfferMessage"], description=hostile)
    status, _, body = server.call("PUT", "/v1/environments/production/flags/introOfferMessage", flag, token=server.writer,
                                  headers={"If-Match": etag, "X-Change-Message": "hostile text"})
    assert status == 200, body
    sign_in(page, server.reader)
    card = page.find_element(By.CSS_SELECTOR, '[data-flag="introOfferMessage"]')
    assert card.find_element(By.CSS_SELECTOR, ".description").text == hostile
    assert card.find_elements(By.CSS_SELECTOR, "script, img, b") == []
    assert page.execute_script("return window.__pwned === undefined")
    # A reader sees everything and may change nothing.
    assert "read-only" in page.find_element(By.ID, "who").text
    assert page.find_elements(By.CSS_SELECTOR, "button.change") == []


def test_what_an_install_gets(page, server):
    sign_in(page, server.writer)
    page.find_element(By.ID, "tab-evaluate").click()
    for field, value in [("ctx-install", "9F1C2D7E-0000-4000-8000-000000000001"), ("ctx-version", "2.5.0"),
                         ("ctx-locale", "de-DE"), ("ctx-country", "DE"), ("ctx-channel", "appstore")]:
        page.find_element(By.ID, field).send_keys(value)
    page.find_element(By.CSS_SELECTOR, "#evaluate-form button[type=submit]").click()
    table = visible(page, "#evaluate-result")
    rows = {row.find_element(By.TAG_NAME, "th").text: row.text for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")}
    assert "premiumFeaturesLocked" in rows and "monetizationEnabled" in rows
    assert "TARGETING_MATCH" in rows["premiumFeaturesLocked"], rows["premiumFeaturesLocked"]
    assert "true" in rows["premiumFeaturesLocked"], "the internal cohort's install gets the rule's value"


def test_what_an_install_gets_by_its_first_install_date(page, server):
    # The runbook's early-user rule: locked only for installs known to be first downloaded after the switch.
    etag, envelope = server.document()
    document = envelope["document"]
    document["cohorts"]["earlyUsers"] = {"firstInstallDate": {"before": "2027-03-01T00:00:00Z"}}
    document["cohorts"]["installedSinceSwitch"] = {"firstInstallDate": {"after": "2027-03-01T00:00:00Z"}}
    document["flags"]["premiumFeaturesLocked"]["rules"] += [{"cohort": "earlyUsers", "value": False},
                                                             {"cohort": "installedSinceSwitch", "value": True}]
    status, _, body = server.call("PUT", "/v1/environments/production/document", document, token=server.writer,
                                  headers={"If-Match": etag, "X-Change-Message": "early users stay open"})
    assert status == 200, body
    sign_in(page, server.writer)
    page.find_element(By.ID, "tab-evaluate").click()
    assert page.find_element(By.CSS_SELECTOR, "label[for=ctx-install-date]").text == "First install date"
    page.find_element(By.ID, "ctx-install").send_keys("0FEE0000-0000-4000-8000-000000000042")
    date = page.find_element(By.ID, "ctx-install-date")

    def premium_row(first_install):
        date.clear()
        if first_install:
            date.send_keys(first_install)
        page.execute_script("document.querySelector('#evaluate-result tbody').replaceChildren()")
        page.find_element(By.CSS_SELECTOR, "#evaluate-form button[type=submit]").click()
        row = visible(page, '#evaluate-result tbody tr:first-child')
        rows = {r.find_element(By.TAG_NAME, "th").text: r.text for r in row.find_elements(By.XPATH, "../tr")}
        return rows["premiumFeaturesLocked"]

    early = premium_row("2026-11-20T08:15:00+01:00")
    assert "false" in early and "rule-1" in early, early
    late = premium_row("2027-03-01T00:00:00.001Z")
    assert "true" in late and "rule-2" in late, late
    at_switch = premium_row("2027-03-01T01:00:00+01:00")
    assert "false" in at_switch and "DEFAULT" in at_switch, "the switch itself is neither before nor after"
    unknown = premium_row("")
    assert "false" in unknown and "DEFAULT" in unknown, "an unknown date never locks"
    date.clear()
    date.send_keys("2027-03-01")
    page.find_element(By.CSS_SELECTOR, "#evaluate-form button[type=submit]").click()
    error = text_in(page, "#evaluate-error", "firstInstallDate")
    assert "RFC 3339" in error and "the time is missing" in error, error
    assert not page.find_element(By.ID, "evaluate-result").is_displayed()
    page.save_screenshot(str(SCREENSHOTS / "console-install-date.png"))


def test_375_pixels_wide_without_horizontal_scrolling(page, server):
    page.set_window_size(375, 812)
    width = page.execute_script("return window.innerWidth")
    sign_in(page, server.writer)
    for tab in ["tab-flags", "tab-evaluate", "tab-history"]:
        page.find_element(By.ID, tab).click()
        assert page.execute_script("return document.scrollingElement.scrollWidth") <= max(width, 375), tab
    page.find_element(By.ID, "tab-flags").click()
    open_change(page, "premiumFeaturesLocked")
    preview(page)
    assert "~ flag premiumFeaturesLocked" in page.find_element(By.ID, "change-diff").text
    assert page.execute_script("return document.scrollingElement.scrollWidth") <= max(width, 375)
    dialog_width = page.execute_script("return document.getElementById('change').getBoundingClientRect().right")
    assert dialog_width <= width
    page.save_screenshot(str(SCREENSHOTS / "console-375.png"))


def test_german_labels_and_every_control_labelled(page, server):
    Select(page.find_element(By.ID, "language")).select_by_value("de")
    assert page.find_element(By.ID, "sign-in-title").text == "Anmelden"
    sign_in(page, server.writer)
    assert page.find_element(By.ID, "tab-history").text == "Verlauf"
    assert "Angemeldet als console-writer" in page.find_element(By.ID, "who").text
    unlabelled = page.execute_script("""
        return [...document.querySelectorAll('input, select, textarea, button')]
          .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
          .map(e => e.id || e.outerHTML)""")
    assert unlabelled == []
    # Keyboard only: tab to the first change button and open the dialog with Enter.
    page.find_element(By.CSS_SELECTOR, "button.change").send_keys(Keys.ENTER)
    visible(page, "#change")
    assert page.execute_script("return document.activeElement.closest('dialog') !== null")


def test_a_protected_flip_waits_for_a_second_person_who_approves_it_in_the_console(page, server):
    admin = server.token("console-admin", "admin")
    policy = json.loads((ROOT / "flags" / "policy" / "production.json").read_text())
    status, _, body = server.call("PUT", "/v1/environments/production/policy", policy, token=admin,
                                  headers={"X-Change-Message": "protect the paid launch"})
    assert status == 200, body
    approver = server.token("console-approver", "writer")

    # The author's flip of a protected flag becomes a request: nothing is published, the notice says so.
    sign_in(page, server.writer)
    open_change(page, "premiumFeaturesLocked")
    preview(page)
    publish(page, "paid launch")
    notice = text_in(page, "#notice", "change request")
    assert "Nothing published yet" in notice and "premiumFeaturesLocked" in notice, notice
    assert server.document()[1]["version"] == 1
    page.find_element(By.ID, "tab-changes").click()
    card = visible(page, '#change-list .card[data-status="pending"]')
    change_id = card.get_attribute("data-change")
    assert "Your own request" in card.text and "paid launch" in card.text
    assert card.find_elements(By.CSS_SELECTOR, 'button[data-action="approve"]') == [], "no approving one's own"
    page.save_screenshot(str(SCREENSHOTS / "console-request.png"))

    # A second person signs in, sees it, and a rejection needs a note; the approval publishes it.
    page.find_element(By.ID, "tab-flags").click()
    page.find_element(By.ID, "sign-out").click()
    sign_in(page, approver)
    page.find_element(By.ID, "tab-changes").click()
    card = visible(page, f'#change-list .card[data-change="{change_id}"]')
    assert "Protected: premiumFeaturesLocked" in card.text
    card.find_element(By.CSS_SELECTOR, 'button[data-action="reject"]').click()
    assert "why you reject" in text_in(page, f"#change-{change_id}-error", "reject")
    card.find_element(By.CSS_SELECTOR, 'button[data-action="approve"]').click()
    assert "Published version 2" in text_in(page, "#notice", "version 2")
    text_in(page, "#change-list", "Nothing waits")
    _, envelope = server.document()
    assert envelope["version"] == 2 and envelope["author"] == "console-writer" and envelope["message"] == "paid launch"
    status, _, shown = server.call("GET", f"/v1/changes/{change_id}", token=approver)
    assert shown["change"]["status"] == "applied" and shown["change"]["approvedBy"] == "console-approver"
    assert csp_violations(page) == []
