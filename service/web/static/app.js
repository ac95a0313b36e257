// The play page of Solitaire Réfléchi: plain JavaScript ES modules, no build, the public
// /v1 API and the rules engine of clients/js (served under /static/engine).
//
// Data flows one way: the engine applies every action at once (play.js keeps the game and
// its record in localStorage), the view draws what play.js says changed (render.js, the
// live region, the dialogs), input.js turns clicks, drags and keys into actions, and
// sync.js sends them to the server in batches, adopting the server's game when it judges
// otherwise. Other modules: games.js (deal, resume), hint.js, dialogs.js (messages,
// dialogs, the menu), api.js, names.js (piles, cards and rule sentences as the server's
// catalogs word them), strings.js (the page's own strings), ui.js (settings, view state).
// Nothing is inline in the HTML, so a strict CSP can serve it.

import {
  announce, celebrate, closeDialog, closeMenu, copyCode, hideMessage, openMenu, reportError, showKeys,
  showLeaderboard, showMessage,
} from "./dialogs.js";
import { $, $$ } from "./dom.js";
import { newGame, requestNewGame, resume } from "./games.js";
import { describeDone, showHint } from "./hint.js";
import {
  clearSelection, endDrag, flushTap, onBoardKey, onPointerDown, onPointerMove, onPointerUp, onShortcut,
  onStockClick, undo,
} from "./input.js";
import { useNames } from "./names.js";
import { onChange } from "./play.js";
import { flashPoints, render, tick } from "./render.js";
import { onNotice, onStatus, report, wire } from "./sync.js";
import { KEYS, LANGS, storageGet, storageSet, t, ui } from "./ui.js";

// The view follows the game: drawn in the same frame as the action, said in the live region.
function showChange({ kind, previous, outcome }) {
  const game = ui.game;
  if (!game) return;
  if (!previous || previous.code !== game.code || previous.version !== game.version || kind !== "played") {
    clearSelection({ quiet: true });
  }
  render();
  if (kind === "played" && outcome) {
    flashPoints(outcome.points);
    announce(describeDone(game.last));
  }
  const key = `${game.code}@${game.created_at}`;
  if (game.status === "won" && ui.celebrated !== key) {
    if (kind === "played") celebrate();
    ui.celebrated = key;
  }
  report();
}

// The indicator: synced, n waiting, or offline.
function showStatus(status, waiting) {
  const box = $("#sync");
  box.dataset.state = status;
  box.textContent = status === "offline" ? t("syncOffline")
    : status === "waiting" ? t("syncWaiting", { n: waiting }) : t("syncSynced");
  $("#board").dataset.sync = status;
}

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
  report();
}

function init() {
  onChange(showChange);
  onStatus(showStatus);
  onNotice((key, vars) => showMessage(t(key, vars), "info"));
  wire();
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
  if ("serviceWorker" in navigator) {
    // the offline app: the page, its modules, the catalogs and the help pages (sw.js)
    navigator.serviceWorker.register("/sw.js").catch(() => {});
    // the first worker taking over a first visit changes nothing; a later one is a new version
    let controlled = Boolean(navigator.serviceWorker.controller);
    let reloaded = false;
    navigator.serviceWorker.addEventListener("controllerchange", () => {
      // a new version took over: load its files (the game is in localStorage, nothing is lost)
      if (controlled && !reloaded) {
        reloaded = true;
        location.reload();
      }
      controlled = true;
    });
  }
}

init();
