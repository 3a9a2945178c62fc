// The data browser: services → a service's sets with row counts → a set's rows → one row.
import { h, show } from "/console/dom.js";
import { request, session } from "/console/api.js";
import { link, setCrumbs } from "/console/nav.js";

export default async function dataView(main, route) {
  const [, service, set, key, navigation] = route.parts;
  if (navigation !== undefined) {
    return (await import("/console/table.js")).tableView(main, service, set, route.query, { parentSet: set, key, nav: navigation });
  }
  if (key !== undefined) return (await import("/console/row.js")).rowView(main, service, set, key, route.query);
  if (set !== undefined) return (await import("/console/table.js")).tableView(main, service, set, route.query);
  if (service !== undefined) return setsView(main, service);
  return servicesView(main);
}

async function servicesView(main) {
  setCrumbs([["Services"]]);
  const answer = await request("/");
  const services = answer.services || [];
  show(main,
    h("h1", {}, "Services"),
    services.length === 0
      ? h("p", { class: "muted" }, session() ? "No service lets this account read." : "No service lets anonymous callers read: sign in.")
      : h("ul", { class: "sets" }, services.map((service) =>
        h("li", {}, h("a", { href: link(["s", service.name]) }, h("span", {}, service.title || service.name), h("span", { class: "muted" }, service.name))))));
}

async function setsView(main, service) {
  setCrumbs([["Services", "#/"], [service]]);
  const root = `/${encodeURIComponent(service)}/`;
  const document = await request(root);
  const sets = (document.value || []).filter((entry) => (entry.kind || "EntitySet") === "EntitySet");
  const list = h("ul", { class: "sets" });
  show(main, h("h1", {}, service), h("p", {}, h("a", { href: link(["sql", service]) }, "Query with SQL"), " · ", h("a", { href: link(["live", service]) }, "Watch changes live")), list);
  for (const set of sets) {
    const count = h("span", { class: "muted" }, "…");
    list.append(h("li", {}, h("a", { href: link(["s", service, set.name]) }, h("span", {}, set.name), count)));
    request(`${root}${encodeURIComponent(set.url)}/$count`)
      .then((text) => { count.textContent = `${Number(text).toLocaleString("en-US")} rows`; })
      .catch(() => { count.textContent = "no access"; });
  }
}
