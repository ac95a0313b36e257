// The hint, and actions said in words: the hint's sentence and the live region's.

import { announce, reportError, showMessage } from "./dialogs.js";
import { $$ } from "./dom.js";
import { cardName, pileName } from "./names.js";
import { legalActions, pending } from "./play.js";
import { highlight, topOfFoundation } from "./render.js";
import { api, flush, isOffline } from "./sync.js";
import { t, ui } from "./ui.js";

// When the solver gives no move, a move to try from the legal ones: a card up to a
// foundation first, then the waste, then a column move that frees a card, then the stock.
function moveToTry(items) {
  const game = ui.game;
  const rank = (a) => {
    if (a.action === "move" && /^f/.test(a.to)) return 0;
    if (a.action === "move" && a.from === "waste") return 1;
    if (a.action === "move") {
      const column = game.tableau[Number(a.from.slice(1)) - 1] || [];
      const index = column.indexOf(a.card);
      const target = game.tableau[Number(a.to.slice(1)) - 1] || [];
      if (index === 0 && target.length === 0) return 8; // a king from one empty column to another
      return index === 0 ? 3 : 2;
    }
    if (a.action === "draw") return 4;
    if (a.action === "recycle") return 5;
    if (a.action === "take-back") return 6;
    return 9;
  };
  const candidates = items.filter((a) => a.action !== "undo" && rank(a) < 9);
  candidates.sort((a, b) => rank(a) - rank(b));
  return candidates[0] || null;
}

export async function showHint() {
  const game = ui.game;
  if (!game || game.status === "won") return;
  $$(".hint, .hint-target").forEach((el) => el.classList.remove("hint", "hint-target"));
  let action = null;
  let proven = false;
  // the solver runs on the server, on the server's position: what was played here goes first
  if (!isOffline() && pending().length) await flush();
  if (isOffline() || pending().length || !game.id) {
    showMessage(t("hintOffline"), "info");
    return;
  }
  try {
    const hint = await api("GET", `/games/${encodeURIComponent(game.id)}/hint`);
    if (hint.verdict === "unwinnable" && !hint.action) {
      showMessage(t("hintUnwinnable"), "info");
      return;
    }
    action = hint.action || null;
    proven = Boolean(action) && hint.verdict === "winnable" && hint.proven !== false;
  } catch (err) {
    if (err.code === "GAME_NOT_FOUND" || err.code === "GAME_FINISHED" || err.status === 0) {
      reportError(err, { rule: false });
      return;
    }
  }
  if (!action) {
    action = moveToTry(legalActions()); // the local engine's, in the server's order
    if (!action) {
      showMessage(t("hintNone"), "info");
      return;
    }
  }
  if (ui.game.version !== game.version || ui.game.code !== game.code) return; // the game moved on while we asked
  ui.hint = { action, version: game.version, gameId: game.id };
  highlight(action);
  const move = describeAction(action);
  showMessage(t(proven ? "hintShow" : "hintTry", { move }), "info");
  announce(t(proven ? "hintShow" : "hintTry", { move }));
}

function topOf(pile) {
  const game = ui.game;
  if (!pile || !game) return null;
  if (/^f[SHDC]$/.test(pile)) return topOfFoundation(pile);
  const cards = pile === "waste" ? game.waste : game.tableau[Number(pile.slice(1)) - 1] || [];
  return cards[cards.length - 1] || null;
}

function placeWords(to) {
  const n = to.slice(1);
  const column = ui.game.tableau[Number(n) - 1] || [];
  return column.length ? t("hintOnto", { onto: cardName(column[column.length - 1]), n }) : t("hintEmpty", { n });
}

// An action in words with card symbols: "move the group 9♦ … A♥ onto 10♠ in column 2."
function describeAction(action) {
  const kind = action.action;
  if (kind === "draw") return t("hintDraw");
  if (kind === "recycle") return t("hintRecycle");
  const card = action.card || topOf(action.from);
  if (kind === "take-back") return t("hintTakeBack", { card: cardName(card), where: placeWords(action.to) });
  if (!action.to || /^f/.test(action.to)) return t("hintFoundation", { card: cardName(card) });
  let what = cardName(card);
  if (/^t/.test(action.from || "")) {
    const column = ui.game.tableau[Number(action.from.slice(1)) - 1] || [];
    const index = column.indexOf(card);
    if (index >= 0 && index < column.length - 1) {
      what = t("hintGroup", { card: cardName(card), last: cardName(column[column.length - 1]) });
    }
  }
  return t("hintMove", { what, where: placeWords(action.to) });
}

// What the last action did, for the live region: "9♦ → Column 2 (+5)".
export function describeDone(last) {
  if (!last) return "";
  const cards = (last.cards || []).map(cardName).join(" ");
  const points = last.points ? ` (${last.points > 0 ? "+" : ""}${last.points})` : "";
  // a draw says the cards drawn, the top one last: "Drew 7♥"
  if (last.action === "draw") return `${t("drew", { cards })}${points}`;
  if (last.action === "recycle") return `${t("recycled")}${points}`;
  if (last.action === "undo") return `${t("undone", { what: cards })}${points}`;
  return `${cards} → ${pileName(last.moved_to || last.to)}${points}`; // a tap says where it went in moved_to
}
