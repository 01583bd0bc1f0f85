// fairsight: the report's games kept in the browser's storage, not in the tab.
// GPL-3.0-or-later.
//
// A report of thousands of games is tens of megabytes of JSON. The page keeps in its
// main thread only what it draws: the report without its games (settings, the players'
// aggregates, the models' descriptions) and one small row per game (names, result, the
// side summaries the game list sorts on, the move map's phases as one character a ply).
// Each game's JSON text goes to IndexedDB as it is made (the analyzer's worker writes it
// there, a game again only when its text changed), and comes back when the game is
// opened or the report exported.
//
// The texts are the report's own bytes: `splitReport` cuts the report's JSON at its games
// (no parse and re-serialisation, which would change numbers such as `5.0`), so that the
// head, each game with the separator after it, and the tail joined again are the report
// byte for byte (the export, the CLI = page parity). Without IndexedDB (private modes,
// blocked storage) the texts stay in memory: the page works, unbounded as before.

const DB = 'fairsight-reports';
const VERSION = 1;
const GAMES = 'games'; // [run, index] -> {text, sep}
const HEADS = 'heads'; // run -> {head, tail, count, at}
// A tab holds a Web Lock named after each run it shows (released when the run is
// removed or the tab closes); a page that starts removes the runs whose lock nobody
// holds: those of closed tabs and of earlier loads of this one. Without Web Locks, runs
// older than STALE_MS are removed instead.
const LOCK = 'fairsight-run:';
const STALE_MS = 24 * 3600 * 1000;
const held = new Map(); // run -> the function that releases its lock

/**
 * Cuts a report's JSON at its top-level `games` array: returns `{head, games: [{text,
 * sep}], tail}` where `head + Σ(text + sep) + tail === json` (`sep`: the comma and
 * spaces after a game, empty after the last). Throws when the text has no games array.
 */
export function splitReport(json) {
  const n = json.length;
  let depth = 0;
  let i = 0;
  let key = null; // the last string read at depth 1 (a key of the root object)
  let open = -1; // index of the games array's '['
  // Find `"games": [` at depth 1.
  while (i < n) {
    const c = json.charCodeAt(i);
    if (c === 34) {
      const s = i;
      i = skipString(json, i);
      if (depth === 1) key = json.slice(s + 1, i - 1);
      continue;
    }
    if (c === 123 || c === 91) {
      if (depth === 1 && c === 91 && key === 'games') {
        open = i;
        break;
      }
      depth++;
    } else if (c === 125 || c === 93) {
      depth--;
    } else if (c === 44 && depth === 1) {
      key = null;
    }
    i++;
  }
  if (open < 0) throw new Error('The report has no games.');
  const games = [];
  i = open + 1;
  depth = 0;
  let start = -1; // the element being read
  let last = -1; // the last non-space character at depth 0
  let close = -1;
  while (i < n) {
    const c = json.charCodeAt(i);
    if (c === 34) {
      if (start < 0) start = i;
      i = skipString(json, i);
      last = i - 1;
      continue;
    }
    if (depth === 0 && (c === 44 || c === 93)) {
      if (start >= 0) games.push({ s: start, e: last + 1 });
      start = -1;
      if (c === 93) {
        close = i;
        break;
      }
      i++;
      continue;
    }
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) depth--;
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) {
      if (start < 0) start = i;
      last = i;
    }
    i++;
  }
  if (close < 0) throw new Error('The report is cut short.');
  const parts = games.map((g, k) => ({
    text: json.slice(g.s, g.e),
    sep: k + 1 < games.length ? json.slice(g.e, games[k + 1].s) : '',
  }));
  return {
    head: json.slice(0, parts.length ? games[0].s : open + 1),
    games: parts,
    tail: json.slice(parts.length ? games.at(-1).e : open + 1),
  };
}

function skipString(json, i) {
  i++;
  for (;;) {
    const c = json.charCodeAt(i);
    if (Number.isNaN(c)) return i;
    i++;
    if (c === 92) i++;
    else if (c === 34) return i;
  }
}

