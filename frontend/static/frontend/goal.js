// The goal of a game in one line, read from its variant's rules document and, for a variant whose
// base rank the deal sets, from the card the deal put on the first foundation.
import { pileKind } from "./board.js";
import { cardShort } from "./cards.js";
import { t, tn } from "./i18n.js";

const RANKS = "A23456789TJQK";

/** The card the deal put on the first foundation, if it still lies there, else null. */
function dealtBase(game) {
  const first = game.state.piles.find((pile) => pile.id === "foundation-0");
  return first && first.cards.length && first.cards[0] ? first.cards[0] : null;
}

/** The rank letter every "deal"-based foundation starts with: any founded pile's bottom card. */
function baseRank(game) {
  const founded = game.state.piles.find((pile) => pileKind(pile.id) === "foundation" && pile.cards.length && pile.cards[0]);
  return founded ? founded.cards[0][0] : null;
}

/** Say how one group of foundations {count, base, build} is built, as a sentence. */
function groupSentence(group, game) {
  const count = group.count;
  const build = group.build || {};
  const inSuit = build.suit === "same";
  if (group.base === "deal") {
    const rank = baseRank(game);
    const card = dealtBase(game);
    if (rank && card && card[0] === rank) {
      return tn(
        "{count} foundation builds up in suit from the base rank, {rank}, that the deal set with the {card}; the Ace follows the King.",
        "{count} foundations build up in suit from the base rank, {rank}, that the deal set with the {card}; the Ace follows the King.",
        count,
        { rank: cardShort(`${card[0]}C`).slice(0, -1), card: cardShort(card) },
      );
    }
    return tn(
      "{count} foundation builds up in suit from the base rank the deal set; the Ace follows the King.",
      "{count} foundations build up in suit from the base rank the deal set; the Ace follows the King.",
      count,
    );
  }
  if (build.direction === "up" && group.base === "A" && !build.wrap) {
    return inSuit
      ? tn("{count} foundation builds up in suit from the Ace to the King.", "{count} foundations build up in suit from the Ace to the King.", count)
      : tn(
          "{count} foundation builds up regardless of suit from the Ace to the King.",
          "{count} foundations build up regardless of suit from the Ace to the King.",
          count,
        );
  }
  if (group.complete_runs && group.base === "K" && build.direction === "down" && inSuit) {
    return tn(
      "{count} foundation takes a complete run in one suit, King down to Ace, all at once.",
      "{count} foundations each take a complete run in one suit, King down to Ace, all at once.",
      count,
    );
  }
  if (build.direction === "down" && group.base === "K" && !build.wrap && inSuit) {
    return tn("{count} foundation builds down in suit from the King to the Ace.", "{count} foundations build down in suit from the King to the Ace.", count);
  }
  const rank = RANKS.includes(group.base) ? cardShort(`${group.base}C`).slice(0, -1) : group.base;
  return tn("{count} foundation starts at rank {rank} and takes 13 cards.", "{count} foundations start at rank {rank} and take 13 cards.", count, { rank });
}

/** Return the goal of `game` under its variant's `rules` document in one line, or "" without rules. */
export function goalText(rules, game) {
  if (!rules || !Array.isArray(rules.foundations)) return "";
  if (rules.goal === "clear-tableau") return clearingGoal(rules);
  const cards = 52 * (rules.decks || 1);
  const groups = rules.foundations.map((group) => groupSentence(group, game));
  return [t("Goal: all {cards} cards on the foundations.", { cards }), ...groups].join(" ");
}

/** Say the goal of a game won by clearing the tableau (Golf, TriPeaks, Pyramid), with how cards leave it. */
function clearingGoal(rules) {
  const sentences = [t("Goal: clear the tableau.")];
  const build = rules.stock && rules.stock.waste_build;
  if (build) {
    sentences.push(
      build.wrap
        ? t("Play uncovered cards onto the waste, one rank up or down, King and Ace being neighbours.")
        : t("Play uncovered cards onto the waste, one rank up or down."),
    );
  }
  if (rules.pairs) {
    sentences.push(t("Remove two uncovered cards whose ranks add up to {total}, or a King alone.", { total: rules.pairs.total }));
  }
  return sentences.join(" ");
}
