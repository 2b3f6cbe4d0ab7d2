// The table's drawing: the heading, the figures and the clock, the board laid out (board.js) with
// the focus kept where it was, and a moved card's glide. Methods of the play view (play.js).
import { buildBoard, fitBoard, pileKind } from "./board.js";
import { formatDuration, h, mount } from "./dom.js";
import { goalText } from "./goal.js";
import { t } from "./i18n.js";
import { statusText } from "./play-messages.js";

const GLIDE_MS = 150; // a moved card's slide to its new pile

export function foundationCount(game) {
  if (typeof game.foundation_cards === "number") return game.foundation_cards;
  return game.state.piles
    .filter((pile) => pileKind(pile.id) === "foundation")
    .reduce((sum, pile) => sum + pile.cards.length, 0);
}

function totalCards(game) {
  return game.state.piles.reduce((sum, pile) => sum + pile.cards.length, 0);
}

function focusKey(el) {
  const pile = el.closest(".pile");
  if (!pile) return null;
  return { pile: pile.dataset.pile, index: el.dataset.index };
}

function refocus(board, { pile, index }) {
  const pileEl = board.querySelector(`.pile[data-pile="${pile}"]`);
  const buttons = pileEl ? [...pileEl.querySelectorAll("button")] : [];
  const again = buttons.find((b) => b.dataset.index === index) || buttons.at(-1) || board.querySelector(".pile button");
  again?.focus();
}

export const drawing = {
  renderHead() {
    const game = this.game;
    this.heading.textContent = this.name || game.variant;
    const parts = [];
    if (game.mode === "daily") {
      parts.push(t("Daily deal of {date}", { date: game.date }), " · ");
      parts.push(h("a", { href: `#/daily/${game.variant}/${game.date}` }, t("leaderboard")));
    } else {
      parts.push(t("Practice game"));
      if (game.seed_text) parts.push(" · ", t("seed “{seed}”", { seed: game.seed_text }));
    }
    parts.push(" · ", game.player);
    parts.push(" · ", h("a", { href: `/rules/${encodeURIComponent(game.variant)}/`, id: "rules-link" }, t("rules")));
    if (game.assisted) {
      parts.push(
        " · ",
        h("span", { class: "assisted-mark", id: "assisted-mark", title: t("A hint was taken: the game ranks after every unassisted result") }, t("assisted")),
      );
    }
    mount(this.info, parts);
    this.goal.textContent = goalText(this.rules.rules, game);
  },

  /** The server-measured time from the first move to the last, running while the game is played. */
  clockMs() {
    const game = this.game;
    if (!game || !game.ply) return 0;
    if (game.status !== "playing") return this.clockBase;
    return this.clockBase + (performance.now() - this.clockAt);
  },

  renderClock() {
    const el = this.stats.querySelector("#clock");
    if (el) el.textContent = formatDuration(Math.floor(this.clockMs() / 1000) * 1000);
  },

  render() {
    const game = this.game;
    this.renderHead();
    const hasStock = game.state.piles.some((pile) => pile.id === "stock");
    const redeals = game.state.redeals_left || 0;
    const stat = (label, id, value, extra = {}) =>
      h("div", { class: `stat-${id}` }, h("dt", {}, label), h("dd", { id, ...extra }, String(value)));
    mount(
      this.stats,
      stat(t("Moves"), "ply", game.ply),
      stat(t("Foundations"), "foundation-count", `${foundationCount(game)} / ${totalCards(game)}`),
      stat(t("Time"), "clock", formatDuration(0), { title: t("Measured by the server, from your first move to your last") }),
      stat(t("Status"), "status", statusText(game.status), { dataset: { status: game.status } }),
    );
    this.renderClock();
    this.renderControls(hasStock, redeals);
    this.renderBanner();
    this.renderBoard();
  },

  renderBoard() {
    const game = this.game;
    const active = document.activeElement;
    const focused = active && this.boardArea.contains(active) ? focusKey(active) : null;
    const targets = this.selection ? new Set(this.rules.destinations(game, this.selection.pile, this.selection.count)) : null;
    const cells = this.rules.freeCells;
    const layout = this.rules.layout;
    const board = buildBoard(game, this.selection, { interactive: game.status === "playing", targets, cells, layout });
    if (game.status === "won") board.classList.add("won");
    // Hold the area's height while the new board is sized, so that the page never jumps.
    this.boardArea.style.minHeight = `${this.boardArea.offsetHeight}px`;
    mount(this.boardArea, board);
    this.board = board;
    fitBoard(board);
    this.boardArea.style.minHeight = "";
    if (this.arrived) {
      board.querySelector(`.pile[data-pile="${this.arrived}"] .card[data-index]:last-of-type`)?.classList.add("arrived");
      this.arrived = null;
    }
    if (this.flight) this.glide(board, this.flight);
    this.flight = null;
    // One stop for Tab on the board (the card last focused, else the first); arrows do the rest.
    const buttons = [...board.querySelectorAll("button")];
    for (const button of buttons) button.tabIndex = -1;
    if (focused) refocus(board, focused);
    const rover = board.contains(document.activeElement) ? document.activeElement : buttons[0];
    if (rover) rover.tabIndex = 0;
  },

  /** Return the screen boxes of the top `count` cards of a pile as drawn now. */
  cardRects(pileId, count) {
    const cards = [...this.boardArea.querySelectorAll(`.pile[data-pile="${pileId}"] .card[data-index]`)];
    return cards.slice(-count).map((card) => card.getBoundingClientRect());
  },

  /**
   * Slide the cards that just arrived on pile `to` from where they were (`rects`), in 150 ms; not
   * at all when the reader's system asks for reduced motion.
   */
  glide(board, { to, rects }) {
    if (!rects.length || window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    const cards = [...board.querySelectorAll(`.pile[data-pile="${to}"] .card[data-index]`)].slice(-rects.length);
    cards.forEach((card, i) => {
      const now = card.getBoundingClientRect();
      const dx = rects[i].left - now.left;
      const dy = rects[i].top - now.top;
      if (Math.abs(dx) + Math.abs(dy) < 1) return;
      card.style.zIndex = "50";
      const flight = card.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], {
        duration: GLIDE_MS,
        easing: "ease-out",
      });
      flight.onfinish = flight.oncancel = () => (card.style.zIndex = "");
    });
  },
};
