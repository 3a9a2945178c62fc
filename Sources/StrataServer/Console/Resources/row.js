// One row: its fields as a form (read-only where the caller's rights or the model say so), save
// with If-Match and the ETag read, a conflict explained as yours against theirs (overwrite or
// reload), delete after a second confirmation, insert, navigation to related rows, and the
// request copyable as URL, curl or Swift.
import { h, show } from "/console/dom.js";
import { request } from "/console/api.js";
import { errorBox, link, setCrumbs } from "/console/nav.js";
import { isNumeric, keyPredicate, model, swiftKey } from "/console/model.js";
import { copyPanel, swiftString } from "/console/copy.js";

function display(value) {
  if (value === null || value === undefined) return "null";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/// A field: its input, its "null" box when the column may be null, and where its error shows.
function field(property, value, editable) {
  const id = `field-${property.name}`;
  const errorId = `${id}-error`;
  const long = property.type === "Edm.String" && (property.maxLength === null || property.maxLength > 200);
  const text = value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
  let input;
  if (property.type === "Edm.Boolean") {
    input = h("select", { id, name: property.name }, h("option", { value: "true", selected: value === true }, "true"), h("option", { value: "false", selected: value === false }, "false"));
  } else if (long) {
    input = h("textarea", { id, name: property.name, rows: 3, spellcheck: "false" }, text);
  } else {
    input = h("input", { id, name: property.name, value: text, autocomplete: "off", spellcheck: "false", inputmode: isNumeric(property.type) ? "decimal" : false });
  }
  input.setAttribute("aria-describedby", errorId);
  const isNull = property.nullable ? h("input", { type: "checkbox", name: `${property.name}-null`, checked: value === null && editable !== "new" }) : null;
  const readOnly = !editable;
  input.disabled = readOnly || (isNull && isNull.checked);
  if (isNull) {
    isNull.disabled = readOnly;
    isNull.addEventListener("change", () => { input.disabled = isNull.checked; if (!isNull.checked) input.focus(); });
  }
  const notes = [property.type.replace("Edm.", "")];
  if (property.maxLength) notes.push(`up to ${property.maxLength}`);
  if (!property.nullable && !property.computed && !property.hasDefault) notes.push("required");
  if (property.computed) notes.push("set by the database");
  else if (property.readOnly) notes.push("read-only for you");
  else if (property.key && editable !== "new") notes.push("key");
  const error = h("p", { class: "field-error", id: errorId, "aria-live": "polite" });
  return {
    property, input, isNull, error,
    element: h("div", { class: "field" },
      h("label", { for: id }, property.name, h("span", { class: "muted" }, ` ${notes.join(", ")}`)),
      h("div", { class: "inputs" }, input, isNull ? h("label", { class: "check" }, isNull, "null") : null),
      error),
  };
}

/// The field's value as JSON, or throws with a message for the field.
function valueOf(entry) {
  const { property, input, isNull } = entry;
  if (isNull && isNull.checked) return null;
  const text = input.value;
  if (property.type === "Edm.Boolean") return text === "true";
  if (property.type === "Edm.String") {
    if (property.maxLength !== null && [...text].length > property.maxLength) throw new Error(`At most ${property.maxLength} characters; this is ${[...text].length}.`);
    return text;
  }
  if (text.trim() === "") {
    if (property.nullable) return null;
    throw new Error(`${property.name} is required.`);
  }
  if (isNumeric(property.type)) {
    if (!/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text.trim())) throw new Error(`A number (${property.type}), such as 42 or 3.5.`);
    // Int64 and Decimal travel as strings (IEEE754Compatible), exactly as typed.
    return ["Edm.Int64", "Edm.Decimal"].includes(property.type) ? text.trim() : Number(text);
  }
  return text.trim();
}

