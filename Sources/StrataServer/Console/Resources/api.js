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

export async function request(path, { method = "GET", body, headers = {} } = {}) {
  const current = session();
  const sent = { Accept: "application/json", "OData-MaxVersion": "4.0", ...headers };
  if (current) sent.Authorization = `Bearer ${current.token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body), credentials: "omit" });
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = null; }
  if (!response.ok) {
    if (response.status === 401 && current) signOut();
    throw new APIError(response.status, messageOf(parsed, response.status), parsed && parsed.error && parsed.error.target);
  }
  return parsed === null ? text : parsed;
}

export async function signIn(username, password) {
  const answer = await request("/auth/token", { method: "POST", body: { username, password } });
  const expires = Date.now() + (answer.expires_in || 3600) * 1000;
  sessionStorage.setItem(key, JSON.stringify({ token: answer.access_token, user: username, expires }));
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
