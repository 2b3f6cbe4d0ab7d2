// Daily Patience: the single-page client. Hash routes: #/ (home), #/play/<id>, #/daily/<slug>/<date>,
// #/players/<nickname>, #/days/<slug>, #/replay/<id>, #/leagues (and /join/<code>, /<id>), #/account.
import { accountView } from "./account.js";
import { daysView } from "./days.js";
import { homeView } from "./home.js";
import { loadIdentity, onIdentityChange, renderIdentity, session } from "./identity.js";
import { leaderboardView } from "./leaderboard.js";
import { leaguesView } from "./leagues.js";
import { playView } from "./play.js";
import { playerView } from "./player.js";
import { replayView } from "./replay.js";
import "./result.js";
import { renderSettings } from "./settings.js";
import { registerWorker, watchNextDeal } from "./webapp.js";

const root = document.getElementById("view");
const identityArea = document.getElementById("identity");
let cleanup = null;
let routeCount = 0;

function decodePart(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part; // a malformed escape reads as typed
  }
}

function parseRoute() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodePart);
  if (parts[0] === "play" && parts[1]) return { name: "play", id: parts[1] };
  if (parts[0] === "daily" && parts[1] && parts[2]) return { name: "leaderboard", slug: parts[1], date: parts[2] };
  if (parts[0] === "players" && parts[1]) return { name: "player", nickname: parts[1] };
  if (parts[0] === "days") return { name: "days", slug: parts[1] || null };
  if (parts[0] === "replay" && parts[1]) return { name: "replay", id: parts[1] };
  if (parts[0] === "leagues" && parts[1] === "join" && parts[2]) return { name: "leagues", code: parts[2] };
  if (parts[0] === "leagues") return { name: "leagues", id: parts[1] || null };
  if (parts[0] === "account") return { name: "account" };
  return { name: "home" };
}

async function route() {
  const current = ++routeCount;
  if (cleanup) cleanup();
  cleanup = null;
  const where = parseRoute();
  document.body.dataset.route = where.name;
  let close = null;
  if (where.name === "play") close = await playView(root, where.id);
  else if (where.name === "leaderboard") close = await leaderboardView(root, where.slug, where.date);
  else if (where.name === "player") close = await playerView(root, where.nickname);
  else if (where.name === "days") close = await daysView(root, where.slug);
  else if (where.name === "replay") close = await replayView(root, where.id);
  else if (where.name === "leagues") close = await leaguesView(root, where);
  else if (where.name === "account") close = await accountView(root);
  else close = await homeView(root);
  if (current !== routeCount) {
    if (close) close();
    return;
  }
  cleanup = close;
  root.dataset.ready = where.name;
  document.dispatchEvent(new CustomEvent("view-ready", { detail: where }));
}

let started = false;
onIdentityChange(() => {
  renderIdentity(identityArea);
  // Redraw the page for the new player (their leaderboard row, their buttons), not a game in play.
  if (started && parseRoute().name !== "play") route();
});

window.addEventListener("hashchange", route);

const settingsArea = document.getElementById("settings-area");
if (settingsArea) renderSettings(settingsArea);

// The language switch posts to the server, which sets the language cookie and sends the browser
// back to `next`: the page as it is, its #/ route included.
document.getElementById("language-switch")?.addEventListener("submit", (event) => {
  event.target.elements.next.value = location.pathname + location.search + location.hash;
});

await loadIdentity();
if (!session.known) renderIdentity(identityArea);
started = true;
route().finally(() => {
  // Once the first page is shown: the next deal's notice (under the header, on every page), and
  // the service worker.
  const noticeArea = document.getElementById("site-notice");
  if (noticeArea) watchNextDeal(noticeArea);
  registerWorker();
});
