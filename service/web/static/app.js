// The play page of Solitaire Réfléchi: plain JavaScript, no build, only the public /v1 API.
//
// The server owns every rule. This page renders the game JSON it gets back, turns
// clicks and drags into actions, and shows the problem's `detail` (localized by the
// Accept-Language header it sends) when an action is rejected.

const LANGS = ["en", "de", "da", "ro", "ja"];
const SUITS = ["S", "H", "D", "C"];
const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
const RED = new Set(["H", "D"]);
const DOUBLE_TAP_MS = 280;
const DRAG_THRESHOLD = 6;
const KEYS = { game: "sr.game", lang: "sr.lang", rules: "sr.showRules", draw: "sr.draw" };

// ---- the page's own strings, in the five languages of the rule sheets -------------

const STRINGS = {
  en: {
    drawMode: "Draw", draw1: "Draw 1 (Easy)", draw3: "Draw 3 (Hard)", codeLabel: "Game code",
    codeHint: "Optional: a game code such as TF1-D1N-AAAAAAB deals that exact game again",
    winnable: "Winnable only", newGame: "New game", undo: "Undo", hint: "Hint",
    leaderboard: "Leaderboard", showRules: "Show rules", language: "Language", score: "Score",
    moves: "Moves", time: "Time", gameCode: "Game code", copy: "Copy", copied: "Copied!",
    copyFailed: "Copy failed: select the code and copy it by hand.", dismiss: "Dismiss",
    board: "Card table", examples: "Examples", faq: "FAQ", close: "Close", wonTitle: "You won!",
    wonText: "All 52 cards are on the foundations. Score {score} in {moves} moves, {time}.",
    stock: "Stock, {n} cards: draw", recycle: "Stock empty: recycle the waste", stockEmpty: "Stock empty",
    waste: "Waste", foundation: "Foundation, {suit}", column: "Column {n}",
    S: "spades", H: "hearts", D: "diamonds", C: "clubs",
    hintShow: "Hint: {notation}", hintDraw: "Draw from the stock", foundationAny: "Foundation", hintUnwinnable: "No winning line from here: undo some moves or start a new game.",
    hintUnknown: "The solver could not decide this position in time.",
    hintUnavailable: "Hints are not available right now.",
    lbRank: "#", lbPlayer: "Player", lbScore: "Score", lbMoves: "Moves", lbTime: "Time", lbDate: "Date",
    lbDeal: "Deal", lbEmpty: "No won games yet.", lbError: "The leaderboard could not be loaded.",
    lbPlay: "Play this deal", anonymous: "anonymous", loading: "Loading…",
    networkError: "The server could not be reached.",
    gameLost: "The saved game no longer exists; a new game was started.", alreadyWon: "This game is won.",
  },
  de: {
    drawMode: "Ziehen", draw1: "1 Karte ziehen (Leicht)", draw3: "3 Karten ziehen (Schwer)", codeLabel: "Spielcode",
    codeHint: "Optional: ein Spielcode wie TF1-D1N-AAAAAAB teilt genau diese Partie erneut aus",
    winnable: "Nur lösbare", newGame: "Neue Partie", undo: "Rückgängig", hint: "Tipp",
    leaderboard: "Bestenliste", showRules: "Regeln anzeigen", language: "Sprache", score: "Punkte",
    moves: "Züge", time: "Zeit", gameCode: "Spielcode", copy: "Kopieren", copied: "Kopiert!",
    copyFailed: "Kopieren fehlgeschlagen: Code markieren und von Hand kopieren.", dismiss: "Ausblenden",
    board: "Spieltisch", examples: "Beispiele", faq: "FAQ", close: "Schließen", wonTitle: "Gewonnen!",
    wonText: "Alle 52 Karten liegen auf den Zielstapeln. {score} Punkte in {moves} Zügen, {time}.",
    stock: "Talon, {n} Karten: aufdecken", recycle: "Talon leer: Ablagestapel zurücklegen", stockEmpty: "Talon leer",
    waste: "Ablagestapel", foundation: "Zielstapel, {suit}", column: "Spalte {n}",
    S: "Pik", H: "Herz", D: "Karo", C: "Kreuz",
    hintShow: "Tipp: {notation}", hintDraw: "Vom Talon aufdecken", foundationAny: "Zielstapel",
    hintUnwinnable: "Von hier aus führt kein Weg zum Sieg: Züge rückgängig machen oder eine neue Partie beginnen.",
    hintUnknown: "Der Löser konnte diese Stellung nicht rechtzeitig entscheiden.",
    hintUnavailable: "Tipps sind gerade nicht verfügbar.",
    lbRank: "#", lbPlayer: "Spieler", lbScore: "Punkte", lbMoves: "Züge", lbTime: "Zeit", lbDate: "Datum",
    lbDeal: "Verteilung", lbEmpty: "Noch keine gewonnenen Partien.",
    lbError: "Die Bestenliste konnte nicht geladen werden.", lbPlay: "Diese Verteilung spielen",
    anonymous: "anonym", loading: "Wird geladen …", networkError: "Der Server ist nicht erreichbar.",
    gameLost: "Die gespeicherte Partie existiert nicht mehr; eine neue Partie wurde begonnen.",
    alreadyWon: "Diese Partie ist gewonnen.",
  },
  da: {
    drawMode: "Træk", draw1: "Træk 1 (Let)", draw3: "Træk 3 (Svær)", codeLabel: "Spilkode",
    codeHint: "Valgfrit: en spilkode som TF1-D1N-AAAAAAB genskaber præcis det oplæg",
    winnable: "Kun løsbare", newGame: "Nyt spil", undo: "Fortryd", hint: "Tip",
    leaderboard: "Rangliste", showRules: "Vis regler", language: "Sprog", score: "Point",
    moves: "Træk", time: "Tid", gameCode: "Spilkode", copy: "Kopiér", copied: "Kopieret!",
    copyFailed: "Kopiering mislykkedes: markér koden og kopiér den selv.", dismiss: "Skjul",
    board: "Spillebord", examples: "Eksempler", faq: "FAQ", close: "Luk", wonTitle: "Du har vundet!",
    wonText: "Alle 52 kort ligger i grundbunkerne. {score} point på {moves} træk, {time}.",
    stock: "Trækbunke, {n} kort: træk", recycle: "Trækbunken er tom: genbrug aflægningsbunken",
    stockEmpty: "Trækbunken er tom", waste: "Aflægningsbunke", foundation: "Grundbunke, {suit}",
    column: "Kolonne {n}", S: "spar", H: "hjerter", D: "ruder", C: "klør",
    hintShow: "Tip: {notation}", hintDraw: "Træk fra trækbunken", foundationAny: "Grundbunke",
    hintUnwinnable: "Der er ingen vindende vej herfra: fortryd nogle træk eller start et nyt spil.",
    hintUnknown: "Løseren nåede ikke at afgøre denne stilling.", hintUnavailable: "Tip er ikke tilgængelige lige nu.",
    lbRank: "#", lbPlayer: "Spiller", lbScore: "Point", lbMoves: "Træk", lbTime: "Tid", lbDate: "Dato",
    lbDeal: "Oplæg", lbEmpty: "Ingen vundne spil endnu.", lbError: "Ranglisten kunne ikke hentes.",
    lbPlay: "Spil dette oplæg", anonymous: "anonym", loading: "Henter …",
    networkError: "Serveren kunne ikke nås.",
    gameLost: "Det gemte spil findes ikke længere; et nyt spil er startet.", alreadyWon: "Dette spil er vundet.",
  },
  ro: {
    drawMode: "Tragere", draw1: "Tragere de 1 (Ușor)", draw3: "Tragere de 3 (Greu)", codeLabel: "Cod de partidă",
    codeHint: "Opțional: un cod de partidă precum TF1-D1N-AAAAAAB reproduce exact acea distribuție",
    winnable: "Doar câștigabile", newGame: "Partidă nouă", undo: "Anulare", hint: "Indiciu",
    leaderboard: "Clasament", showRules: "Arată regulile", language: "Limbă", score: "Scor",
    moves: "Mutări", time: "Timp", gameCode: "Cod de partidă", copy: "Copiază", copied: "Copiat!",
    copyFailed: "Copierea a eșuat: selectează codul și copiază-l manual.", dismiss: "Ascunde",
    board: "Masa de joc", examples: "Exemple", faq: "FAQ", close: "Închide", wonTitle: "Ai câștigat!",
    wonText: "Toate cele 52 de cărți sunt pe fundații. Scor {score} în {moves} mutări, {time}.",
    stock: "Teancul de tragere, {n} cărți: trage", recycle: "Teancul de tragere e gol: reciclează decartarea",
    stockEmpty: "Teancul de tragere e gol", waste: "Teancul de decartare", foundation: "Fundația, {suit}",
    column: "Coloana {n}", S: "pică", H: "cupă", D: "caro", C: "treflă",
    hintShow: "Indiciu: {notation}", hintDraw: "Trage din teancul de tragere", foundationAny: "Fundație",
    hintUnwinnable: "De aici nu există nicio cale spre victorie: anulează câteva mutări sau începe o partidă nouă.",
    hintUnknown: "Rezolvitorul nu a putut decide la timp această poziție.",
    hintUnavailable: "Indiciile nu sunt disponibile acum.",
    lbRank: "#", lbPlayer: "Jucător", lbScore: "Scor", lbMoves: "Mutări", lbTime: "Timp", lbDate: "Data",
    lbDeal: "Distribuție", lbEmpty: "Încă nicio partidă câștigată.", lbError: "Clasamentul nu a putut fi încărcat.",
    lbPlay: "Joacă această distribuție", anonymous: "anonim", loading: "Se încarcă…",
    networkError: "Serverul nu poate fi contactat.",
    gameLost: "Partida salvată nu mai există; a început o partidă nouă.", alreadyWon: "Această partidă este câștigată.",
  },
  ja: {
    drawMode: "めくり方", draw1: "1枚めくり（イージー）", draw3: "3枚めくり（むずかしい）", codeLabel: "ゲームコード",
    codeHint: "任意：TF1-D1N-AAAAAAB のようなゲームコードで同じ配札を再現します",
    winnable: "クリア可能な配札のみ", newGame: "新しいゲーム", undo: "元に戻す", hint: "ヒント",
    leaderboard: "ランキング", showRules: "ルールを表示", language: "言語", score: "得点",
    moves: "手数", time: "時間", gameCode: "ゲームコード", copy: "コピー", copied: "コピーしました",
    copyFailed: "コピーできませんでした。コードを選択して手動でコピーしてください。", dismiss: "閉じる",
    board: "ゲーム台", examples: "実例", faq: "FAQ", close: "閉じる", wonTitle: "クリア！",
    wonText: "52枚すべてが組札にそろいました。得点 {score}、{moves} 手、{time}。",
    stock: "山札 {n} 枚：めくる", recycle: "山札が空です：捨て札を山札に戻す", stockEmpty: "山札が空です",
    waste: "捨て札", foundation: "組札（{suit}）", column: "{n} 列目",
    S: "スペード", H: "ハート", D: "ダイヤ", C: "クラブ",
    hintShow: "ヒント：{notation}", hintDraw: "山札をめくる", foundationAny: "組札",
    hintUnwinnable: "ここからクリアする手順はありません。手を元に戻すか、新しいゲームを始めてください。",
    hintUnknown: "ソルバーは時間内にこの局面を判定できませんでした。", hintUnavailable: "現在ヒントは利用できません。",
    lbRank: "順位", lbPlayer: "プレイヤー", lbScore: "得点", lbMoves: "手数", lbTime: "時間", lbDate: "日付",
    lbDeal: "配札", lbEmpty: "クリアしたゲームはまだありません。", lbError: "ランキングを読み込めませんでした。",
    lbPlay: "この配札で遊ぶ", anonymous: "匿名", loading: "読み込み中…",
    networkError: "サーバーに接続できません。",
    gameLost: "保存されたゲームは存在しません。新しいゲームを始めました。", alreadyWon: "このゲームはクリア済みです。",
  },
};

