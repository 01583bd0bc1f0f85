//! The page's cache of analysed jobs, in the browser's IndexedDB: the CLI's `--cache`
//! for the page. Keys are the core's [`engine::cache_key`], the CLI's own, so the same
//! engine build and name, hash size and job give the same key in both; values are the
//! result JSON as the engine session gave it, answered to a later job through
//! [`JobResult::rebound`] (its id in that input, as the CLI's cache does).
//!
//! The key needs the engine's `id name`, which only a running engine tells; so each
//! store also records the name the page's engine of that build gave (the `engines`
//! store), and a later visit looks jobs up under it before starting any engine. No name
//! recorded means nothing was stored for that build.
//!
//! Storage is the browser's to refuse: private modes and blocked storage open no
//! database (the page runs uncached), a full disk refuses a write with a
//! `QuotaExceededError` ([`JobCache::put`] says so, and the analysis goes on), and a
//! read that fails is a miss, never an error.

use js_sys::{Array, Promise, Reflect};
use wasm_bindgen::{JsCast, prelude::*};
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbFactory, IdbOpenDbRequest, IdbRequest, IdbTransaction};

use crate::engine::{self, Job, JobResult};

/// The database's name.
const DB: &str = "fairsight";
/// Its version: 2 keys jobs by the core's key with the engine's name (version 1 keyed
/// them by the build alone, and its entries are dropped on the upgrade).
const VERSION: u32 = 2;
/// Analysed jobs: the core's cache key → the result JSON.
const JOBS: &str = "jobs";
/// Engines: a build → the `id name` its engine gave when a job was stored.
const ENGINES: &str = "engines";

/// The analysed jobs cached in this browser. See the module docs.
#[wasm_bindgen]
pub struct JobCache {
    db: Option<IdbDatabase>,
}

/// Why a write did not happen.
enum PutError {
    /// The browser's storage for the page is full.
    Full,
    /// Anything else, with the browser's message.
    Other(String),
}

/// A JS error's `name` (`"QuotaExceededError"`, …), or empty.
fn error_name(err: &JsValue) -> String {
    Reflect::get(err, &JsValue::from_str("name"))
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default()
}

