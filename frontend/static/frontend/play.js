// The play view: the board, click-click and drag moves, double-click to the foundations, and the
// game's WebSocket (REST when it is not open). The ply always comes from the server's latest answer.
import { api, socketUrl } from "./api.js";
import { buildBoard, fitFans, pileKind, pileTitle } from "./board.js";
import { cardShort, prettyCards } from "./cards.js";
import { h, mount, say } from "./dom.js";

let variantNames = null;

async function variantName(slug) {
  if (!variantNames) {
    try {
      const variants = await api("GET", "/api/variants/");
      variantNames = new Map(variants.map((variant) => [variant.slug, variant.name]));
    } catch {
      variantNames = new Map();
    }
  }
  return variantNames.get(slug) || slug;
}

function foundationCount(game) {
  if (typeof game.foundation_cards === "number") return game.foundation_cards;
  return game.state.piles
    .filter((pile) => pileKind(pile.id) === "foundation")
    .reduce((sum, pile) => sum + pile.cards.length, 0);
}

function totalCards(game) {
  return game.state.piles.reduce((sum, pile) => sum + pile.cards.length, 0);
}

class PlayView {
  constructor(root, gameId) {
    this.root = root;
    this.gameId = gameId;
    this.game = null;
    this.selection = null;
    this.socket = null;
    this.pending = [];
    this.queue = Promise.resolve();
    this.closed = false;
    this.reconnects = 0;
    this.drag = null;
    this.suppressClick = false;
    this.onResize = () => this.board && fitFans(this.board);
  }

