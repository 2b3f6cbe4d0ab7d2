// The table's reading of a variant's rules document (GET /api/variants/<slug>/ "rules"): which piles
// would take a card the player can see. It only guides the table (highlights, one-click moves, the
// double-click to a foundation, automatic moves); the server decides every move.
import { pileKind } from "./board.js";

const RANKS = "A23456789TJQK";
const LIMIT = 13;

function rank(code) {
  return RANKS.indexOf(code[0]);
}

function red(code) {
  return code[1] === "D" || code[1] === "H";
}

/** Return whether `upper` may lie on `lower` under a build rule {direction, suit, wrap}. */
export function builds(build, lower, upper) {
  if (build.suit === "same" && lower[1] !== upper[1]) return false;
  if (build.suit === "alternate" && red(lower) === red(upper)) return false;
  let step = rank(upper) - rank(lower);
  let up = step === 1;
  let down = step === -1;
  if (build.wrap) {
    step = ((step % 13) + 13) % 13;
    up = step === 1;
    down = step === 12;
  }
  if (build.direction === "up") return up;
  if (build.direction === "down") return down;
  return up || down;
}

/** Lay the document's foundation groups out per pile: [{suit, base, placed, build}]. */
function foundationRules(rules) {
  const out = [];
  for (const group of rules.foundations || []) {
    for (let i = 0; i < group.count; i += 1) {
      out.push({
        suit: group.suits ? group.suits[i % group.suits.length] : null,
        base: group.base,
        placed: Boolean(group.placed),
        build: group.build,
        runs: Boolean(group.complete_runs),
        discard: Boolean(group.discard),
      });
    }
  }
  return out;
}

function pileNumber(id) {
  const match = /-(\d+)$/.exec(id);
  return match ? Number(match[1]) : 0;
}

/** What the table knows of a game under its rules: where the cards the player sees may go. */
export class TableRules {
  constructor(rules) {
    this.rules = rules || null;
    this.foundations = rules ? foundationRules(rules) : [];
  }

  get known() {
    return this.rules !== null;
  }

  /**
   * The rank (index into RANKS) that every "deal"-based pile starts with: the bottom card of any
   * foundation that holds cards, remembered for when every base card has been played away.
   */
  baseRank(game) {
    const founded = game.state.piles.find(
      (pile) => pileKind(pile.id) === "foundation" && pile.cards.length && pile.cards[0],
    );
    if (founded) this.seenBase = rank(founded.cards[0]);
    return this.seenBase ?? null;
  }

  startRank(base, game) {
    return base === "deal" ? this.baseRank(game) : RANKS.indexOf(base);
  }

  /** Return the document's `tableau.covered_by` (a layered tableau: TriPeaks, Pyramid), or null. */
  get layout() {
    return (this.known && this.rules.tableau && this.rules.tableau.covered_by) || null;
  }

  /** Return the tableau piles that cover tableau pile `id` (tableau.covered_by), by id. */
  coveredBy(id) {
    const layout = (this.rules && this.rules.tableau && this.rules.tableau.covered_by) || null;
    if (!layout || pileKind(id) !== "tableau") return [];
    return (layout[pileNumber(id)] || []).map((number) => `tableau-${number}`);
  }

  /** Return whether a card of the layout still lies on pile `id` (it cannot play yet). */
  covered(game, id) {
    const over = this.coveredBy(id);
    return over.length > 0 && game.state.piles.some((pile) => over.includes(pile.id) && pile.cards.length);
  }

  /** Return the rank total of a pair (the document's `pairs.total`), or null. */
  get pairTotal() {
    return (this.known && this.rules.pairs && this.rules.pairs.total) || null;
  }

  /** Return how many cards from `index` up may be lifted off the pile together, or 0. */
  liftable(game, pile, index) {
    if (!this.known) return pile.cards.length - index;
    const kind = pileKind(pile.id);
    const count = pile.cards.length - index;
    if (count < 1 || pile.cards.slice(index).some((code) => code === null)) return 0;
    if (kind === "stock") return 0;
    if (this.covered(game, pile.id)) return 0;
    if (kind === "foundation") {
      const back = this.rules.foundation_return || "none";
      const rule = this.foundations[pileNumber(pile.id)];
      if (back === "none" || count !== 1 || (rule && rule.placed && pile.cards.length === 1)) return 0;
      return 1;
    }
    if (count === 1) return 1;
    const tableau = this.rules.tableau || {};
    if (kind !== "tableau" || !["sequence", "supermove", "any"].includes(tableau.moves)) return 0;
    if (tableau.moves === "any") return count;
    const sequence = tableau.sequence || tableau.build;
    for (let i = index + 1; i < pile.cards.length; i += 1) {
      if (!builds(sequence, pile.cards[i - 1], pile.cards[i])) return 0;
    }
    return count;
  }

