// The play page of Solitaire Réfléchi: plain JavaScript ES modules, no build, only the
// public /v1 API.
//
// The server owns every rule. The page renders the game JSON it gets back, turns
// clicks, drags and keys into actions, and shows the problem's `detail` (localized by
// the Accept-Language header it sends) when an action is rejected. This module sets the
// language and wires the page; the rest is one module each: state.js (settings, the
// game, the action queue), render.js, input.js, hint.js, dialogs.js (messages, dialogs,
// the menu), api.js (the API client), names.js (piles and cards named as the server's
// catalogs name them), strings.js (the page's own strings). Nothing is inline in the
// HTML, so a strict CSP can serve it.

import {
  closeDialog, closeMenu, copyCode, hideMessage, openMenu, reportError, showKeys, showLeaderboard,
} from "./dialogs.js";
import { $, $$ } from "./dom.js";
import { showHint } from "./hint.js";
import {
  endDrag, flushTap, onBoardKey, onPointerDown, onPointerMove, onPointerUp, onShortcut,
  onStockClick, undo,
} from "./input.js";
import { useNames } from "./names.js";
import { render, tick } from "./render.js";
import { KEYS, LANGS, newGame, requestNewGame, resume, storageGet, storageSet, t, ui } from "./state.js";

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
