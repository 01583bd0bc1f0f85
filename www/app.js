// The page controller: input (drop, paste, pick, sample, saved report), settings,
// progress, rendering and exports. Chess logic lives in the core (wasm). A run's
// `Analyzer` (import, plan, results, report), its engines (the core's WorkerPool, whose
// build pool.js picks) and its cache lookups and writes (the core's `JobCache`, in
// IndexedDB) all live in the run's own worker (analyzer.js), off the main thread, which
// hears the positions done and draws; the page keeps a `JobCache` of its own for the
// cache's count and "Clear cached analyses". Rendering is in view/ (index.js). The
// report's games live in IndexedDB (report-store.js): the tab keeps the report without
// them and a light row a game, and loads a game when it is opened.
import init, {
  JobCache,
  annotateReport,
  modelsApplying,
  normaliseReport,
  rerateReport,
  screeningText,
  version,
} from './pkg/fairsight.js';
import { Chessground } from './pkg/chessground/chessground.min.js';
import {
  PLAYER_PAGE,
  SUMMARY_PAGE,
  renderGame,
  renderGameList,
  renderMoveMap,
  renderPlayers,
  renderSummary,
  selectInGameList,
  selectInMoveMap,
} from './view/index.js';
import { AnalyzerWorker } from './analyzer.js';
import { ReportStore, internRows, storeReport } from './report-store.js';
import { BUILDS, defaultWorkers } from './pool.js';
import { buildShell } from './shell.js';
import { eta } from './eta.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const embedded = document.body.classList.contains('embed');

const state = {
  status: 'loading', // loading | idle | running | done | cancelled | error (nothing to analyse)
  // The report shown: without its games' plies ({...head, games: light rows}).
  report: null,
  run: null, // its id in the store (report-store.js)
  store: null,
  shown: null, // the game on screen, loaded from the store: {run, index, hash, game}
  files: null, // the large files last analysed (kept out of the PGN box)
  /** The whole report's JSON, read back from the store (a promise), or null. */
  get reportJson() {
    return state.run ? state.store.text(state.run) : null;
  },
  game: null,
  ply: 0,
  pool: null,
  cache: null,
  renderTimer: null,
  replyTo: null,
  gameSort: { key: 'index', dir: 'ascending' }, // the games table's order
  playerSort: null, // the summary's order (null: the report's)
  playersShown: PLAYER_PAGE, // the player panels drawn (a page more at each "Show more")
  summaryShown: SUMMARY_PAGE, // the summary's rows drawn (likewise)
  filter: '', // the games table's player filter
  runs: 0, // analyses finished (done or cancelled)
  lastRun: null, // timings of the last analysis (for the benchmark)
  early: null, // {key, analyzer}: a worker whose engines were started when a PGN was given
  analyzer: null, // the last run's analyzer worker (its handle; tests)
  inputGames: null, // {run, count}: the games of the file a run analyses
};

// ---------------------------------------------------------------- messages, progress

/**
 * After a run or an opened report the input folds away, so the summary leads the page;
 * "Analyse another game" brings it back (Analyse re-runs the same games, e.g. with other
 * settings).
 */
function foldInput(folded) {
  document.body.classList.toggle('input-folded', folded);
}

function setStatus(status) {
  state.status = status;
  document.body.dataset.state = status;
  $('analyse').disabled = status === 'running' || status === 'loading';
  $('cancel').disabled = status !== 'running';
  // A report exported while the engines run would be a part of one: the exports wait
  // for the end (a cancelled run's games can be exported), and say so.
  const running = status === 'running';
  for (const b of document.querySelectorAll('.exports button')) b.disabled = running;
  $('export-wait').classList.toggle('hidden', !running);
}

function message(text, kind = 'error') {
  const p = document.createElement('p');
  p.className = kind;
  p.textContent = text;
  $('messages').append(p);
}

function clearMessages() {
  $('messages').replaceChildren();
}

function clock(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}

/** The import's progress: games read so far (the bar has no end yet). */
function showImport(games) {
  $('status').classList.remove('hidden');
  $('bar').removeAttribute('value');
  setProgressText(`Importing: ${games} game${games === 1 ? '' : 's'}…`);
}

/**
 * Writes the progress line's text. During a run it is drawn again every PROGRESS_MS, each a
 * frame of the page on this thread, taken from the engines: only what changed is written,
 * and the text in place (its node's data) rather than a new node, which would be laid out
 * again with its box.
 */
function setProgressText(text) {
  const el = $('progress-text');
  const node = el.firstChild;
  if (node && node.nodeType === Node.TEXT_NODE && !node.nextSibling) {
    if (node.data !== text) node.data = text;
  } else {
    el.textContent = text;
  }
}

function showProgress(done, total, text) {
  const status = $('status');
  if (status.classList.contains('hidden')) status.classList.remove('hidden');
  const bar = $('bar');
  const max = Math.max(1, total);
  if (bar.max !== max) bar.max = max;
  if (!bar.hasAttribute('value') || bar.value !== done) bar.value = done;
  setProgressText(text);
}

// ---------------------------------------------------------------- settings

