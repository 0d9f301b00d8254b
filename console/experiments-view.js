// The experiments view: a price or offer experiment read from Apple's notifications (docs/guards.md, "Running an
// experiment"). It reads GET /v1/environments/{env}/experiments/{flag} for a string flag of the current document
// and shows the arms with their counts, each comparison's effect (started per share) with its always-valid interval
// and "not decided yet" until the test decides, the sample-ratio check and what is not known. The statistics are the
// server's; this file only lays them out.
import { APIError, api } from "./api.js";
import { addDays } from "./outcomes-view.js";
import { describeError, state } from "./session.js";
import { byId, el } from "./dom.js";
import { currentLanguage, number, t } from "./i18n.js";

/** Each load's number: an answer that arrives after a newer load started is dropped. */
let loads = 0;

/** The document's string flags, the experiment candidates; `paywallProduct` first when present. */
export function experimentFlags(flags) {
  const keys = Object.keys(flags ?? {}).filter((key) => flags[key]?.type === "string").sort();
  return keys.includes("paywallProduct") ? ["paywallProduct", ...keys.filter((key) => key !== "paywallProduct")] : keys;
}

/** The query of the form: the range (whole UTC days, `through` included) when given, and the App Store environment. */
export function experimentQuery(from, through, store) {
  const query = new URLSearchParams();
  if (from) query.set("from", from);
  if (through) query.set("to", addDays(through, 1));
  if (store) query.set("appStoreEnvironment", store);
  return query;
}

/** Two decimals in the reader's locale. */
function twoDecimals(value) {
  return new Intl.NumberFormat(currentLanguage() === "de" ? "de-DE" : "en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    .format(value);
}

/** 4.99 as "4.99 EUR"; "—" without an amount. */
function money(amount, currency) {
  if (amount === null || amount === undefined) return "—";
  return currency ? `${twoDecimals(amount)} ${currency}` : twoDecimals(amount);
}

/** A ratio or bound: two decimals; "∞" for an infinite one (the API's null). */
function ratio(value) {
  return value === null || value === undefined ? "∞" : twoDecimals(value);
}

/** A p-value: three decimals, or scientific below 0.001. */
function probability(value) {
  return value >= 0.001 ? value.toFixed(3) : value.toExponential(1);
}

function cell(text, attributes = {}) {
  return el("td", { ...attributes, text: String(text) });
}

function renderArms(report) {
  const columns = ["experimentArm", "experimentShare", "experimentListPrice", "experimentStarted", "experimentIntroStarts",
    "experimentIntroConversions", "experimentRefunds", "experimentRevenue"];
  const table = byId("experiments-arms");
  table.querySelector("thead").replaceChildren(el("tr", {}, ...columns.map((key) => el("th", { scope: "col", text: t(key) }))));
  table.querySelector("tbody").replaceChildren(...report.arms.map((arm) => el("tr", { "data-arm": arm.name },
    el("th", { scope: "row", text: arm.name }),
    cell(`${number(arm.share)} %`),
    cell(money(arm.listPrice, arm.currency), { title: arm.listPriceSource ? t(`priceSource_${arm.listPriceSource}`) : "" }),
    cell(number(arm.started), { class: "count", "data-metric": "started" }),
    cell(number(arm.introStarts), { class: "count", "data-metric": "introStarts" }),
    cell(number(arm.introConversions), { class: "count", "data-metric": "introConversions" }),
    cell(number(arm.refunds), { class: "count", "data-metric": "refunds" }),
    cell(money(arm.revenueAtListPrice, arm.currency), { class: "count", "data-metric": "revenueAtListPrice" }))));
}

function renderComparisons(report) {
  const name = (index) => report.arms[index]?.name ?? "?";
  byId("experiments-comparisons").replaceChildren(...report.comparisons.map((comparison) => el("li", {
    "data-decided": String(comparison.decided),
  }, el("strong", { text: t("experimentPair", { first: name(comparison.first), second: name(comparison.second) }) }), " ",
  t("experimentEffect", { ratio: ratio(comparison.ratio), lower: ratio(comparison.lower), upper: ratio(comparison.upper),
    p: probability(comparison.pValue) }), " ",
  el("span", { class: comparison.decided ? "verdict decided" : "verdict", "data-verdict": "",
    text: comparison.decided ? t("experimentDecided", { arm: name(comparison.ratio > 1 ? comparison.first : comparison.second) })
      : t("notDecidedYet") }))));
}

function renderChecks(report) {
  const name = (index) => report.arms[index]?.name ?? "?";
  const box = byId("experiments-ratio");
  if (report.sampleRatioChecks.length === 0) {
    box.dataset.state = "none";
    box.textContent = t("sampleRatioNone");
    return;
  }
  const mismatch = report.sampleRatioChecks.some((check) => check.mismatch);
  box.dataset.state = mismatch ? "mismatch" : "ok";
  box.textContent = report.sampleRatioChecks.map((check) => t(check.mismatch ? "sampleRatioMismatch" : "sampleRatioOk", {
    arms: check.arms.map(name).join(", "), p: probability(check.pValue),
  })).join(" ");
}

async function load() {
  const error = byId("experiments-error");
  const notice = byId("experiments-state");
  const result = byId("experiments-result");
  error.textContent = "";
  const flag = byId("experiments-flag").value;
  if (!flag) {
    notice.dataset.state = "none";
    notice.textContent = t("experimentNoFlag");
    result.hidden = true;
    return;
  }
  const ticket = ++loads;
  notice.dataset.state = "loading";
  notice.textContent = t("loading");
  let report;
  try {
    ({ body: report } = await api.experiment(state.environment, flag,
      experimentQuery(byId("experiments-from").value, byId("experiments-through").value, byId("experiments-store").value)));
  } catch (failure) {
    if (ticket !== loads) return;
    result.hidden = true;
    notice.dataset.state = "failed";
    notice.textContent = "";
    const refused = failure instanceof APIError && (failure.status === 401 || failure.status === 403);
    const notExperiment = failure instanceof APIError && failure.status === 422;
    error.textContent = refused ? t("outcomesNeedWriter", { message: failure.message })
      : notExperiment ? t("experimentNotOne", { message: failure.message }) : describeError(failure);
    return;
  }
  if (ticket !== loads) return;
  notice.dataset.state = "shown";
  notice.textContent = t("experimentRange", {
    flag, since: report.splitSince ? t("experimentSince", { version: report.splitSince.version }) : "",
    from: report.from.slice(0, 10), to: report.to.slice(0, 10), store: report.appStoreEnvironment,
  });
  renderArms(report);
  renderComparisons(report);
  renderChecks(report);
  byId("experiments-not-known").textContent = t("experimentNotKnown", { list: report.notKnown.join("; ") });
  result.hidden = false;
}

/** Draws the view for the current environment: its string flags to pick from, the report of the chosen one. */
export async function renderExperiments() {
  const select = byId("experiments-flag");
  const current = select.value;
  const keys = experimentFlags(state.envelope?.document?.flags);
  select.replaceChildren(...keys.map((key) => el("option", { value: key, text: key })));
  select.value = keys.includes(current) ? current : keys[0] ?? "";
  await load();
}

/** The form's submit. */
export function setUpExperiments() {
  byId("experiments-form").addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });
}
