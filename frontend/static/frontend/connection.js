// A live socket of the server's (a game's, a day's board), greeted, watched and opened again.
//
// The server greets a new socket (a game, a board); until then the socket is not usable: a busy
// server opens a socket only to refuse it, with {"type": "error", "error": "unavailable",
// "retry_after": s}, and closes it. A lost socket is opened again after a wait (backoff.js):
// retry_after × (1 + random) after a refusal (always, at the server's pace), else a backoff with
// jitter that grows with each loss in a row (capped at 30 s), for as long as the page is visible.
// A page that is hidden (a phone asleep, another tab) opens no socket after a loss: it waits, and
// so does a page offline. The socket opens again at once when the page is shown again
// (`visibilitychange`), gets the focus, or the browser says the network is back (`online`); the
// server then greets it with the game or board as it is now, so play continues from its ply.
import { socketUrl } from "./api.js";
import { retryAfterOf, retryDelay } from "./backoff.js";


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
    this.busy = false; // the wait under way is a busy server's: it is not cut short
    this.onResume = () => {
      if (document.visibilityState !== "hidden") this.resume();
    };
    window.addEventListener("online", this.onResume);
    window.addEventListener("focus", this.onResume);
    document.addEventListener("visibilitychange", this.onResume);
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
    this.busy = false;
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
    // Offline or hidden: no wait runs; resume() opens it again when the page can use it.
    if (!navigator.onLine || document.visibilityState === "hidden") return;
    const busy = Boolean(refusal);
    this.failures += 1;
    this.busy = busy;
    const delay = retryDelay(this.failures, busy ? retryAfterOf(refusal) : null);
    if (busy) this.notice?.show(delay);
    else this.notice?.clear();
    this.onState(busy ? "waiting" : "closed", Math.round(delay));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /**
   * Open the socket at once if it is down (the page is shown again, has the focus, the network is
   * back), with a fresh count of losses; a busy server's wait is never cut short.
   */
  resume() {
    if (this.closed || this.socket || this.busy || !this.wanted()) return;
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
    window.removeEventListener("online", this.onResume);
    window.removeEventListener("focus", this.onResume);
    document.removeEventListener("visibilitychange", this.onResume);
    clearTimeout(this.timer);
    this.notice?.clear();
    if (this.socket) this.socket.close();
  }
}
