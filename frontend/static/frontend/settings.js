// The settings of this browser, behind one button of the header on every page (a phone's too):
// the theme (the system's, light or dark), a four-colour deck, larger cards, sounds, and a
// notification when the next deal is ready. Each is remembered here (preferences.js) and takes
// effect at once: looks.js puts the looks on the page, and the board is fitted again.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { CARDS_KEY, DECK_KEY, NOTIFY_KEY, SOUNDS_KEY, THEME_KEY, choice, preference, setChoice, setPreference } from "./preferences.js";
import { playSound, soundsPossible } from "./sounds.js";

function looksChanged({ refit = false } = {}) {
  document.dispatchEvent(new Event("looks-change"));
  // The board's cards are sized by script (board.js): a resize fits them again.
  if (refit) window.dispatchEvent(new Event("resize"));
}

function checkbox(id, label, checked, onChange, hint = null) {
  const box = h("input", { type: "checkbox", id, checked });
  box.addEventListener("change", () => onChange(box));
  return h("div", { class: "setting" }, h("label", { for: id }, box, " ", label), hint ? h("p", { class: "setting-hint", id: `${id}-hint` }, hint) : null);
}

function themeChoice() {
  const current = choice(THEME_KEY) || "system";
  const options = [
    ["system", t("As the system")],
    ["light", t("Light")],
    ["dark", t("Dark")],
  ];
  return h(
    "fieldset",
    { class: "setting theme-choice" },
    h("legend", {}, t("Theme")),
    options.map(([value, label]) => {
      const radio = h("input", { type: "radio", name: "theme", id: `theme-${value}`, value, checked: value === current });
      radio.addEventListener("change", () => {
        setChoice(THEME_KEY, value === "system" ? null : value);
        looksChanged();
      });
      return h("label", { for: `theme-${value}` }, radio, " ", label);
    }),
  );
}

function notifySetting() {
  if (!("Notification" in window)) return null;
  const hint = () =>
    Notification.permission === "denied" ? t("This browser blocks notifications from this site: allow them in its settings.") : t("Besides the notice in the page.");
  const setting = checkbox(
    "setting-notify",
    t("Notify me when the next deal is ready"),
    preference(NOTIFY_KEY, false) && Notification.permission === "granted",
    async (box) => {
      if (box.checked && Notification.permission !== "granted") {
        let answer = "denied";
        try {
          answer = await Notification.requestPermission();
        } catch {
          answer = "denied";
        }
        box.checked = answer === "granted";
      }
      setPreference(NOTIFY_KEY, box.checked);
      const note = setting.querySelector(".setting-hint");
      if (note) note.textContent = hint();
    },
    hint(),
  );
  return setting;
}

/** Draw the settings button and its panel into `area` (the header); return the element. */
export function renderSettings(area) {
  const panel = h(
    "div",
    { class: "settings-panel", id: "settings-panel" },
    themeChoice(),
    checkbox("setting-deck", t("Four-colour deck (♦ blue, ♣ green)"), choice(DECK_KEY) === "four", (box) => {
      setChoice(DECK_KEY, box.checked ? "four" : null);
      looksChanged();
    }),
    checkbox("setting-cards", t("Larger cards"), choice(CARDS_KEY) === "large", (box) => {
      setChoice(CARDS_KEY, box.checked ? "large" : null);
      looksChanged({ refit: true });
    }),
    soundsPossible()
      ? checkbox("setting-sounds", t("Sounds"), preference(SOUNDS_KEY, false), (box) => {
          setPreference(SOUNDS_KEY, box.checked);
          if (box.checked) playSound("move"); // what they sound like, and the audio unlocked
        })
      : null,
    notifySetting(),
    h("p", { class: "setting-hint" }, t("Remembered by this browser.")),
  );
  const details = h(
    "details",
    { class: "settings", id: "settings" },
    h("summary", { id: "settings-button" }, h("span", { "aria-hidden": "true" }, "⚙"), t("Settings")),
    panel,
  );
  // The panel opens just under its button, wherever the header's lines put it.
  details.addEventListener("toggle", () => {
    if (details.open) panel.style.top = `${Math.round(details.querySelector("summary").getBoundingClientRect().bottom + 6)}px`;
  });
  // Escape, or a click elsewhere, closes the panel.
  details.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && details.open) {
      details.open = false;
      details.querySelector("summary").focus();
    }
  });
  document.addEventListener("pointerdown", (event) => {
    if (details.open && !details.contains(event.target)) details.open = false;
  });
  area.replaceChildren(details);
  return details;
}
