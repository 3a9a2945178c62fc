// Administration (role admin): a tab row, then the screen of #/admin/<tab>.
import { h, show } from "/console/dom.js";
import { me } from "/console/api.js";
import { errorBox, setCrumbs } from "/console/nav.js";
import { loaded } from "/console/admin-ui.js";

const tabs = [
  ["accounts", "Accounts", "/console/admin-accounts.js"],
  ["grants", "Roles & grants", "/console/admin-grants.js"],
  ["services", "Services", "/console/admin-services.js"],
  ["model", "Model files", "/console/admin-model.js"],
  ["keys", "Keys & sign-in", "/console/admin-keys.js"],
];

export default async function adminView(main, route) {
  const tab = tabs.find(([name]) => name === route.parts[1]) || tabs[0];
  setCrumbs([["Administration", "#/admin"], [tab[1]]]);
  const profile = await me().catch(() => null);
  if (!profile || !(profile.roles || []).includes("admin")) {
    setCrumbs([["Administration"]]);
    show(main, h("h1", {}, "Administration"),
      errorBox(new Error("403 Forbidden: administration needs the admin role (for every service). "
        + (profile ? `${profile.username || profile.subject || "This account"} does not hold it.` : "Sign in as an administrator."))));
    loaded();
    return;
  }
  const nav = h("nav", { class: "adm-tabs", "aria-label": "Administration" },
    tabs.map(([name, label]) => h("a", { href: `#/admin/${name}`, "aria-current": name === tab[0] ? "page" : undefined }, label)));
  const body = h("div", { class: "adm-body" });
  show(main, h("h1", {}, "Administration"), nav, body);
  try {
    await (await import(tab[2])).default(body, route);
  } catch (error) {
    body.replaceChildren(errorBox(error));
  }
  loaded();
}
