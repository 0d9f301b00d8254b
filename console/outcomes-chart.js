// The outcomes chart, drawn as SVG by the console itself (no library): one line with a point per bucket for each
// chosen count metric on the left axis, `active` (a gauge, not a count) dashed on an axis of its own at the right,
// every published version of the environment in the range as a vertical marker, and each guard's watch window shaded
// in its metric's colour with a diamond where it tripped, so what changed, what watched it and what followed are one
// picture. Every text goes through textContent; colours and dashes are presentation attributes,
// not `style`, which the console's Content-Security-Policy (style-src 'self') would refuse.
import { el } from "./dom.js";
import { currentLanguage, number, t, time } from "./i18n.js";

const svgNS = "http://www.w3.org/2000/svg";

/** The metrics the view offers, in the API's names and in legend order; `active` is the gauge on the right axis. */
export const chartMetrics = ["started", "introConversions", "renewals", "autoRenewOff", "refunds", "billingProblems", "active"];

/** One colour per metric from the console's palette, distinct on paper white. */
export const metricColors = {
  started: "#0F3D3E", introConversions: "#2F8F6F", renewals: "#4D72B8", autoRenewOff: "#C98A1B",
  refunds: "#E8735A", billingProblems: "#8A2E1C", active: "#5C6B6B",
};

const markerColor = "#8E5BA8";
const bucketMs = { hour: 3_600_000, day: 86_400_000 };

/** An SVG element with attributes and children (nodes, or strings added as text). */
function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** The tooltip of an SVG element: a <title> child, which browsers show on hover and screen readers read. */
function tooltip(text) {
  return svg("title", {}, text);
}

/**
 * Round ticks from 0 up to at least `max`: steps of 1, 2 or 5 times a power of ten, about `count` of them, whole
 * numbers only (the values are counts). Returns the ticks and the axis's top.
 */
export function niceTicks(max, count = 4) {
  if (!(max > 0)) return { ticks: [0, 1], top: 1 };
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= raw));
  const top = Math.ceil(max / step) * step;
  const ticks = [];
  for (let value = 0; value <= top; value += step) ticks.push(value);
  return { ticks, top };
}

/** Ticks of the time axis on UTC hour or day boundaries, at most `most` of them between `from` and `to` (ms). */
export function timeTicks(from, to, most) {
  const hour = bucketMs.hour;
  const steps = [1, 2, 3, 6, 12, 24, 48, 96, 168, 336, 672].map((hours) => hours * hour);
  const step = steps.find((candidate) => (to - from) / candidate <= Math.max(1, most)) ?? steps[steps.length - 1];
  const ticks = [];
  // Multiples of a whole number of hours since 1970 fall on UTC hour boundaries, of 24 h on UTC midnights.
  for (let at = Math.ceil(from / step) * step; at <= to; at += step) ticks.push(at);
  return { ticks, step };
}

function locale() {
  return currentLanguage() === "de" ? "de-DE" : "en-GB";
}

/** A UTC instant as the axis shows it: the day, and the hour when the ticks are less than a day apart. */
export function utcLabel(ms, withHour) {
  const options = withHour ? { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }
    : { day: "numeric", month: "short" };
  return new Intl.DateTimeFormat(locale(), { timeZone: "UTC", ...options }).format(new Date(ms));
}

/** The label of a metric in the current language. */
export function metricLabel(metric) {
  return t(`metric_${metric}`);
}

/** A small line sample for the legend (an inline SVG: a coloured span would need a style attribute). */
function swatch(color, dashed) {
  return svg("svg", { class: "swatch", viewBox: "0 0 24 12", width: 24, height: 12, "aria-hidden": "true" },
    svg("line", { x1: 1, y1: 6, x2: 23, y2: 6, stroke: color, "stroke-width": 3, "stroke-dasharray": dashed ? "4 3" : null }));
}

/** The legend of the chosen metrics, of the version markers and (when any is drawn) of the guards' windows. */
export function chartLegend(metrics, environment, withGuards = false) {
  const items = metrics.map((metric) => el("li", { "data-metric": metric }, swatch(metricColors[metric], metric === "active"),
    el("span", { text: metric === "active" ? t("outcomesActiveLegend") : metricLabel(metric) })));
  items.push(el("li", { "data-marker": "version" }, swatch(markerColor, true), el("span", { text: t("outcomesMarkerLegend", { environment }) })));
  if (withGuards) {
    items.push(el("li", { "data-marker": "guard" }, svg("svg", { class: "swatch", viewBox: "0 0 24 12", width: 24, height: 12, "aria-hidden": "true" },
      svg("rect", { x: 1, y: 1, width: 22, height: 10, fill: markerColor, "fill-opacity": 0.18 })), el("span", { text: t("guardWindowLegend") })));
  }
  return items;
}

