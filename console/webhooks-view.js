// Webhooks (admin): add one (URL, events, environments; its signing secret shown once, right after), remove
// one (a second click confirms), and each webhook's deliveries with every attempt (status or error, time).
import { api } from "./api.js";
import { clearRefusal, describeError, isAdmin, notify, showRefusal, state } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { t, time } from "./i18n.js";
import { checkboxes, confirmingButton, showSecretOnce, ticked } from "./forms.js";

/** The event types of docs/api.md, "Webhooks". */
const events = ["version.published", "change.scheduled", "change.applied", "change.conflicted", "change.failed", "change.cancelled",
  "request.created", "request.approved", "request.rejected", "request.expired", "request.stale", "policy.updated"];

function attemptItem(attempt) {
  const outcome = attempt.responseStatus !== null ? `HTTP ${attempt.responseStatus}` : "";
  return el("li", { "data-attempt": String(attempt.number) },
    el("span", { text: t("attempt", { number: attempt.number, time: time(attempt.at), duration: attempt.durationMs }) }),
    // The error of a non-2xx answer is its status again ("HTTP 500"): said once.
    el("code", { text: ` ${[...new Set([outcome, attempt.error].filter(Boolean))].join(" · ") || "-"}` }));
}

async function showDeliveries(webhook, target, button) {
  if (!target.hidden) {
    target.hidden = true;
    button.setAttribute("aria-expanded", "false");
    return;
  }
  target.hidden = false;
  button.setAttribute("aria-expanded", "true");
  clear(target).append(el("li", { class: "muted", text: t("loading") }));
  try {
    const { body } = await api.deliveries(webhook.id);
    clear(target);
    if (!body.deliveries.length) target.append(el("li", { class: "muted", text: t("noDeliveries") }));
    target.append(...body.deliveries.map((delivery) => el("li", { class: "delivery", "data-delivery": String(delivery.id), "data-status": delivery.status },
      el("p", {}, el("strong", { text: delivery.type }), el("span", { class: "badge", text: delivery.status }),
        el("span", { class: "muted", text: ` ${delivery.environment ?? ""} · ${time(delivery.createdAt)}` })),
      el("ol", { class: "attempts" }, delivery.attempts.map(attemptItem)))));
  } catch (failure) {
    clear(target).append(el("li", { class: "error", text: describeError(failure) }));
  }
}

function webhookItem(webhook) {
  const deliveries = el("ul", { class: "deliveries", id: `deliveries-${webhook.id}`, hidden: true });
  const show = el("button", { type: "button", class: "quiet", "aria-expanded": "false", "aria-controls": deliveries.id, text: t("deliveries") });
  show.addEventListener("click", () => showDeliveries(webhook, deliveries, show));
  const error = el("p", { class: "error", role: "alert" });
  const remove = confirmingButton(t("removeWebhook"), t("removeForGood"), "remove", error, async () => {
    await api.removeWebhook(webhook.id);
    notify(t("webhookRemoved", { url: webhook.url }), "success");
    await renderWebhooks();
  });
  return el("li", { class: "card", "data-webhook": String(webhook.id) },
    el("h3", { class: "url", text: webhook.url }),
    el("p", { class: "meta", text: t("webhookMeta", { events: webhook.events.join(", "),
      environments: webhook.environments?.join(", ") ?? t("allEnvironments"), by: webhook.createdBy, time: time(webhook.createdAt) }) }),
    el("div", { class: "actions" }, show, remove), error, deliveries);
}

export async function renderWebhooks() {
  if (!isAdmin()) return;
  if (!byId("webhook-events").children.length) checkboxes(byId("webhook-events"), "webhook-event", ["*", ...events]);
  checkboxes(byId("webhook-envs"), "webhook-env", state.environments);
  // A secret is shown once: gone at the next drawing of the view.
  clear(byId("webhook-secret-once")).hidden = true;
  const list = clear(byId("webhook-list"));
  try {
    const { body } = await api.webhooks();
    if (!body.webhooks.length) list.append(el("li", { class: "muted", text: t("noWebhooks") }));
    list.append(...body.webhooks.map(webhookItem));
  } catch (failure) {
    list.append(el("li", { class: "error", text: describeError(failure) }));
  }
}

export function setUpWebhooks() {
  byId("webhook-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = byId("webhook-error");
    const fields = new Map([["/url", byId("webhook-url")], ["/secret", byId("webhook-secret")]]);
    clearRefusal(error, byId("webhook-issues"), fields);
    const environments = ticked(byId("webhook-envs"));
    const body = { url: byId("webhook-url").value.trim(), events: ticked(byId("webhook-events")), environments: environments.length ? environments : null };
    if (byId("webhook-secret").value) body.secret = byId("webhook-secret").value;
    try {
      const { body: created } = await api.addWebhook(body);
      event.target.reset();
      notify(t("webhookAdded", { url: created.url }), "success");
      await renderWebhooks();
      showSecretOnce(byId("webhook-secret-once"), t("secretOnce"), created.secret);
    } catch (failure) {
      showRefusal(error, byId("webhook-issues"), failure, fields);
    }
  });
}
