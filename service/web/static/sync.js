// Sending the actions played locally to the server: in batches (POST /v1/games/{id}/actions,
// If-Match = the version they start from, one Idempotency-Key per batch, re-sent with the
// same key until the server answers), after a short idle time, when the page is hidden and
// when the network returns. A game dealt offline is created with its actions in one request
// (POST /v1/games with `actions`). The server judges: on 412 the page replays the server's
// new actions and its own on top when they still apply; on 422 or 409 it takes the server's
// game. What happened is told through onNotice; the indicator through onStatus.
//
// Every game with something unsent is sent, oldest first, whatever game is on screen: the
// game shown here from memory, the games left behind (a new game dealt, another tab closed)
// from their records in store.js, each under its Web Lock so that no two tabs send one.

import { request } from "./api.js";
import {
  adopt, agrees, confirmed, current, dropPending, pending, rebase, serverVersion, setInFlight, truncate,
} from "./play.js";
import {
  MAX_UNSENT, drop, keep, load, others, randomId, shownAnywhere, stored, touched, whileFree,
} from "./store.js";
import { t, ui } from "./ui.js";

export const IDLE_MS = 300;       // after the last action, before a batch goes
const RETRY_MS = [1000, 3000, 10000, 30000];
const MAX_BATCH = 500;
const BUSY_MS = 5000;     // a game left behind that another tab shows or sends: looked at again after this

let timer = null;
let busyTimer = null;
let running = null;     // the flush under way (a promise)
let again = false;      // something changed while a flush was under way
let failures = 0;
let status = "synced";  // synced | waiting | offline
let stopped = false;    // this pass met a network or server failure: the rest waits for the retry
const statusListeners = new Set();
const noticeListeners = new Set();

/** @param {(status: string, waiting: number) => void} listener */
export function onStatus(listener) {
  statusListeners.add(listener);
}

/** @param {(key: string, vars?: object) => void} listener the key of a string (strings.js) to show the player */
export function onNotice(listener) {
  noticeListeners.add(listener);
}

function notice(key, vars = {}) {
  for (const listener of noticeListeners) listener(key, vars);
}

function setStatus(next) {
  status = next;
  report();
}

/** Tell the indicator where things stand (after every local action too). */
export function report() {
  const record = current();
  const elsewhere = others(record ? record.lid : null); // the games left behind, in any tab
  const waiting = pending().length + elsewhere.waiting;
  const unsent = waiting > 0 || Boolean(record && !record.id) || elsewhere.unsent > 0;
  const shown = status === "offline" ? "offline" : unsent ? "waiting" : "synced";
  for (const listener of statusListeners) listener(shown, waiting);
}

export function isOffline() {
  return status === "offline" || navigator.onLine === false;
}

/** Send what is pending after the idle time (every local action calls this). */
export function schedule(delay = IDLE_MS) {
  clearTimeout(timer);
  report();
  timer = setTimeout(flush, delay);
}

/** Send everything pending now; resolves when the server has it all, or sending stopped. */
export function flush({ keepalive = false } = {}) {
  clearTimeout(timer);
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    try {
      do {
        again = false;
        await pass(keepalive);
      } while (again);
    } finally {
      running = null;
    }
  })();
  return running;
}

// Every game with something unsent, oldest first: the one on screen from memory, the others
// from the store under their lock. Past MAX_UNSENT games the oldest ones no tab shows are dropped.
async function pass(keepalive) {
  stopped = false;
  await prune();
  const record = current();
  const games = stored().filter((game) => !record || game.lid !== record.lid);
  if (record) games.push(record);
  games.sort((a, b) => (Number(a.startedAt) || 0) - (Number(b.startedAt) || 0));
  let busy = false;
  for (const game of games) {
    if (stopped) return;
    if (game === record) {
      while (current() === record && await step(record, keepalive)) { /* one request a step */ }
    } else if (!(await whileFree(game.lid, () => sendStored(game.lid, keepalive)))) {
      busy = true; // shown in another tab (which sends it) or being sent by one
    }
  }
  clearTimeout(busyTimer);
  if (busy && !stopped) busyTimer = setTimeout(flush, BUSY_MS);
  report();
}

async function sendStored(lid, keepalive) {
  const record = load(lid);
  if (!record) return;
  record.lid = lid;
  while (!stopped && await step(record, keepalive)) { /* one request a step */ }
  keep(record); // gone from the store once the server has it all
}

async function prune() {
  const games = stored();
  if (games.length <= MAX_UNSENT) return;
  const shown = await shownAnywhere();
  const record = current();
  let dropped = 0;
  for (const game of games) { // oldest first
    if (games.length - dropped <= MAX_UNSENT) break;
    if (shown.has(game.lid) || (record && game.lid === record.lid)) continue;
    drop(game.lid);
    dropped += 1;
  }
  if (dropped) notice("syncDropped", { n: dropped, max: MAX_UNSENT });
}

