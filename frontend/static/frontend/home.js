// Home: today's daily deals with my status on each, difficulty and certification, live counts,
// a countdown to the next deal, and links to play, the board, past days and the rules.
import { api, apiPatient } from "./api.js";
import { RetryNotice } from "./backoff.js";
import { countdown } from "./countdown.js";
import { h, mount, say } from "./dom.js";
import { familyName, gameFilter } from "./home-filter.js";
import { t, tn } from "./i18n.js";
import { askForIdentity, session } from "./identity.js";
import { myLeaguesSection } from "./leagues.js";

// While a deal made on demand is being checked, the home page asks again this often: the
// scheduler certifies it at its next look, and the card then says so.
const CHECKING_POLL_MS = 30_000;

export async function homeView(root) {
  const message = h("div", { class: "messages", "aria-live": "polite", id: "home-message" });
  const list = h("ul", { class: "deals", id: "deals", "aria-busy": "true" });
  const filters = h("div", { class: "game-filters" });
  const notice = new RetryNotice("home-retry");
  const clock = countdown({ id: "next-deal", onNewDay: () => window.dispatchEvent(new HashChangeEvent("hashchange")) });
  mount(
    root,
    h(
      "section",
      { class: "home", "aria-labelledby": "today-title" },
      h("div", { class: "home-head" }, h("h2", { id: "today-title" }, t("Today's deals")), clock.el),
      h(
        "p",
        { class: "intro" },
        t(
          "Every player gets the same deal of each game today. Play it, and once the server has " +
            "replayed your moves, your result joins the day's leaderboard. Tomorrow the seed is " +
            "revealed, so anyone can re-derive the deal and check it.",
        ),
      ),
      message,
      notice.el,
      filters,
      list,
    ),
  );
  let checking = null;
  let leagues = null;
  const stop = () => {
    clock.stop();
    notice.clear();
    if (checking) clearInterval(checking);
    if (leagues) leagues.stop();
  };
  let daily;
  let variants;
  try {
    // The list is what everyone opens at the day's rollover: a busy server's 503 is tried again.
    const patiently = { onWait: (ms) => notice.show(ms) };
    [daily, variants] = await Promise.all([
      apiPatient("GET", "/api/daily/", undefined, patiently),
      apiPatient("GET", "/api/variants/", undefined, patiently),
    ]);
    notice.clear();
  } catch (error) {
    notice.clear();
    say(message, t("Today's deals cannot be loaded: {detail}", { detail: error.detail }), "error");
    list.removeAttribute("aria-busy");
    return stop;
  }
  const { today: mine, played } = await myGames(daily);
  const bySlug = new Map(variants.map((variant) => [variant.slug, variant]));
  const items = daily.map((deal) => dealItem(deal, bySlug.get(deal.variant), mine.get(deal.variant)));
  for (const variant of variants) {
    if (!daily.some((deal) => deal.variant === variant.slug)) {
      items.push(dealItem(null, variant, null));
    }
  }
  // Mine first: the games I played, the last played first; then the others in display order.
  const rank = (item) => (played.includes(item.dataset.variant) ? played.indexOf(item.dataset.variant) : played.length);
  items.sort((a, b) => rank(a) - rank(b));
  for (const item of items) item.dataset.mine = played.includes(item.dataset.variant) ? "yes" : "no";
  mount(list, items);
  mount(filters, gameFilter(items));
  list.removeAttribute("aria-busy");
  // My leagues' live boards beside everyone's (leagues.js), today's game I played last first.
  leagues = await myLeaguesSection(daily, variants, [...mine.keys()][0]);
  if (leagues) root.querySelector(".home")?.append(leagues.el); // gone if the route changed
  if (daily.some((deal) => deal.checking)) checking = setInterval(() => redrawOnceChecked(daily), CHECKING_POLL_MS);
  return stop;
}

/** Redraw the home page once a deal that was being checked is decided. */
async function redrawOnceChecked(daily) {
  let fresh;
  try {
    fresh = await api("GET", "/api/daily/");
  } catch {
    return; // asked again at the next look
  }
  const was = new Map(daily.map((deal) => [deal.variant, deal.checking]));
  if (fresh.some((deal) => was.get(deal.variant) && !deal.checking)) {
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  }
}

