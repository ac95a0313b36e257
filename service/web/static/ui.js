// The page's settings (kept in localStorage), the view's own state (selection, drag, a
// pending tap) and the page's strings. A leaf: it imports no other module of the page,
// so every module may read it and data still flows one way (engine → game → view).

import { STRINGS } from "./strings.js";

export const LANGS = ["en", "de", "da", "ro", "ja"];

export const KEYS = {
  game: "sr.game", lang: "sr.lang", rules: "sr.showRules", draw: "sr.draw", doubleClick: "sr.doubleClick",
};

export function storageGet(key, fallback = null) {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

export function storageSet(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch { /* private mode: the page still works, it just forgets */ }
}

function initialLang() {
  const saved = storageGet(KEYS.lang);
  if (LANGS.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

export const ui = {
  lang: initialLang(),
  showRules: storageGet(KEYS.rules, true) !== false,   // "Interactive rules"
  doubleClick: storageGet(KEYS.doubleClick, true) !== false,  // off: a single tap acts at once
  game: null,        // the game as the view draws it: the local engine's view and the record's fields
  pendingTap: null,  // {pile, card, timer} while waiting for a possible second tap
  drag: null,
  celebrated: null,  // id of the game whose win was celebrated on this page
  hint: null,        // {action, version}: the hinted action, highlighted until the game moves on
  selection: null,   // {pile, card}: the card (and the cards on it) chosen with the keyboard
  animate: true,     // false for the render that follows a drop: the card is already where it lands
};

export function t(key, vars = {}) {
  const table = STRINGS[ui.lang] || STRINGS.en;
  const text = table[key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}
