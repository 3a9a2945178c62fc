// A set's rows, or the rows a navigation property leads to from one row (drill-down): pages the
// server drives (Prefer: odata.maxpagesize, then @odata.nextLink, which Strata continues by key,
// so page 1,000 costs what page 1 does), sorting by a column, a $filter box with a builder that
// writes conditions into it, a column chooser ($select), and the request shown and copyable.
import { h, show } from "/console/dom.js";
import { request } from "/console/api.js";
import { errorBox, link, setCrumbs } from "/console/nav.js";
import { isNumeric, keyPredicate, literal, model, swiftKey } from "/console/model.js";
import { copyPanel, swiftString } from "/console/copy.js";

export const pageSize = 50;

function cell(value) {
  if (value === null || value === undefined) return h("td", { class: "null" }, "null");
  if (typeof value === "object") return h("td", {}, JSON.stringify(value));
  return h("td", {}, String(value));
}

const operators = [
  ["eq", "equals"], ["ne", "does not equal"], ["gt", "is greater than"], ["ge", "is at least"],
  ["lt", "is less than"], ["le", "is at most"], ["contains", "contains"], ["startswith", "starts with"],
  ["endswith", "ends with"], ["null", "is empty (null)"], ["notnull", "is not empty"],
];

/// One `$filter` condition from the builder's choices; throws with a message for the value field.
export function condition(property, operator, value) {
  if (operator === "null") return `${property.name} eq null`;
  if (operator === "notnull") return `${property.name} ne null`;
  if (["contains", "startswith", "endswith"].includes(operator)) {
    if (property.type !== "Edm.String") throw new Error(`${operator} works on text; ${property.name} is ${property.type}.`);
    return `${operator}(${property.name},${literal(value, "Edm.String")})`;
  }
  if (isNumeric(property.type) && !/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value.trim())) throw new Error(`${property.name} is a number (${property.type}); "${value}" is not.`);
  if (property.type === "Edm.Boolean" && !["true", "false"].includes(value.trim())) throw new Error(`${property.name} is true or false.`);
  return `${property.name} ${operator} ${literal(property.type === "Edm.String" ? value : value.trim(), property.type)}`;
}

/// `#/s/service/Set?…` or, for a drill-down, `#/s/service/Parent/KEY/Nav?…`.
function here(service, set, via, query) {
  return link(via ? ["s", service, via.parentSet, via.key, via.nav] : ["s", service, set], query);
}

