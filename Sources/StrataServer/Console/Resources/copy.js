// "Copy as URL / curl / Swift": the request a screen made, written so that a person can repeat it
// outside the console. The token is never copied: curl reads it from $STRATA_TOKEN, Swift from the
// app's AuthSession.
import { h } from "/console/dom.js";

/// A Swift string literal of `text`.
export function swiftString(text) {
  let out = "\"";
  for (const character of String(text)) {
    const code = character.codePointAt(0);
    if (character === "\\" || character === "\"") out += "\\" + character;
    else if (character === "\n") out += "\\n";
    else if (character === "\r") out += "\\r";
    else if (character === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\u{${code.toString(16)}}`;
    else out += character;
  }
  return out + "\"";
}

/// A shell word in single quotes.
export function shellWord(text) {
  return `'${String(text).replaceAll("'", "'\\''")}'`;
}

/// The panel: a <details> holding the URL, a curl line and StrataClient code, each with a Copy button.
export function copyPanel({ path, method = "GET", body, swift }) {
  const url = new URL(path, location.origin).href;
  let curl = `curl -H "Authorization: Bearer $STRATA_TOKEN"`;
  if (method !== "GET") curl += ` -X ${method}`;
  if (body !== undefined) curl += ` -H 'Content-Type: application/json' -d ${shellWord(JSON.stringify(body))}`;
  curl += ` ${shellWord(url)}`;
  const block = (label, text) => {
    const pre = h("pre", { class: "code", "data-copy": label }, text);
    const status = h("span", { class: "muted", "aria-live": "polite" });
    const button = h("button", { type: "button", class: "plain", onclick: async () => {
      try {
        await navigator.clipboard.writeText(text);
        status.textContent = "Copied.";
      } catch {
        // No clipboard (an insecure origin or a denied permission): select the text instead.
        getSelection().selectAllChildren(pre);
        status.textContent = "Selected: press Ctrl+C (⌘C).";
      }
    } }, `Copy ${label}`);
    return h("div", { class: "copyblock" }, h("div", { class: "copyhead" }, h("strong", {}, label), button, status), pre);
  };
  return h("details", { class: "copy" }, h("summary", {}, "Copy as URL, curl or Swift"),
    block("URL", url), block("curl", curl), block("Swift", swift));
}
