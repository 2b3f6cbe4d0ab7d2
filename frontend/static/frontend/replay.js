// The replay viewer: step through a game's positions (as its player saw them) with the move list.
// Keys: ← and → step, Home and End jump, space plays or pauses.
import { api } from "./api.js";
import { buildBoard, fitBoard, pileTitle } from "./board.js";
import { h, mount, say } from "./dom.js";
import { t, tn } from "./i18n.js";

const PAGE = 100; // positions per request (the server's most)
const PLAY_STEP_MS = 700;

/**
 * Describe a MOVE in words: "Tableau 3 → Foundation 5", "Deal", "Undo"; with `cells`, a reserve
 * is named as the free cell it is ("Tableau 3 → Free cell 1").
 */
export function moveText(move, { cells = false } = {}) {
  if (!move) return t("The deal");
  if (move.type === "deal") return t("Deal from the stock");
  if (move.type === "redeal") return t("Redeal");
  if (move.type === "undo") return t("Undo");
  const count = move.count || 1;
  const cards = count > 1 ? ` (${tn("{count} card", "{count} cards", count)})` : "";
  return `${pileTitle(move.from, { cells })} → ${pileTitle(move.to, { cells })}${cards}`;
}

export async function replayView(root, gameId) {
  const message = h("div", { class: "messages", "aria-live": "polite", id: "replay-message" });
  const heading = h("h2", { id: "replay-title" }, t("Replay"));
  const where = h("p", { class: "replay-where", id: "replay-where", "aria-live": "polite" });
  const boardArea = h("div", { class: "board-area replay-board", id: "replay-board" });
  const list = h("ol", { class: "move-list", id: "move-list", start: "0" });
  const button = (id, text, label) => h("button", { type: "button", class: "secondary", id, "aria-label": label }, text);
  const first = button("replay-first", "|◀", t("First position"));
  const back = button("replay-back", "◀", t("Back one move"));
  const play = button("replay-play", t("Play"), t("Play"));
  const forward = button("replay-forward", "▶", t("Forward one move"));
  const last = button("replay-last", "▶|", t("Last position"));
  const section = h(
    "section",
    { class: "replay-view", "aria-labelledby": "replay-title" },
    heading,
    message,
    // Laid out as the table is: the controls above a board as wide as the page, sized to the
    // window by the table's own fitBoard; the move list below it.
    h("div", { class: "replay-controls", role: "toolbar", "aria-label": t("Replay controls"), "aria-controls": "replay-board" }, first, back, play, forward, last),
    where,
    boardArea,
    h("nav", { class: "moves", "aria-label": t("Moves") }, h("h3", {}, t("Moves")), list),
  );
  mount(root, section);

  const path = `/api/games/${encodeURIComponent(gameId)}/`;
  let game;
  let log;
  let name;
  let cells;
  let layout = null;
  try {
    [game, log] = await Promise.all([api("GET", path), api("GET", `${path}replay/`)]);
    const variant = await api("GET", `/api/variants/${encodeURIComponent(game.variant)}/`).catch(() => null);
    name = variant?.name || game.variant;
    // A variant whose reserves are free cells: the board draws them as cells, the moves name them so.
    cells = Boolean(variant?.rules?.reserves?.free_cells);
    // A layered tableau (TriPeaks, Pyramid) is drawn row under row, as on the table.
    layout = variant?.rules?.tableau?.covered_by || null;
  } catch (error) {
    say(message, error.detail, "error");
    for (const control of [first, back, play, forward, last]) control.disabled = true;
    return null;
  }
  heading.textContent = game.date
    ? t("{name} · {player} · {date}", { name, player: game.player, date: game.date })
    : t("{name} · {player} · practice", { name, player: game.player });

  const total = log.moves.length + 1;
  const positions = new Map(); // ply → position
  const pending = new Map(); // page offset → promise
  let ply = 0;
  let timer = null;
  let closed = false;

  const fetchPage = (offset) => {
    if (!pending.has(offset)) {
      const request = api("GET", `${path}replay/positions/?offset=${offset}&limit=${PAGE}`).then((page) => {
        for (const position of page.positions) positions.set(position.ply, position);
      });
      request.catch(() => pending.delete(offset));
      pending.set(offset, request);
    }
    return pending.get(offset);
  };
  const positionAt = async (n) => {
    if (!positions.has(n)) await fetchPage(Math.floor(n / PAGE) * PAGE);
    const next = Math.floor(n / PAGE) * PAGE + PAGE;
    if (next < total && n % PAGE > PAGE / 2) fetchPage(next).catch(() => {});
    return positions.get(n);
  };

  const items = [moveText(null), ...log.moves.map((move) => moveText(move, { cells }))].map((text, n) => {
    const jump = h("button", { type: "button", class: "move", dataset: { ply: n } }, text);
    jump.addEventListener("click", () => {
      stop();
      show(n);
    });
    return h("li", {}, jump);
  });
  mount(list, items);

  // Scroll the move list, never the page, to the current move (the list is below the board).
  const moves = list.closest(".moves");
  const showInList = (item) => {
    const top = item.offsetTop;
    const bottom = top + item.offsetHeight;
    if (top < moves.scrollTop) moves.scrollTop = top;
    else if (bottom > moves.scrollTop + moves.clientHeight) moves.scrollTop = bottom - moves.clientHeight;
  };

  const stop = () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = t("Play");
    play.setAttribute("aria-label", t("Play"));
    play.setAttribute("aria-pressed", "false");
  };

  const show = async (n) => {
    const target = Math.max(0, Math.min(total - 1, n));
    let position;
    try {
      position = await positionAt(target);
    } catch (error) {
      stop();
      say(message, error.detail, "error");
      return;
    }
    if (closed || !position) return;
    ply = target;
    const board = buildBoard({ variant: game.variant, state: position.state }, null, { interactive: false, cells, layout });
    // Hold the area's height while the new board is sized, so that the page never jumps.
    boardArea.style.minHeight = `${boardArea.offsetHeight}px`;
    mount(boardArea, board);
    fitBoard(board);
    boardArea.style.minHeight = "";
    boardArea.dataset.ply = String(ply);
    const home = tn("{count} card home", "{count} cards home", position.foundation_cards);
    where.textContent =
      ply === 0
        ? `${t("The deal")} · ${home}`
        : `${t("Move {ply} of {moves}: {move}", { ply, moves: total - 1, move: moveText(position.move, { cells }) })} · ${home}`;
    for (const item of list.querySelectorAll("button.move")) {
      if (Number(item.dataset.ply) === ply) {
        item.setAttribute("aria-current", "step");
        showInList(item);
      } else item.removeAttribute("aria-current");
    }
    first.disabled = back.disabled = ply === 0;
    forward.disabled = last.disabled = ply === total - 1;
    if (ply === total - 1) stop();
  };

  const toggle = () => {
    if (timer !== null) {
      stop();
      return;
    }
    if (ply === total - 1) show(0);
    play.textContent = t("Pause");
    play.setAttribute("aria-label", t("Pause"));
    play.setAttribute("aria-pressed", "true");
    timer = setInterval(() => show(ply + 1), PLAY_STEP_MS);
  };

  first.addEventListener("click", () => {
    stop();
    show(0);
  });
  back.addEventListener("click", () => {
    stop();
    show(ply - 1);
  });
  forward.addEventListener("click", () => {
    stop();
    show(ply + 1);
  });
  last.addEventListener("click", () => {
    stop();
    show(total - 1);
  });
  play.addEventListener("click", toggle);

  const onKey = (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && target.closest && target.closest("input, select, textarea")) return;
    const onButton = target && target.closest && target.closest("button");
    if (event.key === "ArrowLeft") {
      stop();
      show(ply - 1);
    } else if (event.key === "ArrowRight") {
      stop();
      show(ply + 1);
    } else if (event.key === "Home") {
      stop();
      show(0);
    } else if (event.key === "End") {
      stop();
      show(total - 1);
    } else if (event.key === " " && !onButton) {
      toggle();
    } else return;
    event.preventDefault();
  };
  document.addEventListener("keydown", onKey);
  const onResize = () => {
    const board = boardArea.querySelector(".board");
    if (board) fitBoard(board);
  };
  window.addEventListener("resize", onResize);
  await show(0);
  say(message, t("← and → step through the moves, space plays or pauses."));
  return () => {
    closed = true;
    stop();
    document.removeEventListener("keydown", onKey);
    window.removeEventListener("resize", onResize);
  };
}
