// Past days: a month calendar of a daily variant's deals, each day linking to its board.
import { api } from "./api.js";
import { h, mount, say } from "./dom.js";
import { language, t } from "./i18n.js";

function monthStart(date) {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
}

function addMonths(date, n) {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + n, 1));
}

function iso(date) {
  return date.toISOString().slice(0, 10);
}

/** The deals of one month of `slug`, by date (the history's page before the next month). */
async function monthDeals(slug, month) {
  const before = iso(addMonths(month, 1));
  const answer = await api("GET", `/api/daily/${encodeURIComponent(slug)}/?before=${before}&limit=31`);
  const deals = new Map();
  for (const deal of answer.deals) if (deal.date >= iso(month)) deals.set(deal.date, deal);
  return { answer, deals };
}

export async function daysView(root, slug) {
  const message = h("div", { class: "messages", "aria-live": "polite", id: "days-message" });
  const heading = h("h2", { id: "days-title" }, t("Past days"));
  const tabs = h("nav", { class: "variant-tabs", "aria-label": t("Games") });
  const monthTitle = h("h3", { id: "month-title", "aria-live": "polite" });
  const previous = h("button", { type: "button", class: "secondary", id: "month-previous" }, `← ${t("Earlier month")}`);
  const next = h("button", { type: "button", class: "secondary", id: "month-next" }, `${t("Later month")} →`);
  const grid = h("div", { class: "calendar-area" });
  mount(
    root,
    h(
      "section",
      { class: "days-view", "aria-labelledby": "days-title" },
      heading,
      tabs,
      message,
      h("div", { class: "month-bar" }, previous, monthTitle, next),
      grid,
    ),
  );
  let variants;
  try {
    variants = (await api("GET", "/api/variants/")).filter((variant) => variant.daily);
  } catch (error) {
    say(message, error.detail, "error");
    return null;
  }
  if (!variants.length) {
    say(message, t("No game has daily deals."), "error");
    return null;
  }
  const variant = variants.find((item) => item.slug === slug) || variants[0];
  mount(
    tabs,
    variants.map((item) =>
      h("a", { href: `#/days/${item.slug}`, "aria-current": item.slug === variant.slug ? "page" : null }, item.name),
    ),
  );
  heading.textContent = t("{name}: past days", { name: variant.name });

  const now = new Date();
  let month = monthStart(now);
  let first = null;
  let closed = false;
  const monthName = (date) => date.toLocaleDateString(language, { month: "long", year: "numeric", timeZone: "UTC" });
  const dayName = (date) => date.toLocaleDateString(language, { weekday: "long", day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

  const draw = async () => {
    let found;
    try {
      found = await monthDeals(variant.slug, month);
    } catch (error) {
      say(message, error.detail, "error");
      return;
    }
    if (closed) return;
    first = found.answer.first;
    const today = found.answer.today;
    monthTitle.textContent = monthName(month);
    previous.disabled = !first || iso(month) <= first;
    next.disabled = iso(addMonths(month, 1)) > today;
    const weekdays = [];
    for (let i = 0; i < 7; i += 1) {
      const day = new Date(Date.UTC(2024, 0, 1 + i)); // 1 January 2024 was a Monday
      weekdays.push(h("th", { scope: "col", abbr: day.toLocaleDateString(language, { weekday: "long", timeZone: "UTC" }) }, day.toLocaleDateString(language, { weekday: "short", timeZone: "UTC" })));
    }
    const rows = [];
    let cells = [];
    const lead = (month.getUTCDay() + 6) % 7;
    for (let i = 0; i < lead; i += 1) cells.push(h("td", { class: "blank" }));
    for (let day = new Date(month); day.getUTCMonth() === month.getUTCMonth(); day = new Date(day.getTime() + 86_400_000)) {
      const date = iso(day);
      const deal = found.deals.get(date);
      let content = h("span", { class: "day-number", "aria-hidden": date > today ? "true" : null }, day.getUTCDate());
      if (deal) {
        const label = [
          dayName(day),
          t("{players} players", { players: deal.players }),
          deal.certified ? t("proved winnable") : null,
          date === today ? t("today") : null,
        ]
          .filter(Boolean)
          .join(", ");
        content = h(
          "a",
          { href: `#/daily/${variant.slug}/${date}`, class: "day-link", "aria-label": label, dataset: { date } },
          h("span", { class: "day-number" }, day.getUTCDate()),
          h("span", { class: "day-players", "aria-hidden": "true" }, deal.players),
        );
      }
      cells.push(h("td", { class: `${deal ? "dealt" : "none"}${date === today ? " today" : ""}` }, content));
      if (cells.length === 7) {
        rows.push(h("tr", {}, cells));
        cells = [];
      }
    }
    if (cells.length) {
      while (cells.length < 7) cells.push(h("td", { class: "blank" }));
      rows.push(h("tr", {}, cells));
    }
    mount(
      grid,
      h(
        "table",
        { class: "calendar", id: "calendar", "aria-labelledby": "month-title" },
        h("thead", {}, h("tr", {}, weekdays)),
        h("tbody", {}, rows),
      ),
      found.deals.size ? null : h("p", { class: "empty" }, t("No deal this month.")),
      h("p", { class: "note" }, t("Each day links to its board; the number under it counts its players.")),
    );
  };
  previous.addEventListener("click", () => {
    month = addMonths(month, -1);
    draw();
  });
  next.addEventListener("click", () => {
    month = addMonths(month, 1);
    draw();
  });
  await draw();
  return () => {
    closed = true;
  };
}
