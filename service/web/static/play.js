// The game being played: the local rules engine (the package in clients/js, served under
// /static/engine) and the record kept in localStorage — the game's id and token, its code,
// every action played on it and how many of them the server has. Every action is applied
// here first, at once; sync.js sends the ones the server has not seen yet.
//
// Data flows one way: this module changes the game and tells its listeners (app.js wires
// the view to them); it imports nothing of the view.

import { Game, replay } from "./engine/index.js";
import { keep, randomId, resumable, show } from "./store.js";
import { ui } from "./ui.js";

/**
 * @typedef {object} GameRecord
 * @property {string} lid the game's id on this device (store.js keys its record by it)
 * @property {string | null} id the server's id; null until the server has the game (dealt offline)
 * @property {string | null} token the game's own token (anonymous games)
 * @property {string} code
 * @property {number} startedAt ms since the epoch
 * @property {number | null} wonAt
 * @property {string[]} actions every action played, in the engine's notation
 * @property {number} synced how many of them the server has (its version, when the id is known)
 * @property {{key: string, base: number, actions: string[]} | null} sending the batch in flight
 *   (re-sent with the same Idempotency-Key until the server answers)
 */

/**
 * The game after `actions`: replayed from the code, or from the record's `base` state (a game
 * whose history does not give its answer: a position set up by an operator or a test).
 */
function build(data, actions) {
  if (!data.base) return replay(data.code, actions);
  const game = Game.fromState(data.base);
  for (const notation of actions) game.apply(notation);
  return game;
}

/** The server's version after the confirmed actions (what If-Match names). */
export function serverVersion(rec = record) {
  return rec ? (rec.offset || 0) + rec.synced : 0;
}

/** @type {Game | null} */
let engine = null;
/** @type {GameRecord | null} */
let record = null;
let last = null; // the last outcome, as the API's `last`
const listeners = new Set();

/** @param {(change: {kind: string, outcome?: any, previous?: any}) => void} listener */
export function onChange(listener) {
  listeners.add(listener);
}

export function current() {
  return record;
}

export function save() {
  if (!record) return;
  keep(record, { shown: true });
  show(record.lid);
}

// A record changed: the game on screen is redrawn; a game left behind (sync.js sends it
// in the background) is only stored.
function commit(rec, kind) {
  if (rec === record) changed(kind);
  else keep(rec);
}

function changed(kind, extra = {}) {
  const previous = ui.game;
  save();
  ui.game = record ? view() : null;
  for (const listener of listeners) listener({ kind, previous, ...extra });
}

// The game as the view draws it: the engine's rule-derived fields and the record's own.
function view() {
  const game = /** @type {Record<string, any>} */ (engine.view());
  game.id = record.id || "";
  game.token = record.token;
  game.created_at = new Date(record.startedAt).toISOString();
  game.finished_at = record.wonAt ? new Date(record.wonAt).toISOString() : null;
  game.last = last;
  game.pending = record.actions.length - record.synced;
  return game;
}

/** The record saved by an earlier visit, if it is one this page can replay. */
export function saved() {
  const data = resumable();
  if (!data || typeof data !== "object") return null;
  return data;
}

/** Replay a saved record (its code and actions); false when it cannot be replayed. */
export function restore(data) {
  if (typeof data.code !== "string" || !Array.isArray(data.actions)) return false;
  try {
    engine = build(data, data.actions);
  } catch {
    return false;
  }
  record = {
    base: data.base || null, offset: Number(data.offset) || 0, lid: data.lid || randomId(),
    id: data.id || null, token: data.token || null, code: data.code, startedAt: Number(data.startedAt) || Date.now(),
    wonAt: data.wonAt || null, actions: data.actions.map(String), synced: Math.min(Number(data.synced) || 0,
      data.actions.length), sending: data.sending || null, creating: data.creating || null,
  };
  last = null;
  changed("restored");
  return true;
}

/** A new game dealt locally from its code; the server learns of it from sync.js. */
export function deal(code, { id = null, token = null } = {}) {
  engine = Game.fromCode(code);
  record = {
    base: null, offset: 0, lid: randomId(),
    id, token, code: String(engine.code), startedAt: Date.now(), wonAt: null, actions: [], synced: 0, sending: null,
    creating: null,
  };
  last = null;
  changed("dealt");
}

/**
 * The server's game: its code, its actions (all of them) and its meta data. The local
 * actions the server does not have are dropped.
 */
