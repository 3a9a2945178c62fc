// What every screen shares: the fragment's parts, links to other screens, the breadcrumb trail
// and how an error shows.
import { h } from "/console/dom.js";

export function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, error.message || String(error));
}

/// The fragment as { parts: decoded path segments, query: URLSearchParams }.
export function parse() {
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { parts, query: new URLSearchParams(query) };
}

/// A fragment link from path segments (each escaped) and optional query parameters.
export function link(parts, query) {
  const path = "#/" + parts.map(encodeURIComponent).join("/");
  const text = query ? new URLSearchParams(query).toString() : "";
  return text ? `${path}?${text}` : path;
}

/// Sets the breadcrumb trail: a list of [label, fragment] pairs, the last one without a link.
export function setCrumbs(trail) {
  const parts = [];
  trail.forEach(([label, href], index) => {
    if (index) parts.push(" / ");
    parts.push(href && index < trail.length - 1 ? h("a", { href }, label) : h("span", {}, label));
  });
  document.getElementById("crumbs").replaceChildren(...parts);
}
