// fairsight's service worker: precaches the page, the core (wasm), the default engine and
// the sample games, so the page works offline after the first visit. Same-origin requests
// go to the network first (so a new build is picked up at once) and fall back to the
// cache; whatever the page fetched (the strong engine too, once chosen) is kept for
// offline use. It never contacts any other origin.
const CACHE = 'fairsight-v1';
const PRECACHE = [
  './',
  'index.html',
  'embed.html',
  'www/app.js',
  'www/view/index.js',
  'www/view/dom.js',
  'www/view/format.js',
  'www/view/games.js',
  'www/view/board.js',
  'www/view/move.js',
  'www/view/charts.js',
  'www/view/movemap.js',
  'www/view/players.js',
  'www/view/explain.js',
  'www/analyzer.js',
  'www/analyzer-worker.js',
  'www/report-store.js',
  'www/pool.js',
  'www/shell.js',
  'www/eta.js',
  'www/style.css',
  'www/pkg/fairsight.js',
  'www/pkg/fairsight_bg.wasm',
  'www/pkg/engine/stockfish-19-lite-single.js',
  'www/pkg/engine/stockfish-19-lite-single.wasm',
  'www/pkg/chessground/chessground.min.js',
  'www/pkg/chessground/chessground.base.css',
  'www/pkg/chessground/chessground.brown.css',
  'www/pkg/chessground/chessground.cburnett.css',
  'samples/club-blitz.pgn',
  'models/opening-book.bin',
];

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith(
    fetch(req)
      .then((res) => {
        if (res.ok && res.type === 'basic') {
          const copy = res.clone();
          caches.open(CACHE).then((cache) => cache.put(req, copy));
        }
        return res;
      })
      .catch(() =>
        caches.match(req, { ignoreSearch: true }).then((hit) => {
          if (hit) return hit;
          if (req.mode === 'navigate') {
            return caches.match(url.pathname.endsWith('embed.html') ? 'embed.html' : 'index.html');
          }
          return new Response('offline and not cached', { status: 503 });
        }),
      ),
  );
});
