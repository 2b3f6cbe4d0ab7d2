// The page as an installed app: its service worker (served at /sw.js: config/webapp.py), and the
// notice that the next deal is ready, in the page and, if the player allows, as a notification.
import { api } from "./api.js";
import { untilNextDeal } from "./countdown.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { NOTIFY_KEY, preference } from "./preferences.js";

const LONGEST_TIMER = 2 ** 31 - 1; // setTimeout's longest wait
const LATE_MS = 2000; // after midnight (UTC), before asking whether the new deals are out
const ASK_EVERY_MS = 30_000; // and again while they are not
const ASKS = 20;

/** Register the service worker, once the page has what it needs (it is no part of a first visit). */
export function registerWorker() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // No worker (a private window, a browser that refuses): the page works as a page.
  });
}

function todayUtc(now = Date.now()) {
  return new Date(now).toISOString().slice(0, 10);
}

/** Show a notification of the next deal, when the player allowed them here and the browser can. */
async function notify(text) {
  if (!("Notification" in window) || Notification.permission !== "granted" || !preference(NOTIFY_KEY, false)) return;
  const options = { body: text, tag: "next-deal", icon: document.querySelector('link[rel="apple-touch-icon"]')?.href, lang: document.documentElement.lang };
  try {
    const registration = "serviceWorker" in navigator ? await navigator.serviceWorker.getRegistration() : null;
    if (registration) await registration.showNotification("Daily Patience", options);
    else new Notification("Daily Patience", options);
  } catch {
    // A notification refused by the system: the notice in the page stays.
  }
}

/**
 * Watch for the next day's deals while the page is open: at UTC midnight (or when the page comes
 * back after it), ask the server until its list of deals is dated today, then show the notice in
 * `area` (and a notification, if allowed). `now` and `deals` can be replaced to check it.
 */
export function watchNextDeal(area, { now = () => Date.now(), deals = () => api("GET", "/api/daily/") } = {}) {
  let day = todayUtc(now());
  let timer = null;
  let asks = 0;
  const arm = (ms) => {
    clearTimeout(timer);
    timer = setTimeout(check, Math.min(ms, LONGEST_TIMER));
  };
  const show = () => {
    const text = t("Today's deals are ready.");
    const close = h("button", { type: "button", class: "secondary", id: "next-deal-close" }, t("Dismiss"));
    close.addEventListener("click", () => mount(area));
    mount(area, h("p", { class: "message note next-deal-notice", id: "next-deal-notice", role: "status" }, text, " ", h("a", { href: "#/", id: "next-deal-link" }, t("Play them")), " ", close));
    notify(text);
  };
  async function check() {
    const today = todayUtc(now());
    if (today === day) {
      asks = 0;
      arm(untilNextDeal(now()) + LATE_MS);
      return;
    }
    let list = null;
    try {
      list = await deals();
    } catch {
      list = null;
    }
    if (Array.isArray(list) && list.some((deal) => deal.date === today)) {
      day = today;
      asks = 0;
      show();
      arm(untilNextDeal(now()) + LATE_MS);
    } else if ((asks += 1) < ASKS) arm(ASK_EVERY_MS);
  }
  // A phone asleep runs no timer: look again when the page is shown.
  const onVisible = () => {
    if (document.visibilityState === "visible") check();
  };
  document.addEventListener("visibilitychange", onVisible);
  arm(untilNextDeal(now()) + LATE_MS);
  return () => {
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", onVisible);
  };
}
