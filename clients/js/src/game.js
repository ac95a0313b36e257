/**
 * The game state, every action of the rules, scoring and undo: the same engine as the
 * server's `service/engine`, action for action, rejection for rejection.
 *
 * Checking and applying are separate: {@link Game#check} throws the {@link Rejection}
 * an action would get and changes nothing; {@link Game#apply} checks, then applies and
 * returns an {@link Outcome}. Each applied action pushes one small integer record on
 * the undo stack, so an action never copies the game and undo never replays.
 *
 * @module
 */

import {
  ANY_FOUNDATION, CARDS, COLUMNS, FIRST_FOUNDATION, FOUNDATIONS, NAMES, PILES, RANKS, STEP, STOCK_PILE, SUITS,
  WASTE_PILE, Card,
} from "./cards.js";
import { GameCode, dealIndexes } from "./deal.js";
import { Action, K_DRAW, K_MOVE, K_RECYCLE, K_TAKE_BACK, K_TAP, K_UNDO, numbersOf } from "./notation.js";
import { Rejection } from "./rejections.js";

/** How many of the most recent actions can be undone. */
export const UNDO_LIMIT = 100;
/** The version of {@link Game#toState}'s format (`v`), the same as the server's. */
export const STATE_VERSION = 1;
/**
 * The version of the rules this engine plays, the same number as the server's
 * `GET /v1/rules` `rules_version`: do not judge locally with an engine whose
 * version is older than the server's.
 */
export const RULES_VERSION = 1;

export const POINTS_FOUNDATION = 10;
export const POINTS_WASTE_TO_COLUMN = 5;
export const POINTS_RECYCLE = -100;

// The operations of the undo records (op, a, b, n, applied, arrived, fanBefore), numbered as
// the server's so that a state's undo_stack reads the same in both engines: a and b are column
// indexes (0–6) or suit indexes (0–3) depending on the op, n the number of cards, applied the
// points applied, arrived the card whose first foundation arrival the op recorded (-1: none).
const OP_COLUMN_TO_COLUMN = 0;
const OP_COLUMN_TO_FOUNDATION = 1;
const OP_WASTE_TO_COLUMN = 2;
const OP_WASTE_TO_FOUNDATION = 3;
const OP_FOUNDATION_TO_COLUMN = 4;
const OP_DRAW = 5;
const OP_RECYCLE = 6;
const RECORD = 7; // integers per undo record
const KING = 12; // card % 13 of a king

/** @typedef {import("./cards.js").PileName} PileName */

/** Source and target piles of each operation, indexed `[op][a]` and `[op][b]`. */
/** @type {readonly (readonly PileName[])[]} */
const SOURCES = [COLUMNS, COLUMNS, ["waste"], ["waste"], FOUNDATIONS, ["stock"], ["waste"]];
/** @type {readonly (readonly PileName[])[]} */
const TARGETS = [COLUMNS, FOUNDATIONS, COLUMNS, FOUNDATIONS, COLUMNS, ["waste"], ["stock"]];

/**
 * What an accepted action did: the points applied, the cards it moved, where from and to.
 * For a tap, `source`/`target` say where the card went; for an undo, `undone` is the
 * action it reverted, written as the plain move it was.
 */
export class Outcome {
  /**
   * @param {Action} action
   * @param {number} points
   * @param {Card[]} cards
   * @param {PileName | null} [source]
   * @param {PileName | null} [target]
   * @param {Action | null} [undone]
   */
  constructor(action, points, cards, source = null, target = null, undone = null) {
    this.action = action;
    this.points = points;
    this.cards = cards;
    this.source = source;
    this.target = target;
    this.undone = undone;
  }

  /**
   * The action's fields as sent (`from`, `to`, `card`, `double`), then what it did:
   * `points`, `cards`, `moved_from`, `moved_to`, `undone` (the API's `last`).
   * @returns {OutcomeJSON}
   */
  toJSON() {
    const out = /** @type {OutcomeJSON} */ (this.action.toJSON());
    out.points = this.points;
    out.cards = this.cards.map(String);
    if (this.source !== null) out.moved_from = this.source;
    if (this.target !== null) out.moved_to = this.target;
    if (this.undone !== null) out.undone = String(this.undone);
    return out;
  }
}

/**
 * @typedef {import("./notation.js").ActionJSON & {
 *   points: number, cards: string[], moved_from?: PileName, moved_to?: PileName, undone?: string
 * }} OutcomeJSON
 */

/**
 * The rule-derived fields of the API's game answer (`GET /v1/games/{id}` without its
 * `id`, times, owner and counters of hints).
 * @typedef {object} GameJSON
 * @property {string} code
 * @property {number} draw
 * @property {"playing"|"won"} status
 * @property {number} score
 * @property {number} moves
 * @property {number} undos
 * @property {number} version
 * @property {string[][]} tableau 7 columns, bottom card first
 * @property {{S: number, H: number, D: number, C: number}} foundations cards on each
 * @property {number} stock the number of cards in the stock
 * @property {string[]} waste bottom first, top last
 * @property {number} waste_fan
 * @property {boolean} can_undo
 */

