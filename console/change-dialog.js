// Every change goes through one dialog: edit, then the server's preview (the semantic diff and the
// share of sampled installs whose value changes, computed by the same Swift code as flagctl diff
// --impact), then a message, then publish with If-Match, or (a flag's change) schedule it for a time typed in
// the browser's time zone and sent as its UTC instant. A 412 offers to reload and re-apply. "Guard this change" adds a
// guard (guards.js) to what the publish made: the version, the change request or the schedule.
import { APIError, api } from "./api.js";
import { guardActions, guardMetrics, guardPublished } from "./guards.js";
import { metricLabel } from "./outcomes-chart.js";
import { describeError, notify, reload, state, timeZone, utcInstant } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { number, percent, t, time } from "./i18n.js";

/** The change being prepared: `propose()` gives the preview body, `publish(message, etag)` sends it. */
let pending = null;

function resetOutput() {
  byId("change-error").textContent = "";
  clear(byId("change-issues"));
  byId("change-preview").hidden = true;
  byId("change-conflict").hidden = true;
  byId("change-publish").hidden = true;
  byId("change-preview-button").hidden = false;
}

function showIssues(error) {
  byId("change-error").textContent = describeError(error);
  const list = clear(byId("change-issues"));
  for (const issue of error.details ?? []) {
    list.append(el("li", {}, el("code", { class: "path", text: issue.path }), el("span", { text: ` ${issue.message}` })));
  }
}

/** The diff lines as flagctl prints them, one span per line with its kind for colour. */
export function renderDiff(target, lines) {
  clear(target);
  if (!lines.length) target.append(el("span", { class: "line", text: t("noChange") }));
  for (const line of lines) target.append(el("span", { class: `line ${line.kind}`, text: line.text }), "\n");
}

function renderImpact(impact) {
  const list = clear(byId("change-impact"));
  if (!impact) return;
  const changed = Object.entries(impact.flags).filter(([, flag]) => flag.changed > 0);
  if (!changed.length) list.append(el("li", { text: t("impactNone") }));
  for (const [key, flag] of changed) {
    list.append(el("li", { class: "impact-flag" },
      el("code", { text: key }), ": ", el("strong", { class: "share", text: percent(flag.share) }),
      el("span", { text: ` ${t("impactShare")}` })));
  }
  list.append(el("li", { class: "impact-lines" }, el("pre", { text: impact.lines.join("\n") })));
  list.append(el("li", { class: "muted", text: t("sampled", { count: number(impact.sampleSize), seed: impact.seed }) }));
}

async function runPreview() {
  resetOutput();
  let body;
  try {
    body = pending.propose();
  } catch (failure) {
    byId("change-error").textContent = failure.message;
    const list = clear(byId("change-issues"));
    if (failure.path) list.append(el("li", {}, el("code", { class: "path", text: failure.path })));
    return;
  }
  try {
    const { body: answer } = await api.preview(state.environment, body);
    pending.baseEtag = answer.baseEtag;
    renderDiff(byId("change-diff"), answer.lines);
    renderImpact(answer.impact);
    byId("change-preview").hidden = false;
    byId("change-preview-button").hidden = true;
    byId("change-publish").hidden = !answer.changed;
    byId("change-when-changed").hidden = !answer.changed;
    if (answer.changed) byId("change-message").focus();
  } catch (failure) {
    showIssues(failure);
  }
}

async function publish() {
  const message = byId("change-message").value.trim();
  if (!message) {
    byId("change-error").textContent = t("messageRequired");
    byId("change-message").focus();
    return;
  }
  const later = pending.schedule && byId("change-later").checked;
  const at = later ? utcInstant(byId("change-at").value) : null;
  if (later && !at) {
    byId("change-error").textContent = t("timeRequired");
    byId("change-at").focus();
    return;
  }
  try {
    const { body } = later ? await pending.schedule(at, message, pending.baseEtag) : await pending.publish(message, pending.baseEtag);
    byId("change").close();
    let notice;
    let kind;
    if (later) {
      notice = t(body.change.status === "pending" ? "scheduledNeedsApproval" : "scheduled",
        { id: body.change.id, time: time(body.change.applyAt), flags: body.change.protectedFlags.join(", ") });
      kind = "success";
    } else if (body.change?.status === "pending") {
      // 202: a protected flag; nothing is published until a second person approves (the Waiting changes view).
      notice = t("requested", { id: body.change.id, flags: body.change.protectedFlags.join(", ") });
      kind = "info";
    } else {
      notice = body.changed ? t("published", { version: body.version }) : t("unchanged");
      kind = "success";
    }
    if (byId("change-guard").checked) {
      const rule = { metric: byId("change-guard-metric").value, action: byId("change-guard-action").value };
      const { added, nothing, failure } = await guardPublished(state.environment, body, [rule]);
      if (nothing) notice += ` ${t("changeGuardNothing")}`;
      else if (failure) {
        notice += ` ${t("stepGuardsFailed", { message: describeError(failure) })}`;
        kind = "error";
      } else notice += ` ${t("changeGuardAdded", { id: added[0].id })}`;
    }
    notify(notice, kind);
    await reload();
  } catch (failure) {
    if (failure instanceof APIError && failure.status === 412) {
      byId("change-conflict-text").textContent = t("conflict", { version: failure.error.currentVersion ?? "?" });
      byId("change-conflict").hidden = false;
      byId("change-publish").hidden = true;
      byId("change-reapply").focus();
    } else {
      showIssues(failure);
    }
  }
}