/** The guards with a window inside the range [from, to) (ms): those that have started watching. */
export function guardsInRange(guards, from, to) {
  return (guards ?? []).filter((guard) => guard.publishedAt && guard.windowEndsAt
    && Date.parse(guard.publishedAt) < to && Date.parse(guard.windowEndsAt) > from);
}

/**
 * The chart of `report` (the API's outcomes JSON) for the chosen `metrics`, with `versions` (the history's entries:
 * version, publishedAt, author, message) inside the report's range as markers, `width` px wide.
 * The SVG carries its scale (data-from, data-to, data-plot-left, data-plot-width) so a test can check a marker's place.
 */
export function drawOutcomesChart({ report, metrics, versions, environment, width, guards = [] }) {
  const from = Date.parse(report.from);
  const to = Date.parse(report.to);
  const size = bucketMs[report.bucket] ?? bucketMs.day;
  const starts = report.buckets.map((bucket) => Date.parse(bucket));
  const counted = metrics.filter((metric) => metric !== "active");
  const gauge = metrics.includes("active");
  const height = 340;
  const margin = { top: 42, right: gauge ? 64 : 20, bottom: 48, left: 56 };
  const plotWidth = Math.max(40, width - margin.left - margin.right);
  const plotHeight = height - margin.top - margin.bottom;
  const bottom = margin.top + plotHeight;
  const x = (ms) => margin.left + ((ms - from) / (to - from || 1)) * plotWidth;
  const left = niceTicks(Math.max(0, ...counted.flatMap((metric) => report.series.map((counts) => counts[metric] ?? 0))));
  const right = niceTicks(Math.max(0, ...report.series.map((counts) => counts.active ?? 0)));
  const yLeft = (value) => bottom - (value / left.top) * plotHeight;
  const yRight = (value) => bottom - (value / right.top) * plotHeight;
  const bucketName = t(`bucket_${report.bucket}`);
  const label = t("outcomesChart", {
    metrics: metrics.map(metricLabel).join(", "), bucket: bucketName, environment,
    from: utcLabel(from, report.bucket === "hour"), to: utcLabel(to, report.bucket === "hour"),
  });

  const chart = svg("svg", {
    class: "outcomes-chart", viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": label,
    "data-from": from, "data-to": to, "data-plot-left": margin.left, "data-plot-width": plotWidth, "data-bucket": report.bucket,
  }, tooltip(label));

  // The grid and the count axis on the left.
  const axes = svg("g", { class: "axes" });
  for (const value of left.ticks) {
    axes.append(svg("line", { class: "grid", x1: margin.left, x2: margin.left + plotWidth, y1: yLeft(value), y2: yLeft(value) }),
      svg("text", { class: "tick y-left", x: margin.left - 8, y: yLeft(value) + 4, "text-anchor": "end" }, number(value)));
  }
  axes.append(svg("text", { class: "axis-title", x: 14, y: margin.top + plotHeight / 2, "text-anchor": "middle",
    transform: `rotate(-90 14 ${margin.top + plotHeight / 2})` }, t("outcomesCountAxis", { bucket: bucketName })));
  if (gauge) {
    const edge = margin.left + plotWidth;
    for (const value of right.ticks) {
      axes.append(svg("text", { class: "tick y-right", x: edge + 8, y: yRight(value) + 4, "text-anchor": "start" }, number(value)));
    }
    axes.append(svg("line", { class: "axis", x1: edge, x2: edge, y1: margin.top, y2: bottom }),
      svg("text", { class: "axis-title", x: width - 12, y: margin.top + plotHeight / 2, "text-anchor": "middle",
        transform: `rotate(90 ${width - 12} ${margin.top + plotHeight / 2})` }, t("outcomesActiveAxis")));
  }
  // The time axis: UTC hour or day boundaries, about one label per 90 px.
  const { ticks, step } = timeTicks(from, to, Math.floor(plotWidth / 90));
  axes.append(svg("line", { class: "axis", x1: margin.left, x2: margin.left + plotWidth, y1: bottom, y2: bottom }),
    svg("line", { class: "axis", x1: margin.left, x2: margin.left, y1: margin.top, y2: bottom }));
  for (const at of ticks) {
    axes.append(svg("line", { class: "axis", x1: x(at), x2: x(at), y1: bottom, y2: bottom + 5 }),
      svg("text", { class: "tick x", x: x(at), y: bottom + 18, "text-anchor": "middle" }, utcLabel(at, step < bucketMs.day)));
  }
  axes.append(svg("text", { class: "axis-title", x: margin.left + plotWidth / 2, y: height - 6, "text-anchor": "middle" }, t("outcomesTimeAxis")));
  chart.append(axes);

  // Each guard's watch window, publication to its end (clipped to the range), under the lines; a diamond where it
  // tripped, on its metric's line when that is drawn (the bucket holding the trip), at the top otherwise.
  const windows = svg("g", { class: "guards" });
  const trips = svg("g", { class: "guard-trips" });
  for (const guard of guardsInRange(guards, from, to)) {
    const metric = guard.rule?.metric;
    const color = metricColors[metric] ?? markerColor;
    const start = Math.max(from, Date.parse(guard.publishedAt));
    const end = Math.min(to, Date.parse(guard.windowEndsAt));
    const label = t("guardWindowTooltip", { id: guard.id, metric: metricLabel(metric), status: t(`guardStatus_${guard.status}`),
      from: time(guard.publishedAt), to: time(guard.windowEndsAt) });
    windows.append(svg("rect", { class: "guard-window", x: x(start), y: margin.top, width: Math.max(1, x(end) - x(start)), height: plotHeight,
      fill: color, "fill-opacity": 0.12, "data-guard": guard.id, "data-metric": metric, "data-from": guard.publishedAt, "data-to": guard.windowEndsAt },
    tooltip(label)));
    const tripped = guard.trippedAt ? Date.parse(guard.trippedAt) : NaN;
    if (tripped >= from && tripped < to) {
      const index = starts.findIndex((bucketStart) => tripped >= bucketStart && tripped < bucketStart + size);
      const drawn = metrics.includes(metric) && metric !== "active" && index >= 0;
      const cx = x(tripped);
      const cy = drawn ? yLeft(report.series[index]?.[metric] ?? 0) : margin.top;
      trips.append(svg("path", { class: "guard-trip", d: `M ${cx} ${cy - 7} L ${cx + 7} ${cy} L ${cx} ${cy + 7} L ${cx - 7} ${cy} Z`,
        fill: color, stroke: "#FFFFFF", "stroke-width": 1.5, "data-guard": guard.id, "data-metric": metric, "data-at": guard.trippedAt,
        "data-on-line": drawn ? "true" : "false" },
      tooltip(t("guardTripTooltip", { id: guard.id, time: time(guard.trippedAt), message: guard.lastDecision?.message ?? "" }))));
    }
  }
  chart.append(windows);

  // One line per metric, a point at the middle of each bucket with its value on hover.
  for (const metric of metrics) {
    const y = metric === "active" ? yRight : yLeft;
    const points = starts.map((start, index) => ({ start, value: report.series[index]?.[metric] ?? 0 }));
    const line = points.map((point) => `${x(point.start + size / 2)},${y(point.value)}`).join(" ");
    const group = svg("g", { class: "series", "data-metric": metric },
      svg("polyline", { points: line, fill: "none", stroke: metricColors[metric], "stroke-width": 2,
        "stroke-dasharray": metric === "active" ? "6 4" : null, "stroke-linejoin": "round" }));
    for (const point of points) {
      group.append(svg("circle", {
        class: "point", cx: x(point.start + size / 2), cy: y(point.value), r: 3.5, fill: metricColors[metric],
        "data-bucket": new Date(point.start).toISOString(), "data-value": point.value,
      }, tooltip(t("outcomesPoint", { metric: metricLabel(metric), value: number(point.value), bucket: utcLabel(point.start, report.bucket === "hour") }))));
    }
    chart.append(group);
  }

  // The versions published in the range, oldest first; labels on three rows so close ones stay readable.
  const shown = versions.filter((entry) => {
    const at = Date.parse(entry.publishedAt);
    return at >= from && at < to;
  }).sort((a, b) => Date.parse(a.publishedAt) - Date.parse(b.publishedAt) || a.version - b.version);
  const markers = svg("g", { class: "markers" });
  shown.forEach((entry, index) => {
    const at = x(Date.parse(entry.publishedAt));
    const row = index % 3;
    markers.append(svg("g", { class: "version-marker", "data-version": entry.version, "data-at": entry.publishedAt },
      tooltip(t("outcomesMarker", { version: entry.version, time: time(entry.publishedAt), author: entry.author, message: entry.message || "—" })),
      svg("line", { x1: at, x2: at, y1: 8 + row * 11, y2: bottom, stroke: markerColor, "stroke-width": 1.5, "stroke-dasharray": "3 3" }),
      svg("text", { class: "marker-label", x: at + 3, y: 16 + row * 11, fill: markerColor }, `v${entry.version}`)));
  });
  chart.append(markers, trips);
  return chart;
}