/**
 * The whole state, field for field as the server's `Game.to_state()` writes it.
 * @typedef {object} GameState
 * @property {number} v
 * @property {string} code
 * @property {string[][]} tableau
 * @property {string[]} stock the next card to draw first
 * @property {string[]} waste
 * @property {number} waste_fan
 * @property {number[]} foundations
 * @property {number} score
 * @property {number} moves
 * @property {number} undos
 * @property {number} arrived bit `i` set when card `i` has reached a foundation once
 * @property {number[][]} undo_stack oldest first, each `[op, a, b, n, applied, arrived, fanBefore]`
 * @property {boolean} undo_dropped
 */

/** The fields of {@link GameJSON} that the rules decide, compared by {@link Game.fromJSON}. */
export const RULE_FIELDS = Object.freeze([
  "code", "draw", "status", "score", "moves", "undos", "version", "tableau", "foundations", "stock", "waste",
  "waste_fan", "can_undo",
]);

/** A game of Solitaire Réfléchi: the piles, the counters and the undo stack. */
export class Game {
  /** @type {number[][]} columns of card indexes, bottom first */
  #tableau;
  /** @type {number[]} the next card to draw is the last element, so that a draw is a pop() */
  #stock;
  /** @type {number[]} bottom first */
  #waste = [];
  #fan = 0;
  /** cards on each foundation */
  #found = [0, 0, 0, 0];
  #score = 0;
  #moves = 0;
  #undos = 0;
  /** 1 for each card that has reached a foundation once */
  #arrived = new Uint8Array(52);
  /** a ring of UNDO_LIMIT records of RECORD integers */
  #stack = new Int32Array(UNDO_LIMIT * RECORD);
  /** the ring's oldest record */
  #head = 0;
  /** records held */
  #size = 0;
  /** true once a record was dropped to keep UNDO_LIMIT */
  #dropped = false;
  // The operation a plan chose, read by #execute (fields, not an array: no allocation).
  #op = 0;
  #a = 0;
  #b = 0;
  #n = 0;

  /** @param {GameCode | string} code */
  constructor(code) {
    /** @type {GameCode} */
    this.code = code instanceof GameCode ? code : GameCode.parse(code);
    const [tableau, stock] = dealIndexes(this.code.deal);
    this.#tableau = tableau;
    this.#stock = stock.reverse();
  }

  /**
   * A new game dealt from a game code (text or parsed).
   * @param {GameCode | string} code
   */
  static fromCode(code) {
    return new Game(code);
  }

  // -- derived state ----------------------------------------------------------------

  /** 1 or 3. */
  get drawCount() {
    return this.code.draw;
  }

  get score() {
    return this.#score;
  }

  /** Accepted actions other than undo. */
  get moves() {
    return this.#moves;
  }

  /** Accepted undos. */
  get undos() {
    return this.#undos;
  }

  /** Accepted actions, undos included. */
  get version() {
    return this.#moves + this.#undos;
  }

  get won() {
    const found = this.#found;
    return found[0] === 13 && found[1] === 13 && found[2] === 13 && found[3] === 13;
  }

  /** @returns {"playing"|"won"} */
  get status() {
    return this.won ? "won" : "playing";
  }

  get canUndo() {
    return this.#size > 0 && !this.won;
  }

  /** The number of cards of the last draw still on the waste (display only). */
  get wasteFan() {
    return this.#fan;
  }

  /** The columns, bottom card first (a copy). */
  get tableau() {
    return this.#tableau.map((column) => column.map((i) => CARDS[i]));
  }

