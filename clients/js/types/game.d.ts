/**
 * Rebuild a game from its code and its history (actions or their notation).
 * @param {GameCode | string} code
 * @param {Iterable<Action | string>} actions
 */
export function replay(code: GameCode | string, actions: Iterable<Action | string>): Game;
/** How many of the most recent actions can be undone. */
export const UNDO_LIMIT: 100;
/** The version of {@link Game#toState}'s format (`v`), the same as the server's. */
export const STATE_VERSION: 1;
/**
 * The version of the rules this engine plays, the same number as the server's
 * `GET /v1/rules` `rules_version`: do not judge locally with an engine whose
 * version is older than the server's.
 */
export const RULES_VERSION: 1;
export const POINTS_FOUNDATION: 10;
export const POINTS_WASTE_TO_COLUMN: 5;
export const POINTS_RECYCLE: -100;
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
    constructor(action: Action, points: number, cards: Card[], source?: PileName | null, target?: PileName | null, undone?: Action | null);
    action: Action;
    points: number;
    cards: Card[];
    source: import("./cards.js").PileName | null;
    target: import("./cards.js").PileName | null;
    undone: Action | null;
    /**
     * The action's fields as sent (`from`, `to`, `card`, `double`), then what it did:
     * `points`, `cards`, `moved_from`, `moved_to`, `undone` (the API's `last`).
     * @returns {OutcomeJSON}
     */
    toJSON(): OutcomeJSON;
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
export const RULE_FIELDS: readonly string[];
/** A game of Solitaire Réfléchi: the piles, the counters and the undo stack. */
export class Game {
    /**
     * A new game dealt from a game code (text or parsed).
     * @param {GameCode | string} code
     */
    static fromCode(code: GameCode | string): Game;
    /**
     * Rebuild a game from {@link Game#toState} data (either engine's) without replaying.
     * Throws when the state is not one (a wrong version, a card missing or twice, a bad field).
     * @param {GameState} state
     */
    static fromState(state: GameState): Game;
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
    static fromJSON(answer: Partial<GameJSON> & {
        code: string;
    }, history?: Array<string | {
        notation: string;
    }>): Game;
    /** @param {GameCode | string} code */
    constructor(code: GameCode | string);
    /** @type {GameCode} */
    code: GameCode;
    /** 1 or 3. */
    get drawCount(): number;
    get score(): number;
    /** Accepted actions other than undo. */
    get moves(): number;
    /** Accepted undos. */
    get undos(): number;
    /** Accepted actions, undos included. */
    get version(): number;
    get won(): boolean;
    /** @returns {"playing"|"won"} */
    get status(): "playing" | "won";
    get canUndo(): boolean;
    /** The number of cards of the last draw still on the waste (display only). */
    get wasteFan(): number;
    /** The columns, bottom card first (a copy). */
    get tableau(): Card[][];
    /** The stock, the next card to draw first (a copy; the API never shows it). */
    get stock(): Card[];
    /** The waste, bottom first, top last (a copy). */
    get waste(): Card[];
    /** Cards on each foundation, in the order `fS fH fD fC` (a copy). */
    get foundations(): number[];
    /**
     * The top card of a foundation (suit index 0–3), or null.
     * @param {number} suit
     */
    foundationTop(suit: number): Card | null;
    /**
     * Throw the Rejection `action` would get now; change nothing.
     * @param {Action | string} action an action or its notation
     */
    check(action: Action | string): void;
    /**
     * True when `action` would be accepted now.
     * @param {Action | string} action
     */
    isLegal(action: Action | string): boolean;
    /**
     * Check `action`, apply it and return its outcome; a rejection changes nothing.
     * @param {Action | string} action an action or its notation
     * @returns {Outcome}
     */
    apply(action: Action | string): Outcome;
    /**
     * Every action legal now, in the server's order: moves by source column and card,
     * the waste's, take-backs, draw or recycle, then undo.
     * @returns {Action[]}
     */
    legalActions(): Action[];
    /**
     * The public view of the API's game answer: its rule-derived fields, the stock a count.
     * @returns {GameJSON}
     */
    view(): GameJSON;
    /** The same as {@link Game#view}: `JSON.stringify(game)` writes the API's fields. */
    toJSON(): GameJSON;
    /**
     * The whole state, undo stack included, that {@link Game.fromState} restores exactly;
     * field for field the server's `Game.to_state()`, so either engine reads the other's.
     * @returns {GameState}
     */
    toState(): GameState;
    /** An independent copy, undo stack included. */
    clone(): Game;
    /**
     * True when `other` is in exactly the same state, undo stack included.
     * @param {unknown} other
     */
    equals(other: unknown): boolean;
    toString(): string;
    #private;
}
export type PileName = import("./cards.js").PileName;
export type OutcomeJSON = import("./notation.js").ActionJSON & {
    points: number;
    cards: string[];
    moved_from?: PileName;
    moved_to?: PileName;
    undone?: string;
};
/**
 * The rule-derived fields of the API's game answer (`GET /v1/games/{id}` without its
 * `id`, times, owner and counters of hints).
 */
export type GameJSON = {
    code: string;
    draw: number;
    status: "playing" | "won";
    score: number;
    moves: number;
    undos: number;
    version: number;
    /**
     * 7 columns, bottom card first
     */
    tableau: string[][];
    /**
     * cards on each
     */
    foundations: {
        S: number;
        H: number;
        D: number;
        C: number;
    };
    /**
     * the number of cards in the stock
     */
    stock: number;
    /**
     * bottom first, top last
     */
    waste: string[];
    waste_fan: number;
    can_undo: boolean;
};
/**
 * The whole state, field for field as the server's `Game.to_state()` writes it.
 */
export type GameState = {
    v: number;
    code: string;
    tableau: string[][];
    /**
     * the next card to draw first
     */
    stock: string[];
    waste: string[];
    waste_fan: number;
    foundations: number[];
    score: number;
    moves: number;
    undos: number;
    /**
     * bit `i` set when card `i` has reached a foundation once
     */
    arrived: number;
    /**
     * oldest first, each `[op, a, b, n, applied, arrived, fanBefore]`
     */
    undo_stack: number[][];
    undo_dropped: boolean;
};
import { GameCode } from "./deal.js";
import { Action } from "./notation.js";
import { Card } from "./cards.js";
