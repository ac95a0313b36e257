// How the page names piles and cards: as the server's message catalogs do, served by
// GET /v1/rules (`names`), so "column 3" or "10♥" read the same in the page's labels and
// in the rule sentences the server sends back. Loaded once per language.

import { request } from "./api.js";

const loaded = new Map(); // language → its names: {piles, cards}
let shown = null;         // the names in use: the last language asked for, once loaded
let latest = 0;           // so that a slower answer for an earlier language never wins

export async function useNames(lang, { offline } = {}) {
  const ticket = ++latest;
  if (!loaded.has(lang)) {
    const body = await request("GET", `/rules?lang=${encodeURIComponent(lang)}`, { lang, offline });
    loaded.set(lang, body.names[lang]);
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
