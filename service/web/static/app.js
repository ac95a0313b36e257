// The play page of Solitaire Réfléchi: plain JavaScript, no build, only the public /v1 API.
//
// The server owns every rule. This page renders the game JSON it gets back, turns
// clicks, drags and keys into actions, and shows the problem's `detail` (localized by
// the Accept-Language header it sends) when an action is rejected. Its own strings are
// in strings.js, the names of piles and cards come from the server's catalogs (names.js),
// and api.js speaks to the API; nothing here is inline in the HTML, so a strict CSP can
// serve it.

import { request } from "./api.js";
import { cardName, pileName, useNames } from "./names.js";
import { STRINGS } from "./strings.js";

const LANGS = ["en", "de", "da", "ro", "ja"];
const SUITS = ["S", "H", "D", "C"];
const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
const RED = new Set(["H", "D"]);
const DOUBLE_TAP_MS = 280;
const DRAG_THRESHOLD = 6;
const KEYS = {
  game: "sr.game", lang: "sr.lang", rules: "sr.showRules", draw: "sr.draw", doubleClick: "sr.doubleClick",
};
// the order of the piles for the arrow keys: the top row, then the columns
const PILE_ORDER = ["stock", "waste", "fS", "fH", "fD", "fC", "t1", "t2", "t3", "t4", "t5", "t6", "t7"];
const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// ---- small helpers ------------------------------------------------------------------

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

