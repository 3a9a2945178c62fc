// The console's only way to the server: the public HTTP APIs any client uses, with the caller's
// token in the Authorization header. The token lives in this tab's sessionStorage: no cookie, so a
// page on another site cannot make the browser send it.
const key = "strata.console.session";

export function session() {
  const saved = JSON.parse(sessionStorage.getItem(key) || "null");
  if (saved && saved.expires > Date.now()) return saved;
  sessionStorage.removeItem(key);
  return null;
}

export function signOut() {
  sessionStorage.removeItem(key);
}

export class APIError extends Error {
  /// `target` names the property a V4 error is about, so a form can show it beside that field.
  constructor(status, message, target) {
    super(message);
    this.status = status;
    this.target = target || null;
  }
}

// V2's message is {"value": …}, V4's a string.
function messageOf(body, status) {
  const error = body && body.error;
  if (!error) return `The server answered ${status}.`;
  return typeof error.message === "string" ? error.message : (error.message && error.message.value) || `The server answered ${status}.`;
}

/// Calls the server as the signed-in caller. `exact` asks OData for Int64 and Decimal values as
/// strings both ways (IEEE754Compatible=true), so that a JavaScript number never rounds them.
export async function request(path, { method = "GET", body, headers = {}, exact = false } = {}) {
  const current = session();
  const json = exact ? "application/json;IEEE754Compatible=true" : "application/json";
  const sent = { Accept: json, "OData-MaxVersion": "4.0", ...headers };
  if (current) sent.Authorization = `Bearer ${current.token}`;
  if (body !== undefined) sent["Content-Type"] = json;
  const response = await fetch(path, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body), credentials: "omit" });
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = null; }
  if (!response.ok) {
    if (response.status === 401 && current) {
      signOut();
      endedSession = "Your session has ended (it expired, or was signed out elsewhere): sign in again.";
    }
    throw new APIError(response.status, messageOf(parsed, response.status), parsed && parsed.error && parsed.error.target);
  }
  return parsed === null ? text : parsed;
}

/// The Authorization header of the signed-in caller, for requests whose bodies are not JSON
/// (blob bytes, the `$feed` stream), which call fetch themselves.
export function authorization() {
  const current = session();
  return current ? { Authorization: `Bearer ${current.token}` } : {};
}

/// A refused response as an APIError with the server's message.
export async function failure(response) {
  const text = await response.text().catch(() => "");
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = null; }
  return new APIError(response.status, messageOf(parsed, response.status), parsed && parsed.error && parsed.error.target);
}

export async function signIn(username, password) {
  const answer = await request("/auth/token", { method: "POST", body: { username, password } });
  keep(answer, username);
}

function keep(answer, user) {
  const expires = Date.now() + (answer.expires_in || 3600) * 1000;
  sessionStorage.setItem(key, JSON.stringify({ token: answer.access_token, user, expires }));
}

// Why the last session ended or a sign-in failed, for the sign-in screen to say once.
let endedSession = null;
export function takeSignInMessage() {
  const message = endedSession;
  endedSession = null;
  return message;
}

// Hosted sign-in (OAuth 2 authorization code with PKCE, RFC 7636): the provider sends the browser
// back to /console/?code=…&state=…, registered as a redirect URI of a service
// (`strata service sign-in SERVICE --redirect-uri https://HOST/console/`).
const flowKey = "strata.console.signin";
const redirectURI = () => `${location.origin}/console/`;

function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export async function startHostedSignIn(provider) {
  if (!window.crypto || !crypto.subtle) {
    throw new APIError(400, "Signing in through a provider needs a secure page: open the console over https (or on 127.0.0.1).");
  }
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  sessionStorage.setItem(flowKey, JSON.stringify({ verifier, state }));
  const query = new URLSearchParams({ provider, redirect_uri: redirectURI(), code_challenge: challenge, code_challenge_method: "S256", state });
  location.assign(`/auth/authorize?${query}`);
}

/// Completes a hosted sign-in when the page is the provider's way back; true when it signed in.
export async function finishHostedSignIn() {
  const query = new URLSearchParams(location.search);
  if (!query.has("code") && !query.has("error")) return false;
  history.replaceState(null, "", "/console/#/");
  const flow = JSON.parse(sessionStorage.getItem(flowKey) || "null");
  sessionStorage.removeItem(flowKey);
  if (query.has("error")) throw new APIError(401, query.get("error_description") || `The sign-in was refused (${query.get("error")}).`);
  if (!flow || flow.state !== query.get("state")) throw new APIError(400, "This sign-in was not started in this tab: start it again.");
  const response = await fetch("/auth/token", {
    method: "POST", credentials: "omit",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    body: new URLSearchParams({ grant_type: "authorization_code", code: query.get("code"), code_verifier: flow.verifier, redirect_uri: redirectURI() }),
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok || !answer) throw new APIError(response.status, messageOf(answer, response.status));
  keep(answer, "");
  const who = await me();
  keep(answer, (who && who.subject) || "you");
  return true;
}

/// Who the signed-in caller is (`/auth/me`: subject, roles), asked once per sign-in.
let profile = null;
export async function me() {
  const current = session();
  if (!current) return null;
  if (profile && profile.token === current.token) return profile.answer;
  const answer = await request("/auth/me");
  profile = { token: current.token, answer };
  return answer;
}
