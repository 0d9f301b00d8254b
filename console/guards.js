// Guards in the console (docs/guards.md): a guard's card (status badge, rule in words, what it rides on, its window, the
// last decision's message, what it did) with Remove and Override, and the small form that adds one to a change or a
// version. The changes view and the paid-day view draw them; the outcomes chart shades their windows.
import { APIError, api } from "./api.js";
import { el } from "./dom.js";
import { confirmingButton } from "./forms.js";
import { number, t, time } from "./i18n.js";
import { metricLabel } from "./outcomes-chart.js";
import { canWrite, describeError, notify, reload, state } from "./session.js";

/** The metrics and actions a guard may have (GuardRule), in the order the form offers them. */
export const guardMetrics = ["refunds", "autoRenewOff", "billingProblems", "started", "introConversions"];
export const guardActions = ["rollback", "pauseSchedules", "notify"];
/** Statuses of guards that still matter; the others ended (closed, cancelled, removed). */
export const liveStatuses = ["waiting", "watching", "tripped", "overridden"];

/** Whether the metric trips on a fall against the previous week (a paywall that stopped selling). */
function fallsAreBad(rule) {
  return rule.metric === "started" || rule.metric === "introConversions";
}

/** A rule's metric and measure in words, as its summary and a held schedule's line start: "refunds per hour". */
export function metricWords(rule) {
  return `${metricLabel(rule.metric)} ${t(`measure_${rule.measure ?? "perHour"}`)}`;
}

/**
 * A rule in words: "refunds per hour against the previous week (at least 5 notifications, 72 h window, alpha 0.01, a
 * change of +50 % or more) · then: roll back".
 */
export function ruleSummary(rule) {
  const baseline = t(`baseline_${rule.baseline ?? "previousWeek"}`, { threshold: number(rule.threshold ?? 0) });
  const details = [t("guardRuleDetails", { count: rule.minimumCount ?? 5, hours: rule.windowHours ?? 72, alpha: number(rule.alpha ?? 0.01) })];
  if ((rule.baseline ?? "previousWeek") === "previousWeek") {
    const change = number(Math.round((rule.minimumRelativeChange ?? 0.5) * 100));
    details.push(t("guardRuleChange", { change: `${fallsAreBad(rule) ? "−" : "+"}${change} %` }));
  }
  return `${metricWords(rule)} ${baseline} (${details.join(", ")}) · `
    + t("guardThen", { action: t(`action_${rule.action}`) });
}

/** What the guard rides on: a change (and the version it published), or a version. */
export function guardTarget(guard) {
  if (guard.change === null || guard.change === undefined) return t("guardOnVersion", { version: guard.version });
  return guard.version ? t("guardOnChangeVersion", { change: guard.change, version: guard.version }) : t("guardOnChange", { change: guard.change });
}

async function override(guard, input, errorNode) {
  const message = input.value.trim();
  errorNode.textContent = "";
  if (!message) {
    errorNode.textContent = t("guardOverrideNeedsMessage");
    input.focus();
    return;
  }
  try {
    await api.overrideGuard(guard.id, message);
    notify(t("guardOverridden", { id: guard.id }), "success");
    await reload();
  } catch (failure) {
    errorNode.textContent = describeError(failure);
  }
}

