// The leaderboard of one daily deal, kept live by the deal's WebSocket.
import { api } from "./api.js";
import { RetryNotice } from "./backoff.js";
import { Connection } from "./connection.js";
import { h, mount, say, formatDuration } from "./dom.js";
import { t, tn } from "./i18n.js";
import { session } from "./identity.js";

function statusWord(status) {
  return { won: t("won"), resigned: t("resigned"), playing: t("playing") }[status] || status;
}

/** The mark of a result helped by hints (it ranks after every unassisted one), or null. */
export function assistedMark(result) {
  if (!result.assisted) return null;
  const title = t("A hint was taken: the game ranks after every unassisted result");
  return [" ", h("span", { class: "assisted-mark", title }, t("assisted"))];
}

/**
 * A board's row of one result, on every board (a day's, a league's): the rank, the player (the
 * `player` nodes), the `before` cells, then cards home, moves and time; the viewer's own row marked.
 */
export function entryRow(entry, player, before = []) {
  return h(
    "tr",
    { class: session.player && session.player.nickname === entry.player ? "me" : null, dataset: { player: entry.player } },
    h("td", { class: "rank" }, entry.rank),
    h("th", { scope: "row", class: "player" }, ...player),
    ...before,
    h("td", { class: "num" }, entry.foundation_cards),
    h("td", { class: "num" }, entry.moves),
    h("td", { class: "num" }, formatDuration(entry.duration_ms)),
  );
}

export async function leaderboardView(root, slug, date) {
  const message = h("div", { class: "messages", "aria-live": "polite", id: "leaderboard-message" });
  const heading = h("h2", { id: "leaderboard-title" }, t("Leaderboard · {date}", { date }));
  const deal = h("div", { class: "deal-proof", id: "deal-proof" });
  const body = h("tbody", { id: "leaderboard-rows" });
  const table = h(
    "table",
    { class: "leaderboard", "aria-labelledby": "leaderboard-title" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        // Each heading with the short word a phone shows in its place (the full one stays for
        // screen readers): the columns close up, so that no row is wider than a phone.
        [
          [t("Rank"), "#"],
          [t("Player"), null],
          [t("Status"), null],
          [t("Foundation cards"), t("Cards")],
          [t("Moves"), null],
          [t("Duration"), t("Time")],
        ].map(([label, short], i) =>
          h(
            "th",
            { scope: "col", class: i >= 3 ? "num" : null },
            short ? [h("span", { class: "long" }, label), h("span", { class: "short", "aria-hidden": "true" }, short)] : label,
          ),
        ),
      ),
    ),
    body,
  );
  const feed = h("ol", { class: "feed", id: "live-feed", "aria-live": "polite", "aria-relevant": "additions" });
  const liveState = h("span", { class: "live-state", id: "live-state" }, t("connecting…"));
  const notice = new RetryNotice("live-retry");
  mount(
    root,
    h(
      "section",
      { class: "leaderboard-view", "aria-labelledby": "leaderboard-title" },
      heading,
      deal,
      message,
      h("div", { class: "leaderboard-layout" },
        h("div", { class: "leaderboard-scroll" }, table),
        h(
          "aside",
          { class: "live", "aria-label": t("Live progress") },
          h("h3", {}, t("Live"), " ", liveState),
          notice.el,
          feed,
        ),
      ),
    ),
  );

  // Replays of a daily deal's games open to everyone once its (UTC) day is over.
  const dayOver = date < new Date().toISOString().slice(0, 10);
  const showEntries = (entries) => {
    if (!entries.length) {
      mount(body, h("tr", {}, h("td", { colspan: 6, class: "empty" }, t("No finished game yet."))));
      return;
    }
    mount(
      body,
      entries.map((entry) =>
        entryRow(
          entry,
          [
            h("a", { href: `#/players/${encodeURIComponent(entry.player)}` }, entry.player),
            dayOver && entry.game
              ? h("a", { class: "replay-link", href: `#/replay/${encodeURIComponent(entry.game)}`, "aria-label": t("Replay of {player}'s game", { player: entry.player }) }, ` ▶ ${t("replay")}`)
              : null,
          ],
          [h("td", { class: `status ${entry.status}` }, statusWord(entry.status), assistedMark(entry))],
        ),
      ),
    );
  };

  const path = `${encodeURIComponent(slug)}/${encodeURIComponent(date)}`;
  const [board, daily, variants] = await Promise.allSettled([
    api("GET", `/api/leaderboards/${path}/`),
    api("GET", `/api/daily/${path}/`),
    api("GET", "/api/variants/"),
  ]);
  if (variants.status === "fulfilled") {
    const variant = variants.value.find((item) => item.slug === slug);
    if (variant) heading.textContent = t("{name} · leaderboard of {date}", { name: variant.name, date });
  }
  if (board.status === "fulfilled") showEntries(board.value.entries || []);
  else say(message, board.reason.detail, "error");
  if (daily.status === "fulfilled") {
    const info = daily.value;
    mount(
      deal,
      h(
        "dl",
        { class: "facts" },
        h("div", {}, h("dt", {}, t("Players")), h("dd", {}, info.players)),
        h("div", {}, h("dt", {}, t("Finished")), h("dd", {}, info.finished)),
        h("div", {}, h("dt", { title: t("SHA-256 of the deal's secret seed") }, t("Commitment")), h("dd", {}, h("code", { class: "hash" }, info.commitment))),
        h(
          "div",
          {},
          h("dt", {}, t("Seed")),
          h("dd", { id: "seed" }, info.seed ? h("code", { class: "hash" }, info.seed) : t("revealed once the day is over")),
        ),
      ),
    );
  }

  // The deal's socket (connection.js): greeted by its first push, opened again when lost or
  // refused by a busy server.
  const handle = (data) => {
    if (data.type === "leaderboard") showEntries(data.entries || []);
    if (data.type === "progress") {
      for (const p of data.players || [data]) {
        feed.prepend(
          h(
            "li",
            {},
            h("strong", {}, p.player),
            tn(": {count} card home", ": {count} cards home", p.foundation_cards),
            tn(", {count} move", ", {count} moves", p.ply),
          ),
        );
      }
      while (feed.children.length > 30) feed.lastChild.remove();
    }
  };
  const connection = new Connection(`/ws/daily/${path}/`, {
    greets: (data) => data.type !== "error",
    onGreeting: handle,
    onMessage: handle,
    onState: (state, retryMs) => {
      liveState.textContent = state === "open" ? t("connected") : t("disconnected");
      liveState.dataset.state = state === "open" ? "open" : "closed";
      if (state === "open") delete liveState.dataset.retryMs;
      else if (retryMs !== null) liveState.dataset.retryMs = String(retryMs);
    },
    notice,
  });
  connection.connect();
  return () => connection.close();
}
