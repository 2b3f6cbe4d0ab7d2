// The home page's games by family: a row of buttons that shows all the games, mine (those I have
// played), or one family's (the `family` of GET /api/variants/, read from each rules document).
// This browser remembers the choice.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { choice, setChoice } from "./preferences.js";

export const FILTER_KEY = "daily-patience:home-filter";

// The families in the order of the row; one the server adds later comes after them, by its code.
const FAMILY_NAMES = {
  klondike: () => t("Klondike"),
  freecell: () => t("FreeCell"),
  spider: () => t("Spider"),
  yukon: () => t("Yukon"),
  canfield: () => t("Canfield"),
  golf: () => t("Golf and Pyramid"),
  other: () => t("Other games"),
};

/** The name of a family, as the row and each game's card show it. */
export function familyName(family) {
  return Object.hasOwn(FAMILY_NAMES, family) ? FAMILY_NAMES[family]() : family;
}

function shows(item, value) {
  if (value === "all") return true;
  if (value === "mine") return item.dataset.mine === "yes";
  return item.dataset.family === value;
}

/**
 * Return the row of filter buttons for the games' cards `items` (each with `data-family` and
 * `data-mine`), already applied to them; null when there is nothing to choose between.
 */
export function gameFilter(items) {
  const families = [...new Set(items.map((item) => item.dataset.family))];
  const known = Object.keys(FAMILY_NAMES);
  families.sort((a, b) => {
    const [i, j] = [known.indexOf(a), known.indexOf(b)];
    return (i < 0 ? known.length : i) - (j < 0 ? known.length : j) || a.localeCompare(b);
  });
  const mine = items.filter((item) => item.dataset.mine === "yes").length;
  const values = [["all", t("All games"), items.length]];
  if (mine) values.push(["mine", t("Mine"), mine]);
  for (const family of families) {
    values.push([family, familyName(family), items.filter((item) => item.dataset.family === family).length]);
  }
  if (values.length < 3) return null; // one family and none played: the list is all there is
  const buttons = values.map(([value, label, count]) =>
    h(
      "button",
      { type: "button", class: "filter", dataset: { filter: value } },
      label,
      " ",
      h("span", { class: "filter-count" }, count),
    ),
  );
  const apply = (value) => {
    for (const button of buttons) button.setAttribute("aria-pressed", String(button.dataset.filter === value));
    for (const item of items) item.hidden = !shows(item, value);
  };
  for (const button of buttons) {
    button.addEventListener("click", () => {
      apply(button.dataset.filter);
      setChoice(FILTER_KEY, button.dataset.filter === "all" ? null : button.dataset.filter);
    });
  }
  const remembered = choice(FILTER_KEY);
  apply(values.some(([value]) => value === remembered) ? remembered : "all");
  return h("div", { class: "game-filter", role: "group", "aria-label": t("Show games"), id: "game-filter" }, buttons);
}
