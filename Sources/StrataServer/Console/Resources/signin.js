// Sign-in with a password; the token goes to this tab's sessionStorage (see api.js).
import { h, show } from "/console/dom.js";
import { request, signIn, startHostedSignIn, takeSignInMessage } from "/console/api.js";
import { errorBox, setCrumbs } from "/console/nav.js";

export default async function signInView(main, route, failure) {
  setCrumbs([["Sign in"]]);
  const user = h("input", { name: "username", autocomplete: "username", required: true });
  const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
  const message = h("div", { "aria-live": "polite" });
  const ended = failure ? failure.message : takeSignInMessage();
  if (ended) message.append(errorBox(new Error(ended)));
  const form = h("form", { class: "signin", onsubmit: async (event) => {
    event.preventDefault();
    message.replaceChildren();
    try {
      await signIn(user.value, password.value);
      location.hash = "#/";
    } catch (error) {
      message.replaceChildren(errorBox(error));
    }
  } },
  h("h1", {}, "Sign in"),
  h("label", {}, "User name", user),
  h("label", {}, "Password", password),
  h("button", { type: "submit" }, "Sign in"),
  message);
  const providers = await request("/auth/providers").then((answer) => answer.providers || []).catch(() => []);
  const hosted = providers.length === 0 ? null : h("section", { class: "providers", "aria-label": "Sign in with a provider" },
    h("p", { class: "muted" }, "or"),
    providers.map((provider) => h("button", { type: "button", class: "plain", name: `provider-${provider.name}`, onclick: async () => {
      try {
        await startHostedSignIn(provider.name);
      } catch (error) {
        message.replaceChildren(errorBox(error));
      }
    } }, `Sign in with ${provider.displayName || provider.name}`)));
  show(main, form, hosted);
  user.focus();
  document.body.dataset.loaded = String(Date.now());
}