/** A guard's card: what it watches and how, its state and last decision, and what a writer may do with it now. */
export function guardCard(guard) {
  const errorNode = el("p", { class: "error", role: "alert", id: `guard-${guard.id}-error` });
  const actions = el("div", { class: "actions" });
  const parts = [];
  if (canWrite() && (guard.status === "waiting" || guard.status === "watching")) {
    actions.append(confirmingButton(t("guardRemove"), t("guardRemoveConfirm"), "remove-guard", errorNode, async () => {
      await api.removeGuard(guard.id);
      notify(t("guardRemoved", { id: guard.id }), "success");
      await reload();
    }));
  }
  if (canWrite() && guard.status === "tripped") {
    // `versionAuthor`: the watched version's author, when the view looked it up (the server refuses them too).
    if (guard.createdBy === state.identity?.name || (guard.versionAuthor && guard.versionAuthor === state.identity?.name)) {
      parts.push(el("p", { class: "muted", text: t("guardOwn") }));
    } else {
      const input = el("input", { id: `guard-${guard.id}-override`, class: "guard-override-message", spellcheck: "false" });
      const button = el("button", { type: "button", class: "primary", "data-action": "override-guard", text: t("guardOverride") });
      button.addEventListener("click", () => override(guard, input, errorNode));
      parts.push(el("label", { for: input.id, text: t("guardOverrideMessage") }), input);
      actions.append(button);
    }
  }
  const decision = guard.lastDecision;
  const window = guard.publishedAt ? t("guardWindow", { from: time(guard.publishedAt), to: time(guard.windowEndsAt) }) : t("guardWaitsForChange");
  return el("li", { class: "card guard", "data-guard": String(guard.id), "data-status": guard.status, "data-metric": guard.rule?.metric },
    el("h4", {}, el("span", { text: t("guardTitle", { id: guard.id }) }), el("span", { class: "badge", text: t(`guardStatus_${guard.status}`) })),
    el("p", { class: "rule", text: ruleSummary(guard.rule ?? {}) }),
    el("p", { class: "meta", text: [guardTarget(guard), window, t("guardCreated", { author: guard.createdBy }),
      t("guardReads", { product: guard.product ?? t("guardEveryProduct"), store: guard.appStoreEnvironment ?? "Production" })].join(" · ") }),
    el("p", { class: "decision", text: decision ? t("guardLastDecision", { message: decision.message }) : t("guardNoDecision") }),
    guard.action ? el("p", { class: "acted", text: t("guardActed", { action: t(`action_${guard.action.kind}`),
      outcome: t(`guardOutcome_${guard.action.outcome}`), version: guard.action.version ? t("guardActedVersion", { version: guard.action.version }) : "" })
      + (guard.action.reason ? `: ${guard.action.reason}` : "") }) : null,
    guard.overriddenBy ? el("p", { class: "overridden", text: t("guardOverriddenBy", { author: guard.overriddenBy, message: guard.overrideMessage ?? "" }) }) : null,
    ...parts, actions.children.length ? actions : null, errorNode);
}


/**
 * The line of a scheduled change that a tripped pauseSchedules guard holds (`change.heldByGuard`): "Held by guard 3
 * (refunds per hour): ...", with the guard's metric when `guards` (the environment's, as the API lists them) has it;
 * without it for a token that may not read guards. Null when nothing holds the change.
 */
export function heldByGuardLine(change, guards) {
  if (!change.heldByGuard) return null;
  const holder = (guards ?? []).find((guard) => guard.id === change.heldByGuard);
  const text = holder ? t("heldByGuardOn", { id: change.heldByGuard, metric: metricWords(holder.rule ?? {}) }) : t("heldByGuard", { id: change.heldByGuard });
  return el("p", { class: "blocked held", "data-held-by": String(change.heldByGuard), text });
}

/**
 * The environment's guards (only those in `statuses`, a comma-separated list, when given) as `{ guards, failure }`:
 * `failure` is what kept them from being read (a token that may not read them, the network), null when they were read
 * or the server has no guards (404). Never throws, so every view shows what it has without them.
 */
export async function readGuards(environment, statuses) {
  try {
    const { body } = await api.guards(environment, statuses);
    return { guards: body.guards, failure: null };
  } catch (failure) {
    return { guards: [], failure: failure instanceof APIError && failure.status === 404 ? null : failure };
  }
}

/**
 * Looks up the watched version's author of each tripped guard (`guard.versionAuthor`): the server refuses an override by
 * that author as by the guard's creator, so a card offers the form only to a second person. A version that cannot be
 * read leaves the author unknown (the server still refuses, with its reason). Returns `guards`.
 */