function readSettings() {
  const kind = $('limit-kind').value;
  const value = Math.max(1, Number($('limit-value').value) | 0);
  const multipv = Math.min(10, Math.max(1, Number($('lines').value) | 0));
  const settings = { limit: kind === 'nodes' ? { nodes: value } : { depth: value }, multipv };
  if ($('mode').value === 'screening') {
    // Regan's zig-zag: SLM to d (choice recorded from dmin), then L lines to depth dL.
    settings.limit = { depth: value };
    settings.screening = {
      slmDepth: Math.min(60, Math.max(1, Number($('slm-depth').value) | 0)),
      minDepth: Math.max(1, Number($('min-depth').value) | 0),
    };
  }
  // Advanced, URL only (as the CLI's --chunk and --hash): they change the numbers.
  if (params.get('chunk')) settings.chunkPlies = Number(params.get('chunk'));
  if (params.get('hash')) settings.hashMb = Number(params.get('hash'));
  return {
    settings,
    workers: Math.min(16, Math.max(1, Number($('workers').value) | 0)),
    build: $('strong').checked ? BUILDS.strong : BUILDS.lite,
  };
}

/** Switches the settings between review and screening, with each mode's defaults for
 *  the depth and the lines (screening: dL = 14, L = 10). */
function setMode(mode) {
  const was = $('mode').dataset.mode || 'review';
  $('mode').value = mode;
  $('mode').dataset.mode = mode;
  document.body.classList.toggle('mode-screening', mode === 'screening');
  if (mode === was) return;
  if (mode === 'screening') {
    $('limit-kind').value = 'depth';
    $('limit-value').value = 14;
    $('lines').value = 10;
  } else {
    $('limit-value').value = 14;
    $('lines').value = 4;
  }
  $('limit-kind').disabled = mode === 'screening';
}

function applyParams() {
  if (params.get('mode') === 'screening') setMode('screening');
  $('workers').value = params.get('workers') || defaultWorkers();
  if (params.get('nodes')) {
    $('limit-kind').value = 'nodes';
    $('limit-value').value = params.get('nodes');
  } else if (params.get('depth')) {
    $('limit-value').value = params.get('depth');
  }
  if (params.get('slm')) $('slm-depth').value = params.get('slm');
  if (params.get('dmin')) $('min-depth').value = params.get('dmin');
  if (params.get('lines')) $('lines').value = params.get('lines');
  if (params.get('strong') === '1') $('strong').checked = true;
  if (['none', 'builtin'].includes(params.get('book'))) $('book-kind').value = params.get('book');
}

/**
 * Says, before a run, whether the settings are the calibrated analysis (the one the
 * shipped models were fitted at) and, when not, what they switch off. The rule is the
 * core's (`modelsApplying`).
 */
function updateCalibrationNote() {
  const note = $('calibration-note');
  let m;
  try {
    const { settings, build } = readSettings();
    const kind = $('book-kind').value;
    settings.book = kind === 'file' ? 'file:' : kind;
    m = modelsApplying(settings, build);
  } catch {
    note.textContent = '';
    return;
  }
  const c = m.calibrated || {};
  const calibrated = `depth ${c.limit?.depth ?? '?'}, ${c.multipv ?? '?'} lines, the ${
    m.calibratedBuild === BUILDS.lite ? 'standard' : String(m.calibratedBuild)
  } engine, the ${c.book === 'builtin' ? 'built-in' : String(c.book)} book`;
  const off = [
    !m.assessment && 'the fair-play assessment',
    !m.classifier && 'the move classifier',
    !m.calibration && "Regan's rating calibration (z-scores, IPR, verdicts)",
  ].filter(Boolean);
  note.classList.toggle('warning', off.length > 0);
  note.textContent =
    off.length === 0
      ? `Calibrated analysis (${calibrated}): the assessment, the move classifier and the rating calibration all apply.`
      : `These settings switch off ${off.join(', ')}: they were fitted at ${calibrated}. The report will show the other statistics only.`;
}

let builtinBook = null;

/** The opening book chosen in the settings: its label for the report and its bytes. */
async function loadBook() {
  const kind = $('book-kind').value;
  if (kind === 'none') return { label: 'none', bytes: undefined };
  if (kind === 'file') {
    const file = $('book-file').files[0];
    if (!file) throw new Error('Choose a Polyglot book file, or another opening book setting.');
    return { label: `file:${file.name}`, bytes: new Uint8Array(await file.arrayBuffer()) };
  }
  if (!builtinBook) {
    const res = await fetch(new URL('../models/opening-book.bin', import.meta.url));
    if (!res.ok) throw new Error(`Cannot load the built-in opening book (HTTP ${res.status}).`);
    builtinBook = new Uint8Array(await res.arrayBuffer());
  }
  return { label: 'builtin', bytes: builtinBook };
}

// ---------------------------------------------------------------- rendering

/** Stores a whole report (opened, or rerated) as a new run and shows it. */
async function setReport(json) {
  const run = ReportStore.newRun();
  showView(await storeReport(state.store, run, json), run);
}

/**
 * Shows a report as the page keeps it: `head` (the report without its games) and `rows`
 * (a light row a game), its games stored under `run`; the report it replaces leaves the
 * store. With `parts` (a worker without IndexedDB), the texts are kept here.
 */
