// A service's model file: edit with line numbers, apply (a refused file names its line, which is
// marked), or remove.
import { h } from "/console/dom.js";
import { request } from "/console/api.js";
import { link } from "/console/nav.js";
import { dangerButton, field, rawRequest, run, statusLine } from "/console/admin-ui.js";

export default async function modelFile(body, route) {
  const services = Object.keys(await request("/admin/services")).sort();
  const service = services.includes(route.query.get("service")) ? route.query.get("service") : services[0];
  if (!service) { body.replaceChildren(h("p", { class: "muted" }, "No services.")); return; }
  const path = `/admin/model?${new URLSearchParams({ service })}`;
  let text = "", exists = true;
  try { text = await rawRequest(path); } catch (error) { if (error.status !== 404) throw error; exists = false; }

  const [serviceField, picker] = field("Service", h("select", { name: "service" },
    services.map((name) => h("option", { value: name, selected: name === service }, name))));
  picker.addEventListener("change", () => { location.hash = link(["admin", "model"], { service: picker.value }); });
  const gutter = h("pre", { class: "adm-gutter", "aria-hidden": "true" });
  const [editorField, editor] = field(`Model file of ${service}`, h("textarea", { name: "model", class: "adm-model-text", spellcheck: "false", rows: 18, wrap: "off" }));
  editor.value = text;
  const lineError = h("p", { class: "adm-field-error", id: "adm-model-error", "aria-live": "polite" });
  editor.setAttribute("aria-describedby", lineError.id);
  const numbers = (bad) => {
    const count = Math.max(1, editor.value.split("\n").length);
    gutter.replaceChildren(...Array.from({ length: count }, (_, index) =>
      h("span", { class: index + 1 === bad ? "adm-bad-line" : undefined }, `${index + 1}\n`)));
  };
  editor.addEventListener("input", () => numbers());
  editor.addEventListener("scroll", () => { gutter.scrollTop = editor.scrollTop; });
  numbers();
  const status = statusLine();
  const form = h("form", { class: "adm-form", "aria-label": "Model file" },
    editorField.firstChild, h("div", { class: "adm-editor" }, gutter, editor), lineError,
    h("div", { class: "adm-inline" }, h("button", { type: "submit" }, "Apply model file"),
      exists ? dangerButton("Remove model file", async () => { await rawRequest(path, { method: "DELETE" }); editor.value = ""; numbers(); return "Removed: the service is served as its catalog describes it."; }, status) : null),
    status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    lineError.textContent = "";
    numbers();
    await run(status, async () => {
      try {
        await rawRequest(path, { method: "PUT", body: editor.value });
      } catch (error) {
        const line = Number((/line (\d+)/.exec(error.target || error.message) || [])[1]);
        if (line) {
          lineError.textContent = `Line ${line}: ${error.message.replace(/^line \d+:\s*/, "")}`;
          numbers(line);
          const start = editor.value.split("\n").slice(0, line - 1).join("\n").length + (line > 1 ? 1 : 0);
          editor.focus();
          editor.setSelectionRange(start, start + (editor.value.split("\n")[line - 1] || "").length);
        }
        throw error;
      }
      return "Applied: the service is served with this model file.";
    });
  });
  body.replaceChildren(h("h2", {}, "Model file"), serviceField,
    exists ? null : h("p", { class: "muted" }, `${service} has no model file: it is served as its catalog describes it.`), form);
}
