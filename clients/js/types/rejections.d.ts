/**
 * The rejection codes of the rules and the one exception that carries them.
 *
 * When an action breaks several rules the first code of {@link PRECEDENCE} wins;
 * the game checks the rules in that order, so the first failing check is the answer.
 *
 * @module
 */
/** Rule codes in the order of the rejection table: the first broken rule wins. */
export const PRECEDENCE: readonly string[];
/** Codes outside the precedence table, each raised by one action only. */
export const ACTION_CODES: readonly string[];
/**
 * Every code the engine throws, with the names of the params it always carries.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const RULE_PARAMS: Readonly<Record<string, readonly string[]>>;
/**
 * A rule refused an action: `code` is stable, `params` name the cards and piles,
 * exactly as the server's problem+json answer has them.
 */
export class Rejection extends Error {
    /**
     * @param {string} code
     * @param {Record<string, string | number>} [params]
     */
    constructor(code: string, params?: Record<string, string | number>);
    /** The stable code, e.g. `TABLEAU_COLOUR`. */
    code: string;
    /** The cards and piles involved, e.g. `{card: "7H", onto: "8D"}`. */
    params: Record<string, string | number>;
    /** `{code, params}`, as a problem answer carries them. */
    toJSON(): {
        code: string;
        params: Record<string, string | number>;
    };
}
