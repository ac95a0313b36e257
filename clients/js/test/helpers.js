// Positions built by hand, as states both engines read (the stock holds every other card).
import { CARDS, Game } from "../src/index.js";

/**
 * @param {{tableau?: string[][], waste?: string[], foundations?: number[], score?: number,
 *   stock?: string[], code?: string, fan?: number}} position
 */
export function position({ tableau = [[], [], [], [], [], [], []], waste = [], foundations = [0, 0, 0, 0], score = 0,
  stock, code = "TF1-D1N-AAAAAAA", fan = 0 }) {
  const used = new Set([...tableau.flat(), ...waste]);
  foundations.forEach((count, suit) => {
    for (let rank = 0; rank < count; rank++) used.add(String(CARDS[suit * 13 + rank]));
  });
  let arrived = 0;
  foundations.forEach((count, suit) => {
    for (let rank = 0; rank < count; rank++) arrived += 2 ** (suit * 13 + rank);
  });
  return Game.fromState({
    v: 1, code, tableau, stock: stock ?? CARDS.map(String).filter((name) => !used.has(name)), waste, waste_fan: fan,
    foundations, score, moves: 0, undos: 0, arrived, undo_stack: [], undo_dropped: false,
  });
}

/**
 * The rejection `fn` throws, as `{code, params}`.
 * @param {() => unknown} fn
 */
export function refusal(fn) {
  try {
    fn();
  } catch (error) {
    const { code, params } = /** @type {any} */ (error);
    return { code, params };
  }
  throw new Error("not refused");
}
