/**
 * @typedef {{ok: true, game: import("./game.js").GameJSON}
 *   | {ok: false, code: string, params: Record<string, string | number>}} ActionResult
 * @typedef {{results: ActionResult[]} | {error: {code: string, params: Record<string, string | number>}}} GameResults
 */
/**
 * Play `actions` (notations) from the deal `code`: one result per action, the game after
 * it or its rejection; a rejected action changes nothing. A notation that does not parse
 * is `INVALID_REQUEST` with `params.notation`; a bad code is one `error` for the game.
 * @param {string} code
 * @param {string[]} actions
 * @returns {GameResults}
 */
export function replayResults(code: string, actions: string[]): GameResults;
/**
 * The runner's answer to one input line (without its line break):
 * `{"code": "TF1-D1N-AAAAAAB", "actions": ["draw", …]}` gives {@link replayResults};
 * a line that is not JSON, too long, or without a string `code` and a list of string
 * `actions` gives `{"error": {"code": "INVALID_REQUEST", "params": {"reason": …}}}`.
 * Other fields are ignored, so a vectors file's game lines can be fed as they are.
 * @param {string} text
 * @returns {GameResults}
 */
export function answerLine(text: string): GameResults;
/** The longest input line the runner reads (characters); a longer one is answered INVALID_REQUEST. */
export const MAX_LINE_CHARS: number;
export type ActionResult = {
    ok: true;
    game: import("./game.js").GameJSON;
} | {
    ok: false;
    code: string;
    params: Record<string, string | number>;
};
export type GameResults = {
    results: ActionResult[];
} | {
    error: {
        code: string;
        params: Record<string, string | number>;
    };
};
