// The public HTTP API (docs/api.md), the same that curl and flagctl use. The token travels only in the
// Authorization header, never in a URL; it lives in sessionStorage, so it is gone with the tab.

const tokenKey = "symiflags.console.token";

/** A refusal of the API: status, code, message, details (JSON paths) and the raw error object. */
export class APIError extends Error {
  constructor(status, error) {
    super(error?.message || `HTTP ${status}`);
    this.status = status;
    this.code = error?.code || "http_error";
    this.details = Array.isArray(error?.details) ? error.details : [];
    this.error = error || {};
  }
}

export function storedToken() {
  return sessionStorage.getItem(tokenKey);
}

export function storeToken(token) {
  if (token) sessionStorage.setItem(tokenKey, token);
  else sessionStorage.removeItem(tokenKey);
}

/** Sends a request; resolves with {body, headers} or throws APIError (status 0 when unreachable). */
export async function request(method, path, { body, headers = {}, token = storedToken() } = {}) {
  const sent = { ...headers };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer",
    });
  } catch (failure) {
    throw new APIError(0, { code: "unreachable", message: String(failure) });
  }
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  // OFREP answers refusals in its own shape ({"errorCode", "errorDetails"}); say what it says, not "HTTP 400".
  const ofrep = parsed?.errorCode ? { code: parsed.errorCode, message: `${parsed.errorCode}: ${parsed.errorDetails ?? ""}` } : undefined;
  if (!response.ok) throw new APIError(response.status, parsed?.error ?? ofrep);
  return { body: parsed, headers: response.headers };
}

const env = (name) => `/v1/environments/${encodeURIComponent(name)}`;

export const api = {
  whoami: (token) => request("GET", "/v1/whoami", { token }),
  environments: () => request("GET", "/v1/environments"),
  document: (name) => request("GET", `${env(name)}/document`),
  versions: (name) => request("GET", `${env(name)}/versions?limit=50`),
  /** One page of the history, newest first, of versions numbered below `before` (all when null). */
  versionsPage: (name, before) => request("GET", `${env(name)}/versions?limit=200${before ? `&before=${before}` : ""}`),
  version: (name, number) => request("GET", `${env(name)}/versions/${number}`),
  preview: (name, body) => request("POST", `${env(name)}/preview`, { body }),
  evaluate: (name, context) => request("POST", `${env(name)}/ofrep/v1/evaluate/flags`, { body: { context } }),
  /** PUT one flag: a bare value or a full definition, only if the document is still `etag`. */
  putFlag: (name, key, body, etag, message) => request("PUT", `${env(name)}/flags/${encodeURIComponent(key)}`, {
    body, headers: { "If-Match": etag, "X-Change-Message": encodeURIComponent(message) },
  }),
  /** PUT a whole document, only if the current one is still `etag` (required by the server). */
  putDocument: (name, document, etag, message) => request("PUT", `${env(name)}/document`, {
    body: document, headers: { "If-Match": etag, "X-Change-Message": encodeURIComponent(message) },
  }),
  rollback: (name, version, message, etag) => request("POST", `${env(name)}/rollback`, {
    body: { version, message }, headers: etag ? { "If-Match": etag } : {},
  }),
  /** `kind` "requests" or "schedules", `statuses` comma-separated. */
  changes: (name, kind, statuses) => request("GET", `${env(name)}/${kind}${statuses ? `?status=${statuses}` : ""}`),
  approve: (id, note) => request("POST", `/v1/changes/${id}/approve`, { body: note ? { message: note } : {} }),
  reject: (id, note) => request("POST", `/v1/changes/${id}/reject`, { body: { message: note } }),
  cancel: (id, note) => request("DELETE", `/v1/changes/${id}`, { headers: note ? { "X-Change-Message": encodeURIComponent(note) } : {} }),
  /** A schedule: `at` a UTC instant, `flags` key to a bare value or a full definition, reviewed against `etag`. */
  schedule: (name, at, message, flags, etag) => request("POST", `${env(name)}/schedules`, {
    body: { at, message, flags }, headers: etag ? { "If-Match": etag } : {},
  }),
  policy: (name) => request("GET", `${env(name)}/policy`),
  putPolicy: (name, policy) => request("PUT", `${env(name)}/policy`, { body: policy }),
  /** One page of the audit log; `filters` the query's members (empty ones left out), `before` the last page's `next`. */
  audit: (filters, before) => {
    const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== "" && value !== null && value !== undefined));
    if (before) query.set("before", String(before));
    query.set("limit", "50");
    return request("GET", `/v1/audit?${query}`);
  },
  webhooks: () => request("GET", "/v1/webhooks"),
  addWebhook: (body) => request("POST", "/v1/webhooks", { body }),
  removeWebhook: (id) => request("DELETE", `/v1/webhooks/${encodeURIComponent(id)}`),
  deliveries: (id) => request("GET", `/v1/webhooks/${encodeURIComponent(id)}/deliveries?limit=50`),
  /** The App Store outcomes (docs/appstore.md); `query` a URLSearchParams of from, to, bucket and product. */
  outcomes: (query) => request("GET", `/v1/appstore/outcomes?${query}`),
  /** An experiment's report (docs/guards.md); `query` a URLSearchParams of from, to and appStoreEnvironment. */
  experiment: (environment, flag, query) =>
    request("GET", `/v1/environments/${encodeURIComponent(environment)}/experiments/${encodeURIComponent(flag)}?${query}`),
  /** The environment's guards (docs/guards.md), newest first; `statuses` comma-separated, or all. */
  guards: (name, statuses) => request("GET", `${env(name)}/guards${statuses ? `?status=${statuses}` : ""}`),
  /** A guard on a change (`{change: id}`) or a published version (`{version: n}`): `{..., rule, product?, appStoreEnvironment?}`. */
  addGuard: (name, body) => request("POST", `${env(name)}/guards`, { body }),
  guard: (id) => request("GET", `/v1/guards/${encodeURIComponent(id)}`),
  removeGuard: (id) => request("DELETE", `/v1/guards/${encodeURIComponent(id)}`),
  overrideGuard: (id, message) => request("POST", `/v1/guards/${encodeURIComponent(id)}/override`, { body: { message } }),
  tokens: (includeRevoked) => request("GET", `/v1/tokens${includeRevoked ? "?includeRevoked=true" : ""}`),
  createToken: (body) => request("POST", "/v1/tokens", { body }),
  revokeToken: (name) => request("DELETE", `/v1/tokens/${encodeURIComponent(name)}`),
};
