/**
 * The card indexes of deal number `deal` in dealing order (SplitMix64 + Fisher–Yates).
 * @param {number} deal
 * @returns {number[]}
 */
export function shuffledIndexes(deal: number): number[];
/**
 * The 52 cards of deal number `deal` in dealing order.
 * @param {number} deal
 */
export function shuffledDeck(deal: number): import("./cards.js").Card[];
/**
 * Tableau columns (bottom first) and stock (first card drawn first) of a deal, as card indexes.
 * @param {number} deal
 * @returns {[number[][], number[]]}
 */
export function dealIndexes(deal: number): [number[][], number[]];
/**
 * Tableau columns (bottom first) and stock (first card drawn first) of a deal.
 * @param {number} deal
 * @returns {[import("./cards.js").Card[][], import("./cards.js").Card[]]}
 */
export function dealCards(deal: number): [import("./cards.js").Card[][], import("./cards.js").Card[]];
/**
 * A deal number drawn uniformly from a cryptographic source (Web Crypto).
 * @returns {number}
 */
export function randomDeal(): number;
/**
 * The 7-letter base-26 form of a deal number.
 * @param {number} deal
 */
export function formatDeal(deal: number): string;
/** How many deal numbers there are: 26^7. */
export const DEAL_COUNT: number;
/** @type {readonly number[]} */
export const DRAW_MODES: readonly number[];
/** A parsed game code: draw mode, deal number and scoring letter. */
export class GameCode {
    /**
     * Parse a code in any letter case; throw `Rejection("INVALID_GAME_CODE")` otherwise.
     * @param {string} text
     * @returns {GameCode}
     */
    static parse(text: string): GameCode;
    /**
     * A code for a uniformly random deal.
     * @param {number} [draw]
     */
    static random(draw?: number): GameCode;
    /**
     * @param {number} draw 1 or 3
     * @param {number} deal 0 … 26^7 − 1
     * @param {string} [scoring] `N`, the only scoring today
     */
    constructor(draw: number, deal: number, scoring?: string);
    /** @type {number} */
    draw: number;
    /** @type {number} */
    deal: number;
    /** @type {string} */
    scoring: string;
    /** The canonical form, e.g. `TF1-D1N-AAAAAAB`. */
    toString(): string;
    /** @returns {string} */
    toJSON(): string;
    /** @param {GameCode} other */
    equals(other: GameCode): boolean;
}
