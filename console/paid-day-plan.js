// What a paid-day step (paid-day-steps.js) publishes and whether the current document already has it: pure
// functions of the step and the document, no page, so the browser tests call them directly.

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const placeholder = /^\{(\w+)\}$/;

/** A UTC instant as the runbook writes it (RFC 3339, `Z`, milliseconds only when not zero); null for no time. */
export function rfc3339(date) {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) return null;
  return date.toISOString().replace(".000Z", "Z");
}

/** `template` with every string "{name}" replaced by `values[name]`. */
export function fill(template, values) {
  if (typeof template === "string") {
    const match = placeholder.exec(template);
    return match ? values[match[1]] : template;
  }
  if (Array.isArray(template)) return template.map((item) => fill(item, values));
  if (template && typeof template === "object") return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, fill(value, values)]));
  return template;
}

/** The values that make `fill(template, values)` equal `actual` (one value per name throughout), or null. */
export function bind(template, actual, values = {}) {
  if (typeof template === "string" && placeholder.test(template)) {
    const name = placeholder.exec(template)[1];
    if (typeof actual !== "string" || (name in values && values[name] !== actual)) return null;
    return { ...values, [name]: actual };
  }
  if (template && typeof template === "object" && actual && typeof actual === "object" && Array.isArray(template) === Array.isArray(actual)) {
    const keys = Object.keys(template);
    if (keys.length !== Object.keys(actual).length) return null;
    let bound = values;
    for (const key of keys) {
      if (!(key in actual)) return null;
      bound = bind(template[key], actual[key], bound);
      if (!bound) return null;
    }
    return bound;
  }
  return same(template, actual) ? values : null;
}

/** A cohort step's cohorts for the person's input (`values`, e.g. {switch: "2027-03-01T00:00:00Z"}). */
export function cohortsFor(step, values) {
  return fill(step.cohorts, values);
}

/** The input a cohort step's cohorts in `document` were published with ({switch: ...}), or null when they are not there. */
export function publishedInput(step, document) {
  const present = Object.fromEntries(Object.keys(step.cohorts).map((name) => [name, document?.cohorts?.[name]]));
  return bind(step.cohorts, present);
}

/** The cohorts a flag step's rules name that `document` does not have (the step waits for the step adding them). */
export function missingCohorts(step, document) {
  const rules = [...(step.addRules ?? []), ...(step.set?.rules ?? [])];
  const named = rules.map((rule) => rule.cohort).filter((name) => typeof name === "string");
  return [...new Set(named)].filter((name) => !(name in (document?.cohorts ?? {})));
}

/** The whole document a cohort step publishes: `document` with the step's cohorts added or replaced. */
export function documentWithCohorts(step, document, values) {
  return { ...document, cohorts: { ...(document.cohorts ?? {}), ...cohortsFor(step, values) } };
}

/** What a flag step publishes for `current` (the flag now): the preview's and the PUT's body. */
export function proposal(step, current) {
  if ("value" in step) return { value: step.value };
  const definition = { ...current, ...(step.set ?? {}) };
  if (step.addRules?.length) {
    const others = (definition.rules ?? []).filter((rule) => !step.addRules.some((wanted) => same(wanted, rule)));
    definition.rules = [...step.addRules, ...others];
  }
  return { definition };
}

/** Whether `current` (the flag, or for a cohort step the document) already is what the step publishes. */
export function isDone(step, current) {
  if (!current) return false;
  if (step.kind === "cohorts") return publishedInput(step, current) !== null;
  if ("value" in step) return same(current.default, step.value) && !(current.rules ?? []).length;
  return same(proposal(step, current).definition, current);
}
