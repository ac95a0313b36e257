// What the page tells the player: the message box, the live region, and the dialogs
// (keys, leaderboard, the win) and the menu.

import { request } from "./api.js";
import { $, $$ } from "./dom.js";
import { ruleMessage } from "./names.js";
import { formatSeconds, placeMessage, RED, SUITS, SYMBOL } from "./render.js";
import { t, ui } from "./ui.js";

let messageTimer = null;

export function showMessage(text, kind = "rule") {
  const box = $("#message");
  $("#message-text").textContent = text;
  box.dataset.kind = kind;
  box.hidden = false;
  placeMessage();
  box.classList.remove("pop");
  void box.offsetWidth; // restart the animation
  box.classList.add("pop");
  clearTimeout(messageTimer);
  if (kind === "info") messageTimer = setTimeout(hideMessage, 8000);
}

export function hideMessage() {
  clearTimeout(messageTimer);
  $("#message").hidden = true;
}

export function announce(text) {
  const live = $("#live");
  live.textContent = "";
  // a new text node after a frame, so a repeated sentence is read again
  requestAnimationFrame(() => { live.textContent = text; });
}

export function reportError(err, { rule = true } = {}) {
  const isRule = rule && err.status >= 400 && err.status < 500 && ![400, 401, 403, 404, 429].includes(err.status);
  if (isRule && !ui.showRules) {
    shakeBoard();
    return;
  }
  showMessage(err.message, isRule ? "rule" : "error");
  if (isRule) shakeBoard();
}

// A rule's refusal found by the local engine: the server's sentence for it, from the catalog.
export function reportRule(code, params) {
  if (!ui.showRules) {
    shakeBoard();
    return;
  }
  showMessage(ruleMessage(code, params), "rule");
  shakeBoard();
}

function shakeBoard() {
  const board = $("#board");
  board.classList.remove("shake");
  void board.offsetWidth;
  board.classList.add("shake");
}

export function showKeys() {
  const copy = $("#keys-copy");
  copy.replaceChildren(...$$("#keys-list li").map((li) => li.cloneNode(true)));
  openDialog($("#keys-dialog"));
}

export function openDialog(dialog) {
  if (dialog.open) return;
  if (typeof dialog.showModal === "function") dialog.showModal();
  else dialog.setAttribute("open", "");
}

export function closeDialog(dialog) {
  if (!dialog.open) return;
  if (typeof dialog.close === "function") dialog.close();
  else dialog.removeAttribute("open");
}

export async function showLeaderboard() {
  openDialog($("#leaderboard-dialog"));
  await Promise.all([1, 3].map(async (draw) => {
    const list = $(`#lb-${draw}`);
    list.textContent = t("loading");
    try {
      const data = await request("GET", `/leaderboard?draw=${draw}&limit=10`, { lang: ui.lang });
      list.replaceChildren(leaderboardTable(data.items || []));
    } catch {
      list.textContent = t("lbError");
    }
  }));
}

function leaderboardTable(items) {
  if (!items.length) {
    const p = document.createElement("p");
    p.className = "lb-empty";
    p.textContent = t("lbEmpty");
    return p;
  }
  const table = document.createElement("table");
  const head = ["lbRank", "lbPlayer", "lbScore", "lbMoves", "lbTime", "lbDeal"];
  table.innerHTML = `<thead><tr>${head.map((k) => `<th scope="col">${t(k)}</th>`).join("")}</tr></thead>`;
  const body = document.createElement("tbody");
  for (const item of items) {
    const row = document.createElement("tr");
    const player = typeof item.player === "string" ? item.player : item.player && item.player.name;
    const cells = [item.rank, player || t("anonymous"), item.score, item.moves, formatSeconds(item.seconds || 0)];
    for (const value of cells) {
      const td = document.createElement("td");
      td.textContent = String(value);
      row.append(td);
    }
    const td = document.createElement("td");
    const play = document.createElement("button");
    play.type = "button";
    play.className = "linkish";
    play.textContent = item.code;
    play.title = t("lbPlay");
    play.addEventListener("click", () => {
      $("#code-input").value = item.code;
      closeDialog($("#leaderboard-dialog"));
      openMenu();
      $("#code-input").focus();
    });
    td.append(play);
    row.append(td);
    body.append(row);
  }
  table.append(body);
  return table;
}

export function celebrate() {
  const game = ui.game;
  $("#won-text").textContent = t("wonText", { score: game.score, moves: game.moves, time: $("#timer").textContent });
  const confetti = $("#won .confetti");
  confetti.replaceChildren();
  for (let i = 0; i < 36; i++) {
    const bit = document.createElement("span");
    const suit = SUITS[i % 4];
    bit.textContent = SYMBOL[suit];
    bit.className = RED.has(suit) ? "red" : "black";
    bit.style.left = `${Math.random() * 100}%`;
    bit.style.animationDelay = `${Math.random() * 1.5}s`;
    bit.style.fontSize = `${14 + Math.random() * 22}px`;
    confetti.append(bit);
  }
  openDialog($("#won"));
}

export function openMenu() {
  $("#menu").hidden = false;
  $("#menu-button").setAttribute("aria-expanded", "true");
  $("#draw-mode").focus();
}

export function closeMenu() {
  if ($("#menu").hidden) return;
  $("#menu").hidden = true;
  $("#menu-button").setAttribute("aria-expanded", "false");
}

export async function copyCode() {
  const code = ui.game && ui.game.code;
  if (!code) return;
  const button = $("#copy-code");
  try {
    await navigator.clipboard.writeText(code);
  } catch {
    const range = document.createRange();
    range.selectNodeContents($("#code"));
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch { /* not supported */ }
    if (!copied) {
      showMessage(t("copyFailed"), "info");
      return;
    }
  }
  button.textContent = t("copied");
  setTimeout(() => { button.textContent = t("copy"); }, 1500);
}
