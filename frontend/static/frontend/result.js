// The end-of-game panel of the play view: result, rank among today's players, streak, the
// countdown to tomorrow's deal and a spoiler-free share text (copy, or the Web Share API).
//
// It opens on the table's "game-over" event (a game just won or resigned, or a finished game
// opened) and when the play view of a finished game is ready; it goes away with the route.
import { api, apiPatient } from "./api.js";
import { countdown } from "./countdown.js";
import { h, mount, say } from "./dom.js";
import { t, tn } from "./i18n.js";
import { session } from "./identity.js";
import { leagueRanksFact } from "./leagues.js";
import { drawStory, loadStory } from "./story.js";

const RANK_TRIES = 12; // one a second: verification is quick, a board is cached briefly
const BAR_CELLS = 10;

let current = null; // {gameId, panel, stop}

function close() {
  if (!current) return;
  current.stop();
  current.panel.remove();
  current = null;
}

/** Return the number of cards in a game's position, face-down and stock cards included. */
export function totalCards(game) {
  return game.state.piles.reduce((sum, pile) => sum + pile.cards.length, 0);
}

/** Return the emoji bar of a result: green for the share of cards home, white for the rest. */
export function progressBar(home, total) {
  const filled = total ? Math.round((home / total) * BAR_CELLS) : 0;
  const full = home === total ? BAR_CELLS : Math.min(filled, BAR_CELLS - 1);
  return "🟩".repeat(full) + "⬜".repeat(BAR_CELLS - full);
}

/** Return the share text of a daily game: no card is named, so it spoils nothing. */
export function shareText({ name, game, rank, players, top }) {
  const total = totalCards(game);
  const lines = [
    t("Daily Patience · {name} · {date}", { name, date: game.date }),
    `${progressBar(game.foundation_cards, total)} ${t("{home}/{total} cards home", { home: game.foundation_cards, total })}`,
    game.status === "won"
      ? `✅ ${tn("Won in {count} move", "Won in {count} moves", game.ply)}`
      : `✖️ ${tn("Resigned after {count} move", "Resigned after {count} moves", game.ply)}`,
  ];
  // Others read the share text: a result helped by hints says so.
  if (game.assisted) lines.push(`💡 ${t("Assisted: hints were taken")}`);
  if (rank) {
    const place = t("Rank {rank} of {players}", { rank, players });
    // The place among the day's players ("top 12%"), once there is more than one.
    lines.push(`🏅 ${top && players > 1 ? `${place} · ${t("top {percent}%", { percent: top })}` : place}`);
  }
  lines.push(`${location.origin}/`);
  return lines.join("\n");
}

async function copyText(text, area) {
  try {
    if (!navigator.clipboard) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Older browsers, or a page without the permission: copy through a selected text area.
    area.focus();
    area.select();
    try {
      if (document.execCommand("copy")) return true;
    } catch {
      /* fall through to the manual copy */
    }
    return false;
  }
}

function resultHeading(game) {
  if (game.voided) return t("Result voided");
  if (game.status === "won") return t("You won!");
  return t("Game over");
}

/** Return the result's word for the panel: won or resigned, and assisted or voided when so. */
function resultValue(game) {
  const marks = [];
  if (game.assisted) {
    marks.push(" · ", h("span", { class: "assisted-mark", id: "result-assisted", title: t("A hint was taken: the game ranks after every unassisted result") }, t("assisted")));
  }
  if (game.voided) marks.push(" · ", h("span", { class: "voided-mark", id: "result-voided" }, t("voided")));
  return [game.status === "won" ? t("Won") : t("Resigned"), ...marks];
}

function fact(label, value, cls) {
  return h("div", { class: cls }, h("dt", {}, label), h("dd", {}, value));
}

async function variantName(slug) {
  try {
    const variant = await api("GET", `/api/variants/${encodeURIComponent(slug)}/`);
    return variant.name;
  } catch {
    return slug;
  }
}

function show(game, { focus }) {
  const root = document.getElementById("view");
  if (!root || !location.hash.startsWith("#/play/")) return;
  if (current && current.gameId === game.id && current.status === game.status && current.voided === game.voided) return;
  close();
  const clock = countdown({ id: "result-countdown" });
  const message = h("div", { class: "messages", "aria-live": "polite", id: "result-message" });
  const rank = h("dd", { id: "result-rank" }, t("checking…"));
  const streak = h("dd", { id: "result-streak" }, t("checking…"));
  const shareArea = h("div", { class: "share", id: "result-share" });
  const storyArea = h("div", { class: "story", id: "result-story" });
  const links = h("nav", { class: "result-links", "aria-label": t("After the game") });
  const title = h("h2", { id: "result-title", tabindex: "-1" }, resultHeading(game));
  const closeButton = h("button", { type: "button", class: "secondary close", id: "result-close" }, t("Close"));
  const total = totalCards(game);
  const daily = game.mode === "daily";
  const panel = h(
    "section",
    {
      class: "result-panel",
      id: "result-panel",
      "aria-labelledby": "result-title",
      dataset: { status: game.status, voided: game.voided ? "yes" : "no", assisted: game.assisted ? "yes" : "no" },
    },
    title,
    h(
      "dl",
      { class: "facts" },
      fact(t("Result"), resultValue(game), "result-status"),
      fact(t("Cards home"), t("{home} of {total}", { home: game.foundation_cards, total }), "result-cards"),
      fact(t("Moves"), game.ply, "result-moves"),
      daily ? h("div", {}, h("dt", {}, t("Rank today")), rank) : null,
      daily ? h("div", {}, h("dt", {}, t("Win streak")), streak) : null,
      daily && !game.voided ? leagueRanksFact(game) : null,
    ),
    daily ? clock.el : h("p", { class: "note" }, t("A practice game never reaches a leaderboard.")),
    daily ? null : nextGames(game, message),
    daily ? storyArea : null,
    shareArea,
    message,
    links,
    closeButton,
  );
  current = { gameId: game.id, status: game.status, voided: game.voided, panel, stop: () => clock.stop() };
  if (!daily) clock.stop();
  closeButton.addEventListener("click", close);
  const linkList = [h("a", { href: `#/replay/${encodeURIComponent(game.id)}`, id: "result-replay" }, t("Replay this game"))];
  if (daily) {
    linkList.unshift(h("a", { href: `#/daily/${game.variant}/${game.date}`, id: "result-board" }, t("Today's board")));
    linkList.push(h("a", { href: `#/players/${encodeURIComponent(game.player)}` }, t("My page")));
  }
  mount(links, linkList);
  root.append(panel);
  if (focus) title.focus();
  if (daily && game.voided) fillVoided(game, { rank, streak, message });
  else if (daily) fillDaily(game, { rank, streak, shareArea, storyArea, message });
}

