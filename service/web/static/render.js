// Rendering: the board drawn from the game JSON, sized to the screen, cards sliding to
// their new places, the clock, and the marks of a selection or a hint.

import { $, $$ } from "./dom.js";
import { cardName, pileName } from "./names.js";
import { t, ui } from "./ui.js";

export const SUITS = ["S", "H", "D", "C"];
export const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
export const RED = new Set(["H", "D"]);
const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

function rankLabel(rank) {
  return rank === "T" ? "10" : rank;
}

export function formatSeconds(total) {
  total = Math.max(0, Math.floor(total));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

function parseTime(text) {
  if (!text) return null;
  // A timestamp without a zone is UTC (the server stores UTC).
  const zoned = /([zZ]|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) ? null : ms;
}

function cardElement(name, { focusable = false } = {}) {
  const rank = name.slice(0, -1);
  const suit = name.slice(-1);
  const el = document.createElement("div");
  el.className = `card ${RED.has(suit) ? "red" : "black"}${"JQK".includes(rank) ? " face" : ""}`;
  el.dataset.card = name;
  if (focusable) {
    el.tabIndex = 0;
    el.setAttribute("role", "button");
  }
  const corner = `<span class="rank">${rankLabel(rank)}</span><span class="suit">${SYMBOL[suit]}</span>`;
  const middle = "JQK".includes(rank)
    ? `<span class="face-letter">${rank}</span><span class="face-suit">${SYMBOL[suit]}</span>`
    : `<span class="pip">${SYMBOL[suit]}</span>`;
  el.innerHTML = `<span class="corner tl" aria-hidden="true">${corner}</span>`
    + `<span class="center" aria-hidden="true">${middle}</span>`
    + `<span class="corner br" aria-hidden="true">${corner}</span>`
    // the name read out: the drawn corners and pips are hidden from screen readers
    + `<span class="sr-only">${cardName(name)}</span>`;
  return el;
}

const LONGEST_COLUMN = 19; // 6 cards under a king and the 12 cards from the queen down
const MIN_STRIP = 0.2;     // the part of a covered card left visible, as a share of its height
const CARD_RATIO = 1.42;

function bottomReserve() {
  const bar = $(".actions");
  const box = bar.getBoundingClientRect();
  if (getComputedStyle(bar).position === "fixed" && box.top > window.innerHeight / 2) {
    return window.innerHeight - box.top + 6;
  }
  return 8;
}

// Cards size by the board's width and by the screen's height: a column of 19 cards,
// each covered card showing its rank, must end above the bottom edge.
function layout() {
  const board = $("#board");
  const style = getComputedStyle(board);
  const width = board.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const gap = width < 520 ? 4 : width < 800 ? 8 : 12;
  const byWidth = Math.floor((width - 6 * gap) / 7);
  const top = $(".top-row").getBoundingClientRect().top + window.scrollY;
  const available = window.innerHeight - top - bottomReserve();
  const heights = 1 + 0.16 + 1 + (LONGEST_COLUMN - 1) * MIN_STRIP; // top row, its margin, a full column
  const byHeight = Math.floor(available / heights / CARD_RATIO);
  const cw = Math.max(28, Math.min(104, byWidth, byHeight));
  const ch = Math.round(cw * CARD_RATIO);
  // the columns stay together (room beside them is where a message goes), a little apart
  const spread = Math.max(gap, Math.min(Math.round(cw * 0.2), Math.floor((width - 7 * cw) / 6)));
  const root = document.documentElement.style; // on the root, so the drag layer sees them too
  root.setProperty("--gap", `${spread}px`);
  root.setProperty("--cw", `${cw}px`);
  root.setProperty("--ch", `${ch}px`);
  ui.cw = cw;
  ui.ch = ch;
}

function columnOffset(count) {
  const ch = ui.ch;
  const base = Math.max(24, Math.round(ch * 0.27)); // a covered card's strip: a 24 px tap target at least
  if (count <= 1) return base;
  const top = $(".tableau").getBoundingClientRect().top + window.scrollY;
  const available = window.innerHeight - top - bottomReserve();
  const fit = Math.floor((available - ch) / (count - 1));
  return Math.max(Math.floor(ch * 0.12), Math.min(base, fit));
}

// The message never covers a card: beside the board when the screen has room,
// else over the header (it lets clicks through to the buttons under it).
export function placeMessage() {
  const box = $("#message");
  if (box.hidden) return;
  const s = box.style;
  const tableau = $('[data-pile="t7"]').getBoundingClientRect(); // the right edge of the cards
  const topRow = $('[data-pile="fC"]').getBoundingClientRect();
  const header = $(".topbar").getBoundingClientRect();
  const bar = $(".actions");
  const barBox = bar.getBoundingClientRect();
  const rightEdge = getComputedStyle(bar).position === "fixed" && barBox.left > window.innerWidth / 2
    ? barBox.left : window.innerWidth;
  const side = rightEdge - Math.max(tableau.right, topRow.right);
  s.transform = "none";
  if (side >= 170) {
    s.left = `${Math.max(tableau.right, topRow.right) + 8}px`;
    s.top = `${Math.max(topRow.top, 4)}px`;
    s.width = `${Math.min(side - 16, 420)}px`;
    s.maxHeight = `${window.innerHeight - Math.max(topRow.top, 4) - bottomReserve()}px`;
  } else {
    const space = Math.max(topRow.top - 4, header.height);
    s.left = "4px";
    s.top = "2px";
    s.width = `${window.innerWidth - 8}px`;
    s.maxHeight = `${space}px`;
  }
}

// Cards that changed place slide there from where they were (unless motion is reduced).
function rememberPlaces() {
  if (!ui.animate || reducedMotion()) return null;
  const places = new Map();
  for (const el of $$("#board [data-card]")) places.set(el.dataset.card, el.getBoundingClientRect());
  return places;
}

function slideFrom(places) {
  if (!places || typeof Element.prototype.animate !== "function") return;
  for (const el of $$("#board [data-card]")) {
    const before = places.get(el.dataset.card);
    if (!before) continue;
    const after = el.getBoundingClientRect();
    const dx = before.left - after.left;
    const dy = before.top - after.top;
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2) continue;
    el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
      { duration: 180, easing: "ease-out" });
  }
}

