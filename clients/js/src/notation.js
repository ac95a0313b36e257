/**
 * Actions and their one-line text notation, as the history export and the runner write them.
 *
 * | notation             | action                                                   |
 * |----------------------|----------------------------------------------------------|
 * | `t3>t5`              | move the last card of t3 onto t5                         |
 * | `t3>t5:9C`           | move 9C and every card above it from t3 onto t5          |
 * | `waste>foundation`   | move the top waste card to its own foundation            |
 * | `t1>fH`              | move the last card of t1 to the hearts foundation        |
 * | `fH>t4`              | take the top card of the hearts foundation back onto t4  |
 * | `draw`               | draw from the stock                                      |
 * | `recycle`            | turn the waste over into the stock                       |
 * | `undo`               | undo the most recent action                              |
 * | `tap:t3`             | single tap on the last card of t3 (foundation only)      |
 * | `dtap:t3:9C`         | double tap on 9C of t3 (foundation, else a column)       |
 *
 * @module
 */

import { Card, NotationError, PILE_INDEX, Pile, WASTE_PILE, describe } from "./cards.js";

export const MOVE = "move";
export const DRAW = "draw";
export const RECYCLE = "recycle";
export const UNDO = "undo";
export const TAKE_BACK = "take-back";
export const TAP = "tap";
/** @type {readonly ActionKind[]} */
export const KINDS = Object.freeze([MOVE, DRAW, RECYCLE, UNDO, TAKE_BACK, TAP]);

/**
 * @typedef {"move"|"draw"|"recycle"|"undo"|"take-back"|"tap"} ActionKind
 * @typedef {import("./cards.js").PileName} PileName
 */

/** Kind numbers, read by the game on its hot path. */
export const K_MOVE = 0;
export const K_DRAW = 1;
export const K_RECYCLE = 2;
export const K_UNDO = 3;
export const K_TAKE_BACK = 4;
export const K_TAP = 5;

const BARE = new Set([DRAW, RECYCLE, UNDO]);

/**
 * An action's numbers, for the game's hot path: `[kind, source, target, card]`.
 * @type {(action: Action) => Int16Array}
 */
export let numbersOf;

/**
 * One player action. Invalid combinations of kind and piles throw NotationError.
 * Build one with {@link Action.parse} or the static constructors.
 */
export class Action {
  /** kind number, source and target pile numbers (cards.js PILES, -1: none), card index (-1: none) */
  #numbers;

  static {
    numbersOf = (action) => action.#numbers;
  }

  /**
   * @param {ActionKind} kind
   * @param {string | null} [source]
   * @param {string | null} [target]
   * @param {Card | string | null} [card]
   * @param {boolean} [double]
   */
  constructor(kind, source = null, target = null, card = null, double = false) {
    const from = source === null ? null : Pile.parse(source);
    const to = target === null ? null : Pile.parse(target);
    const named = card === null || card instanceof Card ? card : Card.parse(card);
    const src = from === null ? -1 : /** @type {number} */ (PILE_INDEX.get(from));
    const dst = to === null ? -1 : /** @type {number} */ (PILE_INDEX.get(to));
    const playSource = src >= 0 && src <= WASTE_PILE;
    let ok;
    if (BARE.has(kind)) ok = from === null && to === null && named === null && double === false;
    else if (kind === MOVE) ok = playSource && to !== null && double === false;
    else if (kind === TAKE_BACK) {
      ok = src > WASTE_PILE && src < 12 && to !== null && named === null && double === false;
    } else if (kind === TAP) ok = playSource && to === null && typeof double === "boolean";
    else ok = false;
    if (!ok) {
      throw new NotationError(`not a valid action: ${JSON.stringify({ kind, source, target, card: String(card), double })}`);
    }
    /** @type {ActionKind} */
    this.kind = kind;
    /** @type {PileName | null} */
    this.source = from;
    /** @type {PileName | null} */
    this.target = to;
    /** @type {Card | null} */
    this.card = named;
    /** @type {boolean} */
    this.double = double;
    this.#numbers = Int16Array.of(KIND_NUMBER[kind], src, dst, named === null ? -1 : named.index);
    Object.freeze(this);
  }

  /**
   * A move of `card` (default: the source's top card) and the cards above it.
   * @param {string} source `t1`…`t7` or `waste`
   * @param {string} target a column, a foundation or `foundation`
   * @param {Card | string | null} [card]
   */
  static move(source, target, card = null) {
    return new Action(MOVE, source, target, card ?? null);
  }

