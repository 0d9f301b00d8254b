// The environment's versions, newest first: author, time, message, each version's diff against the
// one before it (computed by the server), and rollback for writers.
import { api } from "./api.js";
import { canWrite, describeError, state } from "./session.js";
import { byId, clear, el } from "./dom.js";
import { t, time } from "./i18n.js";
import { openRollback, renderDiff } from "./change-dialog.js";

async function toggleDiff(environment, version, button, target) {
  if (!target.hidden) {
    target.hidden = true;
    button.textContent = t("showDiff");
    button.setAttribute("aria-expanded", "false");
    return;
  }
  target.hidden = false;
  button.textContent = t("hideDiff");
  button.setAttribute("aria-expanded", "true");
  if (target.dataset.loaded) return;
  target.textContent = t("loading");
  try {
    const { body } = await api.version(environment, version);
    const { body: answer } = await api.preview(environment, { document: body.document, base: version - 1, impact: false });
    renderDiff(target, answer.lines);
    target.dataset.loaded = "1";
  } catch (failure) {
    target.textContent = failure.status === 401 && !state.identity ? t("signInForDiffs") : describeError(failure);
  }
}

function versionItem(environment, entry, current) {
  const diff = el("pre", { class: "diff", id: `diff-${entry.version}`, hidden: true });
  const show = el("button", { type: "button", class: "quiet", "aria-expanded": "false", "aria-controls": diff.id, text: t("showDiff") });
  show.addEventListener("click", () => toggleDiff(environment, entry.version, show, diff));
  const actions = el("div", { class: "actions" }, show);
  if (canWrite() && entry.version !== current) {
    const back = el("button", { type: "button", class: "rollback", text: t("rollbackTo") });
    back.addEventListener("click", () => openRollback(entry.version));
    actions.append(back);
  }
  return el("li", { class: "card version", "data-version": String(entry.version) },
    el("h3", {}, el("span", { text: t("version", { version: entry.version }) }),
      entry.version === current ? el("span", { class: "badge", text: t("current") }) : null),
    el("p", { class: "meta" }, el("time", { datetime: entry.publishedAt, text: time(entry.publishedAt) }),
      el("span", { text: ` · ${t("author", { author: entry.author })}` }),
      entry.rolledBackFrom ? el("span", { text: ` · ${t("rolledBackFrom", { version: entry.rolledBackFrom })}` }) : null),
    el("p", { class: "message", text: entry.message }),
    actions, diff);
}

export async function renderHistory() {
  const list = clear(byId("version-list"));
  const environment = state.environment;
  try {
    const { body } = await api.versions(environment);
    const current = state.envelope?.version;
    list.append(...body.versions.map((entry) => versionItem(environment, entry, current)));
  } catch (failure) {
    list.append(el("li", { class: "error", text: describeError(failure) }));
  }
}