export async function tableView(main, service, setName, query, via) {
  const schema = await model(service);
  const set = via ? schema.sets[(schema.sets[via.parentSet] || { targets: {} }).targets[via.nav]] : schema.sets[setName];
  if (!set) throw new Error(via ? `${via.parentSet} has no navigation property ${via.nav} this account can follow.` : `${service} has no set ${setName} this account can read.`);
  const columns = set.type.properties;
  const filter = query.get("filter") || "";
  const orderby = query.get("orderby") || "";
  const chosen = (query.get("select") || "").split(",").filter((name) => columns.some((column) => column.name === name));
  const selected = chosen.length ? [...new Set([...set.type.keys, ...chosen])] : [];

  const trail = [["Services", "#/"], [service, link(["s", service])]];
  if (via) trail.push([via.parentSet, link(["s", service, via.parentSet])], [via.key, link(["s", service, via.parentSet, via.key])], [via.nav]);
  else trail.push([set.name]);
  setCrumbs(trail);

  const path = via
    ? `/${encodeURIComponent(service)}/${encodeURIComponent(via.parentSet)}(${encodeURIComponent(via.key)})/${encodeURIComponent(via.nav)}`
    : `/${encodeURIComponent(service)}/${encodeURIComponent(set.name)}`;
  const options = new URLSearchParams({ $count: "true" });
  if (filter) options.set("$filter", filter);
  if (orderby) options.set("$orderby", orderby);
  if (selected.length) options.set("$select", selected.join(","));
  // Escaped as little as a URL allows, so that the request reads as OData in the copies.
  const readable = (value) => encodeURIComponent(value).replace(/%(24|28|29|2C|27|3A|40)/g, (escaped) => decodeURIComponent(escaped));
  const first = `${path}?${[...options].map(([name, value]) => `${name}=${readable(value)}`).join("&")}`;

  const go = (changes) => {
    const next = new URLSearchParams();
    const values = { filter, orderby, select: chosen.join(","), ...changes };
    for (const [name, value] of Object.entries(values)) if (value) next.set(name, value);
    location.hash = here(service, set.name, via, next);
  };

  // The filter box, and the builder that writes into it.
  const filterInput = h("input", { name: "filter", value: filter, placeholder: "lastName eq 'Smith' and year(createDate) ge 2010", spellcheck: "false", autocomplete: "off" });
  const toolbar = h("form", { class: "toolbar", onsubmit: (event) => { event.preventDefault(); go({ filter: filterInput.value.trim() }); } },
    h("label", {}, "Filter ($filter)", filterInput),
    h("button", { type: "submit" }, "Apply"));
  const columnSelect = h("select", { name: "builder-column" }, columns.map((column) => h("option", { value: column.name }, `${column.name} (${column.type.replace("Edm.", "")})`)));
  const operatorSelect = h("select", { name: "builder-operator" }, operators.map(([value, label]) => h("option", { value }, label)));
  const valueInput = h("input", { name: "builder-value", autocomplete: "off", spellcheck: "false" });
  const builderError = h("p", { class: "field-error", id: "builder-error", "aria-live": "polite" });
  valueInput.setAttribute("aria-describedby", "builder-error");
  const builder = h("details", { class: "builder" }, h("summary", {}, "Build a condition"),
    h("form", { class: "toolbar", onsubmit: (event) => {
      event.preventDefault();
      const property = columns.find((column) => column.name === columnSelect.value);
      try {
        const text = condition(property, operatorSelect.value, valueInput.value);
        builderError.textContent = "";
        const existing = filterInput.value.trim();
        go({ filter: existing ? `${existing} and ${text}` : text });
      } catch (error) {
        builderError.textContent = error.message;
        valueInput.focus();
      }
    } },
    h("label", {}, "Column", columnSelect), h("label", {}, "Condition", operatorSelect), h("label", {}, "Value", valueInput),
    h("button", { type: "submit" }, "Add to filter")),
    builderError);

  // The column chooser.
  const boxes = columns.map((column) => h("input", { type: "checkbox", name: "column", value: column.name,
    checked: selected.length === 0 || selected.includes(column.name), disabled: set.type.keys.includes(column.name) }));
  const chooser = h("details", { class: "builder" }, h("summary", {}, "Columns"),
    h("form", { class: "columns", onsubmit: (event) => {
      event.preventDefault();
      const picked = boxes.filter((box) => box.checked && !box.disabled).map((box) => box.value);
      go({ select: picked.length === boxes.filter((box) => !box.disabled).length ? "" : picked.join(",") });
    } },
    h("fieldset", {}, h("legend", {}, "Show these columns (keys always)"),
      boxes.map((box, index) => h("label", { class: "check" }, box, columns[index].name))),
    h("button", { type: "submit" }, "Show")));

  const actions = h("div", { class: "actions" });
  if (set.insertable && !via) actions.append(h("a", { class: "button", href: link(["s", service, set.name, "new"]) }, "New row"));

  let swift = `let page = try await service.set(${swiftString(via ? via.parentSet : set.name)})`;
  if (via) swift += `${swiftKey(via.key, swiftString)}.navigate(${swiftString(via.nav)})`;
  if (filter) swift += `\n    .filter(parsing: ${swiftString(filter)})`;
  if (orderby) {
    const [property, direction] = orderby.split(" ");
    swift += `\n    .orderBy(${swiftString(property)}${direction === "desc" ? ", .descending" : ""})`;
  }
  if (selected.length) swift += `\n    .select(${selected.map(swiftString).join(", ")})`;
  swift += "\n    .page()";

  const url = h("p", { class: "url" });
  const holder = h("div", { class: "scroll" });
  const previous = h("button", { type: "button", class: "plain" }, "Previous");
  const next = h("button", { type: "button", class: "plain" }, "Next");
  const status = h("p", { class: "muted", "aria-live": "polite" });
  const pager = h("div", { class: "pager" }, previous, next, status);
  show(main, h("div", { class: "titlebar" }, h("h1", {}, via ? `${via.nav} of ${via.parentSet}(${via.key})` : set.name), actions),
    toolbar, h("div", { class: "tools" }, builder, chooser, copyPanel({ path: first, swift })), url, holder, pager);

  const pages = [first];
  let index = 0;
  let total = null;
  const label = (column) => orderby === column ? `${column} ▲` : orderby === `${column} desc` ? `${column} ▼` : column;

  async function load() {
    previous.disabled = next.disabled = true;
    url.textContent = `GET ${decodeURIComponent(pages[index])}`;
    let answer;
    try {
      answer = await request(pages[index], { headers: { Prefer: `odata.maxpagesize=${pageSize}` }, exact: true });
    } catch (error) {
      holder.replaceChildren(errorBox(error));
      status.textContent = "";
      document.body.dataset.loaded = String(Date.now());
      return;
    }
    if (typeof answer["@odata.count"] === "number") total = answer["@odata.count"];
    const rows = answer.value || [];
    const shown = columns.filter((column) => selected.length === 0 || selected.includes(column.name)).map((column) => column.name);
    const keyColumn = set.type.keys[0];
    holder.replaceChildren(rows.length === 0
      ? h("p", { class: "muted empty" }, filter ? "No rows match the filter." : "No rows.")
      : h("table", {},
          h("thead", {}, h("tr", {}, shown.map((column) =>
            h("th", { scope: "col", "aria-sort": orderby === column ? "ascending" : orderby === `${column} desc` ? "descending" : "none" },
              h("button", { type: "button", title: `Sort by ${column}`, onclick: () => go({ orderby: orderby === column ? `${column} desc` : column }) }, label(column)))))),
          h("tbody", {}, rows.map((row) => h("tr", {}, shown.map((column) => {
            if (column !== keyColumn) return cell(row[column]);
            return h("td", {}, h("a", { href: link(["s", service, set.name, keyPredicate(set, row)]), title: "Open this row" }, String(row[column])));
          }))))));
    const nextLink = answer["@odata.nextLink"];
    if (nextLink && pages.length === index + 1) {
      const target = new URL(nextLink, location.href);
      pages.push(target.pathname + target.search);
    }
    const from = index * pageSize + (rows.length ? 1 : 0);
    status.textContent = `Rows ${from.toLocaleString("en-US")}–${(index * pageSize + rows.length).toLocaleString("en-US")}` + (total === null ? "" : ` of ${total.toLocaleString("en-US")}`);
    previous.disabled = index === 0;
    next.disabled = index + 1 >= pages.length;
    document.body.dataset.loaded = String(Date.now());
  }
  previous.addEventListener("click", () => { index -= 1; load(); });
  next.addEventListener("click", () => { index += 1; load(); });
  await load();
}
