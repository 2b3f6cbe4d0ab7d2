// My account (#/account): the nickname, setting or changing the password, the API tokens (end one,
// end all), downloading my data, signing out everywhere and deleting the account.
import { ApiError, api } from "./api.js";
import { h, mount, say } from "./dom.js";
import { language, t } from "./i18n.js";
import { askForIdentity, session, setPlayer } from "./identity.js";

// A note to show once the page is drawn again for the changed player (setting a password redraws it).
let pendingNote = null;

function when(iso) {
  if (!iso) return t("never");
  return new Date(iso).toLocaleString(language, { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
}

function section(id, title, ...children) {
  return h("section", { class: "account-section", id, "aria-labelledby": `${id}-title` }, h("h2", { id: `${id}-title` }, title), children);
}

function passwordField(id, label, autocomplete) {
  const input = h("input", { id, name: id, type: "password", autocomplete, minlength: 8, maxlength: 128, required: true });
  return { input, row: h("div", { class: "account-field" }, h("label", { for: id }, label), input) };
}

function passwordSection(player) {
  const message = h("div", { class: "form-message", "aria-live": "assertive", id: "password-message" });
  const current = player.guest ? null : passwordField("current-password", t("Current password"), "current-password");
  const fresh = passwordField("new-password", t("New password"), "new-password");
  const submit = h("button", { type: "submit", id: "password-submit" }, player.guest ? t("Set the password") : t("Change the password"));
  const form = h(
    "form",
    { class: "account-form", id: "password-form" },
    h(
      "p",
      {},
      player.guest
        ? t("You play as a guest, with no password: set one to log in anywhere with your nickname and keep the account.")
        : t("Your other browsers are signed out when the password changes; your API tokens stay."),
    ),
    current && current.row,
    fresh.row,
    h("div", { class: "account-buttons" }, submit),
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { password: fresh.input.value };
    if (current) body.current_password = current.input.value;
    submit.disabled = true;
    try {
      const updated = await api("POST", "/api/me/password/", body);
      pendingNote = player.guest ? t("Password set: log in anywhere with {nickname} and this password.", { nickname: updated.nickname }) : t("Password changed.");
      setPlayer(updated); // the page is drawn again, and shows the note
    } catch (error) {
      say(message, error.detail, "error");
      submit.disabled = false;
      (error.body.field === "current_password" && current ? current.input : fresh.input).focus();
    }
  });
  return section("account-password", player.guest ? t("Set a password") : t("Change the password"), form);
}

function tokensSection() {
  const message = h("div", { class: "form-message", "aria-live": "polite", id: "tokens-message" });
  const list = h("ul", { class: "token-list", id: "token-list" });
  const endAll = h("button", { type: "button", class: "secondary", id: "end-all-tokens" }, t("End every token"));
  const load = async () => {
    try {
      const { tokens } = await api("GET", "/api/me/tokens/");
      endAll.disabled = !tokens.length;
      if (!tokens.length) {
        mount(list, h("li", { class: "empty" }, t("No token: none is live.")));
        return;
      }
      mount(list, tokens.map((token) => tokenItem(token)));
    } catch (error) {
      say(message, error.detail, "error");
    }
  };
  const tokenItem = (token) => {
    const end = h("button", { type: "button", class: "secondary end-token", "data-token": token.id }, t("End it"));
    end.addEventListener("click", async () => {
      end.disabled = true;
      try {
        await api("DELETE", `/api/me/tokens/${token.id}/`);
        await load();
        say(message, t("The token is ended."));
      } catch (error) {
        say(message, error.detail, "error");
        end.disabled = false;
      }
    });
    return h(
      "li",
      { class: "token", "data-token": token.id },
      h(
        "dl",
        {},
        h("div", {}, h("dt", {}, t("Made")), h("dd", {}, when(token.created_at))),
        h("div", {}, h("dt", {}, t("Expires")), h("dd", {}, when(token.expires_at))),
        h("div", {}, h("dt", {}, t("Last used")), h("dd", {}, when(token.last_used_at))),
      ),
      token.current ? h("strong", { class: "this-token" }, t("this one")) : null,
      end,
    );
  };
  endAll.addEventListener("click", async () => {
    endAll.disabled = true;
    try {
      await api("DELETE", "/api/me/tokens/");
      await load();
      say(message, t("Every token is ended."));
    } catch (error) {
      say(message, error.detail, "error");
      endAll.disabled = false;
    }
  });
  load();
  return section(
    "account-tokens",
    t("API tokens"),
    h("p", {}, t("Each sign-in makes a token, which a program can use to play for you for 90 days. Ending one signs that program out; this browser stays signed in.")),
    list,
    h("div", { class: "account-buttons" }, endAll),
    message,
  );
}

function exportSection(player) {
  const message = h("div", { class: "form-message", "aria-live": "polite", id: "export-message" });
  const button = h("button", { type: "button", class: "secondary", id: "export-data" }, t("Download my data"));
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const response = await fetch("/api/me/export/", { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!response.ok) {
        let body = null;
        try {
          body = await response.json();
        } catch {
          body = null;
        }
        throw new ApiError(response.status, body);
      }
      const url = URL.createObjectURL(await response.blob());
      const link = h("a", { href: url, download: `daily-patience-${player.nickname}.json`, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      say(message, error instanceof ApiError ? error.detail : t("The server cannot be reached."), "error");
    } finally {
      button.disabled = false;
    }
  });
  return section(
    "account-export",
    t("My data"),
    h("p", {}, t("Everything kept about you, as one JSON file: the account, its tokens, your games with their moves, and your results.")),
    h("div", { class: "account-buttons" }, button),
    message,
  );
}

function everywhereSection() {
  const message = h("div", { class: "form-message", "aria-live": "assertive", id: "everywhere-message" });
  const panel = h("div", { class: "account-confirm", id: "everywhere-confirm" });
  const ask = h("button", { type: "button", class: "secondary", id: "sign-out-everywhere" }, t("Sign out everywhere"));
  ask.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "danger", id: "everywhere-yes" }, t("Sign out everywhere"));
    const no = h("button", { type: "button", class: "secondary", id: "everywhere-no" }, t("Cancel"));
    yes.addEventListener("click", async () => {
      yes.disabled = true;
      try {
        await api("POST", "/api/auth/logout/", { everywhere: true });
        location.hash = "#/";
        setPlayer(null);
      } catch (error) {
        say(message, error.detail, "error");
        yes.disabled = false;
      }
    });
    no.addEventListener("click", () => {
      mount(panel);
      ask.hidden = false;
      ask.focus();
    });
    ask.hidden = true;
    mount(
      panel,
      h("p", { class: "message warning" }, t("Every browser and every program signed in as you will be signed out, this one included, and every token ends.")),
      h("div", { class: "account-buttons" }, yes, no),
    );
    no.focus();
  });
  return section(
    "account-everywhere",
    t("Sign out everywhere"),
    h("p", {}, t("A lost phone, a shared computer: end every session and every token of the account at once.")),
    h("div", { class: "account-buttons" }, ask),
    panel,
    message,
  );
}

