// The play view: the game as the server last answered it, its moves (one in flight at a time,
// over the game's socket, or REST when the socket is not open), the offline notice, automatic
// moves and the finish. The ply always comes from the server's latest answer; the table's reading
// of the rules (rules.js) only guides the player. Its drawing (play-drawing.js), panels
// (play-panels.js) and input (play-input.js) are methods of the same view, kept in their modules.
import { api } from "./api.js";
import { RetryNotice } from "./backoff.js";
import { fitBoard, pileTitle } from "./board.js";
import { Connection } from "./connection.js";
import { h, mount, say } from "./dom.js";
import { t } from "./i18n.js";
import { drawing } from "./play-drawing.js";
import { input } from "./play-input.js";
import { describeMove, refusalText } from "./play-messages.js";
import { panels } from "./play-panels.js";
import { playSound } from "./sounds.js";
import { autoEnabled, finishEnabled } from "./preferences.js";
import { TableRules } from "./rules.js";

async function variantDetail(slug) {
  try {
    return await api("GET", `/api/variants/${encodeURIComponent(slug)}/`);
  } catch {
    return { slug, name: slug, rules: null };
  }
}

class PlayView {
  constructor(root, gameId) {
    this.root = root;
    this.gameId = gameId;
    this.game = null;
    this.rules = new TableRules(null);
    this.selection = null;
    this.connection = null;
    this.pending = [];
    this.queue = Promise.resolve();
    this.closed = false;
    this.drag = null;
    this.suppressClick = false;
    this.lastPress = null;
    this.press = null; // a press not yet released: {pileId, index, code, pointerId, ply}
    this.announcedOver = false;
    this.clockBase = 0;
    this.clockAt = 0;
    this.onResize = () => this.board && fitBoard(this.board);
    this.onKey = (event) => this.onShortcut(event);
    this.onOffline = () => this.showOffline(true);
    this.onOnline = () => this.backOnline();
    this.waitingOnline = []; // moves waiting for the network to come back
  }

  async start() {
    this.message = h("div", { class: "messages", id: "play-message", "aria-live": "polite" });
    this.notice = new RetryNotice("play-retry");
    this.offline = h(
      "p",
      { class: "message note offline-notice", id: "play-offline", role: "status", hidden: true },
      t("You are offline; your move will be sent when you reconnect."),
    );
    this.heading = h("h2", { id: "play-title" }, t("Loading the game…"));
    this.info = h("p", { class: "game-info" });
    this.goal = h("p", { class: "goal", id: "play-goal" });
    // A phone shows the goal on one line: a tap on it shows it whole, another folds it again.
    this.goal.addEventListener("click", () => this.goal.classList.toggle("open"));
    this.stats = h("dl", { class: "stats", "aria-label": t("Game status") });
    this.controls = h("div", { class: "controls", role: "toolbar", "aria-label": t("Game actions") });
    this.banner = h("div", { class: "banner-area", "aria-live": "polite", id: "banner" });
    this.boardArea = h("div", { class: "board-area" });
    // What each move did, for screen readers only: the board itself says it to the eye.
    this.announcer = h("div", { class: "visually-hidden", id: "play-announce", "aria-live": "polite" });
    this.section = h(
      "section",
      { class: "play", "aria-labelledby": "play-title" },
      h("div", { class: "play-head" }, h("div", { class: "play-title" }, this.heading, this.info, this.goal), this.stats, this.controls),
      this.banner,
      this.notice.el,
      this.offline,
      this.message,
      this.boardArea,
      this.announcer,
      h(
        "p",
        { class: "keys", id: "play-keys" },
        t("Keys: Tab reaches the board, arrows move between piles and cards, Enter picks up or puts down, F sends to a foundation, U undoes, D deals, H asks for a hint, Escape puts back."),
      ),
    );
    mount(this.root, this.section);
    this.boardArea.addEventListener("click", (event) => this.onClick(event));
    this.boardArea.addEventListener("pointerdown", (event) => this.onPointerDown(event));
    this.boardArea.addEventListener("pointerup", (event) => this.onPress(event));
    this.boardArea.addEventListener("keydown", (event) => this.onBoardKey(event));
    this.boardArea.addEventListener("focusin", (event) => {
      if (!(event.target instanceof HTMLButtonElement)) return;
      for (const button of this.boardArea.querySelectorAll('button[tabindex="0"]')) button.tabIndex = -1;
      event.target.tabIndex = 0;
    });
    window.addEventListener("resize", this.onResize);
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
    document.addEventListener("keydown", this.onKey);
    if (!navigator.onLine) this.showOffline(true);
    this.clockTimer = setInterval(() => this.renderClock(), 1000);
    let game;
    try {
      game = await api("GET", `/api/games/${encodeURIComponent(this.gameId)}/`);
    } catch (error) {
      this.heading.textContent = t("This game cannot be shown");
      say(this.message, error.detail, "error");
      return;
    }
    const variant = await variantDetail(game.variant);
    this.name = variant.name || game.variant;
    this.rules = new TableRules(variant.rules || null);
    if (this.closed) return;
    this.setGame(game, { force: true });
    this.focusBoard();
    this.connect();
  }

