"""The console's admin views in a real headless Chromium against a real flagserver: policy, audit, webhooks
(with a real receiver on 127.0.0.1) and tokens (docs/console.md)."""
import http.server
import threading
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import SCREENSHOTS
from test_console import csp_violations, sign_in, text_in, visible, wait
from test_console_ops import screenshot, set_value, sign_out, tab



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
