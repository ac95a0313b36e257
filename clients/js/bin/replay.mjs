#!/usr/bin/env node
// The conformance runner: JSONL games on stdin, JSONL results on stdout, one line per
// non-blank input line, streamed (a line is answered as soon as it is read).
//
//   in:  {"code": "TF1-D1N-AAAAAAB", "actions": ["draw", "t1>fH", …]}
//   out: {"results": [{"ok": true, "game": {…}} | {"ok": false, "code": "…", "params": {…}}, …]}
//        or {"error": {"code": "INVALID_GAME_CODE" | "INVALID_REQUEST", "params": {…}}}
//
// Nothing else is written on stdout; a line longer than MAX_LINE_CHARS is answered with
// INVALID_REQUEST without being held in memory. README.md and docs/CLIENTS.md say more.
import { MAX_LINE_CHARS, answerLine } from "../src/conformance.js";

if (process.argv.length > 2) {
  process.stderr.write("usage: node replay.mjs < games.jsonl > results.jsonl\n");
  process.exit(process.argv[2] === "--help" || process.argv[2] === "-h" ? 0 : 2);
}

let pending = ""; // the current line so far
let skipping = false; // past MAX_LINE_CHARS: the rest of the line is dropped

/** @param {string} line */
function answer(line) {
  if (line.endsWith("\r")) line = line.slice(0, -1);
  if (!line.trim()) return true;
  return process.stdout.write(`${JSON.stringify(answerLine(line))}\n`);
}

/** @param {string} chunk */
function take(chunk) {
  let flowing = true;
  let start = 0;
  for (let end = chunk.indexOf("\n"); end >= 0; end = chunk.indexOf("\n", start)) {
    const piece = chunk.slice(start, end);
    start = end + 1;
    if (skipping) {
      skipping = false;
      flowing = process.stdout.write(`${JSON.stringify(answerLine("x".repeat(MAX_LINE_CHARS + 1)))}\n`) && flowing;
    } else {
      flowing = answer(pending + piece) && flowing;
    }
    pending = "";
  }
  if (!skipping) {
    pending += chunk.slice(start);
    if (pending.length > MAX_LINE_CHARS) {
      skipping = true;
      pending = "";
    }
  }
  return flowing;
}

process.stdout.on("error", (error) => {
  // the reader went away (`| head`): stop quietly
  if (/** @type {NodeJS.ErrnoException} */ (error).code === "EPIPE") process.exit(0);
  throw error;
});
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  if (!take(/** @type {string} */ (chunk))) {
    process.stdin.pause();
    process.stdout.once("drain", () => process.stdin.resume());
  }
});
process.stdin.on("end", () => {
  if (skipping) process.stdout.write(`${JSON.stringify(answerLine("x".repeat(MAX_LINE_CHARS + 1)))}\n`);
  else answer(pending);
});