/** A fast hash of a game's text (it changes when the game does). */
export function textHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return `${text.length}:${(h >>> 0).toString(36)}`;
}

// The move map's classes, one character a ply (movemap.js reads them).
export const MAP = { pending: 'p', opening: 'o', middle: 'm', decided: 'd', other: 'x', flag: 'f' };

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * What the page keeps of a game: its row in the game list (tags, result, each side's
 * player, scores, assessment (level, probability, thresholds, a concern's hint) and most engine-like stretch) and its line in the move map
 * (`map`: a character a ply, see MAP; `reasons`: the exclusions of 'x' plies; `probs`:
 * the engine probabilities of the flagged ones; `first`: the first ply's number and side).
 */
export function lightGame(g, hash = null) {
  if (!g || typeof g !== 'object') return null;
  const tags = {};
  for (const k of ['White', 'Black', 'Event', 'Result']) {
    if (g.tags && typeof g.tags[k] === 'string') tags[k] = g.tags[k];
  }
  const row = { index: g.index, error: g.error ?? null, tags, outcome: g.outcome ?? null, hash };
  if (g.error) return row;
  const sides = {};
  for (const side of ['white', 'black']) {
    const sd = g.sides && g.sides[side];
    if (!sd || typeof sd !== 'object') continue;
    const a = sd.assessment && typeof sd.assessment === 'object' ? sd.assessment : null;
    const st = sd.stretch && typeof sd.stretch === 'object' && num(sd.stretch.fromPly) !== null ? sd.stretch : null;
    sides[side] = {
      player: sd.player,
      engineScore: num(sd.engineScore),
      accuracy: num(sd.accuracy),
      acpl: num(sd.acpl),
      matchRate: num(sd.matchRate),
      // The hint, which the flag's tooltip shows where it explains the level (`sideHint`:
      // at `no concern` only a rating band's; the "more games" one there is the same
      // interned string for every side), and the thresholds, so that the probability
      // never reads as reaching one it is under (`probabilityPct`).
      assessment: a
        ? {
          level: a.level,
          probability: a.probability,
          ...(Array.isArray(a.thresholds) ? { thresholds: a.thresholds } : {}),
          ...(typeof a.hint === 'string' ? { hint: a.hint } : {}),
        }
        : null,
      stretch: st,
    };
  }
  row.sides = sides;
  const plies = Array.isArray(g.plies) ? g.plies : [];
  let map = '';
  const reasons = {};
  const probs = {};
  for (let i = 0; i < plies.length; i++) {
    const p = plies[i] || {};
    let c = MAP.pending;
    if (p.engineLike) {
      c = MAP.flag;
      probs[i] = num(p.engineProbability) ?? 0;
    } else if (p.excluded === 'book' || p.excluded === 'early') c = MAP.opening;
    else if (p.excluded === 'decided') c = MAP.decided;
    else if (p.searched) c = MAP.middle;
    else if (p.excluded) {
      c = MAP.other;
      reasons[i] = String(p.excluded);
    }
    map += c;
  }
  row.map = map;
  if (Object.keys(reasons).length) row.reasons = reasons;
  if (Object.keys(probs).length) row.probs = probs;
  if (plies.length) row.first = [plies[0].moveNumber, plies[0].side];
  return row;
}

/**
 * Makes the rows' repeated strings (players, events, results, levels) one string each:
 * rows that come from a worker or a parse each hold their own copies, and a season's
 * games name the same few players thousands of times. Returns the rows.
 */
export function internRows(rows) {
  const seen = new Map();
  const one = (x) => {
    if (typeof x !== 'string') return x;
    const had = seen.get(x);
    if (had !== undefined) return had;
    seen.set(x, x);
    return x;
  };
  for (const row of rows) {
    if (!row) continue;
    for (const k in row.tags) row.tags[k] = one(row.tags[k]);
    row.outcome = one(row.outcome);
    if (typeof row.error === 'string') continue;
    for (const side of ['white', 'black']) {
      const sd = row.sides?.[side];
      if (!sd) continue;
      sd.player = one(sd.player);
      if (sd.assessment) {
        sd.assessment.level = one(sd.assessment.level);
        if (sd.assessment.hint) sd.assessment.hint = one(sd.assessment.hint);
      }
    }
    if (row.first) row.first[1] = one(row.first[1]);
  }
  return rows;
}

/** The report without its games (`games: []`), from a split report's head and tail. */
export function headOf(parts) {
  return JSON.parse(parts.head + parts.tail);
}

const request = (r) =>
  new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

const done = (tx) =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error('The browser refused to store the report.'));
  });