export async function withVersionAuthors(environment, guards) {
  const authors = new Map();  // one read per version, however many guards watch it
  await Promise.all(guards.filter((guard) => guard.status === "tripped" && guard.version).map(async (guard) => {
    if (!authors.has(guard.version)) {
      authors.set(guard.version, api.version(environment, guard.version).then(({ body }) => body.author, () => null));
    }
    guard.versionAuthor = await authors.get(guard.version);
  }));
  return guards;
}

/** The list of `guards` as cards (or "No guards."). */
export function guardList(guards) {
  return el("ul", { class: "cards guards" }, guards.length ? guards.map(guardCard) : el("li", { class: "muted", text: t("guardsNone") }));
}

function select(id, values, labelOf, chosen) {
  const node = el("select", { id, name: id });
  node.append(...values.map((value) => el("option", { value, text: labelOf(value), selected: value === chosen })));
  return node;
}

/**
 * The small form that adds a guard to `target` (`{change: id}` or `{version: n}`): the outcome, the action, the window
 * and the minimum count; every other field takes the rule's default. `prefix` keeps the ids of several forms apart.
 */
export function addGuardForm(target, prefix, title = t("guardAdd")) {
  const id = (name) => `${prefix}-${name}`;
  const metric = select(id("metric"), guardMetrics, metricLabel, "refunds");
  const action = select(id("action"), guardActions, (value) => t(`action_${value}`), "rollback");
  // No min or max here: the server's refusal names the field and its range (the rule's own words).
  const hours = el("input", { id: id("hours"), type: "number", step: "1", value: "72" });
  const count = el("input", { id: id("count"), type: "number", step: "1", value: "5" });
  const errorNode = el("p", { class: "error", role: "alert" });
  const submit = el("button", { type: "submit", class: "quiet", "data-action": "add-guard", text: t("guardAdd") });
  const form = el("form", { class: "guard-form grid-form", "data-target": JSON.stringify(target) },
    el("label", { for: metric.id, text: t("guardMetric") }), metric,
    el("label", { for: action.id, text: t("guardAction") }), action,
    el("label", { for: hours.id, text: t("guardWindowHours") }), hours,
    el("label", { for: count.id, text: t("guardMinimumCount") }), count,
    el("div", { class: "actions" }, submit), errorNode);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    errorNode.textContent = "";
    const rule = { metric: metric.value, action: action.value, windowHours: Number(hours.value), minimumCount: Number(count.value) };
    try {
      const [added] = await addGuards(state.environment, target, [rule]);
      notify(t("guardAdded", { id: added.id }), "success");
      await reload();
    } catch (failure) {
      // The API names the rule's field (invalid_guard): "windowHours: must be between 1 and 720".
      const field = failure?.error?.field;
      errorNode.textContent = field && !describeError(failure).startsWith(field) ? `${field}: ${describeError(failure)}` : describeError(failure);
    }
  });
  return el("details", { class: "guard-add" }, el("summary", { text: title }), form);
}

/** Adds `rules` (each a rule with its optional product and appStoreEnvironment) to `target`; the guards added. */
export async function addGuards(environment, target, rules) {
  const added = [];
  for (const { product, appStoreEnvironment, ...rule } of rules) {
    const body = { ...target, rule };
    if (product) body.product = product;
    if (appStoreEnvironment) body.appStoreEnvironment = appStoreEnvironment;
    const { body: answer } = await api.addGuard(environment, body);
    added.push(answer.guard);
  }
  return added;
}

/**
 * Puts `rules` on what a publish answered: the change request it became, else the version it published. A publish
 * that changed nothing made nothing to guard (`nothing`). `{ added, nothing, failure }`; never throws, so the caller
 * still says what the publish did.
 */
export async function guardPublished(environment, answer, rules) {
  const target = answer.change ? { change: answer.change.id } : answer.changed === false ? null : { version: answer.version };
  if (!target) return { added: [], nothing: true, failure: null };
  try {
    return { added: await addGuards(environment, target, rules), nothing: false, failure: null };
  } catch (failure) {
    return { added: [], nothing: false, failure };
  }
}

