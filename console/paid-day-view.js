// The paid day, guided: docs/monetization.md's runbook as one view (the steps are data: paid-day-steps.js, what
// each publishes: paid-day-plan.js). Each change step shows its diff and the share of installs whose value changes
// (the server's preview, as flagctl diff --impact), needs its message, and is published with If-Match (a flag
// step as PUT .../flags/{key}, a cohort step as the whole document); where the environment's policy protects
// what it touches it becomes a change request that a second person approves here. What is done (the current
// document already has it), what waits (a pending request or a schedule touching it) and what is blocked (a
// rule naming a cohort an earlier step adds) is read from the server each time, so both people see the same.
import { APIError, api } from "./api.js";
import { canWrite, describeError, notify, reload, showRefusal, state, timeZone } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { currentLanguage, percent, t, time } from "./i18n.js";
import { paidDaySteps } from "./paid-day-steps.js";
import { documentWithCohorts, isDone, missingCohorts, proposal, publishedInput, rfc3339 } from "./paid-day-plan.js";
import { renderDiff } from "./change-dialog.js";
import { guardList, guardPublished, readGuards, ruleSummary, withVersionAuthors } from "./guards.js";

const text = (pair) => pair[currentLanguage() === "de" ? 1 : 0] ?? pair[0];

function protectedBy(policy, key) {
  return policy?.protected === true || policy?.flags?.[key]?.protected === true;
}

/**
 * Shows the diff and the share of installs affected of `body` (a preview request: the step's own change, or a
 * waiting one's). With `builtOn` (the version the change was built from) a newer current version is a conflict.
 */
async function preview(body, card, builtOn) {
  const output = card.querySelector(".step-preview");
  const error = card.querySelector(".error");
  const publishButton = card.querySelector('[data-action="publish"]');
  error.textContent = "";
  try {
    const { body: answer } = await api.preview(state.environment, body);
    card.dataset.etag = answer.baseEtag ?? "";
    const diff = el("pre", { class: "diff" });
    renderDiff(diff, answer.lines);
    const shares = Object.entries(answer.impact?.flags ?? {}).filter(([, flag]) => flag.changed > 0).map(([key, flag]) =>
      el("li", { class: "impact-flag" }, el("code", { text: key }), ": ", el("strong", { class: "share", text: percent(flag.share) }),
        el("span", { text: ` ${t("impactShare")}` })));
    clear(output).append(el("h4", { text: t("whatChanges") }), diff, el("h4", { text: t("whoIsAffected") }),
      el("ul", { class: "impact" }, shares.length ? shares : el("li", { text: t("impactNone") })));
    output.hidden = false;
    if (builtOn !== undefined && answer.baseVersion !== builtOn) return conflict(answer.baseVersion);
    if (publishButton) publishButton.hidden = !answer.changed;
  } catch (failure) {
    showRefusal(error, card.querySelector(".issues"), failure);
  }
}

/**
 * Someone published since the view was drawn from its version: a change built from that version would undo theirs,
 * so the view is drawn again from the current one and the person previews again (the notice says why).
 */
async function conflict(version) {
  notify(t("stepConflict", { version: version ?? "?" }), "error");
  await reload();
}

/**
 * Sends a step's change (`send(message)`), after checking its message; 202 becomes "requested", 412 a conflict.
 * The step's guards go on what it made: the change request's id, or the version published at once.
 */
async function publish(card, send, guards = []) {
  const error = card.querySelector(".error");
  const input = card.querySelector("input.step-message");
  const message = input.value.trim();
  if (!message) {
    error.textContent = t("messageRequired");
    input.focus();
    return;
  }
  try {
    const { body: answer } = await send(message);
    let notice = answer.change?.status === "pending" ? t("requested", { id: answer.change.id, flags: answer.change.protectedFlags.join(", ") })
      : t("published", { version: answer.version });
    let kind = "success";
    if (guards.length) {
      const { added, nothing, failure } = await guardPublished(state.environment, answer, guards);
      if (nothing) notice += ` ${t("changeGuardNothing")}`;
      else if (failure) {
        notice += ` ${t("stepGuardsFailed", { message: describeError(failure) })}`;
        kind = "error";
      } else notice += ` ${t("stepGuardsAdded", { ids: added.map((guard) => guard.id).join(", ") })}`;
    }
    notify(notice, kind);
    await reload();
  } catch (failure) {
    if (failure instanceof APIError && failure.status === 412) await conflict(failure.error.currentVersion);
    else showRefusal(error, card.querySelector(".issues"), failure);
  }
}

async function approve(change, card) {
  try {
    const { body } = await api.approve(change.id, card.querySelector("input.step-message")?.value.trim() || undefined);
    notify(body.version ? t("published", { version: body.version }) : t("approvedWaits", { id: change.id, status: body.change.status }), "success");
    await reload();
  } catch (failure) {
    card.querySelector(".error").textContent = describeError(failure);
  }
}

