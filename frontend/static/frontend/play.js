// The play view: the board, click, double-click (or double tap), drag and keyboard moves, the clock,
// and the game's WebSocket (REST when it is not open). The ply always comes from the server's
// latest answer; the table's reading of the rules (rules.js) only guides the player.
import { api, socketUrl } from "./api.js";
import { RetryNotice, retryAfterOf, retryDelay } from "./backoff.js";
import { buildBoard, fitBoard, pileKind, pileTitle } from "./board.js";
import { cardShort, prettyCards } from "./cards.js";
import { formatDuration, h, mount, say } from "./dom.js";
import { goalText } from "./goal.js";
import { t, tn } from "./i18n.js";
import { TableRules } from "./rules.js";

const DOUBLE_MS = 350; // two clicks or taps on the same card this close together are a double one
const DRAG_PX = 8; // a press that travels this far is a drag, not a click
const AUTO_KEY = "daily-patience:auto-foundations";
const ONE_CLICK_KEY = "daily-patience:one-click";
// Finishing a game whose last moves all go home: on unless the browser stored "off".
const FINISH_KEY = "daily-patience:auto-finish";
const GLIDE_MS = 150; // a moved card's slide to its new pile
const RECONNECTS = 5; // lost sockets in a row opened again (a busy server's refusal: always)

