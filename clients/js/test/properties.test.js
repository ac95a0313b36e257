// Properties of every reachable game, on random play (fast-check): legal actions mixed
// with arbitrary ones, so that rejections are exercised as much as acceptances.
import assert from "node:assert/strict";
import { test } from "node:test";

import fc from "fast-check";

import { Action, CARDS, DEAL_COUNT, Game, GameCode, PRECEDENCE, RULE_PARAMS, Rejection, UNDO_LIMIT } from "../src/index.js";

const PILES = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "waste", "stock", "fS", "fH", "fD", "fC", "foundation"];
const SOURCES = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "waste"];

const games = fc.record({
  deal: fc.integer({ min: 0, max: DEAL_COUNT - 1 }),
  draw: fc.constantFrom(1, 3),
  steps: fc.array(fc.nat(), { minLength: 1, maxLength: 250 }),
});

/**
 * The action a step number picks: mostly a legal one (undo included), else any action.
 * @param {Game} game
 * @param {number} n
 */
function pick(game, n) {
  const legal = game.legalActions();
  if (n % 4 && legal.length) return legal[n % legal.length];
  const source = SOURCES[(n >> 2) % 8];
  const target = PILES[(n >> 5) % 14];
  const pile = source === "waste" ? game.waste : game.tableau[Number(source[1]) - 1];
  const which = (n >> 9) % (pile.length + 2);
  const card = which < pile.length ? pile[which] : which === pile.length ? null : CARDS[(n >> 12) % 52];
  switch ((n >> 16) % 6) {
    case 0: return Action.tap(source, card, Boolean(n & 1));
    case 1: return Action.takeBack(["fS", "fH", "fD", "fC"][n % 4], target);
    case 2: return [Action.draw(), Action.recycle(), Action.undo()][n % 3];
    default: return Action.move(source, target, card);
  }
}

/**
 * Play a game's steps, calling `check(game, action, before, outcome)` after each.
 * @param {{deal: number, draw: number, steps: number[]}} input
 * @param {(game: Game, action: Action, before: ReturnType<Game["toState"]>, outcome: import("../src/index.js").Outcome | null) => void} check
 */
function play({ deal, draw, steps }, check) {
  const game = new Game(new GameCode(draw, deal));
  for (const n of steps) {
    const action = pick(game, n);
    const before = game.toState();
    let outcome = null;
    try {
      outcome = game.apply(action);
    } catch (error) {
      if (!(error instanceof Rejection)) throw error;
    }
    check(game, action, before, outcome);
  }
  return game;
}

test("undo after apply restores the state exactly; a rejection changes nothing", () => {
  fc.assert(fc.property(games, (input) => {
    play(input, (game, action, before, outcome) => {
      if (outcome === null) {
        assert.deepEqual(game.toState(), before);
        return;
      }
      if (action.kind === "undo") return;
      const probe = game.clone();
      probe.apply("undo");
      const after = probe.toState();
      const expected = { ...before, moves: before.moves + 1, undos: before.undos + 1 };
      if (before.undo_stack.length === UNDO_LIMIT) {
        // the apply pushed out the oldest record to make room: it cannot come back
        Object.assign(expected, { undo_stack: before.undo_stack.slice(1), undo_dropped: true });
      }
      assert.deepEqual(after, expected);
    });
  }), { numRuns: 60 });
});

test("52 cards always, each once", () => {
  fc.assert(fc.property(games, (input) => {
    play(input, (game) => {
      const cards = [...game.tableau.flat(), ...game.stock, ...game.waste];
      game.foundations.forEach((count, suit) => {
        for (let rank = 0; rank < count; rank++) cards.push(CARDS[suit * 13 + rank]);
      });
      assert.equal(cards.length, 52);
      assert.equal(new Set(cards).size, 52);
    });
  }), { numRuns: 60 });
});

test("the score is the sum of the points applied; version = moves + undos", () => {
  fc.assert(fc.property(games, (input) => {
    let points = 0;
    let moves = 0;
    let undos = 0;
    const game = play(input, (current, action, _before, outcome) => {
      if (outcome === null) return;
      points += outcome.points;
      if (action.kind === "undo") undos++;
      else moves++;
      assert.ok(current.score >= 0);
    });
    assert.equal(game.score, points);
    assert.deepEqual([game.moves, game.undos, game.version], [moves, undos, moves + undos]);
  }), { numRuns: 60 });
});

test("legal actions are exactly the accepted moves and take-backs naming their card and pile", () => {
  fc.assert(fc.property(games, (input) => {
    const game = play(input, () => {});
    const legal = new Set(game.legalActions().map(String));
    for (const notation of legal) assert.ok(game.isLegal(notation), notation);
    for (const source of SOURCES) {
      const pile = source === "waste" ? game.waste.slice(-1) : game.tableau[Number(source[1]) - 1];
      for (const card of pile) {
        for (const target of PILES.filter((pile) => pile !== "foundation")) {
          const notation = `${source}>${target}:${card}`;
          assert.equal(game.isLegal(notation), legal.has(notation), notation);
        }
      }
    }
    for (const source of ["fS", "fH", "fD", "fC"]) {
      for (const target of PILES) assert.equal(game.isLegal(`${source}>${target}`), legal.has(`${source}>${target}`));
    }
  }), { numRuns: 60 });
});

test("fromJSON rebuilds the stock's order from the code and the visible cards", () => {
  fc.assert(fc.property(games, (input) => {
    play(input, (game) => {
      const rebuilt = Game.fromJSON(game.toJSON());
      assert.deepEqual(rebuilt.stock, game.stock);
      assert.deepEqual(rebuilt.toJSON(), { ...game.toJSON(), can_undo: false });
    });
  }), { numRuns: 30 });
});

test("every rejection carries its code's params and a code of the rules", () => {
  const known = new Set([...PRECEDENCE, "STOCK_EMPTY", "STOCK_NOT_EMPTY", "NOTHING_TO_RECYCLE", "NOTHING_TO_UNDO",
    "UNDO_LIMIT_REACHED", "NO_DESTINATION"]);
  fc.assert(fc.property(games, (input) => {
    const game = new Game(new GameCode(input.draw, input.deal));
    for (const n of input.steps) {
      try {
        game.apply(pick(game, n));
      } catch (error) {
        assert.ok(error instanceof Rejection);
        assert.ok(known.has(error.code), error.code);
        assert.deepEqual(Object.keys(error.params).sort(), [...RULE_PARAMS[error.code]].sort());
      }
    }
  }), { numRuns: 30 });
});
