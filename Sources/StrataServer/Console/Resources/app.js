// The console's shell: a bar with the sections this caller may use, and the screen the URL's
// fragment names. Each section is an ES module loaded when first visited; its default export
// draws the screen into <main> from what the public APIs answer for the signed-in caller.
//
// Fragments: #/signin · #/ (services) · #/s/SERVICE (sets) · #/s/SERVICE/SET?filter&orderby&select
// (rows) · #/s/SERVICE/SET/KEY (a row) · #/sql/SERVICE · #/live… · #/blobs… · #/admin…
import { h, show } from "/console/dom.js";
import { finishHostedSignIn, me, request, session, signOut } from "/console/api.js";
import { errorBox, parse, setCrumbs } from "/console/nav.js";

const main = document.getElementById("main");
const who = document.getElementById("who");
const sections = document.getElementById("sections");

// First path segment → module. "" is the data browser (services, sets, rows, a row).
const screens = {
  "": "/console/data.js",
  s: "/console/data.js",
  signin: "/console/signin.js",
  sql: "/console/sql.js",
  live: "/console/live.js",
  blobs: "/console/blobs.js",
  admin: "/console/admin.js",
};

// Ends the sign-in on the server too (its refresh token stops working), then forgets the token.
async function endSignIn() {
  await request("/auth/logout", { method: "POST" }).catch(() => {});
  signOut();
  location.hash = "#/signin";
}

async function drawBar(route) {
  const current = session();
  const profile = current ? await me().catch(() => null) : null;
  const entries = [["Data", "#/", ""], ["SQL", "#/sql", "sql"], ["Blobs", "#/blobs", "blobs"], ["Live", "#/live", "live"]];
  if (profile && (profile.roles || []).includes("admin")) entries.push(["Admin", "#/admin", "admin"]);
  const here = route.parts[0] === "s" ? "" : route.parts[0] || "";
  sections.replaceChildren(...entries.map(([label, href, key]) =>
    h("a", { href, "aria-current": here === key ? "page" : false }, label)));
  who.replaceChildren(current
    ? h("span", {}, `Signed in as ${current.user} `, h("button", { class: "plain", type: "button", onclick: endSignIn }, "Sign out"))
    : h("a", { href: "#/signin" }, "Sign in"));
}

let drawing = 0;
async function route() {
  const path = parse();
  const ticket = ++drawing;
  setCrumbs([]);
  // The bar (who is signed in, which sections) is drawn beside the screen, not before it.
  drawBar(path).catch(() => {});
  const module = screens[path.parts[0] || ""];
  try {
    if (!module) throw new Error(`The console has no screen #/${path.parts.join("/")}.`);
    const screen = await import(module);
    await screen.default(main, path);
  } catch (error) {
    if (ticket !== drawing) return;
    if (error.status === 401 && path.parts[0] !== "signin") {
      location.hash = "#/signin";
      return;
    }
    show(main, errorBox(error));
  }
}

async function start() {
  try {
    if (await finishHostedSignIn()) location.hash = "#/";
  } catch (error) {
    location.hash = "#/signin";
    show(main, errorBox(error));
    window.addEventListener("hashchange", route);
    return (await import("/console/signin.js")).default(main, parse(), error);
  }
  window.addEventListener("hashchange", route);
  route();
}
start();
