// How the page names piles and cards, and says a rule: as the server's message catalogs do,
// served by GET /v1/rules (`names` and each code's `message`), so "column 3", "10♥" and a
// refusal read the same on the page as in the problem the server would send. Loaded once per
// language (the service worker keeps the five catalogs for offline play).

import { request } from "./api.js";

const loaded = new Map(); // language → {piles, cards, messages}
let shown = null;         // the catalog in use: the last language asked for, once loaded
let latest = 0;           // so that a slower answer for an earlier language never wins

// the params shown as piles, cards and ranks (service/i18n: PILE_PARAMS, CARD_PARAMS, RANK_PARAMS)
const PILE_PARAMS = new Set(["pile", "column", "foundation"]);
const CARD_PARAMS = new Set(["card", "top", "above", "below", "onto"]);
const RANK_PARAMS = new Set(["needs"]);

export async function useNames(lang, { offline } = {}) {
  const ticket = ++latest;
  if (!loaded.has(lang)) {
    const body = await request("GET", `/rules?lang=${encodeURIComponent(lang)}`, { lang, offline });
    const messages = Object.fromEntries((body.rules || []).map((rule) => [rule.code, rule.message]));
    loaded.set(lang, { ...body.names[lang], messages });
  }
  if (ticket === latest) shown = loaded.get(lang);
}

// A pile as a label: the catalogs name it for the middle of a sentence ("the waste pile").
export function pileName(pile) {
  if (!pile) return "";
  const name = shown?.piles[pile] ?? pile;
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export function cardName(card) {
  if (!card) return "";
  if (!shown) return card; // the catalog did not load: the card's own notation, "TH"
  const { format, ranks, suits } = shown.cards;
  const rank = ranks[card.slice(0, -1)];
  const suit = suits[card.slice(-1)];
  return rank && suit ? format.replace("{rank}", rank).replace("{suit}", suit) : card;
}

// The sentence the server would send as the problem's `detail` for a rule's refusal
// (service/i18n.message): the code's template with its params shown by their names.
export function ruleMessage(code, params = {}) {
  const template = shown?.messages[code];
  if (typeof template !== "string") return code;
  const text = template.replace(/\{(\w+)\}/g, (_, name) => {
    const value = params[name];
    if (value === undefined || value === null) return "?";
    if (typeof value !== "string") return String(value);
    if (PILE_PARAMS.has(name)) return shown.piles[value] ?? value;
    if (CARD_PARAMS.has(name)) return cardName(value);
    if (RANK_PARAMS.has(name)) return shown.cards.names?.[value] ?? value;
    return value;
  });
  const first = text.charAt(0);
  return first !== first.toUpperCase() ? first.toUpperCase() + text.slice(1) : text;
}
