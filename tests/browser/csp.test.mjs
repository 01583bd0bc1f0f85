// The privacy promise on a plain static host: the page's own <meta> Content-Security-
// Policy, with no CSP header (scripts/serve.mjs with `csp: false`, as Python's
// http.server or any file host would serve it), blocks an inline script and a request to
// another origin, and a whole analysis asks nothing of any other origin.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { analysePgn, fixture, launch, openPage, SKIP } from './harness.mjs';
import { serve } from '../../scripts/serve.mjs';

let browser;
let site;
let foreign;
let foreignHits = 0;

before(async () => {
  if (SKIP) return; // every test is skipped, with the reason
  const server = await serve({ port: 0, csp: false });
  site = { server, origin: `http://127.0.0.1:${server.address().port}` };
  // Another origin that would answer anyone (CORS open): only the page's policy can stop
  // a request to it.
  foreign = http.createServer((req, res) => {
    foreignHits += 1;
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'text/plain' });
    res.end('leaked');
  });
  await new Promise((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  site?.server.close();
  foreign?.close();
});

test('on a static host with no CSP header, the page policy blocks inline scripts and other origins', { skip: SKIP }, async () => {
  // The server really sends no policy: only the <meta> tag can act.
  const head = await fetch(`${site.origin}/index.html`);
  assert.equal(head.headers.get('content-security-policy'), null);
  const other = `http://127.0.0.1:${foreign.address().port}`;

  const { context, page, requests, errors } = await openPage(browser, `${site.origin}/?depth=4&lines=1&nosw=1`);
  const outcome = await page.evaluate(async (url) => {
    const violations = [];
    document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
    // An inline script, as an injected payload would add it.
    const s = document.createElement('script');
    s.textContent = 'window.__fairsightPwned = 1;';
    document.body.append(s);
    // A request to another origin, as a leak would make it.
    let fetched = 'no error';
    try {
      await fetch(`${url}/game`, { method: 'POST', body: '1. e4 e5' });
    } catch (err) {
      fetched = String(err);
    }
    await new Promise((r) => setTimeout(r, 200));
    return { pwned: window.__fairsightPwned ?? null, fetched, violations };
  }, other);
  assert.equal(outcome.pwned, null, 'the inline script did not run');
  assert.match(outcome.fetched, /TypeError/, 'the cross-origin request failed');
  assert.ok(
    outcome.violations.some((d) => d.startsWith('script-src')),
    `a script-src violation: ${outcome.violations}`,
  );
  assert.ok(
    outcome.violations.some((d) => d.startsWith('connect-src')),
    `a connect-src violation: ${outcome.violations}`,
  );
  assert.equal(foreignHits, 0, 'the other origin never heard from the page');

  // A whole analysis asks nothing of any other origin.
  const report = await analysePgn(page, fixture('legal-trap.pgn'));
  assert.equal(report.games.length, 1);
  assert.ok(report.games[0].plies.some((p) => p.searched), 'the engine ran');
  const elsewhere = requests.filter(
    (u) => !u.startsWith(`${site.origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:'),
  );
  assert.deepEqual(elsewhere, [], 'requests to other origins');
  assert.equal(foreignHits, 0);
  // The blocked attempts above are the only errors the console shows.
  assert.ok(
    errors.every((e) => /Content Security Policy|Failed to fetch|violates/i.test(e)),
    errors.join('\n'),
  );
  await context.close();
});
