/**
 * Cards and piles: the value types every other module speaks in.
 *
 * A card is one of 52 shared {@link Card} objects, whose `index` (0–51, in the order
 * of the unshuffled deck `AS 2S … KS AH … KH AD … KD AC … KC`) is what the game
 * keeps on its piles, so that the hot path works on small integers only.
 *
 * @module
 */

export const RANKS = "A23456789TJQK";
export const SUITS = "SHDC";

/** Text that is not a card, a pile or an action of the notation. */
export class NotationError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "NotationError";
  }
}

const CREATE = Symbol("Card");
const ASCII = /^[\x00-\x7f]*$/;

/** One of the 52 cards: use {@link Card.parse}, {@link Card.of} or {@link CARDS}, never `new`. */
export class Card {
  /**
   * @param {symbol} token
   * @param {number} index
   */
  constructor(token, index) {
    if (token !== CREATE) throw new TypeError("use Card.parse, Card.of or CARDS[index]");
    /** Position in the unshuffled deck, 0–51. */
    this.index = index;
    /** Rank from 1 (ace) to 13 (king). */
    this.rank = (index % 13) + 1;
    /** Suit letter: `S`, `H`, `D` or `C`. */
    this.suit = SUITS[Math.floor(index / 13)];
    /** Index of the suit in `SHDC`, which is also its foundation's index. */
    this.suitIndex = Math.floor(index / 13);
    /** True for hearts and diamonds. */
    this.isRed = index >= 13 && index < 39;
    Object.freeze(this);
  }

  /** The canonical name, e.g. `TH`. */
  toString() {
    return NAMES[this.index];
  }

  /** @returns {string} */
  toJSON() {
    return NAMES[this.index];
  }

  /** The index, so that cards compare and sort like the Python engine's integers. */
  valueOf() {
    return this.index;
  }

  /**
   * Parse `"9C"`, `"th"` or `"10H"` (any case, ASCII only); throw NotationError otherwise.
   * @param {string} text
   * @returns {Card}
   */
  static parse(text) {
    if (typeof text !== "string") throw new NotationError(`not a card: ${describe(text)}`);
    let index = BY_NAME.get(text);
    if (index === undefined) {
      // ASCII only: toUpperCase() maps some other letters to ASCII ones ("ſ" → "S").
      if (ASCII.test(text)) index = BY_NAME.get(text.toUpperCase());
      if (index === undefined) throw new NotationError(`not a card: ${describe(text)}`);
    }
    return CARDS[index];
  }

  /**
   * The card of `rank` (1–13) and `suit` letter.
   * @param {number} rank
   * @param {string} suit
   * @returns {Card}
   */
  static of(rank, suit) {
    const suitIndex = SUITS.indexOf(suit);
    if (suitIndex < 0 || suit.length !== 1 || !Number.isInteger(rank) || rank < 1 || rank > 13) {
      throw new RangeError(`no card of rank ${rank} and suit ${suit}`);
    }
    return CARDS[suitIndex * 13 + rank - 1];
  }
}

/** @type {readonly string[]} */
export const NAMES = Object.freeze(Array.from({ length: 52 }, (_, i) => RANKS[i % 13] + SUITS[Math.floor(i / 13)]));

/** The 52 cards, indexed by {@link Card.index}. */
export const CARDS = /** @type {readonly Card[]} */ (
  Object.freeze(Array.from({ length: 52 }, (_, i) => new Card(CREATE, i)))
);

/** @type {Map<string, number>} */
const BY_NAME = new Map(NAMES.map((name, i) => [name, i]));
for (const suit of SUITS) BY_NAME.set(`10${suit}`, /** @type {number} */ (BY_NAME.get(`T${suit}`)));

/**
 * A value as the Python engine's `repr` would quote it in a message.
 * @param {unknown} value
 */
export function describe(value) {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/**
 * The piles as the API and the notation write them, and what each one is.
 * `foundation` is a target only: the moved card's own foundation.
 */
export const Pile = Object.freeze({
  T1: "t1",
  T2: "t2",
  T3: "t3",
  T4: "t4",
  T5: "t5",
  T6: "t6",
  T7: "t7",
  STOCK: "stock",
  WASTE: "waste",
  FS: "fS",
  FH: "fH",
  FD: "fD",
  FC: "fC",
  FOUNDATION: "foundation",

  /**
   * Parse an exact pile name; throw NotationError otherwise.
   * @param {string} text
   * @returns {PileName}
   */
  parse(text) {
    if (typeof text !== "string" || !PILE_INDEX.has(text)) throw new NotationError(`not a pile: ${describe(text)}`);
    return /** @type {PileName} */ (text);
  },

  /**
   * True for `t1`…`t7`.
   * @param {PileName} pile
   */
  isColumn(pile) {
    return pile[0] === "t";
  },

  /**
   * True for `fS`…`fC` and for the generic `foundation`.
   * @param {PileName} pile
   */
  isFoundation(pile) {
    return pile[0] === "f";
  },
});

/**
 * A pile name: `t1`…`t7`, `stock`, `waste`, `fS` `fH` `fD` `fC`, or the target `foundation`.
 * @typedef {"t1"|"t2"|"t3"|"t4"|"t5"|"t6"|"t7"|"stock"|"waste"|"fS"|"fH"|"fD"|"fC"|"foundation"} PileName
 */

/** @type {readonly PileName[]} */
export const COLUMNS = Object.freeze(["t1", "t2", "t3", "t4", "t5", "t6", "t7"]);
/** @type {readonly PileName[]} */
export const FOUNDATIONS = Object.freeze(["fS", "fH", "fD", "fC"]);

/**
 * Every pile by its internal number: columns 0–6, the waste 7, the foundations 8–11,
 * the stock 12 and the generic `foundation` 13.
 * @type {readonly PileName[]}
 */
export const PILES = Object.freeze([...COLUMNS, "waste", ...FOUNDATIONS, "stock", "foundation"]);
/** @type {Map<string, number>} */
export const PILE_INDEX = new Map(PILES.map((name, i) => [name, i]));
export const WASTE_PILE = 7;
export const FIRST_FOUNDATION = 8;
export const STOCK_PILE = 12;
export const ANY_FOUNDATION = 13;

/**
 * `STEP[lower * 52 + upper]` is 1 when `upper` may lie on `lower` in a column:
 * other colour, one rank lower.
 */
export const STEP = new Uint8Array(52 * 52);
for (let lower = 0; lower < 52; lower++) {
  for (let upper = 0; upper < 52; upper++) {
    const otherColour = (lower >= 13 && lower < 39) !== (upper >= 13 && upper < 39);
    STEP[lower * 52 + upper] = otherColour && lower % 13 === (upper % 13) + 1 ? 1 : 0;
  }
}
