/**
 * The conformance runner's answers, without any I/O (bin/replay.mjs streams them):
 * one game in, its results out, in the shape the server's vectors use
 * (`flask --app service vectors`), so that two implementations compare line by line.
 *
 * @module
 */

import { NotationError } from "./cards.js";
import { Game } from "./game.js";
import { Action } from "./notation.js";
import { Rejection } from "./rejections.js";

/** The longest input line the runner reads (characters); a longer one is answered INVALID_REQUEST. */
export const MAX_LINE_CHARS = 4 * 1024 * 1024;

/**
 * @typedef {{ok: true, game: import("./game.js").GameJSON}
 *   | {ok: false, code: string, params: Record<string, string | number>}} ActionResult
 * @typedef {{results: ActionResult[]} | {error: {code: string, params: Record<string, string | number>}}} GameResults
 */

/**
 * Play `actions` (notations) from the deal `code`: one result per action, the game after
 * it or its rejection; a rejected action changes nothing. A notation that does not parse
 * is `INVALID_REQUEST` with `params.notation`; a bad code is one `error` for the game.
 * @param {string} code
 * @param {string[]} actions
 * @returns {GameResults}
 */
export function replayResults(code, actions) {
  let game;
  try {
    game = Game.fromCode(code);
  } catch (error) {
    if (error instanceof Rejection) return { error: { code: error.code, params: error.params } };
    throw error;
  }
  /** @type {ActionResult[]} */
  const results = [];
  for (const notation of actions) {
    let action;
    try {
      action = Action.parse(notation);
    } catch (error) {
      if (!(error instanceof NotationError)) throw error;
      results.push({ ok: false, code: "INVALID_REQUEST", params: { notation } });
      continue;
    }
    try {
      game.apply(action);
    } catch (error) {
      if (!(error instanceof Rejection)) throw error;
      results.push({ ok: false, code: error.code, params: error.params });
      continue;
    }
    results.push({ ok: true, game: game.view() });
  }
  return { results };
}

/**
 * The runner's answer to one input line (without its line break):
 * `{"code": "TF1-D1N-AAAAAAB", "actions": ["draw", …]}` gives {@link replayResults};
 * a line that is not JSON, too long, or without a string `code` and a list of string
 * `actions` gives `{"error": {"code": "INVALID_REQUEST", "params": {"reason": …}}}`.
 * Other fields are ignored, so a vectors file's game lines can be fed as they are.
 * @param {string} text
 * @returns {GameResults}
 */
export function answerLine(text) {
  if (text.length > MAX_LINE_CHARS) return invalid("line too long", { limit: MAX_LINE_CHARS });
  let input;
  try {
    input = JSON.parse(text);
  } catch {
    return invalid("not JSON");
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) return invalid("not a JSON object");
  if (typeof input.code !== "string") return invalid("no string code");
  if (!Array.isArray(input.actions) || !input.actions.every((/** @type {unknown} */ a) => typeof a === "string")) {
    return invalid("no list of string actions");
  }
  return replayResults(input.code, input.actions);
}

/**
 * @param {string} reason
 * @param {Record<string, number>} [extra]
 * @returns {GameResults}
 */
function invalid(reason, extra = {}) {
  return { error: { code: "INVALID_REQUEST", params: { reason, ...extra } } };
}
