// Sign-in with a password; the token goes to this tab's sessionStorage (see api.js).
import { h, show } from "/console/dom.js";
import { signIn } from "/console/api.js";
import { errorBox, setCrumbs } from "/console/nav.js";

export default async function signInView(main) {
  setCrumbs([["Sign in"]]);
  const user = h("input", { name: "username", autocomplete: "username", required: true });
  const password = h("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
  const message = h("div", { "aria-live": "polite" });
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
  show(main, form);
  user.focus();
}
