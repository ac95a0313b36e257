#!/usr/bin/env node
// Checks a vectors file (`flask --app service vectors`) against this package, line by line,
// beyond what the runner prints: deals, legal actions in order, every accepted action's
// outcome, states read and written field for field, and fromJSON on every sampled position.
//
//   node scripts/check-vectors.mjs VECTORS.jsonl [--states-out FILE]
//
// Prints one JSON summary on stdout ({"checked": {kind: count}, "mismatches": count,
// "first": [up to 10 descriptions]}) and exits 1 when anything differs. --states-out writes
// this engine's toState() for each "state" line (JSONL, in order), for the server to read.
import { createReadStream, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { isDeepStrictEqual } from "node:util";

import { Game, GameCode, dealCards, replay } from "../src/index.js";

const [path, flag, statesOut] = process.argv.slice(2);
if (!path || (flag !== undefined && (flag !== "--states-out" || !statesOut))) {
  process.stderr.write("usage: node scripts/check-vectors.mjs VECTORS.jsonl [--states-out FILE]\n");
  process.exit(2);
}

/** @type {Record<string, number>} */
const checked = {};
/** @type {string[]} */
const first = [];
let mismatches = 0;
/** @type {string[]} */
const states = [];

/**
 * @param {boolean} same
 * @param {() => string} describe
 */
function expect(same, describe) {
  if (same) return;
  mismatches++;
  if (first.length < 10) first.push(describe());
}

/** @param {Record<string, any>} line */
function checkLine(line) {
  checked[line.kind] = (checked[line.kind] ?? 0) + 1;
  if (line.kind === "deal") {
    const [tableau, stock] = dealCards(GameCode.parse(line.code).deal);
    const got = { tableau: tableau.map((column) => column.map(String)), stock: stock.map(String) };
    expect(isDeepStrictEqual(got, { tableau: line.tableau, stock: line.stock }), () => `deal ${line.code}`);
  } else if (line.kind === "game") {
    if (line.error) return; // a bad code: the runner's line says it all
    const game = Game.fromCode(line.code);
    line.actions.forEach((/** @type {string} */ notation, /** @type {number} */ i) => {
      let outcome = null;
      try {
        outcome = game.apply(notation).toJSON();
      } catch {
        // a rejection or a malformed notation: its result is the runner's to compare
      }
      checked.outcomes = (checked.outcomes ?? 0) + 1;
      expect(isDeepStrictEqual(outcome, line.outcomes[i]),
        () => `${line.code} action ${i} ${notation}: outcome ${JSON.stringify(outcome)}, want ${JSON.stringify(line.outcomes[i])}`);
    });
  } else if (line.kind === "legal") {
    const got = positionOf(line).legalActions().map(String);
    expect(isDeepStrictEqual(got, line.legal), () => `${line.code} after ${line.actions.length} actions: legal ${got}`);
    checkFromJSON(line);
  } else if (line.kind === "state") {
    const game = positionOf(line);
    const written = game.toState();
    states.push(JSON.stringify(written));
    expect(isDeepStrictEqual(written, line.state), () => `${line.code} after ${line.actions.length}: toState differs`);
    const read = Game.fromState(line.state);
    expect(isDeepStrictEqual(read.toState(), line.state), () => `${line.code}: fromState(state).toState() differs`);
    expect(read.equals(game), () => `${line.code}: fromState(state) is not the replayed game`);
    checkFromJSON(line);
  }
}

/** @param {Record<string, any>} line */
function positionOf(line) {
  const game = Game.fromCode(line.code);
  for (const notation of line.actions) {
    try {
      game.apply(notation);
    } catch {
      // refused: nothing changes
    }
  }
  return game;
}

/**
 * fromJSON of the position's view: the same view and the same stock order as the game itself;
 * with the accepted actions as history, the same game exactly.
 * @param {Record<string, any>} line
 */
function checkFromJSON(line) {
  const game = positionOf(line);
  const view = { id: "ignored", ...game.toJSON(), last: null };
  const rebuilt = Game.fromJSON(view);
  checked.fromJSON = (checked.fromJSON ?? 0) + 1;
  // without history no undo stack: can_undo is false, everything else the game's
  expect(isDeepStrictEqual(rebuilt.toJSON(), { ...game.toJSON(), can_undo: false }),
    () => `${line.code}: fromJSON view differs`);
  expect(isDeepStrictEqual(rebuilt.stock.map(String), game.stock.map(String)),
    () => `${line.code} after ${line.actions.length}: fromJSON's stock ${rebuilt.stock} is not ${game.stock}`);
  // the server's history holds the accepted actions only
  const history = [];
  const replayed = Game.fromCode(line.code);
  for (const notation of line.actions) {
    try {
      replayed.apply(notation);
      history.push(notation);
    } catch {
      // refused
    }
  }
  expect(Game.fromJSON(view, history).equals(replay(line.code, history)), () => `${line.code}: fromJSON with history`);
}

const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
for await (const text of lines) {
  if (text.trim()) checkLine(JSON.parse(text));
}
if (statesOut) writeFileSync(statesOut, states.map((state) => `${state}\n`).join(""));
process.stdout.write(`${JSON.stringify({ checked, mismatches, first })}\n`);
process.exit(mismatches ? 1 : 0);
