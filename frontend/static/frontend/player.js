// A player's page: stats per variant, a chart of recent results, and the paged history with
// links to each day's board and to the replays that are open.
import { api } from "./api.js";
import { formatDuration, h, mount, say } from "./dom.js";
import { language, t } from "./i18n.js";
import { session } from "./identity.js";
import { assistedMark } from "./leaderboard.js";

const PAGE = 20;
const CHART_DAYS = 30;

function percent(rate) {
  return `${Math.round(rate * 1000) / 10}%`;
}

function statusWord(status) {
  return { won: t("won"), resigned: t("resigned"), playing: t("playing") }[status] || status;
}

function statsTable(profile, names) {
  const rows = Object.entries(profile.stats).map(([slug, stats]) =>
    h(
      "tr",
      { dataset: { variant: slug } },
      h("th", { scope: "row" }, names.get(slug) || slug),
      h("td", { class: "num played" }, stats.played),
      h("td", { class: "num won" }, stats.won),
      h("td", { class: "num rate" }, stats.played ? percent(stats.win_rate) : "–"),
      h("td", { class: "num streak" }, stats.current_streak),
      h("td", { class: "num best" }, stats.best_streak),
      h("td", { class: "num average" }, stats.average_moves ?? "–"),
    ),
  );
  const headers = [t("Game"), t("Played"), t("Won"), t("Win rate"), t("Current streak"), t("Best streak"), t("Average moves")];
  return h(
    "table",
    { class: "variant-stats", id: "player-stats", "aria-labelledby": "stats-title" },
    h("thead", {}, h("tr", {}, headers.map((label, i) => h("th", { scope: "col", class: i ? "num" : null }, label)))),
    h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 7 }, t("No daily game yet.")))),
  );
}

/** A short date of the chart's axis, in the page's language ("6 dic."). */
function axisDate(date) {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(language, { day: "numeric", month: "short", timeZone: "UTC" });
}

/**
 * Return a bar chart of cards home per result (oldest left), with a text alternative: an SVG of
 * the bars and grid lines, between HTML axes (the share of the variant's cards, 0 to 100 %, and
 * the days of the first and last results), whose text keeps its size however the chart scales.
 */
export function resultsChart(results, totals) {
  const shown = results.slice(0, CHART_DAYS).reverse();
  const width = 12 * CHART_DAYS; // bars keep their width however few results there are
  const height = 60;
  const room = height - 4;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-labelledby", "chart-title chart-desc");
  const title = document.createElementNS(ns, "title");
  title.id = "chart-title";
  title.textContent = t("Cards home in the last {count} results", { count: shown.length });
  const desc = document.createElementNS(ns, "desc");
  desc.id = "chart-desc";
  const shares = [1, 0.5, 0];
  for (const share of shares) {
    const line = document.createElementNS(ns, "line");
    const y = String(height - share * room);
    line.setAttribute("x1", "0");
    line.setAttribute("x2", String(width));
    line.setAttribute("y1", y);
    line.setAttribute("y2", y);
    line.setAttribute("class", share ? "grid" : "axis");
    line.setAttribute("vector-effect", "non-scaling-stroke");
    svg.append(line);
  }
  const sentences = [];
  shown.forEach((result, i) => {
    const total = totals.get(result.variant) || 52;
    const bar = document.createElementNS(ns, "rect");
    const tall = Math.max(2, Math.round((result.foundation_cards / total) * room));
    bar.setAttribute("x", String(i * 12 + 1));
    bar.setAttribute("y", String(height - tall));
    bar.setAttribute("width", "10");
    bar.setAttribute("height", String(tall));
    bar.setAttribute("class", `bar ${result.status}`);
    svg.append(bar);
    sentences.push(
      t("{date}: {home} of {total} cards, {status}", {
        date: result.date,
        home: result.foundation_cards,
        total,
        status: statusWord(result.status),
      }),
    );
  });
  desc.textContent = sentences.join("; ");
  svg.prepend(title, desc);
  // The axes repeat what the text alternative says: hidden from screen readers.
  const share = new Intl.NumberFormat(language, { style: "percent" });
  const yAxis = h(
    "div",
    { class: "chart-y", "aria-hidden": "true" },
    shares.map((value) => h("span", { style: { top: `${((height - value * room) / height) * 100}%` } }, share.format(value))),
  );
  const at = (i) => ({ left: `${((i * 12 + 6) / width) * 100}%` });
  const last = shown.length - 1;
  // The first and last days under their bars; when the bars are too close for two labels, one
  // label says both.
  const apart = last >= 8;
  const [oldest, newest] = [axisDate(shown[0].date), axisDate(shown[last].date)];
  const first = apart || oldest === newest ? oldest : `${oldest} – ${newest}`;
  const xAxis = h(
    "div",
    { class: "chart-x", "aria-hidden": "true" },
    h("span", { class: "first", style: at(0) }, first),
    apart ? h("span", { class: "last", style: at(last) }, axisDate(shown[last].date)) : null,
  );
  return h(
    "div",
    { class: "chart-frame" },
    h("span", { class: "chart-axis-title y", "aria-hidden": "true" }, t("Cards home")),
    yAxis,
    svg,
    xAxis,
    h("span", { class: "chart-axis-title x", "aria-hidden": "true" }, t("Day")),
  );
}

