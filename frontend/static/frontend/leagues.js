// Leagues: create one, join by its link or code, leave it, and for its owner rename it, remove
// members, renew the code or close it; each league's live board of today's deals (its own socket,
// pushed when a member's result comes), its standings over a week or a month, and my rank in each
// league on the end-of-game panel. Routes: #/leagues, #/leagues/join/<code>, #/leagues/<id>.
import { api } from "./api.js";
import { Connection } from "./connection.js";
import { h, mount, say } from "./dom.js";
import { t, tn } from "./i18n.js";
import { askForIdentity, session } from "./identity.js";
import { assistedMark, entryRow } from "./leaderboard.js";

const RANK_TRIES = 12; // the end-of-game panel asks once a second until the result is verified

/** Today's deals with their variants' names: [{variant, date, name}]. */
async function todaysDeals() {
  const [daily, variants] = await Promise.all([api("GET", "/api/daily/"), api("GET", "/api/variants/")]);
  return dealsWithNames(daily, variants);
}

function dealsWithNames(daily, variants) {
  const names = new Map(variants.map((variant) => [variant.slug, variant.name]));
  return daily.map((deal) => ({ variant: deal.variant, date: deal.date, name: names.get(deal.variant) || deal.variant }));
}

/**
 * A league's live board of one of today's deals (a choice of variant), kept by the league socket;
 * `{el, stop}`. A refusal (not a member any more, a closed league) is said and not retried; a lost
 * socket is opened again as every live socket is (connection.js).
 */
export function liveLeagueBoard(league, deals, preferred = null) {
  const id = `league-${league.id}`;
  const select = h(
    "select",
    { id: `${id}-variant`, class: "league-variant" },
    deals.map((deal) => h("option", { value: deal.variant, selected: deal.variant === preferred }, deal.name)),
  );
  const state = h("span", { class: "live-state", id: `${id}-state` }, t("connecting…"));
  const message = h("div", { class: "messages", "aria-live": "polite" });
  const body = h("tbody", { id: `${id}-rows` });
  const columns = [t("Rank"), t("Player"), t("Cards"), t("Moves"), t("Time")];
  const table = h(
    "table",
    { class: "leaderboard league-board", "aria-label": t("{name}: today's board", { name: league.name }) },
    h("thead", {}, h("tr", {}, columns.map((label, i) => h("th", { scope: "col", class: i >= 2 ? "num" : null }, label)))),
    body,
  );
  const everyone = h("a", { class: "global-board-link" }, t("Everyone's board"));
  const show = (entries) => {
    if (!entries.length) {
      mount(body, h("tr", {}, h("td", { colspan: 5, class: "empty" }, t("No member has finished yet."))));
      return;
    }
    mount(body, entries.map((entry) => entryRow(entry, [entry.player, assistedMark(entry)])));
  };
  // A refusal other than a busy server's (not a member any more, a closed league) is said, and
  // the socket is not opened again.
  let refused = false;
  const refuse = (data) => {
    refused = true;
    say(message, data.detail, "error");
  };
  const handle = (data) => {
    if (data.type === "error") refuse(data);
    else if (data.type === "leaderboard") show(data.entries || []);
  };
  let connection = null;
  const open = () => {
    if (connection) connection.close();
    const deal = deals.find((item) => item.variant === select.value);
    if (!deal) return;
    everyone.href = `#/daily/${encodeURIComponent(deal.variant)}/${deal.date}`;
    connection = new Connection(`/ws/leagues/${league.id}/${encodeURIComponent(deal.variant)}/${deal.date}/`, {
      greets: (data) => {
        if (data.type === "error") refuse(data);
        return data.type !== "error";
      },
      onGreeting: handle,
      onMessage: handle,
      onState: (live) => {
        state.textContent = live === "open" ? t("live") : t("disconnected");
        state.dataset.state = live === "open" ? "open" : "closed";
      },
      wanted: () => !refused,
    });
    connection.connect();
  };
  select.addEventListener("change", open);
  const el = h(
    "div",
    { class: "league-board-box", id: `${id}-board`, dataset: { league: league.id } },
    h("div", { class: "league-board-head" }, h("label", { for: select.id }, t("Game")), " ", select, " ", state, " ", everyone),
    message,
    h("div", { class: "leaderboard-scroll" }, table),
  );
  open();
  return {
    el,
    stop: () => {
      if (connection) connection.close();
    },
  };
}

