// Blobs: the containers the caller may list (create, delete, public or private for administrators),
// and a container's blobs: a page of names with a prefix filter, upload by dropping files or
// choosing them, download, delete. Everything goes through `/blobs…` with the caller's token, so
// the server's refusals are the rules; the screen explains them.
//
// Fragments: #/blobs (containers) · #/blobs/CONTAINER?prefix=… (its blobs).
import { h, show } from "/console/dom.js";
import { authorization, failure, me, request } from "/console/api.js";
import { errorBox, link, setCrumbs } from "/console/nav.js";
import { save } from "/console/sql.js";

const loaded = () => { document.body.dataset.loaded = String(Date.now()); };

export default async function blobsView(main, route) {
  const [, container] = route.parts;
  const profile = await me().catch(() => null);
  const admin = !!profile && (profile.roles || []).includes("admin");
  if (container !== undefined) return containerView(main, container, route.query, admin);
  return containersView(main, admin);
}

/// A request with the caller's token and any body (a File streams as it is); the server's message
/// on failure, as APIError.
async function send(method, path, { body, headers = {} } = {}) {
  const response = await fetch(path, { method, headers: { ...authorization(), ...headers }, body, credentials: "omit", cache: "no-store" });
  if (!response.ok) throw await failure(response);
  return response;
}

/// `/blobs/CONTAINER/NAME` with each `/`-separated part of the name escaped.
export function blobPath(container, name) {
  return `/blobs/${encodeURIComponent(container)}/${name.split("/").map(encodeURIComponent).join("/")}`;
}

function explain(error, doing) {
  const why = {
    401: "Sign in: this needs an account.",
    403: doing === "write"
      ? "Writing needs the editor or admin role, or a container grant with write (strata grant container ROLE --container NAME --actions read,write)."
      : doing === "admin"
        ? "Creating, removing and opening up containers is for the admin role."
        : "Reading this container needs the reader role or a container grant; public containers are open to everyone.",
    404: "It is not there (any more): reload the list.",
    409: "The container still holds blobs: delete them first.",
    413: "The file is larger than the server accepts (--max-blob-size).",
  }[error.status];
  return [errorBox(error), why ? h("p", { class: "muted blobs-why" }, why) : null];
}

function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

const when = (iso) => iso ? new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" }) : "";

/// A button that asks once more before `action` runs: the first press turns it into "Confirm …"
/// beside a "Cancel".
function confirming(label, question, action, name) {
  const button = h("button", { type: "button", class: "plain danger", "aria-label": name ? `${label} ${name}` : undefined }, label);
  button.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "danger" }, question);
    const no = h("button", { type: "button", class: "plain" }, "Cancel");
    const box = h("span", { class: "blobs-confirm" }, yes, no);
    yes.addEventListener("click", async () => { yes.disabled = no.disabled = true; await action(); });
    no.addEventListener("click", () => { box.replaceWith(button); button.focus(); });
    button.replaceWith(box);
    yes.focus();
  });
  return button;
}

// ── Containers ───────────────────────────────────────────────────────────────────────────────

