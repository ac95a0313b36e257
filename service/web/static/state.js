// The page's state: settings kept in localStorage, the game the server last sent, and the
// only ways it changes: dealing, resuming, and one queue of actions sent to the API.

import { request } from "./api.js";
import {
  announce, celebrate, closeDialog, closeMenu, hideMessage, openDialog, reportError, showMessage,
} from "./dialogs.js";
import { $ } from "./dom.js";
import { describeDone } from "./hint.js";
import { clearSelection } from "./input.js";
import { flashPoints, render } from "./render.js";
import { STRINGS } from "./strings.js";

export const LANGS = ["en", "de", "da", "ro", "ja"];

export const KEYS = {
  game: "sr.game", lang: "sr.lang", rules: "sr.showRules", draw: "sr.draw", doubleClick: "sr.doubleClick",
};

export function storageGet(key, fallback = null) {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

export function storageSet(key, value) {
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

export const ui = {
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

export function t(key, vars = {}) {
  const table = STRINGS[ui.lang] || STRINGS.en;
  const text = table[key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

export function api(method, path, body, { auth = true } = {}) {
  return request(method, path, {
    body, lang: ui.lang, token: auth ? ui.token : null, offline: t("networkError"),
  });
}

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
export function requestNewGame({ useForm = false } = {}) {
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

export async function newGame({ useForm = true } = {}) {
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

export async function resume() {
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
export function act(path, body, { animate = true } = {}) {
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