/**
 * The home page's section of my leagues, each with its live board of today's deals (the
 * variant of my latest game of today first); `{el, stop}`, or null for a visitor.
 */
export async function myLeaguesSection(daily, variants, preferred = null) {
  if (!session.player) return null;
  let leagues;
  try {
    leagues = await api("GET", "/api/leagues/");
  } catch (error) {
    console.warn(error);
    return null;
  }
  const deals = dealsWithNames(daily, variants);
  const boards = leagues.map((league) => ({ league, board: liveLeagueBoard(league, deals, preferred) }));
  const el = h(
    "section",
    { class: "my-leagues", id: "my-leagues", "aria-labelledby": "my-leagues-title" },
    h("h2", { id: "my-leagues-title" }, t("My leagues")),
    leagues.length
      ? boards.map(({ league, board }) =>
          h("article", { class: "league-card" }, h("h3", {}, h("a", { href: `#/leagues/${league.id}` }, league.name)), board.el),
        )
      : h("p", {}, t("Play with friends: "), h("a", { href: "#/leagues" }, t("create or join a league"))),
  );
  return { el, stop: () => boards.forEach(({ board }) => board.stop()) };
}

/** The end-of-game panel's fact "My leagues": my rank in each of my leagues, once verified. */
export function leagueRanksFact(game) {
  const value = h("dd", { id: "result-leagues" }, t("checking…"));
  const row = h("div", { class: "result-leagues", hidden: true }, h("dt", {}, t("My leagues")), value);
  (async () => {
    for (let attempt = 0; attempt < RANK_TRIES && (attempt === 0 || row.isConnected); attempt += 1) {
      let ranks;
      try {
        ranks = await api("GET", `/api/leagues/ranks/${encodeURIComponent(game.variant)}/${game.date}/`);
      } catch {
        return;
      }
      if (!ranks.length) return;
      row.hidden = false;
      mount(
        value,
        ranks.map((item, i) => [
          i ? " · " : null,
          h(
            "a",
            { href: `#/leagues/${item.league}` },
            item.rank ? t("{league}: {rank} of {total}", { league: item.name, rank: item.rank, total: item.total }) : t("{league}: not ranked yet", { league: item.name }),
          ),
        ]),
      );
      if (ranks.every((item) => item.rank)) return;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return row;
}

// --- the pages ------------------------------------------------------------------------------

export async function leaguesView(root, where) {
  const message = h("div", { class: "messages", "aria-live": "polite", id: "leagues-message" });
  if (!session.player) {
    const text = where.code ? t("Pick a nickname (or log in) to join this league.") : t("Pick a nickname (or log in) to see your leagues.");
    mount(root, h("section", { class: "leagues" }, h("h2", {}, t("Leagues")), h("p", { id: "leagues-sign-in" }, text)));
    askForIdentity(text);
    return null;
  }
  if (where.code) return joinByLink(root, where.code, message);
  if (where.id) return leaguePage(root, where.id, message);
  return leaguesIndex(root, message);
}

async function joinByLink(root, code, message) {
  mount(root, h("section", { class: "leagues" }, h("h2", {}, t("Joining a league…")), message));
  try {
    const league = await api("POST", "/api/leagues/join/", { code });
    location.hash = `#/leagues/${league.id}`;
  } catch (error) {
    if (error.code === "already_member" && error.body.league) location.hash = `#/leagues/${error.body.league}`;
    else say(message, error.detail, "error");
  }
  return null;
}

async function leaguesIndex(root, message) {
  const list = h("ul", { class: "league-list", id: "league-list" });
  const name = h("input", { id: "league-name", required: true, minlength: 3, maxlength: 24, pattern: "[A-Za-z0-9_\\-]{3,24}" });
  const description = h("input", { id: "league-description", maxlength: 280 });
  const create = h(
    "form",
    { class: "league-form", id: "league-create" },
    h("h3", {}, t("Create a league")),
    h("label", { for: name.id }, t("Name (3 to 24 letters, digits, _ or -)")),
    name,
    h("label", { for: description.id }, t("Description (optional)")),
    description,
    h("button", { type: "submit" }, t("Create")),
  );
  const code = h("input", { id: "league-code", required: true, maxlength: 8, autocomplete: "off" });
  const join = h(
    "form",
    { class: "league-form", id: "league-join" },
    h("h3", {}, t("Join a league")),
    h("label", { for: code.id }, t("Invite code")),
    code,
    h("button", { type: "submit" }, t("Join")),
  );
  mount(root, h("section", { class: "leagues" }, h("h2", {}, t("My leagues")), message, list, create, join));
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const league = await api("POST", "/api/leagues/", { name: name.value.trim(), description: description.value.trim() });
      location.hash = `#/leagues/${league.id}`;
    } catch (error) {
      say(message, error.detail, "error");
    }
  });
  join.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `#/leagues/join/${encodeURIComponent(code.value.trim())}`;
  });
  try {
    const leagues = await api("GET", "/api/leagues/");
    mount(
      list,
      leagues.length
        ? leagues.map((league) => h("li", {}, h("a", { href: `#/leagues/${league.id}` }, league.name), " · ", tn("{count} member", "{count} members", league.members)))
        : h("li", { class: "empty" }, t("You are in no league yet.")),
    );
  } catch (error) {
    say(message, error.detail, "error");
  }
  return null;
}

