// The board of a game: piles drawn from `game.state.piles`, sized to the board's width and the
// window's height, so that every variant fits from a 360 px phone to a wide screen.
import { cardElement, cardName } from "./cards.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";

const CARD_MAX = 72; // widest card, in CSS pixels, on a laptop's screen
const CARD_MAX_TALL = 100; // and on a screen tall enough to give the fans room (900 px and more)
const CARD_MIN = 30; // narrowest card: its corner still reads
const RATIO = 1.39; // height / width of a card
const ROW_AT = 46; // below this width a long tableau (more than 8 piles) goes on two rows
// Larger cards (settings.js): wider, with bigger corners; a tableau of more than 4 piles goes on
// two rows sooner, below this width.
const LARGE = { max: 90, maxTall: 120, rowAt: 56, minColumns: 4, font: 0.26, least: 13 };

/** Whether the player chose larger cards (looks.js marks <html> with data-cards="large"). */
function largeCards() {
  return document.documentElement.dataset.cards === "large";
}

export function pileKind(id) {
  return id.replace(/-\d+$/, "");
}

function pileIndex(id) {
  const match = /-(\d+)$/.exec(id);
  return match ? Number(match[1]) : null;
}

/**
 * The table's name of a pile: "Foundation 1" for foundation-0, "Stock" for stock; with `cells`,
 * a reserve is a free cell ("Free cell 1").
 */
export function pileTitle(id, { cells = false } = {}) {
  const kind = pileKind(id);
  const index = pileIndex(id);
  const number = index === null ? null : index + 1;
  if (kind === "reserve" && cells) return t("Free cell {number}", { number });
  switch (kind) {
    case "foundation":
      return t("Foundation {number}", { number });
    case "tableau":
      return t("Tableau {number}", { number });
    case "reserve":
      return number === null ? t("Reserve") : t("Reserve {number}", { number });
    case "stock":
      return t("Stock");
    case "waste":
      return t("Waste");
    default:
      return id;
  }
}

/**
 * Build the board element. `selection` is {pile, index} or null; `targets` a set of pile ids to
 * mark as legal destinations. Every clickable card or empty pile is a <button> inside a
 * `.pile[data-pile]`; `data-index` is the card's index in the pile (-1: empty).
 */
export function buildBoard(game, selection, { interactive = true, targets = null, cells = false, layout = null } = {}) {
  const piles = game.state.piles;
  const foundations = piles.filter((pile) => pileKind(pile.id) === "foundation");
  const reserves = piles.filter((pile) => pileKind(pile.id) === "reserve");
  const others = piles.filter((pile) => ["stock", "waste"].includes(pileKind(pile.id)));
  const tableau = piles.filter((pile) => pileKind(pile.id) === "tableau");
  const spots = layout ? layoutSpots(layout) : null;
  const draw = (pile) => {
    const el = drawPile(pile, selection, interactive, targets, cells, spots);
    if (spots && pileKind(pile.id) === "tableau") markCovered(el, pile, layout, piles);
    return el;
  };
  return h(
    "div",
    { class: `board${cells ? " with-cells" : ""}`, dataset: { variant: game.variant } },
    h(
      "div",
      { class: "top-row" },
      cells && reserves.length
        ? h("div", { class: "cells", role: "group", "aria-label": t("Free cells") }, reserves.map(draw))
        : null,
      h("div", { class: "foundations", role: "group", "aria-label": t("Foundations") }, foundations.map(draw)),
      (reserves.length && !cells) || others.length
        ? h(
            "div",
            { class: "side", role: "group", "aria-label": t("Reserve and stock") },
            cells ? [] : reserves.map(draw),
            others.map(draw),
          )
        : null,
    ),
    h("div", { class: `tableau${spots ? " layered" : ""}`, role: "group", "aria-label": t("Tableau") }, tableau.map(draw)),
  );
}

/**
 * Return where each pile of a layered tableau lies (TriPeaks' peaks, Pyramid's rows), from the
 * rules document's `tableau.covered_by`: `level` 0 for the piles no card covers, one more than the
 * highest of its covers otherwise; `x`, in card widths, the piles of level 0 side by side in
 * order, any other pile midway between the piles that cover it.
 */