export function api(method, path, body, headers, keepalive = false, record = current()) {
  return request(method, path, {
    body, headers, keepalive, lang: ui.lang, token: record && record.token, offline: t("networkError"),
  });
}

// One request for `record` (the game on screen, or one left behind); true when there may be more to send.
async function step(record, keepalive) {
  if (!record) return false;
  if (!record.id) return create(record, keepalive);
  if (record.sending && record.sending.base !== serverVersion(record)) setInFlight("sending", null, record);
  if (!record.sending) {
    const actions = pending(record).slice(0, MAX_BATCH);
    if (!actions.length) {
      setStatus("synced");
      return false;
    }
    setInFlight("sending", { key: randomId(), base: serverVersion(record), actions }, record);
  }
  const batch = record.sending;
  try {
    const answer = await sendBatch(record, batch, keepalive);
    failures = 0;
    confirmed(batch.actions.length, {}, record); // a game left meanwhile: its stored record
    setStatus("synced");
    if (record === current() && !pending().length && !agrees(answer)) await adoptServer("adoptedRejected");
    return pending(record).length > 0;
  } catch (err) {
    return refused(err, record);
  }
}

let batchEndpoint = true; // false once the server answered 404/405: a server older than the batch endpoint

// One batch: POST /v1/games/{id}/actions; on a server without it, the actions one by one
// through the single-action endpoints (each with If-Match and its own key derived from the batch's).
async function sendBatch(record, batch, keepalive) {
  const id = encodeURIComponent(record.id);
  if (batchEndpoint) {
    try {
      return await api("POST", `/games/${id}/actions`, { actions: batch.actions },
        { "If-Match": `"${batch.base}"`, "Idempotency-Key": batch.key }, keepalive, record);
    } catch (err) {
      if (!(err.status === 405 || (err.status === 404 && err.code !== "GAME_NOT_FOUND"))) throw err;
      batchEndpoint = false;
    }
  }
  let answer = null;
  for (let i = 0; i < batch.actions.length; i++) {
    const [path, body] = singleRequest(batch.actions[i]);
    try {
      answer = await api("POST", `/games/${id}/${path}`, body,
        { "If-Match": `"${batch.base + i}"`, "Idempotency-Key": `${batch.key}.${i}` }, keepalive, record);
    } catch (err) {
      if (i > 0) {
        // the first i are stored: confirmed, the rest is a new batch
        confirmed(i, {}, record);
        if (err.problem && err.problem.params) err.problem.params.index = 0;
      }
      throw err;
    }
  }
  return answer;
}

// An action's notation as the single-action endpoint's path and body.
function singleRequest(notation) {
  if (notation === "draw" || notation === "recycle" || notation === "undo") return [notation, {}];
  const tap = /^(d?)tap:([^:]+)(?::(.+))?$/.exec(notation);
  if (tap) return ["tap", { from: tap[2], ...(tap[3] ? { card: tap[3] } : {}), double: tap[1] === "d" }];
  const [from, rest] = notation.split(">");
  const [to, card] = rest.split(":");
  if (from.startsWith("f")) return ["take-back", { from, to }];
  return ["moves", { from, to, ...(card ? { card } : {}) }];
}

async function create(record, keepalive) {
  if (!record.creating) {
    const actions = pending(record).slice(0, MAX_BATCH);
    const body = { code: record.code };
    if (actions.length) {
      body.actions = actions;
      body.client = {
        started_at: new Date(record.startedAt).toISOString(),
        seconds: Math.max(0, Math.round(((record.wonAt || Date.now()) - record.startedAt) / 1000)),
      };
    }
    setInFlight("creating", { key: randomId(), body }, record);
  }
  const { key, body } = record.creating;
  try {
    const game = await api("POST", "/games", body, { "Idempotency-Key": key }, keepalive, record);
    failures = 0;
    confirmed((body.actions || []).length, { id: game.id, token: game.token, created: true }, record);
    setStatus("synced");
    return pending(record).length > 0;
  } catch (err) {
    const index = err.problem?.params?.index;
    if (err.status === 422 && Number.isInteger(index)) {
      // the server refuses one of the actions played offline: the game is created without it and what follows
      setInFlight("creating", null, record);
      truncate(index, record);
      notice(record === current() ? "adoptedRejected" : "leftRejected");
      return true;
    }
    if (err.status === 422 && err.code === "IDEMPOTENCY_KEY_REUSED") {
      setInFlight("creating", null, record);
      return true;
    }
    if (err.status === 400 && body.actions) {
      // a server older than born-offline games: create the game alone, its actions follow in batches
      setInFlight("creating", { key: randomId(), body: { code: record.code } }, record);
      return true;
    }
    return retryLater(err);
  }
}

