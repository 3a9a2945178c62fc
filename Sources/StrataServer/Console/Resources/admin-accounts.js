// Accounts: list with roles; add with roles; add or take away a role; new password; sign out
// everywhere; remove.
import { h } from "/console/dom.js";
import { request } from "/console/api.js";
import { dangerButton, field, run, statusLine } from "/console/admin-ui.js";

export default async function accounts(body, route, notice) {
  const answer = await request("/admin/users");
  const status = statusLine();
  if (notice) { status.textContent = notice; status.classList.add("ok"); }
  // Draws the list again, keeping the message of the change that made it change.
  const redraw = async (message) => { await accounts(body, route, message); };

  const [nameField, name] = field("User name", h("input", { name: "username", autocomplete: "off", required: true }));
  const [passField, pass] = field("Password", h("input", { name: "password", type: "password", autocomplete: "new-password", required: true }));
  const [rolesField, roles] = field("Roles (comma-separated: editor, reader@hockey)", h("input", { name: "roles", autocomplete: "off" }));
  const addStatus = statusLine();
  const add = h("form", { class: "adm-form", "aria-label": "Add an account" },
    h("h2", {}, "Add an account"), nameField, passField, rolesField,
    h("button", { type: "submit" }, "Add account"), addStatus);
  add.addEventListener("submit", async (event) => {
    event.preventDefault();
    const list = roles.value.split(",").map((role) => role.trim()).filter(Boolean);
    if (await run(addStatus, async () => {
      await request("/admin/users", { method: "POST", body: { username: name.value.trim(), password: pass.value, roles: list } });
      return `Added ${name.value.trim()}.`;
    })) await redraw(addStatus.textContent);
  });

  const rows = (answer.users || []).map((user) => accountRow(user, status, redraw));
  body.replaceChildren(
    h("h2", {}, "Accounts"),
    status,
    h("div", { class: "adm-scroll" }, h("table", { class: "adm-table adm-accounts" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Account"), h("th", { scope: "col" }, "Roles"), h("th", { scope: "col" }, "Actions"))),
      h("tbody", {}, rows))),
    add);
}

function accountRow(user, status, redraw) {
  const who = user.username;
  const roleChips = h("ul", { class: "adm-chips" }, (user.roles || []).map((role) =>
    h("li", {}, role, " ", h("button", {
      type: "button", class: "adm-chip-remove", "aria-label": `Take ${role} from ${who}`,
      onclick: async () => {
        const [name, service] = role.split("@");
        const query = new URLSearchParams({ username: who, role: name });
        if (service) query.set("service", service);
        if (await run(status, async () => { await request(`/admin/roles?${query}`, { method: "DELETE" }); return `${who} no longer holds ${role}.`; })) await redraw(status.textContent);
      },
    }, "×"))));
  const [roleField, role] = field(`Add a role to ${who}`, h("input", { name: "role", autocomplete: "off", placeholder: "clerk@cardealer", class: "adm-narrow" }));
  const addRole = h("form", { class: "adm-inline" }, roleField, h("button", { type: "submit" }, "Add role"));
  addRole.addEventListener("submit", async (event) => {
    event.preventDefault();
    const [name, service] = role.value.trim().split("@");
    if (await run(status, async () => {
      await request("/admin/roles", { method: "POST", body: { username: who, role: name, ...(service ? { service } : {}) } });
      return `${who} now holds ${role.value.trim()}.`;
    })) await redraw(status.textContent);
  });
  const [passField, pass] = field(`New password for ${who}`, h("input", { type: "password", autocomplete: "new-password", class: "adm-narrow" }));
  const setPass = h("form", { class: "adm-inline" }, passField, h("button", { type: "submit" }, "Set password"));
  setPass.addEventListener("submit", async (event) => {
    event.preventDefault();
    await run(status, async () => {
      await request("/admin/users/password", { method: "POST", body: { username: who, password: pass.value } });
      pass.value = "";
      return `New password set for ${who}; their sign-ins have ended.`;
    });
  });
  return h("tr", { "data-user": who },
    h("th", { scope: "row" }, who),
    h("td", {}, roleChips, addRole),
    h("td", { class: "adm-actions" }, setPass,
      dangerButton(`Sign out ${who} everywhere`, async () => {
        await request("/admin/users/sign-out", { method: "POST", body: { username: who } });
        return `Every sign-in of ${who} has ended.`;
      }, status, "sign-out"),
      dangerButton(`Remove ${who}`, async () => {
        await request(`/admin/users?${new URLSearchParams({ username: who })}`, { method: "DELETE" });
        await redraw(`Removed ${who}.`);
        return `Removed ${who}.`;
      }, status, "remove")));
}