function open(title, editor, change) {
  pending = change;
  byId("change-title").textContent = title;
  clear(byId("change-editor")).append(...editor);
  byId("change-message").value = "";
  byId("change-schedule").hidden = !change.schedule;
  byId("change-later").checked = false;
  byId("change-at").value = "";
  byId("change-guard").checked = false;
  byId("change-guard-metric").replaceChildren(...guardMetrics.map((metric) => el("option", { value: metric, text: metricLabel(metric) })));
  byId("change-guard-action").replaceChildren(...guardActions.map((action) => el("option", { value: action, text: t(`action_${action}`) })));
  showGuard();
  showLater();
  resetOutput();
  byId("change").showModal();
}

/** The guard's fields when "Guard this change" is ticked. */
function showGuard() {
  byId("change-guard-fields").hidden = !byId("change-guard").checked;
}

/** The time fields when "later" is ticked: the browser's time zone named, the UTC instant that will be sent. */
function showLater() {
  const later = byId("change-later").checked;
  byId("change-later-fields").hidden = !later;
  byId("change-publish").textContent = t(later ? "schedule" : "publish");
  byId("change-at-label").textContent = t("publishAt", { zone: timeZone() });
  const at = utcInstant(byId("change-at").value);
  byId("change-at-utc").textContent = at ? t("sentAsUTC", { at }) : "";
}

/** A value typed into the editor as JSON for the flag's type; an Error with `path` when it is not JSON. */
function parsedValue(type, text, key) {
  if (type === "string") return text;
  if (type === "integer" || type === "number") {
    const trimmed = text.trim();
    // Not a number: sent as typed, so the server refuses it at its path (type_mismatch).
    return trimmed !== "" && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(trimmed) ? JSON.parse(trimmed) : text;
  }
  try {
    return JSON.parse(text);
  } catch (failure) {
    const error = new Error(t("notJSON", { message: failure.message }));
    error.path = `/flags/${key.replaceAll("~", "~0").replaceAll("/", "~1")}/default`;
    throw error;
  }
}

/** The dialog for one flag: its new value (or whole definition), previewed, then published. */
export function openFlagChange(key, flag) {
  const valueInput = flag.type === "boolean"
    ? el("select", { id: "change-value" }, el("option", { value: "true", text: "true" }), el("option", { value: "false", text: "false" }))
    : flag.type === "json" || flag.type === "string"
      ? el("textarea", { id: "change-value", rows: flag.type === "json" ? "8" : "3", spellcheck: "false" })
      : el("input", { id: "change-value", inputmode: "decimal", spellcheck: "false" });
  valueInput.value = flag.type === "boolean" ? String(flag.default !== true)
    : flag.type === "string" ? flag.default : JSON.stringify(flag.default, null, flag.type === "json" ? 2 : 0);
  const dropRules = el("input", { type: "checkbox", id: "change-drop-rules" });
  const useDefinition = el("input", { type: "checkbox", id: "change-use-definition" });
  const definition = el("textarea", { id: "change-definition", rows: "10", spellcheck: "false", hidden: true });
  definition.value = JSON.stringify(flag, null, 2);
  useDefinition.addEventListener("change", () => {
    definition.hidden = !useDefinition.checked;
    valueInput.disabled = useDefinition.checked;
    resetOutput();
  });
  for (const input of [valueInput, dropRules, definition]) input.addEventListener("input", resetOutput);
  const editor = [
    el("label", { for: "change-value", text: t("newValue") }), valueInput,
    flag.rules?.length ? el("p", { class: "check" }, dropRules, el("label", { for: "change-drop-rules", text: t("dropRules") })) : [],
    el("p", { class: "check" }, useDefinition, el("label", { for: "change-use-definition", text: t("editDefinition") })),
    el("label", { for: "change-definition", class: "visually-hidden", text: t("definition") }), definition,
  ].flat();
  let request = null;
  open(t("changeTitle", { key, environment: state.environment }), editor, {
    propose() {
      if (useDefinition.checked) {
        let parsed;
        try {
          parsed = JSON.parse(definition.value);
        } catch (failure) {
          const error = new Error(t("notJSON", { message: failure.message }));
          error.path = `/flags/${key}`;
          throw error;
        }
        request = { definition: parsed };
      } else {
        const value = parsedValue(flag.type, valueInput.value, key);
        // Re-applied after a reload: the flag as it is now, with only the default replaced.
        const current = state.envelope?.document?.flags?.[key] ?? flag;
        request = dropRules.checked || !current.rules?.length ? { value } : { definition: { ...current, default: value } };
      }
      return { flag: key, ...request };
    },
    publish: (message, etag) => api.putFlag(state.environment, key, request.value !== undefined ? request.value : request.definition, etag, message),
    schedule: (at, message, etag) => api.schedule(state.environment, at, message,
      { [key]: request.value !== undefined ? request.value : request.definition }, etag),
  });
}

/** The dialog for a rollback to `version`: the diff from the current version to its content. */
export function openRollback(version) {
  let document = null;
  open(t("rollbackTitle", { environment: state.environment, version }), [], {
    propose() {
      if (!document) throw new Error(t("loading"));
      return { document };
    },
    publish: (message, etag) => api.rollback(state.environment, version, message, etag),
  });
  api.version(state.environment, version).then(({ body }) => {
    document = body.document;
    return runPreview();
  }).catch(showIssues);
}

export function setUpChangeDialog() {
  byId("change-preview-button").addEventListener("click", runPreview);
  byId("change-publish").addEventListener("click", publish);
  byId("change-cancel").addEventListener("click", () => byId("change").close());
  byId("change-reapply").addEventListener("click", async () => {
    await reload();
    await runPreview();
  });
  byId("change-form").addEventListener("submit", (event) => event.preventDefault());
  byId("change-later").addEventListener("change", showLater);
  byId("change-at").addEventListener("input", showLater);
  byId("change-guard").addEventListener("change", showGuard);
}
