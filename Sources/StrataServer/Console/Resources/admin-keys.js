// Token signing keys (list, rotate), hosted sign-in's identity providers (secrets write-only:
// never shown, a field replaces one), each service's sign-in settings, and trusted issuers
// (admin-issuers.js).
import { h } from "/console/dom.js";
import { request } from "/console/api.js";
import { dangerButton, field, run, statusLine } from "/console/admin-ui.js";
import { issuersSection } from "/console/admin-issuers.js";

const time = (seconds) => seconds === null || seconds === undefined ? "—" : new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 16);

export default async function keys(body) {
  const [ring, providers, signIn, issuers] = await Promise.all([request("/admin/keys"), request("/admin/providers"), request("/admin/sign-in"),
    request("/admin/issuers")]);
  const redraw = () => keys(body);
  const status = statusLine();
  const [algorithmField, algorithm] = field("Algorithm of the new key", h("select", { name: "algorithm" }, ["HS256", "ES256"].map((value) => h("option", { value }, value))));
  const keyTable = h("div", { class: "adm-scroll" }, h("table", { class: "adm-table adm-keys" },
    h("thead", {}, h("tr", {}, ["Key id", "Algorithm", "Created", "Retired", "Verifies until"].map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, (ring.keys || []).map((key) => h("tr", { "data-kid": key.kid, class: key.retired ? "muted" : undefined },
      h("td", { class: "mono" }, key.kid), h("td", {}, key.algorithm), h("td", {}, time(key.created)),
      h("td", {}, key.retired ? time(key.retired) : "signing"), h("td", {}, time(key.verifiesUntil)))))));
  const rotate = h("div", { class: "adm-inline" }, algorithmField,
    dangerButton("Rotate signing key", async () => {
      const answer = await request("/admin/keys/rotate", { method: "POST", body: { algorithm: algorithm.value } });
      await redraw();
      return `New key ${answer.keys?.[0]?.kid || ""}.`;
    }, status, "rotate"));

  body.replaceChildren(
    h("h2", {}, "Signing keys"), h("p", { class: "muted" }, "Tokens are signed with the newest key; retired keys still verify the tokens they signed until they expire."),
    keyTable, rotate, status,
    h("h2", {}, "Identity providers"), providersSection(providers.providers || [], redraw),
    h("h2", {}, "Sign-in settings"), ...(signIn.services || []).map(signInForm),
    h("h2", {}, "Trusted issuers"), h("p", { class: "muted" }, "Tokens from other systems that Strata accepts, with rules that give their holders roles."),
    issuersSection(issuers.issuers || [], redraw));
}

function providersSection(providers, redraw) {
  const status = statusLine();
  const rows = providers.map((provider) => h("tr", {},
    h("th", { scope: "row" }, provider.displayName || provider.name), h("td", {}, provider.kind), h("td", { class: "mono" }, provider.issuer),
    h("td", {}, provider.clientId), h("td", {}, provider.hasSecret ? "stored (hidden)" : "none"),
    h("td", {}, dangerButton(`Remove ${provider.name}`, async () => {
      await request(`/admin/providers?${new URLSearchParams({ name: provider.name })}`, { method: "DELETE" });
      await redraw();
    }, status))));
  const [nameField, name] = field("Name", h("input", { name: "name", autocomplete: "off", required: true, list: "adm-provider-names" }));
  const [issuerField, issuer] = field("Issuer URL", h("input", { name: "issuer", type: "url", autocomplete: "off", required: true }));
  const [clientField, client] = field("Client id", h("input", { name: "clientId", autocomplete: "off", required: true }));
  const [secretField, secret] = field("Client secret (write-only; empty keeps the stored one)", h("input", { name: "clientSecret", type: "password", autocomplete: "off" }));
  // The rest of a provider: saving replaces the whole provider, so every field is on the form and
  // filled from the stored one, or a save from here would drop its scopes, endpoints and rules.
  const [kindField, kind] = field("Kind", h("select", { name: "kind" }, h("option", { value: "oidc" }, "OpenID Connect (discovery)"), h("option", { value: "oauth2" }, "OAuth 2 (endpoints below)")));
  const [displayField, display] = field("Display name", h("input", { name: "displayName", autocomplete: "off" }));
  const [scopesField, scopes] = field("Scopes (space-separated)", h("input", { name: "scopes", autocomplete: "off", value: "openid profile email" }));
  const [iconField, icon] = field("Icon URL", h("input", { name: "icon", type: "url", autocomplete: "off" }));
  const [authField, auth] = field("Authorization endpoint (OAuth 2)", h("input", { name: "authorizationEndpoint", type: "url", autocomplete: "off" }));
  const [tokenField, token] = field("Token endpoint (OAuth 2)", h("input", { name: "tokenEndpoint", type: "url", autocomplete: "off" }));
  const [userInfoField, userInfo] = field("User info endpoint (OAuth 2)", h("input", { name: "userInfoEndpoint", type: "url", autocomplete: "off" }));
  const [rulesField, rules] = field("Role rules (one a line, as: email suffix @example.org editor@service)", h("textarea", { name: "rules", rows: 3, class: "mono" }));
  const [claimsField, claims] = field("Claims passed on (one a line, as: pass email)", h("textarea", { name: "claims", rows: 2, class: "mono" }));
  const passToken = h("input", { type: "checkbox", name: "passProviderToken", id: "adm-pass-token" });
  const passField = h("div", { class: "adm-field" }, h("label", { for: "adm-pass-token" }, passToken, " Pass the provider's token on to the service"));
  const more = h("details", {}, h("summary", {}, "More: kind, scopes, endpoints, role rules"),
    kindField, displayField, scopesField, iconField, authField, tokenField, userInfoField, rulesField, claimsField, passField);
  const formStatus = statusLine();
  const form = h("form", { class: "adm-form", "aria-label": "Add or change a provider" }, h("h3", {}, "Add or change a provider"),
    h("datalist", { id: "adm-provider-names" }, providers.map((provider) => h("option", { value: provider.name }))),
    nameField, issuerField, clientField, secretField, more, h("button", { type: "submit" }, "Save provider"), formStatus);
  // Choosing an existing name fills its public fields, never its secret.
  name.addEventListener("change", () => {
    const provider = providers.find((candidate) => candidate.name === name.value.trim());
    if (!provider) return;
    issuer.value = provider.issuer; client.value = provider.clientId; kind.value = provider.kind;
    display.value = provider.displayName || ""; scopes.value = (provider.scopes || []).join(" "); icon.value = provider.icon || "";
    auth.value = provider.authorizationEndpoint || ""; token.value = provider.tokenEndpoint || ""; userInfo.value = provider.userInfoEndpoint || "";
    rules.value = (provider.rules || []).join("\n"); claims.value = (provider.claims || []).join("\n"); passToken.checked = !!provider.passProviderToken;
  });
  const lines = (text) => text.split("\n").map((line) => line.trim()).filter(Boolean);
  const optional = (key, control) => (control.value.trim() ? { [key]: control.value.trim() } : {});
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const ok = await run(formStatus, async () => {
      await request("/admin/providers", { method: "POST", body: {
        name: name.value.trim(), issuer: issuer.value.trim(), clientId: client.value.trim(), kind: kind.value,
        rules: lines(rules.value), claims: lines(claims.value),
        // No scopes given: the server's default (openid profile email), not an empty list.
        ...(scopes.value.trim() ? { scopes: scopes.value.trim().split(/\s+/) } : {}),
        passProviderToken: passToken.checked,
        ...optional("displayName", display), ...optional("icon", icon), ...optional("authorizationEndpoint", auth),
        ...optional("tokenEndpoint", token), ...optional("userInfoEndpoint", userInfo),
        ...(secret.value ? { clientSecret: secret.value } : {}) } });
      secret.value = "";
      return "Saved.";
    });
    if (ok) await redraw();
  });
  return h("div", {}, rows.length
    ? h("div", { class: "adm-scroll" }, h("table", { class: "adm-table" },
      h("thead", {}, h("tr", {}, ["Provider", "Kind", "Issuer", "Client id", "Secret", ""].map((label) => h("th", { scope: "col" }, label)))),
      h("tbody", {}, rows)))
    : h("p", { class: "muted" }, "No identity providers: accounts sign in with a password."), status, form);
}

function signInForm(settings) {
  const service = settings.service;
  const [urisField, uris] = field(`Redirect URIs of ${service} (one a line)`, h("textarea", { name: "redirectUris", rows: 2, class: "mono" }));
  uris.value = (settings.redirectUris || []).join("\n");
  const [signUpField, signUp] = field("Visitors may sign up", h("input", { type: "checkbox", name: "signUp", checked: settings.signUp }));
  const [roleField, role] = field("Role of new accounts", h("input", { name: "signUpRole", autocomplete: "off", value: settings.signUpRole || "", class: "adm-narrow" }));
  const status = statusLine();
  const form = h("form", { class: "adm-form", "aria-label": `Sign-in settings of ${service}` }, h("h3", {}, service),
    urisField, h("div", { class: "adm-inline" }, signUpField, roleField), h("button", { type: "submit" }, `Save sign-in of ${service}`), status);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(status, async () => {
      await request("/admin/sign-in", { method: "PUT", body: { service, redirectUris: uris.value.split("\n").map((uri) => uri.trim()).filter(Boolean),
        signUp: signUp.checked, signUpRole: role.value.trim() || null } });
      return "Saved.";
    });
  });
  return form;
}