function showView({ head, rows, parts }, run) {
  if (parts) state.store.put(run, parts, parts.changed, { memory: parts.memory });
  if (state.run && state.run !== run) state.store.remove(state.run).catch(() => {});
  state.run = run;
  state.report = { ...head, games: internRows(rows) };
  const games = rows;
  if (state.game === null || !games[state.game] || games[state.game].error) {
    const first = games.find((g) => !g.error);
    state.game = first ? first.index : null;
    state.ply = 0;
  }
  return render();
}

function render() {
  const report = state.report;
  if (!report) return;
  $('results').classList.remove('hidden');
  $('apply-ratings').disabled = false;
  const engine = report.engine || {};
  $('engine-info').textContent = engine.name ? `engine: ${engine.name} (${engine.build})` : '';
  const screening = Boolean(report.settings && report.settings.screening);
  $('export-log').classList.toggle('hidden', !screening);
  $('export-results').classList.toggle('hidden', !screening);
  renderSummary($('summary'), report, {
    sort: playerOrder(),
    onSort: (sort) => {
      state.playerSort = sort;
      render();
    },
    limit: state.summaryShown,
    onMore: () => {
      state.summaryShown += SUMMARY_PAGE;
      render();
    },
    onPlayer: (name) => {
      $('player-filter').value = name;
      setFilter(name);
      $('player-filter').focus({ preventScroll: true });
      $('games-title').scrollIntoView({ block: 'start' });
    },
  });
  const names = [...new Set((report.players || []).map((p) => String(p?.name ?? '')).filter(Boolean))];
  $('player-names').replaceChildren(...names.map((n) => Object.assign(document.createElement('option'), { value: n })));
  renderList();
  renderMoveMap($('move-map'), report, { selected: state.game, onSelect: openGame });
  const game = showGame();
  renderPlayerPanels();
  return game;
}

/**
 * The summary's order: the one the user chose; else, with more players than a page of
 * the summary, the players to look at first (by level, then probability); else the
 * report's.
 */
function playerOrder() {
  // The players to look at first, first (as the CLI's table), until a column is sorted.
  return state.playerSort ?? { key: 'level', dir: 'descending' };
}

/** The player panels: the filtered players in the summary's order, a page at a time. */
function renderPlayerPanels() {
  renderPlayers($('players'), state.report, {
    sort: playerOrder(),
    filter: state.filter,
    limit: state.playersShown,
    onMore: () => {
      state.playersShown += PLAYER_PAGE;
      renderPlayerPanels();
    },
    onRate: (name, elo) => {
      // The settings' box keeps every rating given, one line a player (this one's
      // replaced), and the report shown is read against them at once.
      const key = name.trim().toLowerCase();
      const kept = ratingLines().filter((l) => {
        const at = l.lastIndexOf('=');
        return at < 0 || l.slice(0, at).trim().toLowerCase() !== key;
      });
      $('ratings').value = [...kept, `${name}=${elo}`].join('\n');
      clearMessages();
      applyRatings().then((applied) => {
        // The box is gone with the rating; the focus goes to the player's card, read anew.
        const head = applied && [...$('players').querySelectorAll('.player-card h3')].find((el) => el.textContent === name);
        if (!head) return;
        head.setAttribute('tabindex', '-1');
        head.focus();
      });
    },
  });
}

let gameLoads = 0;

/**
 * Draws the selected game: at once when it is the one loaded, else after reading it
 * from the store (the game pane is empty meanwhile, so nothing shows the previous game).
 * Returns a promise of the drawing when the game is read (it never rejects).
 */
function showGame() {
  const token = ++gameLoads;
  const row = state.game === null ? null : state.report.games.find((g) => g && g.index === state.game);
  if (!row) {
    state.shown = null;
    $('game').replaceChildren();
    return;
  }
  const s = state.shown;
  if (s && s.run === state.run && s.index === row.index && s.hash === row.hash) {
    drawGame();
    return;
  }
  const run = state.run;
  if (!s || s.index !== row.index) $('game').replaceChildren(Object.assign(document.createElement('p'), { className: 'loading', textContent: 'Loading the game…' }));
  return state.store.game(run, row.index).then(
    (text) => {
      if (token !== gameLoads) return;
      if (text === undefined) throw new Error(`Game ${row.index + 1} is no longer stored in this browser.`);
      state.shown = { run, index: row.index, hash: row.hash, game: JSON.parse(text) };
      drawGame();
    },
    (err) => {
      if (token === gameLoads) message(`Cannot read game ${row.index + 1} from the browser's storage: ${err.message || err}`);
    },
  ).catch((err) => token === gameLoads && message(err.message || String(err)));
}

function drawGame() {
  const report = { ...state.report, games: [state.shown.game] };
  renderGame($('game'), report, state.game, { ply: state.ply, Chessground, onSelectPly: selectPly });
}