/**
 * Return `today`, my daily games of today by variant, each with its rank once ranked, and
 * `played`, the variants of my last hundred games (daily or practice), the last played first.
 */
async function myGames(daily) {
  const found = new Map();
  const played = [];
  if (!session.player) return { today: found, played };
  // Read before any await: the player may log out while the answers are on their way.
  const nickname = encodeURIComponent(session.player.nickname);
  const dates = new Set(daily.map((deal) => deal.date));
  try {
    const answer = await api("GET", "/api/me/games/?limit=100");
    for (const game of answer.games) {
      if (!played.includes(game.variant)) played.push(game.variant);
      if (game.mode === "daily" && dates.has(game.date) && !found.has(game.variant)) {
        found.set(game.variant, { game, entry: null, total: null });
      }
    }
  } catch (error) {
    console.warn(error);
    return { today: found, played };
  }
  await Promise.all(
    [...found.values()]
      .filter((mine) => mine.game.status !== "playing" && !mine.game.voided)
      .map(async (mine) => {
        try {
          const board = await api(
            "GET",
            `/api/leaderboards/${mine.game.variant}/${mine.game.date}/?player=${nickname}&limit=1`,
          );
          mine.entry = board.player_entry || null;
          mine.total = board.total;
        } catch (error) {
          console.warn(error);
        }
      }),
  );
  return { today: found, played };
}

/**
 * Start a game; while the server is busy, try again a few times, saying so in `notice`. `message`
 * and `notice` are the deal's own, beside the button pressed (on a phone the page's top is far).
 */
async function startGame(body, message, notice, buttons) {
  if (!session.player) {
    askForIdentity(t("Pick a nickname first (or log in), then start the game."));
    return;
  }
  for (const button of buttons) button.disabled = true;
  say(message, "");
  try {
    const game = await apiPatient("POST", "/api/games/", body, { onWait: (ms) => notice.show(ms) });
    notice.clear();
    location.hash = `#/play/${encodeURIComponent(game.id)}`;
  } catch (error) {
    notice.clear();
    // Refused to a signed-in player (banned from the daily challenges): the server's reason,
    // beside the button pressed; the sign-in form is only for a visitor without a player.
    if (error.status === 403 && session.player) say(message, error.detail, "error");
    else if (error.status === 401 || error.status === 403) askForIdentity(error.detail);
    else if (error.status === 503) say(message, t("The service is too busy to start the game now: try again in a minute."), "error");
    else say(message, error.detail, "error");
    for (const button of buttons) button.disabled = false;
  }
}

/** The sentence of my status on today's deal. */
function statusText(mine) {
  if (!mine) return t("Not started");
  const { game, entry, total } = mine;
  if (game.status === "playing") {
    return tn("In progress: {count} card home", "In progress: {count} cards home", game.foundation_cards);
  }
  const result =
    game.status === "won"
      ? t("Won in {moves} moves", { moves: game.ply })
      : tn("Resigned with {count} card home", "Resigned with {count} cards home", game.foundation_cards);
  const assisted = game.assisted ? ` · ${t("assisted")}` : "";
  if (game.voided) return `${result}${assisted} · ${t("voided by a moderator")}`;
  if (!entry) return `${result}${assisted} · ${t("being verified")}`;
  return `${result}${assisted} · ${t("rank {rank} of {total}", { rank: entry.rank, total })}`;
}