function storageGet(key, fallback = null) {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

function storageSet(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch { /* private mode: the page still works, it just forgets */ }
}

function initialLang() {
  const saved = storageGet(KEYS.lang);
  if (LANGS.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

const ui = {
  lang: initialLang(),
  showRules: storageGet(KEYS.rules, true) !== false,   // "Interactive rules"
  doubleClick: storageGet(KEYS.doubleClick, true) !== false,  // off: a single tap acts at once
  game: null,        // the last game JSON from the server
  token: null,       // the owner token (anonymous game token)
  queue: Promise.resolve(),
  pendingTap: null,  // {pile, card, timer} while waiting for a possible second tap
  drag: null,
  celebrated: null,  // id of the game whose win was celebrated on this page
  hint: null,        // {action, version}: the hinted action, highlighted until the game moves on
  selection: null,   // {pile, card}: the card (and the cards on it) chosen with the keyboard
  animate: true,     // false for the render that follows a drop: the card is already where it lands
};

function t(key, vars = {}) {
  const table = STRINGS[ui.lang] || STRINGS.en;
  const text = table[key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

function rankLabel(rank) {
  return rank === "T" ? "10" : rank;
}

function formatSeconds(total) {
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

// ---- the API, in the page's language and with the game's token ---------------------

function api(method, path, body, { auth = true } = {}) {
  return request(method, path, {
    body, lang: ui.lang, token: auth ? ui.token : null, offline: t("networkError"),
  });
}

// ---- messages ----------------------------------------------------------------------

let messageTimer = null;

function showMessage(text, kind = "rule") {
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

function hideMessage() {
  clearTimeout(messageTimer);
  $("#message").hidden = true;
}

function announce(text) {
  const live = $("#live");
  live.textContent = "";
  // a new text node after a frame, so a repeated sentence is read again
  requestAnimationFrame(() => { live.textContent = text; });
}

function reportError(err, { rule = true } = {}) {
  const isRule = rule && err.status >= 400 && err.status < 500 && ![400, 401, 403, 404, 429].includes(err.status);
  if (isRule && !ui.showRules) {
    shakeBoard();
    return;
  }
  showMessage(err.message, isRule ? "rule" : "error");
  if (isRule) shakeBoard();
}

function shakeBoard() {
  const board = $("#board");
  board.classList.remove("shake");
  void board.offsetWidth;
  board.classList.add("shake");
}

// ---- state and persistence ---------------------------------------------------------

function setGame(game, { fresh = false } = {}) {
  const previous = ui.game;
  ui.game = game;
  if (game.token) ui.token = game.token;
  storageSet(KEYS.game, { id: game.id, token: ui.token });
  if (!previous || previous.id !== game.id || previous.version !== game.version) clearSelection({ quiet: true });
  render();
  if (game.last && previous && previous.id === game.id && previous.version !== game.version) {
    flashPoints(game.last.points);
    announce(describeDone(game.last));
  }
  if (game.status === "won" && ui.celebrated !== game.id) {
    if (previous && previous.id === game.id && previous.status !== "won") celebrate();
    else if (!fresh) showMessage(t("alreadyWon"), "info");
    ui.celebrated = game.id;
  }
}

function inProgress() {
  const game = ui.game;
  return Boolean(game && game.status !== "won" && game.moves > 0);
}

// "New game" abandons a game in progress only after the player says so.
function requestNewGame({ useForm = false } = {}) {
  if (!inProgress()) return newGame({ useForm });
  const dialog = $("#confirm-dialog");
  dialog.returnValue = "";
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "yes") newGame({ useForm });
  }, { once: true });
  openDialog(dialog);
  $("#confirm-no").focus();
  return undefined;
}

async function newGame({ useForm = true } = {}) {
  const drawMode = Number($("#draw-mode").value) === 3 ? 3 : 1;
  const code = useForm ? $("#code-input").value.trim().slice(0, 20) : "";
  const body = code ? { code } : { draw: drawMode };
  if (!code && $("#winnable").checked) body.winnable = true;
  storageSet(KEYS.draw, drawMode);
  const buttons = [$("#new-game"), $("#quick-new")];
  buttons.forEach((b) => { b.disabled = true; });
  try {
    const game = await api("POST", "/games", body, { auth: false });
    ui.token = game.token || null;
    ui.celebrated = null;
    hideMessage();
    closeDialog($("#won"));
    closeMenu();
    $("#code-input").value = "";
    setGame(game, { fresh: true });
  } catch (err) {
    reportError(err, { rule: false });
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}

async function resume() {
  const saved = storageGet(KEYS.game);
  if (!saved || typeof saved.id !== "string") return newGame({ useForm: false });
  ui.token = saved.token || null;
  try {
    setGame(await api("GET", `/games/${encodeURIComponent(saved.id)}`));
  } catch (err) {
    if (err.status === 404) {
      storageSet(KEYS.game, null);
      ui.token = null;
      await newGame({ useForm: false });
      showMessage(t("gameLost"), "info");
    } else {
      reportError(err, { rule: false });
    }
  }
  return undefined;
}

// Every action goes through one queue, so quick clicks are sent in order.
function act(path, body, { animate = true } = {}) {
  ui.queue = ui.queue.then(async () => {
    const game = ui.game;
    if (!game) return;
    $("#board").dataset.busy = "1";
    try {
      const next = await api("POST", `/games/${encodeURIComponent(game.id)}/${path}`, body);
      hideMessage();
      ui.animate = animate;
      setGame(next);
    } catch (err) {
      reportError(err);
      ui.animate = false;
      render(); // put back anything dragged
    } finally {
      ui.animate = true;
      delete $("#board").dataset.busy;
    }
  });
  return ui.queue;
}

// ---- rendering ---------------------------------------------------------------------

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
  const base = Math.round(ch * 0.27);
  if (count <= 1) return base;
  const top = $(".tableau").getBoundingClientRect().top + window.scrollY;
  const available = window.innerHeight - top - bottomReserve();
  const fit = Math.floor((available - ch) / (count - 1));
  return Math.max(Math.floor(ch * 0.12), Math.min(base, fit));
}

// The message never covers a card: beside the board when the screen has room,
// else over the header (it lets clicks through to the buttons under it).
function placeMessage() {
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

function focusTarget(pile, card = null) {
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

function render() {
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
    if (n >= 2) cards.push(cardElement(`${RANKS[n - 2]}${suit}`));
    if (n >= 1) cards.push(cardElement(`${RANKS[n - 1]}${suit}`));
    pile.replaceChildren(...cards);
    pile.classList.toggle("empty", n === 0);
    pile.setAttribute("aria-label", `${pileName(`f${suit}`)}: ${n ? cardName(`${RANKS[n - 1]}${suit}`) : "—"}`);
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

function tick() {
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

function flashPoints(points) {
  if (!points) return;
  const flash = document.createElement("span");
  flash.className = `points-flash ${points > 0 ? "plus" : "minus"}`;
  flash.textContent = points > 0 ? `+${points}` : String(points);
  $("#score").parentElement.append(flash);
  flash.addEventListener("animationend", () => flash.remove());
}

// ---- taps: one click = tap, two quick clicks = double tap --------------------------

function registerTap(pile, card) {
  if (!ui.doubleClick) {
    // no double tap to wait for: a single tap plays the card where it fits, at once
    act("tap", { from: pile, card, double: true });
    return;
  }
  const pending = ui.pendingTap;
  if (pending && pending.pile === pile && pending.card === card) {
    clearTimeout(pending.timer);
    ui.pendingTap = null;
    act("tap", { from: pile, card, double: true });
    return;
  }
  if (pending) flushTap();
  ui.pendingTap = {
    pile, card, timer: setTimeout(flushTap, DOUBLE_TAP_MS),
  };
}

function flushTap() {
  const pending = ui.pendingTap;
  if (!pending) return;
  clearTimeout(pending.timer);
  ui.pendingTap = null;
  act("tap", { from: pending.pile, card: pending.card, double: false });
}

// ---- dragging with pointer events (mouse, pen and touch alike) ---------------------

function draggableCards(pileEl, cardEl) {
  const pile = pileEl.dataset.pile;
  const cards = $$(".card", pileEl).filter((el) => !el.classList.contains("under"));
  const index = cards.indexOf(cardEl);
  if (index < 0) return null;
  if (pile.startsWith("t")) return cards.slice(index);
  return index === cards.length - 1 ? [cardEl] : null; // waste and foundations: the top card only
}

function onPointerDown(event) {
  if (event.button !== 0 || ui.drag || !ui.game) return;
  const cardEl = event.target.closest(".card");
  const pileEl = event.target.closest("[data-pile]");
  if (!cardEl || !pileEl || pileEl.dataset.pile === "stock") return;
  const cards = draggableCards(pileEl, cardEl);
  if (!cards) return;
  event.preventDefault();
  const rect = cardEl.getBoundingClientRect();
  ui.drag = {
    pointerId: event.pointerId,
    pile: pileEl.dataset.pile,
    card: cardEl.dataset.card,
    cards,
    startX: event.clientX,
    startY: event.clientY,
    rect,
    moved: false,
    hover: null,
  };
  try {
    $("#board").setPointerCapture(event.pointerId);
  } catch { /* synthetic events have no capture */ }
}

function startDrag(drag) {
  drag.moved = true;
  const layer = $("#drag-layer");
  const top = drag.cards[0].getBoundingClientRect();
  layer.replaceChildren(...drag.cards.map((el) => {
    const clone = el.cloneNode(true);
    const r = el.getBoundingClientRect();
    clone.style.left = `${r.left - top.left}px`;
    clone.style.top = `${r.top - top.top}px`;
    clone.style.width = `${r.width}px`;
    clone.style.height = `${r.height}px`;
    clone.removeAttribute("tabindex");
    clone.removeAttribute("data-card"); // the real card keeps its place in the pile
    return clone;
  }));
  layer.style.left = `${top.left}px`;
  layer.style.top = `${top.top}px`;
  layer.style.width = `${top.width}px`;
  layer.style.height = `${top.height}px`;
  layer.hidden = false;
  layer.classList.add("active");
  drag.cards.forEach((el) => el.classList.add("dragging"));
  document.body.classList.add("is-dragging");
}

function dropTargetAt(drag, x, y) {
  const hit = document.elementFromPoint(x, y);
  const pileEl = hit && hit.closest("[data-pile]");
  if (pileEl) return pileEl;
  // Not straight over a pile: take the pile the dragged card overlaps most.
  const dx = x - drag.startX;
  const dy = y - drag.startY;
  const card = { left: drag.rect.left + dx, top: drag.rect.top + dy, right: drag.rect.right + dx, bottom: drag.rect.bottom + dy };
  let best = null;
  let bestArea = 0;
  for (const el of $$("[data-pile]")) {
    const r = el.getBoundingClientRect();
    const w = Math.min(card.right, r.right) - Math.max(card.left, r.left);
    const h = Math.min(card.bottom, r.bottom) - Math.max(card.top, r.top);
    if (w > 0 && h > 0 && w * h > bestArea) {
      best = el;
      bestArea = w * h;
    }
  }
  return best;
}

function onPointerMove(event) {
  const drag = ui.drag;
  if (!drag || event.pointerId !== drag.pointerId) return;
  const dx = event.clientX - drag.startX;
  const dy = event.clientY - drag.startY;
  if (!drag.moved) {
    if (Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
    startDrag(drag);
  }
  $("#drag-layer").style.transform = `translate(${dx}px, ${dy}px)`;
  const target = dropTargetAt(drag, event.clientX, event.clientY);
  if (target !== drag.hover) {
    if (drag.hover) drag.hover.classList.remove("drop-hover");
    if (target && target.dataset.pile !== drag.pile) target.classList.add("drop-hover");
    drag.hover = target;
  }
}

function endDrag() {
  const drag = ui.drag;
  ui.drag = null;
  const layer = $("#drag-layer");
  layer.replaceChildren();
  layer.classList.remove("active");
  layer.style.transform = "";
  document.body.classList.remove("is-dragging");
  if (drag) {
    drag.cards.forEach((el) => el.classList.remove("dragging"));
    if (drag.hover) drag.hover.classList.remove("drop-hover");
  }
  return drag;
}

function onPointerUp(event) {
  const drag = ui.drag;
  if (!drag || event.pointerId !== drag.pointerId) return;
  const target = drag.moved ? dropTargetAt(drag, event.clientX, event.clientY) : null;
  endDrag();
  if (!drag.moved) {
    if (!drag.pile.startsWith("f")) registerTap(drag.pile, drag.card);
    return;
  }
  if (!target) return;
  drop(drag.pile, drag.card, target.dataset.pile);
}

function drop(from, card, to) {
  if (to === from) return;
  if (from.startsWith("f")) {
    act("take-back", { from, to }, { animate: false });
  } else {
    act("moves", { from, to: to.startsWith("f") ? "foundation" : to, card }, { animate: false });
  }
}

function onStockClick() {
  const game = ui.game;
  if (!game || game.status === "won") return;
  flushTap();
  clearSelection({ quiet: true });
  if (game.stock > 0) act("draw");
  else if (game.waste.length) act("recycle");
}

// ---- keyboard: select a card, then its destination ----------------------------------

function topOfFoundation(pile) {
  const suit = pile.slice(1);
  const n = ui.game ? ui.game.foundations[suit] || 0 : 0;
  return n ? `${RANKS[n - 1]}${suit}` : null;
}

function markSelection() {
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

function clearSelection({ quiet = false } = {}) {
  if (!ui.selection) return;
  ui.selection = null;
  markSelection();
  if (!quiet) announce(t("cancelled"));
}

function choose(pile, card) {
  const game = ui.game;
  if (!game || game.status === "won" || pile === "stock") return;
  const sel = ui.selection;
  if (!sel) {
    const chosen = pile.startsWith("f") ? topOfFoundation(pile) : card;
    if (!chosen) return;
    ui.selection = { pile, card: chosen };
    markSelection();
    const column = pile.startsWith("t") ? game.tableau[Number(pile.slice(1)) - 1] : [];
    const group = column.length && column[column.length - 1] !== chosen ? t("selectedGroup") : "";
    announce(t("selected", { card: cardName(chosen), group }));
    return;
  }
  clearSelection({ quiet: true });
  if (sel.pile === pile) {
    // the same card twice: play it where it fits (its foundation, else a column)
    if (!pile.startsWith("f") && sel.card === card) act("tap", { from: pile, card, double: true });
    else announce(t("cancelled"));
    return;
  }
  drop(sel.pile, sel.card, pile);
}

function neighbour(pile, step) {
  let index = PILE_ORDER.indexOf(pile);
  for (let i = 0; i < PILE_ORDER.length; i++) {
    index = (index + step + PILE_ORDER.length) % PILE_ORDER.length;
    const el = focusTarget(PILE_ORDER[index]);
    if (el) return el;
  }
  return null;
}

function onBoardKey(event) {
  const pileEl = event.target.closest("[data-pile]");
  if (!pileEl || event.altKey || event.ctrlKey || event.metaKey) return;
  const pile = pileEl.dataset.pile;
  const cardEl = event.target.closest("[data-card]");
  let next = null;
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    next = neighbour(pile, event.key === "ArrowLeft" ? -1 : 1);
  } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
    const down = event.key === "ArrowDown";
    if (pile.startsWith("t")) {
      const cards = $$("[data-card][tabindex]", pileEl);
      const index = cards.indexOf(cardEl);
      next = cards[index + (down ? 1 : -1)] || (!down ? focusTarget(PILE_ORDER[Math.min(5, Number(pile.slice(1)) - 1)]) : null);
    } else if (down) {
      next = focusTarget(`t${PILE_ORDER.indexOf(pile) + 1}`) || neighbour(`t${PILE_ORDER.indexOf(pile)}`, 1);
    }
  } else if (event.key === "Enter" || event.key === " ") {
    if (pile === "stock") return; // the stock is a button: its click draws
    event.preventDefault();
    choose(pile, cardEl ? cardEl.dataset.card : null);
    return;
  } else {
    return;
  }
  event.preventDefault();
  if (next) next.focus();
}

function typing(target) {
  return target.closest("input, select, textarea, dialog[open]") !== null;
}

function onShortcut(event) {
  if (event.defaultPrevented) return;
  const key = event.key;
  if (key === "Escape" && !$("#menu").hidden) {
    closeMenu();
    $("#menu-button").focus();
    return;
  }
  if (typing(event.target)) return;
  if (key === "Escape") {
    clearSelection();
    return;
  }
  if ((event.ctrlKey || event.metaKey) && !event.altKey && key.toLowerCase() === "z") {
    event.preventDefault();
    undo();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const actions = {
    d: onStockClick, u: undo, h: showHint, n: () => requestNewGame(), "?": showKeys,
  };
  const run = actions[key.toLowerCase()];
  if (run) {
    event.preventDefault();
    run();
  }
}

function undo() {
  flushTap();
  clearSelection({ quiet: true });
  if (ui.game && ui.game.can_undo) act("undo");
}

function showKeys() {
  const copy = $("#keys-copy");
  copy.replaceChildren(...$$("#keys-list li").map((li) => li.cloneNode(true)));
  openDialog($("#keys-dialog"));
}

// ---- hint ------------------------------------------------------------------------

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

async function showHint() {
  const game = ui.game;
  if (!game || game.status === "won") return;
  $$(".hint, .hint-target").forEach((el) => el.classList.remove("hint", "hint-target"));
  let action = null;
  let proven = false;
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
    try {
      const legal = await api("GET", `/games/${encodeURIComponent(game.id)}/legal-moves`, undefined, { auth: false });
      action = moveToTry(legal.items || []);
    } catch {
      showMessage(t("hintUnavailable"), "info");
      return;
    }
    if (!action) {
      showMessage(t("hintNone"), "info");
      return;
    }
  }
  if (ui.game !== game) return; // the game moved on while we asked
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
function describeDone(last) {
  if (!last) return "";
  if (last.action === "draw" || last.action === "recycle" || last.action === "undo") {
    const names = { draw: "drawButton", recycle: "recycle", undo: "undo" };
    return `${t(names[last.action])}${last.points ? ` (${last.points > 0 ? "+" : ""}${last.points})` : ""}`;
  }
  const cards = (last.cards || []).map(cardName).join(" ");
  const points = last.points ? ` (${last.points > 0 ? "+" : ""}${last.points})` : "";
  return `${cards} → ${pileName(last.moved_to || last.to)}${points}`; // a tap says where it went in moved_to
}

function highlight(action) {
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

// ---- leaderboard -------------------------------------------------------------------

function openDialog(dialog) {
  if (dialog.open) return;
  if (typeof dialog.showModal === "function") dialog.showModal();
  else dialog.setAttribute("open", "");
}

function closeDialog(dialog) {
  if (!dialog.open) return;
  if (typeof dialog.close === "function") dialog.close();
  else dialog.removeAttribute("open");
}

async function showLeaderboard() {
  openDialog($("#leaderboard-dialog"));
  await Promise.all([1, 3].map(async (draw) => {
    const list = $(`#lb-${draw}`);
    list.textContent = t("loading");
    try {
      const data = await api("GET", `/leaderboard?draw=${draw}&limit=10`, undefined, { auth: false });
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

// ---- the win ------------------------------------------------------------------------

function celebrate() {
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

// ---- language, settings and the menu ------------------------------------------------

// The page's own strings at once; the board once the catalogs' names of piles and cards
// in the language are in (names.js).
async function applyLang() {
  document.documentElement.lang = ui.lang;
  $("#lang").value = ui.lang;
  for (const el of $$("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of $$("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr, t(key));
    }
  }
  for (const page of ["rules", "examples", "faq"]) $(`.help-${page}`).href = `/help/${page}?lang=${ui.lang}`;
  try {
    await useNames(ui.lang, { offline: t("networkError") });
  } catch (err) {
    reportError(err, { rule: false }); // the page still plays, naming piles and cards by their ids
  }
  render();
}

function openMenu() {
  $("#menu").hidden = false;
  $("#menu-button").setAttribute("aria-expanded", "true");
  $("#draw-mode").focus();
}

function closeMenu() {
  if ($("#menu").hidden) return;
  $("#menu").hidden = true;
  $("#menu-button").setAttribute("aria-expanded", "false");
}

async function copyCode() {
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

// ---- wiring --------------------------------------------------------------------------

function init() {
  const board = $("#board");
  $("#draw-mode").value = String(storageGet(KEYS.draw, 1) === 3 ? 3 : 1);
  $("#show-rules").checked = ui.showRules;
  $("#double-click").checked = ui.doubleClick;

  $("#new-game-form").addEventListener("submit", (event) => {
    event.preventDefault();
    requestNewGame({ useForm: true });
  });
  $("#quick-new").addEventListener("click", () => requestNewGame());
  $("#undo").addEventListener("click", undo);
  $("#hint").addEventListener("click", showHint);
  $("#draw").addEventListener("click", onStockClick);
  $("#menu-button").addEventListener("click", () => ($("#menu").hidden ? openMenu() : closeMenu()));
  document.addEventListener("pointerdown", (event) => {
    if (!event.target.closest("#menu, #menu-button")) closeMenu();
  });
  $("#leaderboard").addEventListener("click", () => {
    closeMenu();
    showLeaderboard();
  });
  $("#keys-button").addEventListener("click", () => {
    closeMenu();
    showKeys();
  });
  $("#won-board").addEventListener("click", () => {
    closeDialog($("#won"));
    showLeaderboard();
  });
  $("#won-new").addEventListener("click", () => {
    closeDialog($("#won"));
    newGame({ useForm: false });
  });
  $("#lang").addEventListener("change", (event) => {
    ui.lang = LANGS.includes(event.target.value) ? event.target.value : "en";
    storageSet(KEYS.lang, ui.lang);
    hideMessage(); // a shown rule is in the old language; the next rejection comes in the new one
    applyLang();
  });
  $("#show-rules").addEventListener("change", (event) => {
    ui.showRules = event.target.checked;
    storageSet(KEYS.rules, ui.showRules);
    if (!ui.showRules && $("#message").dataset.kind === "rule") hideMessage();
  });
  $("#double-click").addEventListener("change", (event) => {
    ui.doubleClick = event.target.checked;
    storageSet(KEYS.doubleClick, ui.doubleClick);
    flushTap();
  });
  $("#message-close").addEventListener("click", hideMessage);
  $("#copy-code").addEventListener("click", copyCode);
  $('[data-pile="stock"]').addEventListener("click", onStockClick);

  board.addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove);
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("pointercancel", (event) => {
    if (ui.drag && event.pointerId === ui.drag.pointerId) endDrag();
  });
  board.addEventListener("keydown", onBoardKey);
  document.addEventListener("keydown", onShortcut);
  board.addEventListener("dragstart", (event) => event.preventDefault());
  window.addEventListener("resize", () => {
    ui.animate = false;
    render();
    ui.animate = true;
  });
  setInterval(tick, 1000);

  applyLang().then(resume);
}

init();