/** A step's card: number, title, state badge, text. */
function stepCard(step, index, status) {
  return el("li", { class: `card step${step.kind === "manual" ? " manual" : ""}`, "data-step": step.id, "data-status": status },
    el("h3", {}, el("span", { text: `${index + 1}. ${text(step.title)}` }), el("span", { class: "badge", text: t(`step_${status}`) })),
    el("p", { text: text(step.text) }));
}

/** The changes waiting that touch the step, each with who, when, why, its preview and (for another writer) Approve. */
function appendWaiting(card, waiting, previewBody) {
  for (const change of waiting) {
    const own = change.author === state.identity?.name;
    card.append(el("p", { class: "waits", "data-change": String(change.id) }, el("span", {
      text: t(change.status === "pending" ? "stepWaitsApproval" : "stepWaitsTime",
        { id: change.id, author: change.author, time: time(change.applyAt ?? change.createdAt), message: change.message }) })));
    const actions = el("div", { class: "actions" });
    // What the waiting change would do now, for both people: the same preview as before it was proposed.
    const body = previewBody(change);
    if (body) {
      const show = el("button", { type: "button", class: "quiet", "data-action": "preview", text: t("preview") });
      show.addEventListener("click", () => preview(body, card));
      actions.append(show);
    }
    if (change.status === "pending" && canWrite() && !own) {
      const button = el("button", { type: "button", class: "primary", "data-action": "approve", text: t("approve") });
      button.addEventListener("click", () => approve(change, card));
      actions.append(button);
    }
    card.append(actions);
    if (change.status === "pending" && own) card.append(el("p", { class: "muted", text: t("ownRequest") }));
  }
}

/** The message field (the runbook's, editable), Preview and Publish (or Ask for approval). */
function appendChangeForm(card, step, guarded, onPreview, onPublish) {
  const message = el("input", { id: `step-${step.id}-message`, class: "step-message", spellcheck: "false", value: step.message ?? "" });
  const show = el("button", { type: "button", class: "quiet", "data-action": "preview", text: t("preview") });
  const go = el("button", { type: "button", class: "primary", "data-action": "publish", hidden: true, text: t(guarded ? "requestApproval" : "publish") });
  show.addEventListener("click", onPreview);
  go.addEventListener("click", onPublish);
  card.append(el("label", { for: message.id, text: t("message") }), message, el("div", { class: "actions" }, show, go));
}

/**
 * The step's guards: before it is asked for, the rules it will carry; once it waits or is done, the guards on its
 * changes (and on the version it published, for a step published at once), as the server has them.
 */
function appendStepGuards(card, step, context, changes) {
  const ids = new Set(changes.map((change) => change.id));
  const versions = new Set(changes.map((change) => change.appliedVersion).filter(Boolean));
  const guards = context.guards.filter((guard) => ids.has(guard.change) || (guard.change === null && versions.has(guard.version)));
  const box = el("section", { class: "step-guards", "aria-label": t("stepGuards") }, el("h4", { text: t("stepGuards") }));
  if (guards.length) box.append(guardList(guards));
  else box.append(el("p", { class: "muted", text: t("stepGuardsPlanned", { rules: step.guards.map(ruleSummary).join("; ") }) }));
  card.append(box);
}

function flagStep(step, index, context) {
  const current = context.document?.flags?.[step.flag];
  const waiting = context.waiting.filter((change) => change.touchedFlags.includes(step.flag));
  const missing = missingCohorts(step, context.document);
  const done = isDone(step, current);
  const status = done ? "done" : waiting.length ? "waiting" : missing.length ? "blocked" : "todo";
  const guarded = protectedBy(context.policy, step.flag);
  const card = stepCard(step, index, status);
  card.append(el("p", { class: "muted" }, el("code", { text: step.flag }), guarded ? el("strong", { text: ` ${t("needsSecond")}` }) : null));
  if (!current) card.append(el("p", { class: "error", text: t("stepNoFlag", { flag: step.flag }) }));
  if (status === "blocked") {
    const adding = paidDaySteps.findIndex((other) => other.kind === "cohorts" && missing.some((name) => name in other.cohorts));
    card.append(el("p", { class: "blocked", text: t("stepBlocked", { step: adding >= 0 ? adding + 1 : "?", cohorts: missing.join(", ") }) }));
  }
  card.append(el("div", { class: "step-preview preview", hidden: true }));
  appendWaiting(card, waiting, (change) => {
    const proposed = change.changes?.flags?.[step.flag];
    return proposed ? { flag: step.flag, definition: proposed } : null;
  });
  const applied = context.applied.find((change) => change.touchedFlags.includes(step.flag));
  if (done && applied) card.append(el("p", { class: "muted", text: t("stepApplied", { author: applied.author, by: applied.approvedBy ?? "-", version: applied.appliedVersion }) }));
  if (step.guards?.length) appendStepGuards(card, step, context, [...waiting, ...(done && applied ? [applied] : [])]);
  if (status === "todo" && current && canWrite()) {
    const body = proposal(step, current);
    appendChangeForm(card, step, guarded, () => preview({ flag: step.flag, ...body }, card, context.version),
      () => publish(card, (message) => api.putFlag(state.environment, step.flag, "value" in body ? body.value : body.definition, card.dataset.etag || "*", message),
        step.guards ?? []));
  }
  card.append(el("p", { class: "error", role: "alert" }), el("ul", { class: "issues" }));
  return card;
}

