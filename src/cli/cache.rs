//! `--cache DIR`: analysed chunks kept on disk, so analysing the same games again with
//! the same engine build and settings costs nothing (the page's IndexedDB cache, natively).
//!
//! The key is the core's [`fairsight::cache_key`] (the page's too): the engine build and
//! name, the hash size and the job itself (start position,
//! moves, plies searched, limit, lines, node cap, screening depth) without its index in
//! the input, so the same game in another file, or in a bigger file, still hits.
//! Each entry is one file named by a 64-bit FNV-1a hash of the key, holding the key
//! (checked on read, so a hash collision is a miss) and the result JSON.

use std::{
    path::{Path, PathBuf},
    sync::{
        OnceLock,
        atomic::{AtomicU64, Ordering},
    },
};

use fairsight::{Job, JobResult};
use serde::{Deserialize, Serialize};

/// A directory of cached job results.
pub struct Cache {
    dir: PathBuf,
    engine_build: String,
    engine_name: String,
    hash_mb: u32,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    result: JobResult,
}

/// The 64-bit FNV-1a hash of some bytes (cache file names, a shard's input files).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_more(FNV1A_EMPTY, bytes)
}

/// FNV-1a's hash of no bytes.
pub(crate) const FNV1A_EMPTY: u64 = 0xcbf2_9ce4_8422_2325;

/// The FNV-1a hash `h` of some bytes carried on over more: the hash of them all.
pub(crate) fn fnv1a_more(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// Writes started by this process: part of each temporary file's name.
static WRITES: AtomicU64 = AtomicU64::new(0);

/// This machine's host name (file-name safe), for temporary file names.
fn host() -> &'static str {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| {
        let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_default();
        let safe: String = name
            .trim()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if safe.is_empty() { "host".into() } else { safe }
    })
}

impl Cache {
    /// A cache in `dir` (created if missing) for one engine and hash size.
    pub fn open(
        dir: &Path,
        engine_build: &str,
        engine_name: &str,
        hash_mb: u32,
    ) -> std::io::Result<Cache> {
        std::fs::create_dir_all(dir)?;
        Ok(Cache {
            dir: dir.to_owned(),
            engine_build: engine_build.to_owned(),
            engine_name: engine_name.to_owned(),
            hash_mb,
        })
    }

    fn key(&self, job: &Job) -> String {
        fairsight::cache_key(job, &self.engine_build, &self.engine_name, self.hash_mb)
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(format!("{:016x}.json", fnv1a(key.as_bytes())))
    }

    /// The cached result of a job, rebound to its id; `None` when absent or unreadable.
    pub fn get(&self, job: &Job) -> Option<JobResult> {
        let key = self.key(job);
        let text = std::fs::read_to_string(self.path(&key)).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        (entry.key == key).then(|| entry.result.rebound(job))
    }

    /// Stores a finished job's result: written to a temporary file in the same folder,
    /// then renamed over the entry, so a crash never leaves half an entry and a reader
    /// sees a whole old or new one. The temporary file's name is this writer's own (host,
    /// process, a count within the process), so processes on several machines sharing
    /// the folder, or two workers storing one entry, never write into each other's.
    pub fn put(&self, job: &Job, result: &JobResult) -> std::io::Result<()> {
        let key = self.key(job);
        let path = self.path(&key);
        let text = serde_json::to_string(&Entry {
            key,
            result: result.clone(),
        })
        .map_err(std::io::Error::other)?;
        let tmp = path.with_extension(format!(
            "tmp.{}.{}.{}",
            host(),
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairsight::{Settings, pgn};

    #[test]
    fn entries_round_trip_and_keys_depend_on_engine_settings_and_job() {
        let dir = std::env::temp_dir().join(format!("fairsight-cache-test-{}", std::process::id()));
        let game = pgn::import("1. e4 e5 2. Nf3 Nc6 *").remove(0).unwrap();
        let mut s = Settings {
            chunk_plies: 2,
            ..Settings::default()
        };
        let jobs = fairsight::jobs(&game, &s);
        let cache = Cache::open(&dir, "build", "SF", 16).unwrap();
        let result = JobResult {
            id: jobs[0].id,
            positions: Vec::new(),
        };
        assert!(cache.get(&jobs[0]).is_none());
        cache.put(&jobs[0], &result).unwrap();
        assert_eq!(cache.get(&jobs[0]), Some(result.clone()));
        assert!(cache.get(&jobs[1]).is_none(), "another chunk");
        // The same chunk under another id (another file) hits, rebound to its id.
        let mut moved = jobs[0].clone();
        moved.id.game = 7;
        assert_eq!(cache.get(&moved).unwrap().id.game, 7);
        // Other settings, engine or hash miss.
        s.multipv = 2;
        assert!(cache.get(&fairsight::jobs(&game, &s)[0]).is_none());
        let other = Cache::open(&dir, "build", "SF", 32).unwrap();
        assert!(other.get(&jobs[0]).is_none());
        // A corrupt entry is a miss, not an error.
        std::fs::write(cache.path(&cache.key(&jobs[0])), "{").unwrap();
        assert!(cache.get(&jobs[0]).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_key_is_the_one_caches_were_written_with() {
        // Caches written before the key moved into the core stay valid: the same key.
        let dir = std::env::temp_dir().join(format!("fairsight-cache-key-{}", std::process::id()));
        let game = pgn::import("1. e4 e5 *").remove(0).unwrap();
        let job = &fairsight::jobs(&game, &Settings::default())[0];
        let cache =
            Cache::open(&dir, "stockfish-19-lite-single", "Stockfish 17.1 Lite", 16).unwrap();
        let unindexed = Job {
            id: Default::default(),
            ..job.clone()
        };
        assert_eq!(
            cache.key(job),
            format!(
                "stockfish-19-lite-single|Stockfish 17.1 Lite|hash=16|{}",
                serde_json::to_string(&unindexed).unwrap()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn concurrent_writers_of_one_entry_all_succeed_and_leave_one_whole_file() {
        // Shards on several machines, or two workers on the same game twice in a file,
        // may store one entry at once: each writes its own temporary file.
        let dir = std::env::temp_dir().join(format!("fairsight-cache-race-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let game = pgn::import("1. e4 e5 2. Nf3 Nc6 *").remove(0).unwrap();
        let jobs = fairsight::jobs(&game, &Settings::default());
        let cache = Cache::open(&dir, "build", "SF", 16).unwrap();
        let result = JobResult {
            id: jobs[0].id,
            positions: Vec::new(),
        };
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..200 {
                        cache.put(&jobs[0], &result).expect("every write succeeds");
                    }
                });
            }
        });
        assert_eq!(cache.get(&jobs[0]), Some(result));
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(files.len(), 1, "no temporary file left: {files:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
