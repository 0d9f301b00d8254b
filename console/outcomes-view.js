// The outcomes view: what Apple's App Store Server Notifications say followed each published version (docs/appstore.md,
// "The outcomes view"). It reads GET /v1/appstore/outcomes for a range of UTC days (the last 7 by default), per hour
// or day, for every product or one, the environment's history (GET .../versions) for the markers and its guards
// (GET .../guards) for the shaded watch windows; the chart is
// drawn by outcomes-chart.js, the totals by product and offer are a table. Counting happens on the server only.
import { APIError, api } from "./api.js";
import { describeError, state } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { number, t } from "./i18n.js";
import { chartLegend, chartMetrics, drawOutcomesChart, guardsInRange, metricLabel } from "./outcomes-chart.js";
import { readGuards } from "./guards.js";

/** Every product seen in an answer for all products: the product filter's choices. */
const products = new Set();
/** The last answer drawn, so ticking a metric redraws without asking the server again. */
let shown = null;
/** Each load's number: an answer that arrives after a newer load started is dropped. */
let loads = 0;
/** The metrics ticked; all of them at first. */
const chosen = new Set(chartMetrics);

const dayMs = 86_400_000;

/** A Date as its UTC day, "2026-12-06". */
function utcDay(date) {
  return date.toISOString().slice(0, 10);
}

/** The UTC day `days` after `day` (both "YYYY-MM-DD"). */
export function addDays(day, days) {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * dayMs));
}

/**
 * The query of a range of whole UTC days, `through` included (the API's `to` is exclusive, so it is the day after),
 * with the bucket, a product and an App Store environment when chosen.
 * Null when a day is missing or the range runs backwards.
 */
export function outcomesQuery(from, through, bucket, product, store) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(through) || from > through) return null;
  const query = new URLSearchParams({ from, to: addDays(through, 1), bucket });
  if (product) query.set("product", product);
  // One App Store environment (a sandbox tester's purchases are not revenue); none: every stored one.
  if (store) query.set("environment", store);
  return query;
}

/** The versions of `environment` published at or after `from` (ms), read page by page back to it. */
async function versionsSince(environment, from) {
  const found = [];
  let before = null;
  for (let page = 0; page < 50; page += 1) {
    const { body } = await api.versionsPage(environment, before);
    found.push(...body.versions);
    const oldest = body.versions[body.versions.length - 1];
    if (!body.next || !oldest || Date.parse(oldest.publishedAt) < from) break;
    before = oldest.version;
  }
  return found.filter((entry) => Date.parse(entry.publishedAt) >= from);
}

/** The offer of a group as words: its type (Apple's offerType 1-4) and identifier. */
export function offerText(group) {
  if (group.offerType === null || group.offerType === undefined) return group.offerIdentifier ?? t("noOffer");
  const type = [1, 2, 3, 4].includes(group.offerType) ? t(`offerType_${group.offerType}`) : t("offerTypeOther", { type: group.offerType });
  return group.offerIdentifier ? `${type}: ${group.offerIdentifier}` : type;
}

function totalsRow(cells, totals, attributes) {
  return el("tr", attributes, ...cells, ...chartMetrics.map((metric) =>
    el("td", { class: "count", "data-metric": metric, "data-value": String(totals[metric] ?? 0), text: number(totals[metric] ?? 0) })));
}

function renderTotals(report) {
  const table = byId("outcomes-totals");
  table.querySelector("thead").replaceChildren(el("tr", {}, el("th", { scope: "col", text: t("outcomesProduct") }),
    el("th", { scope: "col", text: t("outcomesOffer") }),
    ...chartMetrics.map((metric) => el("th", { scope: "col", class: "count", text: metric === "active" ? t("activeAtEnd") : metricLabel(metric) }))));
  const groups = [...report.groups].sort((a, b) => (a.product ?? "").localeCompare(b.product ?? "") || (a.offerType ?? 0) - (b.offerType ?? 0)
    || (a.offerIdentifier ?? "").localeCompare(b.offerIdentifier ?? ""));
  table.querySelector("tbody").replaceChildren(...groups.map((group) => totalsRow(
    [el("th", { scope: "row", text: group.product ?? "—" }), el("td", { text: offerText(group) })], group.totals,
    { "data-product": group.product ?? "", "data-offer-type": group.offerType ?? "", "data-offer": group.offerIdentifier ?? "" })));
  table.querySelector("tfoot").replaceChildren(totalsRow([el("th", { scope: "row", colspan: "2", text: t("outcomesAll") })],
    report.totals, { "data-total": "" }));
}

/** Whether no notification in the range was counted (`active` is a gauge: subscriptions from earlier history). */
export function isEmpty(report) {
  return Object.entries(report.totals).every(([metric, value]) => metric === "active" || !value);
}

