// The console: screens chosen by the URL's fragment (#/, #/s/service, #/s/service/Set?…), each
// drawn from what the public APIs answer for the signed-in caller.
import { h, show } from "/console/dom.js";
import { request, session, signIn, signOut } from "/console/api.js";
import { tableView } from "/console/table.js";

const main = document.getElementById("main");
const crumbs = document.getElementById("crumbs");
const who = document.getElementById("who");

function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, error.message || String(error));
}

function drawHeader(path) {
  const parts = [h("a", { href: "#/" }, "Services")];
  if (path.service) parts.push("/ ", h("a", { href: `#/s/${encodeURIComponent(path.service)}` }, path.service));
  if (path.set) parts.push("/ ", h("span", {}, path.set));
  crumbs.replaceChildren(...parts);
  const current = session();
  who.replaceChildren(current
    ? h("span", {}, `Signed in as ${current.user} `, h("button", { class: "plain", type: "button", onclick: () => { signOut(); location.hash = "#/signin"; route(); } }, "Sign out"))
    : h("a", { href: "#/signin" }, "Sign in"));
}

function signInView() {
  const user = h("input", { name: "username", autocomplete: "username", required: true });
  const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
  const message = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "signin", onsubmit: async (event) => {
    event.preventDefault();
    message.replaceChildren();
    try {
      await signIn(user.value, password.value);
      location.hash = "#/";
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  } },
  h("h1", {}, "Sign in"),
  h("label", {}, "User name", user),
  h("label", {}, "Password", password),
  h("button", { type: "submit" }, "Sign in"),
  message);
  show(main, form);
  user.focus();
}

async function servicesView() {
  const answer = await request("/");
  const services = answer.services || [];
  show(main,
    h("h1", {}, "Services"),
    services.length === 0
      ? h("p", { class: "muted" }, session() ? "No service lets this account read." : "No service lets anonymous callers read: sign in.")
      : h("ul", { class: "sets" }, services.map((service) =>
        h("li", {}, h("a", { href: `#/s/${encodeURIComponent(service.name)}` }, h("span", {}, service.title || service.name), h("span", { class: "muted" }, service.name))))));
}

async function setsView(service) {
  const root = `/${encodeURIComponent(service)}/`;
  const document = await request(root);
  const sets = (document.value || []).filter((entry) => (entry.kind || "EntitySet") === "EntitySet");
  const list = h("ul", { class: "sets" });
  show(main, h("h1", {}, service), list);
  for (const set of sets) {
    const count = h("span", { class: "muted" }, "…");
    list.append(h("li", {}, h("a", { href: `#/s/${encodeURIComponent(service)}/${encodeURIComponent(set.name)}` }, h("span", {}, set.name), count)));
    request(`${root}${encodeURIComponent(set.url)}/$count`)
      .then((text) => { count.textContent = `${Number(text).toLocaleString("en-US")} rows`; })
      .catch(() => { count.textContent = "no access"; });
  }
}

function parse() {
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { name: parts[0] || "", service: parts[0] === "s" ? parts[1] : undefined, set: parts[0] === "s" ? parts[2] : undefined, query: new URLSearchParams(query) };
}

async function route() {
  const path = parse();
  drawHeader(path);
  try {
    if (path.name === "signin") return signInView();
    if (path.set) return await tableView(main, path.service, path.set, path.query);
    if (path.service) return await setsView(path.service);
    return await servicesView();
  } catch (error) {
    if (error.status === 401) return signInView();
    show(main, errorBox(error));
  }
}

window.addEventListener("hashchange", route);
route();
