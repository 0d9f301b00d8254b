// "What does install X get": every flag evaluated by the server (OFREP bulk, the environment in the
// path) for a typed context, with value, variant and reason.
import { api } from "./api.js";
import { describeError, state } from "./session.js";
import { byId, clear, el, jsonText } from "./dom.js";

export function setUpEvaluate() {
  byId("evaluate-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = byId("evaluate-error");
    const table = byId("evaluate-result");
    error.textContent = "";
    const context = {};
    for (const input of event.target.querySelectorAll("input")) {
      if (input.value.trim()) context[input.name] = input.value.trim();
    }
    try {
      const { body } = await api.evaluate(state.environment, context);
      const rows = (body?.flags ?? []).slice().sort((a, b) => (a.key < b.key ? -1 : 1)).map((flag) => el("tr", {},
        el("th", { scope: "row", text: flag.key }),
        el("td", {}, el("code", { text: flag.errorCode ? flag.errorCode : jsonText(flag.value) })),
        el("td", { text: flag.variant ?? "" }),
        el("td", { text: flag.reason ?? "" })));
      clear(table.tBodies[0]).append(...rows);
      table.hidden = false;
    } catch (failure) {
      table.hidden = true;
      error.textContent = describeError(failure);
    }
  });
}