async function refused(err, record) {
  const problem = err.problem || {};
  const params = problem.params || {};
  if (err.status === 412) {
    const version = params.version ?? problem.version ?? params.current;
    let actions = params.actions ?? problem.actions;
    if (!Array.isArray(actions) || actions.length !== version - serverVersion(record)) {
      actions = (await history(record.id, record)).slice(serverVersion(record));
    }
    catchUp(record, actions);
    return true;
  }
  if (err.status === 422 && err.code === "IDEMPOTENCY_KEY_REUSED") {
    setInFlight("sending", null, record);
    return true;
  }
  if (err.status === 422 || err.status === 409) {
    await adoptServer(record === current() ? "adoptedRejected" : "leftRejected", record);
    return true;
  }
  if (err.status === 404) {
    // the server lost the game: create it again from its code and every action
    if (record.base) return retryLater(err); // a set-up position cannot be dealt again
    record.id = null;
    record.synced = 0;
    record.sending = null;
    setInFlight("creating", null, record);
    return true;
  }
  return retryLater(err);
}

function retryLater(err) {
  failures += 1;
  if (err.status === 0 || err.status >= 500 || err.status === 429) {
    // no network, or the write limit: the other games wait too (a 5xx of one game does not stop the others)
    if (err.status === 0 || err.status === 429) stopped = true;
    if (err.status === 0) setStatus("offline");
    const wait = RETRY_MS[Math.min(failures - 1, RETRY_MS.length - 1)];
    clearTimeout(timer);
    timer = setTimeout(flush, wait);
  } else {
    notice("networkError");
  }
  return false;
}

// The server has `actions` after our base. As many of them as begin like our pending ones
// are ours (a batch whose answer was lost, or sent by another tab from the stored record):
// confirmed, never applied twice. The rest are someone else's.
function catchUp(record, actions) {
  const mine = pending(record);
  let same = 0;
  while (same < mine.length && same < actions.length && mine[same] === actions[same]) same += 1;
  if (same) confirmed(same, {}, record);
  actions = actions.slice(same);
  if (!actions.length) return;
  const applied = rebase(actions, record);
  if (record === current()) notice(applied ? "rebased" : "adoptedConflict");
  else if (!applied) notice("leftRejected");
}

/** On load: catch up with what the server has (another tab or device may have played), then send. */
export async function check() {
  const record = current();
  if (record && record.id) {
    try {
      const game = await api("GET", `/games/${encodeURIComponent(record.id)}`);
      if (game.version > serverVersion()) catchUp(record, (await history(record.id)).slice(serverVersion()));
      else if (game.version < serverVersion()) await adoptServer("adoptedRejected");
    } catch (err) {
      if (err.status === 404 && !record.base) {
        record.id = null;
        record.synced = 0;
        setInFlight("sending", null);
      } else if (err.status === 0) {
        setStatus("offline");
      }
    }
  }
  return flush();
}

/** Every notation of the game's history on the server, page by page. */
export async function history(id, record = current()) {
  const out = [];
  let cursor = null;
  do {
    const query = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await api("GET", `/games/${encodeURIComponent(id)}/actions?${query}`, undefined, undefined,
      false, record);
    for (const item of page.items) out.push(item.notation);
    cursor = page.next || null;
    if (cursor && cursor.includes("cursor=")) cursor = new URL(cursor, location.href).searchParams.get("cursor");
  } while (cursor);
  return out;
}

/**
 * The server's game replaces the local one (its history replayed by the local engine); a game
 * left behind only drops what the server refused (it is no longer on the device once sent).
 */
export async function adoptServer(noticeKey, record = current()) {
  if (record !== current()) {
    dropPending(record);
    if (noticeKey) notice(noticeKey);
    return;
  }
  const game = await api("GET", `/games/${encodeURIComponent(record.id)}`);
  const actions = await history(record.id);
  adopt({ ...game, token: record.token }, actions);
  if (noticeKey) notice(noticeKey);
}

export function wire() {
  window.addEventListener("online", () => {
    failures = 0;
    setStatus("waiting");
    flush();
  });
  window.addEventListener("offline", () => setStatus("offline"));
  window.addEventListener("storage", (event) => {
    // another tab stored or sent a game: the indicator counts every game's waiting actions
    if (event.key === null || event.key.startsWith("sr.games.")) {
      touched();
      report();
    }
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flush({ keepalive: true });
  });
}