/** The instant field of a cohort step: typed in the browser's time zone, shown as the UTC instant written. */
function instantField(step, card, onInput) {
  const input = el("input", { id: `step-${step.id}-${step.input.name}`, class: "step-input", type: "datetime-local", required: true });
  const shown = el("p", { class: "muted step-utc", "aria-live": "polite" });
  input.addEventListener("input", () => {
    const at = rfc3339(input.value ? new Date(input.value) : null);
    shown.textContent = at ? t("writtenAsUTC", { at }) : t("instantRequired");
    onInput();
  });
  shown.textContent = t("instantRequired");
  card.append(el("label", { for: input.id, text: text(step.input.label).replace("{zone}", timeZone()) }), input, shown);
  return () => {
    const at = rfc3339(input.value ? new Date(input.value) : null);
    return at ? { [step.input.name]: at } : null;
  };
}

function cohortStep(step, index, context) {
  const names = Object.keys(step.cohorts);
  const waiting = context.waiting.filter((change) => names.some((name) => name in (change.changes?.cohorts ?? {})));
  const done = isDone(step, context.document);
  const status = done ? "done" : waiting.length ? "waiting" : "todo";
  const guarded = context.policy?.protected === true;
  const card = stepCard(step, index, status);
  card.append(el("p", { class: "muted" }, ...names.flatMap((name, at) => [at ? ", " : "", el("code", { text: name })]),
    guarded ? el("strong", { text: ` ${t("needsSecond")}` }) : null));
  const values = publishedInput(step, context.document);
  if (done && step.input && values) {
    const at = values[step.input.name];
    card.append(el("p", { class: "muted step-utc", text: t("publishedInstant", { at, local: time(at) }) }));
  }
  const editable = status === "todo" && context.document && canWrite();
  let previewed = null;
  // The instant is typed before the preview shows what it writes; a new instant hides the old preview and Publish.
  const read = !editable ? null : step.input ? instantField(step, card, () => {
    previewed = null;
    card.querySelector(".step-preview").hidden = true;
    const go = card.querySelector('[data-action="publish"]');
    if (go) go.hidden = true;
  }) : () => ({});
  card.append(el("div", { class: "step-preview preview", hidden: true }));
  appendWaiting(card, waiting, (change) => {
    const cohorts = Object.fromEntries(Object.entries(change.changes?.cohorts ?? {}).filter(([, value]) => value !== null));
    return context.document ? { document: { ...context.document, cohorts: { ...(context.document.cohorts ?? {}), ...cohorts } } } : null;
  });
  if (editable) {
    const { etag, version } = context;
    appendChangeForm(card, step, guarded, () => {
      const input = read();
      if (!input) {
        card.querySelector(".error").textContent = t("instantRequired");
        card.querySelector("input.step-input")?.focus();
        return;
      }
      previewed = documentWithCohorts(step, context.document, input);
      preview({ document: previewed }, card, version);
    }, () => previewed && publish(card, (message) => api.putDocument(state.environment, previewed, etag, message)));
  }
  card.append(el("p", { class: "error", role: "alert" }), el("ul", { class: "issues" }));
  return card;
}

export async function renderPaidDay() {
  const list = clear(byId("paid-day-steps"));
  const summary = byId("paid-day-summary");
  summary.textContent = "";
  let context;
  try {
    const [policy, requests, schedules, applied, guards] = await Promise.all([
      api.policy(state.environment), api.changes(state.environment, "requests", "pending"),
      api.changes(state.environment, "schedules", "pending,scheduled,approved"), api.changes(state.environment, "requests", "applied"),
      // Guards that cannot be read (a server without them, a token that may not read them): the steps as before, their
      // guards only as planned.
      readGuards(state.environment).then(({ guards }) => withVersionAuthors(state.environment, guards)),
    ]);
    const seen = new Set();
    const waiting = [...requests.body.changes, ...schedules.body.changes].filter((change) => !seen.has(change.id) && seen.add(change.id));
    context = { policy: policy.body.policy, waiting, applied: applied.body.changes, guards, document: state.envelope?.document,
      version: state.envelope?.version, etag: state.etag };
  } catch (failure) {
    list.append(el("li", { class: "error", text: describeError(failure) }));
    return;
  }
  const cards = paidDaySteps.map((step, index) => step.kind === "flag" ? flagStep(step, index, context)
    : step.kind === "cohorts" ? cohortStep(step, index, context) : stepCard(step, index, "manual"));
  list.append(...cards);
  const count = (...statuses) => cards.filter((card) => statuses.includes(card.dataset.status)).length;
  summary.textContent = t("paidDaySummary", { done: count("done"), waiting: count("waiting"), todo: count("todo", "blocked") });
}
