// A client written against the types openapi-typescript generates from ../openapi.yaml.
// tests/contract/test_typescript_client.py generates ./openapi.d.ts, writes ./base.ts (the live
// server's URL), compiles this with `tsc --strict` and runs it: deal, a legal move sent back
// as it came, and a rejection described through a switch the compiler checks for exhaustiveness
// (a new problem code fails to compile until it has its case). No non-null assertions.
import type { components } from "./openapi";
import { BASE_URL } from "./base";

type Schemas = components["schemas"];
type Problem = Schemas["Problem"];

interface Answer<T> {
  status: number;
  body: T;
}

async function send<T>(method: string, path: string, body?: unknown, token?: string,
                       ifMatch?: number): Promise<Answer<T>> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (token !== undefined) headers["Authorization"] = `Bearer ${token}`;
  if (ifMatch !== undefined) headers["If-Match"] = `"${ifMatch}"`;
  const response = await fetch(BASE_URL + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Words of one's own for every problem, from its code and typed params alone. */
export function describe(problem: Problem): string {
  switch (problem.code) {
    case "GAME_FINISHED":
    case "STOCK_EMPTY":
    case "NOTHING_TO_RECYCLE":
    case "NOTHING_TO_UNDO":
    case "AUTH_REQUIRED":
    case "FORBIDDEN":
    case "NOT_FOUND":
    case "IDEMPOTENCY_KEY_REUSED":
    case "IF_MATCH_REQUIRED":
    case "UNSUPPORTED_MEDIA_TYPE":
    case "SERVICE_UNAVAILABLE":
    case "INTERNAL_ERROR":
      return problem.code;
    case "INVALID_REQUEST":
      return `check ${Object.keys(problem.errors).join(", ")}`;
    case "SOURCE_EMPTY":
    case "SAME_PILE":
    case "INVALID_TARGET":
      return `${problem.code} at ${problem.params.pile}`;
    case "CARD_NOT_IN_PILE":
    case "NO_DESTINATION":
      return `${problem.params.card} / ${problem.params.pile}`;
    case "WASTE_TOP_ONLY":
      return `${problem.params.card}: play ${problem.params.top}`;
    case "GROUP_NOT_ORDERED":
      return `${problem.params.above} on ${problem.params.below} in ${problem.params.pile}`;
    case "FOUNDATION_ONE_CARD":
      return `${problem.params.count} cards with ${problem.params.card}`;
    case "FOUNDATION_WRONG_SUIT":
      return `${problem.params.card} is not for ${problem.params.foundation}`;
    case "FOUNDATION_SEQUENCE":
      return `${problem.params.foundation} needs ${problem.params.needs}`;
    case "EMPTY_COLUMN_KING_ONLY":
      return `${problem.params.card} onto empty ${problem.params.column}`;
    case "TABLEAU_COLOUR":
    case "TABLEAU_RANK":
      return `${problem.params.card} onto ${problem.params.onto}`;
    case "STOCK_NOT_EMPTY":
      return `${problem.params.stock} cards left`;
    case "UNDO_LIMIT_REACHED":
    case "PAYLOAD_TOO_LARGE":
      return `limit ${problem.params.limit}`;
    case "INVALID_NOTATION":
      return `action ${problem.params.index + 0} is not notation: ${problem.params.notation}`;
    case "INVALID_GAME_CODE":
      return `not a code: ${problem.params.code}`;
    case "GAME_NOT_FOUND":
      return `no game ${problem.params.game}`;
    case "PLAYER_NOT_FOUND":
      return `no player ${problem.params.player}`;
    case "METHOD_NOT_ALLOWED":
      return `not ${problem.params.method}`;
    case "VERSION_MISMATCH":
      return `sent ${problem.params.sent}, now ${problem.params.current + 0}`;
    case "RATE_LIMITED":
    case "SOLVER_RATE_LIMITED":
    case "SOLVER_BUSY":
      return `retry in ${problem.params.retry_after + 0} s`;
    case "TOKEN_IN_QUERY":
      return `send the token in Authorization, not ?${problem.params.param}`;
    case "URI_TOO_LONG":
    case "HEADERS_TOO_LARGE":
      return `over ${problem.params.limit + 0} bytes`;
    case "REQUEST_TIMEOUT":
    case "BAD_GATEWAY":
    case "GATEWAY_TIMEOUT":
      return problem.code;
    case "WINNABLE_DEAL_TIMEOUT":
      return `no draw-${problem.params.draw} deal in time`;
    default: {
      const unreachable: never = problem;
      return unreachable;
    }
  }
}

function toRequest(move: Schemas["MoveLegalAction"]): Schemas["Move"] {
  const body: Schemas["Move"] = { from: move.from, to: move.to };
  if (move.card !== undefined) body.card = move.card;
  return body;
}

type SyncAnswer = Schemas["Game"] | Schemas["BatchProblem422"] | Schemas["VersionMismatchRebaseProblem"]
  | Schemas["GameFinishedAtIndexProblem"];

/** Send actions as one batch from `version`: the game after them, or a problem typed by its status. */
async function sync(gameId: string, token: string, actions: string[], version: number): Promise<Answer<SyncAnswer>> {
  const batch: Schemas["ActionBatch"] = { actions };
  return send<SyncAnswer>("POST", `/v1/games/${gameId}/actions`, batch, token, version);
}

/** A whole game through syncActions: hinted actions, sent in batches, to the win; a 422 and a 412 on the way. */
async function playInBatches(): Promise<Record<string, number | string>> {
  const dealt = await send<Schemas["NewGameAnswer"]>("POST", "/v1/games", { code: "TF1-D1N-AAAAAAG" });
  const token = dealt.body.token;
  if (token === undefined) throw new Error("no token");
  const id = dealt.body.id;

  const refused = await sync(id, token, ["draw", "t1>t1"], 0);
  const refusal = refused.body as Schemas["BatchProblem422"];
  if (refused.status !== 422 || refusal.code !== "SAME_PILE" || refusal.params.index !== 1) {
    throw new Error(`batch refusal: ${refused.status}`);
  }
  let answer = await sync(id, token, ["draw", "undo"], 0);
  let game = answer.body as Schemas["Game"];
  if (answer.status !== 200 || game.version !== 2) throw new Error(`batch: ${answer.status}`);

  const stale = await sync(id, token, ["draw"], 0);
  const rebase = stale.body as Schemas["VersionMismatchRebaseProblem"];
  if (stale.status !== 412 || rebase.params.actions.join(" ") !== "draw undo") throw new Error("no rebase");

  let batches = 1;
  while (game.status !== "won") {
    const hint = (await send<Schemas["Hint"]>("GET", `/v1/games/${id}/hint`, undefined, token)).body;
    if (hint.notation === null || batches > 400) throw new Error("the hints never reach a win");
    answer = await sync(id, token, [hint.notation], game.version);
    if (answer.status !== 200) throw new Error(`batch ${batches}: ${answer.status}`);
    game = answer.body as Schemas["Game"];
    batches += 1;
  }
  const finished = await sync(id, token, ["draw"], game.version);
  const over = finished.body as Schemas["GameFinishedAtIndexProblem"];
  if (finished.status !== 409 || over.params.index !== 0) throw new Error("a won game took a batch");
  return { batches, score: game.score, synced: game.status };
}

async function main(): Promise<void> {
  const newGame: Schemas["NewGame"] = { code: "TF1-D1N-AAAAAAG" };
  const dealt = await send<Schemas["NewGameAnswer"]>("POST", "/v1/games", newGame);
  const game = dealt.body;
  const token = game.token;
  if (dealt.status !== 201 || token === undefined) throw new Error(`deal: ${dealt.status}`);

  const legal = await send<Schemas["LegalActions"]>("GET", `/v1/games/${game.id}/legal-moves`);
  let moved: Schemas["ActionAnswer"] | undefined;
  for (const item of legal.body.items) {
    if (item.action === "move") {
      moved = (await send<Schemas["ActionAnswer"]>("POST", `/v1/games/${game.id}/moves`, toRequest(item), token)).body;
      break;
    }
  }
  if (moved === undefined) throw new Error("no legal move");

  const refused = await send<Schemas["Problem422"]>("POST", `/v1/games/${game.id}/moves`,
    { from: "waste", to: "t1" } satisfies Schemas["Move"], token);
  console.log(JSON.stringify({
    columns: game.tableau.length,
    spades: game.foundations.S,
    moved: moved.last.cards,
    version: moved.version,
    status: refused.status,
    described: describe(refused.body),
    ...(await playInBatches()),
  }));
}

main().catch((error: unknown) => {
  console.error(error);
  throw error;
});