/**
 * The practice panel's way on: "New deal" (a practice game of the same variant on a fresh deal)
 * and "Play today's deal" (the variant's daily game, or the player's own if already started).
 */
function nextGames(game, message) {
  const fresh = h("button", { type: "button", id: "result-new-deal" }, t("New deal"));
  const today = h("button", { type: "button", class: "secondary", id: "result-today" }, t("Play today's deal"));
  const buttons = [fresh, today];
  const start = async (body) => {
    for (const button of buttons) button.disabled = true;
    say(message, "");
    try {
      const next = await apiPatient("POST", "/api/games/", body);
      location.hash = `#/play/${encodeURIComponent(next.id)}`;
    } catch (error) {
      const busy = error.status === 503;
      say(message, busy ? t("The service is too busy to start the game now: try again in a minute.") : error.detail, "error");
      for (const button of buttons) button.disabled = false;
    }
  };
  fresh.addEventListener("click", () => start({ variant: game.variant, mode: "practice" }));
  today.addEventListener("click", () => start({ variant: game.variant, mode: "daily" }));
  return h("div", { class: "next-games", id: "result-next" }, buttons);
}

/** A voided result ranks nowhere and is not shared: the panel says so, and waits for nothing. */
function fillVoided(game, { rank, streak, message }) {
  rank.textContent = t("none: the result is voided");
  streak.textContent = "–";
  say(
    message,
    game.void_reason
      ? t("A moderator voided this result: it is off the leaderboard and your stats ({reason}).", { reason: game.void_reason })
      : t("A moderator voided this result: it is off the leaderboard and your stats."),
    "error",
  );
}

async function fillDaily(game, { rank, streak, shareArea, storyArea, message }) {
  const mine = current;
  const name = await variantName(game.variant);
  const nickname = encodeURIComponent(game.player);
  let entry = null;
  let players = null;
  for (let attempt = 0; attempt < RANK_TRIES && current === mine; attempt += 1) {
    try {
      const board = await api("GET", `/api/leaderboards/${game.variant}/${game.date}/?player=${nickname}&limit=1`);
      entry = board.player_entry || null;
      players = board.total;
    } catch (error) {
      say(message, error.detail, "error");
      break;
    }
    if (entry) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  if (current !== mine) return;
  rank.textContent = entry ? t("{rank} of {players}", { rank: entry.rank, players }) : t("not ranked yet");
  if (!entry) say(message, t("Your result is still being verified: the day's board will show it."));
  try {
    const profile = await api("GET", `/api/players/${nickname}/`);
    const stats = profile.stats[game.variant];
    streak.textContent = stats ? tn("{count} day", "{count} days", stats.current_streak) : "–";
  } catch {
    streak.textContent = "–";
  }
  const story = await loadStory(game);
  if (current !== mine) return;
  drawStory(storyArea, story, game);
  const top = entry && story && story.player ? story.player.top_percent : null;
  drawShare(shareText({ name, game, rank: entry && entry.rank, players, top }), shareArea, message);
}

function drawShare(text, area, message) {
  const box = h("textarea", {
    id: "share-text",
    readonly: true,
    rows: text.split("\n").length,
    "aria-label": t("Text to share"),
  });
  box.value = text;
  const copy = h("button", { type: "button", id: "share-copy" }, t("Copy"));
  copy.addEventListener("click", async () => {
    const done = await copyText(text, box);
    say(message, done ? t("Copied: paste it anywhere.") : t("Press Ctrl+C (or ⌘C) to copy the selected text."));
  });
  const buttons = [copy];
  if (typeof navigator.share === "function") {
    const share = h("button", { type: "button", class: "secondary", id: "share-native" }, t("Share…"));
    share.addEventListener("click", async () => {
      try {
        await navigator.share({ text });
      } catch (error) {
        if (error && error.name !== "AbortError") say(message, t("Sharing failed: copy the text instead."), "error");
      }
    });
    buttons.push(share);
  }
  mount(area, h("h3", {}, t("Share your result")), box, h("div", { class: "share-buttons" }, buttons));
}

document.addEventListener("game-over", (event) => {
  const game = event.detail && event.detail.game;
  if (game && game.status !== "playing") show(game, { focus: true });
});

// A finished game opened from a link: the panel shows without waiting for the table to say so.
document.addEventListener("view-ready", async (event) => {
  const where = event.detail || {};
  if (where.name !== "play" || !where.id) return;
  try {
    const game = await api("GET", `/api/games/${encodeURIComponent(where.id)}/`);
    if (game.status !== "playing" && session.player && game.player === session.player.nickname) {
      show(game, { focus: false });
    }
  } catch {
    /* the play view already says why the game cannot be read */
  }
});

window.addEventListener("hashchange", close);
