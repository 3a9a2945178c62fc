// SQL: an editor for a service's `$sql` (Strata's checked client SQL), the result grid, and export
// as CSV or JSON. A refused query shows the checker's message, and the editor puts the caret at the
// line and column it names, marks that line in the gutter and draws the line with a caret under it.
//
// Fragments: #/sql (pick a service) · #/sql/SERVICE (the editor; ?q=… prefills the query).
import { h, show } from "/console/dom.js";
import { request } from "/console/api.js";
import { errorBox, link, setCrumbs } from "/console/nav.js";

const loaded = () => { document.body.dataset.loaded = String(Date.now()); };

export default async function sqlView(main, route) {
  const [, service] = route.parts;
  if (service === undefined) return servicesView(main);
  return editorView(main, service, route.query);
}

async function servicesView(main) {
  setCrumbs([["SQL"]]);
  const answer = await request("/");
  const services = answer.services || [];
  show(main,
    h("h1", {}, "SQL"),
    h("p", { class: "muted" }, "Pick a service to query its tables with Strata's checked SQL ($sql): one SELECT, checked against the service's tables and your rights before it reaches the database."),
    services.length === 0
      ? h("p", { class: "muted" }, "No service lets this account read.")
      : h("ul", { class: "sets" }, services.map((entry) =>
        h("li", {}, h("a", { href: link(["sql", entry.name]) }, h("span", {}, entry.title || entry.name), h("span", { class: "muted" }, entry.name))))));
  loaded();
}

const storageKey = (service) => `strata.console.sql.${service}`;

async function editorView(main, service, query) {
  setCrumbs([["SQL", "#/sql"], [service]]);
  const document_ = await request(`/${encodeURIComponent(service)}/`);
  const tables = (document_.value || []).filter((entry) => (entry.kind || "EntitySet") === "EntitySet").map((entry) => entry.name);
  const initial = query.get("q") || sessionStorage.getItem(storageKey(service)) || (tables.length ? `SELECT *\nFROM ${tables[0]}\nLIMIT 20` : "SELECT 1");

  const editor = h("textarea", {
    id: "sql-text", name: "sql", class: "sql-text", rows: 8, spellcheck: "false", autocapitalize: "off", autocomplete: "off",
    "aria-describedby": "sql-help sql-position",
  });
  editor.value = initial;
  const gutter = h("div", { class: "sql-gutter", "aria-hidden": "true" });
  const position = h("span", { id: "sql-position", class: "muted" });
  const parameters = h("input", { id: "sql-parameters", name: "parameters", class: "mono", placeholder: '{"prefix": "J%"}', autocomplete: "off", spellcheck: "false" });
  const run = h("button", { type: "submit" }, "Run");
  const csv = h("button", { type: "button", class: "plain", disabled: true, onclick: () => exportAs("csv") }, "Export CSV");
  const json = h("button", { type: "button", class: "plain", disabled: true, onclick: () => exportAs("json") }, "Export JSON");
  const status = h("p", { class: "muted sql-status", "aria-live": "polite" });
  const output = h("div", { class: "sql-output" });
  let result = null;
  let marked = 0;

  function drawGutter() {
    const lines = editor.value.split("\n").length;
    const numbers = [];
    for (let line = 1; line <= lines; line++) numbers.push(h("span", { class: line === marked ? "marked" : undefined }, String(line)));
    gutter.replaceChildren(...numbers);
    gutter.scrollTop = editor.scrollTop;
  }

  function showPosition() {
    const before = editor.value.slice(0, editor.selectionStart);
    const lines = before.split("\n");
    position.textContent = `Line ${lines.length}, column ${Array.from(lines[lines.length - 1]).length + 1}`;
  }

  editor.addEventListener("input", () => {
    if (marked) { marked = 0; editor.removeAttribute("aria-invalid"); }
    drawGutter();
    showPosition();
    sessionStorage.setItem(storageKey(service), editor.value);
  });
  editor.addEventListener("scroll", () => { gutter.scrollTop = editor.scrollTop; });
  for (const event of ["keyup", "click", "select", "focus"]) editor.addEventListener(event, showPosition);
  editor.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  async function submit(event) {
    event.preventDefault();
    let values;
    const text = parameters.value.trim();
    if (text) {
      try {
        values = JSON.parse(text);
        if (typeof values !== "object" || values === null || Array.isArray(values)) throw new Error("not an object");
      } catch {
        output.replaceChildren(errorBox(new Error('Parameters must be a JSON object, such as {"prefix": "J%"}; the query names them as :prefix.')));
        parameters.setAttribute("aria-invalid", "true");
        parameters.focus();
        return;
      }
    }
    parameters.removeAttribute("aria-invalid");
    run.disabled = true;
    status.textContent = "Running…";
    const started = performance.now();
    try {
      result = await request(`/${encodeURIComponent(service)}/$sql`, { method: "POST", body: values ? { sql: editor.value, parameters: values } : { sql: editor.value } });
      const time = Math.round(performance.now() - started);
      const count = result.rows.length;
      status.textContent = `${count.toLocaleString("en-US")} ${count === 1 ? "row" : "rows"} in ${time} ms.`;
      output.replaceChildren(grid(result));
      csv.disabled = json.disabled = false;
    } catch (error) {
      result = null;
      csv.disabled = json.disabled = true;
      status.textContent = error.status === 403 ? "Refused: your rights do not include this." : "The query was refused.";
      output.replaceChildren(...refusal(error));
    } finally {
      run.disabled = false;
      loaded();
    }
  }

  // The checker's message names "line L, column C" (columns count Unicode scalars, as Array.from
  // does); the textarea counts UTF-16 units.
  function refusal(error) {
    const parts = [errorBox(error)];
    if (error.status === 403) {
      parts.push(h("p", { class: "muted" }, "A query may read only tables your roles may read; the account's administrator grants them."));
    }
    const found = /at line (\d+), column (\d+)/.exec(error.message || "");
    if (!found) return parts;
    const line = Number(found[1]), column = Number(found[2]);
    const lines = editor.value.split("\n");
    if (line < 1 || line > lines.length) return parts;
    const scalars = Array.from(lines[line - 1]);
    const offset = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0)
      + scalars.slice(0, column - 1).join("").length;
    marked = line;
    drawGutter();
    editor.setAttribute("aria-invalid", "true");
    editor.focus();
    editor.setSelectionRange(offset, Math.min(offset + (scalars[column - 1] || "").length, editor.value.length));
    // Scroll the line into view: about one line height per line above it.
    const height = parseFloat(getComputedStyle(editor).lineHeight) || 20;
    editor.scrollTop = Math.max(0, (line - 3) * height);
    gutter.scrollTop = editor.scrollTop;
    showPosition();
    const excerpt = scalars.join("");
    const caret = " ".repeat(Math.max(0, column - 1)) + "^";
    parts.push(h("figure", { class: "sql-caret" },
      h("figcaption", {}, `Line ${line}, column ${column}:`),
      h("pre", { class: "mono" }, h("span", {}, excerpt), "\n", h("span", { class: "caret" }, caret))));
    return parts;
  }

  function exportAs(kind) {
    if (!result) return;
    const names = result.fields.map((field) => field.name);
    const text = kind === "csv" ? toCSV(names, result.rows) : JSON.stringify(result.rows.map((row) => Object.fromEntries(names.map((name, index) => [name, row[index]]))), null, 2) + "\n";
    const type = kind === "csv" ? "text/csv;charset=utf-8" : "application/json";
    save(new Blob([text], { type }), `${service}-query.${kind}`);
    status.textContent = `Exported ${result.rows.length} rows as ${kind.toUpperCase()}.`;
  }

  const form = h("form", { class: "sql-form", onsubmit: submit },
    h("label", { for: "sql-text" }, "Query"),
    h("div", { class: "sql-editor" }, gutter, editor),
    h("div", { class: "sql-under" }, h("span", { id: "sql-help", class: "muted" }, "One SELECT; Ctrl+Enter runs it."), position),
    h("label", { for: "sql-parameters" }, "Parameters (optional: a JSON object for the query's :names)"),
    parameters,
    h("div", { class: "toolbar sql-actions" }, run, csv, json));

  show(main,
    h("h1", {}, `SQL on ${service}`),
    tables.length ? h("p", { class: "sql-tables" }, h("span", { class: "muted" }, "Tables: "),
      tables.flatMap((name, index) => [index ? ", " : "", h("a", { href: link(["s", service, name]) }, name)])) : null,
    form, status, output);
  drawGutter();
  showPosition();
  loaded();
}

