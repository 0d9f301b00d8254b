// The console's entry: sign-in, the environment and view switches. Shared state and helpers live in
// session.js, which every view imports (never this file).
import { APIError, api, storeToken, storedToken } from "./api.js";
import { byId } from "./dom.js";
import { currentLanguage, initialLanguage, setLanguage, t } from "./i18n.js";
import { canWrite, describeError, isAdmin, notify, onReload, state } from "./session.js";
import { renderFlags } from "./flags-view.js";
import { renderHistory } from "./history-view.js";
import { renderChanges } from "./changes-view.js";
import { renderSchedules, setUpSchedules } from "./schedules-view.js";
import { renderPaidDay } from "./paid-day-view.js";
import { renderOutcomes, setUpOutcomes } from "./outcomes-view.js";
import { renderExperiments, setUpExperiments } from "./experiments-view.js";
import { renderAudit, setUpAudit } from "./audit-view.js";
import { renderPolicy } from "./policy-view.js";
import { renderWebhooks, setUpWebhooks } from "./webhooks-view.js";
import { renderTokens, setUpTokens } from "./tokens-view.js";
import { setUpEvaluate } from "./evaluate-view.js";
import { setUpChangeDialog } from "./change-dialog.js";

/** Each view's drawing; views not listed (evaluate) draw on their own form's submit. */
const renderers = {
  flags: renderFlags, history: renderHistory, changes: renderChanges, schedules: renderSchedules, paidday: renderPaidDay, outcomes: renderOutcomes,
  experiments: renderExperiments,
  audit: renderAudit, policy: renderPolicy, webhooks: renderWebhooks, tokens: renderTokens,
};

function showWho() {
  const who = byId("who");
  if (!state.identity) {
    who.textContent = t("anonymous");
  } else {
    const role = canWrite() ? state.identity.role : `${state.identity.role}, ${t("readOnly")}`;
    who.textContent = t("signedInAs", { name: state.identity.name, role });
  }
  byId("sign-out").hidden = false;
  // The admin views only for an admin of every environment: the server refuses anyone else (403) anyway.
  for (const tab of document.querySelectorAll(".tab[data-admin]")) tab.hidden = !isAdmin();
  if (!isAdmin() && document.querySelector(`.tab[data-view="${state.view}"]`)?.dataset.admin !== undefined) state.view = "flags";
}

async function signIn(token) {
  const error = byId("sign-in-error");
  error.textContent = "";
  if (token !== null && !token.trim()) {
    error.textContent = t("emptyToken");
    return;
  }
  try {
    if (token !== null) {
      const { body } = await api.whoami(token.trim());
      storeToken(token.trim());
      state.identity = body;
    } else {
      storeToken(null);
      state.identity = null;
    }
    await loadEnvironments();
  } catch (failure) {
    if (token !== null) storeToken(null);
    state.identity = null;
    // A refused token says so, whatever describeError would guess from the (now empty) stored token.
    const refused = token !== null && failure instanceof APIError && failure.status === 401;
    error.textContent = refused ? t("wrongToken") : describeError(failure);
    return;
  }
  byId("token").value = "";
  byId("sign-in").hidden = true;
  byId("workspace").hidden = false;
  showWho();
  await reload();
}

async function loadEnvironments() {
  const { body } = await api.environments();
  const select = byId("environment");
  const previous = state.environment;
  select.replaceChildren(...body.environments.map((environment) => {
    const option = document.createElement("option");
    option.value = environment.name;
    option.textContent = environment.name;
    return option;
  }));
  const names = body.environments.map((environment) => environment.name);
  state.environments = names;
  state.environment = names.includes(previous) ? previous : names.includes("production") ? "production" : names[0] ?? null;
  select.value = state.environment ?? "";
}

/** Fetches the current envelope of the environment and redraws the open view. */
async function reload() {
  if (!state.environment) return;
  try {
    const { body, headers } = await api.document(state.environment);
    state.envelope = body;
    state.etag = headers.get("ETag");
    byId("environment-version").textContent = t("version", { version: body.version });
  } catch (failure) {
    state.envelope = null;
    state.etag = null;
    byId("environment-version").textContent = failure instanceof APIError && failure.code === "no_version" ? t("noVersion") : describeError(failure);
  }
  await show(state.view);
}

async function show(view) {
  state.view = view;
  for (const tab of document.querySelectorAll(".tab")) {
    const selected = tab.dataset.view === view;
    tab.setAttribute("aria-selected", String(selected));
    byId(`view-${tab.dataset.view}`).hidden = !selected;
  }
  await renderers[view]?.();
}

function signOut() {
  storeToken(null);
  state.identity = null;
  byId("workspace").hidden = true;
  byId("sign-in").hidden = false;
  byId("sign-out").hidden = true;
  byId("who").textContent = "";
  byId("token").focus();
}

function start() {
  const language = byId("language");
  language.value = initialLanguage(sessionStorage.getItem("symiflags.console.language"));
  setLanguage(language.value);
  language.addEventListener("change", () => {
    sessionStorage.setItem("symiflags.console.language", language.value);
    setLanguage(language.value);
    if (!byId("workspace").hidden) {
      showWho();
      reload();
    }
  });
  byId("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    signIn(byId("token").value);
  });
  byId("read-only").addEventListener("click", () => signIn(null));
  byId("sign-out").addEventListener("click", signOut);
  byId("environment").addEventListener("change", (event) => {
    state.environment = event.target.value;
    notify("");
    reload();
  });
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => show(tab.dataset.view));
  onReload(reload);
  setUpEvaluate();
  setUpChangeDialog();
  setUpSchedules();
  setUpAudit();
  setUpWebhooks();
  setUpTokens();
  setUpOutcomes();
  setUpExperiments();
  const token = storedToken();
  if (token) signIn(token);
  else byId("token").focus();
  document.documentElement.dataset.ready = currentLanguage();
}

start();
