// The client's words in the reader's language, gettext-style: the English text is the key.
//
// The page embeds the catalogue of its language (chosen by the server from the language cookie or
// the browser's Accept-Language) as <script id="i18n-catalogue" type="application/json">, a map of
// English text to translation. A text missing from it reads in English.

function readCatalogue() {
  const node = document.getElementById("i18n-catalogue");
  if (!node) return {};
  try {
    const parsed = JSON.parse(node.textContent || "{}");
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

const catalogue = readCatalogue();

/** The page's language code ("en", "fr", "es"), as the server chose it. */
export const language = document.documentElement.lang || "en";

/** Translate `text`, then put `params` in its {name} places: t("Rank {rank}", {rank: 3}). */
export function t(text, params = {}) {
  const translated = Object.hasOwn(catalogue, text) ? catalogue[text] : text;
  return translated.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** Like t(), picking the singular or the plural text by `count` (also passed as {count}). */
export function tn(singular, plural, count, params = {}) {
  // French takes the singular for 0 and 1, English and Spanish for 1 only.
  const one = language.startsWith("fr") ? Math.abs(count) < 2 : count === 1;
  const form = one ? singular : plural;
  return t(form, { count, ...params });
}
