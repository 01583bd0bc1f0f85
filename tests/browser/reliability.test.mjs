// No lost or doubled plies, whatever kills a worker (issue 13 item 1, the page's part):
// two Stockfish workers run at once on a multi-chunk input; one of them dies after at
// least two positions of its chunk are finished, through each of the pool's three paths:
// the worker's `error` event, a line that breaks the UCI protocol (garbage, or a line
// out of place), and silence past the stall deadline. The pool replaces it and retries
// the chunk; the final report must equal an undisturbed run's byte for byte (and the
// undisturbed run the CLI's with two engines).
//
// The faults are injected from the test into the running analysis (the engine pool runs
// in the page's analyzer worker), through the same event handlers a real failure
// reaches: an ErrorEvent or a MessageEvent dispatched on the engine's worker, or the
// worker terminated behind the pool's back. The page has no fault hook.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { analysePgn, cliReport, fixture, launch, nextAnalyzerWorker, openPage, root, startServer, SKIP } from './harness.mjs';

let browser;
let site;

before(async () => {
  if (SKIP) return; // every test is skipped, with the reason
  site = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  site?.close();
});

// Two games of 26 plies: four chunks of the default 16 plies, each with at least six
// searched positions, so a chunk is always killed with work left.
const GAMES = path.join(root, 'tests', 'fixtures', 'defaults.pgn');
// Depth 12: long enough that both workers overlap (at depth 8 one worker could finish
// every chunk while the other was still compiling its engine).
const SETTINGS = 'depth=12&lines=2&workers=2&nosw=1';
const STALL_MS = 5000;

let baseline; // the undisturbed page run's report JSON

async function undisturbed() {
  if (baseline) return baseline;
  const { context, page, errors } = await openPage(browser, `${site.origin}/?${SETTINGS}`);
  await analysePgn(page, fixture('defaults.pgn'));
  baseline = await page.evaluate(() => window.fairsight.state.reportJson);
  assert.equal(await page.evaluate(() => window.fairsight.state.lastRun.workers), 2);
  assert.deepEqual(errors, []);
  await context.close();
  // The undisturbed run is itself the CLI's report with two engines.
  assert.equal(`${baseline}\n`, cliReport(GAMES, ['--depth', '12', '--multipv', '2', '--jobs', '2']));
  return baseline;
}

/**
 * Runs the games with a fault injected into the first worker that has finished at
 * least two positions of its chunk while the other worker is busy too. Returns the
 * report JSON, the page's messages and what the injection saw.
 */
async function runWithFault(kind) {
  const { context, page, errors } = await openPage(
    browser,
    `${site.origin}/?${SETTINGS}&stall=${kind === 'silence' ? STALL_MS : 600000}`,
  );
  // The analyzer's worker starts when the PGN is given (its engines with it).
  const analyzer = nextAnalyzerWorker(page);
  await page.fill('#pgn', fixture('defaults.pgn'));
  await page.click('#analyse');
  // In the analyzer's worker, wrap the running pool's onPartial (set synchronously with
  // the pool) as soon as the pool is there: count each job's finished positions, and
  // inject the fault in the microtask after the partial result that brings a job to two,
  // once both workers have a job. Resolves to what the injection saw.
  const seen = await (await analyzer).evaluate(
    (kind) =>
      new Promise((resolve) => {
        const seen = { injected: false };
        const wrap = () => {
          const pool = self.fairsightPool;
          if (!pool || !pool.onPartial) return false;
          const done = new Map();
          const onPartial = pool.onPartial;
          pool.onPartial = (k, json) => {
            onPartial(k, json);
            done.set(k, (done.get(k) || 0) + JSON.parse(json).positions.length);
            const busy = pool.slots.filter((s) => s.worker && s.job !== null);
            if (seen.injected || done.get(k) < 2 || busy.length < 2) return;
            const slot = pool.slots.find((s) => s.job === k);
            seen.injected = true;
            seen.job = k;
            seen.finished = done.get(k);
            seen.tasks = JSON.parse(pool.jobs[k]).tasks.length;
            seen.busy = busy.length;
            queueMicrotask(() => {
              seen.stillRunning = slot.job === k;
              const worker = slot.worker;
              if (kind === 'error') {
                worker.dispatchEvent(new ErrorEvent('error', { message: 'injected fault' }));
              } else if (kind === 'garbage') {
                // A malformed line, as a broken engine build or a garbled transport would give.
                worker.dispatchEvent(new MessageEvent('message', { data: 'info depth x score cp' }));
              } else if (kind === 'an unexpected line') {
                // A well-formed line that has no place in a search.
                worker.dispatchEvent(new MessageEvent('message', { data: 'uciok' }));
              } else {
                worker.terminate(); // silent from now on: only the stall deadline notices
              }
              resolve(seen);
            });
          };
          return true;
        };
        // Until the pool is gone again (a run that never met the fault's conditions).
        let wrapped = false;
        const poll = setInterval(() => {
          if (!wrapped) wrapped = wrap();
          else if (!self.fairsightPool) {
            clearInterval(poll);
            resolve(seen);
          }
        }, 1);
      }),
    kind,
  );
  await page.waitForFunction(() => window.fairsight.state.runs > 0, null, { timeout: 300000 });
  const json = await page.evaluate(() => window.fairsight.state.reportJson);
  const messages = await page.textContent('#messages');
  await context.close();
  return { seen, json, messages, errors };
}

for (const [kind, reason] of [
  ['error', /engine worker error: injected fault; restarting the engine and retrying job \d/],
  ['garbage', /engine protocol error: engine printed a malformed line: info depth x score cp; restarting the engine and retrying job \d/],
  ['an unexpected line', /engine protocol error: unexpected engine line: uciok; restarting the engine and retrying job \d/],
  ['silence', /engine silent for 5 s; restarting the engine and retrying job \d/],
]) {
  test(`a worker that dies by ${kind} after two positions of its chunk loses and doubles no ply`, { skip: SKIP }, async () => {
    const clean = await undisturbed();
    const { seen, json, messages, errors } = await runWithFault(kind);
    assert.equal(seen.injected, true, `the fault was injected: ${JSON.stringify(seen)} ${messages}`);
    assert.ok(seen.finished >= 2, `${seen.finished} positions of the chunk were finished`);
    assert.ok(seen.finished < seen.tasks, `the chunk had work left (${seen.finished} of ${seen.tasks})`);
    assert.equal(seen.stillRunning, true, 'the chunk was still running when its worker died');
    assert.equal(seen.busy, 2, 'both workers were running a chunk');
    assert.match(messages, reason);
    assert.doesNotMatch(messages, /failed twice|could not be analysed|rejected/);
    assert.equal(json, clean, 'the report equals the undisturbed run byte for byte');
    assert.deepEqual(errors, []);
  });
}
