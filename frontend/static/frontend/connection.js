// A live socket of the server's (a game's, a day's board), greeted, watched and opened again.
//
// The server greets a new socket (a game, a board); until then the socket is not usable: a busy
// server opens a socket only to refuse it, with {"type": "error", "error": "unavailable",
// "retry_after": s}, and closes it. A lost socket is opened again after a wait (backoff.js):
// retry_after × (1 + random) after a refusal (always, at the server's pace), else a backoff with
// jitter that grows with each loss in a row, at most RECONNECTS of them. Offline, it waits for the
// network, and opens again at once when the browser says it is back.
import { socketUrl } from "./api.js";
import { retryAfterOf, retryDelay } from "./backoff.js";

export const RECONNECTS = 5; // lost sockets in a row opened again (a busy server's refusal: always)

export class Connection {
  /**
   * Keep a socket open on `path` while `wanted()` says so.
   * - `greets(data)`: whether a message is the greeting (the first one after which the socket is
   *   usable); messages before it are dropped.
   * - `onGreeting(data)`, `onMessage(data)`: the greeting, and every later message (but a refusal).
   * - `onLost()`: the socket closed (once greeted or not), before any wait to open it again.
   * - `onState(state, retryMs)`: "open" once greeted, "closed" when lost, "waiting" when refused as
   *   busy; `retryMs` is the wait before the next try, or null.
   * - `notice`: the RetryNotice that counts a busy server's wait down.
   */
  constructor(path, { greets = () => true, onGreeting = () => {}, onMessage = () => {}, onLost = () => {}, onState = () => {}, notice = null, wanted = () => true }) {
    this.path = path;
    this.greets = greets;
    this.onGreeting = onGreeting;
    this.onMessage = onMessage;
    this.onLost = onLost;
    this.onState = onState;
    this.notice = notice;
    this.wanted = wanted;
    this.socket = null;
    this.ready = false;
    this.failures = 0; // sockets in a row that closed before their greeting, or were lost
    this.timer = null;
    this.closed = false;
    this.onOnline = () => this.resume();
    window.addEventListener("online", this.onOnline);
  }

  /** Whether a greeted socket is open: send() then reaches the server. */
  get open() {
    return Boolean(this.socket && this.ready && this.socket.readyState === WebSocket.OPEN);
  }

  /** Send a message on the greeted socket; return false when there is none. */
  send(data) {
    if (!this.open) return false;
    this.socket.send(JSON.stringify(data));
    return true;
  }

  /** Open the socket (when wanted and none is open or waiting to open). */
  connect() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.closed || !this.wanted()) return;
    const socket = new WebSocket(socketUrl(this.path));
    this.socket = socket;
    this.ready = false;
    let refusal = null;
    socket.addEventListener("message", (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (data.type === "error" && data.error === "unavailable") {
        // Refused (at open, or later): not the answer to anything. Its close counts as a loss.
        refusal = data;
        socket.close();
        return;
      }
      if (this.socket !== socket) return;
      if (!this.ready) {
        if (!this.greets(data)) return;
        this.ready = true;
        this.failures = 0;
        this.notice?.clear();
        this.onState("open", null);
        this.onGreeting(data);
        return;
      }
      this.onMessage(data);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.ready = false;
      this.onState("closed", null);
      this.onLost();
      this.later(refusal);
    });
  }

  /** Open the socket again after the wait a loss (or a busy server's refusal) calls for. */
  later(refusal) {
    if (this.closed || !this.wanted()) return;
    if (!navigator.onLine) return; // resume() opens it again when the network is back
    const busy = Boolean(refusal);
    if (!busy && this.failures >= RECONNECTS) return;
    this.failures += 1;
    const delay = retryDelay(this.failures, busy ? retryAfterOf(refusal) : null);
    if (busy) this.notice?.show(delay);
    else this.notice?.clear();
    this.onState(busy ? "waiting" : "closed", Math.round(delay));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Open the socket at once if it is down (the network is back): a fresh count of losses. */
  resume() {
    if (this.closed || this.socket || !this.wanted()) return;
    this.failures = 0;
    this.connect();
  }

  /** Close the socket, now that it is no longer wanted (the game is over): no new one opens. */
  drop() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.socket) this.socket.close();
  }

  /** Close the socket for good (the page is left). */
  close() {
    this.closed = true;
    window.removeEventListener("online", this.onOnline);
    clearTimeout(this.timer);
    this.notice?.clear();
    if (this.socket) this.socket.close();
  }
}