async function leaguePage(root, id, message) {
  let league;
  let deals;
  try {
    [league, deals] = await Promise.all([api("GET", `/api/leagues/${encodeURIComponent(id)}/`), todaysDeals()]);
  } catch (error) {
    mount(root, h("section", { class: "leagues" }, h("h2", {}, t("Leagues")), message));
    say(message, error.detail, "error");
    return null;
  }
  const owner = Boolean(session.player) && session.player.nickname === league.owner;
  const board = liveLeagueBoard(league, deals);
  const link = h("input", { id: "league-link", readonly: true, value: `${location.origin}${league.invite_path}`, "aria-label": t("Invite link") });
  const copy = h("button", { type: "button", class: "secondary", id: "league-copy" }, t("Copy"));
  copy.addEventListener("click", async () => {
    link.select();
    try {
      await navigator.clipboard.writeText(link.value);
      say(message, t("Copied: send it to your friends."));
    } catch {
      say(message, t("Press Ctrl+C (or ⌘C) to copy the selected text."));
    }
  });
  const act = async (method, path, body, then) => {
    try {
      const answer = await api(method, `/api/leagues/${league.id}/${path}`, body);
      then(answer);
    } catch (error) {
      say(message, error.detail, "error");
    }
  };
  const redraw = () => window.dispatchEvent(new HashChangeEvent("hashchange"));
  const members = h(
    "ul",
    { class: "league-members", id: "league-members" },
    league.member_list.map((member) => {
      const remove =
        owner && member.player !== league.owner
          ? h("button", { type: "button", class: "link-button remove-member", dataset: { player: member.player } }, t("Remove"))
          : null;
      remove?.addEventListener("click", () => act("DELETE", `members/${encodeURIComponent(member.player)}/`, undefined, redraw));
      return h("li", { dataset: { player: member.player } }, member.player, member.player === league.owner ? ` (${t("owner")})` : null, " ", remove);
    }),
  );
  const standings = standingsBox(league, deals);
  const manage = owner ? ownerTools(league, act, redraw) : leaveTools(act);
  mount(
    root,
    h(
      "section",
      { class: "leagues league-page", dataset: { league: league.id } },
      h("h2", { id: "league-title" }, league.name),
      league.description ? h("p", { class: "description" }, league.description) : null,
      message,
      h("div", { class: "league-invite" }, h("p", {}, t("Invite friends with this link, or the code {code}:", { code: league.code })), link, copy),
      h("h3", {}, t("Today")),
      board.el,
      standings.el,
      h("h3", {}, tn("{count} member", "{count} members", league.members)),
      members,
      manage,
    ),
  );
  return () => {
    board.stop();
  };
}