export function layoutSpots(layout) {
  const count = layout.length;
  const level = new Array(count).fill(0);
  const x = new Array(count).fill(0);
  let across = 0;
  for (let i = count - 1; i >= 0; i -= 1) {
    const over = layout[i] || [];
    if (over.length) level[i] = 1 + Math.max(...over.map((k) => level[k]));
  }
  for (let i = 0; i < count; i += 1) {
    if (!(layout[i] || []).length) {
      x[i] = across;
      across += 1;
    }
  }
  for (let i = count - 1; i >= 0; i -= 1) {
    const over = layout[i] || [];
    if (over.length) x[i] = over.reduce((sum, k) => sum + x[k], 0) / over.length;
  }
  return { level, x, across: Math.max(1, across), levels: Math.max(0, ...level) + 1 };
}

/** Mark a layered tableau pile whose card other cards still cover (it cannot play yet). */
function markCovered(el, pile, layout, piles) {
  const over = layout[pileIndex(pile.id)] || [];
  const byId = new Map(piles.map((p) => [p.id, p]));
  if (over.some((k) => byId.get(`tableau-${k}`)?.cards.length)) el.classList.add("covered");
}

function cardButtonLabel(pile, index, cells = false) {
  return t("{card}, {pile}", { card: cardName(pile.cards[index]), pile: pileTitle(pile.id, { cells }) });
}

