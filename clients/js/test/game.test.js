import assert from "node:assert/strict";
import { test } from "node:test";

import { Action, Game, Rejection, UNDO_LIMIT, replay } from "../src/index.js";
import { position, refusal } from "./helpers.js";

const EMPTY = () => [[], [], [], [], [], [], []];

test("a draw and its undo, as in the server's docs", () => {
  const game = Game.fromCode("TF1-D1N-AAAAAAB");
  const drawn = game.apply(Action.draw());
  assert.deepEqual([drawn.points, game.moves, game.version], [0, 1, 1]);
  assert.deepEqual(drawn.toJSON(), { action: "draw", points: 0, cards: ["QS"], moved_from: "stock", moved_to: "waste" });
  const undone = game.apply("undo");
  assert.deepEqual([undone.points, game.moves, game.undos, game.version], [0, 1, 1, 2]);
  assert.deepEqual(undone.toJSON(), {
    action: "undo", points: 0, cards: ["QS"], moved_from: "waste", moved_to: "stock", undone: "draw",
  });
  assert.deepEqual(refusal(() => game.apply("undo")), { code: "NOTHING_TO_UNDO", params: {} });
});

test("the view has the API's fields in the API's order", () => {
  const view = Game.fromCode("TF1-D3N-AAAAAAB").toJSON();
  assert.deepEqual(Object.keys(view), ["code", "draw", "status", "score", "moves", "undos", "version", "tableau",
    "foundations", "stock", "waste", "waste_fan", "can_undo"]);
  assert.deepEqual([view.draw, view.stock, view.waste_fan, view.can_undo, view.status], [3, 24, 0, false, "playing"]);
});

test("scoring: +10 once per card, +5 waste to column, 0 for take-backs and column moves", () => {
  const tableau = EMPTY();
  tableau[0] = ["2S"];
  tableau[1] = ["3H"];
  const game = position({ tableau, waste: ["AH"], foundations: [1, 0, 0, 0] });
  assert.equal(game.apply("waste>foundation").points, 10);
  assert.equal(game.apply("fH>t1").points, 0);
  const again = game.apply("t1>fH");
  assert.deepEqual([again.points, again.target], [0, "fH"], "a card earns its +10 only the first time");
  assert.equal(game.score, 10);
  game.apply("undo"); // the take-back back on t1…
  game.apply("undo"); // …and off the foundation: fH>t1 undone
  const undoFirst = game.apply("undo");
  assert.deepEqual([undoFirst.points, undoFirst.undone?.toString(), game.score], [-10, "waste>fH:AH", 0]);
  assert.equal(game.apply("tap:waste").points, 10, "undo forgets the first arrival");
  assert.equal(game.apply("t1>t2").points, 0);
  const fromWaste = position({ tableau: [["8S"], [], [], [], [], [], []], waste: ["7H"] });
  assert.equal(fromWaste.apply("waste>t1").points, 5);
});

test("recycling costs 100, never below 0, and never a negative zero", () => {
  for (const [score, points] of [[250, -100], [100, -100], [30, -30], [0, 0]]) {
    const game = position({ waste: ["AS", "2S"], stock: [], score, tableau: restOnTableau(["AS", "2S"]) });
    const outcome = game.apply("recycle");
    assert.ok(Object.is(outcome.points, points), `${score}: ${outcome.points}`);
    assert.equal(game.score, score + points);
    assert.deepEqual(game.stock.map(String), ["AS", "2S"], "the first card drawn in the pass comes out first");
    assert.ok(Object.is(game.apply("undo").points, 0 - points));
    assert.equal(game.score, score);
  }
});

test("undo reaches back 100 actions; past them UNDO_LIMIT_REACHED", () => {
  const game = Game.fromCode("TF1-D1N-AAAAAAB");
  for (let i = 0; i < UNDO_LIMIT + 5; i++) game.apply(game.isLegal("draw") ? "draw" : "recycle");
  for (let i = 0; i < UNDO_LIMIT; i++) game.apply("undo");
  assert.equal(game.canUndo, false);
  assert.deepEqual(refusal(() => game.apply("undo")), { code: "UNDO_LIMIT_REACHED", params: { limit: 100 } });
  assert.deepEqual([game.moves, game.undos], [105, 100]);
});

