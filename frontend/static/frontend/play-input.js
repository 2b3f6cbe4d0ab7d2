// The table's input: a card picked up and put down by click or tap, a double click (or double tap)
// that sends a card home, a drag, the arrows that walk the board and the page's shortcut keys.
// Methods of the play view (play.js); every move goes through its move().
import { pileKind, pileTitle } from "./board.js";
import { cardShort } from "./cards.js";
import { h, say } from "./dom.js";
import { t, tn } from "./i18n.js";
import { oneClickEnabled } from "./preferences.js";

const DOUBLE_MS = 350; // two clicks or taps on the same card this close together are a double one
const DRAG_PX = 8; // a press that travels this far is a drag, not a click

export const input = {
  select(selection) {
    this.selection = selection;
    this.renderBoard();
    if (selection) {
      const code = this.pile(selection.pile).cards[selection.index];
      const text =
        selection.count > 1
          ? tn(
              "Picked up the {card} and {count} card on it: now choose where to put them.",
              "Picked up the {card} and {count} cards on it: now choose where to put them.",
              selection.count - 1,
              { card: cardShort(code) },
            )
          : t("Picked up the {card}: now choose where to put it.", { card: cardShort(code) });
      say(this.message, text, "note");
    }
  },

  target(event) {
    const button = event.target.closest("button");
    if (!button || !this.boardArea.contains(button)) return null;
    const pileEl = button.closest(".pile");
    if (!pileEl) return null;
    return { pileId: pileEl.dataset.pile, index: Number(button.dataset.index ?? -1), button };
  },

  /** Return how many cards a press at `index` of a pile picks up (0: none). */
  lift(pileId, index) {
    const pile = this.pile(pileId);
    if (!pile || index < 0 || pile.cards[index] === null || pile.cards[index] === undefined) return 0;
    const kind = pileKind(pileId);
    if (kind !== "tableau" && index !== pile.cards.length - 1) return 0;
    return this.rules.liftable(this.game, pile, index);
  },

  /**
   * A press released (mouse, pen or finger) is a tap: it picks a card up, puts it down or deals.
   * Taps are read here, from the press's own pointerdown and pointerup, not from the click event:
   * a board drawn again between the two (a move's answer, just after a drag) swallows the click.
   * The second press on one card within DOUBLE_MS is a double one, which sends the card to a
   * foundation.
   */
  onPress(event) {
    const press = this.press;
    this.press = null;
    if (this.drag && this.drag.ghost) return;
    if (!press || press.pointerId !== event.pointerId || this.game.status !== "playing") return;
    if (!this.stillThere(press)) return;
    const { pileId, index } = press;
    const top = this.pile(pileId).cards.length - 1;
    if (index < 0 || index !== top || pileId === "stock" || pileKind(pileId) === "foundation") {
      this.lastPress = null;
      this.tap(press);
      return;
    }
    const now = performance.now();
    const last = this.lastPress;
    const double = last && last.pileId === pileId && last.index === index && now - last.at < DOUBLE_MS;
    this.lastPress = double ? null : { pileId, index, at: now, ply: this.game.ply, moved: false };
    if (!double) {
      this.tap(press);
      return;
    }
    // The first press already moved the card (its one destination): nothing more to do.
    if (last.moved || last.ply !== this.game.ply) return;
    this.selection = null;
    this.toFoundation(pileId);
  },

  /** Whether the card (or empty pile) a press began on is still there, the board drawn again or not. */
  stillThere(press) {
    const pile = this.pile(press.pileId);
    if (!pile) return false;
    if (press.ply === this.game.ply) return true;
    return press.index >= 0 && press.pileId !== "stock" && press.code !== null && pile.cards[press.index] === press.code;
  },

  /** A click from the keyboard (or a script): a pointer's own clicks are read as taps in onPress. */
  onClick(event) {
    if (this.suppressClick) {
      this.suppressClick = false;
      return;
    }
    if (event.pointerType) return;
    const hit = this.target(event);
    if (!hit || this.game.status !== "playing") return;
    this.tap(hit);
  },

  /** A tap or a click on a card or a pile: deal, put the card picked up there, or pick one up. */
  tap(hit) {
    const { pileId, index } = hit;
    if (pileId === "stock") {
      this.selection = null;
      this.move({ type: "deal" });
      return;
    }
    const selection = this.selection;
    if (selection && selection.pile !== pileId) {
      this.pressMoved(pileId, index);
      this.selection = null;
      this.renderBoard();
      this.move({ type: "move", from: selection.pile, to: pileId, count: selection.count });
      return;
    }
    if (selection) {
      this.select(null);
      say(this.message, "");
      return;
    }
    const count = this.lift(pileId, index);
    if (!count) {
      const pile = this.pile(pileId);
      if (index >= 0 && pile.cards[index]) say(this.message, t("The {card} cannot be moved from {pile}.", { card: cardShort(pile.cards[index]), pile: pileTitle(pileId, { cells: this.rules.freeCells }) }), "error");
      return;
    }
    const pile = this.pile(pileId);
    const destinations = this.rules.destinations(this.game, pileId, count);
    if (destinations.length === 1 && oneClickEnabled()) {
      this.pressMoved(pileId, index);
      this.move({ type: "move", from: pileId, to: destinations[0], count });
      return;
    }
    this.select({ pile: pileId, index: pile.cards.length - count, count });
  },

  /** Note that the click of the last press made a move: that press cannot begin a double click. */
  pressMoved(pileId, index) {
    const press = this.lastPress;
    if (press && press.pileId === pileId && press.index === index) press.moved = true;
  },

  /** Send the top card of a pile to a foundation that takes it (trying them when the rules are unknown). */
  async toFoundation(pileId) {
    const code = this.pile(pileId).cards.at(-1);
    if (!code || pileKind(pileId) === "foundation") {
      this.renderBoard();
      return;
    }
    const foundations = this.game.state.piles.filter((pile) => pileKind(pile.id) === "foundation");
    const known = this.rules.known;
    // Known rules name the moves (a complete run home, a card home, else to a free cell).
    const candidates = known
      ? this.rules.homeMoves(this.game, pileId)
      : [
          ...foundations.filter((pile) => pile.cards.length && pile.cards.at(-1)?.[1] === code[1]),
          ...foundations.filter((pile) => !pile.cards.length),
        ].map((pile) => ({ type: "move", from: pileId, to: pile.id, count: 1 }));
    for (const candidate of candidates) {
      const ply = this.game.ply;
      if (await this.move(candidate, { quiet: true })) {
        // The first press of the double one may have picked the card up: that note is stale now.
        say(this.message, "");
        return;
      }
      if (this.game.ply !== ply || this.game.status !== "playing") return;
    }
    this.renderBoard();
    say(this.message, t("No foundation takes the {card} now.", { card: cardShort(code) }), "error");
  },

  onPointerDown(event) {
    this.press = null;
    if (event.button !== 0 || this.game.status !== "playing") return;
    const hit = this.target(event);
    if (hit) {
      const code = this.pile(hit.pileId)?.cards[hit.index] ?? null;
      this.press = { ...hit, code, pointerId: event.pointerId, ply: this.game.ply };
    }
    if (!hit || hit.index < 0 || hit.pileId === "stock") return;
    const count = this.lift(hit.pileId, hit.index);
    if (!count) return;
    this.drag = { pileId: hit.pileId, index: hit.index, count, x: event.clientX, y: event.clientY, ghost: null };
    const move = (e) => this.onPointerMove(e);
    const up = (e) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      this.onPointerUp(e);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  },

  onPointerMove(event) {
    const drag = this.drag;
    if (!drag) return;
    if (!drag.ghost) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_PX) return;
      const pileEl = this.board.querySelector(`.pile[data-pile="${drag.pileId}"]`);
      const cards = [...pileEl.querySelectorAll(".card[data-index]")].filter(
        (card) => Number(card.dataset.index) >= drag.index,
      );
      const first = cards[0].getBoundingClientRect();
      const ghost = h("div", { class: "drag-ghost", "aria-hidden": "true" });
      // The board's card size lives on the board (and the foundations): carry it to the ghost.
      const sized = cards[0].closest(".foundations") || this.board;
      for (const name of ["--card-w", "--card-h", "--corner"]) ghost.style.setProperty(name, sized.style.getPropertyValue(name));
      for (const card of cards) {
        const rect = card.getBoundingClientRect();
        const copy = card.cloneNode(true);
        copy.removeAttribute("id");
        copy.classList.remove("selected", "arrived");
        copy.style.left = `${rect.left - first.left}px`;
        copy.style.top = `${rect.top - first.top}px`;
        ghost.append(copy);
        card.classList.add("dragging");
      }
      drag.dx = drag.x - first.left;
      drag.dy = drag.y - first.top;
      drag.ghost = ghost;
      document.body.append(ghost);
      drag.targets = new Set(this.rules.destinations(this.game, drag.pileId, drag.count));
      for (const id of drag.targets) this.board.querySelector(`.pile[data-pile="${id}"]`)?.classList.add("target");
    }
    drag.ghost.style.transform = `translate(${event.clientX - drag.dx}px, ${event.clientY - drag.dy}px)`;
    const over = this.pileAt(event.clientX, event.clientY);
    for (const el of this.board.querySelectorAll(".pile.over")) if (el !== over) el.classList.remove("over");
    if (over && over.dataset.pile !== drag.pileId) over.classList.add("over");
  },

  pileAt(x, y) {
    const under = document.elementFromPoint(x, y);
    return under ? under.closest(".board .pile") : null;
  },

  /** Return the pile a drag ends on: the one under the pointer, else a lit one within a finger's reach. */
  dropPile(x, y, targets) {
    const under = this.pileAt(x, y);
    if (under) return under;
    const reach = 24;
    let best = null;
    let bestDistance = Infinity;
    for (const id of targets || []) {
      const el = this.board.querySelector(`.pile[data-pile="${id}"]`);
      if (!el) continue;
      const r = el.getBoundingClientRect();
      const dx = Math.max(r.left - x, 0, x - r.right);
      const dy = Math.max(r.top - y, 0, y - r.bottom);
      const distance = Math.hypot(dx, dy);
      if (distance <= reach && distance < bestDistance) {
        best = el;
        bestDistance = distance;
      }
    }
    return best;
  },

  onPointerUp(event) {
    const drag = this.drag;
    this.drag = null;
    if (!drag || !drag.ghost) return;
    drag.ghost.remove();
    this.suppressClick = true;
    setTimeout(() => (this.suppressClick = false), 0);
    const pileEl = event.type === "pointercancel" ? null : this.dropPile(event.clientX, event.clientY, drag.targets);
    this.selection = null;
    if (!pileEl || pileEl.dataset.pile === drag.pileId) {
      this.renderBoard();
      return;
    }
    this.renderBoard();
    this.move({ type: "move", from: drag.pileId, to: pileEl.dataset.pile, count: drag.count }, { glide: false });
  },

  // ---- keyboard ----

  /** Arrows move the focus: left and right between piles, up and down along a pile's cards. */
  onBoardKey(event) {
    if (event.key === "Escape" && this.selection) {
      this.select(null);
      say(this.message, t("Put the card back."), "note");
      return;
    }
    if (!["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(event.key)) return;
    const active = document.activeElement;
    const pileEl = active && active.closest(".board .pile");
    if (!pileEl) return;
    event.preventDefault();
    const piles = [...this.board.querySelectorAll(".pile")].filter((el) => el.querySelector("button"));
    const here = piles.indexOf(pileEl);
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      const step = event.key === "ArrowRight" ? 1 : -1;
      const next = piles[(here + step + piles.length) % piles.length];
      [...next.querySelectorAll("button")].at(-1)?.focus();
      return;
    }
    const buttons = [...pileEl.querySelectorAll("button")];
    const at = buttons.indexOf(active);
    const next = buttons[at + (event.key === "ArrowDown" ? 1 : -1)];
    next?.focus();
  },

  /** Shortcuts anywhere on the play page: U undoes, D deals, F sends the focused card home. */
  onShortcut(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || !this.game || this.game.status !== "playing") return;
    const tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    const key = event.key.toLowerCase();
    if (key === "u" && this.game.can_undo) {
      event.preventDefault();
      this.move({ type: "undo" });
    } else if (key === "d" && this.game.state.piles.some((pile) => pile.id === "stock")) {
      event.preventDefault();
      this.move({ type: "deal" });
    } else if (key === "h") {
      event.preventDefault();
      this.askHint();
    } else if (key === "f") {
      const pileEl = document.activeElement && document.activeElement.closest(".board .pile");
      if (pileEl) {
        event.preventDefault();
        this.toFoundation(pileEl.dataset.pile);
      }
    }
  },
};