/// A JS error's message, or its text.
fn error_message(err: &JsValue) -> String {
    Reflect::get(err, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .filter(|m| !m.is_empty())
        .or_else(|| err.as_string())
        .unwrap_or_else(|| format!("{err:?}"))
}

impl From<JsValue> for PutError {
    fn from(err: JsValue) -> PutError {
        if error_name(&err) == "QuotaExceededError" {
            PutError::Full
        } else {
            PutError::Other(error_message(&err))
        }
    }
}

/// A promise settled by callbacks set on an IndexedDB object, and the resolve and
/// reject functions to call from them.
fn promise() -> Result<(Promise, js_sys::Function, js_sys::Function), JsValue> {
    let mut pair = None;
    let promise = Promise::new(&mut |resolve, reject| pair = Some((resolve, reject)));
    // The executor runs before `Promise::new` returns.
    let (resolve, reject) = pair.ok_or_else(|| JsValue::from_str("promise executor not run"))?;
    Ok((promise, resolve, reject))
}

/// A request's result, once it succeeds; its error when it fails. The callbacks live
/// until it settles and are removed then.
async fn settle(req: &IdbRequest) -> Result<JsValue, JsValue> {
    let (promise, resolve, reject) = promise()?;
    let r = req.clone();
    let on_success = Closure::<dyn FnMut()>::new(move || {
        let _ = resolve.call1(&JsValue::UNDEFINED, &r.result().unwrap_or_default());
    });
    let r = req.clone();
    let on_error = Closure::<dyn FnMut()>::new(move || {
        let error = r.error().ok().flatten().map(JsValue::from);
        let _ = reject.call1(&JsValue::UNDEFINED, &error.unwrap_or_default());
    });
    req.set_onsuccess(Some(on_success.as_ref().unchecked_ref()));
    req.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let out = JsFuture::from(promise).await;
    req.set_onsuccess(None);
    req.set_onerror(None);
    out
}

/// Waits for a transaction to commit; its error (a `QuotaExceededError` on a full disk)
/// when it aborts.
async fn commit(tx: &IdbTransaction) -> Result<(), JsValue> {
    let (promise, resolve, reject) = promise()?;
    let on_complete = Closure::<dyn FnMut()>::new(move || {
        let _ = resolve.call0(&JsValue::UNDEFINED);
    });
    let t = tx.clone();
    let on_abort = Closure::<dyn FnMut()>::new(move || {
        let error = t.error().map(JsValue::from);
        let _ = reject.call1(
            &JsValue::UNDEFINED,
            &error.unwrap_or_else(|| JsValue::from_str("the transaction was aborted")),
        );
    });
    tx.set_oncomplete(Some(on_complete.as_ref().unchecked_ref()));
    tx.set_onabort(Some(on_abort.as_ref().unchecked_ref()));
    let out = JsFuture::from(promise).await.map(drop);
    tx.set_oncomplete(None);
    tx.set_onabort(None);
    out
}

/// Opens (creating or upgrading) the database. Fails where the browser gives the page no
/// IndexedDB, or when a tab still holding an older version blocks the upgrade.
async fn open_db() -> Result<IdbDatabase, JsValue> {
    let factory: IdbFactory =
        Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))?.dyn_into()?;
    let req: IdbOpenDbRequest = factory.open_with_u32(DB, VERSION)?;
    let r = req.clone();
    let on_upgrade = Closure::<dyn FnMut()>::new(move || {
        let Ok(db) = r.result().and_then(|db| db.dyn_into::<IdbDatabase>()) else {
            return;
        };
        // Errors here abort the upgrade, and the open fails: no cache.
        if db.object_store_names().contains(JOBS) {
            let _ = db.delete_object_store(JOBS);
        }
        let _ = db.create_object_store(JOBS);
        if !db.object_store_names().contains(ENGINES) {
            let _ = db.create_object_store(ENGINES);
        }
    });
    req.set_onupgradeneeded(Some(on_upgrade.as_ref().unchecked_ref()));
    let (blocked, _, give_up) = promise()?;
    let on_blocked = Closure::<dyn FnMut()>::new(move || {
        let _ = give_up.call1(&JsValue::UNDEFINED, &JsValue::from_str("blocked"));
    });
    req.set_onblocked(Some(on_blocked.as_ref().unchecked_ref()));
    let opened = settle(&req);
    let blocked = JsFuture::from(blocked);
    // Whichever comes first: the database, or the news that another tab blocks it.
    let out = first_of(opened, blocked).await;
    req.set_onupgradeneeded(None);
    req.set_onblocked(None);
    let db: IdbDatabase = out?.dyn_into()?;
    // A newer version opened in another tab: let it upgrade (this tab goes uncached).
    let d = db.clone();
    let on_version_change = Closure::<dyn FnMut()>::new(move || d.close());
    db.set_onversionchange(Some(on_version_change.as_ref().unchecked_ref()));
    on_version_change.forget(); // lives as long as the database
    Ok(db)
}

/// The first of two futures to finish (the other is dropped).
async fn first_of(
    a: impl std::future::Future<Output = Result<JsValue, JsValue>>,
    b: impl std::future::Future<Output = Result<JsValue, JsValue>>,
) -> Result<JsValue, JsValue> {
    let mut a = std::pin::pin!(a);
    let mut b = std::pin::pin!(b);
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(v) = a.as_mut().poll(cx) {
            return std::task::Poll::Ready(v);
        }
        b.as_mut().poll(cx)
    })
    .await
}

fn parse_job(job_json: &str) -> Result<Job, JsError> {
    serde_json::from_str(job_json).map_err(|e| JsError::new(&format!("bad job: {e}")))
}

#[wasm_bindgen]
impl JobCache {
    /// Opens the page's cache; where the browser keeps no storage for the page (private
    /// modes, blocked storage) a cache that holds nothing (`available` false).
    pub async fn open() -> JobCache {
        JobCache {
            db: open_db().await.ok(),
        }
    }

    /// Whether the browser gave the page a database.
    #[wasm_bindgen(getter)]
    pub fn available(&self) -> bool {
        self.db.is_some()
    }

