import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { DEAL_COUNT, GameCode, Rejection, dealCards, shuffledDeck } from "../src/index.js";

const PINNED = JSON.parse(readFileSync(new URL("../../../tests/engine/deal_vectors.json", import.meta.url), "utf8"));

test("the server's pinned deals, the largest deal number included", () => {
  assert.ok(Object.keys(PINNED).includes("TF1-D1N-ZZZZZZZ"));
  for (const [code, { tableau, stock }] of Object.entries(PINNED)) {
    const [columns, talon] = dealCards(GameCode.parse(code).deal);
    assert.deepEqual(columns.map((column) => column.map(String)), tableau, code);
    assert.deepEqual(talon.map(String), stock, code);
  }
});

test("a deck holds each card once", () => {
  for (const deal of [0, 1, 12345, DEAL_COUNT - 1]) assert.equal(new Set(shuffledDeck(deal)).size, 52);
  assert.throws(() => shuffledDeck(DEAL_COUNT), RangeError);
  assert.throws(() => shuffledDeck(-1), RangeError);
});

test("codes parse in any case and print canonically", () => {
  const code = GameCode.parse("tf1-d3n-aaaaaab");
  assert.deepEqual([String(code), code.draw, code.deal, code.scoring], ["TF1-D3N-AAAAAAB", 3, 1, "N"]);
  assert.equal(GameCode.parse("TF1-D1N-ZZZZZZZ").deal, DEAL_COUNT - 1);
  assert.ok(GameCode.parse("TF1-D1N-BAAAAAA").equals(new GameCode(1, 26 ** 6)));
  assert.equal(JSON.stringify({ code }), '{"code":"TF1-D3N-AAAAAAB"}');
  assert.throws(() => new GameCode(2, 1), RangeError);
});

test("anything else is INVALID_GAME_CODE with the first 64 code points as params.code", () => {
  const bad = ["", "TF1-D2N-AAAAAAB", "TF1-D1X-AAAAAAB", "TF1-D1N-AAAAAA", "tf1-d1n-aaaaaaſ", "TF1-D1N-AAAAAAB\n",
    "ＴＦ1-D1N-AAAAAAB", "x".repeat(100), "🂡".repeat(70)];
  for (const text of bad) {
    assert.throws(() => GameCode.parse(text), (error) => {
      assert.ok(error instanceof Rejection);
      assert.equal(error.code, "INVALID_GAME_CODE");
      assert.deepEqual(error.params, { code: Array.from(text).slice(0, 64).join("") });
      return true;
    }, JSON.stringify(text));
  }
  assert.equal(/** @type {any} */ (tryParse("🂡".repeat(70))).params.code.length, 128, "64 astral code points");
});

test("random codes are valid codes", () => {
  const code = GameCode.random(3);
  assert.equal(code.draw, 3);
  assert.ok(GameCode.parse(String(code)).equals(code));
});

/** @param {string} text */
function tryParse(text) {
  try {
    GameCode.parse(text);
  } catch (error) {
    return error;
  }
  return null;
}