function grid(table) {
  if (table.fields.length === 0) return h("p", { class: "muted" }, "The query returns no columns.");
  return h("div", { class: "scroll sql-grid" }, h("table", {},
    h("thead", {}, h("tr", {}, table.fields.map((field) => h("th", { scope: "col", title: field.type || "" }, field.name)))),
    h("tbody", {}, table.rows.map((row) => h("tr", {}, row.map(cell))))));
}

/// A grid cell: null in italics, objects as JSON, `/Date(ms)/` (how data tables write dates) as
/// an ISO date with the raw value in its title.
export function cell(value) {
  if (value === null || value === undefined) return h("td", { class: "null" }, "null");
  if (typeof value === "object") return h("td", {}, JSON.stringify(value));
  const date = typeof value === "string" && /^\/Date\((-?\d+)(?:[+-]\d{4})?\)\/$/.exec(value);
  if (date) {
    const time = new Date(Number(date[1]));
    if (!Number.isNaN(time.getTime())) return h("td", { title: value }, time.toISOString().replace(".000Z", "Z"));
  }
  return h("td", {}, String(value));
}

/// RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled; CRLF between rows.
export function toCSV(names, rows) {
  const cell = (value) => {
    if (value === null || value === undefined) return "";
    const text = typeof value === "object" ? JSON.stringify(value) : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [names, ...rows].map((row) => row.map(cell).join(",")).join("\r\n") + "\r\n";
}

/// Hands `blob` to the browser as a download named `name` (an object URL: the CSP governs fetches
/// and scripts, not downloads).
export function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const anchor = h("a", { href: url, download: name, hidden: true });
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