  /** Return whether the reserves are free cells: each holds one card and, empty, takes any. */
  get freeCells() {
    return Boolean(this.known && this.rules.reserves && this.rules.reserves.free_cells);
  }

  /**
   * Return how many cards may move together onto the tableau pile `target` under FreeCell's
   * rule: (1 + empty free cells) × 2 ** (empty tableau piles other than the target).
   */
  supermoveLimit(game, target) {
    const piles = game.state.piles;
    const cells = this.freeCells ? piles.filter((p) => pileKind(p.id) === "reserve" && !p.cards.length).length : 0;
    const spaces = piles.filter((p) => pileKind(p.id) === "tableau" && p.id !== target.id && !p.cards.length).length;
    return (1 + cells) * 2 ** spaces;
  }

  /** Return whether `cards` (bottom first) are a complete run that the foundation `rule` takes. */
  completeRun(rule, cards) {
    if (cards.length !== LIMIT || cards.some((code) => code === null)) return false;
    if (rank(cards[0]) !== RANKS.indexOf(rule.base) || (rule.suit && cards[0][1] !== rule.suit)) return false;
    for (let i = 1; i < cards.length; i += 1) {
      if (!builds(rule.build, cards[i - 1], cards[i])) return false;
    }
    return true;
  }

  /** Return whether the pile `target` would take `cards` (bottom first) lifted from `source`. */
  accepts(game, source, target, cards) {
    if (source.id === target.id) return false;
    const kind = pileKind(target.id);
    const card = cards[0];
    if (!this.known) return kind === "tableau" || kind === "foundation";
    if (pileKind(source.id) === "foundation") {
      const back = this.rules.foundation_return || "none";
      if (back === "tableau" && kind !== "tableau") return false;
    }
    const total = this.pairTotal;
    if (total !== null && (kind === "tableau" || kind === "waste" || (kind === "foundation" && this.foundations[pileNumber(target.id)]?.discard))) {
      return this.pairs(game, source, target, cards, total);
    }
    const wasteBuild = this.rules.stock && this.rules.stock.waste_build;
    if (kind === "waste") {
      if (!wasteBuild || cards.length !== 1 || pileKind(source.id) !== "tableau" || !target.cards.length) return false;
      const top = target.cards.at(-1);
      return top !== null && builds(wasteBuild, top, card);
    }
    if (kind === "foundation" && this.foundations[pileNumber(target.id)]?.runs) {
      const rule = this.foundations[pileNumber(target.id)];
      return !target.cards.length && pileKind(source.id) === "tableau" && this.completeRun(rule, cards);
    }
    if (kind === "reserve") {
      return this.freeCells && cards.length === 1 && !target.cards.length;
    }
    if (kind === "foundation") {
      if (cards.length !== 1) return false;
      const rule = this.foundations[pileNumber(target.id)];
      if (!rule || target.cards.length >= LIMIT) return false;
      if (!target.cards.length) {
        return rank(card) === this.startRank(rule.base, game) && (!rule.suit || rule.suit === card[1]);
      }
      const top = target.cards.at(-1);
      return top !== null && builds(rule.build, top, card);
    }
    if (kind !== "tableau") return false;
    const tableau = this.rules.tableau || {};
    if (!tableau.build) return false;
    if (cards.length > 1 && tableau.moves === "supermove" && cards.length > this.supermoveLimit(game, target)) {
      return false;
    }
    if (!target.cards.length) {
      const empty = tableau.empty || "any";
      if (empty === "any") return true;
      if (empty === "none") return false;
      if (empty === "base") return rank(card) === this.baseRank(game);
      return card[0] === empty;
    }
    const top = target.cards.at(-1);
    return top !== null && builds(tableau.build, top, card);
  }

  /**
   * Return whether `cards` lifted from `source` pair off with the top card of `target` (their
   * ranks adding up to `total`), or go alone onto the discard pile `target` (a card of rank `total`).
   */
  pairs(game, source, target, cards, total) {
    const sourceKind = pileKind(source.id);
    if (cards.length !== 1 || !["tableau", "waste"].includes(sourceKind)) return false;
    const value = rank(cards[0]) + 1;
    if (pileKind(target.id) === "foundation") return value === total;
    if (!target.cards.length || this.covered(game, target.id)) return false;
    const top = target.cards.at(-1);
    return top !== null && value + rank(top) + 1 === total;
  }

