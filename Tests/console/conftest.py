"""Fixtures of the console's browser tests: a real flagserver process (the built binary, a temporary
database, tokens made by `flagserver token create`) and one headless Chromium driven by Selenium."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = pathlib.Path(os.environ.get("CONSOLE_SCREENSHOTS", ROOT / ".build" / "console-screenshots"))


def flagserver_binary():
    binary = os.environ.get("FLAGSERVER_BIN")
    if not binary:
        bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                                  capture_output=True, text=True).stdout.strip()
        binary = os.path.join(bin_path, "flagserver")
    if not os.access(binary, os.X_OK):
        raise RuntimeError(f"no flagserver binary at {binary}: build first (swift build)")
    return binary


class Server:
    """One flagserver on a free port with its own database and flags copied from flags/."""

    def __init__(self, directory, extra=()):
        """`extra`: more serve options (the outcomes test's App Store receiver)."""
        self.binary = flagserver_binary()
        self.directory = directory
        self.database = os.path.join(directory, "flags.sqlite")
        self.writer = self.token("console-writer", "writer")
        self.reader = self.token("console-reader", "reader")
        # The documents only, without flags/policy/: these tests publish premiumFeaturesLocked and
        # monetizationEnabled with one writer token, which production's policy turns into change requests.
        flags = os.path.join(directory, "flags")
        os.makedirs(flags, exist_ok=True)
        for name in ("production.json", "staging.json"):
            shutil.copy(ROOT / "flags" / name, os.path.join(flags, name))
        self.process = subprocess.Popen(
            [self.binary, "--port", "0", "--database", self.database, "--flags-dir", flags,
             "--console-dir", str(ROOT / "console"), "--log-level", "warning",
             # A failed webhook delivery is retried after 0.2 s, not 1 s: the webhooks test sees two attempts quickly.
             "--webhook-retry-base-ms", "200",
             # The webhooks test's receiver listens on 127.0.0.1: allowed explicitly, as nothing inside is by default.
             "--webhook-allow-network", "127.0.0.0/8", *extra],
            cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on (http://[^\s]+)", line)
        if not match:
            self.process.kill()
            raise RuntimeError(f"flagserver did not start: {line!r} {self.process.stderr.read()}")
        self.url = match.group(1)

    def admin(self, *words):
        return subprocess.run([self.binary, "--database", self.database, *words], cwd=self.directory,
                              check=True, capture_output=True, text=True).stdout

    def token(self, name, role):
        output = self.admin("token", "create", "--name", name, "--role", role)
        return re.search(r"sfl_[A-Za-z0-9_-]+", output).group(0)

    def call(self, method, path, body=None, token=None, headers=None):
        """The API as curl would use it: (status, headers, parsed JSON body)."""
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode()
                return response.status, response.headers, json.loads(text) if text and "json" in response.headers.get("Content-Type", "") else text
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            return error.code, error.headers, json.loads(text) if text.startswith("{") else text

    def document(self, environment="production"):
        status, headers, body = self.call("GET", f"/v1/environments/{environment}/document")
        assert status == 200, body
        return headers["ETag"], body

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.process.stdout.close()
        self.process.stderr.close()


@pytest.fixture
def server():
    with tempfile.TemporaryDirectory(prefix="console-test-") as directory:
        running = Server(directory)
        yield running
        running.stop()


@pytest.fixture(scope="session")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,900", "--lang=en-US", "--no-first-run", "--disable-extensions"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")))
    driver.set_page_load_timeout(30)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


@pytest.fixture
def page(browser, server):
    """The browser on a fresh tab state for this test's server, at desktop size."""
    browser.set_window_size(1280, 900)
    browser.get(server.url + "/console/")
    browser.execute_script("sessionStorage.clear()")
    browser.get(server.url + "/console/")
    return browser


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a failure: a screenshot of the page and the browser's console in the report."""
    outcome = yield
    report = outcome.get_result()
    driver = item.funcargs.get("page")
    if report.when == "call" and report.failed and driver is not None:
        driver.save_screenshot(str(SCREENSHOTS / f"failed-{item.name}.png"))
        lines = [f"{entry['level']}: {entry['message']}" for entry in driver.get_log("browser")]
        report.sections.append(("browser console", "\n".join(lines) or "(empty)"))
