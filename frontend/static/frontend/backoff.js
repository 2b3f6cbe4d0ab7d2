// Waiting before trying again: how long a socket waits to reconnect, or a refused request to be
// sent again, and the notice the player reads meanwhile.
//
// A busy server refuses a new socket with {"type": "error", "error": "unavailable", "retry_after": s}
// and a 1011 close, and a request with 503 `unavailable`, `retry_after` and Retry-After. The client
// then waits retry_after × (1 + random) seconds: never sooner than asked, and spread over as long
// again, so that players refused at the same moment do not all come back at the same moment. With
// no retry_after it waits an exponential backoff with equal jitter: half of min(CAP_MS, BASE_MS ×
// 2^(attempt − 1)), plus a random part of the other half.
import { h } from "./dom.js";
import { t } from "./i18n.js";

export const BASE_MS = 1000; // the first backoff step, and the shortest retry_after honoured
export const CAP_MS = 30_000; // the longest backoff step
export const LONGEST_MS = 300_000; // the longest retry_after honoured (a server's typo waits no hour)

/**
 * Return the milliseconds to wait before try number `attempt` (1 for the first retry), given the
 * server's `retryAfter` in seconds (null when it named none). `random` returns a number in [0, 1):
 * Math.random, or a fixed one to check the arithmetic.
 */
export function retryDelay(attempt, retryAfter = null, random = Math.random) {
  const jitter = random();
  if (typeof retryAfter === "number" && Number.isFinite(retryAfter) && retryAfter >= 0) {
    const asked = Math.min(Math.max(retryAfter * 1000, BASE_MS), LONGEST_MS);
    return asked * (1 + jitter);
  }
  const step = Math.min(CAP_MS, BASE_MS * 2 ** Math.max(0, attempt - 1));
  return step / 2 + (step / 2) * jitter;
}

/** Return the seconds a refusal (a socket's error frame or an error body) asks to wait, else null. */
export function retryAfterOf(refusal) {
  const value = refusal ? refusal.retry_after : null;
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/** Resolve after `ms` milliseconds. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The notice of a wait: "The service is busy; retrying in 4 s…", counting down, until cleared.
 * Screen readers hear it once, when it appears, not every second. `el` goes in the page; while a
 * wait is shown, its `data-retry-ms` holds the wait as computed (for tests and curious readers).
 */
export class RetryNotice {
  constructor(id) {
    this.text = h("p", { class: "message note retry-notice", id, "aria-hidden": "true" });
    this.spoken = h("span", { class: "visually-hidden", "aria-live": "polite" });
    this.el = h("div", { class: "retry-area" }, this.spoken);
    this.timer = null;
  }

  show(ms) {
    clearInterval(this.timer);
    this.until = performance.now() + ms;
    this.text.dataset.retryMs = String(Math.round(ms));
    this.tick();
    if (this.text.parentNode !== this.el) this.el.prepend(this.text);
    this.spoken.textContent = this.sentence();
    this.timer = setInterval(() => this.tick(), 250);
  }

  sentence() {
    const seconds = Math.ceil(Math.max(0, this.until - performance.now()) / 1000);
    return seconds > 0
      ? t("The service is busy; retrying in {seconds} s…", { seconds })
      : t("The service is busy; retrying now…");
  }

  tick() {
    const sentence = this.sentence();
    if (this.text.textContent !== sentence) this.text.textContent = sentence;
  }

  clear() {
    clearInterval(this.timer);
    this.timer = null;
    this.spoken.textContent = "";
    delete this.text.dataset.retryMs;
    this.text.remove();
  }
}
