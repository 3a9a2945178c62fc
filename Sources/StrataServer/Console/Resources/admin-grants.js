// Roles and grants of one service, with row filters; anonymous access; and a preview of what a
// role sees, read through the public API with a preview token (POST /admin/preview-token).
import { h } from "/console/dom.js";
import { request } from "/console/api.js";
import { link } from "/console/nav.js";
import { dangerButton, field, rawRequest, run, statusLine } from "/console/admin-ui.js";

export default async function grants(body, route) {
  const services = Object.keys(await request("/admin/services")).sort();
  const service = services.includes(route.query.get("service")) ? route.query.get("service") : services[0];
  if (!service) { body.replaceChildren(h("p", { class: "muted" }, "No services.")); return; }
  const [list, access, document] = await Promise.all([
    request(`/admin/grants?${new URLSearchParams({ service })}`),
    request("/admin/access"),
    request(`/${encodeURIComponent(service)}/`),
  ]);
  const sets = (document.value || []).filter((entry) => (entry.kind || "EntitySet") === "EntitySet").map((entry) => entry.name);
  const status = statusLine();
  const redraw = () => grants(body, route);

  const [serviceField, picker] = field("Service", h("select", { name: "service" },
    services.map((name) => h("option", { value: name, selected: name === service }, name))));
  picker.addEventListener("change", () => { location.hash = link(["admin", "grants"], { service: picker.value }); });

  const anonymous = access[service] || "none";
  const [anonField, anonBox] = field(`Anonymous callers may read ${service}`, h("input", { type: "checkbox", name: "anonymous", checked: anonymous === "read" }));
  anonBox.addEventListener("change", () => run(status, async () => {
    await request("/admin/access", { method: "PUT", body: { service, anonymous: anonBox.checked ? "read" : "none" } });
    return anonBox.checked ? `Anonymous callers may now read ${service}.` : `Anonymous callers can no longer read ${service}.`;
  }));

  const rows = (list.grants || []).map((grant) => h("tr", {},
    h("td", {}, grant.role), h("td", {}, grant.table || "every table"), h("td", {}, grant.action),
    h("td", { class: "mono" }, grant.filter || "—"),
    h("td", {}, dangerButton(`Revoke ${grant.action}`, async () => {
      const query = new URLSearchParams({ role: grant.role, service, actions: grant.action });
      if (grant.table) query.set("table", grant.table);
      await request(`/admin/grants?${query}`, { method: "DELETE" });
      await redraw();
    }, status))));

  const [roleField, role] = field("Role", h("input", { name: "role", autocomplete: "off", required: true, placeholder: "clerk" }));
  const [tableField, table] = field("Table", h("select", { name: "table" }, h("option", { value: "" }, "every table"),
    sets.map((name) => h("option", { value: name }, name))));
  const boxes = ["read", "insert", "update", "delete"].map((action) => {
    const box = h("input", { type: "checkbox", name: "actions", value: action, id: `adm-action-${action}`, checked: action === "read" });
    return [action, box, h("label", { class: "adm-check", for: box.id }, box, ` ${action}`)];
  });
  const [filterField, filter] = field("Row filter ($filter syntax, optional)", h("input", { name: "filter", autocomplete: "off", class: "mono", placeholder: "conference eq 'Eastern'" }));
  const filterError = h("p", { class: "adm-field-error", id: "adm-filter-error", "aria-live": "polite" });
  filter.setAttribute("aria-describedby", filterError.id);
  const grantStatus = statusLine();
  const form = h("form", { class: "adm-form", "aria-label": "Grant a right" }, h("h3", {}, "Grant a right"),
    roleField, tableField, h("fieldset", {}, h("legend", {}, "Actions"), boxes.map(([, , label]) => label)), filterField, filterError,
    h("button", { type: "submit" }, "Grant"), grantStatus);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    filterError.textContent = "";
    const actions = boxes.filter(([, box]) => box.checked).map(([action]) => action);
    const ok = await run(grantStatus, async () => {
      await request("/admin/grants", { method: "POST", body: { role: role.value.trim(), service, actions,
        ...(table.value ? { table: table.value } : {}), ...(filter.value.trim() ? { filter: filter.value.trim() } : {}) } });
      return `Granted ${actions.join(", ")} to ${role.value.trim()}.`;
    });
    if (!ok && /filter/i.test(grantStatus.textContent)) { filterError.textContent = grantStatus.textContent; filter.focus(); }
    if (ok) await redraw();
  });

  const knownRoles = [...new Set((list.grants || []).map((grant) => grant.role))];
  const [previewField, previewRole] = field("Preview as role", h("input", { name: "preview-role", autocomplete: "off", list: "adm-known-roles", value: knownRoles[0] || "reader" }));
  const previewOut = h("div", { class: "adm-preview", "aria-live": "polite" });
  const preview = h("form", { class: "adm-form", "aria-label": "Preview as a role" }, h("h3", {}, "Preview what a role sees"),
    h("datalist", { id: "adm-known-roles" }, knownRoles.map((name) => h("option", { value: name }))),
    previewField, h("button", { type: "submit" }, "Preview as this role"), previewOut);
  preview.addEventListener("submit", (event) => {
    event.preventDefault();
    showPreview(previewOut, service, previewRole.value.trim(), sets);
  });

  body.replaceChildren(
    h("h2", {}, "Roles and grants"), serviceField,
    h("div", { class: "adm-inline" }, anonField), status,
    h("div", { class: "adm-scroll" }, h("table", { class: "adm-table" },
      h("thead", {}, h("tr", {}, ["Role", "Table", "Action", "Row filter", ""].map((label) => h("th", { scope: "col" }, label)))),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 5, class: "muted" }, "No grants in this service."))))),
    h("div", { class: "adm-columns" }, form, preview));
}

