// One entry for every action the player makes: the local engine applies it at once (the
// view redraws in the same frame, through play.js's listeners), a refusal shows the rule's
// sentence as the server would word it, and sync.js sends the action after the idle time.

import { Rejection } from "./engine/index.js";
import { hideMessage, reportRule } from "./dialogs.js";
import { play } from "./play.js";
import { schedule } from "./sync.js";
import { ui } from "./ui.js";

/** @param {string} notation @param {{animate?: boolean}} [options] */
export function perform(notation, { animate = true } = {}) {
  if (!ui.game) return false;
  ui.animate = animate;
  try {
    play(notation);
  } catch (err) {
    if (!(err instanceof Rejection)) throw err;
    reportRule(err.code, err.params);
    return false;
  } finally {
    ui.animate = true;
  }
  if (document.querySelector("#message")?.getAttribute("data-kind") === "rule") hideMessage();
  schedule();
  return true;
}
