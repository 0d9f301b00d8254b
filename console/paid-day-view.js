// The paid day, guided: docs/monetization.md's runbook as one view (the steps are data: paid-day-steps.js).
// Each flag step shows its diff and the share of installs whose value changes (the server's preview, as
// flagctl diff --impact), needs its message, and is published with If-Match; where the environment's policy
// protects the flag it becomes a change request that a second person approves here. What is done (the current
// document already has it) and what waits (a pending request or a schedule touching the flag) is read from the
// server each time, so both people see the same.
import { APIError, api } from "./api.js";
import { canWrite, describeError, notify, reload, showRefusal, state } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { currentLanguage, percent, t, time } from "./i18n.js";
import { paidDaySteps } from "./paid-day-steps.js";
import { renderDiff } from "./change-dialog.js";

const text = (pair) => pair[currentLanguage() === "de" ? 1 : 0] ?? pair[0];
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** What the step publishes for `current` (the flag now): the preview's and the PUT's body. */
export function proposal(step, current) {
  if ("value" in step) return { value: step.value };
  const definition = { ...current, ...(step.set ?? {}) };
  const missing = (step.addRules ?? []).filter((rule) => !(current.rules ?? []).some((existing) => same(existing, rule)));
  if (missing.length) definition.rules = [...missing, ...(current.rules ?? [])];
  return { definition };
}

/** Whether `current` already is what the step publishes. */
export function isDone(step, current) {
  if (!current) return false;
  if ("value" in step) return same(current.default, step.value) && !(current.rules ?? []).length;
  return same(proposal(step, current).definition, current);
}

function protectedBy(policy, key) {
  return policy?.protected === true || policy?.flags?.[key]?.protected === true;
}

/** Shows the diff and the share of installs affected of `proposed` (the step's own change, or a waiting one's). */
async function preview(step, proposed, card) {
  const output = card.querySelector(".step-preview");
  const error = card.querySelector(".error");
  error.textContent = "";
  try {
    const { body } = await api.preview(state.environment, { flag: step.flag, ...proposed });
    card.dataset.etag = body.baseEtag ?? "";
    const diff = el("pre", { class: "diff" });
    renderDiff(diff, body.lines);
    const shares = Object.entries(body.impact?.flags ?? {}).filter(([, flag]) => flag.changed > 0).map(([key, flag]) =>
      el("li", { class: "impact-flag" }, el("code", { text: key }), ": ", el("strong", { class: "share", text: percent(flag.share) }),
        el("span", { text: ` ${t("impactShare")}` })));
    clear(output).append(el("h4", { text: t("whatChanges") }), diff, el("h4", { text: t("whoIsAffected") }),
      el("ul", { class: "impact" }, shares.length ? shares : el("li", { text: t("impactNone") })));
    output.hidden = false;
    const publishButton = card.querySelector('[data-action="publish"]');
    if (publishButton) publishButton.hidden = !body.changed;
  } catch (failure) {
    showRefusal(error, card.querySelector(".issues"), failure);
  }
}

async function publish(step, current, card) {
  const error = card.querySelector(".error");
  const message = card.querySelector("input.step-message").value.trim();
  if (!message) {
    error.textContent = t("messageRequired");
    card.querySelector("input.step-message").focus();
    return;
  }
  const body = proposal(step, current);
  try {
    const { body: answer } = await api.putFlag(state.environment, step.flag, "value" in body ? body.value : body.definition, card.dataset.etag || "*", message);
    notify(answer.change?.status === "pending" ? t("requested", { id: answer.change.id, flags: answer.change.protectedFlags.join(", ") })
      : t("published", { version: answer.version }), "success");
    await reload();
  } catch (failure) {
    if (failure instanceof APIError && failure.status === 412) error.textContent = t("stepConflict", { version: failure.error.currentVersion ?? "?" });
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

function flagStep(step, index, context) {
  const current = state.envelope?.document?.flags?.[step.flag];
  const waiting = context.waiting.filter((change) => change.touchedFlags.includes(step.flag));
  const done = isDone(step, current);
  const status = done ? "done" : waiting.length ? "waiting" : "todo";
  const guarded = protectedBy(context.policy, step.flag);
  const card = el("li", { class: "card step", "data-step": step.id, "data-status": status },
    el("h3", {}, el("span", { text: `${index + 1}. ${text(step.title)}` }), el("span", { class: "badge", text: t(`step_${status}`) })),
    el("p", { text: text(step.text) }),
    el("p", { class: "muted" }, el("code", { text: step.flag }), guarded ? el("strong", { text: ` ${t("needsSecond")}` }) : null));
  if (!current) card.append(el("p", { class: "error", text: t("stepNoFlag", { flag: step.flag }) }));
  card.append(el("div", { class: "step-preview preview", hidden: true }));
  for (const change of waiting) {
    const own = change.author === state.identity?.name;
    card.append(el("p", { class: "waits", "data-change": String(change.id) }, el("span", {
      text: t(change.status === "pending" ? "stepWaitsApproval" : "stepWaitsTime",
        { id: change.id, author: change.author, time: time(change.applyAt ?? change.createdAt), message: change.message }) })));
    const actions = el("div", { class: "actions" });
    // What the waiting change would do now, for both people: the same preview as before it was proposed.
    const proposed = change.changes?.flags?.[step.flag];
    if (proposed) {
      const show = el("button", { type: "button", class: "quiet", "data-action": "preview", text: t("preview") });
      show.addEventListener("click", () => preview(step, { definition: proposed }, card));
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
  const applied = context.applied.find((change) => change.touchedFlags.includes(step.flag));
  if (done && applied) card.append(el("p", { class: "muted", text: t("stepApplied", { author: applied.author, by: applied.approvedBy ?? "-", version: applied.appliedVersion }) }));
  if (!done && !waiting.length && current && canWrite()) {
    const message = el("input", { id: `step-${step.id}-message`, class: "step-message", spellcheck: "false", value: step.message ?? "" });
    const show = el("button", { type: "button", class: "quiet", "data-action": "preview", text: t("preview") });
    const go = el("button", { type: "button", class: "primary", "data-action": "publish", hidden: true, text: t(guarded ? "requestApproval" : "publish") });
    show.addEventListener("click", () => preview(step, proposal(step, current), card));
    go.addEventListener("click", () => publish(step, current, card));
    card.append(el("label", { for: message.id, text: t("message") }), message, el("div", { class: "actions" }, show, go));
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
    const [policy, requests, schedules, applied] = await Promise.all([
      api.policy(state.environment), api.changes(state.environment, "requests", "pending"),
      api.changes(state.environment, "schedules", "pending,scheduled,approved"), api.changes(state.environment, "requests", "applied"),
    ]);
    const seen = new Set();
    const waiting = [...requests.body.changes, ...schedules.body.changes].filter((change) => !seen.has(change.id) && seen.add(change.id));
    context = { policy: policy.body.policy, waiting, applied: applied.body.changes };
  } catch (failure) {
    list.append(el("li", { class: "error", text: describeError(failure) }));
    return;
  }
  const cards = paidDaySteps.map((step, index) => step.kind === "flag" ? flagStep(step, index, context)
    : el("li", { class: "card step manual", "data-step": step.id, "data-status": "manual" },
      el("h3", {}, el("span", { text: `${index + 1}. ${text(step.title)}` }), el("span", { class: "badge", text: t("step_manual") })),
      el("p", { text: text(step.text) })));
  list.append(...cards);
  const count = (status) => cards.filter((card) => card.dataset.status === status).length;
  summary.textContent = t("paidDaySummary", { done: count("done"), waiting: count("waiting"), todo: count("todo") });
}
