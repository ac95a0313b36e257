// Where the games live on the device, so that nothing played is lost between games, reloads
// and tabs. A leaf beside ui.js: it knows records, not rules.
//
// * `sr.games.<lid>` (localStorage): one record per game with something the server does not
//   have yet (pending actions, a game dealt offline not created yet, a batch in flight), keyed
//   by the game's local id (`lid`, made at the deal: a game dealt offline has no server id).
//   Removed once the server has everything. Every tab reads them: sync.js sends them all,
//   oldest first, whatever game is on screen. At most MAX_UNSENT are kept (sync.js drops the
//   oldest one no tab shows past it, and tells the player).
// * `sr.game` (localStorage): the record of the game last shown in any tab (a new tab resumes it).
// * `sr.tab` (sessionStorage): this tab's own game, so that a reload resumes the game this tab
//   showed even when another tab played another one since.
//
// Locks (Web Locks, where the browser has them): a tab showing a game holds `sr.game.<lid>`
// shared; a tab sends a game it does not show only under that lock exclusive and only if it is
// free at once (`ifAvailable`). So a game is sent by the tabs showing it, or by one other tab,
// never by a tab behind the back of one that shows it; a batch keeps its Idempotency-Key in the
// record, so a batch re-sent after a tab closed mid-request is replayed by the server, not applied twice.

import { KEYS, storageGet, storageSet } from "./ui.js";

/** At most this many games with unsent actions are kept on the device. */
export const MAX_UNSENT = 20;
const PREFIX = "sr.games.";
const TAB = "sr.tab";

/** A random id: a game's local id, a batch's Idempotency-Key. */
export function randomId() {
  return globalThis.crypto && crypto.randomUUID ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/** True while the server lacks something of the record. */
export function unsent(record) {
  return Boolean(!record.id || record.synced < record.actions.length || record.sending || record.creating);
}

let dirty = true; // the stored records changed since `others` was counted
let cache = { lid: null, waiting: 0, unsent: 0 };

/** Keep the record where a reload, another tab or a later visit finds it. */
export function keep(record, { shown = false } = {}) {
  if (!record.lid) record.lid = randomId();
  const key = PREFIX + record.lid;
  const text = JSON.stringify(record);
  try {
    if (unsent(record)) localStorage.setItem(key, text);
    else if (localStorage.getItem(key) !== null) localStorage.removeItem(key);
    if (shown) localStorage.setItem(KEYS.game, text);
  } catch { /* private mode or full: the page still plays, it just forgets */ }
  try {
    if (shown) sessionStorage.setItem(TAB, text);
  } catch { /* the same */ }
  if (!shown) {
    dirty = true;
    if (storageGet(KEYS.game)?.lid === record.lid) storageSet(KEYS.game, record);
  }
}

/** A stored game's record, or null. */
export function load(lid) {
  const record = storageGet(PREFIX + lid);
  return record && typeof record === "object" && Array.isArray(record.actions) ? record : null;
}

/** Every stored game's record, oldest first. */
export function stored() {
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key && key.startsWith(PREFIX)) {
      const record = load(key.slice(PREFIX.length));
      if (record) out.push({ ...record, lid: key.slice(PREFIX.length) });
    }
  }
  return out.sort((a, b) => (Number(a.startedAt) || 0) - (Number(b.startedAt) || 0));
}

export function drop(lid) {
  storageSet(PREFIX + lid, null);
  dirty = true;
}

/** The actions and games waiting in other games than `lid` (the indicator counts them too). */
export function others(lid) {
  if (dirty || cache.lid !== lid) {
    let waiting = 0;
    let count = 0;
    for (const record of stored()) {
      if (record.lid === lid) continue;
      waiting += Math.max(0, record.actions.length - (Number(record.synced) || 0));
      count += 1;
    }
    cache = { lid, waiting, unsent: count };
    dirty = false;
  }
  return cache;
}

/** Another tab changed a stored game (the `storage` event). */
export function touched() {
  dirty = true;
}

/** The record this tab showed last (a reload resumes it), else the one any tab showed last. */
export function resumable() {
  let own = null;
  try {
    own = JSON.parse(sessionStorage.getItem(TAB) || "null");
  } catch { /* none */ }
  const last = storageGet(KEYS.game);
  const pick = own && typeof own === "object" ? own : last;
  if (!pick || typeof pick !== "object") return null;
  // the stored copy is the freshest: a tab that sent it in the background wrote there
  return (pick.lid && load(pick.lid)) || pick;
}

const locks = globalThis.navigator && navigator.locks;
let showing = { lid: null, held: Promise.resolve(), release: () => {} };

/** This tab shows `lid` now: hold its lock shared (resolves once held, or at once without locks). */
export function show(lid) {
  if (!locks) return Promise.resolve();
  if (showing.lid === lid) return showing.held;
  showing.release();
  let release = null;
  let released = false;
  const entry = {
    lid,
    held: Promise.resolve(),
    release: () => {
      released = true;
      if (release) release();
    },
  };
  entry.held = new Promise((resolve) => {
    locks.request(`sr.game.${lid}`, { mode: "shared" }, () => {
      resolve();
      return released ? undefined : new Promise((r) => { release = r; });
    }).catch(() => resolve());
  });
  showing = entry;
  return entry.held;
}

/**
 * Run `send` for a game no tab shows, under its lock exclusive; false (without running it)
 * when a tab shows the game or another tab is sending it.
 */
export async function whileFree(lid, send) {
  if (!locks) {
    await send();
    return true;
  }
  return locks.request(`sr.game.${lid}`, { ifAvailable: true }, async (lock) => {
    if (!lock) return false;
    await send();
    return true;
  });
}

/** The lids of the games shown in some tab (held locks), when the browser can tell. */
export async function shownAnywhere() {
  if (!locks || !locks.query) return new Set(showing.lid ? [showing.lid] : []);
  const state = await locks.query();
  return new Set((state.held || []).map((lock) => lock.name)
    .filter((name) => name && name.startsWith("sr.game.")).map((name) => name.slice(8)));
}
