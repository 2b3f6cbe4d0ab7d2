// Who is playing: the nickname in the header with a link to my account, the guest / log in /
// register form, and logout.
import { api } from "./api.js";
import { h, mount, say } from "./dom.js";
import { t } from "./i18n.js";

export const session = { player: null, known: false };
const listeners = new Set();

export function onIdentityChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Change who is playing (after a sign-in, a sign-out, a new password) and tell the listeners. */
export function setPlayer(player) {
  session.player = player;
  session.known = true;
  for (const fn of listeners) fn(player);
}

export async function loadIdentity() {
  // The page says whether its session was signed in when served: a visitor without one is not
  // sent to /api/me/ for a 401 (which browsers log as an error in the console).
  const signedIn = document.querySelector('meta[name="signed-in"]');
  if (signedIn && signedIn.content === "no") {
    setPlayer(null);
    return session.player;
  }
  try {
    setPlayer(await api("GET", "/api/me/"));
  } catch (error) {
    if (error.status !== 401 && error.status !== 403) console.warn(error);
    setPlayer(null);
  }
  return session.player;
}

/** Render the header's identity area: the nickname and logout, or a sign-in form. */
export function renderIdentity(area) {
  if (session.player) {
    const logout = h("button", { type: "button", class: "link-button", id: "logout" }, t("Log out"));
    const panel = h("div", { class: "logout-panel", id: "logout-panel" });
    logout.addEventListener("click", () => {
      // A guest has no password: logging out loses the account unless one is set first.
      if (session.player.guest) guestLogoutPanel(panel);
      else logOut();
    });
    mount(
      area,
      h(
        "p",
        { class: "who" },
        t("Playing as "),
        h(
          "a",
          { href: `#/players/${encodeURIComponent(session.player.nickname)}`, id: "my-page", title: t("My page") },
          h("strong", { id: "nickname" }, session.player.nickname),
        ),
      ),
      // On a phone the link is a gear (its words for screen readers), so the header keeps one row.
      h(
        "a",
        { href: "#/account", id: "account-link", class: "account-link", title: t("My account") },
        h("span", { class: "account-icon", "aria-hidden": "true" }, "⚙"),
        h("span", { class: "account-words" }, t("My account")),
      ),
      logout,
      panel,
    );
    return;
  }
  mount(area, identityForm());
}

async function logOut() {
  try {
    await api("POST", "/api/auth/logout/");
  } catch (error) {
    console.warn(error);
  }
  setPlayer(null);
  location.hash = "#/";
}

/** Warn a guest before logging out, and offer to keep the account by setting a password. */
function guestLogoutPanel(panel) {
  const message = h("div", { class: "form-message", "aria-live": "assertive", id: "logout-message" });
  const password = h("input", {
    id: "keep-password",
    name: "password",
    type: "password",
    autocomplete: "new-password",
    minlength: 8,
    maxlength: 128,
    placeholder: t("New password"),
  });
  const keep = h("button", { type: "submit", id: "keep-account" }, t("Set the password and keep the account"));
  const leave = h("button", { type: "button", class: "secondary", id: "logout-anyway" }, t("Log out and lose the account"));
  const cancel = h("button", { type: "button", class: "link-button", id: "logout-cancel" }, t("Cancel"));
  const form = h(
    "form",
    { class: "keep-form", id: "keep-form", "aria-label": t("Keep this guest account") },
    h(
      "p",
      { class: "message warning", id: "guest-warning", role: "alert" },
      t("You are playing as a guest, with no password: once you log out, nobody can log back in to {nickname}, and its results cannot be claimed again. Set a password to keep it.", {
        nickname: session.player.nickname,
      }),
    ),
    h("label", { for: "keep-password", class: "visually-hidden" }, t("New password")),
    password,
    keep,
    leave,
    cancel,
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (password.value.length < 8) {
      say(message, t("A password has at least 8 characters."), "error");
      password.focus();
      return;
    }
    keep.disabled = true;
    try {
      const player = await api("POST", "/api/me/password/", { password: password.value });
      mount(panel);
      setPlayer(player); // the header is drawn again: the note goes in its new panel
      say(document.getElementById("logout-panel"), t("Password set: log in anywhere with {nickname} and this password.", { nickname: player.nickname }));
    } catch (error) {
      say(message, error.detail, "error");
      keep.disabled = false;
    }
  });
  leave.addEventListener("click", () => logOut());
  cancel.addEventListener("click", () => mount(panel));
  mount(panel, form);
  password.focus();
}

function identityForm() {
  const message = h("div", { class: "form-message", "aria-live": "assertive", id: "identity-message" });
  const nickname = h("input", {
    id: "identity-nickname",
    name: "nickname",
    autocomplete: "username",
    required: true,
    minlength: 3,
    maxlength: 24,
    pattern: "[A-Za-z0-9_\\-]{3,24}",
    placeholder: t("Nickname"),
  });
  const password = h("input", {
    id: "identity-password",
    name: "password",
    type: "password",
    autocomplete: "current-password",
    // The short word fits the field in every language; the whole hint is its tooltip.
    placeholder: t("Password"),
    title: t("Password (to log in or register)"),
  });
  const form = h(
    "form",
    { class: "identity-form", id: "identity-form", "aria-label": t("Choose a nickname or log in") },
    h("label", { for: "identity-nickname" }, t("Nickname")),
    nickname,
    h("button", { type: "submit", value: "guest", id: "play-as-guest" }, t("Play as guest")),
    h("label", { for: "identity-password", class: "visually-hidden" }, t("Password")),
    password,
    h("button", { type: "submit", value: "login", class: "secondary", id: "login" }, t("Log in")),
    h("button", { type: "submit", value: "register", class: "secondary", id: "register" }, t("Register")),
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const action = (event.submitter && event.submitter.value) || "guest";
    const name = nickname.value.trim();
    if (!name) {
      say(message, t("Pick a nickname: 3 to 24 letters, digits, _ or -."), "error");
      nickname.focus();
      return;
    }
    const body = { nickname: name };
    if (action !== "guest") {
      if (!password.value) {
        say(message, t("Type your password to log in or register."), "error");
        password.focus();
        return;
      }
      body.password = password.value;
    }
    for (const button of form.querySelectorAll("button")) button.disabled = true;
    try {
      const answer = await api("POST", `/api/auth/${action}/`, body);
      setPlayer(answer.player);
    } catch (error) {
      say(message, error.detail, "error");
      for (const button of form.querySelectorAll("button")) button.disabled = false;
    }
  });
  return form;
}

/** Point the player at the sign-in form when an action needs a player. */
export function askForIdentity(text) {
  const message = document.getElementById("identity-message");
  say(message, text || t("Pick a nickname first (or log in)."), "error");
  document.getElementById("identity-nickname")?.focus();
}
