// Drawing cards in HTML/CSS: rank + suit symbol, red for diamonds and hearts, a back for null.
import { t } from "./i18n.js";

export const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
// The letters of a card's corner in the reader's language (V, D, R in French).
function rankLetter(rank) {
  return { T: "10", J: t("J"), Q: t("Q"), K: t("K") }[rank] || rank;
}

function suitName(suit) {
  return { C: t("clubs"), D: t("diamonds"), H: t("hearts"), S: t("spades") }[suit];
}

function rankName(rank) {
  return { A: t("ace"), J: t("jack"), Q: t("queen"), K: t("king"), T: "10" }[rank] || rank;
}

export function isRed(code) {
  return code[1] === "D" || code[1] === "H";
}

/** "7♥" for "7H". */
export function cardShort(code) {
  if (!code) return t("face-down card");
  return rankLetter(code[0]) + SUIT_SYMBOLS[code[1]];
}

/** "7 of hearts" for "7H", for screen readers. */
export function cardName(code) {
  if (!code) return t("face-down card");
  return t("{rank} of {suit}", { rank: rankName(code[0]), suit: suitName(code[1]) });
}

/** Turn card codes inside a server sentence into symbols: "7H cannot go on 9C" → "7♥ cannot go on 9♣". */
export function prettyCards(text) {
  return String(text).replace(/\b([A2-9TJQK])([CDHS])\b/g, (_, rank, suit) => cardShort(rank + suit));
}

/**
 * Return the face (or back) of a card as an element.
 * `interactive` makes it a <button>; a face-down card never carries its identity.
 */
export function cardElement(code, { interactive = false, label = "" } = {}) {
  const tag = interactive ? "button" : "div";
  const el = document.createElement(tag);
  if (interactive) el.type = "button";
  if (!code) {
    el.className = "card back";
    el.setAttribute("aria-label", label || t("face-down card"));
    if (!interactive) el.setAttribute("role", "img");
    return el;
  }
  const rank = rankLetter(code[0]);
  const suit = SUIT_SYMBOLS[code[1]];
  el.className = `card face ${isRed(code) ? "red" : "black"}`;
  el.dataset.card = code;
  el.setAttribute("aria-label", label || cardName(code));
  if (!interactive) el.setAttribute("role", "img");
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.setAttribute("aria-hidden", "true");
  corner.append(rank, document.createElement("br"), suit);
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.setAttribute("aria-hidden", "true");
  pip.textContent = suit;
  const low = corner.cloneNode(true);
  low.className = "corner low";
  el.append(corner, pip, low);
  return el;
}
