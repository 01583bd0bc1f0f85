// Shared set-up of the browser tests and the browser benchmark: the page served on
// localhost by scripts/serve.mjs, Debian's Chromium driven by playwright-core, a request
// log, console errors collected, screenshots under target/screenshots/.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const shots = path.join(root, 'target', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

export function fixture(name) {
  return fs.readFileSync(path.join(root, 'tests', 'fixtures', name), 'utf8');
}

/** Starts the page server on a free port. */
export async function startServer() {
  const server = await serve({ port: 0 });
  const { port } = server.address();
  return { server, origin: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** What the browser tests need, with how to get it: Chromium, the built page, and node's
 *  Stockfish in it (copied from node_modules by scripts/build-web.sh). */
const REQUIREMENTS = [
  [CHROMIUM, 'run scripts/install.sh (apt-get install chromium)'],
  [path.join(root, 'www', 'pkg', 'fairsight_bg.wasm'), 'run scripts/build-web.sh'],
  [
    path.join(root, 'www', 'pkg', 'engine', 'stockfish-19-lite-single.wasm'),
    'run npm ci, then scripts/build-web.sh',
  ],
];

/** The first missing requirement as a sentence, or null. */
function missing() {
  const absent = REQUIREMENTS.find(([file]) => !fs.existsSync(file));
  if (!absent) return null;
  const [file, how] = absent;
  return `${file.startsWith(root + path.sep) ? path.relative(root, file) : file} missing: ${how}`;
}

/**
 * The `skip` option of every browser test: outside CI, the reason a requirement is
 * missing (node's test runner reports the test as skipped with it, and counts it in its
 * summary); under CI (the `CI` variable set) false, so the tests run and launch() fails
 * them with the same reason.
 */
export const SKIP = (!process.env.CI && missing()) || false;

export async function launch() {
  const absent = missing();
  if (absent) throw new Error(absent);
  fs.mkdirSync(shots, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * A new context and page with a request log (every URL requested, by the page, its
 * workers and its service worker) and the console errors and page errors.
 */
export async function openPage(
  browser,
  url,
  { viewport = { width: 1280, height: 900 }, colorScheme = 'light' } = {},
) {
  const context = await browser.newContext({ viewport, colorScheme, acceptDownloads: true });
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  const errors = [];
  context.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.url()}`);
  });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.state === 'idle', null, {
    timeout: 30000,
  });
  return { context, page, requests, errors, dialogs };
}

/**
 * The analyzer worker (www/analyzer-worker.js) of the next run the page starts: ask
 * before starting it, await after. The run's engines are that worker's own, and its
 * engine pool is `self.fairsightPool` there while it runs. (A Playwright `Worker` has no
 * `waitForFunction`: a test waits there with a `setInterval` inside `evaluate`.)
 */
export function nextAnalyzerWorker(page, { timeout = 60000 } = {}) {
  return page.waitForEvent('worker', { predicate: (w) => w.url().includes('analyzer-worker'), timeout });
}

/** Pastes a PGN, presses Analyse and waits for the end (done or cancelled). */
export async function analysePgn(page, pgn, { timeout = 300000 } = {}) {
  const runs = await page.evaluate(() => window.fairsight.state.runs);
  // After a run the input is folded away: bring it back as a user would.
  if (await page.isVisible('#again')) await page.click('#again');
  await page.fill('#pgn', pgn);
  await page.click('#analyse');
  await page.waitForFunction((n) => window.fairsight.state.runs > n, runs, { timeout });
  return JSON.parse(await page.evaluate(() => window.fairsight.state.reportJson));
}

/** The CLI's JSON report for the same input and settings (node + the same engine build). */
export function cliReport(pgnFile, args) {
  const bin = path.join(root, 'target', 'debug', 'fairsight');
  if (!fs.existsSync(bin)) execFileSync('cargo', ['build', '--quiet'], { cwd: root });
  const out = path.join(root, 'target', `cli-${process.pid}-${Date.now()}.json`);
  execFileSync(bin, ['analyze', pgnFile, '--quiet', '--json', out, ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const text = fs.readFileSync(out, 'utf8');
  fs.rmSync(out);
  return text;
}

/** Runs the CLI (debug build) and returns its stdout. */
export function cli(args) {
  const bin = path.join(root, 'target', 'debug', 'fairsight');
  if (!fs.existsSync(bin)) execFileSync('cargo', ['build', '--quiet'], { cwd: root });
  return execFileSync(bin, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

export function shot(page, name) {
  return page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

const RESULTS = ['1-0', '0-1', '1/2-1/2'];

/**
 * `n` short games of `count` players (a deterministic generator: the same file every run),
 * each the first six plies of the Ruy Lopez, all in the built-in book. Returns the PGN
 * and each game's players, in input order.
 */
export function manyGames(n, count = 60) {
  let seed = 12345; // mulberry32
  const next = (k) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % k;
  };
  const players = Array.from({ length: count }, (_, i) => `Player${String(i).padStart(3, '0')}`);
  const games = [];
  const text = [];
  for (let g = 0; g < n; g++) {
    const white = players[next(count)];
    let black = players[next(count)];
    if (black === white) black = players[(players.indexOf(white) + 1) % count];
    const result = RESULTS[next(3)];
    games.push({ white, black, result });
    text.push(
      `[Event "Season round ${Math.floor(g / 50) + 1}"]\n[White "${white}"]\n[Black "${black}"]\n[Result "${result}"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 ${result}\n`,
    );
  }
  return { pgn: text.join('\n'), games };
}