export async function playerView(root, nickname) {
  const message = h("div", { class: "messages", "aria-live": "polite", id: "player-message" });
  const heading = h("h2", { id: "player-title" }, nickname);
  const statsArea = h("div", { id: "stats-area", class: "table-scroll" });
  const chartArea = h("figure", { class: "chart-area", id: "player-chart" });
  const history = h("tbody", { id: "history-rows" });
  const pager = h("div", { class: "pager" });
  const filter = h("select", { id: "history-variant" }, h("option", { value: "" }, t("All games")));
  mount(
    root,
    h(
      "section",
      { class: "player-view", "aria-labelledby": "player-title" },
      heading,
      message,
      h("h3", { id: "stats-title" }, t("Daily games")),
      statsArea,
      chartArea,
      h("h3", { id: "history-title" }, t("History")),
      h("p", {}, h("label", { for: "history-variant" }, t("Show")), " ", filter),
      h(
        "div",
        { class: "table-scroll" },
        h(
        "table",
        { class: "history", "aria-labelledby": "history-title" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            [t("Day"), t("Game"), t("Result"), t("Cards home"), t("Moves"), t("Time"), t("Rank"), t("Links")].map(
              (label, i) => h("th", { scope: "col", class: i >= 3 && i <= 6 ? "num" : null }, label),
            ),
          ),
        ),
        history,
      ),
      ),
      pager,
    ),
  );
  const path = `/api/players/${encodeURIComponent(nickname)}/`;
  let profile;
  let variants;
  try {
    [profile, variants] = await Promise.all([api("GET", path), api("GET", "/api/variants/")]);
  } catch (error) {
    say(message, error.status === 404 ? t("No player is called {nickname}.", { nickname }) : error.detail, "error");
    return null;
  }
  const names = new Map(variants.map((variant) => [variant.slug, variant.name]));
  const totals = new Map(variants.map((variant) => [variant.slug, variant.decks * 52]));
  // In the page's language, not the browser's: "2 December 2026", « 2 décembre 2026 ».
  const joined = profile.joined
    ? new Date(profile.joined).toLocaleDateString(language, { day: "numeric", month: "long", year: "numeric" })
    : null;
  mount(
    heading,
    profile.nickname,
    joined ? h("small", { class: "joined" }, ` · ${t("playing since {date}", { date: joined })}`) : null,
  );
  mount(statsArea, statsTable(profile, names));
  for (const slug of Object.keys(profile.stats)) filter.append(h("option", { value: slug }, names.get(slug) || slug));

  const isMe = session.player && session.player.nickname.toLowerCase() === profile.nickname.toLowerCase();
  const today = new Date().toISOString().slice(0, 10);
  let offset = 0;
  let closed = false;

  const row = (result) => {
    const open = isMe || result.date < today;
    return h(
      "tr",
      { dataset: { variant: result.variant, date: result.date } },
      h("td", {}, result.date),
      h("td", {}, names.get(result.variant) || result.variant),
      h("td", { class: `status ${result.status}` }, statusWord(result.status), assistedMark(result)),
      h("td", { class: "num" }, result.foundation_cards),
      h("td", { class: "num" }, result.moves),
      h("td", { class: "num" }, formatDuration(result.duration_ms)),
      h("td", { class: "num" }, result.rank ?? "–"),
      h(
        "td",
        { class: "links" },
        h("a", { href: `#/daily/${result.variant}/${result.date}` }, t("Board")),
        open && result.game
          ? [" · ", h("a", { href: `#/replay/${encodeURIComponent(result.game)}`, class: "replay-link" }, t("Replay"))]
          : null,
      ),
    );
  };

  const load = async () => {
    const variant = filter.value;
    const query = new URLSearchParams({ offset: String(offset), limit: String(PAGE) });
    if (variant) query.set("variant", variant);
    let page;
    try {
      page = await api("GET", `${path}results/?${query}`);
    } catch (error) {
      say(message, error.detail, "error");
      return;
    }
    if (closed) return;
    mount(history, page.results.length ? page.results.map(row) : h("tr", {}, h("td", { colspan: 8 }, t("No result yet."))));
    if (offset === 0) {
      mount(
        chartArea,
        page.results.length ? resultsChart(page.results, totals) : null,
        h("figcaption", {}, page.results.length ? t("Cards home per day, oldest first (green: won).") : t("No result to chart yet.")),
      );
    }
    const previous = h("button", { type: "button", class: "secondary", disabled: offset === 0 }, t("Newer"));
    const next = h("button", { type: "button", class: "secondary", disabled: offset + PAGE >= page.total }, t("Older"));
    previous.addEventListener("click", () => {
      offset = Math.max(0, offset - PAGE);
      load();
    });
    next.addEventListener("click", () => {
      offset += PAGE;
      load();
    });
    const last = Math.min(page.total, offset + PAGE);
    mount(
      pager,
      previous,
      h("span", { "aria-live": "polite" }, page.total ? t("{first}–{last} of {total}", { first: offset + 1, last, total: page.total }) : ""),
      next,
    );
  };
  filter.addEventListener("change", () => {
    offset = 0;
    load();
  });
  await load();
  return () => {
    closed = true;
  };
}
