// The flags of the current document: type, description, default, rules (cohort, rollout) and
// prerequisites, with a change button for writers.
import { canWrite, state } from "./session.js";
import { byId, clear, el, jsonText } from "./dom.js";
import { t } from "./i18n.js";
import { openFlagChange } from "./change-dialog.js";

function ruleItem(rule) {
  const who = rule.cohort ? t("cohort", { cohort: rule.cohort }) : t("everyone");
  const share = rule.rollout === undefined ? "" : ` · ${t("rollout", { rollout: rule.rollout })}`;
  return el("li", {}, el("span", { text: `${who}${share} → ` }), el("code", { text: jsonText(rule.value) }));
}

function field(label, ...content) {
  return [el("dt", { text: label }), el("dd", {}, ...content)];
}

function flagCard(key, flag) {
  const id = `flag-${key}`;
  const rules = flag.rules?.length ? el("ol", { class: "rules" }, flag.rules.map(ruleItem)) : el("span", { class: "muted", text: t("noRules") });
  const requires = Object.entries(flag.requires ?? {});
  const facts = el("dl", { class: "facts" },
    field(t("type"), el("span", { class: "badge", text: flag.type })),
    flag.description ? field(t("description"), el("span", { class: "description", text: flag.description })) : [],
    field(t("defaultValue"), el("code", { class: "value", text: jsonText(flag.default) })),
    field(t("rules"), rules),
    requires.length ? field(t("requires"), el("ul", { class: "requires" },
      requires.map(([name, value]) => el("li", {}, el("code", { text: `${name} = ${jsonText(value)}` }))))) : []);
  const card = el("li", { class: "card", id, "data-flag": key }, el("h3", { text: key }), facts);
  if (canWrite()) {
    const label = flag.type === "boolean" ? (flag.default === true ? t("turnOff") : t("turnOn")) : t("change");
    const button = el("button", { type: "button", class: "primary change", "aria-label": `${label} ${key}`, text: label });
    button.addEventListener("click", () => openFlagChange(key, flag));
    card.append(el("div", { class: "actions" }, button));
  }
  return card;
}

export function renderFlags() {
  const list = clear(byId("flag-list"));
  const flags = state.envelope?.document?.flags ?? {};
  const keys = Object.keys(flags).sort();
  if (!keys.length) list.append(el("li", { class: "muted", text: t("noFlags") }));
  for (const key of keys) list.append(flagCard(key, flags[key]));
}
