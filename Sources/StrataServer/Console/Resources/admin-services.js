// Service settings: page size, statement timeout, If-Match, client keys, OData version;
// applied at once (the server loads the service again).
import { h } from "/console/dom.js";
import { request } from "/console/api.js";
import { field, run, statusLine } from "/console/admin-ui.js";

export default async function services(body) {
  const all = await request("/admin/services");
  const names = Object.keys(all).sort();
  body.replaceChildren(h("h2", {}, "Service settings"),
    h("p", { class: "muted" }, "Saved settings apply at once: the server loads the service again."),
    h("div", { class: "adm-columns" }, names.map((name) => settingsForm(name, all[name]))));
}

function settingsForm(service, settings) {
  const [pageField, pageSize] = field("Page size (empty: the server's default)", h("input", { type: "number", min: 1, name: "pageSize", value: settings.pageSize ?? "", class: "adm-narrow" }));
  const [timeoutField, timeout] = field("Statement timeout in seconds (empty: none)", h("input", { type: "number", min: 0, step: "any", name: "statementTimeout", value: settings.statementTimeout ?? "", class: "adm-narrow" }));
  const [ifMatchField, ifMatch] = field("Require If-Match on changes", h("input", { type: "checkbox", name: "requireIfMatch", checked: settings.requireIfMatch }));
  const [keysField, clientKeys] = field("Allow keys chosen by clients", h("input", { type: "checkbox", name: "allowClientKeys", checked: settings.allowClientKeys }));
  const [versionField, version] = field("OData version", h("select", { name: "odataVersion" },
    ["4.0", "2.0"].map((value) => h("option", { value, selected: settings.odataVersion === value }, value))));
  const status = statusLine();
  const form = h("form", { class: "adm-form adm-settings", "aria-label": `Settings of ${service}`, "data-service": service },
    h("h3", {}, service), pageField, timeoutField, h("div", { class: "adm-inline" }, ifMatchField, keysField), versionField,
    h("button", { type: "submit" }, `Save ${service}`), status);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(status, async () => {
      const answer = await request("/admin/services", { method: "PUT", body: {
        service,
        pageSize: pageSize.value === "" ? null : Number(pageSize.value),
        statementTimeout: timeout.value === "" ? null : Number(timeout.value),
        requireIfMatch: ifMatch.checked, allowClientKeys: clientKeys.checked, odataVersion: version.value,
      } });
      const saved = answer[service] || {};
      return `Saved and applied: page size ${saved.pageSize ?? "default"}, OData ${saved.odataVersion}.`;
    });
  });
  return form;
}
