// The service worker, served at /sw.js by config/webapp.py, which puts before this file VERSION
// (a digest of the files it keeps) and SHELL (their URLs: the page, the offline page, the static
// files, the icons).
//
// It keeps the shell and the static files, and nothing else: never an API answer (a game, a hint,
// a deal: they may hold face-down cards), never a socket, never the admin. Pages are asked of the
// network first; offline, the page kept from the last visit answers, else the offline page. Static
// files answer from the cache, else from the network (and are kept).
const CACHE = `daily-patience-${VERSION}`;
const PREFIX = "daily-patience-";
const OFFLINE = "/offline/";
// Never answered, never kept: asked of the network as the page asked.
const NEVER = ["/api/", "/ws/", "/admin/", "/i18n/", "/metrics", "/healthz", "/sw.js"];
// Pages kept as they are fetched (the shell and the rules), to be shown offline.
const PAGES = [/^\/$/, /^\/rules\//, /^\/offline\/$/];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith(PREFIX) && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

/** Keep a good same-origin answer of a GET (never a redirect, an error or an opaque answer). */
async function keep(request, response) {
  if (!response || !response.ok || response.type !== "basic" || response.redirected) return;
  const cache = await caches.open(CACHE);
  await cache.put(request, response);
}

async function page(request, url) {
  try {
    const response = await fetch(request);
    if (PAGES.some((pattern) => pattern.test(url.pathname)) && !url.search) await keep(url.pathname, response.clone());
    return response;
  } catch {
    const cache = await caches.open(CACHE);
    const kept = (await cache.match(url.pathname)) || (await cache.match(OFFLINE));
    return kept || new Response("Offline", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}

async function asset(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  await keep(request, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || NEVER.some((path) => url.pathname.startsWith(path))) return;
  if (request.mode === "navigate") event.respondWith(page(request, url));
  else if (url.pathname.startsWith("/static/") || SHELL.includes(url.pathname)) event.respondWith(asset(request));
});

// A notification of the next deal, clicked: the open page comes forward, else a new one opens.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (open) {
        open.navigate("/#/").catch(() => {});
        return open.focus();
      }
      return self.clients.openWindow("/#/");
    }),
  );
});