async function containersView(main, admin) {
  setCrumbs([["Blobs"]]);
  const answer = await request("/blobs");
  const containers = answer.containers || [];
  const message = h("div", { class: "blobs-message", "aria-live": "polite" });
  const redraw = async (note) => {
    await containersView(main, admin);
    if (note) document.querySelector(".blobs-message").replaceChildren(h("p", { class: "blobs-done", role: "status" }, note));
  };

  async function act(doing, body) {
    message.replaceChildren();
    try {
      const note = await body();
      await redraw(note);
    } catch (error) {
      message.replaceChildren(...explain(error, doing));
      loaded();
    }
  }

  let form = null;
  if (admin) {
    const name = h("input", { id: "blobs-new-name", name: "container", required: true, pattern: "[a-z0-9][a-z0-9\\-]{2,62}", autocomplete: "off", spellcheck: "false", "aria-describedby": "blobs-name-rule" });
    const access = h("select", { id: "blobs-new-access", name: "access" }, h("option", { value: "private" }, "Private: signed-in callers with rights"), h("option", { value: "public-read" }, "Public: anyone may list and read"));
    form = h("form", { class: "toolbar blobs-create", onsubmit: (event) => {
      event.preventDefault();
      act("admin", async () => {
        await send("PUT", `/blobs/${encodeURIComponent(name.value)}?access=${access.value}`);
        return `Created the container ${name.value}.`;
      });
    } },
    h("label", { for: "blobs-new-name" }, "New container", name),
    h("label", { for: "blobs-new-access" }, "Access", access),
    h("button", { type: "submit" }, "Create"),
    h("p", { id: "blobs-name-rule", class: "muted blobs-rule" }, "3 to 63 lowercase letters, digits or '-', starting with a letter or digit."));
  }

  const rows = containers.map((container) => {
    const isPublic = container.access === "public-read";
    const actions = admin ? h("td", { class: "blobs-actions" },
      h("button", { type: "button", class: "plain", onclick: () => act("admin", async () => {
        await send("PUT", `/blobs/${encodeURIComponent(container.name)}?access=${isPublic ? "private" : "public-read"}`);
        return `${container.name} is now ${isPublic ? "private" : "public"}.`;
      }), "aria-label": `Make ${container.name} ${isPublic ? "private" : "public"}` }, isPublic ? "Make private" : "Make public"),
      confirming("Delete", `Delete ${container.name} and its blobs`, () => act("admin", async () => {
        await send("DELETE", `/blobs/${encodeURIComponent(container.name)}?force=true`);
        return `Deleted the container ${container.name}.`;
      }), container.name)) : null;
    return h("tr", { "data-container": container.name },
      h("th", { scope: "row" }, h("a", { href: link(["blobs", container.name]) }, container.name)),
      h("td", {}, h("span", { class: `blobs-access ${isPublic ? "public" : "private"}` }, isPublic ? "public" : "private")),
      h("td", {}, when(container.created)),
      actions);
  });

  show(main,
    h("h1", {}, "Blobs"),
    h("p", { class: "muted" }, "Files in containers beside the services, at /blobs/CONTAINER/NAME. Public containers may be read by anyone; private ones by accounts with rights."),
    form || h("p", { class: "muted" }, "Creating and removing containers is for administrators."),
    message,
    containers.length === 0
      ? h("p", { class: "muted" }, "No container this account may list.")
      : h("div", { class: "scroll" }, h("table", { class: "blobs-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Container"), h("th", { scope: "col" }, "Access"), h("th", { scope: "col" }, "Created"),
          admin ? h("th", { scope: "col" }, "Actions") : null)),
        h("tbody", {}, rows))));
  loaded();
}

// ── A container's blobs ──────────────────────────────────────────────────────────────────────