/**
 * The reports' games in IndexedDB (or in memory without it). A run (one analysis, one
 * opened report) has an id; its games are written with `put`, read with `game` and
 * `text`, and removed with `remove` when another report replaces it. A run put with
 * `{memory: true}` (the browser refused to store it) stays in memory, as all runs do
 * without IndexedDB.
 */
export class ReportStore {
  static async open() {
    const store = new ReportStore();
    try {
      if (typeof indexedDB === 'undefined') throw new Error('no IndexedDB');
      const req = indexedDB.open(DB, VERSION);
      req.onupgradeneeded = () => {
        const db = req.result;
        if (!db.objectStoreNames.contains(GAMES)) db.createObjectStore(GAMES);
        if (!db.objectStoreNames.contains(HEADS)) db.createObjectStore(HEADS);
      };
      store.db = await request(req);
    } catch {
      store.db = null;
      store.memory = new Map();
    }
    return store;
  }

  /** A new run's id. */
  static newRun() {
    const run = `${Date.now()}-${Math.random().toString(36).slice(2, 10)}`;
    globalThis.navigator?.locks
      ?.request(LOCK + run, () => new Promise((release) => held.set(run, release)))
      .catch(() => {});
    return run;
  }

  /**
   * Stores a run's head and tail (`head`, `tail`, `count` games) and the games given
   * (`[index, {text, sep}]`), in one transaction.
   */
  async put(run, { head, tail, count }, games, { memory = false } = {}) {
    if (memory) this.memory ??= new Map();
    if (!this.db || memory || this.memory?.has(run)) {
      let m = this.memory.get(run);
      if (!m) this.memory.set(run, (m = { games: [] }));
      Object.assign(m, { head, tail, count });
      m.games.length = count;
      for (const [i, g] of games) m.games[i] = g;
      return;
    }
    const tx = this.db.transaction([GAMES, HEADS], 'readwrite');
    const gs = tx.objectStore(GAMES);
    for (const [i, g] of games) gs.put({ text: g.text, sep: g.sep }, [run, i]);
    tx.objectStore(HEADS).put({ head, tail, count, at: Date.now() }, run);
    await done(tx);
  }

  /**
   * Stores games' texts (`[position, {text, sep}]`) of a run whose head `put` writes
   * after them (a view given in batches).
   */
  async putGames(run, games) {
    if (!this.db || this.memory?.has(run)) throw new Error('putGames: only for a stored run');
    const tx = this.db.transaction(GAMES, 'readwrite');
    const gs = tx.objectStore(GAMES);
    for (const [i, g] of games) gs.put({ text: g.text, sep: g.sep }, [run, i]);
    await done(tx);
  }

  /**
   * A run stored in IndexedDB (not kept in memory): its head, tail and count, or
   * undefined.
   */
  async parts(run) {
    if (!this.db || this.memory?.has(run)) return undefined;
    const tx = this.db.transaction(HEADS, 'readonly');
    const h = await request(tx.objectStore(HEADS).get(run));
    return h && { head: h.head, tail: h.tail, count: h.count };
  }

  /** Games `from` to `to - 1` of a run stored in IndexedDB, `[{text, sep}]`. */
  async games(run, from, to) {
    const tx = this.db.transaction(GAMES, 'readonly');
    const rows = await request(tx.objectStore(GAMES).getAll(IDBKeyRange.bound([run, from], [run, to - 1])));
    if (rows.length !== to - from) throw new Error(`The stored report lacks games ${from + 1}–${to}.`);
    return rows;
  }

  /** A game's JSON text, or undefined. */
  async game(run, i) {
    if (!this.db || this.memory?.has(run)) return this.memory.get(run)?.games[i]?.text;
    const tx = this.db.transaction(GAMES, 'readonly');
    return (await request(tx.objectStore(GAMES).get([run, i])))?.text;
  }