/** The games table alone (sorting and filtering rebuild nothing else). */
function renderList() {
  const { shown, total } = renderGameList($('games'), state.report, {
    selected: state.game,
    onSelect: openGame,
    sort: state.gameSort,
    onSort: (sort) => {
      state.gameSort = sort;
      renderList();
    },
    filter: state.filter,
  });
  // A file analysed a segment at a time lists the games of the segments reached so far
  // (all of them at the end, those reached when cancelled): the count says so.
  const input = state.inputGames?.run === state.run ? state.inputGames.count : total;
  $('games-count').textContent = state.filter.trim()
    ? `${shown} of ${total} game${total === 1 ? '' : 's'}`
    : total < input
      ? `${total} of the file's ${input} games`
      : `${total} game${total === 1 ? '' : 's'}`;
}

function setFilter(text) {
  state.filter = text;
  state.playersShown = PLAYER_PAGE;
  if (state.report) {
    renderList();
    renderPlayerPanels();
  }
}

/**
 * Opens a game chosen in the list or the move map: master-detail. On a wide screen it
 * shows beside the list; where the layout puts it below, it is scrolled into view.
 */
function openGame(i) {
  state.game = i;
  state.ply = 0;
  // Only the selection changes in the list and the map: building them again would reset
  // their scroll boxes (and, on a phone, leave a blank band where the new box was not yet
  // painted while the page scrolls to the game).
  if (!selectInGameList($('games'), i)) renderList();
  if (!selectInMoveMap($('move-map'), i)) renderMoveMap($('move-map'), state.report, { selected: state.game, onSelect: openGame });
  showGame();
  const list = $('games').getBoundingClientRect();
  const pane = $('game-pane').getBoundingClientRect();
  const beside = pane.left >= list.right - 1;
  const reduce = matchMedia('(prefers-reduced-motion: reduce)').matches;
  if (!beside || pane.top < 0 || pane.top > innerHeight) {
    $('game-pane').scrollIntoView({ block: 'start', behavior: reduce ? 'auto' : 'smooth' });
  }
}

/** The ratings typed in the page, one `NAME=ELO` per line. */
const ratingLines = () => $('ratings').value.split('\n').map((l) => l.trim()).filter(Boolean);

/**
 * Applies the ratings typed in the page to the report shown (an opened one too): the
 * core recomputes the players, their screening and assessments (`rerateReport`, as the
 * CLI's --rating; in the analyzer's worker, a batch of games at a time, when the report
 * is in IndexedDB). A bad line is an error; the report stays as it was.
 */
let ratingsApplied = Promise.resolve(true);
function applyRatings(options) {
  // One at a time: leaving the box and pressing the button fire both, and each must
  // start from the report the one before left.
  const next = ratingsApplied.then(() => applyRatingsNow(options));
  ratingsApplied = next.catch(() => false);
  return next;
}

async function applyRatingsNow({ quiet = false } = {}) {
  if (!state.run || state.status === 'running') return false;
  const lines = ratingLines();
  const run = state.run;
  // The report is read back from the store: an analysis started meanwhile wins.
  const superseded = () => state.status === 'running' || state.run !== run;
  try {
    // Stored in IndexedDB: the analyzer's worker reads its games back a batch at a time,
    // off this thread, and stores the result as a new run.
    let view = null;
    const next = ReportStore.newRun();
    if (await state.store.parts(run)) {
      const worker = new AnalyzerWorker();
      try {
        view = await worker.rerate(run, next, lines);
      } catch (err) {
        // A bad line is said; other failures (the browser refused the writes: a full
        // disk) are done here instead, kept in the tab if they must be.
        if (/^Rating "/.test(err.message)) {
          await state.store.remove(next).catch(() => {});
          throw err;
        }
        view = null;
      } finally {
        worker.terminate();
      }
    }
    if (view && superseded()) {
      await state.store.remove(next).catch(() => {});
      return false;
    }
    if (view) showView(view, next);
    else {
      await state.store.remove(next).catch(() => {});
      // Kept in the tab (no IndexedDB, or a full disk): here, as one text.
      const json = rerateReport(await state.reportJson, lines);
      if (superseded()) return false;
      await setReport(json);
    }
  } catch (err) {
    if (!superseded()) message(err.message || String(err));
    return false;
  }
  if (!quiet) {
    message(lines.length ? `Ratings applied to the report: ${lines.join(', ')}.` : 'Ratings cleared: the Elo tags apply.', 'info');
  }
  return true;
}

function selectPly(i) {
  state.ply = i;
  if (state.shown?.index === state.game) drawGame();
}

// Re-rendering the report while the analysis runs costs time on the main thread (the
// whole report view is rebuilt, the board with it, then laid out and painted), and with
// one worker per core that time is taken from the engines. So a run redraws the report
// at most every RENDER_MS, and never more than RENDER_SHARE of the time: the next redraw
// waits the last one's cost divided by that share (a redraw of 60 ms: 12 s). The cost is
// measured on this thread from the view's arrival to the frame after it (the game read
// from the store and drawn, layout and paint included), not the analyzer worker's time
// making the view. The progress line, with the positions done and the ETA, is drawn
// every PROGRESS_MS meanwhile: each drawing is a frame of the page on this thread (about
// 3 ms, more when the engines hold both cores), so every 2 s rather than every second.
// (`node scripts/bench-web.mjs`, 80-ply game, 2 workers: README, browser benchmark.)
const RENDER_MS = 4000;
const RENDER_SHARE = 0.005;
const PROGRESS_MS = 2000;
let renderCost = 0;