/// Asks for a preview token holding `role` for `service`, then reads each set's count with it;
/// "Show rows" reads a set's first rows the same way: exactly what a caller holding that role gets,
/// row filters and hidden columns included.
async function showPreview(out, service, role, sets) {
  out.replaceChildren(h("p", { class: "muted" }, "…"));
  try {
    const name = role.includes("@") ? role : `${role}@${service}`;
    const issued = await request("/admin/preview-token", { method: "POST", body: { roles: [name] } });
    const token = issued.access_token;
    const root = `/${encodeURIComponent(service)}/`;
    const rowsOut = h("div", { class: "adm-preview-rows", "aria-live": "polite" });
    const items = await Promise.all(sets.map(async (set) => {
      try {
        const count = await rawRequest(`${root}${encodeURIComponent(set)}/$count`, { token });
        const show = h("button", { type: "button", class: "plain adm-preview-show", "data-set": set, "aria-label": `Show the first rows of ${set} as ${name}` }, "Show rows");
        show.addEventListener("click", () => previewRows(rowsOut, `${root}${encodeURIComponent(set)}`, set, name, token));
        return h("li", {}, h("span", {}, set), h("span", { class: "adm-count", "data-set": set }, `${Number(count).toLocaleString("en-US")} rows`), show);
      } catch (error) {
        return h("li", {}, h("span", {}, set), h("span", { class: "muted", "data-set": set }, error.status === 403 || error.status === 404 ? "no access" : error.message));
      }
    }));
    out.replaceChildren(h("p", {}, `As ${issued.roles.join(", ")} (a read-only preview token, ${issued.expires_in} s):`), h("ul", { class: "sets" }, items), rowsOut);
  } catch (error) {
    out.replaceChildren(h("p", { class: "error", role: "alert" }, error.message));
  }
  document.body.dataset.loaded = String(Date.now());
}

const previewPage = 20;

/// The first rows of a set as the preview token reads them, in a small table: the columns are the
/// ones the role may read (the server leaves out the others), navigation links left out.
async function previewRows(out, url, set, role, token) {
  out.replaceChildren(h("p", { class: "muted" }, "…"));
  try {
    const text = await rawRequest(`${url}?$top=${previewPage}`, { token, accept: "application/json;odata.metadata=minimal;IEEE754Compatible=true" });
    const rows = JSON.parse(text).value || [];
    const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))]
      .filter((key) => !key.includes("@") && !rows.some((row) => row[key] !== null && typeof row[key] === "object"));
    const cell = (value) => h("td", {}, value === null || value === undefined ? "" : String(value));
    out.replaceChildren(h("div", { class: "adm-scroll" }, h("table", { class: "adm-table", "data-preview-set": set },
      h("caption", {}, `${set} as ${role}: ${rows.length < previewPage ? `all ${rows.length}` : `the first ${rows.length}`} rows`),
      h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col" }, column)))),
      h("tbody", {}, rows.length ? rows.map((row) => h("tr", {}, columns.map((column) => cell(row[column]))))
        : h("tr", {}, h("td", { colspan: Math.max(columns.length, 1), class: "muted" }, "No rows."))))));
  } catch (error) {
    out.replaceChildren(h("p", { class: "error", role: "alert" }, error.message));
  }
  document.body.dataset.loaded = String(Date.now());
}
