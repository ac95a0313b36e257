/**
 * The rejection codes of the rules and the one exception that carries them.
 *
 * When an action breaks several rules the first code of {@link PRECEDENCE} wins;
 * the game checks the rules in that order, so the first failing check is the answer.
 *
 * @module
 */

/** Rule codes in the order of the rejection table: the first broken rule wins. */
export const PRECEDENCE = Object.freeze([
  "GAME_FINISHED",
  "SOURCE_EMPTY",
  "CARD_NOT_IN_PILE",
  "WASTE_TOP_ONLY",
  "SAME_PILE",
  "INVALID_TARGET",
  "GROUP_NOT_ORDERED",
  "FOUNDATION_ONE_CARD",
  "FOUNDATION_WRONG_SUIT",
  "FOUNDATION_SEQUENCE",
  "EMPTY_COLUMN_KING_ONLY",
  "TABLEAU_COLOUR",
  "TABLEAU_RANK",
]);

/** Codes outside the precedence table, each raised by one action only. */
export const ACTION_CODES = Object.freeze([
  "STOCK_EMPTY",
  "STOCK_NOT_EMPTY",
  "NOTHING_TO_RECYCLE",
  "NOTHING_TO_UNDO",
  "UNDO_LIMIT_REACHED",
  "NO_DESTINATION",
]);

/**
 * Every code the engine throws, with the names of the params it always carries.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const RULE_PARAMS = Object.freeze({
  GAME_FINISHED: Object.freeze([]),
  SOURCE_EMPTY: Object.freeze(["pile"]),
  CARD_NOT_IN_PILE: Object.freeze(["card", "pile"]),
  WASTE_TOP_ONLY: Object.freeze(["card", "top"]),
  SAME_PILE: Object.freeze(["pile"]),
  INVALID_TARGET: Object.freeze(["pile"]),
  GROUP_NOT_ORDERED: Object.freeze(["card", "pile", "above", "below"]),
  FOUNDATION_ONE_CARD: Object.freeze(["card", "count"]),
  FOUNDATION_WRONG_SUIT: Object.freeze(["card", "foundation"]),
  FOUNDATION_SEQUENCE: Object.freeze(["card", "foundation", "needs"]),
  EMPTY_COLUMN_KING_ONLY: Object.freeze(["card", "column"]),
  TABLEAU_COLOUR: Object.freeze(["card", "onto"]),
  TABLEAU_RANK: Object.freeze(["card", "onto"]),
  STOCK_EMPTY: Object.freeze([]),
  STOCK_NOT_EMPTY: Object.freeze(["stock"]),
  NOTHING_TO_RECYCLE: Object.freeze([]),
  NOTHING_TO_UNDO: Object.freeze([]),
  UNDO_LIMIT_REACHED: Object.freeze(["limit"]),
  NO_DESTINATION: Object.freeze(["card", "pile"]),
  INVALID_GAME_CODE: Object.freeze(["code"]),
});

/**
 * A rule refused an action: `code` is stable, `params` name the cards and piles,
 * exactly as the server's problem+json answer has them.
 */
export class Rejection extends Error {
  /**
   * @param {string} code
   * @param {Record<string, string | number>} [params]
   */
  constructor(code, params = {}) {
    super(code);
    this.name = "Rejection";
    /** The stable code, e.g. `TABLEAU_COLOUR`. */
    this.code = code;
    /** The cards and piles involved, e.g. `{card: "7H", onto: "8D"}`. */
    this.params = params;
  }

  /** `{code, params}`, as a problem answer carries them. */
  toJSON() {
    return { code: this.code, params: this.params };
  }
}