function scheduleRender(analyzer, stats) {
  if (state.renderTimer) return;
  state.renderTimer = setTimeout(async () => {
    let view;
    try {
      view = await analyzer.view();
    } catch {
      state.renderTimer = null;
      return; // the run ended meanwhile: its last report is shown
    }
    if (state.status !== 'running') {
      state.renderTimer = null;
      return;
    }
    const t = performance.now();
    await showView(view, analyzer.run);
    await nextFrame();
    renderCost = performance.now() - t;
    stats.renders.push(Math.round(renderCost));
    state.renderTimer = null;
  }, Math.max(RENDER_MS, renderCost / RENDER_SHARE));
}

/**
 * Tells scripts on the page (the browser benchmark) when a run's engines start and stop,
 * as the `fairsight:engines` event on `window` (`detail.running`): they can wait for it
 * instead of asking the page again and again, which would itself take the main thread.
 */
function enginesRunning(running) {
  window.dispatchEvent(new CustomEvent('fairsight:engines', { detail: { running } }));
}

/** Resolves after the next frame is drawn. */
function nextFrame() {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

// The longest wait for a drawing before the engines start: a hidden page draws no frames.
const DRAWN_MS = 500;

/** Resolves once `drawing` (a promise of a drawing, or nothing) is done and its frame drawn. */
function drawn(drawing) {
  const frame = Promise.resolve(drawing).then(nextFrame);
  return Promise.race([frame, new Promise((resolve) => setTimeout(resolve, DRAWN_MS))]);
}

// ---------------------------------------------------------------- analysis

// A silent engine is replaced after this long (`?stall=MS`: the tests' shorter one).
const STALL_MS = Number(params.get('stall')) || 60000;
// `?engines=late`: the engines never start before the click (the benchmark's baseline).
const LATE_ENGINES = params.get('engines') === 'late';
// `?draw=beside`: the engines get their jobs without waiting for the report's first
// drawing, which then takes the cores beside them (the benchmark's baseline).
const DRAW_BESIDE = params.get('draw') === 'beside';

const settingsKey = (chosen) => JSON.stringify(chosen);

/**
 * The analyzer worker for a run with settings `chosen` (readSettings): the one whose
 * engines started when the PGN was given, if it was made for the same settings; else a
 * new one, whose engines start once the games are imported, planned and looked up in the
 * cache (started at the click instead, beside the import, they met the first position
 * later on two cores: the engines' start and the import take the same cores).
 */
function analyzerFor(chosen) {
  const early = state.early;
  state.early = null;
  if (early && early.key === settingsKey(chosen)) return early.analyzer;
  early?.analyzer.terminate();
  return new AnalyzerWorker();
}

/**
 * A PGN was given (typed or pasted in the box, or in the page's address without
 * `auto`), or the settings changed with one there: its analyzer's worker and engines
 * start now, for the settings shown, while the user has not pressed Analyse yet, so
 * that the run finds them ready. Nothing is imported or analysed before the click.
 */
function startEnginesEarly() {
  if (LATE_ENGINES || state.status === 'running' || state.status === 'loading') return;
  if (!$('pgn').value.trim()) return;
  const chosen = readSettings();
  if (state.early?.key === settingsKey(chosen)) return;
  state.early?.analyzer.terminate();
  const analyzer = new AnalyzerWorker();
  const { settings, workers, build } = chosen;
  // A failure here is the run's to tell: it then starts engines of its own.
  analyzer.startEngines({ settings, workers, build, stallMs: STALL_MS }).catch(() => {});
  state.early = { key: settingsKey(chosen), analyzer };
}

async function analyse(text) {
  if (state.status === 'running') return;
  clearMessages();
  setStatus('running');
  const clicked = performance.now();
  const chosen = readSettings();
  const { settings, workers, build } = chosen;
  // The import, the plan and every result run in the analyzer's worker: a file of
  // thousands of games never blocks the page, which shows the games read so far. Its
  // engines may be ready already (started when the PGN was typed or pasted).
  const analyzer = analyzerFor(chosen);
  analyzer.onProgress = showImport;
  state.analyzer = analyzer;
  const run = ReportStore.newRun();
  // A new analysis starts with a page of summary rows and player panels.
  state.playersShown = PLAYER_PAGE;
  state.summaryShown = SUMMARY_PAGE;
  // Until the engines get their jobs, Cancel ends the analyzer's worker: the import, the
  // plan and the cache's lookup stop with it, and nothing is analysed.
  let cancelled = false;
  state.pool = {
    cancel: () => {
      cancelled = true;
      analyzer.terminate();
    },
    killWorker: () => false,
  };
  // The run cannot start (the book, the input or the analyzer's worker failed, or it was
  // cancelled): why.
  const fail = (err) => {
    state.pool = null;
    analyzer.terminate();
    $('status').classList.add('hidden');
    if (cancelled) {
      message('Cancelled before any position was analysed.', 'info');
      setStatus('cancelled');
    } else {
      message(err.message || String(err));
      setStatus('idle');
    }
  };
  // When each step before the engines' jobs ended, from the click (the benchmark's).
  const steps = [];
  const step = (name) => steps.push([name, Math.round(performance.now() - clicked)]);
  let plan;
  try {
    const book = await loadBook();
    step('book');
    if (cancelled) throw new Error('cancelled');
    settings.book = book.label;
    showImport(0);
    plan = await analyzer.open(text, settings, book.bytes, ratingLines(), run);
    step('import');
  } catch (err) {
    fail(err);
    return;
  }
  const { games, total } = plan;
  state.inputGames = { run, count: games.length };
  if (!games.some((g) => !g.error && g.plies > 0)) {
    state.pool = null;
    analyzer.terminate();
    nothingToAnalyse(text, games);
    return;
  }
  for (const g of games) if (g.error) message(g.error);
  setProgressText(`Imported ${games.length} game${games.length === 1 ? '' : 's'}: preparing the report…`);

  state.game = null;
  // What the cache holds is added first (the cache's key is the core's, the CLI's).
  let done; // positions done, as the analyzer last said
  try {
    ({ done } = await analyzer.lookUp(build));
    step('cache');
  } catch (err) {
    fail(err);
    return;
  }
  // Positions the cache gave (a file analysed in segments: so far; the worker tells more).
  let cached = done;
  // The report is drawn (its first game read from the store, laid out and painted)
  // before the engines get their jobs: drawn while two engines loaded or began their
  // first searches, the same drawing took several times its CPU time on two cores, all
  // of it taken from the engines (README, browser benchmark, `--draw-beside`).
  try {
    const view = await analyzer.view();
    step('view');
    const drawing = showView(view, run);
    if (!DRAW_BESIDE) await drawn(drawing);
    step('drawn');
    if (cancelled) throw new Error('cancelled');
  } catch (err) {
    fail(err);
    return;
  }

  const started = performance.now();
  // The first position searched: the pace is measured from it (www/eta.js).
  let first = null;
  const progress = () => {
    const fresh = done - cached;
    let text = `${done} / ${total} positions`;
    if (cached) text += ` (${cached} from cache)`;
    const pace = eta(first, performance.now(), fresh, total - done, workers);
    if (pace) {
      text += ` · ${pace.rate.toFixed(2)} positions/s · ETA ${clock(pace.seconds)}`;
    } else if (fresh > 0 && done < total) {
      text += ' · measuring the pace…';
    } else if (done < total) {
      text += ` · starting ${workers} engine worker${workers > 1 ? 's' : ''}…`;
    }
    showProgress(done, total, text);
  };
  progress();

  // The engines run in the analyzer's worker (the core's pool, the cache with it): this
  // thread hears the positions done and the pool's messages, and draws.
  state.pool = {
    cancel: () => analyzer.cancel(),
    killWorker: (i) => analyzer.killWorker(i),
  };
  enginesRunning(true);
  const ticker = setInterval(progress, PROGRESS_MS);
  // The engines have stopped (or their worker failed): no more live drawing.
  const stopped = () => {
    clearInterval(ticker);
    clearTimeout(state.renderTimer);
    state.renderTimer = null;
    state.pool = null;
    enginesRunning(false);
  };
  const stats = { workers, build, positions: total - cached, engineMs: 0, firstMs: null, renders: [], steps };
  let outcome;
  try {
    outcome = await analyzer.analyse(
      { workers, stallMs: STALL_MS },
      {
        onDone: (d, c) => {
          done = d;
          if (c !== undefined) cached = c;
          if (first === null && done > cached) first = { ms: performance.now(), fresh: done - cached };
          // The line is drawn again by the ticker, every PROGRESS_MS: not at every result
          // (each drawing is a frame of the whole page on this thread, taken from the
          // engines), except the first one.
          if (stats.firstMs === null) {
            stats.firstMs = performance.now() - started;
            stats.clickToFirstMs = performance.now() - clicked;
            progress();
          }
          scheduleRender(analyzer, stats);
        },
        onMessage: (m, kind) => message(m, kind),
      },
    );
  } catch (err) {
    // The analyzer's worker itself failed: what it held is gone with it.
    stopped();
    analyzer.terminate();
    message(err.message || String(err));
    setStatus('idle');
    return;
  }
  done = outcome.done;
  cached = outcome.cached ?? cached;
  stats.positions = total - cached;
  stats.engineMs = outcome.engineMs;
  stopped();
  const ended = performance.now();
  // Asked after every result was added (the worker answers in order): the whole report,
  // its games stored.
  const view = await analyzer.view();
  stats.analyzer = await analyzer.usage().catch(() => null);
  // The run's tail after its last result (the benchmark's figure): the same with one
  // engine or two, it is the part of the wall time the second engine cannot shorten.
  stats.tailMs = performance.now() - ended;
  analyzer.terminate();
  for (const f of outcome.failures) {
    message(
      `${f.label[0].toUpperCase()}${f.label.slice(1)} could not be analysed (${f.reason}); everything else is in the report.`,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  stats.wallMs = seconds * 1000;
  state.lastRun = stats;
  // Games that could not be imported are not in the positions' count: said beside it.
  const unimported = games.filter((g) => g.error).length;
  const notImported = unimported
    ? ` ${unimported} of ${games.length} games could not be imported (see above).`
    : '';
  showProgress(
    done,
    total,
    (outcome.cancelled
      ? `Cancelled: ${done} / ${total} positions analysed (the report shows those).`
      : done < total
        ? `Done: ${done} / ${total} positions analysed in ${seconds.toFixed(1)} s; the others could not be (see above).`
        : `Done: ${total} positions in ${seconds.toFixed(1)} s${cached ? ` (${cached} from cache)` : ''}.`) + notImported,
  );
  showView(view, run);
  state.runs++;
  setStatus(outcome.cancelled ? 'cancelled' : 'done');
  foldInput(true);
  await updateCacheInfo();
  if (state.replyTo) {
    const { source, origin } = state.replyTo;
    state.replyTo = null;
    source.postMessage({ type: 'fairsight:report', report: await state.reportJson }, origin);
  }
}

// A link to a game on a site: the page never fetches it (no request leaves the origin).
const GAME_LINK = /\bhttps?:\/\/(?:[a-z0-9-]+\.)*(?:lichess\.org|chess\.com)\//i;

/**
 * No game of the input has a move to analyse: an error state, not a success. The input
 * stays open with what went wrong (each game's import error, or "No chess moves found"
 * and a hint); no results, no progress saying "Done".
 */
function nothingToAnalyse(text, games) {
  const errors = games.filter((g) => g.error);
  if (errors.length) {
    message(`No game could be imported (${errors.length} with errors):`);
    for (const g of errors) message(g.error);
  } else {
    message('No chess moves found in the input.');
    message(
      GAME_LINK.test(text)
        ? 'This looks like a link to a game: fairsight never fetches anything from other sites. Open the game there, copy the PGN from Share → PGN, and paste it here.'
        : 'Paste games in PGN: moves such as 1. e4 e5 2. Nf3 Nc6, after tags such as [White "Ann"] if you have them. Or drop or pick a .pgn file.',
      'info',
    );
  }
  state.report = null;
  if (state.run) state.store.remove(state.run).catch(() => {});
  state.run = null;
  state.shown = null;
  state.game = null;
  $('results').classList.add('hidden');
  $('apply-ratings').disabled = true;
  $('status').classList.add('hidden');
  foldInput(false);
  setStatus('error');
}

// ---------------------------------------------------------------- files and exports

// A file larger than this stays out of the PGN box (a textarea of thousands of games is
// thousands of DOM nodes and a copy of the text in the tab): the box says which file is
// analysed, and Analyse reads it again from the disk.
const BOX_LIMIT = 256 * 1024;

async function analyseFiles(files) {
  const text = await readFiles(files);
  const box = $('pgn');
  box.placeholder = box.dataset.placeholder ??= box.placeholder;
  if (text.length <= BOX_LIMIT) {
    state.files = null;
    box.value = text;
  } else {
    state.files = [...files];
    box.value = '';
    const names = state.files.map((f) => f.name).join(', ');
    box.placeholder = `${names} (${(text.length / 1048576).toFixed(1)} MB) is analysed from the file: too large to show here. Analyse runs it again; or paste games here.`;
  }
  analyse(text);
}

function readFiles(files) {
  return Promise.all([...files].map((f) => f.text())).then((texts) => texts.join('\n\n'));
}

function download(name, content, type) {
  const url = URL.createObjectURL(content instanceof Blob ? content : new Blob([content], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

async function openReport(file) {
  clearMessages();
  try {
    const json = normaliseReport(await file.text());
    state.game = null;
    state.playersShown = PLAYER_PAGE;
    state.summaryShown = SUMMARY_PAGE;
    await setReport(json);
    // Ratings typed in the page apply to an opened report too.
    const rated = ratingLines().length > 0 && (await applyRatings({ quiet: true }));
    showProgress(1, 1, `Opened saved report ${file.name}${rated ? ', with the ratings entered in the settings' : ''}.`);
    setStatus('done');
    foldInput(true);
  } catch (err) {
    message(`${file.name}: ${err.message || err}`);
  }
}

async function updateCacheInfo() {
  let text = 'cache unavailable in this browser';
  if (state.cache.available) {
    try {
      const n = await state.cache.count();
      text = `${n} analysed chunk${n === 1 ? '' : 's'} cached in this browser`;
    } catch (err) {
      text = err.message || String(err);
    }
  }
  $('cache-info').textContent = text;
}

// ---------------------------------------------------------------- wiring

function wire() {
  const drop = $('drop');
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const files = e.dataTransfer?.files;
    if (files && files.length) analyseFiles(files);
  });
  $('file').addEventListener('change', (e) => {
    if (e.target.files.length) analyseFiles(e.target.files);
  });
  $('sample').addEventListener('click', async () => {
    try {
      const res = await fetch(new URL('../samples/club-blitz.pgn', import.meta.url));
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      $('pgn').value = await res.text();
    } catch (err) {
      message(`Cannot load the sample games: ${err.message || err}`);
      return;
    }
    analyse($('pgn').value);
  });
  $('analyse').addEventListener('click', async () => {
    // The box's games, else the large file analysed last (read again from the disk).
    const text = $('pgn').value.trim() || !state.files ? $('pgn').value : await readFiles(state.files);
    if (!text.trim()) {
      // What an earlier press said of other input no longer holds.
      clearMessages();
      message('Paste, drop or pick a PGN first (or analyse the sample games).');
      return;
    }
    analyse(text);
  });
  $('cancel').addEventListener('click', () => state.pool?.cancel());
  $('open-report').addEventListener('change', (e) => {
    if (e.target.files.length) openReport(e.target.files[0]);
  });
  // The report is read back from the store a batch of games at a time into a Blob: the
  // same bytes as the CLI's --json, never one string in the tab.
  $('export-json').addEventListener('click', async () => {
    if (!state.run) return;
    try {
      download('fairsight-report.json', await state.store.blob(state.run, '\n', 'application/json'));
    } catch (err) {
      message(err.message || String(err));
    }
  });
  $('mode').addEventListener('change', () => setMode($('mode').value));
  $('player-filter').addEventListener('input', (e) => setFilter(e.target.value));
  // Ratings apply to the next analysis, and to the report shown (an opened one too) when
  // the box is left or on the button.
  for (const [id, ev] of [['ratings', 'change'], ['apply-ratings', 'click']]) {
    $(id).addEventListener(ev, () => {
      clearMessages();
      applyRatings();
    });
  }
  $('again').addEventListener('click', () => {
    foldInput(false);
    $('pgn').focus();
  });
  for (const [id, kind, name] of [
    ['export-log', 'log', 'fairsight-screening.log'],
    ['export-results', 'results', 'fairsight-screening-results.txt'],
  ]) {
    $(id).addEventListener('click', async () => {
      if (!state.run) return;
      try {
        download(name, screeningText(await state.reportJson, kind, 'wb'), 'text/plain');
      } catch (err) {
        message(err.message || String(err));
      }
    });
  }
  $('export-pgn').addEventListener('click', async () => {
    if (!state.run) return;
    try {
      download('fairsight-annotated.pgn', annotateReport(await state.reportJson), 'application/x-chess-pgn');
    } catch (err) {
      message(err.message || String(err));
    }
  });
  $('book-kind').addEventListener('change', () => {
    $('book-file-label').classList.toggle('hidden', $('book-kind').value !== 'file');
  });
  $('clear-cache').addEventListener('click', async () => {
    try {
      await state.cache.clear();
    } catch (err) {
      message(err.message || String(err));
    }
    updateCacheInfo();
  });
  // Embedding: a PGN in the URL fragment (#pgn=...), or posted by the parent page.
  window.addEventListener('message', (e) => {
    const d = e.data;
    if (!d || d.type !== 'fairsight:analyse' || typeof d.pgn !== 'string') return;
    $('pgn').value = d.pgn;
    state.replyTo = e.source ? { source: e.source, origin: e.origin } : null;
    // A PGN given: the answer leads, the input waits behind "Analyse another game".
    if (embedded) foldInput(true);
    analyse(d.pgn);
  });
}

function fromFragment() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const pgn = hash.get('pgn');
  if (pgn) {
    $('pgn').value = pgn;
    if (hash.get('auto') === '1') {
      if (embedded) foldInput(true);
      analyse(pgn);
    } else startEnginesEarly();
  }
}

/**
 * Embedded: tells the host page the document's height whenever it changes
 * (`{type: 'fairsight:height', height}` in CSS pixels), so it can size the iframe and
 * nothing is cut off. The height is not private: any host may read it.
 */
function reportHeight() {
  if (!embedded || window.parent === window || typeof ResizeObserver !== 'function') return;
  let last = 0;
  const post = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'fairsight:height', height }, '*');
  };
  new ResizeObserver(post).observe(document.documentElement);
  post();
}

