// The panels around the board: the controls (deal, undo, the assists, hint, resign), the questions
// asked in their place (resign? take a hint?), the hint shown, and the banners of a game won,
// resigned, stuck or voided. Methods of the play view (play.js).
import { api } from "./api.js";
import { pileTitle } from "./board.js";
import { cardShort } from "./cards.js";
import { h, mount, say } from "./dom.js";
import { t, tn } from "./i18n.js";
import { foundationCount } from "./play-drawing.js";
import { AUTO_KEY, ONE_CLICK_KEY, autoEnabled, oneClickEnabled, setPreference } from "./preferences.js";

export const panels = {
  renderControls(hasStock, redeals) {
    const game = this.game;
    const playing = game.status === "playing";
    const button = (label, id, onclick, extra = {}) =>
      h("button", { type: "button", id, disabled: !playing, onclick, ...extra }, label);
    const buttons = [];
    if (hasStock) buttons.push(button(t("Deal"), "deal", () => this.move({ type: "deal" }), { "aria-keyshortcuts": "D" }));
    if (!hasStock && redeals > 0) {
      buttons.push(
        button(tn("Redeal ({count} left)", "Redeal ({count} left)", redeals), "redeal", () => this.move({ type: "redeal" })),
      );
    }
    const undo = button(t("Undo"), "undo", () => this.move({ type: "undo" }), { "aria-keyshortcuts": "U" });
    if (playing && !game.can_undo) {
      undo.disabled = true;
      undo.title = t("Nothing to take back: a move that turned up a card cannot be undone");
    }
    buttons.push(undo);
    const oneClick = h("input", { type: "checkbox", id: "one-click", checked: oneClickEnabled(), disabled: !playing });
    oneClick.addEventListener("change", () => setPreference(ONE_CLICK_KEY, oneClick.checked));
    const auto = h("input", { type: "checkbox", id: "auto-foundations", checked: autoEnabled(), disabled: !playing });
    auto.addEventListener("change", () => {
      setPreference(AUTO_KEY, auto.checked);
      if (auto.checked) this.autoMoves();
    });
    buttons.push(
      h(
        "span",
        { class: "assists", role: "group", "aria-label": t("Assists") },
        h("label", { class: "assist", for: "one-click", title: t("A click moves a card that has only one place to go") }, oneClick, t("One-click moves")),
        h("label", { class: "assist", for: "auto-foundations", title: t("Cards no other card needs go to the foundations by themselves") }, auto, t("Auto to foundations")),
      ),
    );
    buttons.push(
      button(t("Hint"), "hint", () => this.askHint(), {
        "aria-keyshortcuts": "H",
        title: t("The server's solver suggests a move; the game is then marked as assisted"),
      }),
    );
    buttons.push(button(t("Resign"), "resign", () => this.confirmResign(), { class: "danger" }));
    mount(this.controls, buttons);
  },

  /**
   * Ask before an action, in place of the controls: `yes` runs it; "no" puts the controls back and
   * the focus on the button that asked (`returnTo`).
   */
  confirm({ label, text, yes, no, returnTo, onYes }) {
    const yesButton = h("button", { type: "button", class: yes.class, id: yes.id }, yes.text);
    const noButton = h("button", { type: "button", class: "secondary", id: no.id }, no.text);
    const box = h("div", { class: "confirm", role: "alertdialog", "aria-label": label }, h("span", {}, text), yesButton, noButton);
    yesButton.addEventListener("click", () => onYes(yesButton));
    noButton.addEventListener("click", () => {
      this.render();
      document.getElementById(returnTo)?.focus();
    });
    mount(this.controls, box);
    noButton.focus();
  },

  confirmResign() {
    this.confirm({
      label: t("Resign this game?"),
      text: t("Resign this game? It ends here and is ranked on what it reached."),
      yes: { id: "confirm-resign", class: "danger", text: t("Yes, resign") },
      no: { id: "cancel-resign", text: t("Keep playing") },
      returnTo: "resign",
      onYes: async (button) => {
        button.disabled = true;
        try {
          this.setGame(await api("POST", `/api/games/${encodeURIComponent(this.gameId)}/resign/`), { force: true });
        } catch (error) {
          say(this.message, error.detail, "error");
          this.render();
        }
      },
    });
  },

  /** Ask the server for a hint; a daily game not yet assisted asks the player first. */
  askHint() {
    if (this.game.mode !== "daily" || this.game.assisted) {
      this.hint();
      return;
    }
    this.confirm({
      label: t("Take a hint?"),
      text: t("A hint marks this game as assisted for good: it then ranks after every unassisted result."),
      yes: { id: "confirm-hint", text: t("Show a hint") },
      no: { id: "cancel-hint", text: t("No hint") },
      returnTo: "hint",
      onYes: () => this.hint(),
    });
  },

  async hint() {
    for (const el of this.controls.querySelectorAll("button")) el.disabled = true;
    const path = `/api/games/${encodeURIComponent(this.gameId)}`;
    let answer;
    try {
      answer = await api("GET", `${path}/hint/`);
    } catch (error) {
      say(this.message, error.detail, "error");
      this.render();
      return;
    }
    try {
      // The hint marked the game as assisted: show the server's word for it.
      this.setGame(await api("GET", `${path}/`), { force: true });
    } catch {
      this.render();
    }
    if (!answer.move) {
      say(this.message, answer.detail || t("The solver found no hint in time."), "note");
      return;
    }
    say(this.message, this.hintText(answer.move), "note");
    this.showHint(answer.move);
    document.getElementById("hint")?.focus();
  },

  hintText(move) {
    if (move.type === "deal") return t("Hint: deal from the stock.");
    if (move.type === "redeal") return t("Hint: redeal the tableau.");
    const pile = this.game.state.piles.find((p) => p.id === move.from);
    const count = move.count || 1;
    const card = pile ? pile.cards[pile.cards.length - count] : null;
    const cells = this.rules.freeCells;
    const params = { card: cardShort(card), from: pileTitle(move.from, { cells }), to: pileTitle(move.to, { cells }), count };
    return count === 1
      ? t("Hint: move {card} from {from} to {to}.", params)
      : t("Hint: move {count} cards, {card} and those on it, from {from} to {to}.", params);
  },

  /** Mark the hinted cards and their destination on the board until the next move. */
  showHint(move) {
    if (!this.board) return;
    const pileOf = (id) => this.board.querySelector(`.pile[data-pile="${CSS.escape(id)}"]`);
    if (move.type === "deal" || move.type === "redeal") {
      const stock = pileOf("stock");
      if (stock) stock.classList.add("hinted");
      return;
    }
    const cards = [...(pileOf(move.from)?.querySelectorAll(".card[data-index]") || [])];
    for (const card of cards.slice(-(move.count || 1))) card.classList.add("hinted");
    pileOf(move.to)?.classList.add("hint-target");
  },

  renderBanner() {
    const game = this.game;
    const board = () =>
      game.mode === "daily" ? [" ", h("a", { href: `#/daily/${game.variant}/${game.date}` }, t("See the leaderboard"))] : null;
    let banner = null;
    if (game.status === "won") {
      banner = h(
        "div",
        { class: "banner won", id: "won-banner", role: "status" },
        h("strong", {}, t("You won!")),
        " ",
        tn("Every card is on the foundations, in {count} move.", "Every card is on the foundations, in {count} moves.", game.ply),
        board(),
      );
    } else if (game.status === "resigned") {
      banner = h(
        "div",
        { class: "banner over", id: "over-banner" },
        h("strong", {}, t("Game over.")),
        " ",
        tn(
          "Resigned with {count} card on the foundations.",
          "Resigned with {count} cards on the foundations.",
          foundationCount(game),
        ),
        board(),
      );
    } else if (game.stuck) {
      banner = h(
        "div",
        { class: "banner stuck", id: "stuck-banner" },
        game.can_undo ? t("No legal move left: undo or resign.") : t("No legal move left: resign to end the game."),
      );
    }
    const voided = game.voided
      ? h(
          "div",
          { class: "banner voided", id: "void-banner", role: "status" },
          h("strong", {}, t("Result voided.")),
          " ",
          game.void_reason ? t("A moderator took it off the leaderboard: {reason}", { reason: game.void_reason }) : t("A moderator took it off the leaderboard."),
        )
      : null;
    mount(this.banner, banner, voided);
  },
};