  async start() {
    this.message = h("div", { class: "messages", id: "play-message", "aria-live": "polite" });
    this.heading = h("h2", { id: "play-title" }, "Loading the game…");
    this.info = h("p", { class: "game-info" });
    this.stats = h("dl", { class: "stats", "aria-label": "Game status" });
    this.controls = h("div", { class: "controls", role: "toolbar", "aria-label": "Game actions" });
    this.banner = h("div", { class: "banner-area", "aria-live": "polite", id: "banner" });
    this.boardArea = h("div", { class: "board-area" });
    mount(
      this.root,
      h(
        "section",
        { class: "play", "aria-labelledby": "play-title" },
        h("div", { class: "play-head" }, h("div", {}, this.heading, this.info), this.stats, this.controls),
        this.banner,
        this.message,
        this.boardArea,
      ),
    );
    this.boardArea.addEventListener("click", (event) => this.onClick(event));
    this.boardArea.addEventListener("dblclick", (event) => this.onDoubleClick(event));
    this.boardArea.addEventListener("pointerdown", (event) => this.onPointerDown(event));
    this.boardArea.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.selection) this.select(null);
    });
    window.addEventListener("resize", this.onResize);
    try {
      this.setGame(await api("GET", `/api/games/${encodeURIComponent(this.gameId)}/`), { force: true });
    } catch (error) {
      this.heading.textContent = "This game cannot be shown";
      say(this.message, error.detail, "error");
      return;
    }
    this.name = await variantName(this.game.variant);
    this.renderHead();
    this.connect();
  }

  close() {
    this.closed = true;
    window.removeEventListener("resize", this.onResize);
    if (this.socket) this.socket.close();
  }

  // ---- the game's WebSocket ----

  connect() {
    if (this.closed || this.game.status !== "playing") return;
    const socket = new WebSocket(socketUrl(`/ws/games/${encodeURIComponent(this.gameId)}/`));
    this.socket = socket;
    // The server greets a new socket with the game; until then moves go over REST, so that the
    // greeting is never taken for the answer to a move.
    this.socketReady = false;
    socket.addEventListener("open", () => {
      this.reconnects = 0;
    });
    socket.addEventListener("message", (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!this.socketReady) {
        this.socketReady = true;
        this.root.querySelector(".play")?.setAttribute("data-socket", "open");
        if (data.type === "game" && data.game) this.setGame(data.game);
        return;
      }
      const waiting = this.pending.shift();
      if (waiting) waiting(data);
      else if (data.type === "game" && data.game) this.setGame(data.game);
    });
    socket.addEventListener("close", () => {
      this.root.querySelector(".play")?.setAttribute("data-socket", "closed");
      if (this.socket === socket) {
        this.socket = null;
        this.socketReady = false;
      }
      const waiting = this.pending.splice(0);
      for (const resolve of waiting) resolve({ type: "error", error: "disconnected", detail: "" });
      if (!this.closed && this.game && this.game.status === "playing" && this.reconnects < 5) {
        this.reconnects += 1;
        setTimeout(() => this.connect(), 1000 * this.reconnects);
      }
    });
  }

  transport(payload) {
    if (this.socket && this.socketReady && this.socket.readyState === WebSocket.OPEN) {
      return new Promise((resolve) => {
        this.pending.push(resolve);
        this.socket.send(JSON.stringify(payload));
      });
    }
    return api("POST", `/api/games/${encodeURIComponent(this.gameId)}/moves/`, payload).then(
      (game) => ({ type: "game", game }),
      (error) => ({ type: "error", error: error.code, detail: error.detail, ...error.body }),
    );
  }

  // ---- moves ----

  /** Queue a move so only one is in flight; resolve true when the server applied it. */
  move(move, { quiet = false } = {}) {
    const run = () => this.send(move, quiet);
    this.queue = this.queue.then(run, run);
    return this.queue;
  }

  async send(move, quiet) {
    if (!this.game || this.game.status !== "playing") {
      if (!quiet) say(this.message, "This game is over.", "error");
      return false;
    }
    this.root.querySelector(".play")?.setAttribute("aria-busy", "true");
    const answer = await this.transport({ ply: this.game.ply, move });
    this.root.querySelector(".play")?.removeAttribute("aria-busy");
    if (answer.type === "game" && answer.game) {
      this.setGame(answer.game);
      if (!quiet) say(this.message, "");
      return true;
    }
    if (answer.error === "stale_ply" || answer.error === "disconnected" || answer.error === "game_over") {
      await this.reload();
      if (answer.error === "stale_ply") say(this.message, "The game had moved on elsewhere: reloaded it.", "note");
      else if (answer.error === "game_over") say(this.message, "This game is over.", "error");
      return false;
    }
    if (!quiet) say(this.message, prettyCards(answer.detail || "The server refused the move."), "error");
    return false;
  }

  async reload() {
    try {
      this.setGame(await api("GET", `/api/games/${encodeURIComponent(this.gameId)}/`), { force: true });
    } catch (error) {
      say(this.message, error.detail, "error");
    }
  }

  setGame(game, { force = false } = {}) {
    if (!force && this.game && game.ply < this.game.ply) return; // an older answer: keep the newer state
    // The same ply and status is the same position (a greeting, another tab's echo): keep the
    // board, and the card the player has picked up, as they are.
    if (!force && this.game && game.ply === this.game.ply && game.status === this.game.status) return;
    const wasPlaying = this.game && this.game.status === "playing";
    this.game = game;
    this.selection = null;
    this.render();
    if (wasPlaying && game.status !== "playing" && this.socket) this.socket.close();
  }

  // ---- rendering ----

  renderHead() {
    const game = this.game;
    this.heading.textContent = this.name || game.variant;
    const parts = [];
    if (game.mode === "daily") {
      parts.push(`Daily deal of ${game.date} · `);
      parts.push(h("a", { href: `#/daily/${game.variant}/${game.date}` }, "leaderboard"));
    } else {
      parts.push("Practice");
      if (game.seed_text) parts.push(` · seed “${game.seed_text}”`);
    }
    parts.push(` · ${game.player}`);
    mount(this.info, parts);
  }

  render() {
    const game = this.game;
    if (this.name) this.renderHead();
    const hasStock = game.state.piles.some((pile) => pile.id === "stock");
    const redeals = game.state.redeals_left || 0;
    const stat = (label, id, value) => h("div", {}, h("dt", {}, label), h("dd", { id }, String(value)));
    mount(
      this.stats,
      stat("Ply", "ply", game.ply),
      stat("Foundations", "foundation-count", `${foundationCount(game)} / ${totalCards(game)}`),
      stat("Status", "status", game.status),
      !hasStock && redeals ? stat("Redeals left", "redeals-left", redeals) : null,
    );
    this.renderControls(hasStock, redeals);
    this.renderBanner();
    const board = buildBoard(game, this.selection, { interactive: game.status === "playing" });
    const focused = document.activeElement && this.boardArea.contains(document.activeElement)
      ? focusKey(document.activeElement)
      : null;
    mount(this.boardArea, board);
    this.board = board;
    fitFans(board);
    if (focused) {
      const again = [...board.querySelectorAll(focused)].at(-1) || board.querySelector(".pile button");
      again?.focus();
    }
  }

  renderControls(hasStock, redeals) {
    const playing = this.game.status === "playing";
    const button = (label, id, onclick, extra = {}) =>
      h("button", { type: "button", id, disabled: !playing, onclick, ...extra }, label);
    const buttons = [];
    if (hasStock) buttons.push(button("Deal", "deal", () => this.move({ type: "deal" })));
    if (!hasStock && redeals > 0) {
      buttons.push(button(`Redeal (${redeals} left)`, "redeal", () => this.move({ type: "redeal" })));
    }
    buttons.push(button("Undo", "undo", () => this.move({ type: "undo" })));
    buttons.push(button("Resign", "resign", () => this.confirmResign(), { class: "danger" }));
    mount(this.controls, buttons);
  }

  confirmResign() {
    const yes = h("button", { type: "button", class: "danger", id: "confirm-resign" }, "Yes, resign");
    const no = h("button", { type: "button", class: "secondary", id: "cancel-resign" }, "Keep playing");
    const box = h(
      "div",
      { class: "confirm", role: "alertdialog", "aria-label": "Resign this game?" },
      h("span", {}, "Resign this game? It ends here and is ranked on what it reached."),
      yes,
      no,
    );
    yes.addEventListener("click", async () => {
      yes.disabled = true;
      try {
        this.setGame(await api("POST", `/api/games/${encodeURIComponent(this.gameId)}/resign/`), { force: true });
      } catch (error) {
        say(this.message, error.detail, "error");
        this.renderControls(
          this.game.state.piles.some((pile) => pile.id === "stock"),
          this.game.state.redeals_left || 0,
        );
      }
    });
    no.addEventListener("click", () => {
      this.render();
      document.getElementById("resign")?.focus();
    });
    mount(this.controls, box);
    no.focus();
  }

  renderBanner() {
    const game = this.game;
    let banner = null;
    if (game.status === "won") {
      banner = h(
        "div",
        { class: "banner won", id: "won-banner" },
        h("strong", {}, "You won!"),
        ` Every card is on the foundations, in ${game.ply} moves.`,
        game.mode === "daily" ? [" ", h("a", { href: `#/daily/${game.variant}/${game.date}` }, "See the leaderboard")] : null,
      );
    } else if (game.status === "resigned") {
      banner = h(
        "div",
        { class: "banner over", id: "over-banner" },
        h("strong", {}, "Game over."),
        ` Resigned with ${foundationCount(game)} cards on the foundations.`,
        game.mode === "daily" ? [" ", h("a", { href: `#/daily/${game.variant}/${game.date}` }, "See the leaderboard")] : null,
      );
    } else if (game.stuck) {
      banner = h("div", { class: "banner stuck", id: "stuck-banner" }, "No legal move left: undo or resign.");
    }
    mount(this.banner, banner);
  }

  // ---- selection, clicks, double-clicks and dragging ----

  select(selection) {
    this.selection = selection;
    this.render();
    if (selection) {
      const pile = this.pile(selection.pile);
      const code = pile.cards[selection.index];
      const more = selection.count > 1 ? ` and ${selection.count - 1} card${selection.count > 2 ? "s" : ""} on it` : "";
      say(this.message, `Selected ${cardShort(code)}${more}: now choose where to put it.`, "note");
    }
  }

  pile(id) {
    return this.game.state.piles.find((pile) => pile.id === id);
  }

  target(event) {
    const button = event.target.closest("button");
    if (!button || !this.boardArea.contains(button)) return null;
    const pileEl = button.closest(".pile");
    if (!pileEl) return null;
    return { pileId: pileEl.dataset.pile, index: Number(button.dataset.index ?? -1), button };
  }

  onClick(event) {
    if (this.suppressClick) {
      this.suppressClick = false;
      return;
    }
    const hit = this.target(event);
    if (!hit || this.game.status !== "playing") return;
    const { pileId, index } = hit;
    if (pileId === "stock") {
      this.selection = null;
      this.move({ type: "deal" });
      return;
    }
    const selection = this.selection;
    if (selection && selection.pile !== pileId) {
      this.selection = null;
      this.render();
      this.move({ type: "move", from: selection.pile, to: pileId, count: selection.count });
      return;
    }
    const pile = this.pile(pileId);
    if (index < 0 || pile.cards[index] === null || pile.cards[index] === undefined) {
      if (selection) this.select(null);
      return;
    }
    if (selection && selection.index === index) {
      this.select(null);
      say(this.message, "");
      return;
    }
    const count = pileKind(pileId) === "tableau" ? pile.cards.length - index : 1;
    this.select({ pile: pileId, index: pile.cards.length - count, count });
  }

  async onDoubleClick(event) {
    const hit = this.target(event);
    if (!hit || this.game.status !== "playing") return;
    const pile = this.pile(hit.pileId);
    const top = pile.cards.length - 1;
    if (hit.index !== top || pile.cards[top] === null || pileKind(hit.pileId) === "foundation") return;
    this.selection = null;
    this.render();
    await this.toFoundation(hit.pileId);
  }

  /** Send the top card of a pile to the first foundation that takes it. */
  async toFoundation(pileId) {
    const code = this.pile(pileId).cards.at(-1);
    const foundations = this.game.state.piles.filter((pile) => pileKind(pile.id) === "foundation");
    // Every foundation builds in suit: try those of the card's suit first, then the empty ones.
    const sameSuit = foundations.filter((pile) => pile.cards.length && pile.cards.at(-1)?.[1] === code[1]);
    const empty = foundations.filter((pile) => !pile.cards.length);
    for (const foundation of [...sameSuit, ...empty]) {
      const ply = this.game.ply;
      if (await this.move({ type: "move", from: pileId, to: foundation.id, count: 1 }, { quiet: true })) return;
      if (this.game.ply !== ply || this.game.status !== "playing") return;
    }
    say(this.message, `No foundation takes ${cardShort(code)} now.`, "error");
  }

  onPointerDown(event) {
    if (event.button !== 0 || this.game.status !== "playing") return;
    const hit = this.target(event);
    if (!hit || hit.index < 0 || hit.pileId === "stock") return;
    const pile = this.pile(hit.pileId);
    if (pile.cards[hit.index] === null) return;
    const count = pileKind(hit.pileId) === "tableau" ? pile.cards.length - hit.index : 1;
    if (pileKind(hit.pileId) !== "tableau" && hit.index !== pile.cards.length - 1) return;
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
  }

  onPointerMove(event) {
    const drag = this.drag;
    if (!drag) return;
    if (!drag.ghost) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 8) return;
      const pileEl = this.board.querySelector(`.pile[data-pile="${drag.pileId}"]`);
      const cards = [...pileEl.querySelectorAll(".card[data-index]")].filter(
        (card) => Number(card.dataset.index) >= drag.index,
      );
      const first = cards[0].getBoundingClientRect();
      const ghost = h("div", { class: "drag-ghost", "aria-hidden": "true" });
      for (const card of cards) {
        const rect = card.getBoundingClientRect();
        const copy = card.cloneNode(true);
        copy.removeAttribute("id");
        copy.classList.remove("selected");
        copy.style.left = `${rect.left - first.left}px`;
        copy.style.top = `${rect.top - first.top}px`;
        ghost.append(copy);
        card.classList.add("dragging");
      }
      drag.dx = drag.x - first.left;
      drag.dy = drag.y - first.top;
      drag.ghost = ghost;
      document.body.append(ghost);
    }
    drag.ghost.style.transform = `translate(${event.clientX - drag.dx}px, ${event.clientY - drag.dy}px)`;
  }

  onPointerUp(event) {
    const drag = this.drag;
    this.drag = null;
    if (!drag || !drag.ghost) return;
    drag.ghost.remove();
    this.suppressClick = true;
    setTimeout(() => (this.suppressClick = false), 0);
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const pileEl = under && under.closest(".board .pile");
    if (!pileEl || pileEl.dataset.pile === drag.pileId) {
      this.render();
      return;
    }
    this.selection = null;
    this.render();
    this.move({ type: "move", from: drag.pileId, to: pileEl.dataset.pile, count: drag.count });
  }
}

function focusKey(el) {
  const pile = el.closest(".pile");
  if (!pile) return null;
  return `.pile[data-pile="${pile.dataset.pile}"] button`;
}

export async function playView(root, gameId) {
  const view = new PlayView(root, gameId);
  await view.start();
  return () => view.close();
}

export { pileTitle };