    /// The `id name` the engine of `build` gave when a job was last stored, or
    /// `undefined`: the name to look jobs up under before any engine starts.
    #[wasm_bindgen(js_name = engineName)]
    pub async fn engine_name(&self, build: String) -> Option<String> {
        let db = self.db.as_ref()?;
        let tx = db.transaction_with_str(ENGINES).ok()?;
        let req = tx.object_store(ENGINES).ok()?.get(&build.into()).ok()?;
        settle(&req).await.ok()?.as_string()
    }

    /// The cached result of a job (JSON, from `Analyzer.jobJson`) analysed by the engine
    /// `engineBuild` named `engineName` with `hashMb` of hash, as the answer to this job
    /// (its id), or `undefined` when absent, unreadable or stale: a miss, as in the CLI.
    /// A `JsError` only for a job that is not one.
    pub async fn get(
        &self,
        job_json: String,
        engine_build: String,
        engine_name: String,
        hash_mb: u32,
    ) -> Result<Option<String>, JsError> {
        let job = parse_job(&job_json)?;
        let Some(db) = &self.db else { return Ok(None) };
        let key = engine::cache_key(&job, &engine_build, &engine_name, hash_mb);
        let read = async {
            let tx = db.transaction_with_str(JOBS).ok()?;
            let req = tx.object_store(JOBS).ok()?.get(&key.into()).ok()?;
            settle(&req).await.ok()?.as_string()
        };
        let Some(text) = read.await else {
            return Ok(None);
        };
        let Ok(result) = serde_json::from_str::<JobResult>(&text) else {
            return Ok(None);
        };
        Ok(serde_json::to_string(&result.rebound(&job)).ok())
    }

    /// Stores a finished job's result (JSON, from `EngineSession.takeResultJson`) under
    /// the core's key, with the engine's name for its build. `true` when stored; `false`
    /// when the browser's storage for the page is full (`QuotaExceededError`: nothing is
    /// stored, the analysis goes on uncached) or there is no database; a `JsError` with
    /// the browser's message for any other failure.
    pub async fn put(
        &self,
        job_json: String,
        engine_build: String,
        engine_name: String,
        hash_mb: u32,
        result_json: String,
    ) -> Result<bool, JsError> {
        let job = parse_job(&job_json)?;
        let Some(db) = &self.db else {
            return Ok(false);
        };
        let key = engine::cache_key(&job, &engine_build, &engine_name, hash_mb);
        let write = async {
            let stores = Array::of2(&JOBS.into(), &ENGINES.into());
            let tx = db.transaction_with_str_sequence_and_mode(
                &stores,
                web_sys::IdbTransactionMode::Readwrite,
            )?;
            let queued = (|| {
                tx.object_store(JOBS)?
                    .put_with_key(&result_json.into(), &key.into())?;
                tx.object_store(ENGINES)?
                    .put_with_key(&engine_name.into(), &engine_build.into())
            })();
            if let Err(e) = queued {
                let _ = tx.abort();
                return Err(PutError::from(e));
            }
            commit(&tx).await.map_err(PutError::from)
        };
        match write.await {
            Ok(()) => Ok(true),
            Err(PutError::Full) => Ok(false),
            Err(PutError::Other(message)) => Err(JsError::new(&format!(
                "cannot store the analysis in this browser's cache: {message}"
            ))),
        }
    }

    /// Number of analysed jobs stored.
    pub async fn count(&self) -> Result<u32, JsError> {
        let Some(db) = &self.db else { return Ok(0) };
        let count = async {
            let req = db.transaction_with_str(JOBS)?.object_store(JOBS)?.count()?;
            settle(&req).await
        };
        let n = count
            .await
            .map_err(|e| JsError::new(&format!("cannot read the cache: {}", error_message(&e))))?;
        Ok(n.as_f64().unwrap_or(0.0) as u32)
    }

    /// Empties the cache of analysed jobs ("Clear cached analyses").
    pub async fn clear(&self) -> Result<(), JsError> {
        let Some(db) = &self.db else { return Ok(()) };
        let clear = async {
            let tx =
                db.transaction_with_str_and_mode(JOBS, web_sys::IdbTransactionMode::Readwrite)?;
            tx.object_store(JOBS)?.clear()?;
            commit(&tx).await
        };
        clear
            .await
            .map_err(|e| JsError::new(&format!("cannot clear the cache: {}", error_message(&e))))
    }
}
