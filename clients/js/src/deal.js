/**
 * Deals and game codes: SplitMix64, Fisher–Yates and the `TF1-D1N-AAAAAAB` format.
 *
 * The algorithm is public (RULES.md) so that any client can reproduce a deal offline.
 *
 * @module
 */

import { CARDS } from "./cards.js";
import { Rejection } from "./rejections.js";

const MASK64 = (1n << 64n) - 1n;
/** How many deal numbers there are: 26^7. */
export const DEAL_COUNT = 26 ** 7;
/** @type {readonly number[]} */
export const DRAW_MODES = Object.freeze([1, 3]);
const CODE_RE = /^TF1-D([13])([A-Z])-([A-Z]{7})$/;
const ASCII = /^[\x00-\x7f]*$/;

/**
 * The card indexes of deal number `deal` in dealing order (SplitMix64 + Fisher–Yates).
 * @param {number} deal
 * @returns {number[]}
 */
export function shuffledIndexes(deal) {
  const deck = Array.from({ length: 52 }, (_, i) => i);
  let state = BigInt(deal) & MASK64;
  for (let i = 51; i > 0; i--) {
    state = (state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    z ^= z >> 31n;
    const j = Number(z % BigInt(i + 1));
    const card = deck[i];
    deck[i] = deck[j];
    deck[j] = card;
  }
  return deck;
}

/**
 * The 52 cards of deal number `deal` in dealing order.
 * @param {number} deal
 */
export function shuffledDeck(deal) {
  checkDeal(deal);
  return shuffledIndexes(deal).map((i) => CARDS[i]);
}

/**
 * Tableau columns (bottom first) and stock (first card drawn first) of a deal, as card indexes.
 * @param {number} deal
 * @returns {[number[][], number[]]}
 */
export function dealIndexes(deal) {
  const deck = shuffledIndexes(deal);
  /** @type {number[][]} */
  const tableau = [[], [], [], [], [], [], []];
  let position = 0;
  for (let row = 0; row < 7; row++) {
    for (let col = row; col < 7; col++) tableau[col].push(deck[position++]);
  }
  return [tableau, deck.slice(28)];
}

/**
 * Tableau columns (bottom first) and stock (first card drawn first) of a deal.
 * @param {number} deal
 * @returns {[import("./cards.js").Card[][], import("./cards.js").Card[]]}
 */
export function dealCards(deal) {
  checkDeal(deal);
  const [tableau, stock] = dealIndexes(deal);
  return [tableau.map((column) => column.map((i) => CARDS[i])), stock.map((i) => CARDS[i])];
}

/**
 * A deal number drawn uniformly from a cryptographic source (Web Crypto).
 * @returns {number}
 */
export function randomDeal() {
  const crypto = globalThis.crypto;
  if (!crypto || typeof crypto.getRandomValues !== "function") {
    throw new Error("randomDeal needs Web Crypto (globalThis.crypto), which this runtime lacks");
  }
  const words = new Uint32Array(2);
  // 2^33 > DEAL_COUNT: draw 33 bits until one falls below it (no modulo bias).
  for (;;) {
    crypto.getRandomValues(words);
    const candidate = (words[0] & 1) * 2 ** 32 + words[1];
    if (candidate < DEAL_COUNT) return candidate;
  }
}

/**
 * The 7-letter base-26 form of a deal number.
 * @param {number} deal
 */
export function formatDeal(deal) {
  let letters = "";
  for (let i = 0; i < 7; i++) {
    letters = String.fromCharCode(65 + (deal % 26)) + letters;
    deal = Math.floor(deal / 26);
  }
  return letters;
}

/** @param {number} deal */
function checkDeal(deal) {
  if (!Number.isInteger(deal) || deal < 0 || deal >= DEAL_COUNT) {
    throw new RangeError(`not a deal number: ${deal}`);
  }
}

/** A parsed game code: draw mode, deal number and scoring letter. */
export class GameCode {
  /**
   * @param {number} draw 1 or 3
   * @param {number} deal 0 … 26^7 − 1
   * @param {string} [scoring] `N`, the only scoring today
   */
  constructor(draw, deal, scoring = "N") {
    if (!DRAW_MODES.includes(draw) || !Number.isInteger(deal) || deal < 0 || deal >= DEAL_COUNT || scoring !== "N") {
      throw new RangeError(`not a valid game code: draw=${draw} deal=${deal}`);
    }
    /** @type {number} */
    this.draw = draw;
    /** @type {number} */
    this.deal = deal;
    /** @type {string} */
    this.scoring = scoring;
    Object.freeze(this);
  }

  /** The canonical form, e.g. `TF1-D1N-AAAAAAB`. */
  toString() {
    return `TF1-D${this.draw}${this.scoring}-${formatDeal(this.deal)}`;
  }

  /** @returns {string} */
  toJSON() {
    return this.toString();
  }

  /** @param {GameCode} other */
  equals(other) {
    return other instanceof GameCode && other.draw === this.draw && other.deal === this.deal
      && other.scoring === this.scoring;
  }

  /**
   * Parse a code in any letter case; throw `Rejection("INVALID_GAME_CODE")` otherwise.
   * @param {string} text
   * @returns {GameCode}
   */
  static parse(text) {
    // ASCII only: toUpperCase() maps some other letters to ASCII ones ("ı" → "I", "ﬀ" → "FF").
    const match = typeof text === "string" && ASCII.test(text) ? CODE_RE.exec(text.toUpperCase()) : null;
    if (match === null || match[2] !== "N") {
      // The first 64 code points, as the server's str(text)[:64].
      throw new Rejection("INVALID_GAME_CODE", { code: Array.from(String(text)).slice(0, 64).join("") });
    }
    let deal = 0;
    for (const letter of match[3]) deal = deal * 26 + letter.charCodeAt(0) - 65;
    return new GameCode(Number(match[1]), deal, "N");
  }

  /**
   * A code for a uniformly random deal.
   * @param {number} [draw]
   */
  static random(draw = 1) {
    return new GameCode(draw, randomDeal());
  }
}