function standingsBox(league, deals) {
  const period = h("select", { id: "standings-period" }, h("option", { value: "week" }, t("This week")), h("option", { value: "month" }, t("This month")));
  const variant = h("select", { id: "standings-variant" }, deals.map((deal) => h("option", { value: deal.variant }, deal.name)));
  const body = h("tbody", { id: "standings-rows" });
  const note = h("p", { class: "note" });
  const load = async () => {
    if (!variant.value) return;
    try {
      const answer = await api("GET", `/api/leagues/${league.id}/standings/${encodeURIComponent(variant.value)}/?period=${period.value}`);
      note.textContent = t("From {first} to {last}. Each day, points by rank in the league: {points}; every lower rank, 1.", {
        first: answer.from,
        last: answer.to,
        points: answer.points.join(", "),
      });
      mount(
        body,
        answer.standings.map((row) =>
          h("tr", { dataset: { player: row.player } }, h("td", { class: "rank" }, row.rank), h("th", { scope: "row" }, row.player), h("td", { class: "num points" }, row.points), h("td", { class: "num" }, row.days), h("td", { class: "num" }, row.wins)),
        ),
      );
    } catch (error) {
      note.textContent = error.detail;
    }
  };
  period.addEventListener("change", load);
  variant.addEventListener("change", load);
  load();
  const columns = [t("Rank"), t("Player"), t("Points"), t("Days"), t("Wins")];
  return {
    el: h(
      "div",
      { class: "league-standings", id: "league-standings" },
      h("h3", {}, t("Standings")),
      h("div", { class: "league-board-head" }, variant, " ", period),
      h("div", { class: "leaderboard-scroll" }, h("table", { class: "leaderboard" }, h("thead", {}, h("tr", {}, columns.map((label, i) => h("th", { scope: "col", class: i >= 2 ? "num" : null }, label)))), body)),
      note,
    ),
  };
}

function ownerTools(league, act, redraw) {
  const name = h("input", { id: "league-rename", value: league.name, maxlength: 24, "aria-label": t("Name") });
  const rename = h("form", { class: "league-form", id: "league-rename-form" }, name, h("button", { type: "submit", class: "secondary" }, t("Rename")));
  rename.addEventListener("submit", (event) => {
    event.preventDefault();
    act("PATCH", "", { name: name.value.trim() }, redraw);
  });
  const renew = h("button", { type: "button", class: "secondary", id: "league-new-code" }, t("New invite code"));
  renew.addEventListener("click", () => act("POST", "code/", undefined, redraw));
  const close = h("button", { type: "button", class: "danger", id: "league-close" }, t("Close the league"));
  close.addEventListener("click", () => {
    if (window.confirm(t("Close {name} for everyone? Its boards go with it.", { name: league.name }))) {
      act("DELETE", "", undefined, () => (location.hash = "#/leagues"));
    }
  });
  return h("div", { class: "league-manage" }, h("h3", {}, t("Manage")), rename, h("p", {}, renew, " ", close));
}

function leaveTools(act) {
  const leave = h("button", { type: "button", class: "secondary", id: "league-leave" }, t("Leave the league"));
  leave.addEventListener("click", () => act("POST", "leave/", undefined, () => (location.hash = "#/leagues")));
  return h("p", { class: "league-manage" }, leave);
}
