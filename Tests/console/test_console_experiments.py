"""The console's experiments view in a real headless Chromium against a real flagserver with the App Store receiver on
(docs/guards.md, "Running an experiment"): the split of paywallProduct is published through the API, starts of its two
products are POSTed to the receiver signed with a throw-away chain carrying Apple's markers (Tests/appstore), and the
view's arms, effect, verdict, sample-ratio check and not-known line are checked against the server's own report."""
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import ROOT
from test_console import csp_violations, sign_in, text_in, wait
from test_console_ops import screenshot, tab
from test_console_outcomes import appstore_page, appstore_server, post_notification, today_ms  # noqa: F401 (fixtures)

sys.path.insert(0, str(ROOT / "Tests" / "appstore"))
from appstore_sign import notification, renewal_info, transaction_info  # noqa: E402

LOW, HIGH = "symi_plus_monthly_399", "symi_plus_monthly_499"
SPLIT = {"type": "string", "default": HIGH, "rules": [{"value": LOW, "rollout": 50}],
         "description": "Price test: 3.99 against 4.99 for the monthly product."}


def start(signer, original, product, price, at):
    """A SUBSCRIBED INITIAL_BUY of `product` at `price` milliunits EUR, signed as Apple signs it."""
    transaction = transaction_info(original_transaction_id=original, transaction_id=original + "01", product_id=product,
                                   purchase_date=at, expires_date=at + 30 * 86_400_000, signed_date=at, price=price)
    renewal = renewal_info(original_transaction_id=original, product_id=product, signed_date=at)
    return signer.sign(notification(notification_type="SUBSCRIBED", subtype="INITIAL_BUY", signed_date=at,
                                    signed_transaction_info=signer.sign(transaction), signed_renewal_info=signer.sign(renewal)))


def arms(page):
    """The arms table: name -> {metric: text}."""
    return page.execute_script("""
        return Object.fromEntries([...document.querySelectorAll('#experiments-arms tbody tr')].map((row) => [row.dataset.arm,
          Object.fromEntries([...row.querySelectorAll('td[data-metric]')].map((cell) => [cell.dataset.metric, cell.textContent]))]))""")


def test_the_experiments_view_reads_the_split_and_says_when_it_is_decided(appstore_page, appstore_server):  # noqa: F811
    page, server = appstore_page, appstore_server
    status, _, body = server.call("PUT", "/v1/environments/production/flags/paywallProduct", SPLIT, token=server.writer,
                                  headers={"X-Change-Message": "price test 3.99 against 4.99"})
    assert status == 200 and body["changed"], body
    today = today_ms()
    for index in range(60):
        post_notification(server, start(server.signer, f"3{index:05d}", LOW, 3990, today + index * 60_000))
    for index in range(10):
        post_notification(server, start(server.signer, f"4{index:05d}", HIGH, 4990, today + index * 60_000 + 30_000))
    status, _, report = server.call("GET", "/v1/environments/production/experiments/paywallProduct", token=server.writer)
    assert status == 200 and report["comparisons"][0]["decided"], report

    sign_in(page, server.writer)
    tab(page, "experiments")
    wait(page, lambda d: len(arms(d)) == 2)
    assert Select(page.find_element(By.ID, "experiments-flag")).first_selected_option.text == "paywallProduct"
    shown = arms(page)
    assert shown[LOW]["started"] == "60" and shown[HIGH]["started"] == "10", shown
    assert shown[LOW]["revenueAtListPrice"] == "239.40 EUR" and shown[HIGH]["revenueAtListPrice"] == "49.90 EUR", shown
    state = page.find_element(By.ID, "experiments-state").text
    assert f"split unchanged since version {report['splitSince']['version']}" in state and "Production notifications" in state
    comparison = page.find_element(By.CSS_SELECTOR, "#experiments-comparisons li")
    assert comparison.get_attribute("data-decided") == "true"
    assert f"{LOW} against {HIGH}:" in comparison.text and "6.00 [" in comparison.text
    assert comparison.find_element(By.CSS_SELECTOR, "[data-verdict]").text == f"Decided: {LOW} starts more per share."
    assert page.find_element(By.ID, "experiments-ratio").get_attribute("data-state") == "none"
    assert "Apple's commission (15 % or 30 %); taxes" in page.find_element(By.ID, "experiments-not-known").text
    screenshot(page, "console-experiments.png")

    # The sandbox's notifications: none, so nothing is decided.
    Select(page.find_element(By.ID, "experiments-store")).select_by_value("Sandbox")
    page.find_element(By.CSS_SELECTOR, "#experiments-form button[type=submit]").click()
    text_in(page, "#experiments-state", "Sandbox notifications")
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, "#experiments-comparisons [data-verdict]").text == "Not decided yet.")
    assert arms(page)[LOW]["started"] == "0"

    # In German, and a flag that is not an experiment says why.
    Select(page.find_element(By.ID, "language")).select_by_value("de")
    Select(page.find_element(By.ID, "experiments-store")).select_by_value("Production")
    page.find_element(By.CSS_SELECTOR, "#experiments-form button[type=submit]").click()
    wait(page, lambda d: "Entschieden:" in d.find_element(By.CSS_SELECTOR, "#experiments-comparisons [data-verdict]").text)
    assert page.find_element(By.CSS_SELECTOR, "#experiments-arms caption").text == "Varianten"
    Select(page.find_element(By.ID, "experiments-flag")).select_by_value("introOfferMessage")
    page.find_element(By.CSS_SELECTOR, "#experiments-form button[type=submit]").click()
    assert text_in(page, "#experiments-error", "Kein Experiment:").startswith("Kein Experiment:")
    assert page.find_element(By.ID, "experiments-result").get_attribute("hidden") is not None
    assert csp_violations(page) == []