// ---- small helpers ------------------------------------------------------------------

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

function storageGet(key, fallback = null) {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

function storageSet(key, value) {
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

const ui = {
  lang: initialLang(),
  showRules: storageGet(KEYS.rules, true) !== false,
  game: null,        // the last game JSON from the server
  token: null,       // the owner token (anonymous game token)
  queue: Promise.resolve(),
  pendingTap: null,  // {pile, card, timer} while waiting for a possible second tap
  drag: null,
  celebrated: null,  // id of the game whose win was celebrated on this page
  hint: null,        // {action, version}: the hinted action, highlighted until the game moves on
  offsets: {},
};

function t(key, vars = {}) {
  const table = STRINGS[ui.lang] || STRINGS.en;
  const text = table[key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

function rankLabel(rank) {
  return rank === "T" ? "10" : rank;
}

function formatSeconds(total) {
  total = Math.max(0, Math.floor(total));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

function parseTime(text) {
  if (!text) return null;
  // A timestamp without a zone is UTC (the server stores UTC).
  const zoned = /([zZ]|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) ? null : ms;
}

// ---- the API -----------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code || null;
  }
}

async function api(method, path, body, { auth = true } = {}) {
  const headers = { Accept: "application/json, application/problem+json", "Accept-Language": ui.lang };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth && ui.token) headers.Authorization = `Bearer ${ui.token}`;
  let response;
  try {
    response = await fetch(`/v1${path}`, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
    });
  } catch {
    throw new ApiError(0, { detail: t("networkError") });
  }
  let data = null;
  try {
    data = await response.json();
  } catch { /* an empty or non-JSON body */ }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// ---- messages ----------------------------------------------------------------------

let messageTimer = null;

function showMessage(text, kind = "rule") {
  const box = $("#message");
  $("#message-text").textContent = text;
  box.dataset.kind = kind;
  box.hidden = false;
  box.classList.remove("pop");
  void box.offsetWidth; // restart the animation
  box.classList.add("pop");
  clearTimeout(messageTimer);
  if (kind === "info") messageTimer = setTimeout(hideMessage, 6000);
}

function hideMessage() {
  clearTimeout(messageTimer);
  $("#message").hidden = true;
}

function reportError(err, { rule = true } = {}) {
  const isRule = rule && err.status >= 400 && err.status < 500 && ![400, 401, 403, 404, 429].includes(err.status);
  if (isRule && !ui.showRules) {
    shakeBoard();
    return;
  }
  showMessage(err.message, isRule ? "rule" : "error");
  if (isRule) shakeBoard();
}

function shakeBoard() {
  const board = $("#board");
  board.classList.remove("shake");
  void board.offsetWidth;
  board.classList.add("shake");
}

// ---- state and persistence ---------------------------------------------------------

function setGame(game, { fresh = false } = {}) {
  const previous = ui.game;
  ui.game = game;
  if (game.token) ui.token = game.token;
  storageSet(KEYS.game, { id: game.id, token: ui.token });
  render();
  if (game.last) flashPoints(game.last.points);
  if (game.status === "won" && ui.celebrated !== game.id) {
    if (previous && previous.id === game.id && previous.status !== "won") celebrate();
    else if (!fresh) showMessage(t("alreadyWon"), "info");
    ui.celebrated = game.id;
  }
}

async function newGame() {
  const drawMode = Number($("#draw-mode").value) === 3 ? 3 : 1;
  const code = $("#code-input").value.trim();
  const body = code ? { code } : { draw: drawMode };
  if (!code && $("#winnable").checked) body.winnable = true;
  storageSet(KEYS.draw, drawMode);
  const button = $("#new-game");
  button.disabled = true;
  try {
    const game = await api("POST", "/games", body, { auth: false });
    ui.token = game.token || null;
    ui.celebrated = null;
    hideMessage();
    closeDialog($("#won"));
    $("#code-input").value = "";
    setGame(game, { fresh: true });
  } catch (err) {
    reportError(err, { rule: false });
  } finally {
    button.disabled = false;
  }
}

async function resume() {
  const saved = storageGet(KEYS.game);
  if (!saved || typeof saved.id !== "string") return newGame();
  ui.token = saved.token || null;
  try {
    setGame(await api("GET", `/games/${encodeURIComponent(saved.id)}`));
  } catch (err) {
    if (err.status === 404) {
      storageSet(KEYS.game, null);
      ui.token = null;
      await newGame();
      showMessage(t("gameLost"), "info");
    } else {
      reportError(err, { rule: false });
    }
  }
}

// Every action goes through one queue, so quick clicks are sent in order.
function act(path, body) {
  ui.queue = ui.queue.then(async () => {
    const game = ui.game;
    if (!game) return;
    $("#board").dataset.busy = "1";
    try {
      const next = await api("POST", `/games/${encodeURIComponent(game.id)}/${path}`, body);
      hideMessage();
      setGame(next);
    } catch (err) {
      reportError(err);
      render(); // put back anything dragged
    } finally {
      delete $("#board").dataset.busy;
    }
  });
  return ui.queue;
}

// ---- rendering ---------------------------------------------------------------------

function cardElement(name, { playable = false } = {}) {
  const rank = name.slice(0, -1);
  const suit = name.slice(-1);
  const el = document.createElement("div");
  el.className = `card ${RED.has(suit) ? "red" : "black"}${"JQK".includes(rank) ? " face" : ""}`;
  el.dataset.card = name;
  el.setAttribute("aria-label", `${rankLabel(rank)}${SYMBOL[suit]} ${t(suit)}`);
  if (playable) {
    el.tabIndex = 0;
    el.setAttribute("role", "button");
  }
  const corner = `<span class="rank">${rankLabel(rank)}</span><span class="suit">${SYMBOL[suit]}</span>`;
  const middle = "JQK".includes(rank)
    ? `<span class="face-letter">${rank}</span><span class="face-suit">${SYMBOL[suit]}</span>`
    : `<span class="pip">${SYMBOL[suit]}</span>`;
  el.innerHTML = `<span class="corner tl" aria-hidden="true">${corner}</span>`
    + `<span class="center" aria-hidden="true">${middle}</span>`
    + `<span class="corner br" aria-hidden="true">${corner}</span>`;
  return el;
}

function layout() {
  const board = $("#board");
  const style = getComputedStyle(board);
  const width = board.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const gap = width < 520 ? 4 : width < 800 ? 8 : 12;
  const cw = Math.max(36, Math.min(104, Math.floor((width - 6 * gap) / 7)));
  const ch = Math.round(cw * 1.42);
  const root = document.documentElement.style; // on the root, so the drag layer sees them too
  root.setProperty("--gap", `${gap}px`);
  root.setProperty("--cw", `${cw}px`);
  root.setProperty("--ch", `${ch}px`);
  ui.cw = cw;
  ui.ch = ch;
}

function columnOffset(count) {
  const ch = ui.ch;
  const base = Math.round(ch * 0.27);
  if (count <= 1) return base;
  const tableau = $(".tableau");
  const top = tableau.getBoundingClientRect().top + window.scrollY;
  const available = Math.max(window.innerHeight - top - 56, ch * 3.2);
  const fit = Math.floor((available - ch) / (count - 1));
  return Math.max(Math.round(ch * 0.18), Math.min(base, fit));
}

function render() {
  const game = ui.game;
  const board = $("#board");
  layout();
  $$(".hint-target").forEach((el) => el.classList.remove("hint-target"));
  if (!game) return;
  board.dataset.version = String(game.version);
  board.dataset.gameId = game.id;
  board.dataset.status = game.status;
  board.classList.toggle("is-won", game.status === "won");

  // the seven columns
  let tallest = ui.ch;
  game.tableau.forEach((column, index) => {
    const pile = $(`[data-pile="t${index + 1}"]`);
    const offset = columnOffset(column.length);
    pile.style.setProperty("--offset", `${offset}px`);
    pile.replaceChildren(...column.map((name, i) => {
      const el = cardElement(name, { playable: i === column.length - 1 });
      el.style.top = `${i * offset}px`;
      el.style.zIndex = String(i + 1);
      return el;
    }));
    pile.classList.toggle("empty", column.length === 0);
    pile.setAttribute("aria-label", `${t("column", { n: index + 1 })}: ${column.join(" ") || "—"}`);
    tallest = Math.max(tallest, ui.ch + Math.max(0, column.length - 1) * offset);
  });
  $(".tableau").style.minHeight = `${tallest + 8}px`;

  // the stock
  const stock = $('[data-pile="stock"]');
  stock.replaceChildren();
  stock.classList.toggle("empty", game.stock === 0);
  stock.classList.toggle("can-recycle", game.stock === 0 && game.waste.length > 0);
  if (game.stock > 0) {
    const back = document.createElement("span"); // phrasing content: the stock is a <button>
    back.className = "card back";
    if (game.stock > 1) back.classList.add("thick");
    stock.append(back);
    stock.setAttribute("aria-label", t("stock", { n: game.stock }));
  } else {
    stock.setAttribute("aria-label", game.waste.length ? t("recycle") : t("stockEmpty"));
  }
  const count = document.createElement("span");
  count.className = "count";
  count.textContent = game.stock > 0 ? String(game.stock) : game.waste.length ? "↻" : "";
  stock.append(count);

  // the waste: the cards of the last draw still there, fanned, top on the right
  const waste = $('[data-pile="waste"]');
  const shown = Math.min(game.waste.length, Math.max(1, game.draw === 3 ? game.waste_fan : 1));
  const start = game.waste.length - shown;
  const wasteCards = [];
  if (start > 0) {
    const under = cardElement(game.waste[start - 1]);
    under.classList.add("under");
    wasteCards.push(under);
  }
  game.waste.slice(start).forEach((name, i) => {
    const el = cardElement(name, { playable: i === shown - 1 });
    el.style.left = `calc(var(--fan) * ${i})`;
    if (i !== shown - 1) el.classList.add("covered");
    wasteCards.push(el);
  });
  waste.replaceChildren(...wasteCards);
  waste.classList.toggle("empty", game.waste.length === 0);
  waste.classList.toggle("thick", game.waste.length > shown + 1);
  waste.setAttribute("aria-label", `${t("waste")}: ${game.waste.length}`);

  // the foundations, fixed order S H D C: the top card and the one under it
  for (const suit of SUITS) {
    const pile = $(`[data-pile="f${suit}"]`);
    const n = game.foundations[suit] || 0;
    const cards = [];
    if (n >= 2) cards.push(cardElement(`${RANKS[n - 2]}${suit}`));
    if (n >= 1) cards.push(cardElement(`${RANKS[n - 1]}${suit}`));
    pile.replaceChildren(...cards);
    pile.classList.toggle("empty", n === 0);
    pile.setAttribute("aria-label", `${t("foundation", { suit: t(suit) })}: ${n}`);
  }

  // the status bar
  $("#score").textContent = String(game.score);
  $("#moves").textContent = String(game.moves);
  $("#code").textContent = game.code;
  if (!$("#code-input").value) $("#draw-mode").value = String(game.draw);
  $("#game-id").textContent = game.id;
  if (ui.hint && ui.hint.version === game.version && ui.hint.gameId === game.id) highlight(ui.hint.action);
  else ui.hint = null;
  $("#undo").disabled = !game.can_undo;
  $("#hint").disabled = game.status === "won";
  tick();
}

function tick() {
  const game = ui.game;
  if (!game) return;
  const start = parseTime(game.created_at);
  if (start === null) {
    $("#timer").textContent = "0:00";
    return;
  }
  let end = Date.now();
  if (game.status === "won") {
    end = parseTime(game.finished_at)
      ?? (Number.isFinite(game.seconds) ? start + game.seconds * 1000 : null)
      ?? ui.wonAt ?? (ui.wonAt = Date.now());
  }
  $("#timer").textContent = formatSeconds((end - start) / 1000);
}

function flashPoints(points) {
  if (!points) return;
  const flash = document.createElement("span");
  flash.className = `points-flash ${points > 0 ? "plus" : "minus"}`;
  flash.textContent = points > 0 ? `+${points}` : String(points);
  $("#score").parentElement.append(flash);
  flash.addEventListener("animationend", () => flash.remove());
}

// ---- taps: one click = tap, two quick clicks = double tap --------------------------

function registerTap(pile, card) {
  const pending = ui.pendingTap;
  if (pending && pending.pile === pile && pending.card === card) {
    clearTimeout(pending.timer);
    ui.pendingTap = null;
    act("tap", { from: pile, card, double: true });
    return;
  }
  if (pending) flushTap();
  ui.pendingTap = {
    pile, card, timer: setTimeout(flushTap, DOUBLE_TAP_MS),
  };
}

function flushTap() {
  const pending = ui.pendingTap;
  if (!pending) return;
  clearTimeout(pending.timer);
  ui.pendingTap = null;
  act("tap", { from: pending.pile, card: pending.card, double: false });
}

// ---- dragging with pointer events (mouse, pen and touch alike) ---------------------

function draggableCards(pileEl, cardEl) {
  const pile = pileEl.dataset.pile;
  const cards = $$(".card", pileEl).filter((el) => !el.classList.contains("under"));
  const index = cards.indexOf(cardEl);
  if (index < 0) return null;
  if (pile.startsWith("t")) return cards.slice(index);
  return index === cards.length - 1 ? [cardEl] : null; // waste and foundations: the top card only
}

function onPointerDown(event) {
  if (event.button !== 0 || ui.drag || !ui.game) return;
  const cardEl = event.target.closest(".card");
  const pileEl = event.target.closest("[data-pile]");
  if (!cardEl || !pileEl || pileEl.dataset.pile === "stock") return;
  const cards = draggableCards(pileEl, cardEl);
  if (!cards) return;
  event.preventDefault();
  const rect = cardEl.getBoundingClientRect();
  ui.drag = {
    pointerId: event.pointerId,
    pile: pileEl.dataset.pile,
    card: cardEl.dataset.card,
    cards,
    startX: event.clientX,
    startY: event.clientY,
    rect,
    moved: false,
    hover: null,
  };
  try {
    $("#board").setPointerCapture(event.pointerId);
  } catch { /* synthetic events have no capture */ }
}

function startDrag(drag) {
  drag.moved = true;
  const layer = $("#drag-layer");
  const top = drag.cards[0].getBoundingClientRect();
  layer.replaceChildren(...drag.cards.map((el) => {
    const clone = el.cloneNode(true);
    const r = el.getBoundingClientRect();
    clone.style.left = `${r.left - top.left}px`;
    clone.style.top = `${r.top - top.top}px`;
    clone.style.width = `${r.width}px`;
    clone.style.height = `${r.height}px`;
    clone.removeAttribute("tabindex");
    clone.removeAttribute("data-card"); // the real card keeps its place in the pile
    return clone;
  }));
  layer.style.left = `${top.left}px`;
  layer.style.top = `${top.top}px`;
  layer.style.width = `${top.width}px`;
  layer.style.height = `${top.height}px`;
  layer.hidden = false;
  layer.classList.add("active");
  drag.cards.forEach((el) => el.classList.add("dragging"));
  document.body.classList.add("is-dragging");
}

function dropTargetAt(drag, x, y) {
  const hit = document.elementFromPoint(x, y);
  const pileEl = hit && hit.closest("[data-pile]");
  if (pileEl) return pileEl;
  // Not straight over a pile: take the pile the dragged card overlaps most.
  const dx = x - drag.startX;
  const dy = y - drag.startY;
  const card = { left: drag.rect.left + dx, top: drag.rect.top + dy, right: drag.rect.right + dx, bottom: drag.rect.bottom + dy };
  let best = null;
  let bestArea = 0;
  for (const el of $$("[data-pile]")) {
    const r = el.getBoundingClientRect();
    const w = Math.min(card.right, r.right) - Math.max(card.left, r.left);
    const h = Math.min(card.bottom, r.bottom) - Math.max(card.top, r.top);
    if (w > 0 && h > 0 && w * h > bestArea) {
      best = el;
      bestArea = w * h;
    }
  }
  return best;
}

function onPointerMove(event) {
  const drag = ui.drag;
  if (!drag || event.pointerId !== drag.pointerId) return;
  const dx = event.clientX - drag.startX;
  const dy = event.clientY - drag.startY;
  if (!drag.moved) {
    if (Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
    startDrag(drag);
  }
  $("#drag-layer").style.transform = `translate(${dx}px, ${dy}px)`;
  const target = dropTargetAt(drag, event.clientX, event.clientY);
  if (target !== drag.hover) {
    if (drag.hover) drag.hover.classList.remove("drop-hover");
    if (target && target.dataset.pile !== drag.pile) target.classList.add("drop-hover");
    drag.hover = target;
  }
}

function endDrag() {
  const drag = ui.drag;
  ui.drag = null;
  const layer = $("#drag-layer");
  layer.replaceChildren();
  layer.classList.remove("active");
  layer.style.transform = "";
  document.body.classList.remove("is-dragging");
  if (drag) {
    drag.cards.forEach((el) => el.classList.remove("dragging"));
    if (drag.hover) drag.hover.classList.remove("drop-hover");
  }
  return drag;
}

function onPointerUp(event) {
  const drag = ui.drag;
  if (!drag || event.pointerId !== drag.pointerId) return;
  const target = drag.moved ? dropTargetAt(drag, event.clientX, event.clientY) : null;
  endDrag();
  if (!drag.moved) {
    if (!drag.pile.startsWith("f")) registerTap(drag.pile, drag.card);
    return;
  }
  if (!target) return;
  drop(drag.pile, drag.card, target.dataset.pile);
}

function drop(from, card, to) {
  if (to === from) return;
  if (from.startsWith("f")) {
    act("take-back", { from, to });
  } else {
    act("moves", { from, to: to.startsWith("f") ? "foundation" : to, card });
  }
}

function onStockClick() {
  const game = ui.game;
  if (!game) return;
  flushTap();
  if (game.stock > 0) act("draw");
  else act("recycle");
}

function onCardKey(event) {
  const cardEl = event.target.closest(".card");
  const pileEl = event.target.closest("[data-pile]");
  if (!cardEl || !pileEl || (event.key !== "Enter" && event.key !== " ")) return;
  event.preventDefault();
  act("tap", { from: pileEl.dataset.pile, card: cardEl.dataset.card, double: event.shiftKey });
}

// ---- hint ------------------------------------------------------------------------

async function showHint() {
  const game = ui.game;
  if (!game) return;
  $$(".hint, .hint-target").forEach((el) => el.classList.remove("hint", "hint-target"));
  try {
    const hint = await api("GET", `/games/${encodeURIComponent(game.id)}/hint`);
    if (hint.action) {
      ui.hint = { action: hint.action, version: game.version, gameId: game.id };
      highlight(hint.action);
      const text = describe(hint.action);
      showMessage(t("hintShow", { notation: hint.notation ? `${text} (${hint.notation})` : text }), "info");
    } else if (hint.verdict === "unwinnable") {
      showMessage(t("hintUnwinnable"), "info");
    } else {
      showMessage(t("hintUnknown"), "info");
    }
  } catch (err) {
    if ([404, 501, 503].includes(err.status) && err.code !== "GAME_NOT_FOUND") {
      showMessage(t("hintUnavailable"), "info");
    } else {
      reportError(err, { rule: false });
    }
  }
}

function pileName(pile) {
  if (!pile) return "";
  if (/^t[1-7]$/.test(pile)) return t("column", { n: pile.slice(1) });
  if (/^f[SHDC]$/.test(pile)) return t("foundation", { suit: t(pile.slice(1)) });
  if (pile === "foundation") return t("foundationAny");
  return pile === "waste" ? t("waste") : pile;
}

function cardName(name) {
  return name ? `${rankLabel(name.slice(0, -1))}${SYMBOL[name.slice(-1)]}` : "";
}

// A hinted action in words: "6♠ → Column 1".
function describe(action) {
  if (action.action === "draw") return t("hintDraw");
  if (action.action === "recycle") return t("recycle");
  let what = cardName(action.card);
  if (!what && action.from && /^f[SHDC]$/.test(action.from) && ui.game) {
    const suit = action.from.slice(1);
    what = cardName(`${RANKS[ui.game.foundations[suit] - 1]}${suit}`);
  }
  if (!what && action.from && ui.game) {
    const pile = action.from === "waste" ? ui.game.waste : ui.game.tableau[Number(action.from.slice(1)) - 1] || [];
    what = cardName(pile[pile.length - 1]);
  }
  return `${what} → ${pileName(action.to)}`.trim();
}

function highlight(action) {
  const kind = action.action;
  if (kind === "draw" || kind === "recycle") {
    $('[data-pile="stock"]').classList.add("hint-target");
    return;
  }
  const from = action.from && $(`[data-pile="${action.from}"]`);
  if (from) {
    const cards = $$(".card", from).filter((el) => !el.classList.contains("under"));
    let index = action.card ? cards.findIndex((el) => el.dataset.card === action.card) : cards.length - 1;
    if (index < 0) index = cards.length - 1;
    cards.slice(index).forEach((el) => el.classList.add("hint"));
  }
  let to = action.to;
  if (to === "foundation" && action.card) to = `f${action.card.slice(-1)}`;
  const target = to && $(`[data-pile="${to}"]`);
  if (target) target.classList.add("hint-target");
}

// ---- leaderboard -------------------------------------------------------------------

function openDialog(dialog) {
  if (dialog.open) return;
  if (typeof dialog.showModal === "function") dialog.showModal();
  else dialog.setAttribute("open", "");
}

function closeDialog(dialog) {
  if (!dialog.open) return;
  if (typeof dialog.close === "function") dialog.close();
  else dialog.removeAttribute("open");
}

async function showLeaderboard() {
  openDialog($("#leaderboard-dialog"));
  await Promise.all([1, 3].map(async (draw) => {
    const list = $(`#lb-${draw}`);
    list.textContent = t("loading");
    try {
      const data = await api("GET", `/leaderboard?draw=${draw}&limit=10`, undefined, { auth: false });
      list.replaceChildren(leaderboardTable(data.items || []));
    } catch {
      list.textContent = t("lbError");
    }
  }));
}

function leaderboardTable(items) {
  if (!items.length) {
    const p = document.createElement("p");
    p.className = "lb-empty";
    p.textContent = t("lbEmpty");
    return p;
  }
  const table = document.createElement("table");
  const head = ["lbRank", "lbPlayer", "lbScore", "lbMoves", "lbTime", "lbDeal"];
  table.innerHTML = `<thead><tr>${head.map((k) => `<th scope="col">${t(k)}</th>`).join("")}</tr></thead>`;
  const body = document.createElement("tbody");
  for (const item of items) {
    const row = document.createElement("tr");
    const player = typeof item.player === "string" ? item.player : item.player && item.player.name;
    const cells = [item.rank, player || t("anonymous"), item.score, item.moves, formatSeconds(item.seconds || 0)];
    for (const value of cells) {
      const td = document.createElement("td");
      td.textContent = String(value);
      row.append(td);
    }
    const td = document.createElement("td");
    const play = document.createElement("button");
    play.type = "button";
    play.className = "linkish";
    play.textContent = item.code;
    play.title = t("lbPlay");
    play.addEventListener("click", () => {
      $("#code-input").value = item.code;
      closeDialog($("#leaderboard-dialog"));
      $("#code-input").focus();
    });
    td.append(play);
    row.append(td);
    body.append(row);
  }
  table.append(body);
  return table;
}

// ---- the win ------------------------------------------------------------------------

function celebrate() {
  const game = ui.game;
  $("#won-text").textContent = t("wonText", { score: game.score, moves: game.moves, time: $("#timer").textContent });
  const confetti = $("#won .confetti");
  confetti.replaceChildren();
  for (let i = 0; i < 36; i++) {
    const bit = document.createElement("span");
    const suit = SUITS[i % 4];
    bit.textContent = SYMBOL[suit];
    bit.className = RED.has(suit) ? "red" : "black";
    bit.style.left = `${Math.random() * 100}%`;
    bit.style.animationDelay = `${Math.random() * 1.5}s`;
    bit.style.fontSize = `${14 + Math.random() * 22}px`;
    confetti.append(bit);
  }
  openDialog($("#won"));
}

// ---- language and settings -------------------------------------------------------------

function applyLang() {
  document.documentElement.lang = ui.lang;
  $("#lang").value = ui.lang;
  for (const el of $$("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of $$("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr, t(key));
    }
  }
  render();
}

async function copyCode() {
  const code = ui.game && ui.game.code;
  if (!code) return;
  const button = $("#copy-code");
  try {
    await navigator.clipboard.writeText(code);
  } catch {
    const range = document.createRange();
    range.selectNodeContents($("#code"));
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch { /* not supported */ }
    if (!copied) {
      showMessage(t("copyFailed"), "info");
      return;
    }
  }
  button.textContent = t("copied");
  setTimeout(() => { button.textContent = t("copy"); }, 1500);
}

// ---- wiring --------------------------------------------------------------------------

function init() {
  const board = $("#board");
  $("#draw-mode").value = String(storageGet(KEYS.draw, 1) === 3 ? 3 : 1);
  $("#show-rules").checked = ui.showRules;
  applyLang();

  $("#new-game-form").addEventListener("submit", (event) => {
    event.preventDefault();
    newGame();
  });
  $("#undo").addEventListener("click", () => {
    flushTap();
    act("undo");
  });
  $("#hint").addEventListener("click", showHint);
  $("#leaderboard").addEventListener("click", showLeaderboard);
  $("#won-board").addEventListener("click", () => {
    closeDialog($("#won"));
    showLeaderboard();
  });
  $("#won-new").addEventListener("click", () => {
    closeDialog($("#won"));
    newGame();
  });
  $("#lang").addEventListener("change", (event) => {
    ui.lang = LANGS.includes(event.target.value) ? event.target.value : "en";
    storageSet(KEYS.lang, ui.lang);
    hideMessage(); // a shown rule is in the old language; the next rejection comes in the new one
    applyLang();
  });
  $("#show-rules").addEventListener("change", (event) => {
    ui.showRules = event.target.checked;
    storageSet(KEYS.rules, ui.showRules);
    if (!ui.showRules && $("#message").dataset.kind === "rule") hideMessage();
  });
  $("#message-close").addEventListener("click", hideMessage);
  $("#copy-code").addEventListener("click", copyCode);
  $('[data-pile="stock"]').addEventListener("click", onStockClick);

  board.addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove);
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("pointercancel", (event) => {
    if (ui.drag && event.pointerId === ui.drag.pointerId) endDrag();
  });
  board.addEventListener("keydown", onCardKey);
  board.addEventListener("dragstart", (event) => event.preventDefault());
  window.addEventListener("resize", () => render());
  setInterval(tick, 1000);

  resume();
}

init();