/** Whether any bucket has active subscribers: then an empty range still has a chart (the gauge) and totals. */
function hasActive(report) {
  return report.series.some((counts) => counts.active > 0);
}

function draw() {
  const figure = byId("outcomes-figure");
  const tableBox = byId("outcomes-table-box");
  const notice = byId("outcomes-state");
  if (!shown) return;
  const { report, versions, guards, environment, days } = shown;
  const empty = isEmpty(report);
  // A server that answers with its receiver off still counts what was stored before; it says so, not "no notifications".
  const off = report.receiver === "off";
  notice.dataset.state = off ? "off" : empty ? "empty" : "shown";
  notice.textContent = off ? t("receiverOff") : empty ? t("outcomesEmpty", {
    product: report.product ? t("outcomesEmptyProduct", { product: report.product }) : "", from: days[0], to: days[1],
  }) : "";
  figure.hidden = empty && !hasActive(report);
  tableBox.hidden = figure.hidden;
  if (figure.hidden) return;
  const metrics = chartMetrics.filter((metric) => chosen.has(metric));
  const box = byId("outcomes-chart");
  const width = Math.max(320, Math.floor(box.clientWidth || 960));
  clear(box).append(drawOutcomesChart({ report, metrics, versions, environment, width, guards }));
  const withGuards = guardsInRange(guards, Date.parse(report.from), Date.parse(report.to)).length > 0;
  byId("outcomes-legend").replaceChildren(...chartLegend(metrics, environment, withGuards));
  renderTotals(report);
}

async function load() {
  const error = byId("outcomes-error");
  const notice = byId("outcomes-state");
  error.textContent = "";
  const product = byId("outcomes-product").value;
  const query = outcomesQuery(byId("outcomes-from").value, byId("outcomes-through").value, byId("outcomes-bucket").value, product,
    byId("outcomes-store").value);
  if (!query) {
    error.textContent = t("outcomesRangeInvalid");
    return;
  }
  const ticket = ++loads;
  const environment = state.environment;
  notice.dataset.state = "loading";
  notice.textContent = t("loading");
  let report;
  try {
    ({ body: report } = await api.outcomes(query));
  } catch (failure) {
    if (ticket !== loads) return;
    shown = null;
    byId("outcomes-figure").hidden = true;
    byId("outcomes-table-box").hidden = true;
    // No such route (a server without the receiver's code): say the receiver is off, as a server without a root does.
    const off = failure instanceof APIError && failure.status === 404;
    notice.dataset.state = off ? "off" : "failed";
    notice.textContent = off ? t("receiverOff") : "";
    if (!off) {
      const refused = failure instanceof APIError && (failure.status === 401 || failure.status === 403);
      error.textContent = refused ? t("outcomesNeedWriter", { message: failure.message }) : describeError(failure);
    }
    return;
  }
  let versions = [];
  let guards = [];
  try {
    versions = await versionsSince(environment, Date.parse(report.from));
  } catch (failure) {
    if (ticket === loads) error.textContent = t("outcomesVersionsFailed", { message: describeError(failure) });
  }
  // A token that may not read them: the chart without their windows, saying why (a server without guards: silent).
  const read = await readGuards(environment);
  guards = read.guards;
  if (ticket === loads && read.failure) error.textContent = t("guardsFailed", { message: describeError(read.failure) });
  if (ticket !== loads) return;
  if (!report.product) {
    for (const group of report.groups) if (group.product) products.add(group.product);
    fillProducts();
  }
  shown = { report, versions, guards, environment, days: [query.get("from"), byId("outcomes-through").value] };
  draw();
}

function fillProducts() {
  const select = byId("outcomes-product");
  const current = select.value;
  select.replaceChildren(el("option", { value: "", text: t("allProducts") }),
    ...[...products].sort().map((product) => el("option", { value: product, text: product })));
  select.value = products.has(current) ? current : "";
}

function fillMetrics() {
  byId("outcomes-metrics").replaceChildren(...chartMetrics.map((metric) => {
    const box = el("input", { type: "checkbox", id: `outcomes-metric-${metric}`, value: metric, checked: chosen.has(metric) });
    box.addEventListener("change", () => {
      if (box.checked) chosen.add(metric);
      else chosen.delete(metric);
      draw();
    });
    return el("p", { class: "check" }, box, el("label", { for: box.id, text: metricLabel(metric) }));
  }));
}

/** Draws the view for the current environment: the form's choices kept, the range asked for again. */
export async function renderOutcomes() {
  fillProducts();
  fillMetrics();
  await load();
}

/** The form's defaults (the last 7 UTC days, per day) and its submit. */
export function setUpOutcomes() {
  const today = utcDay(new Date());
  byId("outcomes-from").value = addDays(today, -6);
  byId("outcomes-through").value = today;
  byId("outcomes-form").addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });
}
