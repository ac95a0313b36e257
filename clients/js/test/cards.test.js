import assert from "node:assert/strict";
import { test } from "node:test";

import { CARDS, COLUMNS, Card, FOUNDATIONS, NotationError, Pile } from "../src/index.js";

test("cards parse in any case, with T or 10, and print canonically", () => {
  for (const text of ["10h", "th", "TH", "Th", "10H"]) assert.equal(String(Card.parse(text)), "TH");
  assert.equal(Card.parse("ks"), CARDS[12]);
  assert.equal(Card.parse("AS").index, 0);
  assert.equal(Card.parse("KC").index, 51);
  const seven = Card.parse("7d");
  assert.deepEqual([seven.rank, seven.suit, seven.suitIndex, seven.isRed], [7, "D", 2, true]);
  assert.equal(JSON.stringify([seven]), '["7D"]');
  assert.ok(Card.parse("2S") < Card.parse("3S"), "cards compare by index, as the server's integers");
});

test("text that is not one of the 52 cards is a NotationError, non-ASCII lookalikes included", () => {
  for (const text of ["", "1H", "11H", "KX", "TH ", " TH", "ᴋs", "ſ", "ks\u0307", "10♥", "AS2"]) {
    assert.throws(() => Card.parse(text), NotationError, text);
  }
  assert.throws(() => Card.parse(/** @type {any} */ (12)), NotationError);
  assert.throws(() => new Card(/** @type {any} */ (Symbol("x")), 3), TypeError);
});

test("Card.of and the fixed order of piles", () => {
  assert.equal(Card.of(1, "H"), Card.parse("AH"));
  assert.equal(Card.of(13, "C"), Card.parse("KC"));
  assert.throws(() => Card.of(14, "C"), RangeError);
  assert.throws(() => Card.of(1, "X"), RangeError);
  assert.deepEqual([...COLUMNS], ["t1", "t2", "t3", "t4", "t5", "t6", "t7"]);
  assert.deepEqual([...FOUNDATIONS], ["fS", "fH", "fD", "fC"]);
});

test("pile names are exact", () => {
  assert.equal(Pile.parse("t3"), Pile.T3);
  assert.equal(Pile.parse("foundation"), Pile.FOUNDATION);
  for (const text of ["T3", "t8", "fs", "Waste", "", " t1"]) assert.throws(() => Pile.parse(text), NotationError);
  assert.ok(Pile.isColumn("t7") && !Pile.isColumn("waste"));
  assert.ok(Pile.isFoundation("fH") && Pile.isFoundation("foundation") && !Pile.isFoundation("t1"));
});