  /** Return the ids of the piles that would take the top `count` cards of pile `sourceId`. */
  destinations(game, sourceId, count) {
    const piles = game.state.piles;
    const source = piles.find((pile) => pile.id === sourceId);
    if (!source || count < 1 || count > source.cards.length) return [];
    const cards = source.cards.slice(source.cards.length - count);
    if (cards.some((code) => code === null)) return [];
    return piles.filter((pile) => this.accepts(game, source, pile, cards)).map((pile) => pile.id);
  }

  /**
   * Return the moves a double-click on pile `pileId` tries, in order: its complete run to an
   * empty foundation that takes runs, its top card to each foundation that takes it (a King to
   * Pyramid's discard pile), then its top card to the first empty free cell, or to a waste that
   * takes tableau cards (Golf, TriPeaks).
   */
  homeMoves(game, pileId) {
    const source = game.state.piles.find((pile) => pile.id === pileId);
    if (!source || !source.cards.length || pileKind(pileId) === "foundation") return [];
    const moves = [];
    if (source.cards.length >= LIMIT && this.liftable(game, source, source.cards.length - LIMIT) === LIMIT) {
      for (const id of this.destinations(game, pileId, LIMIT)) {
        if (pileKind(id) === "foundation") moves.push({ type: "move", from: pileId, to: id, count: LIMIT });
      }
    }
    const single = this.destinations(game, pileId, 1);
    for (const id of single.filter((target) => pileKind(target) === "foundation")) {
      moves.push({ type: "move", from: pileId, to: id, count: 1 });
    }
    const cell = pileKind(pileId) === "reserve" ? null : single.find((id) => pileKind(id) === "reserve");
    if (cell) moves.push({ type: "move", from: pileId, to: cell, count: 1 });
    if (single.includes("waste") && this.rules.stock && this.rules.stock.waste_build) {
      moves.push({ type: "move", from: pileId, to: "waste", count: 1 });
    }
    return moves;
  }

  /**
   * Return one move to a foundation that no other card can need, or null, so that an automatic
   * move never spoils a game: a card that starts an empty foundation, a 2 on its Ace or a Queen
   * on its King (on a foundation that builds one way and does not wrap). Variants whose
   * foundations never give a card back get no automatic moves at all.
   */
  safeFoundationMove(game) {
    if (!this.known || (this.rules.foundation_return || "none") === "none") return null;
    const piles = game.state.piles;
    const foundations = piles.filter((pile) => pileKind(pile.id) === "foundation");
    for (const source of piles) {
      const kind = pileKind(source.id);
      if (!["tableau", "waste", "reserve"].includes(kind) || !source.cards.length) continue;
      const card = source.cards.at(-1);
      if (card === null) continue;
      for (const target of foundations) {
        if (!this.accepts(game, source, target, [card])) continue;
        if (!target.cards.length || this.nothingWaits(game, card, target)) {
          return { type: "move", from: source.id, to: target.id, count: 1 };
        }
      }
    }
    return null;
  }

  /**
   * Return the moves that send every card left home, one to a foundation after another, or null
   * when the game is not yet that simple: only when every card is face up, no stock or waste card
   * is left, nothing is waiting to refill the tableau, and playing top cards home wins.
   */
  finishingLine(game) {
    if (!this.known) return null;
    const piles = game.state.piles.map((pile) => ({ id: pile.id, cards: [...pile.cards] }));
    const refill = (this.rules.tableau || {}).refill_from;
    for (const pile of piles) {
      const kind = pileKind(pile.id);
      if (pile.cards.some((code) => code === null)) return null;
      if ((kind === "stock" || kind === "waste" || pile.id === refill) && pile.cards.length) return null;
    }
    const position = { state: { ...game.state, piles } };
    const foundations = piles.filter((pile) => pileKind(pile.id) === "foundation");
    const sources = piles.filter((pile) => ["tableau", "reserve"].includes(pileKind(pile.id)));
    let left = sources.reduce((sum, pile) => sum + pile.cards.length, 0);
    const line = [];
    while (left > 0) {
      let step = null;
      for (const source of sources) {
        if (!source.cards.length) continue;
        const card = source.cards.at(-1);
        const target = foundations.find((pile) => this.accepts(position, source, pile, [card]));
        if (target) {
          step = { source, target };
          break;
        }
      }
      if (!step) return null;
      step.target.cards.push(step.source.cards.pop());
      line.push({ type: "move", from: step.source.id, to: step.target.id, count: 1 });
      left -= 1;
    }
    return line.length ? line : null;
  }

  /** Return whether `card` is the second card of `target`'s building order (a 2 up, a Queen down). */
  nothingWaits(game, card, target) {
    const rule = this.foundations[pileNumber(target.id)];
    if (!rule || rule.build.wrap || rule.build.direction === "either") return false;
    const up = rule.build.direction === "up";
    const r = rank(card);
    return up ? r === 1 : r === 11;
  }
}