  /**
   * The run's report as the parts of its JSON text, in order, read `batch` games at a
   * time: `onParts(strings)` is called with each batch (the head first, the tail last).
   */
  async each(run, onParts, batch = 500) {
    if (!this.db || this.memory?.has(run)) {
      const m = this.memory.get(run);
      if (!m) throw new Error('The report is no longer stored.');
      onParts([m.head]);
      for (let i = 0; i < m.count; i += batch) {
        onParts(m.games.slice(i, i + batch).flatMap((g) => [g.text, g.sep]));
      }
      onParts([m.tail]);
      return;
    }
    // One transaction for the head and every batch: a removal of this run (the report
    // replaced meanwhile: ratings applied twice in a row) waits until the read is done,
    // so a read never sees the head without its games. The transaction stays active
    // from one request's result to the next (no other await in between).
    const tx = this.db.transaction([HEADS, GAMES], 'readonly');
    const head = await request(tx.objectStore(HEADS).get(run));
    if (!head) throw new Error('The report is no longer stored.');
    onParts([head.head]);
    for (let i = 0; i < head.count; i += batch) {
      const to = Math.min(head.count, i + batch);
      const rows = await request(tx.objectStore(GAMES).getAll(IDBKeyRange.bound([run, i], [run, to - 1])));
      if (rows.length !== to - i) throw new Error(`The stored report lacks games ${i + 1}–${to}.`);
      onParts(rows.flatMap((g) => [g.text, g.sep]));
    }
    onParts([head.tail]);
  }

  /** The run's whole report as one JSON string (for the core's exports). */
  async text(run) {
    const parts = [];
    await this.each(run, (p) => {
      parts.push(p.join(''));
    });
    return parts.join('');
  }

  /** The run's report as a Blob, built a batch at a time (never one string). */
  async blob(run, suffix = '', type = 'application/json') {
    const blobs = [];
    await this.each(run, (p) => blobs.push(new Blob(p)));
    return new Blob([...blobs, suffix], { type });
  }

  /** Removes a run. */
  async remove(run) {
    if (!run) return;
    held.get(run)?.();
    held.delete(run);
    if (!this.db || this.memory?.has(run)) {
      this.memory.delete(run);
      if (!this.db) return;
    }
    const tx = this.db.transaction([GAMES, HEADS], 'readwrite');
    tx.objectStore(GAMES).delete(IDBKeyRange.bound([run, 0], [run, Infinity]));
    tx.objectStore(HEADS).delete(run);
    await done(tx);
  }

  /** Removes the runs no open tab shows (see LOCK). */
  async removeStale() {
    if (!this.db) return;
    const tx = this.db.transaction(HEADS, 'readonly');
    const store = tx.objectStore(HEADS);
    const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
    const locks = globalThis.navigator?.locks;
    const q = locks ? await locks.query() : null;
    const live = q ? new Set([...(q.held || []), ...(q.pending || [])].map((l) => l.name)) : null;
    const now = Date.now();
    for (let k = 0; k < keys.length; k++) {
      const stale = live ? !live.has(LOCK + keys[k]) && !held.has(keys[k]) : !(now - (values[k]?.at ?? 0) < STALE_MS);
      if (stale) await this.remove(keys[k]);
    }
  }
}

/**
 * Splits a whole report, stores it as run `run` and returns what the page keeps: the
 * report without its games and one light row a game.
 */
export async function storeReport(store, run, json) {
  const parts = splitReport(json);
  const rows = parts.games.map((g) => lightGame(JSON.parse(g.text), textHash(g.text)));
  const at = { head: parts.head, tail: parts.tail, count: parts.games.length };
  const games = parts.games.map((g, i) => [i, g]);
  try {
    await store.put(run, at, games);
  } catch {
    // The browser refused (a full disk): this report stays in the tab's memory.
    await store.remove(run).catch(() => {});
    await store.put(run, at, games, { memory: true });
  }
  return { head: headOf(parts), rows };
}