  /** The stock, the next card to draw first (a copy; the API never shows it). */
  get stock() {
    const out = [];
    for (let i = this.#stock.length - 1; i >= 0; i--) out.push(CARDS[this.#stock[i]]);
    return out;
  }

  /** The waste, bottom first, top last (a copy). */
  get waste() {
    return this.#waste.map((i) => CARDS[i]);
  }

  /** Cards on each foundation, in the order `fS fH fD fC` (a copy). */
  get foundations() {
    return this.#found.slice();
  }

  /**
   * The top card of a foundation (suit index 0–3), or null.
   * @param {number} suit
   */
  foundationTop(suit) {
    const count = this.#found[suit];
    return count ? CARDS[suit * 13 + count - 1] : null;
  }

  // -- the public interface --------------------------------------------------------

  /**
   * Throw the Rejection `action` would get now; change nothing.
   * @param {Action | string} action an action or its notation
   */
  check(action) {
    const checked = typeof action === "string" ? Action.parse(action) : action;
    const numbers = numbersOf(checked);
    const kind = numbers[0];
    if (kind === K_UNDO) {
      if (this.#size === 0 || this.won) this.#refuseUndo();
      return;
    }
    if (this.won) throw new Rejection("GAME_FINISHED");
    if (kind === K_MOVE) this.#planMove(numbers[1], numbers[2], numbers[3]);
    else if (kind === K_DRAW) {
      if (this.#stock.length === 0) throw new Rejection("STOCK_EMPTY");
    } else if (kind === K_RECYCLE) this.#planRecycle();
    else if (kind === K_TAKE_BACK) this.#planTakeBack(numbers[1], numbers[2]);
    else this.#planTap(numbers[1], numbers[3], checked.double);
  }

  /**
   * True when `action` would be accepted now.
   * @param {Action | string} action
   */
  isLegal(action) {
    try {
      this.check(action);
    } catch (error) {
      if (error instanceof Rejection) return false;
      throw error;
    }
    return true;
  }

  /**
   * Check `action`, apply it and return its outcome; a rejection changes nothing.
   * @param {Action | string} action an action or its notation
   * @returns {Outcome}
   */
  apply(action) {
    const applied = typeof action === "string" ? Action.parse(action) : action;
    const numbers = numbersOf(applied);
    const kind = numbers[0];
    if (kind === K_UNDO) return this.#undo(applied);
    if (this.won) throw new Rejection("GAME_FINISHED");
    if (kind === K_MOVE) this.#planMove(numbers[1], numbers[2], numbers[3]);
    else if (kind === K_DRAW) return this.#draw(applied);
    else if (kind === K_TAKE_BACK) this.#planTakeBack(numbers[1], numbers[2]);
    else if (kind === K_TAP) this.#planTap(numbers[1], numbers[3], applied.double);
    else if (kind === K_RECYCLE) this.#planRecycle();
    else throw new TypeError(`not an action: ${String(action)}`);
    return this.#execute(applied);
  }

  /**
   * Every action legal now, in the server's order: moves by source column and card,
   * the waste's, take-backs, draw or recycle, then undo.
   * @returns {Action[]}
   */
  legalActions() {
    if (this.won) return [];
    /** @type {Action[]} */
    const actions = [];
    const tableau = this.#tableau;
    const found = this.#found;
    for (let src = 0; src < 7; src++) {
      const column = tableau[src];
      const length = column.length;
      if (length === 0) continue;
      let start = length - 1;
      while (start > 0 && STEP[column[start - 1] * 52 + column[start]]) start--;
      for (let index = start; index < length; index++) {
        const card = column[index];
        for (let dst = 0; dst < 7; dst++) {
          if (dst !== src && accepts(tableau[dst], card)) actions.push(moveAction(src, dst, card));
        }
        if (index === length - 1 && found[(card / 13) | 0] === card % 13) {
          actions.push(moveAction(src, FIRST_FOUNDATION + ((card / 13) | 0), card));
        }
      }
    }
    const waste = this.#waste;
    if (waste.length) {
      const card = waste[waste.length - 1];
      for (let dst = 0; dst < 7; dst++) {
        if (accepts(tableau[dst], card)) actions.push(moveAction(WASTE_PILE, dst, card));
      }
      if (found[(card / 13) | 0] === card % 13) actions.push(moveAction(WASTE_PILE, FIRST_FOUNDATION + ((card / 13) | 0), card));
    }
    for (let suit = 0; suit < 4; suit++) {
      const count = found[suit];
      if (!count) continue;
      const card = suit * 13 + count - 1;
      for (let dst = 0; dst < 7; dst++) {
        if (accepts(tableau[dst], card)) actions.push(takeBackAction(suit, dst));
      }
    }
    if (this.#stock.length) actions.push(Action.draw());
    else if (waste.length) actions.push(Action.recycle());
    if (this.#size) actions.push(Action.undo());
    return actions;
  }

  // -- checking: each plan sets _op/_a/_b/_n or throws in the table's order -----------

  // 
  #planRecycle() {
    if (this.#stock.length) throw new Rejection("STOCK_NOT_EMPTY", { stock: this.#stock.length });
    if (!this.#waste.length) throw new Rejection("NOTHING_TO_RECYCLE");
    this.#plan(OP_RECYCLE, 0, 0, this.#waste.length);
  }

  /**
   * @param {number} op
   * @param {number} a
   * @param {number} b
   * @param {number} n
   */
  #plan(op, a, b, n) {
    this.#op = op;
    this.#a = a;
    this.#b = b;
    this.#n = n;
  }

  /**
   * The index of the named card in its source pile (rules 2–4).
   * @param {number[]} pile
   * @param {number} src
   * @param {number} named a card index, -1 for the top card
   */
  #locate(pile, src, named) {
    if (!pile.length) throw new Rejection("SOURCE_EMPTY", { pile: PILES[src] });
    const top = pile.length - 1;
    if (named < 0 || pile[top] === named) return top;
    const index = pile.indexOf(named);
    if (index < 0) throw new Rejection("CARD_NOT_IN_PILE", { card: NAMES[named], pile: PILES[src] });
    if (src === WASTE_PILE) throw new Rejection("WASTE_TOP_ONLY", { card: NAMES[named], top: NAMES[pile[top]] });
    return index;
  }

  /**
   * Rule 7: every card above `pile[index]` continues the sequence.
   * @param {number[]} pile
   * @param {number} index
   * @param {number} src
   */
  #checkOrdered(pile, index, src) {
    for (let i = index; i < pile.length - 1; i++) {
      if (!STEP[pile[i] * 52 + pile[i + 1]]) {
        throw new Rejection("GROUP_NOT_ORDERED", {
          card: NAMES[pile[index]], pile: PILES[src], below: NAMES[pile[i]], above: NAMES[pile[i + 1]],
        });
      }
    }
  }

  /**
   * @param {number} src
   * @param {number} dst
   * @param {number} named
   */
  #planMove(src, dst, named) {
    const fromWaste = src === WASTE_PILE;
    const pile = fromWaste ? this.#waste : this.#tableau[src];
    const top = pile.length - 1;
    const index = top >= 0 && (named < 0 || pile[top] === named) ? top : this.#locate(pile, src, named);
    if (dst === src) throw new Rejection("SAME_PILE", { pile: PILES[src] });
    if (dst === STOCK_PILE || dst === WASTE_PILE) throw new Rejection("INVALID_TARGET", { pile: PILES[dst] });
    if (index !== top) this.#checkOrdered(pile, index, src);
    const card = pile[index];
    if (dst < 7) {
      const column = this.#tableau[dst];
      if (!column.length || !STEP[column[column.length - 1] * 52 + card]) this.#checkColumnAccepts(card, dst);
      if (fromWaste) this.#plan(OP_WASTE_TO_COLUMN, 0, dst, 1);
      else this.#plan(OP_COLUMN_TO_COLUMN, src, dst, top + 1 - index);
      return;
    }
    // a foundation, named or generic
    if (index !== top) throw new Rejection("FOUNDATION_ONE_CARD", { card: NAMES[card], count: top + 1 - index });
    const suit = (card / 13) | 0;
    if (dst !== ANY_FOUNDATION && dst - FIRST_FOUNDATION !== suit) {
      throw new Rejection("FOUNDATION_WRONG_SUIT", { card: NAMES[card], foundation: PILES[dst] });
    }
    if (this.#found[suit] !== card % 13) this.#refuseFoundation(card);
    if (fromWaste) this.#plan(OP_WASTE_TO_FOUNDATION, 0, suit, 1);
    else this.#plan(OP_COLUMN_TO_FOUNDATION, src, suit, 1);
  }

  /**
   * @param {number} src
   * @param {number} dst
   */
  #planTakeBack(src, dst) {
    const suit = src - FIRST_FOUNDATION;
    const count = this.#found[suit];
    if (!count) throw new Rejection("SOURCE_EMPTY", { pile: PILES[src] });
    if (dst === src) throw new Rejection("SAME_PILE", { pile: PILES[src] });
    if (dst >= 7) throw new Rejection("INVALID_TARGET", { pile: PILES[dst] });
    this.#checkColumnAccepts(suit * 13 + count - 1, dst);
    this.#plan(OP_FOUNDATION_TO_COLUMN, suit, dst, 1);
  }

  /**
   * @param {number} src
   * @param {number} named
   * @param {boolean} double
   */
  #planTap(src, named, double) {
    const fromWaste = src === WASTE_PILE;
    const pile = fromWaste ? this.#waste : this.#tableau[src];
    const index = this.#locate(pile, src, named);
    this.#checkOrdered(pile, index, src);
    const card = pile[index];
    const suit = (card / 13) | 0;
    if (index === pile.length - 1 && this.#found[suit] === card % 13) {
      if (fromWaste) this.#plan(OP_WASTE_TO_FOUNDATION, 0, suit, 1);
      else this.#plan(OP_COLUMN_TO_FOUNDATION, src, suit, 1);
      return;
    }
    if (double) {
      const tableau = this.#tableau;
      let best = -1;
      let bestSize = 0;
      for (let dst = 0; dst < 7; dst++) {
        const column = tableau[dst];
        // strictly more cards wins, so ties go to the leftmost column
        if (dst !== src && column.length > bestSize && STEP[column[column.length - 1] * 52 + card]) {
          best = dst;
          bestSize = column.length;
        }
      }
      if (best < 0 && card % 13 === KING && (fromWaste || index > 0)) {
        best = tableau.findIndex((column) => column.length === 0);
      }
      if (best >= 0) {
        if (fromWaste) this.#plan(OP_WASTE_TO_COLUMN, 0, best, 1);
        else this.#plan(OP_COLUMN_TO_COLUMN, src, best, pile.length - index);
        return;
      }
    }
    throw new Rejection("NO_DESTINATION", { card: NAMES[card], pile: PILES[src] });
  }

  /**
   * @param {number} card
   * @returns {never}
   */
  #refuseFoundation(card) {
    const suit = (card / 13) | 0;
    throw new Rejection("FOUNDATION_SEQUENCE", {
      // The rank, not the card: its name could be one still face down in the stock.
      card: NAMES[card], foundation: FOUNDATIONS[suit], needs: RANKS[this.#found[suit]],
    });
  }

  /**
   * Rules 11–13 for `card` onto column `dst`.
   * @param {number} card
   * @param {number} dst
   */
  #checkColumnAccepts(card, dst) {
    const column = this.#tableau[dst];
    if (!column.length) {
      if (card % 13 !== KING) throw new Rejection("EMPTY_COLUMN_KING_ONLY", { card: NAMES[card], column: PILES[dst] });
      return;
    }
    const last = column[column.length - 1];
    if (STEP[last * 52 + card]) return;
    if ((card >= 13 && card < 39) === (last >= 13 && last < 39)) {
      throw new Rejection("TABLEAU_COLOUR", { card: NAMES[card], onto: NAMES[last] });
    }
    throw new Rejection("TABLEAU_RANK", { card: NAMES[card], onto: NAMES[last] });
  }

