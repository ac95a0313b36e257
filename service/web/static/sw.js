// The service worker of the offline app, served as /sw.js (service/web/offline.py writes its
// first line: the version, a hash of every file below, and the URLs to keep).
//
// Everything the page needs to play offline is fetched at install into a cache named by the
// version: the page, its modules, the engine's modules, the five catalogs, the help pages.
// Those are answered from the cache first (they only change with a new version, which comes
// with a new cache); the API is never cached (the page keeps its own record of the game).
// A new version installs beside the old one, takes over at once and deletes the old cache.

const CONFIG = { version: "dev", files: ["/"] };
const CACHE = `sr-${CONFIG.version}`;
const sw = /** @type {any} */ (self);

sw.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(CONFIG.files.map((url) => new Request(url, { cache: "reload" })));
    await sw.skipWaiting();
  })());
});

sw.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("sr-") && name !== CACHE) await caches.delete(name);
    }
    await sw.clients.claim();
  })());
});

sw.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin) return;
  if (url.pathname.startsWith("/v1/") && url.pathname !== "/v1/rules") return; // the API: the network only
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    // the page itself answers "/" with any query (?lang=de)
    const key = request.mode === "navigate" && url.pathname === "/" ? "/" : request;
    const hit = await cache.match(key);
    if (hit) return hit;
    return fetch(request);
  })());
});
