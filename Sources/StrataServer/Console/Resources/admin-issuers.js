// Trusted issuers (federation): other systems' tokens that Strata accepts, checked against the
// issuer's JWKS and audience, with rule groups that map claims to roles (/admin/issuers).
import { h } from "/console/dom.js";
import { request } from "/console/api.js";
import { dangerButton, field, run, statusLine } from "/console/admin-ui.js";

const matches = [["equals", "equals"], ["suffix", "ends with"], ["any", "any value"]];

export function issuersSection(issuers, redraw) {
  const status = statusLine();
  const rows = issuers.map((issuer) => h("tr", { "data-issuer": issuer.issuer },
    h("th", { scope: "row", class: "mono" }, issuer.issuer), h("td", {}, issuer.audience), h("td", {}, String(issuer.keys)),
    h("td", {}, issuer.rules.length
      ? h("ul", { class: "adm-rules" }, issuer.rules.map((rule) => h("li", {}, h("span", { class: "mono" }, describe(rule)),
        named(dangerButton("Remove", async () => {
          const query = new URLSearchParams({ issuer: issuer.issuer, claim: rule.claim, match: rule.match, role: rule.role, ...(rule.match === "any" ? {} : { value: rule.value }) });
          await request(`/admin/issuers/rules?${query}`, { method: "DELETE" });
          await redraw();
        }, status), `Remove the rule ${describe(rule)}`))))
      : h("span", { class: "muted" }, "no rules: its tokens get no role")),
    h("td", {}, named(dangerButton("Remove issuer", async () => {
      await request(`/admin/issuers?${new URLSearchParams({ issuer: issuer.issuer })}`, { method: "DELETE" });
      await redraw();
    }, status), `Remove the issuer ${issuer.issuer}`))));
  return h("div", {}, rows.length
    ? h("div", { class: "adm-scroll" }, h("table", { class: "adm-table adm-issuers" },
      h("thead", {}, h("tr", {}, ["Issuer", "Audience", "Keys", "Rules (claim → role)", ""].map((label) => h("th", { scope: "col" }, label)))),
      h("tbody", {}, rows)))
    : h("p", { class: "muted" }, "No trusted issuers: only Strata's own tokens are accepted."),
  status, h("div", { class: "adm-columns" }, issuerForm(redraw), ruleForm(issuers, redraw)));
}

/// A short visible label, and the whole of what it does for screen readers.
function named(button, label) {
  button.setAttribute("aria-label", label);
  return button;
}

function describe(rule) {
  const value = rule.match === "any" ? "any" : `${rule.match === "suffix" ? "ends with" : "="} ${rule.value}`;
  return `${rule.claim} ${value} → ${rule.role}${rule.allowUnverified ? " (unverified email too)" : ""}`;
}

/// Adds an issuer, or replaces the audience and keys of one (its rules stay unless the server says otherwise).
function issuerForm(redraw) {
  const [issuerField, issuer] = field("Issuer (the tokens' iss)", h("input", { name: "issuer", type: "url", autocomplete: "off", required: true }));
  const [audienceField, audience] = field("Audience (the tokens' aud)", h("input", { name: "audience", autocomplete: "off", required: true }));
  const [jwksField, jwks] = field("JWKS (the issuer's public keys, as JSON)", h("textarea", { name: "jwks", rows: 4, class: "mono", required: true }));
  const status = statusLine();
  const form = h("form", { class: "adm-form", "aria-label": "Trust an issuer" }, h("h3", {}, "Trust an issuer"),
    issuerField, audienceField, jwksField, h("button", { type: "submit" }, "Save issuer"), status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const ok = await run(status, async () => {
      await request("/admin/issuers", { method: "POST", body: { issuer: issuer.value.trim(), audience: audience.value.trim(), jwks: jwks.value } });
      return "Saved.";
    });
    if (ok) await redraw();
  });
  return form;
}

function ruleForm(issuers, redraw) {
  const [issuerField, issuer] = field("Issuer", h("select", { name: "rule-issuer" }, issuers.map((entry) => h("option", { value: entry.issuer }, entry.issuer))));
  const [claimField, claim] = field("Claim", h("input", { name: "claim", autocomplete: "off", required: true, value: "email" }));
  const [matchField, match] = field("Match", h("select", { name: "match" }, matches.map(([value, label]) => h("option", { value }, label))));
  const [valueField, value] = field("Value", h("input", { name: "value", autocomplete: "off" }));
  const [roleField, role] = field("Role (in every service)", h("input", { name: "rule-role", autocomplete: "off", required: true }));
  const status = statusLine();
  const form = h("form", { class: "adm-form", "aria-label": "Add a rule" }, h("h3", {}, "Add a rule"),
    issuerField, claimField, matchField, valueField, roleField, h("button", { type: "submit", disabled: issuers.length === 0 }, "Add rule"), status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const ok = await run(status, async () => {
      await request("/admin/issuers/rules", { method: "POST", body: { issuer: issuer.value, claim: claim.value.trim(), match: match.value,
        ...(match.value === "any" ? {} : { value: value.value }), role: role.value.trim() } });
      return "Added.";
    });
    if (ok) await redraw();
  });
  return form;
}