function deleteSection(player) {
  const panel = h("div", { class: "account-confirm", id: "delete-panel" });
  const ask = h("button", { type: "button", class: "danger", id: "delete-account" }, t("Delete my account…"));
  ask.addEventListener("click", () => {
    const message = h("div", { class: "form-message", "aria-live": "assertive", id: "delete-message" });
    const confirm = h("input", { id: "delete-confirm", name: "confirm", autocomplete: "off", autocapitalize: "off", spellcheck: "false", required: true });
    const password = player.guest ? null : passwordField("delete-password", t("Your password"), "current-password");
    const yes = h("button", { type: "submit", class: "danger", id: "delete-yes" }, t("Delete the account"));
    const no = h("button", { type: "button", class: "secondary", id: "delete-no" }, t("Cancel"));
    const form = h(
      "form",
      { class: "account-form", id: "delete-form" },
      h("div", { class: "account-field" }, h("label", { for: "delete-confirm" }, t("Type your nickname, {nickname}, to confirm", { nickname: player.nickname })), confirm),
      password && password.row,
      h("div", { class: "account-buttons" }, yes, no),
      message,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = { confirm: confirm.value };
      if (password) body.password = password.input.value;
      yes.disabled = true;
      try {
        await api("DELETE", "/api/me/", body);
        location.hash = "#/";
        setPlayer(null);
      } catch (error) {
        say(message, error.detail, "error");
        yes.disabled = false;
        (error.body.field === "password" && password ? password.input : confirm).focus();
      }
    });
    no.addEventListener("click", () => {
      mount(panel);
      ask.hidden = false;
      ask.focus();
    });
    ask.hidden = true;
    mount(panel, form);
    confirm.focus();
  });
  return section(
    "account-delete",
    t("Delete my account"),
    h(
      "p",
      {},
      t("Deleting the account signs you out everywhere, deletes your practice games and frees the nickname. Your results on past and present daily deals stay on the boards, anonymised: they show a name like deleted-1a2b3c4d5e6f instead of yours, so nobody's rank changes. This cannot be undone."),
    ),
    h("div", { class: "account-buttons" }, ask),
    panel,
  );
}

/** Draw the account page of the signed-in player; a visitor is asked to sign in. */
export async function accountView(root) {
  const player = session.player;
  if (!player) {
    mount(root, h("section", { class: "account" }, h("h1", {}, t("My account")), h("p", {}, t("Sign in to see your account."))));
    askForIdentity(t("Pick a nickname first (or log in)."));
    return null;
  }
  const note = h("div", { class: "form-message", "aria-live": "polite", id: "account-note" });
  mount(
    root,
    h(
      "section",
      { class: "account" },
      h("h1", {}, t("My account")),
      h(
        "p",
        { class: "account-who" },
        t("Nickname: "),
        h("strong", { id: "account-nickname" }, player.nickname),
        " ",
        h("span", { class: "account-kind", id: "account-kind" }, player.guest ? t("(a guest: no password)") : t("(with a password)")),
      ),
      note,
      passwordSection(player),
      tokensSection(),
      exportSection(player),
      everywhereSection(),
      deleteSection(player),
    ),
  );
  if (pendingNote) {
    say(note, pendingNote);
    pendingNote = null;
  }
  return null;
}