  /**
   * The top card of foundation `source` back onto column `target`.
   * @param {string} source `fS`…`fC`
   * @param {string} target
   */
  static takeBack(source, target) {
    return new Action(TAKE_BACK, source, target);
  }

  /**
   * A single or double tap on `card` (default: the source's top card).
   * @param {string} source `t1`…`t7` or `waste`
   * @param {Card | string | null} [card]
   * @param {boolean} [double]
   */
  static tap(source, card = null, double = false) {
    return new Action(TAP, source, null, card ?? null, Boolean(double));
  }

  /** The draw. */
  static draw() {
    return DRAW_ACTION;
  }

  /** The recycle. */
  static recycle() {
    return RECYCLE_ACTION;
  }

  /** The undo. */
  static undo() {
    return UNDO_ACTION;
  }

  /**
   * Parse the one-line notation; throw NotationError for anything else.
   * @param {string} text
   * @returns {Action}
   */
  static parse(text) {
    if (typeof text !== "string") throw new NotationError(`not an action: ${describe(text)}`);
    if (text === DRAW) return DRAW_ACTION;
    if (text === RECYCLE) return RECYCLE_ACTION;
    if (text === UNDO) return UNDO_ACTION;
    if (text.startsWith("tap:") || text.startsWith("dtap:")) {
      const [prefix, , rest] = partition(text, ":");
      const [source, colon, card] = partition(rest, ":");
      if (colon && !card) throw new NotationError(`an empty card after ':': ${describe(text)}`);
      return Action.tap(source, card || null, prefix === "dtap");
    }
    const [source, arrow, rest] = partition(text, ">");
    if (!arrow) throw new NotationError(`not an action: ${describe(text)}`);
    const [target, colon, card] = partition(rest, ":");
    if (colon && !card) throw new NotationError(`an empty card after ':': ${describe(text)}`);
    if (source.startsWith("f")) {
      if (card) throw new NotationError(`a take-back names no card: ${describe(text)}`);
      return Action.takeBack(source, target);
    }
    return Action.move(source, target, card || null);
  }

  /** The one-line notation, e.g. `t3>t5:9C`, `dtap:waste`, `draw`. */
  toString() {
    const kind = this.kind;
    if (BARE.has(kind)) return kind;
    const suffix = this.card === null ? "" : `:${this.card}`;
    if (kind === TAP) return `${this.double ? "dtap" : "tap"}:${this.source}${suffix}`;
    return `${this.source}>${this.target}${suffix}`;
  }

  /**
   * The action as the API writes it: `{action, from, to, card, double}` (only the fields it has).
   * @returns {ActionJSON}
   */
  toJSON() {
    /** @type {ActionJSON} */
    const out = { action: this.kind };
    if (this.source !== null) out.from = this.source;
    if (this.target !== null) out.to = this.target;
    if (this.card !== null) out.card = String(this.card);
    if (this.kind === TAP) out.double = this.double;
    return out;
  }

  /**
   * True when `other` is the same action.
   * @param {unknown} other
   */
  equals(other) {
    return other instanceof Action && other.kind === this.kind && other.source === this.source
      && other.target === this.target && other.card === this.card && other.double === this.double;
  }
}

/**
 * @typedef {object} ActionJSON
 * @property {ActionKind} action
 * @property {PileName} [from]
 * @property {PileName} [to]
 * @property {string} [card]
 * @property {boolean} [double]
 */

/** @type {Record<string, number>} */
const KIND_NUMBER = { move: K_MOVE, draw: K_DRAW, recycle: K_RECYCLE, undo: K_UNDO, "take-back": K_TAKE_BACK, tap: K_TAP };

/**
 * Python's str.partition.
 * @param {string} text
 * @param {string} separator
 * @returns {[string, string, string]}
 */
function partition(text, separator) {
  const at = text.indexOf(separator);
  return at < 0 ? [text, "", ""] : [text.slice(0, at), separator, text.slice(at + separator.length)];
}

const DRAW_ACTION = new Action(DRAW);
const RECYCLE_ACTION = new Action(RECYCLE);
const UNDO_ACTION = new Action(UNDO);

/**
 * Parse one action of the notation (alias of {@link Action.parse}).
 * @param {string} text
 */
export function parseAction(text) {
  return Action.parse(text);
}

/**
 * Format one action in the notation (alias of `String(action)`).
 * @param {Action} action
 */
export function formatAction(action) {
  return action.toString();
}