export function adopt(meta, actions) {
  let base = null;
  engine = replay(meta.code, actions);
  if (meta.tableau && meta.version !== undefined && !agrees(meta, engine.view())) {
    engine = Game.fromJSON(meta); // the answer alone: its history does not give it
    base = engine.toState();
    actions = [];
  }
  record = {
    base, offset: base ? meta.version : 0, lid: record && record.id === meta.id ? record.lid : randomId(),
    id: meta.id, token: meta.token ?? record?.token ?? null, code: String(engine.code),
    startedAt: Date.parse(meta.created_at) || record?.startedAt || Date.now(),
    wonAt: engine.won ? (Date.parse(meta.finished_at) || Date.now()) : null,
    actions: actions.slice(), synced: actions.length, sending: null, creating: null,
  };
  last = null;
  changed("adopted");
}

/**
 * Apply one action (its notation) with the local engine; throws the engine's Rejection,
 * which changes nothing.
 */
export function play(notation) {
  const outcome = engine.apply(notation);
  record.actions.push(String(outcome.action));
  if (engine.won && !record.wonAt) record.wonAt = Date.now();
  last = outcome.toJSON();
  changed("played", { outcome });
  return outcome;
}

/** The legal actions now, in the server's order, in the API's JSON form. */
export function legalActions() {
  return engine ? engine.legalActions().map((action) => action.toJSON()) : [];
}

/** The actions the server has not confirmed yet (of the game on screen, or of `rec`). */
export function pending(rec = record) {
  return rec ? rec.actions.slice(rec.synced) : [];
}

/** The server now has `count` more actions (a batch answered 200, or a born-offline game created). */
export function confirmed(count, { id, token, created } = {}, rec = record) {
  if (id) rec.id = id;
  if (token) rec.token = token;
  if (created) rec.creating = null;
  rec.synced = Math.min(rec.actions.length, rec.synced + count);
  rec.sending = null;
  commit(rec, "synced");
}

/** Keep the batch in flight in the record, so that a reload re-sends it with the same key. */
export function setInFlight(field, batch, rec = record) {
  rec[field] = batch;
  if (rec === record) save();
  else keep(rec);
}

/** A game left behind takes the server's game: its actions the server refused are dropped. */
export function dropPending(rec) {
  rec.actions = rec.actions.slice(0, rec.synced);
  rec.sending = null;
  commit(rec, "adopted");
}

/**
 * The server has `serverActions` after our base: replay them, then our pending actions on
 * top when every one still applies (true); else the server's game alone (false).
 */
export function rebase(serverActions, rec = record) {
  const base = rec.actions.slice(0, rec.synced).concat(serverActions);
  const mine = pending(rec);
  let game;
  try {
    game = build(rec, base);
  } catch {
    if (rec !== record) dropPending(rec);
    return false;
  }
  let applied = true;
  for (const notation of mine) {
    try {
      game.apply(notation);
    } catch {
      applied = false;
      break;
    }
  }
  if (!applied) game = build(rec, base);
  rec.actions = applied ? base.concat(mine) : base;
  rec.synced = base.length;
  rec.sending = null;
  rec.wonAt = game.won ? rec.wonAt || Date.now() : null;
  if (rec !== record) {
    keep(rec);
    return applied;
  }
  engine = game;
  last = null;
  changed(applied ? "rebased" : "adopted");
  return applied;
}

/** Drop the local actions after `keep` (the server refused the next one). */
export function truncate(count, rec = record) {
  rec.actions = rec.actions.slice(0, count);
  rec.synced = Math.min(rec.synced, count);
  const game = build(rec, rec.actions);
  rec.wonAt = game.won ? rec.wonAt : null;
  if (rec !== record) {
    keep(rec);
    return;
  }
  engine = game;
  last = null;
  changed("adopted");
}

/** True when a server's answer has the local game's rule-derived fields. */
export function agrees(answer, local = ruleView()) {
  if (!answer || !local) return true;
  return ["version", "score", "moves", "status", "stock"].every((key) => answer[key] === local[key])
    && JSON.stringify(answer.tableau) === JSON.stringify(local.tableau)
    && JSON.stringify(answer.waste) === JSON.stringify(local.waste);
}

/** The local game's rule-derived fields (to compare with a server's answer). */
export function ruleView() {
  return engine ? engine.view() : null;
}
