// What every view shares: who is signed in, the environment and its current envelope, the status line,
// the sentence for an API refusal, the redraw after a change, and the list of a refusal's JSON paths.
// Views import these from here, never from app.js (the entry), so no view depends on the page's start-up.
import { APIError, storedToken } from "./api.js";
import { byId, clear, el } from "./dom.js";
import { t } from "./i18n.js";

/** Who is signed in, the environment and its current envelope and ETag, the open view. */
export const state = { identity: null, environment: null, environments: [], envelope: null, etag: null, view: "flags" };

/** Whether the signed-in token may publish. */
export function canWrite() {
  return state.identity?.role === "writer" || state.identity?.role === "admin";
}

/** Whether the signed-in token is an admin for every environment (policies, audit, webhooks, tokens). */
export function isAdmin() {
  return state.identity?.role === "admin" && state.identity.environments === null;
}

/** A line in the status area above the views. */
export function notify(text, kind = "info") {
  const notice = byId("notice");
  notice.textContent = text;
  notice.dataset.kind = kind;
}

/** The sentence for an API refusal in the current language. */
export function describeError(error) {
  if (!(error instanceof APIError)) return String(error?.message ?? error);
  if (error.status === 0) return t("unreachable");
  if (error.status === 401) return storedToken() ? t("wrongToken") : t("readsNeedToken");
  if (error.status === 403) return t("forbidden", { message: error.message });
  return error.message;
}

/**
 * A refusal where it happened: its sentence in `errorNode`, each detail (JSON path and message) as an item of
 * `listNode`; with `fields` (a map from JSON path to input), the message also next to that input.
 */
export function showRefusal(errorNode, listNode, failure, fields = new Map()) {
  errorNode.textContent = describeError(failure);
  if (listNode) clear(listNode);
  for (const issue of failure?.details ?? []) {
    listNode?.append(el("li", {}, el("code", { class: "path", text: issue.path }), el("span", { text: ` ${issue.message}` })));
    const input = fields.get(issue.path);
    if (input) {
      input.setAttribute("aria-invalid", "true");
      const note = document.getElementById(`${input.id}-error`);
      if (note) note.textContent = `${issue.path}: ${issue.message}`;
    }
  }
}

/** Clears what `showRefusal` wrote. */
export function clearRefusal(errorNode, listNode, fields = new Map()) {
  errorNode.textContent = "";
  if (listNode) clear(listNode);
  for (const input of fields.values()) {
    input.removeAttribute("aria-invalid");
    const note = document.getElementById(`${input.id}-error`);
    if (note) note.textContent = "";
  }
}

let reloader = async () => {};

/** Set once by app.js: fetches the current envelope and redraws the open view. */
export function onReload(body) {
  reloader = body;
}

/** Fetches the current envelope of the environment and redraws the open view. */
export function reload() {
  return reloader();
}

/** The browser's time zone (IANA name, e.g. Europe/Berlin), as shown next to every time typed in. */
export function timeZone() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/**
 * A `datetime-local` value ("2027-03-01T00:00", the browser's wall clock) as the UTC instant the API takes
 * ("2027-02-28T23:00:00.000Z"); null when empty or not a time.
 */
export function utcInstant(localText) {
  if (!localText) return null;
  const date = new Date(localText);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
