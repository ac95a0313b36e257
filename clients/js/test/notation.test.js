import assert from "node:assert/strict";
import { test } from "node:test";

import { Action, Card, NotationError, formatAction, parseAction } from "../src/index.js";

test("every notation of the table parses and prints back canonically", () => {
  const cases = {
    "t3>t5": "t3>t5", "t3>t5:9C": "t3>t5:9C", "t3>t5:10c": "t3>t5:TC", "waste>foundation": "waste>foundation",
    "t1>fH": "t1>fH", "fH>t4": "fH>t4", draw: "draw", recycle: "recycle", undo: "undo", "tap:t3": "tap:t3",
    "dtap:t3:9C": "dtap:t3:9C", "dtap:waste": "dtap:waste", "tap:waste:qs": "tap:waste:QS", "fS>stock": "fS>stock",
    "t1>waste": "t1>waste", "waste>waste": "waste>waste",
  };
  for (const [text, canonical] of Object.entries(cases)) {
    const action = Action.parse(text);
    assert.equal(String(action), canonical);
    assert.ok(Action.parse(canonical).equals(action));
    assert.equal(formatAction(parseAction(text)), canonical);
  }
});

test("anything else is a NotationError", () => {
  for (const text of ["", "DRAW", " draw", "T3>t5", "t3>t5:", "t8>t1", "fX>t1", "tap:", "tap:t3:", "dtap:stock",
    "tap:fH", "foundation>t1", "fH>t1:AH", "stock>waste", "t1>t2>t3", "t1>t2:AS:KS", "undo:t1", "fS>", ">t1"]) {
    assert.throws(() => Action.parse(text), NotationError, JSON.stringify(text));
  }
  assert.throws(() => Action.parse(/** @type {any} */ (null)), NotationError);
  assert.throws(() => Action.move("stock", "t1"), NotationError);
  assert.throws(() => Action.takeBack("foundation", "t1"), NotationError);
});

test("toJSON is the API's form of an action", () => {
  assert.deepEqual(Action.parse("t3>t5:9C").toJSON(), { action: "move", from: "t3", to: "t5", card: "9C" });
  assert.deepEqual(Action.parse("fH>t4").toJSON(), { action: "take-back", from: "fH", to: "t4" });
  assert.deepEqual(Action.parse("tap:waste").toJSON(), { action: "tap", from: "waste", double: false });
  assert.deepEqual(Action.draw().toJSON(), { action: "draw" });
  assert.deepEqual(Action.tap("t2", Card.parse("KS"), true).toJSON(), { action: "tap", from: "t2", card: "KS", double: true });
});

test("actions are frozen values", () => {
  const action = Action.move("t1", "foundation");
  assert.throws(() => { /** @type {any} */ (action).source = "t2"; }, TypeError);
  assert.equal(Action.draw(), Action.parse("draw"));
});