function drawPile(pile, selection, interactive, targets, cells = false, spots = null) {
  const kind = pileKind(pile.id);
  if (kind === "reserve" && cells) return drawCell(pile, selection, interactive, targets);
  const cards = pile.cards;
  const selectedFrom = selection && selection.pile === pile.id ? selection.index : null;
  const el = h("div", {
    class: `pile ${kind}${targets && targets.has(pile.id) ? " target" : ""}`,
    role: "group",
    "aria-label": tn("{pile}, {count} card", "{pile}, {count} cards", cards.length, { pile: pileTitle(pile.id) }),
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
  const emptyLabel = () => t("Empty {pile}", { pile: pileTitle(pile.id) });

  if (kind === "tableau" && spots) {
    // One card of a layered tableau, at its spot; an empty spot shows nothing (it takes nothing).
    const index = pileIndex(pile.id);
    el.classList.add("spot");
    el.dataset.level = spots.level[index];
    el.dataset.x = spots.x[index];
    cards.forEach((code, k) => {
      const face = code !== null;
      const label = face ? cardButtonLabel(pile, k) : "";
      el.append(mark(cardElement(code, { interactive: interactive && face, label }), k));
    });
    return el;
  }

  if (kind === "tableau") {
    el.classList.add("fan");
    if (!cards.length) el.append(emptySlot(emptyLabel()));
    cards.forEach((code, index) => {
      const face = code !== null;
      const label = face ? cardButtonLabel(pile, index) : "";
      el.append(mark(cardElement(code, { interactive: interactive && face, label }), index));
    });
    return el;
  }

  if (kind === "reserve" && cards.length <= 13 && cards.every((code) => code !== null)) {
    // An open reserve (Castile): every card is visible, only the top one plays.
    el.classList.add("row-fan");
    if (!cards.length) el.append(emptySlot(emptyLabel()));
    cards.forEach((code, index) => {
      const top = index === cards.length - 1;
      const label = top ? cardButtonLabel(pile, index) : "";
      el.append(mark(cardElement(code, { interactive: interactive && top, label }), index));
    });
    el.append(h("span", { class: "pile-name", "aria-hidden": "true" }, pileTitle(pile.id)));
    return el;
  }

  // Stacked piles: foundations, a closed reserve, stock and waste show their top card and a count.
  el.classList.add("stack");
  if (!cards.length) {
    el.append(emptySlot(kind === "stock" ? t("Empty stock: deal to turn the waste back over") : emptyLabel()));
  } else {
    const index = cards.length - 1;
    const code = cards[index];
    const clickable = interactive && (code !== null || kind === "stock");
    let label = "";
    if (kind === "stock") label = tn("Stock, {count} card: deal", "Stock, {count} cards: deal", cards.length);
    else if (code !== null) label = cardButtonLabel(pile, index);
    if (cards.length > 1) el.append(h("div", { class: "card under", "aria-hidden": "true" }));
    el.append(mark(cardElement(code, { interactive: clickable, label }), index));
  }
  if (cards.length > 1 || kind !== "foundation") {
    el.append(h("span", { class: "badge", "aria-hidden": "true" }, String(cards.length)));
  }
  el.append(h("span", { class: "pile-name", "aria-hidden": "true" }, pileTitle(pile.id)));
  return el;
}

/** Draw a free cell: one card or an empty slot, named "Free cell n". */
function drawCell(pile, selection, interactive, targets) {
  const title = pileTitle(pile.id, { cells: true });
  const el = h("div", {
    class: `pile reserve cell stack${targets && targets.has(pile.id) ? " target" : ""}`,
    role: "group",
    "aria-label": tn("{pile}, {count} card", "{pile}, {count} cards", pile.cards.length, { pile: title }),
    dataset: { pile: pile.id, kind: "reserve", count: pile.cards.length },
  });
  if (!pile.cards.length) {
    const slot = h(interactive ? "button" : "div", { class: "slot", "aria-label": t("Empty {pile}", { pile: title }), dataset: { index: -1 } });
    if (interactive) slot.type = "button";
    el.append(slot);
  } else {
    const card = cardElement(pile.cards[0], { interactive, label: cardButtonLabel(pile, 0, true) });
    card.dataset.index = 0;
    if (selection && selection.pile === pile.id) {
      card.classList.add("selected");
      card.setAttribute("aria-pressed", "true");
    }
    el.append(card);
  }
  el.append(h("span", { class: "pile-name", "aria-hidden": "true" }, title));
  return el;
}

function clamp(value, low, high) {
  return Math.max(low, Math.min(high, value));
}

/** Return the width of `count` cards side by side with `gap` between them in `width`. */
function cardsAcross(width, count, gap) {
  return Math.floor((width - (count - 1) * gap) / count);
}

/**
 * Size the board to its width and the window: the cards, the tableau's rows, the foundations,
 * the open reserves' fans and every tableau fan's steps. Call it again when the window changes.
 */
export function fitBoard(board) {
  const width = board.clientWidth;
  if (!width) return;
  const narrow = width < 600;
  const gap = narrow ? 4 : 10;
  const tableau = board.querySelector(".tableau");
  const fans = [...tableau.querySelectorAll(".pile.fan")];
  const spots = [...tableau.querySelectorAll(".pile.spot")];
  const layered = spots.length > 0;
  const spotsAcross = layered ? Math.max(1, ...spots.map((pile) => Number(pile.dataset.x) + 1)) : 0;
  const columns = layered ? Math.ceil(spotsAcross) : Math.max(1, fans.length);
  const large = largeCards();
  let perRow = columns;
  let cardW = cardsAcross(width, columns, gap);
  if (layered) {
    // The rows of a layered tableau never split: the cards shrink, to the narrowest that reads.
  } else if (large ? columns > LARGE.minColumns && cardW < LARGE.rowAt : columns > 8 && cardW < ROW_AT) {
    perRow = Math.ceil(columns / 2);
    cardW = cardsAcross(width, perRow, gap);
  }
  const [most, mostTall] = large ? [LARGE.max, LARGE.maxTall] : [CARD_MAX, CARD_MAX_TALL];
  const widest = window.innerHeight >= 900 ? Math.min(mostTall, Math.floor(window.innerHeight * 0.09 * (large ? 1.2 : 1))) : most;
  cardW = clamp(cardW, CARD_MIN, widest);
  const cardH = Math.round(cardW * RATIO);
  const [share, least] = large ? [LARGE.font, LARGE.least] : [0.22, 11];
  const font = Math.max(least, Math.round(cardW * share));
  board.style.setProperty("--card-w", `${cardW}px`);
  board.style.setProperty("--card-h", `${cardH}px`);
  board.style.setProperty("--corner", `${font}px`);
  board.style.setProperty("--gap", `${gap}px`);
  tableau.style.gridTemplateColumns = `repeat(${perRow}, ${cardW}px)`;

  // Foundations: one row when they fit at the tableau's card size, else rows of eight at most.
  const foundations = board.querySelector(".foundations");
  const count = foundations.children.length;
  let across = count > 8 && cardsAcross(width, count, gap) < cardW * 0.75 ? Math.ceil(count / 2) : count;
  const foundationW = clamp(Math.min(cardW, cardsAcross(width, across, gap)), CARD_MIN, widest);
  across = Math.min(across, Math.floor((width + gap) / (foundationW + gap)));
  foundations.style.setProperty("--card-w", `${foundationW}px`);
  foundations.style.setProperty("--card-h", `${Math.round(foundationW * RATIO)}px`);
  foundations.style.setProperty("--corner", `${Math.max(least, Math.round(foundationW * share))}px`);
  foundations.style.gridTemplateColumns = `repeat(${across}, ${foundationW}px)`;

  const cells = board.querySelector(".cells");
  if (cells) {
    // Free cells sit beside the foundations, at their size.
    cells.style.setProperty("--card-w", `${foundationW}px`);
    cells.style.setProperty("--card-h", `${Math.round(foundationW * RATIO)}px`);
    cells.style.setProperty("--corner", `${Math.max(11, Math.round(foundationW * 0.22))}px`);
  }

  fitRowFans(board, width, cardW, font, gap);
  if (layered) fitSpots(tableau, spots, { width, cardW, cardH, gap });
  else fitFans(board, { rows: Math.ceil(columns / perRow), cardH, font });
}

/**
 * Place the cards of a layered tableau: each row half a card below the one it covers, each card
 * at its spot's `x` (in card widths and gaps), the whole centred in the board's width.
 */
function fitSpots(tableau, spots, { width, cardW, cardH, gap }) {
  const levels = Math.max(...spots.map((pile) => Number(pile.dataset.level))) + 1;
  const across = Math.max(...spots.map((pile) => Number(pile.dataset.x))) + 1;
  const span = across * cardW + (across - 1) * gap;
  const left = Math.max(0, Math.floor((width - span) / 2));
  const step = Math.round(cardH * 0.5);
  for (const pile of spots) {
    const x = Number(pile.dataset.x);
    const row = levels - 1 - Number(pile.dataset.level);
    pile.style.left = `${left + Math.round(x * (cardW + gap))}px`;
    pile.style.top = `${row * step}px`;
  }
  tableau.style.gridTemplateColumns = "";
  tableau.style.height = `${(levels - 1) * step + cardH}px`;
}

/** Spread the open reserves' cards sideways, as many reserves on a line as keep every rank readable. */
function fitRowFans(board, width, cardW, font, gap) {
  const reserves = [...board.querySelectorAll(".pile.row-fan")];
  if (!reserves.length) return;
  const longest = Math.max(1, ...reserves.map((pile) => pile.querySelectorAll(".card").length));
  const least = Math.ceil(font * 1.25) + 5; // "10" and its suit stay clear of the next card
  const natural = Math.max(least, Math.round(cardW * 0.34));
  let step = natural;
  for (let across = reserves.length; across >= 1; across -= 1) {
    const room = Math.floor((width - (across - 1) * gap) / across);
    step = longest > 1 ? Math.min(natural, Math.floor((room - cardW) / (longest - 1))) : natural;
    if (step >= least) break;
  }
  step = Math.max(step, Math.min(least, natural));
  for (const pile of reserves) {
    const cards = [...pile.querySelectorAll(".card, .slot")];
    cards.forEach((card, index) => (card.style.left = `${index * step}px`));
    pile.style.width = `${cardW + Math.max(0, cards.length - 1) * step}px`;
  }
}

/** Set every tableau fan's card steps so that each row of piles fits above the window's bottom. */
export function fitFans(board, { rows = 1, cardH = null, font = 11 } = {}) {
  const tableau = board.querySelector(".tableau");
  if (!tableau) return;
  const height = cardH || tableau.querySelector(".card, .slot")?.offsetHeight || 100;
  const up = Math.round(height * 0.3); // the natural step of a face-up card
  const down = Math.round(height * 0.12); // and of a face-down one
  const least = font + 6; // never below this: the rank and suit on a line stay readable
  const top = tableau.getBoundingClientRect().top + window.scrollY;
  const room = (window.innerHeight - top - 12) / rows - (rows - 1) * 8;
  const available = Math.max(height + 4 * least, room);
  for (const pile of tableau.querySelectorAll(".pile.fan")) {
    const cards = [...pile.querySelectorAll(".card")];
    const steps = cards.slice(0, -1).map((card) => (card.classList.contains("back") ? down : up));
    const natural = steps.reduce((sum, step) => sum + step, 0);
    const scale = natural > 0 && height + natural > available ? (available - height) / natural : 1;
    let y = 0;
    cards.forEach((card, index) => {
      card.style.top = `${y}px`;
      if (index < steps.length) {
        const step = steps[index];
        y += Math.max(step === down ? 3 : least, Math.floor(step * scale));
      }
    });
    pile.style.height = `${Math.max(height, y + height)}px`;
  }
}
