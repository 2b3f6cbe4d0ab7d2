// The choices this browser remembers (localStorage): the table's assists, the looks (looks.js puts
// them on the page), sounds and notifications. A private window may refuse storage: a choice then
// holds only for the page.
export const AUTO_KEY = "daily-patience:auto-foundations";
export const ONE_CLICK_KEY = "daily-patience:one-click";
// Finishing a game whose last moves all go home: on unless the browser stored "off".
export const FINISH_KEY = "daily-patience:auto-finish";
// A notification when the next deal is ready (webapp.js): off until the player asks for it.
export const NOTIFY_KEY = "daily-patience:notify";
// Sounds of the table (sounds.js): off until the player turns them on.
export const SOUNDS_KEY = "daily-patience:sounds";
// The looks (looks.js): "light", "dark" or none (the system's); "four" or none; "large" or none.
export const THEME_KEY = "daily-patience:theme";
export const DECK_KEY = "daily-patience:deck";
export const CARDS_KEY = "daily-patience:cards";

/** Read a yes/no preference of this browser; `fallback` when unset or storage is refused. */
export function preference(key, fallback) {
  try {
    const value = localStorage.getItem(key);
    return value === null ? fallback : value === "on";
  } catch {
    return fallback;
  }
}

export function setPreference(key, on) {
  try {
    localStorage.setItem(key, on ? "on" : "off");
  } catch {
    // Private windows may refuse storage: the choice then holds only for this page.
  }
}

export const autoEnabled = () => preference(AUTO_KEY, false);
export const oneClickEnabled = () => preference(ONE_CLICK_KEY, true);
export const finishEnabled = () => preference(FINISH_KEY, true);

/** Read a choice of this browser among words (the looks); null when unset or storage is refused. */
export function choice(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Remember a choice among words, or forget it (null: the default). */
export function setChoice(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Storage refused: the choice holds only for this page.
  }
}
