// Input: taps and double taps, drags with pointer events (mouse, pen and touch alike), and
// the keyboard (select a card, then its destination; shortcuts), each turned into an action.

import { perform } from "./actions.js";
import { announce, closeMenu, showKeys } from "./dialogs.js";
import { $, $$ } from "./dom.js";
import { Action } from "./engine/index.js";
import { requestNewGame } from "./games.js";
import { showHint } from "./hint.js";
import { cardName } from "./names.js";
import { focusTarget, markSelection, topOfFoundation } from "./render.js";
import { t, ui } from "./ui.js";

export const DOUBLE_TAP_MS = 280;
const DRAG_THRESHOLD = 6;

// the order of the piles for the arrow keys: the top row, then the columns
const PILE_ORDER = ["stock", "waste", "fS", "fH", "fD", "fC", "t1", "t2", "t3", "t4", "t5", "t6", "t7"];

function tap(pile, card, double) {
  perform(String(Action.tap(pile, card, double)));
}

function markTapped(pile, card, on) {
  const el = $(`[data-pile="${pile}"] [data-card="${card}"]`);
  if (el) el.classList.toggle("tapped", on);
}

function registerTap(pile, card) {
  if (!ui.doubleClick) {
    // no double tap to wait for: a single tap plays the card where it fits, at once
    tap(pile, card, true);
    return;
  }
  const pending = ui.pendingTap;
  if (pending && pending.pile === pile && pending.card === card) {
    clearTimeout(pending.timer);
    ui.pendingTap = null;
    markTapped(pile, card, false);
    tap(pile, card, true);
    return;
  }
  if (pending) flushTap();
  // the first tap shows at once (the card lifts); it plays when no second tap came in time
  markTapped(pile, card, true);
  ui.pendingTap = {
    pile, card, timer: setTimeout(flushTap, DOUBLE_TAP_MS),
  };
}

export function flushTap() {
  const pending = ui.pendingTap;
  if (!pending) return;
  clearTimeout(pending.timer);
  ui.pendingTap = null;
  markTapped(pending.pile, pending.card, false);
  tap(pending.pile, pending.card, false);
}

function draggableCards(pileEl, cardEl) {
  const pile = pileEl.dataset.pile;
  const cards = $$(".card", pileEl).filter((el) => !el.classList.contains("under"));
  const index = cards.indexOf(cardEl);
  if (index < 0) return null;
  if (pile.startsWith("t")) return cards.slice(index);
  return index === cards.length - 1 ? [cardEl] : null; // waste and foundations: the top card only
}

export function onPointerDown(event) {
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

export function onPointerMove(event) {
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

export function endDrag() {
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

export function onPointerUp(event) {
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
    perform(String(Action.takeBack(from, to)), { animate: false });
  } else {
    perform(String(Action.move(from, to.startsWith("f") ? "foundation" : to, card)), { animate: false });
  }
}

export function onStockClick() {
  const game = ui.game;
  if (!game || game.status === "won") return;
  flushTap();
  clearSelection({ quiet: true });
  if (game.stock > 0) perform("draw");
  else if (game.waste.length) perform("recycle");
}

export function clearSelection({ quiet = false } = {}) {
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
    if (!pile.startsWith("f") && sel.card === card) tap(pile, card, true);
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

export function onBoardKey(event) {
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

export function onShortcut(event) {
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

export function undo() {
  flushTap();
  clearSelection({ quiet: true });
  if (ui.game && ui.game.can_undo) perform("undo");
}
