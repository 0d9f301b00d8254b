// The environment's policy (admin): whether every change needs a second person, how long a request waits,
// and per flag whether it is protected, who owns it and when it should be removed. Saved as one PUT; the
// server validates it and each problem is shown at its JSON path, next to the field it names.
import { api } from "./api.js";
import { clearRefusal, describeError, isAdmin, notify, showRefusal, state } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { t, time } from "./i18n.js";

/** RFC 6901: a key as one token of a JSON pointer. */
const pointer = (key) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** JSON path to input, for the server's refusals. */
let fields = new Map();

function field(id, label, input, path) {
  input.id = id;
  fields.set(path, input);
  return [el("label", { for: id, text: label }), input, el("p", { class: "error field-error", id: `${id}-error`, role: "alert" })];
}

function flagRow(key, entry, index) {
  const base = `policy-flag-${index}`;
  const protect = el("input", { type: "checkbox", id: `${base}-protected` });
  protect.checked = entry.protected === true;
  fields.set(`/flags/${pointer(key)}/protected`, protect);
  const owner = el("input", { spellcheck: "false", value: entry.owner ?? "" });
  const removeAfter = el("input", { spellcheck: "false", placeholder: "YYYY-MM-DD", inputmode: "numeric", value: entry.removeAfter ?? "" });
  const remove = el("button", { type: "button", class: "quiet", text: t("removeRow"), "aria-label": `${t("removeRow")} ${key}` });
  const row = el("li", { class: "card policy-flag", "data-policy-flag": key },
    el("h3", {}, el("code", { text: key })),
    el("p", { class: "check" }, protect, el("label", { for: protect.id, text: t("protectedFlag") })),
    field(`${base}-owner`, t("owner"), owner, `/flags/${pointer(key)}/owner`),
    field(`${base}-remove-after`, t("removeAfter"), removeAfter, `/flags/${pointer(key)}/removeAfter`),
    el("div", { class: "actions" }, remove));
  remove.addEventListener("click", () => row.remove());
  row.read = () => {
    const value = {};
    if (protect.checked) value.protected = true;
    if (owner.value.trim()) value.owner = owner.value.trim();
    if (removeAfter.value.trim()) value.removeAfter = removeAfter.value.trim();
    return [key, value];
  };
  return row;
}

function render(container, record) {
  fields = new Map();
  const policy = record.policy;
  const whole = el("input", { type: "checkbox", id: "policy-protected" });
  whole.checked = policy.protected === true;
  fields.set("/protected", whole);
  const ttl = el("input", { inputmode: "numeric", spellcheck: "false", value: String(policy.requestTTLHours ?? 72) });
  const rows = el("ul", { class: "cards", id: "policy-flags" });
  let index = 0;
  for (const [key, entry] of Object.entries(policy.flags ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) rows.append(flagRow(key, entry, index++));
  const newKey = el("input", { id: "policy-new-flag", list: "policy-flag-keys", spellcheck: "false" });
  const keys = el("datalist", { id: "policy-flag-keys" },
    Object.keys(state.envelope?.document?.flags ?? {}).sort().map((key) => el("option", { value: key })));
  const add = el("button", { type: "button", class: "quiet", id: "policy-add", text: t("addFlag") });
  add.addEventListener("click", () => {
    const key = newKey.value.trim();
    if (!key || rows.querySelector(`[data-policy-flag="${CSS.escape(key)}"]`)) return;
    rows.append(flagRow(key, {}, index++));
    newKey.value = "";
  });
  const save = el("button", { type: "submit", class: "primary", id: "policy-save", text: t("savePolicy") });
  const form = el("form", { class: "panel", id: "policy-form" },
    el("p", { class: "muted", text: record.updatedBy ? t("policyUpdated", { by: record.updatedBy, time: time(record.updatedAt) }) : t("policyDefault") }),
    el("p", { class: "check" }, whole, el("label", { for: whole.id, text: t("protectEnvironment") })),
    field("policy-ttl", t("requestTTL"), ttl, "/requestTTLHours"),
    el("h3", { text: t("policyFlags") }), rows,
    el("label", { for: newKey.id, text: t("newPolicyFlag") }), newKey, keys,
    el("div", { class: "actions" }, add, save),
    el("p", { class: "error", id: "policy-error", role: "alert" }),
    el("ul", { class: "issues", id: "policy-issues" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = byId("policy-error");
    clearRefusal(error, byId("policy-issues"), fields);
    const hours = ttl.value.trim();
    // Sent as typed when it is not a whole number, so the server's refusal names it at /requestTTLHours.
    const body = {
      protected: whole.checked,
      requestTTLHours: /^-?\d+$/.test(hours) ? Number(hours) : hours,
      flags: Object.fromEntries([...rows.children].map((row) => row.read())),
    };
    try {
      await api.putPolicy(state.environment, body);
      notify(t("policySaved", { environment: state.environment }), "success");
      await renderPolicy();
    } catch (failure) {
      showRefusal(error, byId("policy-issues"), failure, fields);
    }
  });
  container.append(form);
}

export async function renderPolicy() {
  const container = clear(byId("policy-view"));
  if (!isAdmin()) return;
  try {
    const { body } = await api.policy(state.environment);
    render(container, body);
  } catch (failure) {
    container.append(el("p", { class: "error", text: describeError(failure) }));
  }
}
