// The JS side of bench/engine_js: apply+undo pairs on the positions Python wrote, timed on
// this process's CPU clock, one round per "round REPS" line read on stdin, one JSON answer each.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { Action, Game } from "../../clients/js/src/index.js";

const UNDO = Action.undo();
const positions = JSON.parse(readFileSync(process.argv[2], "utf8")).map(({ state, actions }) => ({
  game: Game.fromState(state),
  actions: actions.map((notation) => Action.parse(notation)),
}));

/** @param {number} reps */
function round(reps) {
  let pairs = 0;
  const start = process.cpuUsage();
  for (let rep = 0; rep < reps; rep++) {
    for (const { game, actions } of positions) {
      for (const action of actions) {
        game.apply(action);
        game.apply(UNDO);
      }
      pairs += actions.length;
    }
  }
  const spent = process.cpuUsage(start);
  return { pairs, seconds: (spent.user + spent.system) / 1e6 };
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, reps] = line.split(" ");
  if (command === "round") process.stdout.write(`${JSON.stringify(round(Number(reps)))}\n`);
  else if (command === "views") process.stdout.write(`${JSON.stringify(positions.map(({ game }) => game.toJSON()))}\n`);
}
