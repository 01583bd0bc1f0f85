// Serves the page (index.html, embed.html, sw.js, www/, samples/) on localhost with no
// dependencies. Usage: node scripts/serve.mjs [--port N] [--host H] [--quiet]
// Only the page's own files are served; everything else (target/, .git, ...) is 404.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.pgn': 'application/x-chess-pgn; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};
const TOP = new Set(['index.html', 'embed.html', 'sw.js', 'manifest.webmanifest', 'LICENSE']);
const DIRS = ['www/', 'samples/', 'models/'];

// The same policy as the pages' <meta> tag, also sent as a header (it then covers the
// engine workers too).
export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; " +
  "connect-src 'self'; img-src 'self' data: blob:; style-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

/**
 * Starts the server; resolves with it once listening (port 0 picks a free port).
 * `log` receives one line per request served.
 */
export function serve({ port = 8080, host = '127.0.0.1', log = () => {}, csp = true } = {}) {
  const server = http.createServer((req, res) => {
  let rel;
  try {
    rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '');
  } catch {
    res.writeHead(400).end('bad request');
    return;
  }
  if (rel === '') rel = 'index.html';
  const allowed = TOP.has(rel) || DIRS.some((d) => rel.startsWith(d));
  const file = path.resolve(root, rel);
  if (!allowed || !file.startsWith(root + path.sep) || rel.includes('..')) {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    return;
  }
  fs.stat(file, (err, st) => {
    if (err || !st.isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const headers = {
      'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
      'Content-Length': st.size,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    };
    // `csp: false` serves as a plain static host would: the pages' <meta> policy alone.
    if (csp) headers['Content-Security-Policy'] = CSP;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    fs.createReadStream(file).pipe(res);
    log(`${req.method} /${rel}`);
  });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
  };
  const host = opt('--host', '127.0.0.1');
  const quiet = args.includes('--quiet');
  serve({
    port: Number(opt('--port', process.env.PORT || 8080)),
    host,
    log: quiet ? () => {} : (line) => console.error(line),
  }).then(
    (server) => console.log(`fairsight: serving http://${host}:${server.address().port}/ (Ctrl-C to stop)`),
    (err) => {
      console.error(`fairsight: cannot serve: ${err.message}`);
      process.exit(2);
    },
  );
}