  /**
   * Put the focus on the board's one Tab stop as the table opens, so that a keyboard reaches the
   * cards at once; a focus the player already placed elsewhere on the page is left alone.
   */
  focusBoard() {
    const active = document.activeElement;
    if (active && active !== document.body && !this.section.contains(active)) return;
    this.board?.querySelector('button[tabindex="0"]')?.focus({ preventScroll: true });
  }

  close() {
    this.closed = true;
    window.removeEventListener("resize", this.onResize);
    window.removeEventListener("offline", this.onOffline);
    window.removeEventListener("online", this.onOnline);
    document.removeEventListener("keydown", this.onKey);
    clearInterval(this.clockTimer);
    this.notice.clear();
    this.connection?.close();
  }

  // ---- the game's WebSocket ----

  /**
   * Open the game's socket (connection.js): greeted with the game; until then moves go over REST,
   * so that the greeting is never taken for the answer to a move.
   */
  connect() {
    this.connection = new Connection(`/ws/games/${encodeURIComponent(this.gameId)}/`, {
      greets: (data) => data.type === "game" && Boolean(data.game),
      onGreeting: (data) => this.setGame(data.game),
      onMessage: (data) => {
        const waiting = this.pending.shift();
        if (waiting) waiting(data);
        else if (data.type === "game" && data.game) this.setGame(data.game);
      },
      onLost: () => {
        const waiting = this.pending.splice(0);
        for (const resolve of waiting) resolve({ type: "error", error: "disconnected", detail: "" });
      },
      onState: (state, retryMs) => {
        this.section.setAttribute("data-socket", state);
        if (state === "open") this.section.removeAttribute("data-retry-ms");
        else if (retryMs !== null) this.section.setAttribute("data-retry-ms", String(retryMs));
      },
      notice: this.notice,
      wanted: () => !this.closed && Boolean(this.game) && this.game.status === "playing",
    });
    this.connection.connect();
  }

  // ---- offline ----

  /** Show (or clear) the notice that the browser is offline and moves wait for the network. */
  showOffline(offline) {
    this.offline.hidden = !offline;
    if (offline) this.section.setAttribute("data-offline", "true");
    else this.section.removeAttribute("data-offline");
  }

  /** The network is back: clear the notice and send the waiting move (the socket opens again itself). */
  backOnline() {
    this.showOffline(false);
    for (const resolve of this.waitingOnline.splice(0)) resolve();
  }

  /** Resolve when the network is back (the browser says so), or after `ms` if it says it is on. */
  online(ms = 3000) {
    return new Promise((resolve) => {
      this.waitingOnline.push(resolve);
      if (navigator.onLine) setTimeout(resolve, ms);
    });
  }

  transport(payload) {
    if (this.connection?.open) {
      return new Promise((resolve) => {
        this.pending.push(resolve);
        this.connection.send(payload);
      });
    }
    return api("POST", `/api/games/${encodeURIComponent(this.gameId)}/moves/`, payload).then(
      (game) => ({ type: "game", game }),
      (error) => ({ ...error.body, type: "error", error: error.code, detail: error.detail }),
    );
  }

  // ---- moves ----

  /** Queue a move so only one is in flight; resolve true when the server applied it. */
  move(move, { quiet = false, auto = false, glide = true } = {}) {
    const run = () => this.send(move, quiet, auto, glide);
    this.queue = this.queue.then(run, run);
    return this.queue;
  }