function difficultyFacts(deal) {
  const facts = [];
  if (deal.difficulty) {
    facts.push(
      h(
        "div",
        { class: "difficulty" },
        h("dt", {}, t("Difficulty")),
        h(
          "dd",
          { "aria-label": t("{level} out of 5", { level: deal.difficulty }) },
          h("span", { class: "pips", "aria-hidden": "true" }, "●".repeat(deal.difficulty) + "○".repeat(5 - deal.difficulty)),
          " ",
          h("span", { "aria-hidden": "true" }, `${deal.difficulty}/5`),
        ),
      ),
    );
  }
  facts.push(
    h(
      "div",
      { class: "certified" },
      h("dt", {}, t("This deal")),
      h(
        "dd",
        { dataset: { certified: deal.certified ? "yes" : deal.checking ? "checking" : "no" } },
        deal.certified
          ? `✓ ${t("Proved winnable")}`
          : deal.checking
            ? t("Being checked by the solver")
            : t("Not proved winnable"),
      ),
    ),
  );
  return facts;
}

function dealItem(deal, variant, mine) {
  const slug = (deal && deal.variant) || variant.slug;
  const name = (variant && variant.name) || slug;
  const family = (variant && variant.family) || "other";
  const headingId = `deal-${slug}`;
  const playing = mine && mine.game.status === "playing";
  const over = mine && mine.game.status !== "playing";
  const label = over ? t("See my game") : playing ? t("Continue today's deal") : t("Play today's deal");
  const play = h("button", { type: "button", class: "play", dataset: { variant: slug } }, label);
  const practice = h("button", { type: "button", class: "secondary practice" }, t("Practice"));
  const seedId = `seed-${slug}`;
  const seed = h("input", { id: seedId, class: "seed-text", placeholder: t("any text, or blank") });
  const buttons = [play, practice];
  const message = h("div", { class: "deal-message", "aria-live": "polite" });
  const notice = new RetryNotice(null);
  play.addEventListener("click", () => {
    if (mine) location.hash = `#/play/${encodeURIComponent(mine.game.id)}`;
    else startGame({ variant: slug, mode: "daily" }, message, notice, buttons);
  });
  practice.addEventListener("click", () => {
    const body = { variant: slug, mode: "practice" };
    if (seed.value.trim()) body.seed = seed.value.trim();
    startGame(body, message, notice, buttons);
  });
  if (!deal) play.disabled = true;
  const links = [];
  if (deal) {
    links.push(h("a", { class: "leaderboard-link", href: `#/daily/${slug}/${deal.date}` }, t("Today's board")));
    links.push(h("a", { class: "days-link", href: `#/days/${slug}` }, t("Past days")));
  }
  links.push(h("a", { class: "rules-link", href: `/rules/${encodeURIComponent(slug)}/` }, t("Rules")));
  return h(
    "li",
    {
      class: "deal",
      dataset: { variant: slug, family, status: mine ? mine.game.status : "new" },
      "aria-labelledby": headingId,
    },
    h("div", { class: "deal-head" }, h("h3", { id: headingId }, name), h("span", { class: "family-tag" }, familyName(family))),
    h("p", { class: "description" }, (variant && variant.description) || ""),
    deal ? h("p", { class: "my-status", dataset: { status: mine ? mine.game.status : "new" } }, statusText(mine)) : null,
    deal
      ? h(
          "dl",
          { class: "facts" },
          difficultyFacts(deal),
          h("div", {}, h("dt", {}, t("Players")), h("dd", { class: "players" }, deal.players)),
          h("div", {}, h("dt", {}, t("Finished")), h("dd", { class: "finished" }, deal.finished)),
          h(
            "div",
            { class: "commitment" },
            h("dt", {}, t("Commitment")),
            h(
              "dd",
              {},
              h(
                "code",
                {
                  title: t(
                    "SHA-256 of today's secret deal seed: {commitment}. The seed is revealed tomorrow, " +
                      "so anyone can check it matches and re-derive the deal.",
                    { commitment: deal.commitment },
                  ),
                },
                `${deal.commitment.slice(0, 12)}…`,
              ),
            ),
          ),
        )
      : h("p", {}, t("No daily deal today.")),
    h("div", { class: "actions" }, play),
    h(
      "div",
      { class: "practice-row" },
      h("label", { for: seedId }, t("Practice seed")),
      seed,
      practice,
    ),
    notice.el,
    message,
    h("nav", { class: "deal-links", "aria-label": t("{name}: more", { name }) }, links),
  );
}
