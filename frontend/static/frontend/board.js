// The board of a game: piles drawn from `game.state.piles`, tableau fans fitted to the window.
import { cardElement, cardName } from "./cards.js";
import { h } from "./dom.js";

export const CARD_W = 72;
export const CARD_H = 100;
const FAN_UP = 32; // vertical step of a face-up card in a tableau fan
const FAN_DOWN = 12; // vertical step of a face-down card
const FAN_MIN = 15; // never squeeze a face-up step below this: the rank must stay readable
const ROW_STEP = 21; // horizontal step of an open reserve fan (Castile)
const ROW_FAN_MAX = 12; // a reserve with more cards than this is drawn as a stack with a count

export function pileKind(id) {
  return id.replace(/-\d+$/, "");
}

function pileIndex(id) {
  const match = /-(\d+)$/.exec(id);
  return match ? Number(match[1]) : null;
}

export function pileTitle(id) {
  const kind = pileKind(id);
  const index = pileIndex(id);
  const names = { foundation: "Foundation", tableau: "Tableau", reserve: "Reserve", stock: "Stock", waste: "Waste" };
  return index === null ? names[kind] || id : `${names[kind] || kind} ${index + 1}`;
}

/**
 * Build the board element. `selection` is {pile, index} or null. Every clickable card or empty pile
 * is a <button> inside a `.pile[data-pile]`; `data-index` is the card's index in the pile (-1: empty).
 */
export function buildBoard(game, selection, { interactive = true } = {}) {
  const piles = game.state.piles;
  const foundations = piles.filter((pile) => pileKind(pile.id) === "foundation");
  const reserves = piles.filter((pile) => pileKind(pile.id) === "reserve");
  const others = piles.filter((pile) => ["stock", "waste"].includes(pileKind(pile.id)));
  const tableau = piles.filter((pile) => pileKind(pile.id) === "tableau");
  const compact = foundations.length > 8;
  const draw = (pile) => drawPile(pile, selection, interactive);
  return h(
    "div",
    { class: "board", dataset: { variant: game.variant } },
    h(
      "div",
      { class: "top-row" },
      h(
        "div",
        { class: `foundations${compact ? " compact" : ""}`, role: "group", "aria-label": "Foundations" },
        foundations.map(draw),
      ),
      reserves.length || others.length
        ? h(
            "div",
            { class: "side", role: "group", "aria-label": "Reserve and stock" },
            reserves.map(draw),
            others.map(draw),
          )
        : null,
    ),
    h(
      "div",
      { class: "tableau", role: "group", "aria-label": "Tableau", style: { "--columns": tableau.length } },
      tableau.map(draw),
    ),
  );
}

function cardButtonLabel(pile, index) {
  const code = pile.cards[index];
  const name = cardName(code);
  return `${name}, ${pileTitle(pile.id)}`;
}

function drawPile(pile, selection, interactive) {
  const kind = pileKind(pile.id);
  const cards = pile.cards;
  const selectedFrom = selection && selection.pile === pile.id ? selection.index : null;
  const el = h("div", {
    class: `pile ${kind}`,
    role: "group",
    "aria-label": `${pileTitle(pile.id)}, ${cards.length} card${cards.length === 1 ? "" : "s"}`,
    dataset: { pile: pile.id, kind, count: cards.length },
  });
  const mark = (card, index) => {
    card.dataset.index = index;
    if (selectedFrom !== null && index >= selectedFrom) card.classList.add("selected");
    if (selectedFrom !== null && index === selectedFrom) card.setAttribute("aria-pressed", "true");
    return card;
  };
  const emptySlot = (label) => {
    const slot = h(interactive ? "button" : "div", { class: "slot", "aria-label": label, dataset: { index: -1 } });
    if (interactive) slot.type = "button";
    return slot;
  };

  if (kind === "tableau") {
    el.classList.add("fan");
    if (!cards.length) el.append(emptySlot(`Empty ${pileTitle(pile.id)}`));
    cards.forEach((code, index) => {
      const face = code !== null;
      el.append(mark(cardElement(code, { interactive: interactive && face, label: face ? cardButtonLabel(pile, index) : "" }), index));
    });
    return el;
  }

  if (kind === "reserve" && cards.length <= ROW_FAN_MAX && cards.every((code) => code !== null)) {
    // An open reserve (Castile): every card is visible, only the top one plays.
    el.classList.add("row-fan");
    el.style.width = `${CARD_W + Math.max(0, cards.length - 1) * ROW_STEP}px`;
    if (!cards.length) el.append(emptySlot(`Empty ${pileTitle(pile.id)}`));
    cards.forEach((code, index) => {
      const top = index === cards.length - 1;
      const card = mark(cardElement(code, { interactive: interactive && top, label: top ? cardButtonLabel(pile, index) : "" }), index);
      card.style.left = `${index * ROW_STEP}px`;
      el.append(card);
    });
    return el;
  }

  // Stacked piles: foundations, a big reserve, stock and waste show their top card and a count.
  el.classList.add("stack");
  if (!cards.length) {
    const label = kind === "stock" ? "Empty stock: turn the waste back over" : `Empty ${pileTitle(pile.id)}`;
    el.append(emptySlot(label));
  } else {
    const index = cards.length - 1;
    const code = cards[index];
    const clickable = interactive && (code !== null || kind === "stock");
    const label = kind === "stock" ? `Stock, ${cards.length} cards: deal` : code !== null ? cardButtonLabel(pile, index) : "";
    if (cards.length > 1) el.append(h("div", { class: "card under", "aria-hidden": "true" }));
    el.append(mark(cardElement(code, { interactive: clickable, label }), index));
  }
  if (kind !== "tableau" && (cards.length > 1 || kind !== "foundation")) {
    el.append(h("span", { class: "badge", "aria-hidden": "true" }, String(cards.length)));
  }
  el.append(h("span", { class: "pile-name", "aria-hidden": "true" }, pileTitle(pile.id)));
  return el;
}

/** Set every tableau fan's card steps so the tallest pile fits between its top and the window's bottom. */
export function fitFans(board) {
  const tableau = board.querySelector(".tableau");
  if (!tableau) return;
  const top = tableau.getBoundingClientRect().top + window.scrollY;
  const available = Math.max(CARD_H + 6 * FAN_MIN, window.innerHeight - top - 16);
  for (const pile of tableau.querySelectorAll(".pile.fan")) {
    const cards = [...pile.querySelectorAll(".card")];
    const steps = cards.slice(0, -1).map((card) => (card.classList.contains("back") ? FAN_DOWN : FAN_UP));
    const natural = steps.reduce((sum, step) => sum + step, 0);
    let scale = 1;
    if (natural > 0 && CARD_H + natural > available) scale = (available - CARD_H) / natural;
    let y = 0;
    cards.forEach((card, index) => {
      card.style.top = `${y}px`;
      if (index < steps.length) {
        const step = steps[index];
        y += Math.max(step === FAN_DOWN ? 4 : FAN_MIN, Math.floor(step * scale));
      }
    });
    pile.style.height = `${Math.max(CARD_H, y + CARD_H)}px`;
  }
}
