// A live countdown to the next UTC day, when every daily variant gets its next deal.
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** Return the milliseconds from `now` to the next UTC midnight. */
export function untilNextDeal(now = Date.now()) {
  const date = new Date(now);
  const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
  return next - now;
}

function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = String(Math.floor((total % 3600) / 60)).padStart(2, "0");
  const seconds = String(total % 60).padStart(2, "0");
  return `${hours}:${minutes}:${seconds}`;
}

/**
 * Return `{el, stop}`: a paragraph "Next deal in h:mm:ss" ticking every second. When the day
 * turns it says so and calls `onNewDay` (once). `stop()` ends the ticking.
 */
export function countdown({ onNewDay = null, id = null } = {}) {
  const time = h("time", { class: "countdown-time" });
  const el = h(
    "p",
    { class: "countdown", id, role: "timer", "aria-live": "off" },
    t("Next deal in"),
    " ",
    time,
  );
  let timer = null;
  let turned = false;
  const tick = () => {
    const left = untilNextDeal();
    time.textContent = clockText(left);
    time.setAttribute("datetime", `PT${Math.max(0, Math.ceil(left / 1000))}S`);
    // A day's last second reads 0:00:00; the clock then wraps to a full day.
    if (left > 86_399_000 && timer !== null && !turned) {
      turned = true;
      el.replaceChildren(t("A new deal is out."));
      if (onNewDay) onNewDay();
    }
  };
  tick();
  timer = setInterval(tick, 1000);
  return {
    el,
    stop() {
      clearInterval(timer);
    },
  };
}