  async send(move, quiet, auto, glide = true) {
    if (!this.game || this.game.status !== "playing") {
      if (!quiet) say(this.message, t("This game is over."), "error");
      return false;
    }
    const before = this.game;
    const ply = this.game.ply;
    this.section.setAttribute("aria-busy", "true");
    let answer;
    let again = false;
    for (let tries = 0; ; tries += 1) {
      if (!navigator.onLine) {
        // Offline: say so at once, and send the move when the network is back.
        this.showOffline(true);
        await this.online();
        if (this.closed) return false;
      }
      answer = await this.transport({ ply, move });
      const lost = answer.error === "disconnected" || answer.error === "network";
      if (!lost || (tries >= 1 && navigator.onLine && answer.error === "disconnected")) break;
      // The socket closed with the move in flight, or the server could not be reached: send it
      // again (over REST while the socket is down; when offline, once the network is back). Its
      // ply makes that safe: a move the server had already applied is refused as stale_ply (the
      // reload below then shows it), never applied twice.
      again = true;
      if (tries >= 1 || !navigator.onLine) {
        this.showOffline(true);
        await this.online();
        if (this.closed) return false;
      }
    }
    this.showOffline(!navigator.onLine);
    this.section.removeAttribute("aria-busy");
    if (answer.type === "game" && answer.game) {
      this.arrived = move.type === "move" ? move.to : null;
      // Where the moved cards were, for them to glide from (a dropped card is already there).
      this.flight = glide && move.type === "move" ? { to: move.to, rects: this.cardRects(move.from, move.count || 1) } : null;
      this.announcer.textContent = describeMove(move, before, { cells: this.rules.freeCells });
      playSound(answer.game.status === "won" ? "won" : move.type === "move" ? "move" : "deal");
      this.setGame(answer.game);
      this.flight = null;
      if (!quiet) say(this.message, "");
      if (!auto) this.autoMoves().then(() => this.autoFinish());
      return true;
    }
    if (answer.error === "stale_ply" || answer.error === "disconnected" || answer.error === "game_over") {
      await this.reload();
      // A move sent again and refused as stale most often reached the server the first time:
      // the reload shows the game as it is, and needs no word.
      if (answer.error === "stale_ply" && again) {
        if (!quiet) say(this.message, "");
      } else if (answer.error === "stale_ply") say(this.message, t("The game had moved on elsewhere: reloaded it."), "note");
      else if (answer.error === "game_over") say(this.message, t("This game is over."), "error");
      return false;
    }
    if (!quiet) {
      say(this.message, refusalText(answer, move, before, { cells: this.rules.freeCells }), "error");
      playSound("refused");
    }
    return false;
  }

  /** With automatic moves on, play every safe move to the foundations, one after another. */
  async autoMoves() {
    if (!autoEnabled()) return;
    for (let i = 0; i < 104 && this.game.status === "playing"; i += 1) {
      const next = this.rules.safeFoundationMove(this.game);
      if (!next || !(await this.move(next, { quiet: true, auto: true }))) return;
    }
  }

  /**
   * Once only moves to the foundations are left, play them one after another, each a move like
   * any other, saying so; any click or key on the page stops it.
   */
  async autoFinish() {
    if (this.finishing || !finishEnabled() || !this.game || this.game.status !== "playing") return;
    const line = this.rules.finishingLine(this.game);
    if (!line) return;
    this.finishing = true;
    this.section.setAttribute("data-finishing", "yes");
    say(this.message, t("Finishing… (click anywhere to stop)"), "note");
    const stop = () => {
      this.finishing = false;
    };
    document.addEventListener("pointerdown", stop, true);
    document.addEventListener("keydown", stop, true);
    try {
      for (const move of line) {
        if (!this.finishing || this.game.status !== "playing") break;
        if (!(await this.move(move, { quiet: true, auto: true }))) break;
      }
    } finally {
      document.removeEventListener("pointerdown", stop, true);
      document.removeEventListener("keydown", stop, true);
      const stopped = this.finishing === false && this.game.status === "playing";
      this.finishing = false;
      this.section.removeAttribute("data-finishing");
      say(this.message, stopped ? t("Stopped finishing: play on as you like.") : "");
    }
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
    this.clockBase = game.duration_ms || 0;
    this.clockAt = performance.now();
    this.render();
    if (wasPlaying && game.status !== "playing") this.connection?.drop();
    if (game.status !== "playing" && !this.announcedOver) {
      this.announcedOver = true;
      document.dispatchEvent(new CustomEvent("game-over", { detail: { game } }));
    }
  }


  pile(id) {
    return this.game.state.piles.find((pile) => pile.id === id);
  }

}

Object.assign(PlayView.prototype, drawing, panels, input);

export async function playView(root, gameId) {
  const view = new PlayView(root, gameId);
  await view.start();
  return () => view.close();
}

export { pileTitle, refusalText };
