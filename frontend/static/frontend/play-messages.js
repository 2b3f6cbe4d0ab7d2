// The table's sentences about a game: its status, a refused move in the table's own words (the
// server's code, the table's pile names), and what an applied move did.
import { pileKind, pileTitle } from "./board.js";
import { cardShort, prettyCards } from "./cards.js";
import { t } from "./i18n.js";

export function statusText(status) {
  return { playing: t("playing"), won: t("won"), resigned: t("resigned") }[status] || status;
}

/**
 * Return the table's own sentence for a refused move: the server's code, the table's pile names
 * (with `cells`, a reserve is named as the free cell it is).
 */
export function refusalText(answer, move, game, { cells = false } = {}) {
  const pile = (id) => game.state.piles.find((p) => p.id === id);
  const source = move && move.from ? pile(move.from) : null;
  const code = source && source.cards.length >= (move.count || 1) ? source.cards.at(-(move.count || 1)) : null;
  const names = {
    card: code ? cardShort(code) : t("card"),
    source: move && move.from ? pileTitle(move.from, { cells }) : "",
    target: move && move.to ? pileTitle(move.to, { cells }) : "",
  };
  switch (answer.reason) {
    case "does_not_build":
    case "target_refuses":
      return t("{target} does not take the {card}.", names);
    case "empty_refuses":
      return t("The empty {target} does not take the {card}.", names);
    case "wrong_base":
      return t("The {card} cannot start {target}.", names);
    case "foundation_full":
      return t("{target} already holds 13 cards.", names);
    case "cell_full":
      return t("{target} already holds a card.", names);
    case "same_pile":
      return t("The {card} is already on {source}.", names);
    case "single_cards":
      return t("Only one card at a time moves from {source} to {target}.", names);
    case "not_a_sequence":
      return t("Those cards of {source} are not a sequence: they cannot move together.", names);
    case "source_locked":
      return pileKind(move.from) === "foundation"
        ? t("The {card} cannot leave {source} for {target} in this game.", names)
        : t("Cards leave {source} only by a deal.", names);
    case "base_card":
      return t("The base card of {source} never moves.", names);
    case "face_down":
      return t("Only face-up cards move.");
    case "empty_source":
      return t("{source} is empty.", names);
    case "no_stock":
    case "nothing_to_deal":
      return t("There is nothing left to deal.");
    case "no_redeals_left":
    case "no_redeal":
      return t("No redeal is left.");
    case "nothing_to_undo":
      return t("There is no move to take back: a move that turned up a card cannot be undone.");
    default:
      return prettyCards(answer.detail || t("The server refused the move."));
  }
}

/** Say what an applied move did: "7♥ to Foundation 1." (with `cells`, "7♥ to Free cell 1."). */
export function describeMove(move, game, { cells = false } = {}) {
  if (move.type === "deal") return t("Dealt.");
  if (move.type === "redeal") return t("Redealt the tableau.");
  if (move.type === "undo") return t("Took the last move back.");
  const source = game.state.piles.find((pile) => pile.id === move.from);
  const code = source && source.cards.length >= move.count ? source.cards.at(-move.count) : null;
  return t("{card} to {pile}.", { card: code ? cardShort(code) : t("card"), pile: pileTitle(move.to, { cells }) });
}
