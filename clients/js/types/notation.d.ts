/**
 * Parse one action of the notation (alias of {@link Action.parse}).
 * @param {string} text
 */
export function parseAction(text: string): Action;
/**
 * Format one action in the notation (alias of `String(action)`).
 * @param {Action} action
 */
export function formatAction(action: Action): string;
export const MOVE: "move";
export const DRAW: "draw";
export const RECYCLE: "recycle";
export const UNDO: "undo";
export const TAKE_BACK: "take-back";
export const TAP: "tap";
/** @type {readonly ActionKind[]} */
export const KINDS: readonly ActionKind[];
/**
 * @typedef {"move"|"draw"|"recycle"|"undo"|"take-back"|"tap"} ActionKind
 * @typedef {import("./cards.js").PileName} PileName
 */
/** Kind numbers, read by the game on its hot path. */
export const K_MOVE: 0;
export const K_DRAW: 1;
export const K_RECYCLE: 2;
export const K_UNDO: 3;
export const K_TAKE_BACK: 4;
export const K_TAP: 5;
/**
 * An action's numbers, for the game's hot path: `[kind, source, target, card]`.
 * @type {(action: Action) => Int16Array}
 */
export let numbersOf: (action: Action) => Int16Array;
/**
 * One player action. Invalid combinations of kind and piles throw NotationError.
 * Build one with {@link Action.parse} or the static constructors.
 */
export class Action {
    /**
     * A move of `card` (default: the source's top card) and the cards above it.
     * @param {string} source `t1`…`t7` or `waste`
     * @param {string} target a column, a foundation or `foundation`
     * @param {Card | string | null} [card]
     */
    static move(source: string, target: string, card?: Card | string | null): Action;
    /**
     * The top card of foundation `source` back onto column `target`.
     * @param {string} source `fS`…`fC`
     * @param {string} target
     */
    static takeBack(source: string, target: string): Action;
    /**
     * A single or double tap on `card` (default: the source's top card).
     * @param {string} source `t1`…`t7` or `waste`
     * @param {Card | string | null} [card]
     * @param {boolean} [double]
     */
    static tap(source: string, card?: Card | string | null, double?: boolean): Action;
    /** The draw. */
    static draw(): Action;
    /** The recycle. */
    static recycle(): Action;
    /** The undo. */
    static undo(): Action;
    /**
     * Parse the one-line notation; throw NotationError for anything else.
     * @param {string} text
     * @returns {Action}
     */
    static parse(text: string): Action;
    /**
     * @param {ActionKind} kind
     * @param {string | null} [source]
     * @param {string | null} [target]
     * @param {Card | string | null} [card]
     * @param {boolean} [double]
     */
    constructor(kind: ActionKind, source?: string | null, target?: string | null, card?: Card | string | null, double?: boolean);
    /** @type {ActionKind} */
    kind: ActionKind;
    /** @type {PileName | null} */
    source: PileName | null;
    /** @type {PileName | null} */
    target: PileName | null;
    /** @type {Card | null} */
    card: Card | null;
    /** @type {boolean} */
    double: boolean;
    /** The one-line notation, e.g. `t3>t5:9C`, `dtap:waste`, `draw`. */
    toString(): string;
    /**
     * The action as the API writes it: `{action, from, to, card, double}` (only the fields it has).
     * @returns {ActionJSON}
     */
    toJSON(): ActionJSON;
    /**
     * True when `other` is the same action.
     * @param {unknown} other
     */
    equals(other: unknown): boolean;
    #private;
}
export type ActionKind = "move" | "draw" | "recycle" | "undo" | "take-back" | "tap";
export type PileName = import("./cards.js").PileName;
export type ActionJSON = {
    action: ActionKind;
    from?: import("./cards.js").PileName | undefined;
    to?: import("./cards.js").PileName | undefined;
    card?: string | undefined;
    double?: boolean | undefined;
};
import { Card } from "./cards.js";
