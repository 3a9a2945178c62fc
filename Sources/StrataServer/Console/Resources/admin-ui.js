// What the administration screens share: labelled fields, a second click before a destructive
// action, and running a change with its error shown beside the form.
import { h } from "/console/dom.js";
import { authorization, failure } from "/console/api.js";

let counter = 0;

/// A labelled control: `<label for>` + the control; answers [wrapper, control].
export function field(label, control) {
  const id = control.id || `adm-${++counter}`;
  control.id = id;
  return [h("div", { class: "adm-field" }, h("label", { for: id }, label), control), control];
}

/// A button that acts on the second click (the first one asks), so nothing is lost by a slip.
export function dangerButton(label, action, status, name) {
  let armed = false, timer;
  const button = h("button", { type: "button", class: "adm-danger", "data-action": name }, label);
  button.addEventListener("click", async () => {
    if (!armed) {
      armed = true;
      button.textContent = `Confirm: ${label}`;
      button.setAttribute("aria-pressed", "true");
      timer = setTimeout(() => { armed = false; button.textContent = label; button.removeAttribute("aria-pressed"); }, 5000);
      return;
    }
    clearTimeout(timer);
    armed = false;
    button.textContent = label;
    button.removeAttribute("aria-pressed");
    await run(status, action);
  });
  return button;
}

/// Runs `action`, writing its outcome (or the server's message) into `status`.
export async function run(status, action) {
  status.className = "adm-status";
  status.textContent = "…";
  try {
    const message = await action();
    status.textContent = message || "Done.";
    status.classList.add("ok");
    return true;
  } catch (error) {
    status.textContent = error.message || String(error);
    status.classList.add("error");
    status.setAttribute("role", "alert");
    return false;
  }
}

export function statusLine() {
  return h("p", { class: "adm-status", "aria-live": "polite" });
}

/// A fetch with this tab's token for bodies that are not JSON (the model file's text).
export async function rawRequest(path, { method = "GET", body, type = "text/plain; charset=utf-8", token, accept = "application/json, text/plain" } = {}) {
  const headers = { Accept: accept, ...(token ? { Authorization: `Bearer ${token}` } : authorization()) };
  if (body !== undefined) headers["Content-Type"] = type;
  const response = await fetch(path, { method, headers, body, credentials: "omit" });
  if (!response.ok) throw await failure(response);
  return response.text();
}

export function loaded() {
  document.body.dataset.loaded = String(Date.now());
}
