// Every schedule of the environment (the changes with a time), by status: what waits, what ran, and what did
// not run and why (conflicted: the items changed since; failed: the server's reason and paths). Created from
// a flag's change dialog ("publish at ..."), cancelled here. The same routes as flagctl schedules/unschedule. A
// schedule held by a tripped guard says which (guards.js), with the guard's metric when the token may read guards.
import { api } from "./api.js";
import { heldByGuardLine, readGuards } from "./guards.js";
import { canWrite, describeError, notify, reload, state } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { t, time } from "./i18n.js";

/** The filter's choices: statuses the API takes, comma-separated. */
const filters = {
  waiting: "pending,scheduled,approved",
  problems: "conflicted,failed",
  done: "applied,cancelled,rejected,expired,stale",
};

/** Why a schedule did not run, in words, with the paths the server named. */
function why(change) {
  if (change.status === "conflicted" || change.status === "stale") {
    return el("div", { class: "why" }, el("p", { text: t(change.status === "stale" ? "whyStale" : "whyConflicted") }),
      el("ul", { class: "issues" }, change.conflicts.map((path) => el("li", {}, el("code", { class: "path", text: path })))));
  }
  if (change.status === "failed") {
    return el("div", { class: "why" }, el("p", { text: t("whyFailed", { reason: change.reason ?? "-" }) }),
      el("ul", { class: "issues" }, (change.details ?? []).map((issue) =>
        el("li", {}, el("code", { class: "path", text: issue.path }), el("span", { text: ` ${issue.message}` })))));
  }
  if (change.decisionMessage) return el("p", { class: "why", text: t("decided", { by: change.decidedBy ?? "-", note: change.decisionMessage }) });
  return null;
}

async function cancel(change, note) {
  const output = byId(`schedule-${change.id}-error`);
  output.textContent = "";
  try {
    await api.cancel(change.id, note);
    notify(t("withdrawn", { id: change.id }), "success");
    await reload();
  } catch (failure) {
    output.textContent = describeError(failure);
  }
}

function scheduleItem(change, guards) {
  const flags = Object.entries(change.changes?.flags ?? {});
  const card = el("li", { class: "card change", "data-schedule": String(change.id), "data-status": change.status },
    el("h3", {}, el("span", { text: t("scheduledChange", { id: change.id }) }), el("span", { class: "badge", text: change.status })),
    el("p", { class: "meta" }, el("time", { datetime: change.applyAt, text: t("dueAt", { time: time(change.applyAt) }) }),
      el("span", { text: ` · ${t("author", { author: change.author })}` }),
      change.appliedVersion ? el("span", { text: ` · ${t("appliedAs", { version: change.appliedVersion, time: time(change.appliedAt) })}` }) : null),
    el("p", { class: "message", text: change.message }),
    heldByGuardLine(change, guards),
    el("ul", { class: "sets" }, flags.map(([key, definition]) =>
      el("li", {}, el("code", { text: key }), el("span", { text: " → " }),
        el("code", { text: definition === null ? t("removed") : JSON.stringify(definition.default) })))),
    change.needsApproval && change.status === "pending" ? el("p", { class: "muted", text: t("needsSecond") }) : null,
    why(change));
  if (canWrite() && (change.status === "scheduled" || change.status === "pending")) {
    const note = el("input", { id: `schedule-${change.id}-note`, spellcheck: "false" });
    const button = el("button", { type: "button", class: "quiet", "data-action": "cancel", text: t("cancelChange") });
    button.addEventListener("click", () => cancel(change, note.value.trim()));
    card.append(el("label", { for: note.id, text: t("cancelNote") }), note, el("div", { class: "actions" }, button));
  }
  card.append(el("p", { class: "error", id: `schedule-${change.id}-error`, role: "alert" }));
  return card;
}

export async function renderSchedules() {
  const list = clear(byId("schedule-list"));
  const statuses = filters[byId("schedule-filter").value] ?? "";
  try {
    const { body } = await api.changes(state.environment, "schedules", statuses);
    if (!body.changes.length) list.append(el("li", { class: "muted", text: t("noSchedules") }));
    // Only a held schedule needs its guard; a token that may not read guards gets the line without the metric.
    const guards = body.changes.some((change) => change.heldByGuard)
      ? (await readGuards(state.environment, "tripped")).guards
      : [];
    list.append(...body.changes.map((change) => scheduleItem(change, guards)));
  } catch (failure) {
    list.append(el("li", { class: "error", text: describeError(failure) }));
  }
}

export function setUpSchedules() {
  byId("schedule-filter").addEventListener("change", renderSchedules);
}