function focusedPlace() {
  const active = document.activeElement;
  if (!active || !$("#board").contains(active)) return null;
  const pile = active.closest("[data-pile]");
  const card = active.closest("[data-card]");
  return pile ? { pile: pile.dataset.pile, card: card ? card.dataset.card : null } : null;
}

export function focusTarget(pile, card = null) {
  const pileEl = $(`[data-pile="${pile}"]`);
  if (!pileEl) return null;
  if (card) {
    const el = $(`[data-card="${card}"][tabindex]`, pileEl);
    if (el) return el;
  }
  if (pileEl.hasAttribute("tabindex") || pileEl.tagName === "BUTTON") return pileEl;
  const cards = $$("[data-card][tabindex]", pileEl);
  return cards[cards.length - 1] || null;
}

export function render() {
  const game = ui.game;
  const board = $("#board");
  const focused = focusedPlace();
  const places = rememberPlaces();
  layout();
  $$(".hint-target").forEach((el) => el.classList.remove("hint-target"));
  if (!game) return;
  board.dataset.version = String(game.version);
  board.dataset.gameId = game.id;
  board.dataset.status = game.status;
  board.classList.toggle("is-won", game.status === "won");
  const playing = game.status !== "won";

  // the seven columns: every card can be reached, with the cards on it it may lead a group
  let tallest = ui.ch;
  game.tableau.forEach((column, index) => {
    const pile = $(`[data-pile="t${index + 1}"]`);
    const offset = columnOffset(column.length);
    pile.replaceChildren(...column.map((name, i) => {
      const el = cardElement(name, { focusable: playing });
      el.style.top = `${i * offset}px`;
      el.style.zIndex = String(i + 1);
      return el;
    }));
    pile.classList.toggle("empty", column.length === 0);
    if (column.length === 0 && playing) {
      pile.tabIndex = 0;
      pile.setAttribute("role", "button");
    } else {
      pile.removeAttribute("tabindex");
      pile.setAttribute("role", "group");
    }
    pile.setAttribute("aria-label", `${pileName(`t${index + 1}`)}: ${column.map(cardName).join(" ") || t("emptyColumn")}`);
    tallest = Math.max(tallest, ui.ch + Math.max(0, column.length - 1) * offset);
  });
  $(".tableau").style.minHeight = `${tallest + 4}px`;

  // the stock
  const stock = $('[data-pile="stock"]');
  stock.replaceChildren();
  stock.classList.toggle("empty", game.stock === 0);
  stock.classList.toggle("can-recycle", game.stock === 0 && game.waste.length > 0);
  if (game.stock > 0) {
    const back = document.createElement("span"); // phrasing content: the stock is a <button>
    back.className = "card back";
    if (game.stock > 1) back.classList.add("thick");
    stock.append(back);
    stock.setAttribute("aria-label", t("stock", { n: game.stock }));
  } else {
    stock.setAttribute("aria-label", game.waste.length ? t("recycle") : t("stockEmpty"));
  }
  const count = document.createElement("span");
  count.className = "count";
  // drawn by CSS from data-count: the button's label says the count in words, and the
  // label must not have to repeat a bare number (accessible name vs visible text)
  count.dataset.count = game.stock > 0 ? String(game.stock) : game.waste.length ? "↻" : "";
  stock.dataset.count = count.dataset.count;
  stock.append(count);

  // the waste: the cards of the last draw still there, fanned, top on the right
  const waste = $('[data-pile="waste"]');
  const shown = Math.min(game.waste.length, Math.max(1, game.draw === 3 ? game.waste_fan : 1));
  const start = game.waste.length - shown;
  const wasteCards = [];
  if (start > 0) {
    const under = cardElement(game.waste[start - 1]);
    under.classList.add("under");
    wasteCards.push(under);
  }
  game.waste.slice(start).forEach((name, i) => {
    const el = cardElement(name, { focusable: playing && i === shown - 1 });
    el.style.left = `calc(var(--fan) * ${i})`;
    if (i !== shown - 1) el.classList.add("covered");
    wasteCards.push(el);
  });
  waste.replaceChildren(...wasteCards);
  waste.classList.toggle("empty", game.waste.length === 0);
  waste.classList.toggle("thick", game.waste.length > shown + 1);
  waste.setAttribute("aria-label", `${pileName("waste")}: ${game.waste.length}`);

  // the foundations, fixed order S H D C: the top card and the one under it
  for (const suit of SUITS) {
    const pile = $(`[data-pile="f${suit}"]`);
    const n = game.foundations[suit] || 0;
    const cards = [];
    if (n >= 2) {
      // drawn under the top card for depth, not read: the pile's name ends with its top card
      const under = cardElement(`${RANKS[n - 2]}${suit}`);
      under.setAttribute("aria-hidden", "true");
      cards.push(under);
    }
    if (n >= 1) cards.push(cardElement(`${RANKS[n - 1]}${suit}`));
    // named by its content, not an aria-label: the name then holds the top card's text as drawn
    // (axe: label-content-name-mismatch)
    const name = document.createElement("span");
    name.className = "sr-only";
    name.textContent = `${pileName(`f${suit}`)}: ${n ? "" : "—"}`;
    pile.replaceChildren(name, ...cards);
    pile.removeAttribute("aria-label");
    pile.classList.toggle("empty", n === 0);
  }

  // the status bar
  $("#score").textContent = String(game.score);
  $("#moves").textContent = String(game.moves);
  $("#code").textContent = game.code;
  $("#menu-code").textContent = game.code;
  if (!$("#code-input").value) $("#draw-mode").value = String(game.draw);
  if (ui.hint && ui.hint.version === game.version && ui.hint.gameId === game.id) highlight(ui.hint.action);
  else ui.hint = null;
  $("#undo").disabled = !game.can_undo;
  $("#hint").disabled = game.status === "won";
  $("#draw").disabled = game.status === "won" || (game.stock === 0 && game.waste.length === 0);
  if (ui.selection) markSelection();
  slideFrom(places);
  placeMessage();
  if (focused) {
    const el = focusTarget(focused.pile, focused.card);
    if (el) el.focus({ preventScroll: true });
  }
  tick();
}

