// Home: today's daily deals of every variant, with play, practice and leaderboard links.
import { api } from "./api.js";
import { h, mount, say } from "./dom.js";
import { askForIdentity, session } from "./identity.js";

export async function homeView(root) {
  const message = h("div", { class: "messages", "aria-live": "polite", id: "home-message" });
  const list = h("ul", { class: "deals", id: "deals", "aria-busy": "true" });
  mount(
    root,
    h(
      "section",
      { class: "home", "aria-labelledby": "today-title" },
      h("h2", { id: "today-title" }, "Today's deals"),
      h(
        "p",
        { class: "intro" },
        "Every player gets the same deal of each game today. Play it, and once the server has " +
          "replayed your moves, your result joins the day's leaderboard. Tomorrow the seed is " +
          "revealed, so anyone can re-derive the deal and check it.",
      ),
      message,
      list,
    ),
  );
  let daily;
  let variants;
  try {
    [daily, variants] = await Promise.all([api("GET", "/api/daily/"), api("GET", "/api/variants/")]);
  } catch (error) {
    say(message, `Today's deals cannot be loaded: ${error.detail}`, "error");
    list.removeAttribute("aria-busy");
    return null;
  }
  const bySlug = new Map(variants.map((variant) => [variant.slug, variant]));
  const items = daily.map((deal) => dealItem(deal, bySlug.get(deal.variant), message));
  for (const variant of variants) {
    if (!daily.some((deal) => deal.variant === variant.slug)) {
      items.push(dealItem(null, variant, message));
    }
  }
  mount(list, items);
  list.removeAttribute("aria-busy");
  return null;
}

async function startGame(body, message, buttons) {
  if (!session.player) {
    askForIdentity("Pick a nickname first (or log in), then start the game.");
    return;
  }
  for (const button of buttons) button.disabled = true;
  try {
    const game = await api("POST", "/api/games/", body);
    location.hash = `#/play/${encodeURIComponent(game.id)}`;
  } catch (error) {
    if (error.status === 401 || error.status === 403) askForIdentity(error.detail);
    else say(message, error.detail, "error");
    for (const button of buttons) button.disabled = false;
  }
}

function dealItem(deal, variant, message) {
  const slug = (deal && deal.variant) || variant.slug;
  const name = (variant && variant.name) || slug;
  const headingId = `deal-${slug}`;
  const play = h("button", { type: "button", class: "play", dataset: { variant: slug } }, "Play today's deal");
  const practice = h("button", { type: "button", class: "secondary practice" }, "Practice");
  const seedId = `seed-${slug}`;
  const seed = h("input", { id: seedId, class: "seed-text", placeholder: "any text, or blank" });
  const buttons = [play, practice];
  play.addEventListener("click", () => startGame({ variant: slug, mode: "daily" }, message, buttons));
  practice.addEventListener("click", () => {
    const body = { variant: slug, mode: "practice" };
    if (seed.value.trim()) body.seed = seed.value.trim();
    startGame(body, message, buttons);
  });
  if (!deal) play.disabled = true;
  return h(
    "li",
    { class: "deal", dataset: { variant: slug }, "aria-labelledby": headingId },
    h("h3", { id: headingId }, name),
    h("p", { class: "description" }, (variant && variant.description) || ""),
    deal
      ? h(
          "dl",
          { class: "facts" },
          h("div", {}, h("dt", {}, "Players"), h("dd", { class: "players" }, deal.players)),
          h("div", {}, h("dt", {}, "Finished"), h("dd", { class: "finished" }, deal.finished)),
          h(
            "div",
            { class: "commitment" },
            h("dt", {}, "Commitment"),
            h(
              "dd",
              {},
              h(
                "code",
                {
                  title:
                    `SHA-256 of today's secret deal seed: ${deal.commitment}. ` +
                    "The seed is revealed tomorrow, so anyone can check it matches and re-derive the deal.",
                },
                `${deal.commitment.slice(0, 12)}…`,
              ),
            ),
          ),
        )
      : h("p", {}, "No daily deal today."),
    h("div", { class: "actions" }, play),
    h(
      "div",
      { class: "practice-row" },
      h("label", { for: seedId }, "Practice seed"),
      seed,
      practice,
    ),
    deal
      ? h(
          "a",
          { class: "leaderboard-link", href: `#/daily/${slug}/${deal.date}` },
          `Leaderboard of ${deal.date}`,
        )
      : null,
  );
}
