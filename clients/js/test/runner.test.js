// bin/replay.mjs: one answer line per game line, streamed, nothing else on stdout.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { MAX_LINE_CHARS, answerLine, replay } from "../src/index.js";

const RUNNER = fileURLToPath(new URL("../bin/replay.mjs", import.meta.url));

/** @param {string} input */
async function run(input) {
  const child = spawn(process.execPath, [RUNNER], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => { out += chunk; });
  child.stderr.setEncoding("utf8").on("data", (chunk) => { err += chunk; });
  child.stdin.end(input);
  const [code] = await once(child, "close");
  return { code, out, err };
}

test("each game line gets its results; rejected and malformed actions change nothing", async () => {
  const game = { code: "TF1-D1N-AAAAAAB", actions: ["draw", "t1>t1", "bogus", "undo", "undo"] };
  const { code, out, err } = await run(`${JSON.stringify(game)}\n`);
  assert.equal(code, 0);
  assert.equal(err, "");
  const { results } = JSON.parse(out);
  assert.equal(results.length, 5);
  assert.deepEqual(results[0], { ok: true, game: replay(game.code, ["draw"]).toJSON() });
  assert.deepEqual(results[1], { ok: false, code: "SAME_PILE", params: { pile: "t1" } });
  assert.deepEqual(results[2], { ok: false, code: "INVALID_REQUEST", params: { notation: "bogus" } });
  assert.equal(results[3].game.version, 2);
  assert.deepEqual(results[4], { ok: false, code: "NOTHING_TO_UNDO", params: {} });
});

test("bad lines: one error line each, in order; blank lines are skipped", async () => {
  const input = [
    '{"code": "TF1-D9N-AAAAAAB", "actions": ["draw"]}',
    "not json",
    "",
    "   ",
    '["a list"]',
    '{"code": 12, "actions": []}',
    '{"code": "TF1-D1N-AAAAAAB", "actions": ["draw", 3]}',
    '{"code": "TF1-D1N-AAAAAAB"}',
    '{"code": "TF1-D1N-AAAAAAB", "actions": [], "results": "ignored"}\r',
  ].join("\n");
  const { code, out } = await run(input);
  assert.equal(code, 0);
  const lines = out.trimEnd().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(lines, [
    { error: { code: "INVALID_GAME_CODE", params: { code: "TF1-D9N-AAAAAAB" } } },
    { error: { code: "INVALID_REQUEST", params: { reason: "not JSON" } } },
    { error: { code: "INVALID_REQUEST", params: { reason: "not a JSON object" } } },
    { error: { code: "INVALID_REQUEST", params: { reason: "no string code" } } },
    { error: { code: "INVALID_REQUEST", params: { reason: "no list of string actions" } } },
    { error: { code: "INVALID_REQUEST", params: { reason: "no list of string actions" } } },
    { results: [] },
  ]);
});

test("a line over the limit is refused without being held, and the next line is read", async () => {
  const long = `{"code": "TF1-D1N-AAAAAAB", "actions": ["${"draw".repeat(MAX_LINE_CHARS / 4)}"]}`;
  const { out } = await run(`${long}\n{"code": "TF1-D1N-AAAAAAB", "actions": []}\n${long}`);
  assert.deepEqual(out.trimEnd().split("\n").map((line) => JSON.parse(line)), [
    { error: { code: "INVALID_REQUEST", params: { reason: "line too long", limit: MAX_LINE_CHARS } } },
    { results: [] },
    { error: { code: "INVALID_REQUEST", params: { reason: "line too long", limit: MAX_LINE_CHARS } } },
  ]);
  assert.deepEqual(answerLine("x".repeat(MAX_LINE_CHARS + 1)), JSON.parse(out.split("\n")[0]));
});

test("answers stream: a line is answered before the input ends", async () => {
  const child = spawn(process.execPath, [RUNNER], { stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.write('{"code": "TF1-D3N-AAAAAAB", "actions": ["draw"]}\n');
  const [chunk] = await once(child.stdout.setEncoding("utf8"), "data");
  assert.equal(JSON.parse(chunk).results[0].game.stock, 21);
  child.stdin.end();
  await once(child, "close");
});
