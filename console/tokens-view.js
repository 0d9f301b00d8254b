// API tokens (admin): create one with a role and, optionally, the environments it is limited to (its secret
// shown once, right after: only its hash is stored), list them, revoke one (a second click confirms). The
// token of this session cannot be revoked here (the server refuses it: 409 own_token).
import { api } from "./api.js";
import { clearRefusal, describeError, isAdmin, notify, showRefusal, state } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { t, time } from "./i18n.js";
import { checkboxes, confirmingButton, showSecretOnce, ticked } from "./forms.js";

function tokenItem(token) {
  const own = token.name === state.identity?.name;
  const card = el("li", { class: "card", "data-token": token.name, "data-active": String(token.active) },
    el("h3", {}, el("span", { text: token.name }), el("span", { class: "badge", text: token.role }),
      token.active ? null : el("span", { class: "badge", text: t("revoked") })),
    el("p", { class: "meta", text: t("tokenMeta", { environments: token.environments?.join(", ") ?? t("allEnvironments"), time: time(token.createdAt) }) }),
    token.revokedAt ? el("p", { class: "muted", text: t("revokedAt", { time: time(token.revokedAt) }) }) : null,
    own ? el("p", { class: "muted", text: t("ownToken") }) : null);
  if (token.active && !own) {
    const error = el("p", { class: "error", role: "alert" });
    const revoke = confirmingButton(t("revoke"), t("revokeForGood"), "revoke", error, async () => {
      await api.revokeToken(token.name);
      notify(t("tokenRevoked", { name: token.name }), "success");
      await renderTokens();
    });
    card.append(el("div", { class: "actions" }, revoke), error);
  }
  return card;
}

export async function renderTokens() {
  if (!isAdmin()) return;
  checkboxes(byId("token-envs"), "token-env", state.environments);
  // A secret is shown once: gone at the next drawing of the view.
  clear(byId("token-secret-once")).hidden = true;
  const list = clear(byId("token-list"));
  try {
    const { body } = await api.tokens(byId("token-show-revoked").checked);
    list.append(...body.tokens.map(tokenItem));
  } catch (failure) {
    list.append(el("li", { class: "error", text: describeError(failure) }));
  }
}

export function setUpTokens() {
  byId("token-show-revoked").addEventListener("change", renderTokens);
  byId("token-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = byId("token-error");
    const fields = new Map([["/name", byId("token-name")], ["/role", byId("token-role")]]);
    clearRefusal(error, byId("token-issues"), fields);
    const environments = ticked(byId("token-envs"));
    const body = { name: byId("token-name").value.trim(), role: byId("token-role").value, environments: environments.length ? environments : null };
    try {
      const { body: created } = await api.createToken(body);
      event.target.reset();
      notify(t("tokenCreated", { name: created.name, role: created.role }), "success");
      await renderTokens();
      showSecretOnce(byId("token-secret-once"), t("tokenSecretOnce", { name: created.name }), created.secret);
    } catch (failure) {
      showRefusal(error, byId("token-issues"), failure, fields);
    }
  });
}
