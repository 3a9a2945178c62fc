// A set's rows: server-driven pages (Prefer: odata.maxpagesize, then @odata.nextLink, which Strata
// continues by key, so page 1,000 costs what page 1 does), sorting by a column, a $filter box that
// shows the request it sends.
import { h, show } from "/console/dom.js";
import { request } from "/console/api.js";

export const pageSize = 50;

function cell(value) {
  if (value === null || value === undefined) return h("td", { class: "null" }, "null");
  if (typeof value === "object") return h("td", {}, JSON.stringify(value));
  return h("td", {}, String(value));
}

export async function tableView(main, service, set, query) {
  const filter = query.get("filter") || "";
  const orderby = query.get("orderby") || "";
  const base = `/${encodeURIComponent(service)}/${encodeURIComponent(set)}`;
  const options = new URLSearchParams({ $count: "true" });
  if (filter) options.set("$filter", filter);
  if (orderby) options.set("$orderby", orderby);
  const first = `${base}?${options.toString().replaceAll("+", "%20")}`;

  const status = h("p", { class: "muted", "aria-live": "polite" });
  const url = h("p", { class: "url" });
  const filterInput = h("input", { name: "filter", value: filter, placeholder: "lastName eq 'Smith' and year(createDate) ge 2010", spellcheck: "false" });
  const apply = (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (filterInput.value.trim()) next.set("filter", filterInput.value.trim());
    if (orderby) next.set("orderby", orderby);
    location.hash = `#/s/${encodeURIComponent(service)}/${encodeURIComponent(set)}?${next}`;
  };
  const toolbar = h("form", { class: "toolbar", onsubmit: apply },
    h("label", {}, "Filter ($filter)", filterInput),
    h("button", { type: "submit" }, "Apply"));
  const holder = h("div", { class: "scroll" });
  const previous = h("button", { type: "button", class: "plain" }, "Previous");
  const next = h("button", { type: "button", class: "plain" }, "Next");
  const pager = h("div", { class: "pager" }, previous, next, status);
  show(main, h("h1", {}, set), toolbar, url, holder, pager);

  const pages = [first];
  let index = 0;
  let total = null;

  const sortBy = (column) => {
    const descending = orderby === column;
    const nextQuery = new URLSearchParams();
    if (filter) nextQuery.set("filter", filter);
    nextQuery.set("orderby", descending ? `${column} desc` : column);
    location.hash = `#/s/${encodeURIComponent(service)}/${encodeURIComponent(set)}?${nextQuery}`;
  };

  async function load() {
    previous.disabled = next.disabled = true;
    url.textContent = `GET ${decodeURIComponent(pages[index])}`;
    let answer;
    try {
      answer = await request(pages[index], { headers: { Prefer: `odata.maxpagesize=${pageSize}` } });
    } catch (error) {
      holder.replaceChildren(h("p", { class: "error", role: "alert" }, error.message));
      status.textContent = "";
      return;
    }
    if (typeof answer["@odata.count"] === "number") total = answer["@odata.count"];
    const rows = answer.value || [];
    const columns = [];
    for (const row of rows) for (const name of Object.keys(row)) if (!name.includes("@") && !columns.includes(name)) columns.push(name);
    const label = (column) => orderby === column ? `${column} ▲` : orderby === `${column} desc` ? `${column} ▼` : column;
    holder.replaceChildren(rows.length === 0
      ? h("p", { class: "muted" }, "No rows.")
      : h("table", {},
          h("thead", {}, h("tr", {}, columns.map((column) =>
            h("th", { scope: "col", "aria-sort": orderby === column ? "ascending" : orderby === `${column} desc` ? "descending" : "none" },
              h("button", { type: "button", onclick: () => sortBy(column) }, label(column)))))),
          h("tbody", {}, rows.map((row) => h("tr", {}, columns.map((column) => cell(row[column])))))));
    const nextLink = answer["@odata.nextLink"];
    if (nextLink && pages.length === index + 1) {
      const link = new URL(nextLink, location.href);
      pages.push(link.pathname + link.search);
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