async function variantDetail(slug) {
  try {
    return await api("GET", `/api/variants/${encodeURIComponent(slug)}/`);
  } catch {
    return { slug, name: slug, rules: null };
  }
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

function statusText(status) {
  return { playing: t("playing"), won: t("won"), resigned: t("resigned") }[status] || status;
}

/** Read a yes/no preference of this browser; `fallback` when unset or storage is refused. */
function preference(key, fallback) {
  try {
    const value = localStorage.getItem(key);
    return value === null ? fallback : value === "on";
  } catch {
    return fallback;
  }
}

function setPreference(key, on) {
  try {
    localStorage.setItem(key, on ? "on" : "off");
  } catch {
    // Private windows may refuse storage: the choice then holds only for this page.
  }
}

const autoEnabled = () => preference(AUTO_KEY, false);
const oneClickEnabled = () => preference(ONE_CLICK_KEY, true);
const finishEnabled = () => preference(FINISH_KEY, true);

/** Return the table's own sentence for a refused move: the server's code, the table's pile names. */
export function refusalText(answer, move, game) {
  const pile = (id) => game.state.piles.find((p) => p.id === id);
  const source = move && move.from ? pile(move.from) : null;
  const code = source && source.cards.length >= (move.count || 1) ? source.cards.at(-(move.count || 1)) : null;
  const names = {
    card: code ? cardShort(code) : t("card"),
    source: move && move.from ? pileTitle(move.from) : "",
    target: move && move.to ? pileTitle(move.to) : "",
  };
  switch (answer.reason) {
    case "does_not_build":
    case "target_refuses":
      return t("{target} does not take the {card}.", names);
    case "empty_refuses":
      return t("The empty {target} does not take the {card}.", names);
    case "wrong_base":
      return t("The {card} cannot start {target}.", names);
    case "foundation_full":
      return t("{target} already holds 13 cards.", names);
    case "same_pile":
      return t("The {card} is already on {source}.", names);
    case "single_cards":
      return t("Only one card at a time moves from {source} to {target}.", names);
    case "not_a_sequence":
      return t("Those cards of {source} are not a sequence: they cannot move together.", names);
    case "source_locked":
      return pileKind(move.from) === "foundation"
        ? t("The {card} cannot leave {source} for {target} in this game.", names)
        : t("Cards leave {source} only by a deal.", names);
    case "base_card":
      return t("The base card of {source} never moves.", names);
    case "face_down":
      return t("Only face-up cards move.");
    case "empty_source":
      return t("{source} is empty.", names);
    case "no_stock":
    case "nothing_to_deal":
      return t("There is nothing left to deal.");
    case "no_redeals_left":
    case "no_redeal":
      return t("No redeal is left.");
    case "nothing_to_undo":
      return t("There is no move to take back: a move that turned up a card cannot be undone.");
    default:
      return prettyCards(answer.detail || t("The server refused the move."));
  }
}

class PlayView {
  constructor(root, gameId) {
    this.root = root;
    this.gameId = gameId;
    this.game = null;
    this.rules = new TableRules(null);
    this.selection = null;
    this.socket = null;
    this.pending = [];
    this.queue = Promise.resolve();
    this.closed = false;
    this.failures = 0; // sockets in a row that closed before their greeting, or were lost
    this.retryTimer = null;
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
    clearTimeout(this.retryTimer);
    this.notice.clear();
    if (this.socket) this.socket.close();
  }

  // ---- the game's WebSocket ----

  connect() {
    this.retryTimer = null;
    if (this.closed || this.game.status !== "playing") return;
    const socket = new WebSocket(socketUrl(`/ws/games/${encodeURIComponent(this.gameId)}/`));
    this.socket = socket;
    // The server greets a new socket with the game; until then moves go over REST, so that the
    // greeting is never taken for the answer to a move. A busy server answers a new socket with
    // an `unavailable` error instead, and closes it: that is no greeting.
    this.socketReady = false;
    let refusal = null;
    socket.addEventListener("message", (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (data.type === "error" && data.error === "unavailable") {
        // The socket is refused (at open, or later): not the answer to a move. Its close resolves
        // any move in flight as lost, and the move is then sent again.
        refusal = data;
        socket.close();
        return;
      }
      if (!this.socketReady) {
        if (data.type !== "game" || !data.game) return;
        this.socketReady = true;
        this.failures = 0;
        this.notice.clear();
        this.section.removeAttribute("data-retry-ms");
        this.section.setAttribute("data-socket", "open");
        this.setGame(data.game);
        return;
      }
      const waiting = this.pending.shift();
      if (waiting) waiting(data);
      else if (data.type === "game" && data.game) this.setGame(data.game);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.socketReady = false;
      this.section.setAttribute("data-socket", "closed");
      const waiting = this.pending.splice(0);
      for (const resolve of waiting) resolve({ type: "error", error: "disconnected", detail: "" });
      this.reconnectLater(refusal);
    });
  }

  /**
   * Open the socket again after a wait: retry_after × (1 + random) when the server refused it as
   * busy (always, at its pace), else a backoff with jitter that grows with each loss in a row (at
   * most RECONNECTS of them). Moves go over REST meanwhile.
   */
  reconnectLater(refusal) {
    if (this.closed || !this.game || this.game.status !== "playing") return;
    if (!navigator.onLine) return; // backOnline() opens it again
    const busy = Boolean(refusal);
    if (!busy && this.failures >= RECONNECTS) return;
    this.failures += 1;
    const delay = retryDelay(this.failures, busy ? retryAfterOf(refusal) : null);
    this.section.setAttribute("data-retry-ms", String(Math.round(delay)));
    if (busy) this.notice.show(delay);
    else this.notice.clear();
    this.section.setAttribute("data-socket", busy ? "waiting" : "closed");
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  // ---- offline ----

  /** Show (or clear) the notice that the browser is offline and moves wait for the network. */
  showOffline(offline) {
    this.offline.hidden = !offline;
    if (offline) this.section.setAttribute("data-offline", "true");
    else this.section.removeAttribute("data-offline");
  }

  /** The network is back: clear the notice, open the socket again, and send the waiting move. */
  backOnline() {
    this.showOffline(false);
    if (!this.closed && !this.socket && this.game && this.game.status === "playing") {
      clearTimeout(this.retryTimer);
      this.failures = 0;
      this.connect();
    }
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
    if (this.socket && this.socketReady && this.socket.readyState === WebSocket.OPEN) {
      return new Promise((resolve) => {
        this.pending.push(resolve);
        this.socket.send(JSON.stringify(payload));
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
      this.announcer.textContent = describeMove(move, before);
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
    if (!quiet) say(this.message, refusalText(answer, move, before), "error");
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
    if (wasPlaying && game.status !== "playing" && this.socket) this.socket.close();
    if (game.status !== "playing" && !this.announcedOver) {
      this.announcedOver = true;
      document.dispatchEvent(new CustomEvent("game-over", { detail: { game } }));
    }
  }

  // ---- rendering ----

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
  }

  /** The server-measured time from the first move to the last, running while the game is played. */
  clockMs() {
    const game = this.game;
    if (!game || !game.ply) return 0;
    if (game.status !== "playing") return this.clockBase;
    return this.clockBase + (performance.now() - this.clockAt);
  }

  renderClock() {
    const el = this.stats.querySelector("#clock");
    if (el) el.textContent = formatDuration(Math.floor(this.clockMs() / 1000) * 1000);
  }

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
  }

  renderBoard() {
    const game = this.game;
    const active = document.activeElement;
    const focused = active && this.boardArea.contains(active) ? focusKey(active) : null;
    const targets = this.selection ? new Set(this.rules.destinations(game, this.selection.pile, this.selection.count)) : null;
    const cells = this.rules.freeCells;
    const board = buildBoard(game, this.selection, { interactive: game.status === "playing", targets, cells });
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
  }

  /** Return the screen boxes of the top `count` cards of a pile as drawn now. */
  cardRects(pileId, count) {
    const cards = [...this.boardArea.querySelectorAll(`.pile[data-pile="${pileId}"] .card[data-index]`)];
    return cards.slice(-count).map((card) => card.getBoundingClientRect());
  }

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
  }

  renderControls(hasStock, redeals) {
    const game = this.game;
    const playing = game.status === "playing";
    const button = (label, id, onclick, extra = {}) =>
      h("button", { type: "button", id, disabled: !playing, onclick, ...extra }, label);
    const buttons = [];
    if (hasStock) buttons.push(button(t("Deal"), "deal", () => this.move({ type: "deal" }), { "aria-keyshortcuts": "D" }));
    if (!hasStock && redeals > 0) {
      buttons.push(
        button(tn("Redeal ({count} left)", "Redeal ({count} left)", redeals), "redeal", () => this.move({ type: "redeal" })),
      );
    }
    const undo = button(t("Undo"), "undo", () => this.move({ type: "undo" }), { "aria-keyshortcuts": "U" });
    if (playing && !game.can_undo) {
      undo.disabled = true;
      undo.title = t("Nothing to take back: a move that turned up a card cannot be undone");
    }
    buttons.push(undo);
    const oneClick = h("input", { type: "checkbox", id: "one-click", checked: oneClickEnabled(), disabled: !playing });
    oneClick.addEventListener("change", () => setPreference(ONE_CLICK_KEY, oneClick.checked));
    const auto = h("input", { type: "checkbox", id: "auto-foundations", checked: autoEnabled(), disabled: !playing });
    auto.addEventListener("change", () => {
      setPreference(AUTO_KEY, auto.checked);
      if (auto.checked) this.autoMoves();
    });
    buttons.push(
      h(
        "span",
        { class: "assists", role: "group", "aria-label": t("Assists") },
        h("label", { class: "assist", for: "one-click", title: t("A click moves a card that has only one place to go") }, oneClick, t("One-click moves")),
        h("label", { class: "assist", for: "auto-foundations", title: t("Cards no other card needs go to the foundations by themselves") }, auto, t("Auto to foundations")),
      ),
    );
    buttons.push(
      button(t("Hint"), "hint", () => this.askHint(), {
        "aria-keyshortcuts": "H",
        title: t("The server's solver suggests a move; the game is then marked as assisted"),
      }),
    );
    buttons.push(button(t("Resign"), "resign", () => this.confirmResign(), { class: "danger" }));
    mount(this.controls, buttons);
  }

  /**
   * Ask before an action, in place of the controls: `yes` runs it; "no" puts the controls back and
   * the focus on the button that asked (`returnTo`).
   */
  confirm({ label, text, yes, no, returnTo, onYes }) {
    const yesButton = h("button", { type: "button", class: yes.class, id: yes.id }, yes.text);
    const noButton = h("button", { type: "button", class: "secondary", id: no.id }, no.text);
    const box = h("div", { class: "confirm", role: "alertdialog", "aria-label": label }, h("span", {}, text), yesButton, noButton);
    yesButton.addEventListener("click", () => onYes(yesButton));
    noButton.addEventListener("click", () => {
      this.render();
      document.getElementById(returnTo)?.focus();
    });
    mount(this.controls, box);
    noButton.focus();
  }

  confirmResign() {
    this.confirm({
      label: t("Resign this game?"),
      text: t("Resign this game? It ends here and is ranked on what it reached."),
      yes: { id: "confirm-resign", class: "danger", text: t("Yes, resign") },
      no: { id: "cancel-resign", text: t("Keep playing") },
      returnTo: "resign",
      onYes: async (button) => {
        button.disabled = true;
        try {
          this.setGame(await api("POST", `/api/games/${encodeURIComponent(this.gameId)}/resign/`), { force: true });
        } catch (error) {
          say(this.message, error.detail, "error");
          this.render();
        }
      },
    });
  }

  /** Ask the server for a hint; a daily game not yet assisted asks the player first. */
  askHint() {
    if (this.game.mode !== "daily" || this.game.assisted) {
      this.hint();
      return;
    }
    this.confirm({
      label: t("Take a hint?"),
      text: t("A hint marks this game as assisted for good: it then ranks after every unassisted result."),
      yes: { id: "confirm-hint", text: t("Show a hint") },
      no: { id: "cancel-hint", text: t("No hint") },
      returnTo: "hint",
      onYes: () => this.hint(),
    });
  }

  async hint() {
    for (const el of this.controls.querySelectorAll("button")) el.disabled = true;
    const path = `/api/games/${encodeURIComponent(this.gameId)}`;
    let answer;
    try {
      answer = await api("GET", `${path}/hint/`);
    } catch (error) {
      say(this.message, error.detail, "error");
      this.render();
      return;
    }
    try {
      // The hint marked the game as assisted: show the server's word for it.
      this.setGame(await api("GET", `${path}/`), { force: true });
    } catch {
      this.render();
    }
    if (!answer.move) {
      say(this.message, answer.detail || t("The solver found no hint in time."), "note");
      return;
    }
    say(this.message, this.hintText(answer.move), "note");
    this.showHint(answer.move);
    document.getElementById("hint")?.focus();
  }

  hintText(move) {
    if (move.type === "deal") return t("Hint: deal from the stock.");
    if (move.type === "redeal") return t("Hint: redeal the tableau.");
    const pile = this.game.state.piles.find((p) => p.id === move.from);
    const count = move.count || 1;
    const card = pile ? pile.cards[pile.cards.length - count] : null;
    const params = { card: cardShort(card), from: pileTitle(move.from), to: pileTitle(move.to), count };
    return count === 1
      ? t("Hint: move {card} from {from} to {to}.", params)
      : t("Hint: move {count} cards, {card} and those on it, from {from} to {to}.", params);
  }

  /** Mark the hinted cards and their destination on the board until the next move. */
  showHint(move) {
    if (!this.board) return;
    const pileOf = (id) => this.board.querySelector(`.pile[data-pile="${CSS.escape(id)}"]`);
    if (move.type === "deal" || move.type === "redeal") {
      const stock = pileOf("stock");
      if (stock) stock.classList.add("hinted");
      return;
    }
    const cards = [...(pileOf(move.from)?.querySelectorAll(".card[data-index]") || [])];
    for (const card of cards.slice(-(move.count || 1))) card.classList.add("hinted");
    pileOf(move.to)?.classList.add("hint-target");
  }

  renderBanner() {
    const game = this.game;
    const board = () =>
      game.mode === "daily" ? [" ", h("a", { href: `#/daily/${game.variant}/${game.date}` }, t("See the leaderboard"))] : null;
    let banner = null;
    if (game.status === "won") {
      banner = h(
        "div",
        { class: "banner won", id: "won-banner", role: "status" },
        h("strong", {}, t("You won!")),
        " ",
        tn("Every card is on the foundations, in {count} move.", "Every card is on the foundations, in {count} moves.", game.ply),
        board(),
      );
    } else if (game.status === "resigned") {
      banner = h(
        "div",
        { class: "banner over", id: "over-banner" },
        h("strong", {}, t("Game over.")),
        " ",
        tn(
          "Resigned with {count} card on the foundations.",
          "Resigned with {count} cards on the foundations.",
          foundationCount(game),
        ),
        board(),
      );
    } else if (game.stuck) {
      banner = h(
        "div",
        { class: "banner stuck", id: "stuck-banner" },
        game.can_undo ? t("No legal move left: undo or resign.") : t("No legal move left: resign to end the game."),
      );
    }
    const voided = game.voided
      ? h(
          "div",
          { class: "banner voided", id: "void-banner", role: "status" },
          h("strong", {}, t("Result voided.")),
          " ",
          game.void_reason ? t("A moderator took it off the leaderboard: {reason}", { reason: game.void_reason }) : t("A moderator took it off the leaderboard."),
        )
      : null;
    mount(this.banner, banner, voided);
  }

  // ---- selection, clicks, double-clicks and dragging ----

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

  /** Return how many cards a press at `index` of a pile picks up (0: none). */
  lift(pileId, index) {
    const pile = this.pile(pileId);
    if (!pile || index < 0 || pile.cards[index] === null || pile.cards[index] === undefined) return 0;
    const kind = pileKind(pileId);
    if (kind !== "tableau" && index !== pile.cards.length - 1) return 0;
    return this.rules.liftable(this.game, pile, index);
  }

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
  }

  /** Whether the card (or empty pile) a press began on is still there, the board drawn again or not. */
  stillThere(press) {
    const pile = this.pile(press.pileId);
    if (!pile) return false;
    if (press.ply === this.game.ply) return true;
    return press.index >= 0 && press.pileId !== "stock" && press.code !== null && pile.cards[press.index] === press.code;
  }

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
  }

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
      if (index >= 0 && pile.cards[index]) say(this.message, t("The {card} cannot be moved from {pile}.", { card: cardShort(pile.cards[index]), pile: pileTitle(pileId) }), "error");
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
  }

  /** Note that the click of the last press made a move: that press cannot begin a double click. */
  pressMoved(pileId, index) {
    const press = this.lastPress;
    if (press && press.pileId === pileId && press.index === index) press.moved = true;
  }

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
  }

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
  }

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
  }

  pileAt(x, y) {
    const under = document.elementFromPoint(x, y);
    return under ? under.closest(".board .pile") : null;
  }

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
  }

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
  }

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
  }

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
  }
}

/** Say what an applied move did: "7♥ to Foundation 1." */
function describeMove(move, game) {
  if (move.type === "deal") return t("Dealt.");
  if (move.type === "redeal") return t("Redealt the tableau.");
  if (move.type === "undo") return t("Took the last move back.");
  const source = game.state.piles.find((pile) => pile.id === move.from);
  const code = source && source.cards.length >= move.count ? source.cards.at(-move.count) : null;
  return t("{card} to {pile}.", { card: code ? cardShort(code) : t("card"), pile: pileTitle(move.to) });
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

export async function playView(root, gameId) {
  const view = new PlayView(root, gameId);
  await view.start();
  return () => view.close();
}

export { pileTitle };
