// Dealing and resuming. A new game is dealt by the local engine from its code (typed, or
// random), drawn at once and playable offline; sync.js creates it on the server. Only a
// "winnable" deal needs the server first (its solver picks the code).

import { GameCode, Rejection } from "./engine/index.js";
import { closeDialog, closeMenu, hideMessage, openDialog, reportError, reportRule, showMessage } from "./dialogs.js";
import { $ } from "./dom.js";
import { adopt, deal, restore, saved } from "./play.js";
import { show } from "./store.js";
import { api, check, history, isOffline, schedule } from "./sync.js";
import { KEYS, storageSet, t, ui } from "./ui.js";

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

function dealt() {
  ui.celebrated = null;
  hideMessage();
  closeDialog($("#won"));
  closeMenu();
  $("#code-input").value = "";
}

export async function newGame({ useForm = true } = {}) {
  const drawMode = Number($("#draw-mode").value) === 3 ? 3 : 1;
  const typed = useForm ? $("#code-input").value.trim().slice(0, 20) : "";
  storageSet(KEYS.draw, drawMode);
  let code;
  try {
    code = typed ? GameCode.parse(typed) : null;
  } catch (err) {
    if (err instanceof Rejection) reportRule(err.code, err.params);
    else throw err;
    return;
  }
  if (!code && $("#winnable").checked) {
    if (!isOffline()) {
      await dealWinnable(drawMode);
      return;
    }
    showMessage(t("winnableOffline"), "info");
  }
  // the game left behind keeps what was played on it (store.js); sync.js sends it in the background
  deal(code || GameCode.random(drawMode));
  dealt();
  schedule(0);
}

async function dealWinnable(drawMode) {
  const buttons = [$("#new-game"), $("#quick-new")];
  buttons.forEach((b) => { b.disabled = true; });
  try {
    const game = await api("POST", "/games", { draw: drawMode, winnable: true });
    adopt(game, []);
    dealt();
    schedule(0); // the game left behind, if it has anything unsent
  } catch (err) {
    reportError(err, { rule: false });
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}

// The game of the last visit: replayed locally from its record (offline too), then
// brought up to date with the server. An older record (id and token only) is fetched.
export async function resume() {
  let record = saved();
  if (record && record.lid) {
    // another tab may be sending this game in the background: wait for it (a moment at most), then read it again
    await Promise.race([show(record.lid), new Promise((resolve) => { setTimeout(resolve, 3000); })]);
    record = saved() || record;
  }
  if (record && restore(record)) {
    if (ui.game.status === "won") showMessage(t("alreadyWon"), "info");
    await check();
    return;
  }
  if (!record || typeof record.id !== "string") {
    await newGame({ useForm: false });
    return;
  }
  try {
    const id = encodeURIComponent(record.id);
    const token = record.token || null;
    const game = await api("GET", `/games/${id}`);
    adopt({ ...game, token }, await history(record.id));
  } catch (err) {
    if (err.status === 404) {
      storageSet(KEYS.game, null);
      await newGame({ useForm: false });
      showMessage(t("gameLost"), "info");
    } else {
      reportError(err, { rule: false });
    }
  }
}