async function containerView(main, container, query, admin) {
  setCrumbs([["Blobs", "#/blobs"], [container]]);
  const prefix = query.get("prefix") || "";
  const base = `/blobs/${encodeURIComponent(container)}?limit=100${prefix ? `&prefix=${encodeURIComponent(prefix)}` : ""}`;
  const first = await request(base);
  const isPublic = first.access === "public-read";

  const message = h("div", { class: "blobs-message", "aria-live": "polite" });
  const body = h("tbody");
  const more = h("button", { type: "button", class: "plain", hidden: true }, "More");
  const counted = h("span", { class: "muted" });
  let shown = 0, marker = null;

  const note = (text) => message.replaceChildren(h("p", { class: "blobs-done", role: "status" }, text));
  const refused = (error, doing) => { message.replaceChildren(...explain(error, doing)); loaded(); };

  function row(blob) {
    return h("tr", { "data-blob": blob.name },
      h("th", { scope: "row" }, blob.name),
      h("td", { class: "number" }, size(blob.size)),
      h("td", { class: "blobs-type" }, blob.contentType),
      h("td", {}, when(blob.lastModified)),
      h("td", { class: "blobs-actions" },
        h("button", { type: "button", class: "plain", "aria-label": `Download ${blob.name}`, onclick: () => download(blob) }, "Download"),
        confirming("Delete", `Delete ${blob.name}`, () => remove(blob), blob.name)));
  }

  function append(page) {
    body.append(...page.blobs.map(row));
    shown += page.blobs.length;
    marker = page.nextMarker;
    more.hidden = !marker;
    counted.textContent = shown ? `${shown} ${shown === 1 ? "blob" : "blobs"}${marker ? " so far" : ""}${prefix ? ` starting with “${prefix}”` : ""}` : "";
    empty.hidden = shown > 0;
    listing.hidden = shown === 0;
  }

  more.addEventListener("click", async () => {
    try { append(await request(`${base}&marker=${encodeURIComponent(marker)}`)); loaded(); } catch (error) { refused(error, "read"); }
  });

  async function reload(text) {
    try {
      const page = await request(base);
      body.replaceChildren();
      shown = 0;
      append(page);
      if (text) note(text);
      loaded();
    } catch (error) { refused(error, "read"); }
  }

  async function download(blob) {
    try {
      const response = await send("GET", blobPath(container, blob.name));
      save(await response.blob(), blob.name.split("/").pop());
      note(`Downloaded ${blob.name} (${size(blob.size)}).`);
      loaded();
    } catch (error) { refused(error, "read"); }
  }

  async function remove(blob) {
    try {
      await send("DELETE", blobPath(container, blob.name));
      await reload(`Deleted ${blob.name}.`);
    } catch (error) { refused(error, "write"); await reload(); }
  }

  const folder = h("input", { id: "blobs-folder", name: "folder", value: prefix, placeholder: "photos/2024/", autocomplete: "off", spellcheck: "false" });
  const files = h("input", { id: "blobs-files", name: "files", type: "file", multiple: true });
  const progress = h("p", { class: "muted blobs-progress", "aria-live": "polite" });

  async function upload(list) {
    const chosen = [...list];
    if (chosen.length === 0) return;
    message.replaceChildren();
    let done = 0;
    for (const file of chosen) {
      const name = folder.value + file.name;
      progress.textContent = `Uploading ${name} (${size(file.size)}), ${done + 1} of ${chosen.length}…`;
      try {
        await send("PUT", blobPath(container, name), { body: file, headers: { "Content-Type": file.type || "application/octet-stream" } });
        done++;
      } catch (error) {
        progress.textContent = "";
        refused(error, "write");
        files.value = "";
        return;
      }
    }
    progress.textContent = "";
    files.value = "";
    await reload(`Uploaded ${done} ${done === 1 ? "file" : "files"}: ${chosen.map((file) => folder.value + file.name).join(", ")}.`);
  }

  files.addEventListener("change", () => upload(files.files));
  const drop = h("div", { class: "blobs-drop" },
    h("p", {}, h("strong", {}, "Drop files here"), " to upload them, or ",
      h("label", { for: "blobs-files", class: "blobs-choose" }, "choose files"), files),
    h("label", { for: "blobs-folder" }, "Name prefix (folder) for uploads", folder),
    progress);
  drop.addEventListener("dragover", (event) => { event.preventDefault(); event.dataTransfer.dropEffect = "copy"; drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    upload(event.dataTransfer.files);
  });

  const filter = h("input", { id: "blobs-prefix", name: "prefix", value: prefix, autocomplete: "off", spellcheck: "false" });
  const filterForm = h("form", { class: "toolbar blobs-filter", onsubmit: (event) => {
    event.preventDefault();
    location.hash = link(["blobs", container], filter.value ? { prefix: filter.value } : undefined);
  } }, h("label", { for: "blobs-prefix" }, "Names starting with", filter), h("button", { type: "submit", class: "plain" }, "Filter"));

  const toggle = admin ? h("button", { type: "button", class: "plain", onclick: async () => {
    try {
      await send("PUT", `/blobs/${encodeURIComponent(container)}?access=${isPublic ? "private" : "public-read"}`);
      await containerView(main, container, query, admin);
      document.querySelector(".blobs-message").replaceChildren(h("p", { class: "blobs-done", role: "status" }, `${container} is now ${isPublic ? "private" : "public"}.`));
    } catch (error) { refused(error, "admin"); }
  } }, isPublic ? "Make private" : "Make public") : null;

  const empty = h("p", { class: "muted" }, prefix ? "No blob starts with that." : "This container is empty: upload a file.");
  const listing = h("div", { class: "scroll" }, h("table", { class: "blobs-table" },
    h("caption", { class: "live-hidden" }, `Blobs in ${container}`),
    h("thead", {}, h("tr", {}, ["Name", "Size", "Type", "Modified", "Actions"].map((label) => h("th", { scope: "col", class: { Type: "blobs-type", Size: "number" }[label] }, label)))),
    body));
  show(main,
    h("div", { class: "blobs-head" },
      h("h1", {}, container, " ", h("span", { class: `blobs-access ${isPublic ? "public" : "private"}` }, isPublic ? "public" : "private")),
      toggle),
    h("p", { class: "muted" }, isPublic ? "Anyone may list and read this container; writing needs rights." : "Only accounts with rights may list and read this container."),
    drop,
    message,
    filterForm,
    h("p", { class: "muted blobs-count" }, counted),
    empty,
    listing,
    more);
  append(first);
  loaded();
}
