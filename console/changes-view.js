// What waits in the environment: change requests for protected flags (a second person approves or rejects
// them; their author may withdraw them) and scheduled changes (cancelled here, created with flagctl
// schedule). The same routes as flagctl requests, schedules, approve, reject and unschedule. Each change shows
// its guards (guards.js) and takes a new one; below, the guards on published versions and applied changes, and a
// guard for the current version.
import { api } from "./api.js";
import { addGuardForm, guardList, heldByGuardLine, liveStatuses, readGuards, withVersionAuthors } from "./guards.js";
import { canWrite, describeError, notify, reload, state } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { t, time } from "./i18n.js";

async function decide(change, action, note) {
  const output = byId(`change-${change.id}-error`);
  output.textContent = "";
  if (action === "reject" && !note) {
    output.textContent = t("noteRequired");
    byId(`change-${change.id}-note`).focus();
    return;
  }
  try {
    const { body } = action === "approve" ? await api.approve(change.id, note)
      : action === "reject" ? await api.reject(change.id, note) : await api.cancel(change.id, note);
    if (action === "approve") {
      notify(body.version ? t("published", { version: body.version }) : t("approvedWaits", { id: change.id, status: body.change.status }), "success");
    } else {
      notify(t(action === "reject" ? "rejected" : "withdrawn", { id: change.id }), "success");
    }
    await reload();
  } catch (failure) {
    output.textContent = describeError(failure);
  }
}

function changeItem(change, guards) {
  const request = change.status === "pending";
  const own = change.author === state.identity?.name;
  const note = el("input", { id: `change-${change.id}-note`, name: "note", spellcheck: "false" });
  const actions = el("div", { class: "actions" });
  const button = (label, action, kind) => {
    const node = el("button", { type: "button", class: kind, "data-action": action, text: t(label) });
    node.addEventListener("click", () => decide(change, action, note.value.trim()));
    return node;
  };
  if (canWrite()) {
    if (request && !own) actions.append(button("approve", "approve", "primary"), button("reject", "reject", "quiet"));
    if (own || !request) actions.append(button(request ? "withdraw" : "cancelChange", "cancel", "quiet"));
  }
  return el("li", { class: "card change", "data-change": String(change.id), "data-status": change.status },
    el("h3", {}, el("span", { text: t(request ? "changeRequest" : "scheduledChange", { id: change.id }) }),
      el("span", { class: "badge", text: change.status })),
    el("p", { class: "meta" }, el("time", { datetime: change.createdAt, text: time(change.createdAt) }),
      el("span", { text: ` · ${t("author", { author: change.author })}` }),
      change.applyAt ? el("span", { text: ` · ${t("dueAt", { time: time(change.applyAt) })}` }) : null,
      request && change.expiresAt ? el("span", { text: ` · ${t("expiresAt", { time: time(change.expiresAt) })}` }) : null),
    el("p", { class: "message", text: change.message }),
    heldByGuardLine(change, guards),
    el("p", { class: "flags", text: t("touches", { flags: change.touchedFlags.join(", ") || "-" }) },
      change.protectedFlags.length ? el("strong", { text: ` ${t("protectedFlags", { flags: change.protectedFlags.join(", ") })}` }) : null),
    request && own && canWrite() ? el("p", { class: "muted", text: t("ownRequest") }) : null,
    actions.children.length ? el("label", { for: note.id, text: t(request && !own ? "decisionNote" : "cancelNote") }) : null,
    actions.children.length ? note : null,
    actions,
    el("p", { class: "error", id: `change-${change.id}-error`, role: "alert" }),
    el("section", { class: "change-guards", "aria-label": t("guards") }, el("h4", { text: t("guards") }),
      guardList(guards.filter((guard) => guard.change === change.id)),
      canWrite() ? addGuardForm({ change: change.id }, `change-${change.id}-guard`) : null));
}

/** Whether ended guards (closed, cancelled, removed) are listed too. */
let showEnded = false;

/** The guards that ride on no waiting change: on versions, and on changes already applied or ended. */
function otherGuards(guards, waiting) {
  const box = clear(byId("guard-list"));
  const ids = new Set(waiting.map((change) => change.id));
  const shown = guards.filter((guard) => !ids.has(guard.change) && (showEnded || liveStatuses.includes(guard.status)));
  const toggle = el("input", { type: "checkbox", id: "guards-show-ended", checked: showEnded });
  toggle.addEventListener("change", () => {
    showEnded = toggle.checked;
    renderChanges();
  });
  const version = state.envelope?.version;
  box.append(el("h3", { text: t("guardsOnVersions") }), el("p", { class: "muted", text: t("guardsHelp") }),
    el("p", { class: "check" }, toggle, el("label", { for: toggle.id, text: t("guardsShowEnded") })), guardList(shown),
    canWrite() && version ? addGuardForm({ version }, "version-guard", t("guardAddToVersion", { version })) : null);
}

export async function renderChanges() {
  const list = clear(byId("change-list"));
  try {
    const [{ body: requests }, { body: schedules }, read] = await Promise.all([
      api.changes(state.environment, "requests", "pending"),
      api.changes(state.environment, "schedules", "scheduled,approved"),
      readGuards(state.environment),
    ]);
    const seen = new Set();
    const changes = [...requests.changes, ...schedules.changes].filter((change) => !seen.has(change.id) && seen.add(change.id));
    if (!changes.length) list.append(el("li", { class: "muted", text: t("nothingWaits") }));
    // Guards that cannot be read (a server without them) leave the changes as they were, with the reason below.
    const known = read.guards;
    await withVersionAuthors(state.environment, known);
    list.append(...changes.map((change) => changeItem(change, known)));
    if (!read.failure) otherGuards(known, changes);
    else clear(byId("guard-list")).append(el("p", { class: "error", text: t("guardsFailed", { message: describeError(read.failure) }) }));
  } catch (failure) {
    list.append(el("li", { class: "error", text: describeError(failure) }));
  }
}