async function main() {
  document.body.replaceChildren();
  buildShell(document.body);
  setStatus('loading');
  applyParams();
  wire();
  reportHeight();
  try {
    await init();
  } catch (err) {
    message(`Cannot start the analysis core (WebAssembly): ${err.message || err}`);
    return;
  }
  $('version').textContent = `version ${version()}`;
  updateCalibrationNote();
  for (const ev of ['input', 'change']) $('settings').addEventListener(ev, () => updateCalibrationNote());
  // A PGN given in the box, or other settings with one there: its engines start now.
  $('pgn').addEventListener('input', () => startEnginesEarly());
  $('settings').addEventListener('change', () => startEnginesEarly());
  state.cache = await JobCache.open();
  state.store = await ReportStore.open();
  state.store.removeStale().catch(() => {});
  updateCacheInfo();
  setStatus('idle');
  if ('serviceWorker' in navigator && !params.has('nosw')) {
    navigator.serviceWorker.register(new URL('../sw.js', import.meta.url)).catch(() => {});
  }
  fromFragment();
  if (embedded && window.parent !== window) {
    window.parent.postMessage({ type: 'fairsight:ready' }, '*');
  }
}

// For tests and power users: the state, and a way to simulate a hung worker.
window.fairsight = {
  state,
  killWorker: (i) => state.pool?.killWorker(i) ?? false, // a promise while a run goes
  analyse: (text) => analyse(text),
};

main();