function same(a, b) {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

export async function rowView(main, service, setName, key, query) {
  const schema = await model(service);
  const set = schema.sets[setName];
  if (!set) throw new Error(`${service} has no set ${setName} this account can read.`);
  const creating = key === "new";
  const base = `/${encodeURIComponent(service)}/${encodeURIComponent(set.name)}`;
  const path = creating ? base : `${base}(${encodeURIComponent(key)})`;
  setCrumbs([["Services", "#/"], [service, link(["s", service])], [set.name, link(["s", service, set.name])], [creating ? "New row" : key]]);

  let original = {};
  let etag = null;
  if (!creating) {
    original = await request(path, { exact: true });
    etag = original["@odata.etag"] || null;
  }
  const editable = creating ? (set.insertable ? "new" : false) : set.updatable;
  const entries = set.type.properties.map((property) => {
    const writable = editable && !property.computed && !property.readOnly && !(property.key && !creating) && !(property.immutable && !creating);
    return field(property, original[property.name], writable ? editable : false);
  });
  const status = h("div", { class: "status", "aria-live": "polite" });
  const conflict = h("div", { class: "conflict" });

  function clearErrors() {
    for (const entry of entries) { entry.error.textContent = ""; entry.input.removeAttribute("aria-invalid"); }
    status.replaceChildren();
  }
  function fieldError(name, message) {
    const entry = entries.find((candidate) => candidate.property.name === name);
    if (!entry) return false;
    entry.error.textContent = message;
    entry.input.setAttribute("aria-invalid", "true");
    entry.input.focus();
    return true;
  }
  /// The changed fields (every given field for a new row), or null after showing errors.
  function collect() {
    clearErrors();
    const body = {};
    let valid = true;
    for (const entry of entries) {
      if (entry.input.disabled && !(entry.isNull && entry.isNull.checked && !entry.isNull.disabled)) continue;
      // A new row leaves out what was left empty where the database has a default or takes null.
      const empty = entry.input.value === "" && !(entry.isNull && entry.isNull.checked);
      if (creating && empty && (entry.property.hasDefault || entry.property.nullable)) continue;
      try {
        const value = valueOf(entry);
        if (creating || !same(value, original[entry.property.name])) body[entry.property.name] = value;
      } catch (error) {
        if (valid) fieldError(entry.property.name, error.message); else entry.error.textContent = error.message;
        valid = false;
      }
    }
    return valid ? body : null;
  }
  function serverError(error) {
    if (error.status === 400 && error.target && fieldError(error.target, error.message)) return;
    status.replaceChildren(errorBox(error));
  }

  async function save(body, ifMatch) {
    const headers = ifMatch ? { "If-Match": ifMatch, Prefer: "return=representation" } : { Prefer: "return=representation" };
    return request(path, { method: creating ? "POST" : "PATCH", body, headers, exact: true });
  }

  async function submit(event) {
    event.preventDefault();
    conflict.replaceChildren();
    const body = collect();
    if (!body) return;
    if (!creating && Object.keys(body).length === 0) { status.replaceChildren(h("p", { class: "muted" }, "Nothing changed.")); return; }
    try {
      const saved = await save(body, etag);
      if (creating) {
        location.hash = link(["s", service, set.name, keyPredicate(set, saved)]);
        return;
      }
      await rowView(main, service, setName, key, query);
      document.querySelector("main .status").replaceChildren(h("p", { class: "ok" }, "Saved."));
    } catch (error) {
      if (error.status === 412) return explainConflict(body);
      serverError(error);
    }
  }

  // Someone else saved after this form was read: show each field that differs, theirs against
  // yours, and let the person choose.
  async function explainConflict(mine) {
    let theirs;
    try {
      theirs = await request(path, { exact: true });
    } catch (error) {
      status.replaceChildren(errorBox(error.status === 404 ? new Error("Someone deleted this row after you opened it.") : error));
      return;
    }
    const names = set.type.properties.map((property) => property.name)
      .filter((name) => name in mine || !same(theirs[name], original[name]));
    conflict.replaceChildren(
      h("div", { class: "error", role: "alert" },
        h("p", {}, h("strong", {}, "Someone changed this row after you opened it."), " Nothing of yours was saved. Keep your values (overwrite theirs) or take theirs (your edits are dropped)."),
        h("table", { class: "diff" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Field"), h("th", { scope: "col" }, "When you opened it"), h("th", { scope: "col" }, "Yours"), h("th", { scope: "col" }, "Theirs, now"))),
          h("tbody", {}, names.map((name) => h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, display(original[name])),
            h("td", {}, name in mine ? display(mine[name]) : "—"), h("td", {}, display(theirs[name])))))),
        h("div", { class: "actions" },
          h("button", { type: "button", name: "overwrite", onclick: async () => {
            try {
              await save(mine, theirs["@odata.etag"]);
              await rowView(main, service, setName, key, query);
              document.querySelector("main .status").replaceChildren(h("p", { class: "ok" }, "Saved over their change."));
            } catch (error) {
              if (error.status === 412) return explainConflict(mine);
              serverError(error);
            }
          } }, "Overwrite with mine"),
          h("button", { type: "button", class: "plain", name: "reload", onclick: () => rowView(main, service, setName, key, query) }, "Reload theirs"))));
    conflict.querySelector("button").focus();
    document.body.dataset.loaded = String(Date.now());
  }

  const buttons = h("div", { class: "actions" });
  if (editable) buttons.append(h("button", { type: "submit" }, creating ? "Create" : "Save"));
  if (!creating && set.deletable) {
    const confirmBox = h("span", { class: "confirm", hidden: true },
      `Delete ${set.name}(${key})? This cannot be undone. `,
      h("button", { type: "button", class: "danger", name: "confirm-delete", onclick: async () => {
        try {
          await request(path, { method: "DELETE", headers: etag ? { "If-Match": etag } : {} });
          location.hash = link(["s", service, set.name]);
        } catch (error) {
          confirmBox.hidden = true;
          status.replaceChildren(errorBox(error.status === 412 ? new Error("Someone changed this row after you opened it, so it was not deleted. Reload to see their change.") : error));
        }
      } }, "Delete"),
      " ",
      h("button", { type: "button", class: "plain", onclick: () => { confirmBox.hidden = true; } }, "Cancel"));
    buttons.append(h("button", { type: "button", class: "plain danger", name: "delete", onclick: () => { confirmBox.hidden = false; confirmBox.querySelector("button").focus(); } }, "Delete…"), confirmBox);
  }

  const related = creating || set.type.navigation.length === 0 ? null : h("section", { class: "related" }, h("h2", {}, "Related"),
    h("ul", { class: "links" }, set.type.navigation.filter((nav) => set.targets[nav.name]).map((nav) => h("li", {}, nav.many
      ? h("a", { href: link(["s", service, set.name, key, nav.name]) }, `${nav.name} (rows)`)
      : h("a", { href: "#", onclick: async (event) => {
        event.preventDefault();
        const target = schema.sets[set.targets[nav.name]];
        try {
          const row = await request(`${path}/${encodeURIComponent(nav.name)}?$select=${target.type.keys.join(",")}`);
          location.hash = link(["s", service, target.name, keyPredicate(target, row)]);
        } catch (error) {
          status.replaceChildren(errorBox(error.status === 404 || error.status === 204 ? new Error(`This row has no ${nav.name}.`) : error));
        }
      } }, `${nav.name} (its row)`)))));

  const form = h("form", { class: "row", novalidate: true, onsubmit: submit }, entries.map((entry) => entry.element), buttons, status);
  const copy = creating ? null : copyPanel({ path, swift: `let row = try await service.set(${swiftString(set.name)})${swiftKey(key, swiftString)}.get()` });
  show(main, h("h1", {}, creating ? `New ${set.type.name}` : `${set.name}(${key})`),
    !editable && !creating ? h("p", { class: "muted" }, "You may read this row, not change it.") : null,
    conflict, form, related, copy);
  document.body.dataset.loaded = String(Date.now());
}