  /**
   * @returns {never}
   */
  #refuseUndo() {
    if (this.won) throw new Rejection("GAME_FINISHED");
    if (this.#dropped) throw new Rejection("UNDO_LIMIT_REACHED", { limit: UNDO_LIMIT });
    throw new Rejection("NOTHING_TO_UNDO");
  }

  // -- applying and undoing ----------------------------------------------------------

  /**
   * @param {number} op
   * @param {number} a
   * @param {number} b
   * @param {number} n
   * @param {number} points
   * @param {number} arrived
   * @param {number} fanBefore
   */
  #push(op, a, b, n, points, arrived, fanBefore) {
    let slot;
    if (this.#size === UNDO_LIMIT) {
      this.#dropped = true;
      slot = this.#head; // the oldest record makes room
      this.#head = (this.#head + 1) % UNDO_LIMIT;
    } else {
      slot = (this.#head + this.#size) % UNDO_LIMIT;
      this.#size++;
    }
    const base = slot * RECORD;
    const stack = this.#stack;
    stack[base] = op;
    stack[base + 1] = a;
    stack[base + 2] = b;
    stack[base + 3] = n;
    stack[base + 4] = points;
    stack[base + 5] = arrived;
    stack[base + 6] = fanBefore;
  }

  /**
   * The most frequent action of all, checked and applied in one place.
   * @param {Action} action
   */
  #draw(action) {
    const stock = this.#stock;
    if (!stock.length) throw new Rejection("STOCK_EMPTY");
    const n = Math.min(this.code.draw, stock.length);
    const waste = this.#waste;
    const cards = new Array(n);
    for (let i = 0; i < n; i++) {
      const card = /** @type {number} */ (stock.pop());
      waste.push(card);
      cards[i] = CARDS[card];
    }
    this.#push(OP_DRAW, 0, 0, n, 0, -1, this.#fan);
    this.#fan = n;
    this.#moves++;
    return new Outcome(action, 0, cards, "stock", "waste");
  }

  /**
   * Execute the operation the plan chose.
   * @param {Action} action
   */
  #execute(action) {
    const op = this.#op;
    const a = this.#a;
    const b = this.#b;
    const n = this.#n;
    const fanBefore = this.#fan;
    let points = 0;
    let arrived = -1;
    /** @type {Card[]} */
    let cards;
    if (op === OP_COLUMN_TO_COLUMN) {
      cards = moveTop(this.#tableau[a], this.#tableau[b], n);
    } else if (op === OP_COLUMN_TO_FOUNDATION || op === OP_WASTE_TO_FOUNDATION) {
      let card;
      if (op === OP_WASTE_TO_FOUNDATION) {
        card = /** @type {number} */ (this.#waste.pop());
        if (fanBefore) this.#fan = fanBefore - 1;
      } else {
        card = /** @type {number} */ (this.#tableau[a].pop());
      }
      this.#found[b]++;
      cards = [CARDS[card]];
      if (!this.#arrived[card]) {
        this.#arrived[card] = 1;
        arrived = card;
        points = POINTS_FOUNDATION;
        this.#score += POINTS_FOUNDATION;
      }
    } else if (op === OP_WASTE_TO_COLUMN) {
      const card = /** @type {number} */ (this.#waste.pop());
      this.#tableau[b].push(card);
      cards = [CARDS[card]];
      if (fanBefore) this.#fan = fanBefore - 1;
      points = POINTS_WASTE_TO_COLUMN;
      this.#score += POINTS_WASTE_TO_COLUMN;
    } else if (op === OP_FOUNDATION_TO_COLUMN) {
      const card = a * 13 + this.#found[a] - 1;
      this.#found[a]--;
      this.#tableau[b].push(card);
      cards = [CARDS[card]];
    } else {
      // OP_RECYCLE (a draw never gets here): the first card drawn in the pass comes out first
      const waste = this.#waste;
      cards = waste.map((card) => CARDS[card]);
      this.#stock = waste.reverse();
      this.#waste = [];
      this.#fan = 0;
      // the score never goes below 0 (0 - score: never a negative zero)
      points = this.#score >= -POINTS_RECYCLE ? POINTS_RECYCLE : 0 - this.#score;
      this.#score += points;
    }
    this.#push(op, a, b, n, points, arrived, fanBefore);
    this.#moves++;
    return new Outcome(action, points, cards, SOURCES[op][a], TARGETS[op][b]);
  }

  /**
   * @param {Action} action
   */
  #undo(action) {
    if (this.#size === 0 || this.won) this.#refuseUndo();
    this.#size--;
    const base = ((this.#head + this.#size) % UNDO_LIMIT) * RECORD;
    const stack = this.#stack;
    const op = stack[base];
    const a = stack[base + 1];
    const b = stack[base + 2];
    const n = stack[base + 3];
    const points = stack[base + 4];
    const arrived = stack[base + 5];
    const fanBefore = stack[base + 6];
    const tableau = this.#tableau;
    /** @type {Card[]} */
    let cards;
    /** @type {Action} */
    let undone;
    if (op === OP_DRAW) {
      const waste = this.#waste;
      const stock = this.#stock;
      const start = waste.length - n;
      cards = new Array(n);
      for (let i = 0; i < n; i++) cards[i] = CARDS[waste[start + i]];
      for (let i = waste.length - 1; i >= start; i--) stock.push(waste[i]);
      waste.length = start;
      undone = Action.draw();
    } else if (op === OP_COLUMN_TO_COLUMN) {
      cards = moveTop(tableau[b], tableau[a], n);
      undone = moveAction(a, b, cards[0].index);
    } else if (op === OP_WASTE_TO_COLUMN) {
      const card = /** @type {number} */ (tableau[b].pop());
      this.#waste.push(card);
      cards = [CARDS[card]];
      undone = moveAction(WASTE_PILE, b, card);
    } else if (op === OP_COLUMN_TO_FOUNDATION || op === OP_WASTE_TO_FOUNDATION) {
      const card = b * 13 + this.#found[b] - 1;
      this.#found[b]--;
      if (op === OP_WASTE_TO_FOUNDATION) {
        this.#waste.push(card);
        undone = moveAction(WASTE_PILE, FIRST_FOUNDATION + b, card);
      } else {
        tableau[a].push(card);
        undone = moveAction(a, FIRST_FOUNDATION + b, card);
      }
      cards = [CARDS[card]];
      if (arrived >= 0) this.#arrived[arrived] = 0;
    } else if (op === OP_FOUNDATION_TO_COLUMN) {
      cards = [CARDS[/** @type {number} */ (tableau[b].pop())]];
      this.#found[a]++;
      undone = takeBackAction(a, b);
    } else {
      // OP_RECYCLE
      this.#waste = this.#stock.reverse();
      this.#stock = [];
      cards = this.#waste.map((card) => CARDS[card]);
      undone = Action.recycle();
    }
    if (points) this.#score -= points;
    this.#fan = fanBefore;
    this.#undos++;
    return new Outcome(action, points ? -points : 0, cards, TARGETS[op][b], SOURCES[op][a], undone);
  }

  // -- serialized forms --------------------------------------------------------------

  /**
   * The public view of the API's game answer: its rule-derived fields, the stock a count.
   * @returns {GameJSON}
   */
  view() {
    const found = this.#found;
    return {
      code: String(this.code),
      draw: this.code.draw,
      status: this.status,
      score: this.#score,
      moves: this.#moves,
      undos: this.#undos,
      version: this.#moves + this.#undos,
      tableau: this.#tableau.map(names),
      foundations: { S: found[0], H: found[1], D: found[2], C: found[3] },
      stock: this.#stock.length,
      waste: names(this.#waste),
      waste_fan: this.#fan,
      can_undo: this.canUndo,
    };
  }

  /** The same as {@link Game#view}: `JSON.stringify(game)` writes the API's fields. */
  toJSON() {
    return this.view();
  }

  /**
   * The whole state, undo stack included, that {@link Game.fromState} restores exactly;
   * field for field the server's `Game.to_state()`, so either engine reads the other's.
   * @returns {GameState}
   */
  toState() {
    let arrived = 0;
    for (let card = 0; card < 52; card++) if (this.#arrived[card]) arrived += 2 ** card;
    const undoStack = [];
    for (let i = 0; i < this.#size; i++) {
      const base = ((this.#head + i) % UNDO_LIMIT) * RECORD;
      undoStack.push(Array.from(this.#stack.subarray(base, base + RECORD)));
    }
    return {
      v: STATE_VERSION,
      code: String(this.code),
      tableau: this.#tableau.map(names),
      stock: names(this.#stock.slice().reverse()),
      waste: names(this.#waste),
      waste_fan: this.#fan,
      foundations: this.#found.slice(),
      score: this.#score,
      moves: this.#moves,
      undos: this.#undos,
      arrived,
      undo_stack: undoStack,
      undo_dropped: this.#dropped,
    };
  }

  /**
   * Rebuild a game from {@link Game#toState} data (either engine's) without replaying.
   * Throws when the state is not one (a wrong version, a card missing or twice, a bad field).
   * @param {GameState} state
   */
  static fromState(state) {
    if (!isObject(state)) throw new TypeError("a game state is an object");
    if (state.v !== STATE_VERSION) throw new Error(`unknown state version: ${JSON.stringify(state.v)}`);
    const game = new Game(GameCode.parse(state.code));
    game.#tableau = columnsOf(state.tableau, "tableau");
    game.#stock = cardsOf(state.stock, "stock").reverse();
    game.#waste = cardsOf(state.waste, "waste");
    game.#fan = integerIn(state.waste_fan, 0, 3, "waste_fan");
    if (!Array.isArray(state.foundations) || state.foundations.length !== 4) {
      throw new TypeError("foundations: 4 counts");
    }
    game.#found = state.foundations.map((count, suit) => integerIn(count, 0, 13, `foundations[${suit}]`));
    game.#score = integerIn(state.score, 0, Number.MAX_SAFE_INTEGER, "score");
    game.#moves = integerIn(state.moves, 0, Number.MAX_SAFE_INTEGER, "moves");
    game.#undos = integerIn(state.undos, 0, Number.MAX_SAFE_INTEGER, "undos");
    let arrived = integerIn(state.arrived, 0, 2 ** 52 - 1, "arrived");
    for (let card = 0; card < 52; card++) {
      game.#arrived[card] = arrived % 2;
      arrived = Math.floor(arrived / 2);
    }
    if (!Array.isArray(state.undo_stack) || state.undo_stack.length > UNDO_LIMIT) {
      throw new TypeError(`undo_stack: at most ${UNDO_LIMIT} records`);
    }
    state.undo_stack.forEach((record, i) => {
      if (!Array.isArray(record) || record.length !== RECORD || !record.every(Number.isSafeInteger)) {
        throw new TypeError(`undo_stack[${i}]: ${RECORD} integers`);
      }
      game.#stack.set(record, i * RECORD);
    });
    game.#size = state.undo_stack.length;
    if (typeof state.undo_dropped !== "boolean") throw new TypeError("undo_dropped: a boolean");
    game.#dropped = state.undo_dropped;
    game.#checkDeck();
    return game;
  }

  /**
   * A game from the API's game answer (`POST /v1/games`, `GET /v1/games/{id}`, an action's
   * answer: fields other than the rule-derived ones are ignored).
   *
   * With `history`, the notations of `GET /v1/games/{id}/actions` (strings or its items),
   * the game is replayed from its code, exact in everything, undo stack included; it throws
   * when the replay does not give the answer.
   *
   * Without it, the answer alone: the stock's order follows from the code and the visible
   * cards (it holds the cards on no other pile, in the order they first left the dealt
   * stock); score, moves and undos are the answer's. Two things cannot be known from an
   * answer: the undo stack (the game starts with none: its first undo is `NOTHING_TO_UNDO`)
   * and which cards have already scored their first arrival (those on the foundations are
   * taken as arrived, those taken back as not: a card taken back earlier and sent up again
   * locally scores +10 where the server gives 0).
   *
   * @param {Partial<GameJSON> & {code: string}} answer
   * @param {Array<string | {notation: string}>} [history]
   */
  static fromJSON(answer, history) {
    if (!isObject(answer)) throw new TypeError("a game answer is an object");
    const code = GameCode.parse(answer.code);
    if (history !== undefined && history !== null) {
      if (!Array.isArray(history)) throw new TypeError("history: a list of notations");
      const game = replay(code, history.map((item) => (typeof item === "string" ? item : item.notation)));
      const view = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (game.view()));
      for (const field of RULE_FIELDS) {
        const sent = /** @type {Record<string, unknown>} */ (answer)[field];
        if (sent !== undefined && !sameJSON(sent, view[field])) {
          throw new Error(`the history does not give the answer's ${field}: ${JSON.stringify(view[field])}, `
            + `not ${JSON.stringify(sent)}`);
        }
      }
      return game;
    }
    if (answer.draw !== undefined && answer.draw !== code.draw) throw new Error(`draw ${answer.draw} in a ${code} game`);
    const game = new Game(code);
    const dealtStock = dealIndexes(code.deal)[1];
    const tableau = columnsOf(answer.tableau, "tableau");
    const waste = cardsOf(answer.waste, "waste");
    const counts = answer.foundations;
    if (!isObject(counts)) throw new TypeError("foundations: {S, H, D, C}");
    const found = [...SUITS].map((suit) => integerIn(/** @type {Record<string, unknown>} */ (counts)[suit], 0, 13,
      `foundations.${suit}`));
    const seen = new Uint8Array(52);
    for (const card of [...tableau.flat(), ...waste]) seen[card]++;
    found.forEach((count, suit) => {
      for (let rank = 0; rank < count; rank++) seen[suit * 13 + rank]++;
    });
    const twice = seen.findIndex((times) => times > 1);
    if (twice >= 0) throw new Error(`${NAMES[twice]} is on two piles`);
    // The stock: the cards on no other pile, in dealt order (waste and stock together are
    // always a subsequence of the dealt stock: docs/CLIENTS.md).
    const order = new Map(dealtStock.map((card, position) => [card, position]));
    let last = -1;
    for (const card of waste) {
      const position = order.get(card);
      if (position === undefined || position < last) throw new Error(`the waste cannot hold ${names(waste)}`);
      last = position;
    }
    const hidden = [];
    for (let card = 0; card < 52; card++) {
      if (!seen[card]) {
        const position = order.get(card);
        if (position === undefined || position < last) throw new Error(`${NAMES[card]} cannot be in the stock`);
        hidden.push(card);
      }
    }
    hidden.sort((x, y) => /** @type {number} */ (order.get(x)) - /** @type {number} */ (order.get(y)));
    if (answer.stock !== undefined && answer.stock !== hidden.length) {
      throw new Error(`stock ${answer.stock}: ${hidden.length} cards are on no other pile`);
    }
    game.#tableau = tableau;
    game.#waste = waste;
    game.#stock = hidden.reverse();
    game.#found = found;
    game.#fan = integerIn(answer.waste_fan ?? 0, 0, Math.min(code.draw, waste.length), "waste_fan");
    game.#score = integerIn(answer.score ?? 0, 0, Number.MAX_SAFE_INTEGER, "score");
    game.#moves = integerIn(answer.moves ?? 0, 0, Number.MAX_SAFE_INTEGER, "moves");
    game.#undos = integerIn(answer.undos ?? 0, 0, Number.MAX_SAFE_INTEGER, "undos");
    found.forEach((count, suit) => {
      for (let rank = 0; rank < count; rank++) game.#arrived[suit * 13 + rank] = 1;
    });
    if (answer.version !== undefined && answer.version !== game.version) {
      throw new Error(`version ${answer.version} is not moves + undos (${game.version})`);
    }
    if (answer.status !== undefined && answer.status !== game.status) throw new Error(`status ${answer.status}`);
    return game;
  }

  /** An independent copy, undo stack included. */
  clone() {
    return Game.fromState(this.toState());
  }

  /**
   * True when `other` is in exactly the same state, undo stack included.
   * @param {unknown} other
   */
  equals(other) {
    return other instanceof Game && JSON.stringify(this.toState()) === JSON.stringify(other.toState());
  }

  toString() {
    return `<Game ${this.code} score=${this.#score} version=${this.version} ${this.status}>`;
  }

  /**
   * Every card exactly once on the piles (a state from elsewhere).
   */
  #checkDeck() {
    const seen = new Uint8Array(52);
    for (const card of [...this.#tableau.flat(), ...this.#stock, ...this.#waste]) seen[card]++;
    this.#found.forEach((count, suit) => {
      for (let rank = 0; rank < count; rank++) seen[suit * 13 + rank]++;
    });
    const wrong = seen.findIndex((times) => times !== 1);
    if (wrong >= 0) throw new Error(`${NAMES[wrong]} is ${seen[wrong] ? "on two piles" : "missing"}`);
  }
}

/**
 * Move the last `n` cards of `from` onto `to`, in order; the cards moved.
 * @param {number[]} from
 * @param {number[]} to
 * @param {number} n
 */
function moveTop(from, to, n) {
  if (n === 1) {
    // most moves: pop() keeps the array's shape, shrinking its length may not
    const card = /** @type {number} */ (from.pop());
    to.push(card);
    return [CARDS[card]];
  }
  const start = from.length - n;
  const cards = new Array(n);
  for (let i = 0; i < n; i++) {
    const card = from[start + i];
    to.push(card);
    cards[i] = CARDS[card];
  }
  from.length = start;
  return cards;
}

/**
 * True when `column` may receive `card` (the column rules, for the legal actions).
 * @param {number[]} column
 * @param {number} card
 */
function accepts(column, card) {
  return column.length ? STEP[column[column.length - 1] * 52 + card] === 1 : card % 13 === KING;
}

/**
 * True when two JSON values are equal (objects whatever their key order).
 * @param {unknown} x
 * @param {unknown} y
 * @returns {boolean}
 */
function sameJSON(x, y) {
  if (x === y) return true;
  if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  const xKeys = Object.keys(x);
  const yObject = /** @type {Record<string, unknown>} */ (y);
  return xKeys.length === Object.keys(y).length
    && xKeys.every((key) => key in yObject && sameJSON(/** @type {Record<string, unknown>} */ (x)[key], yObject[key]));
}

/** @param {number[]} cards */
function names(cards) {
  return cards.map((card) => NAMES[card]);
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * @param {unknown} value
 * @param {number} low
 * @param {number} high
 * @param {string} what
 */
function integerIn(value, low, high, what) {
  if (!Number.isSafeInteger(value) || /** @type {number} */ (value) < low || /** @type {number} */ (value) > high) {
    throw new TypeError(`${what}: an integer from ${low} to ${high}, not ${JSON.stringify(value)}`);
  }
  return /** @type {number} */ (value);
}

/**
 * @param {unknown} value
 * @param {string} what
 */
function cardsOf(value, what) {
  if (!Array.isArray(value) || value.length > 52) throw new TypeError(`${what}: a list of cards`);
  return value.map((name) => Card.parse(name).index);
}

/**
 * @param {unknown} value
 * @param {string} what
 */
function columnsOf(value, what) {
  if (!Array.isArray(value) || value.length !== 7) throw new TypeError(`${what}: 7 columns`);
  return value.map((column, i) => cardsOf(column, `${what}[${i}]`));
}

/** @type {Map<number, Action>} */
const MOVES = new Map();
/** @type {Map<number, Action>} */
const TAKE_BACKS = new Map();

/**
 * The move `PILES[src]` > `PILES[dst]` naming `card`, built once and shared.
 * @param {number} src
 * @param {number} dst
 * @param {number} card
 */
function moveAction(src, dst, card) {
  const key = (src * 16 + dst) * 64 + card;
  let action = MOVES.get(key);
  if (action === undefined) {
    action = Action.move(PILES[src], PILES[dst], CARDS[card]);
    MOVES.set(key, action);
  }
  return action;
}

/**
 * The take-back from foundation `suit` onto column `dst`, built once and shared.
 * @param {number} suit
 * @param {number} dst
 */
function takeBackAction(suit, dst) {
  const key = suit * 8 + dst;
  let action = TAKE_BACKS.get(key);
  if (action === undefined) {
    action = Action.takeBack(FOUNDATIONS[suit], COLUMNS[dst]);
    TAKE_BACKS.set(key, action);
  }
  return action;
}

/**
 * Rebuild a game from its code and its history (actions or their notation).
 * @param {GameCode | string} code
 * @param {Iterable<Action | string>} actions
 */
export function replay(code, actions) {
  const game = Game.fromCode(code);
  for (const action of actions) game.apply(action);
  return game;
}