test("double tap: the fullest column that takes the card, ties to the leftmost; kings to an empty column", () => {
  const tableau = EMPTY();
  tableau[1] = ["KS", "QH", "JC"];
  tableau[2] = ["9D", "KC", "QD"];
  tableau[3] = ["KD", "8C", "JS"];
  tableau[5] = ["TH"];
  tableau[6] = ["KH"];
  assert.deepEqual(moved(position({ tableau, waste: ["TD"] }), "dtap:waste"), ["waste", "t2"],
    "t2 and t4 tie at 3 cards: the leftmost");
  assert.deepEqual(moved(position({ tableau, waste: ["9C"] }), "dtap:waste"), ["waste", "t6"]);
  const fuller = EMPTY();
  fuller[0] = ["TH"];
  fuller[2] = ["2C", "5S", "TD"];
  assert.deepEqual(moved(position({ tableau: fuller, waste: ["9S"] }), "dtap:waste"), ["waste", "t3"],
    "the column with the most cards, not the leftmost");
  assert.deepEqual(moved(position({ tableau }), "dtap:t3:KC"), ["t3", "t1"], "a king's group: the leftmost empty");
  assert.deepEqual(refusal(() => position({ tableau }).apply("dtap:t7")),
    { code: "NO_DESTINATION", params: { card: "KH", pile: "t7" } }, "a king already at the bottom stays");
  assert.deepEqual(refusal(() => position({ tableau }).apply("tap:t2:QH")),
    { code: "NO_DESTINATION", params: { card: "QH", pile: "t2" } }, "a single tap tries the foundation only");
  assert.deepEqual(refusal(() => position({ tableau }).apply("dtap:t4:KD")),
    { code: "GROUP_NOT_ORDERED", params: { card: "KD", pile: "t4", below: "KD", above: "8C" } });
});

test("precedence: the first broken rule of the table wins", () => {
  const tableau = EMPTY();
  tableau[0] = ["9S", "7H", "6C"];
  tableau[1] = ["5D", "4S"];
  const game = position({ tableau, waste: ["QD", "JC"], foundations: [0, 2, 0, 0] });
  const cases = {
    "t3>t1:9S": ["SOURCE_EMPTY", { pile: "t3" }],
    "t1>t1:KS": ["CARD_NOT_IN_PILE", { card: "KS", pile: "t1" }],
    "waste>t1:QD": ["WASTE_TOP_ONLY", { card: "QD", top: "JC" }],
    "waste>waste": ["SAME_PILE", { pile: "waste" }],
    "t1>stock:9S": ["INVALID_TARGET", { pile: "stock" }],
    "t1>foundation:9S": ["GROUP_NOT_ORDERED", { card: "9S", pile: "t1", below: "9S", above: "7H" }],
    "t2>fS:5D": ["FOUNDATION_ONE_CARD", { card: "5D", count: 2 }],
    "t1>fS": ["FOUNDATION_WRONG_SUIT", { card: "6C", foundation: "fS" }],
    "waste>foundation": ["FOUNDATION_SEQUENCE", { card: "JC", foundation: "fC", needs: "A" }],
    "t1>t3": ["EMPTY_COLUMN_KING_ONLY", { card: "6C", column: "t3" }],
    "waste>t2": ["TABLEAU_COLOUR", { card: "JC", onto: "4S" }],
    "fH>t2": ["TABLEAU_RANK", { card: "2H", onto: "4S" }],
    "fH>fH": ["SAME_PILE", { pile: "fH" }],
    "fH>foundation": ["INVALID_TARGET", { pile: "foundation" }],
    "fD>t1": ["SOURCE_EMPTY", { pile: "fD" }],
    "recycle": ["STOCK_NOT_EMPTY", { stock: 52 - 9 }],
  };
  for (const [notation, [code, params]] of Object.entries(cases)) {
    assert.deepEqual(refusal(() => game.apply(notation)), { code, params }, notation);
    assert.equal(game.isLegal(notation), false);
  }
  assert.equal(game.version, 0, "a rejection changes nothing");
});

