/**
 * A value as the Python engine's `repr` would quote it in a message.
 * @param {unknown} value
 */
export function describe(value: unknown): string;
/**
 * Cards and piles: the value types every other module speaks in.
 *
 * A card is one of 52 shared {@link Card} objects, whose `index` (0–51, in the order
 * of the unshuffled deck `AS 2S … KS AH … KH AD … KD AC … KC`) is what the game
 * keeps on its piles, so that the hot path works on small integers only.
 *
 * @module
 */
export const RANKS: "A23456789TJQK";
export const SUITS: "SHDC";
/** Text that is not a card, a pile or an action of the notation. */
export class NotationError extends Error {
    /** @param {string} message */
    constructor(message: string);
}
/** One of the 52 cards: use {@link Card.parse}, {@link Card.of} or {@link CARDS}, never `new`. */
export class Card {
    /**
     * Parse `"9C"`, `"th"` or `"10H"` (any case, ASCII only); throw NotationError otherwise.
     * @param {string} text
     * @returns {Card}
     */
    static parse(text: string): Card;
    /**
     * The card of `rank` (1–13) and `suit` letter.
     * @param {number} rank
     * @param {string} suit
     * @returns {Card}
     */
    static of(rank: number, suit: string): Card;
    /**
     * @param {symbol} token
     * @param {number} index
     */
    constructor(token: symbol, index: number);
    /** Position in the unshuffled deck, 0–51. */
    index: number;
    /** Rank from 1 (ace) to 13 (king). */
    rank: number;
    /** Suit letter: `S`, `H`, `D` or `C`. */
    suit: string;
    /** Index of the suit in `SHDC`, which is also its foundation's index. */
    suitIndex: number;
    /** True for hearts and diamonds. */
    isRed: boolean;
    /** The canonical name, e.g. `TH`. */
    toString(): string;
    /** @returns {string} */
    toJSON(): string;
    /** The index, so that cards compare and sort like the Python engine's integers. */
    valueOf(): number;
}
/** @type {readonly string[]} */
export const NAMES: readonly string[];
/** The 52 cards, indexed by {@link Card.index}. */
export const CARDS: readonly Card[];
/**
 * The piles as the API and the notation write them, and what each one is.
 * `foundation` is a target only: the moved card's own foundation.
 */
export const Pile: Readonly<{
    T1: "t1";
    T2: "t2";
    T3: "t3";
    T4: "t4";
    T5: "t5";
    T6: "t6";
    T7: "t7";
    STOCK: "stock";
    WASTE: "waste";
    FS: "fS";
    FH: "fH";
    FD: "fD";
    FC: "fC";
    FOUNDATION: "foundation";
    /**
     * Parse an exact pile name; throw NotationError otherwise.
     * @param {string} text
     * @returns {PileName}
     */
    parse(text: string): PileName;
    /**
     * True for `t1`…`t7`.
     * @param {PileName} pile
     */
    isColumn(pile: PileName): boolean;
    /**
     * True for `fS`…`fC` and for the generic `foundation`.
     * @param {PileName} pile
     */
    isFoundation(pile: PileName): boolean;
}>;
/**
 * A pile name: `t1`…`t7`, `stock`, `waste`, `fS` `fH` `fD` `fC`, or the target `foundation`.
 * @typedef {"t1"|"t2"|"t3"|"t4"|"t5"|"t6"|"t7"|"stock"|"waste"|"fS"|"fH"|"fD"|"fC"|"foundation"} PileName
 */
/** @type {readonly PileName[]} */
export const COLUMNS: readonly PileName[];
/** @type {readonly PileName[]} */
export const FOUNDATIONS: readonly PileName[];
/**
 * Every pile by its internal number: columns 0–6, the waste 7, the foundations 8–11,
 * the stock 12 and the generic `foundation` 13.
 * @type {readonly PileName[]}
 */
export const PILES: readonly PileName[];
/** @type {Map<string, number>} */
export const PILE_INDEX: Map<string, number>;
export const WASTE_PILE: 7;
export const FIRST_FOUNDATION: 8;
export const STOCK_PILE: 12;
export const ANY_FOUNDATION: 13;
/**
 * `STEP[lower * 52 + upper]` is 1 when `upper` may lie on `lower` in a column:
 * other colour, one rank lower.
 */
export const STEP: Uint8Array<ArrayBuffer>;
/**
 * A pile name: `t1`…`t7`, `stock`, `waste`, `fS` `fH` `fD` `fC`, or the target `foundation`.
 */
export type PileName = "t1" | "t2" | "t3" | "t4" | "t5" | "t6" | "t7" | "stock" | "waste" | "fS" | "fH" | "fD" | "fC" | "foundation";