export function tick() {
  const game = ui.game;
  if (!game) return;
  const start = parseTime(game.created_at);
  if (start === null) {
    $("#timer").textContent = "0:00";
    return;
  }
  let end = Date.now();
  if (game.status === "won") {
    end = parseTime(game.finished_at)
      ?? (Number.isFinite(game.seconds) ? start + game.seconds * 1000 : null)
      ?? ui.wonAt ?? (ui.wonAt = Date.now());
  }
  $("#timer").textContent = formatSeconds((end - start) / 1000);
}

export function flashPoints(points) {
  if (!points) return;
  const flash = document.createElement("span");
  flash.className = `points-flash ${points > 0 ? "plus" : "minus"}`;
  flash.textContent = points > 0 ? `+${points}` : String(points);
  $("#score").parentElement.append(flash);
  flash.addEventListener("animationend", () => flash.remove());
}

export function topOfFoundation(pile) {
  const suit = pile.slice(1);
  const n = ui.game ? ui.game.foundations[suit] || 0 : 0;
  return n ? `${RANKS[n - 1]}${suit}` : null;
}

export function markSelection() {
  $$(".card.selected").forEach((el) => el.classList.remove("selected"));
  const sel = ui.selection;
  if (!sel) return;
  const pileEl = $(`[data-pile="${sel.pile}"]`);
  const cards = $$(".card", pileEl).filter((el) => !el.classList.contains("under"));
  const index = cards.findIndex((el) => el.dataset.card === sel.card);
  if (index < 0) {
    ui.selection = null;
    return;
  }
  cards.slice(sel.pile.startsWith("t") ? index : cards.length - 1).forEach((el) => el.classList.add("selected"));
}

export function highlight(action) {
  const kind = action.action;
  if (kind === "draw" || kind === "recycle") {
    $('[data-pile="stock"]').classList.add("hint-target");
    return;
  }
  const from = action.from && $(`[data-pile="${action.from}"]`);
  if (from) {
    const cards = $$(".card", from).filter((el) => !el.classList.contains("under"));
    let index = action.card ? cards.findIndex((el) => el.dataset.card === action.card) : cards.length - 1;
    if (index < 0 || action.from.startsWith("f")) index = cards.length - 1;
    cards.slice(index).forEach((el) => el.classList.add("hint"));
  }
  let to = action.to;
  if ((to === "foundation" || !to) && action.card) to = `f${action.card.slice(-1)}`;
  const target = to && $(`[data-pile="${to}"]`);
  if (target) target.classList.add("hint-target");
}