test("a won game refuses everything, undo included", () => {
  const game = position({ tableau: [["KC"], [], [], [], [], [], []], foundations: [13, 13, 13, 12], stock: [] });
  assert.equal(game.apply("tap:t1").points, 10);
  assert.deepEqual([game.status, game.won, game.canUndo], ["won", true, false]);
  for (const notation of ["undo", "draw", "t1>t2", "fC>t1", "tap:waste", "recycle"]) {
    assert.deepEqual(refusal(() => game.apply(notation)), { code: "GAME_FINISHED", params: {} }, notation);
  }
  assert.deepEqual(game.legalActions(), []);
});

test("a notation that does not parse is a NotationError, before any rule", () => {
  const game = Game.fromCode("TF1-D1N-AAAAAAB");
  assert.throws(() => game.apply("t9>t1"), { name: "NotationError" });
  assert.throws(() => game.check("nonsense"), { name: "NotationError" });
});

test("states round-trip exactly, and bad ones are refused", () => {
  const game = replay("TF1-D3N-AAAAAAC", ["draw", "draw", "undo"]);
  const state = game.toState();
  assert.deepEqual(Game.fromState(JSON.parse(JSON.stringify(state))).toState(), state);
  assert.ok(Game.fromState(state).equals(game));
  assert.throws(() => Game.fromState({ ...state, v: 2 }), /state version/);
  assert.throws(() => Game.fromState({ ...state, waste: [] }), /missing/);
  assert.throws(() => Game.fromState({ ...state, waste: [...state.waste, state.waste[0]] }), /two piles/);
  assert.throws(() => Game.fromState({ ...state, undo_stack: [[1, 2]] }), TypeError);
  const copy = game.clone();
  copy.apply("draw");
  assert.equal(game.version + 1, copy.version, "a clone is independent");
});

test("fromJSON: from the answer alone, and from its history", () => {
  const notations = ["draw", "draw", "draw", "undo", "draw"];
  const game = replay("TF1-D1N-AAAAAAB", notations);
  const answer = { id: "g1", token: "secret", last: { action: "draw" }, hints: 0, ...game.toJSON() };
  const alone = Game.fromJSON(answer);
  assert.deepEqual(alone.toJSON(), { ...game.toJSON(), can_undo: false });
  assert.deepEqual(alone.stock.map(String), game.stock.map(String));
  assert.deepEqual(refusal(() => alone.apply("undo")), { code: "NOTHING_TO_UNDO", params: {} });
  assert.ok(Game.fromJSON(answer, notations).equals(game));
  assert.ok(Game.fromJSON(answer, notations.map((notation, seq) => ({ seq, notation }))).equals(game));
  assert.throws(() => Game.fromJSON(answer, notations.slice(0, 4)), /history does not give/);
  assert.throws(() => Game.fromJSON({ ...answer, stock: 3 }), /stock 3/);
  assert.throws(() => Game.fromJSON({ ...answer, waste: ["KS", ...answer.waste] }), Error);
  assert.throws(() => Game.fromJSON({ ...answer, code: "nope" }), Rejection);
});

/**
 * @param {Game} game
 * @param {string} notation
 */
function moved(game, notation) {
  const outcome = game.apply(notation);
  return [outcome.source, outcome.target];
}

/**
 * Every card but `held` on the tableau (7 columns), in any order: a position whose stock
 * and waste hold only `held`.
 * @param {string[]} held
 */
function restOnTableau(held) {
  const rest = [];
  for (const suit of "SHDC") for (const rank of "A23456789TJQK") if (!held.includes(rank + suit)) rest.push(rank + suit);
  return Array.from({ length: 7 }, (_, i) => rest.filter((_, j) => j % 7 === i));
}
