// The looks this browser chose (settings.js), put on <html> before the page is drawn: a classic
// script in the head, so that a light page never flashes dark. `data-theme` is the theme in force
// ("light" or "dark": the system's, unless the player chose one), `data-deck="four"` a four-colour
// deck, `data-cards="large"` larger cards. Drawn again on a `looks-change` event of the document
// (settings.js) and when the system's preference changes.
(() => {
  const root = document.documentElement;
  const light = window.matchMedia("(prefers-color-scheme: light)");
  const stored = (key) => {
    try {
      return localStorage.getItem(`daily-patience:${key}`);
    } catch {
      return null; // storage refused (a private window): the defaults
    }
  };
  const apply = () => {
    const chosen = stored("theme");
    const theme = chosen === "light" || chosen === "dark" ? chosen : light.matches ? "light" : "dark";
    root.dataset.theme = theme;
    if (stored("deck") === "four") root.dataset.deck = "four";
    else delete root.dataset.deck;
    if (stored("cards") === "large") root.dataset.cards = "large";
    else delete root.dataset.cards;
    const color = document.querySelector('meta[name="theme-color"]');
    if (color) color.content = theme === "light" ? "#e4ede6" : "#0b5d3b";
  };
  apply();
  light.addEventListener("change", apply);
  document.addEventListener("looks-change", apply);
})();
