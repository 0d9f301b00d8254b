// The audit log (admin): every write attempt, accepted or refused, filtered by environment, actor, action,
// outcome and time (typed in the browser's time zone, sent as UTC instants), newest first, paged through the
// server's `next`. A refused write shows its status and why.
import { api } from "./api.js";
import { clearRefusal, describeError, isAdmin, showRefusal, state, timeZone, utcInstant } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { t, time } from "./i18n.js";

/** The actions of docs/governance.md, "Audit", for the filter's choices. */
const actions = ["publish", "change.schedule", "change.request", "change.approve", "change.reject", "change.cancel", "change.apply",
  "change.conflict", "change.fail", "change.expire", "change.stale", "policy.update", "token.create", "token.revoke",
  "webhook.create", "webhook.delete", "environment.create"];

/** The `before` of the next page; null on the last. */
let next = null;

function filters() {
  return {
    env: byId("audit-env").value, actor: byId("audit-actor").value.trim(), action: byId("audit-action").value,
    outcome: byId("audit-outcome").value,
    since: utcInstant(byId("audit-since").value) ?? byId("audit-since").value, until: utcInstant(byId("audit-until").value) ?? byId("audit-until").value,
  };
}

function entryItem(entry) {
  const refused = entry.outcome !== "ok";
  return el("li", { class: `card audit-entry ${refused ? "refused" : ""}`, "data-audit": String(entry.id), "data-outcome": entry.outcome },
    el("p", { class: "meta" }, el("time", { datetime: entry.at, text: time(entry.at) }),
      el("span", { text: ` · ${entry.actor}` }), entry.client ? el("span", { class: "muted", text: ` (${entry.client})` }) : null),
    el("p", {}, el("strong", { text: entry.action }), el("span", { class: "badge", text: entry.outcome }),
      entry.environment ? el("span", { text: ` ${entry.environment}` }) : null,
      entry.target ? el("span", {}, " · ", el("code", { text: entry.target })) : null,
      entry.version ? el("span", { text: ` · ${t("version", { version: entry.version })}` }) : null),
    refused ? el("p", { class: "why", text: t("refusedWhy", { status: entry.status ?? "-", reason: entry.reason ?? "-" }) }) : null,
    entry.detail ? el("p", { class: "muted detail", text: entry.detail }) : null);
}

async function load(more) {
  const list = byId("audit-list");
  const error = byId("audit-error");
  clearRefusal(error, null);
  if (!more) {
    clear(list);
    next = null;
  }
  try {
    const { body } = await api.audit(filters(), more ? next : null);
    next = body.next;
    if (!more && !body.entries.length) list.append(el("li", { class: "muted", text: t("noAudit") }));
    list.append(...body.entries.map(entryItem));
  } catch (failure) {
    showRefusal(error, null, failure);
  }
  byId("audit-more").hidden = next === null;
}

export async function renderAudit() {
  if (!isAdmin()) return;
  const select = byId("audit-env");
  const chosen = select.value;
  select.replaceChildren(el("option", { value: "", text: t("any") }), ...state.environments.map((name) => el("option", { value: name, text: name })));
  select.value = state.environments.includes(chosen) ? chosen : "";
  const action = byId("audit-action");
  if (action.options.length <= 1) action.append(...actions.map((name) => el("option", { value: name, text: name })));
  byId("audit-any-action").textContent = t("any");
  byId("audit-zone").textContent = t("timesIn", { zone: timeZone() });
  await load(false);
}

export function setUpAudit() {
  byId("audit-form").addEventListener("submit", (event) => {
    event.preventDefault();
    load(false);
  });
  byId("audit-more").addEventListener("click", () => load(true));
}
