// The page's client of the public /v1 API: JSON in and out, and a refusal as an ApiError
// carrying the problem (its `detail` is already in the language asked for). Status 0 is
// "no answer": the network is down or the server unreachable.

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code || null;
  }
}

// `lang` is sent as Accept-Language, `token` (if any) as the bearer, `headers` as they are
// (If-Match, Idempotency-Key); `offline` is the message when the server cannot be reached;
// `keepalive` lets a request outlive the page (a batch sent as the tab is hidden).
/**
 * @param {string} method
 * @param {string} path
 * @param {{body?: unknown, lang?: string, token?: string | null, offline?: string,
 *          headers?: Record<string, string>, keepalive?: boolean}} [options]
 */
export async function request(method, path, options = {}) {
  const { body, lang, token = null, offline = "Network error", keepalive = false } = options;
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json, application/problem+json", ...(options.headers || {}) };
  if (lang) headers["Accept-Language"] = lang;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(`/v1${path}`, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store", keepalive,
    });
  } catch {
    throw new ApiError(0, { detail: offline });
  }
  let data = null;
  try {
    data = await response.json();
  } catch { /* an empty or non-JSON body */ }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}
