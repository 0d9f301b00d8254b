// Small form pieces the admin views share: a group of checkboxes from a list of values, the values ticked,
// a secret shown once (webhooks' signing secrets, tokens), and a button that acts only on its second click.
import { clear, el } from "./dom.js";
import { describeError } from "./session.js";

/** Checkboxes named `name`, one per value, in `container`. */
export function checkboxes(container, name, values) {
  clear(container).append(...values.map((value, index) => {
    const box = el("input", { type: "checkbox", id: `${name}-${index}`, name, value });
    return el("p", { class: "check" }, box, el("label", { for: box.id, text: value }));
  }));
}

/** The values of the ticked checkboxes in `container`. */
export function ticked(container) {
  return [...container.querySelectorAll("input[type=checkbox]:checked")].map((box) => box.value);
}

/** A secret shown once, with the warning that it will not be shown again. */
export function showSecretOnce(container, label, secret) {
  clear(container).append(el("p", { class: "secret-note", text: label }), el("code", { class: "secret", text: secret }));
  container.hidden = false;
}

/**
 * A button for what cannot be undone (remove a webhook, revoke a token): the first click only changes its label to
 * `confirmLabel`, the second runs `act`; a refusal is shown in `errorNode`, beside it.
 */
export function confirmingButton(label, confirmLabel, action, errorNode, act) {
  const button = el("button", { type: "button", class: "rollback", "data-action": action, text: label });
  button.addEventListener("click", async () => {
    if (button.dataset.confirm !== "1") {
      button.dataset.confirm = "1";
      button.textContent = confirmLabel;
      return;
    }
    errorNode.textContent = "";
    try {
      await act();
    } catch (failure) {
      errorNode.textContent = describeError(failure);
    }
  });
  return button;
}
