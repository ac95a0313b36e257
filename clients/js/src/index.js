/**
 * solitaire-reflechi-engine: the rules of Solitaire Réfléchi, action for action the
 * same as the server's (`service/engine`), for front-ends that play locally and let
 * the server judge.
 *
 * @module
 */

export { CARDS, COLUMNS, Card, FOUNDATIONS, NotationError, Pile, RANKS, SUITS } from "./cards.js";
export { DEAL_COUNT, DRAW_MODES, GameCode, dealCards, formatDeal, randomDeal, shuffledDeck } from "./deal.js";
export { ACTION_CODES, PRECEDENCE, RULE_PARAMS, Rejection } from "./rejections.js";
export { Action, KINDS, formatAction, parseAction } from "./notation.js";
export { Game, Outcome, RULES_VERSION, RULE_FIELDS, STATE_VERSION, UNDO_LIMIT, replay } from "./game.js";
export { answerLine, replayResults, MAX_LINE_CHARS } from "./conformance.js";

// The types of the JSON forms, for TypeScript users.
/**
 * @typedef {import("./cards.js").PileName} PileName
 * @typedef {import("./notation.js").ActionKind} ActionKind
 * @typedef {import("./notation.js").ActionJSON} ActionJSON
 * @typedef {import("./game.js").OutcomeJSON} OutcomeJSON
 * @typedef {import("./game.js").GameJSON} GameJSON
 * @typedef {import("./game.js").GameState} GameState
 * @typedef {import("./conformance.js").ActionResult} ActionResult
 * @typedef {import("./conformance.js").GameResults} GameResults
 */
