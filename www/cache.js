// Analysed jobs cached in IndexedDB, so re-analysing the same game with the same engine
// build and settings is instant. The key is the core's `cacheKey` (the CLI's `--cache`
// rule): the engine build, the hash size and the job itself (start position, moves,
// plies searched, limit, lines) without its index in the input, so the same game
// analysed again in another file still hits. Values are the core's result JSON, given
// back to a job through the core's `rebindResult` (its id, as the CLI's cache does).
// Everything stays in this browser.

const DB = 'fairsight';
const STORE = 'jobs';

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export class JobCache {
  static async open() {
    try {
      if (!globalThis.indexedDB) return new JobCache(null);
      const open = indexedDB.open(DB, 1);
      open.onupgradeneeded = () => open.result.createObjectStore(STORE);
      return new JobCache(await request(open));
    } catch {
      return new JobCache(null); // private mode or blocked storage: no cache
    }
  }

  constructor(db) {
    this.db = db;
  }

  get available() {
    return this.db !== null;
  }

  async get(key) {
    if (!this.db) return undefined;
    try {
      return await request(this.db.transaction(STORE).objectStore(STORE).get(key));
    } catch {
      return undefined;
    }
  }

  async put(key, value) {
    if (!this.db) return;
    try {
      await request(this.db.transaction(STORE, 'readwrite').objectStore(STORE).put(value, key));
    } catch {
      // Quota exceeded or storage gone: the analysis goes on without the cache.
    }
  }

  async count() {
    if (!this.db) return 0;
    return request(this.db.transaction(STORE).objectStore(STORE).count());
  }

  async clear() {
    if (!this.db) return;
    await request(this.db.transaction(STORE, 'readwrite').objectStore(STORE).clear());
  }
}
