// The day's story in the end-of-game panel: how everyone did on the deal (won or not, cards home,
// moves) as two bar charts with a text alternative, the player's bar marked, and the par figures
// (yesterday's winners' median and best line) beside the player's own moves.
//
// It reads GET /api/leaderboards/<slug>/<date>/story/, which answers only once the player has
// finished the deal (or the day is over).
import { api } from "./api.js";
import { h, mount } from "./dom.js";
import { t, tn } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const BAR = 12; // viewBox units per bar
const HEIGHT = 60;

/** Return the day's story of a daily game, or null when it cannot be read (yet). */
export async function loadStory(game) {
  try {
    return await api("GET", `/api/leaderboards/${game.variant}/${game.date}/story/`);
  } catch {
    return null;
  }
}

function range(bar) {
  return bar.from === bar.to ? String(bar.from) : `${bar.from}–${bar.to}`;
}

function svgNode(tag, attrs) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

/**
 * Return a bar chart of `bars` ({from, to, count, won?}) between HTML axes, the bar at `mark`
 * (an index, or -1) outlined and labelled "you"; the SVG's title and desc say it all in words.
 */
function barChart({ id, bars, mark, title, axis, describe }) {
  const width = BAR * bars.length;
  const most = Math.max(1, ...bars.map((bar) => bar.count));
  const room = HEIGHT - 4;
  const svg = svgNode("svg", {
    viewBox: `0 0 ${width} ${HEIGHT}`,
    class: "chart story-chart",
    preserveAspectRatio: "none",
    role: "img",
    "aria-labelledby": `${id}-title ${id}-desc`,
    id,
  });
  const heading = svgNode("title", { id: `${id}-title` });
  heading.textContent = title;
  const desc = svgNode("desc", { id: `${id}-desc` });
  desc.textContent = bars.map((bar, i) => describe(bar) + (i === mark ? ` (${t("you")})` : "")).join("; ");
  svg.append(heading, desc, svgNode("line", { x1: 0, x2: width, y1: HEIGHT, y2: HEIGHT, class: "axis", "vector-effect": "non-scaling-stroke" }));
  bars.forEach((bar, i) => {
    const tall = bar.count ? Math.max(2, Math.round((bar.count / most) * room)) : 0;
    const won = bar.won === undefined ? (bar.from === bar.to && i === bars.length - 1 ? bar.count : 0) : bar.won;
    const wonTall = bar.count ? Math.round((won / bar.count) * tall) : 0;
    const x = i * BAR + 1;
    if (tall > wonTall) svg.append(svgNode("rect", { x, y: HEIGHT - tall, width: BAR - 2, height: tall - wonTall, class: "bar" }));
    if (wonTall) svg.append(svgNode("rect", { x, y: HEIGHT - wonTall, width: BAR - 2, height: wonTall, class: "bar won" }));
    if (i === mark) {
      svg.append(svgNode("rect", { x: i * BAR + 0.5, y: 0.5, width: BAR - 1, height: HEIGHT - 1, class: "mine", "vector-effect": "non-scaling-stroke" }));
    }
  });
  const at = (i) => ({ left: `${((i * BAR + BAR / 2) / width) * 100}%` });
  const last = bars.length - 1;
  const marker = mark >= 0 ? h("span", { class: "story-you", style: at(mark) }, t("you")) : null;
  return h(
    "div",
    { class: "chart-frame story-frame" },
    h("div", { class: "story-marks", "aria-hidden": "true" }, marker),
    svg,
    h(
      "div",
      { class: "chart-x", "aria-hidden": "true" },
      h("span", { class: "first", style: at(0) }, range(bars[0])),
      last > 0 ? h("span", { class: "last", style: at(last) }, range(bars[last])) : null,
    ),
    h("span", { class: "chart-axis-title x", "aria-hidden": "true" }, axis),
  );
}

function barIndex(bars, value) {
  return value === null || value === undefined ? -1 : bars.findIndex((bar) => bar.from <= value && value <= bar.to);
}

function parFacts(story, game) {
  const rows = [[t("Your moves"), game.ply, "story-own-moves"]];
  for (const [day, label] of [
    [story.day, t("This day")],
    [story.yesterday, t("Yesterday")],
  ]) {
    if (!day) continue;
    const median = day.winners_median_moves;
    rows.push([
      t("{day}: par (winners' median moves)", { day: label }),
      median === null ? t("no winner") : tn("{count} move", "{count} moves", median),
      day === story.day ? "story-day-par" : "story-yesterday-par",
    ]);
    rows.push([t("{day}: the solver's best line", { day: label }), day.best_line === null ? "–" : tn("{count} move", "{count} moves", day.best_line), day === story.day ? "story-day-line" : "story-yesterday-line"]);
  }
  return h(
    "dl",
    { class: "facts story-facts" },
    rows.map(([label, value, id]) => h("div", {}, h("dt", {}, label), h("dd", { id }, String(value)))),
  );
}

/** Draw the day's story into `area` (the player's place marked); nothing when `story` is null. */
export function drawStory(area, story, game) {
  if (!story) return;
  const mine = story.player;
  const cardsMark = barIndex(story.cards, mine ? mine.foundation_cards : game.foundation_cards);
  const movesMark = barIndex(story.moves, mine ? mine.moves : null);
  const summary = [tn("{count} player finished the deal", "{count} players finished the deal", story.total), t("{count} won", { count: story.won })].join(", ");
  const place = mine ? t("You rank {rank} of {total}: top {percent}%.", { rank: mine.rank, total: story.total, percent: mine.top_percent }) : "";
  mount(
    area,
    h("h3", {}, t("How the day went")),
    h("p", { id: "story-summary" }, `${summary}. ${place}`.trim()),
    story.total
      ? [
          h(
            "figure",
            { class: "chart-area" },
            barChart({
              id: "story-cards",
              bars: story.cards,
              mark: cardsMark,
              title: t("Players by cards home"),
              axis: t("Cards home"),
              describe: (bar) => tn("{range} cards home: {count} player", "{range} cards home: {count} players", bar.count, { range: range(bar) }),
            }),
          ),
          h(
            "figure",
            { class: "chart-area" },
            barChart({
              id: "story-moves",
              bars: story.moves,
              mark: movesMark,
              title: t("Players by moves"),
              axis: t("Moves"),
              describe: (bar) => tn("{range} moves: {count} player ({won} won)", "{range} moves: {count} players ({won} won)", bar.count, { range: range(bar), won: bar.won }),
            }),
            h("figcaption", {}, t("Green: won. Your bar is outlined.")),
          ),
        ]
      : null,
    parFacts(story, game),
  );
}
