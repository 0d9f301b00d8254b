// Building elements from data: every text goes through textContent, never innerHTML, so a flag
// description holding "<script>" is shown as those characters and never parsed as markup.

/** An element with attributes (strings only) and children (nodes or strings, added as text). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** Removes every child of `node`. */
export function clear(node) {
  node.replaceChildren();
  return node;
}

/** A JSON value as compact text (strings quoted, as the API and flagctl show them). */
export function jsonText(value) {
  return JSON.stringify(value);
}

/** The element with `id`; throws when the page lacks it (a bug, found at once). */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`missing #${id}`);
  return node;
}
