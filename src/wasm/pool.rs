//! The page's engine pool: Stockfish (WebAssembly) in Web Workers, each driven by the
//! core's sans-IO UCI [`Session`]. Whole jobs (chunks of consecutive plies) are handed
//! to idle workers; a worker that errors, breaks the protocol or stays silent past its
//! [`Deadline`] is terminated and replaced, and its job retried once from the start
//! ([`Retries`]: the CLI's rules, from the core). A job's result is handed out only when
//! the whole chunk is done, so nothing is counted twice; its completed positions are
//! handed out as they come (`onPartial`), identical in the final result.
//!
//! The engines may be started before the jobs are known ([`WorkerPool::start_engines`]:
//! the page starts them as soon as a PGN is typed or pasted, before Analyse): each does
//! its handshake and waits, and [`WorkerPool::run`] hands them their jobs; an engine
//! that died while it waited is started again then.
//!
//! The transport is web-sys's `Worker` and `MessageEvent`; the deadline is checked on a
//! gloo-timers `Interval`. The page hears of results, partial results and messages
//! through the JS functions given to [`WorkerPool::run`], called with no borrow of the
//! pool held (a callback may ask the pool anything, or cancel it).

use std::{
    cell::RefCell,
    collections::VecDeque,
    rc::{Rc, Weak},
    time::Duration,
};

use gloo_timers::callback::Interval;
use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::{JsCast, prelude::*};
use web_sys::{ErrorEvent, MessageEvent, Worker};

use crate::{
    engine::{Job, JobResult},
    plan::Settings,
    pool_policy::{Deadline, Retries, Verdict},
    session::Session,
};

/// How often the deadlines are checked, in ms.
const WATCH_EVERY_MS: u32 = 250;

/// Now, from `performance.now()` (the page's or the worker's the pool runs in), as a
/// duration since that global's time origin.
fn now() -> Duration {
    let ms = Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or_else(js_sys::Date::now, |p| p.now());
    // Whole microseconds (a float-to-int `as` saturates: never a panic).
    Duration::from_micros((ms * 1000.0) as u64)
}

/// A worker's event handlers, kept alive while it runs.
struct Handlers {
    _message: Closure<dyn FnMut(MessageEvent)>,
    _error: Closure<dyn FnMut(ErrorEvent)>,
    _message_error: Closure<dyn FnMut(MessageEvent)>,
}

/// One worker and its session.
struct Slot {
    worker: Option<Worker>,
    session: Session,
    /// Completed positions of the running job already handed out.
    emitted: usize,
    /// The job running, by index.
    job: Option<usize>,
    job_start: Duration,
    deadline: Deadline,
    /// Bumped at every (re)start: a replaced worker's late events are ignored.
    generation: u32,
    handlers: Option<Handlers>,
}

/// What to tell the page, once the pool is no longer borrowed.
enum Emit {
    Partial(usize, String),
    Result(usize, String, f64),
    Log(String),
    Done,
}

/// The JS functions of a run.
#[derive(Clone)]
struct Callbacks {
    on_result: Function,
    on_partial: Function,
    on_log: Function,
}

struct Inner {
    url: String,
    settings: Settings,
    size: usize,
    stall: Duration,
    me: Weak<RefCell<Inner>>,
    slots: Vec<Slot>,
    jobs: Vec<String>,
    labels: Vec<String>,
    queue: VecDeque<usize>,
    retries: Retries<usize>,
    failures: Vec<(usize, String)>,
    engine_name: Option<String>,
    callbacks: Option<Callbacks>,
    resolve: Option<Function>,
    /// [`WorkerPool::run`] was called (a pool runs once).
    ran: bool,
    cancelled: bool,
    watch: Option<Interval>,
    /// Handlers of replaced workers, dropped at the next check (never inside their own
    /// call).
    retired: Vec<Handlers>,
}

/// The engine pool of the page. See the module docs.
#[wasm_bindgen]
pub struct WorkerPool {
    inner: Rc<RefCell<Inner>>,
}

/// Calls the page's functions for what happened, with no borrow held.
fn tell(callbacks: Option<Callbacks>, resolve: Option<(Function, JsValue)>, emits: Vec<Emit>) {
    for e in emits {
        let Some(cb) = &callbacks else { break };
        // A callback that throws is the page's bug: said on the console (where the
        // browser tests look for errors), and the pool goes on.
        let called = match e {
            Emit::Partial(k, json) => cb.on_partial.call2(
                &JsValue::NULL,
                &JsValue::from(k as f64),
                &JsValue::from(json),
            ),
            Emit::Result(k, json, ms) => cb.on_result.call3(
                &JsValue::NULL,
                &JsValue::from(k as f64),
                &JsValue::from(json),
                &JsValue::from(ms),
            ),
            Emit::Log(m) => cb.on_log.call1(&JsValue::NULL, &JsValue::from(m)),
            Emit::Done => Ok(JsValue::UNDEFINED),
        };
        if let Err(err) = called {
            web_sys::console::error_2(
                &JsValue::from_str("fairsight: a pool callback threw:"),
                &err,
            );
        }
    }
    if let Some((f, outcome)) = resolve {
        let _ = f.call1(&JsValue::NULL, &outcome);
    }
}

/// Runs `f` on the pool, then tells the page what it did.
fn with(rc: &Rc<RefCell<Inner>>, f: impl FnOnce(&mut Inner, &mut Vec<Emit>)) {
    let (callbacks, resolve, emits) = {
        // No JS runs while the pool is borrowed (callbacks are called after), so an
        // event never finds it borrowed; if one did, it would be dropped, not a panic.
        let Ok(mut inner) = rc.try_borrow_mut() else {
            return;
        };
        let mut emits = Vec::new();
        f(&mut inner, &mut emits);
        let done = emits.iter().any(|e| matches!(e, Emit::Done));
        let resolve = if done {
            inner
                .resolve
                .take()
                .map(|r| (r, inner.outcome().unwrap_or(JsValue::UNDEFINED)))
        } else {
            None
        };
        let callbacks = inner.callbacks.clone();
        if done {
            inner.callbacks = None;
        }
        (callbacks, resolve, emits)
    };
    tell(callbacks, resolve, emits);
}

impl Inner {
    /// The run's outcome: `{failures: [{job, reason}], cancelled}`.
    fn outcome(&self) -> Result<JsValue, JsValue> {
        let failures = Array::new();
        for (job, reason) in &self.failures {
            let f = Object::new();
            Reflect::set(&f, &"job".into(), &JsValue::from(*job as f64))?;
            Reflect::set(&f, &"reason".into(), &JsValue::from(reason.as_str()))?;
            failures.push(&f);
        }
        let o = Object::new();
        Reflect::set(&o, &"failures".into(), &failures)?;
        Reflect::set(&o, &"cancelled".into(), &JsValue::from(self.cancelled))?;
        Ok(o.into())
    }

    fn new_slot(&self) -> Slot {
        let session = Session::new(&self.settings);
        let deadline = Deadline::new(Some(self.stall), None, now(), &session);
        Slot {
            worker: None,
            session,
            emitted: 0,
            job: None,
            job_start: Duration::ZERO,
            deadline,
            generation: 0,
            handlers: None,
        }
    }

    /// Starts (or restarts) slot `i`'s worker and session.
    fn start(&mut self, i: usize, emits: &mut Vec<Emit>) {
        let generation = self.slots[i].generation.wrapping_add(1);
        let mut slot = self.new_slot();
        slot.generation = generation;
        if let Some(old) = std::mem::replace(&mut self.slots[i], slot).handlers {
            self.retired.push(old);
        }
        let worker = match Worker::new(&self.url) {
            Ok(w) => w,
            Err(e) => {
                let reason = format!("cannot start the engine worker: {}", message_of(&e));
                self.give_up_all(&reason);
                emits.push(Emit::Log(reason));
                self.retire(i, emits);
                return;
            }
        };
        let me = self.me.clone();
        let message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let Some(rc) = me.upgrade() else { return };
            // Stockfish posts strings; anything else is a line the session refuses.
            let data = e
                .data()
                .as_string()
                .unwrap_or_else(|| "(not text)".to_owned());
            with(&rc, |inner, emits| {
                for line in data.split('\n') {
                    if inner.slots[i].generation != generation || inner.slots[i].worker.is_none() {
                        return;
                    }
                    if !line.is_empty() {
                        inner.line(i, line, emits);
                    }
                }
            });
        });
        let me = self.me.clone();
        let error = Closure::<dyn FnMut(ErrorEvent)>::new(move |e: ErrorEvent| {
            e.prevent_default();
            let Some(rc) = me.upgrade() else { return };
            let msg = e.message();
            let msg = if msg.is_empty() {
                "unknown".to_owned()
            } else {
                msg
            };
            with(&rc, |inner, emits| {
                if inner.slots[i].generation == generation && inner.slots[i].worker.is_some() {
                    inner.fail(i, &format!("engine worker error: {msg}"), emits);
                }
            });
        });
        let me = self.me.clone();
        let message_error = Closure::<dyn FnMut(MessageEvent)>::new(move |_: MessageEvent| {
            let Some(rc) = me.upgrade() else { return };
            with(&rc, |inner, emits| {
                if inner.slots[i].generation == generation && inner.slots[i].worker.is_some() {
                    inner.fail(i, "engine worker sent an unreadable message", emits);
                }
            });
        });
        worker.set_onmessage(Some(message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(error.as_ref().unchecked_ref()));
        worker.set_onmessageerror(Some(message_error.as_ref().unchecked_ref()));
        let slot = &mut self.slots[i];
        slot.worker = Some(worker);
        slot.handlers = Some(Handlers {
            _message: message,
            _error: error,
            _message_error: message_error,
        });
        self.flush(i, emits);
    }

    /// Posts the session's commands to the worker.
    fn flush(&mut self, i: usize, emits: &mut Vec<Emit>) {
        let slot = &mut self.slots[i];
        let Some(worker) = &slot.worker else { return };
        for cmd in slot.session.take_commands() {
            if let Err(e) = worker.post_message(&JsValue::from(cmd.to_string())) {
                let reason = format!("cannot talk to the engine worker: {}", message_of(&e));
                self.fail(i, &reason, emits);
                return;
            }
        }
    }

    /// One line the worker printed.
    fn line(&mut self, i: usize, line: &str, emits: &mut Vec<Emit>) {
        if self.cancelled {
            return;
        }
        let t = now();
        let slot = &mut self.slots[i];
        if let Err(e) = slot.session.handle_line(line) {
            let reason = format!("engine protocol error: {e}");
            self.fail(i, &reason, emits);
            return;
        }
        slot.deadline.saw_line(t, &slot.session);
        if self.engine_name.is_none() {
            self.engine_name = slot.session.engine_name().map(str::to_owned);
        }
        if let Some(job) = slot.job {
            let done = slot.session.completed_positions();
            if done.len() > slot.emitted
                && let Some(id) = slot.session.running_job()
            {
                let partial = JobResult {
                    id,
                    positions: done[slot.emitted..].to_vec(),
                };
                slot.emitted = done.len();
                if let Ok(json) = serde_json::to_string(&partial) {
                    emits.push(Emit::Partial(job, json));
                }
            }
            if let Some(result) = slot.session.take_result() {
                slot.job = None;
                let ms = t.saturating_sub(slot.job_start).as_secs_f64() * 1000.0;
                match serde_json::to_string(&result) {
                    Ok(json) => emits.push(Emit::Result(job, json, ms)),
                    Err(e) => self.failures.push((job, e.to_string())),
                }
            }
        }
        let slot = &self.slots[i];
        if slot.job.is_none() && slot.session.is_idle() {
            // Started before the run: it waits for `run` to hand it a job.
            if self.ran {
                self.next(i, emits);
            }
        } else {
            self.flush(i, emits);
        }
    }

    /// Gives slot `i` the next job, or retires it.
    fn next(&mut self, i: usize, emits: &mut Vec<Emit>) {
        let Some(job) = self.queue.pop_front() else {
            self.retire(i, emits);
            return;
        };
        let submitted = serde_json::from_str::<Job>(&self.jobs[job])
            .map_err(|e| format!("bad job: {e}"))
            .and_then(|j| {
                let slot = &mut self.slots[i];
                slot.session.submit(j).map_err(|e| e.to_string())
            });
        let t = now();
        let slot = &mut self.slots[i];
        slot.job = Some(job);
        slot.job_start = t;
        slot.emitted = 0;
        slot.deadline.restart(t, &slot.session);
        if let Err(e) = submitted {
            self.fail(i, &format!("cannot submit job: {e}"), emits);
            return;
        }
        self.flush(i, emits);
    }

    /// Stops slot `i`'s worker (no more work for it); finishes when every slot is
    /// stopped and no job waits.
    fn retire(&mut self, i: usize, emits: &mut Vec<Emit>) {
        let slot = &mut self.slots[i];
        if let Some(w) = slot.worker.take() {
            w.terminate();
        }
        if let Some(h) = slot.handlers.take() {
            self.retired.push(h);
        }
        if self.slots.iter().all(|s| s.worker.is_none()) && self.queue.is_empty() {
            self.finish(emits);
        }
    }

    /// Every waiting job fails with `reason`.
    fn give_up_all(&mut self, reason: &str) {
        for j in self.queue.drain(..) {
            self.failures.push((j, reason.to_owned()));
        }
    }

    /// Slot `i`'s worker failed: terminate it, retry its job once (the core's rule), and
    /// start a fresh worker while jobs wait.
    fn fail(&mut self, i: usize, reason: &str, emits: &mut Vec<Emit>) {
        let slot = &mut self.slots[i];
        if let Some(w) = slot.worker.take() {
            w.terminate();
        }
        let job = slot.job.take();
        match job {
            Some(job) => {
                let named = self
                    .labels
                    .get(job)
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default();
                match self.retries.fail(job) {
                    Verdict::Retry => {
                        emits.push(Emit::Log(format!(
                            "{reason}; restarting the engine and retrying job {}{named}",
                            job + 1
                        )));
                        self.queue.push_front(job);
                    }
                    Verdict::GiveUp => {
                        emits.push(Emit::Log(format!(
                            "{reason}; job {} failed twice and is skipped{named}",
                            job + 1
                        )));
                        self.failures.push((job, reason.to_owned()));
                    }
                }
            }
            None => {
                self.retries.fail_idle();
                emits.push(Emit::Log(format!("{reason}; restarting the engine")));
            }
        }
        if !self.queue.is_empty() && !self.cancelled {
            if self.retries.hopeless(self.jobs.len()) {
                // The engine cannot run here at all: give up instead of looping.
                self.give_up_all(reason);
            } else {
                self.start(i, emits);
                return;
            }
        }
        self.retire(i, emits);
    }

    /// Fails every worker past its deadline.
    fn check(&mut self, emits: &mut Vec<Emit>) {
        self.retired.clear();
        let t = now();
        for i in 0..self.slots.len() {
            let slot = &self.slots[i];
            if slot.worker.is_none() {
                continue;
            }
            if let Some(stall) = slot.deadline.stalled(t) {
                self.fail(i, &stall.to_string(), emits);
            }
        }
    }

    /// Stops every worker and ends the run.
    fn finish(&mut self, emits: &mut Vec<Emit>) {
        self.watch = None;
        for slot in &mut self.slots {
            if let Some(w) = slot.worker.take() {
                w.terminate();
            }
            if let Some(h) = slot.handlers.take() {
                self.retired.push(h);
            }
            slot.job = None;
        }
        if self.resolve.is_some() {
            emits.push(Emit::Done);
        }
    }
}

/// A JS error's message, or its text.
fn message_of(e: &JsValue) -> String {
    Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

#[wasm_bindgen]
impl WorkerPool {
    /// A pool of `workers` (at least 1) engine workers started from `url` (a Stockfish
    /// build's script), each with a session for `settings` (the analyzer's settings
    /// object); a worker silent for `stall_ms` is replaced.
    #[wasm_bindgen(constructor)]
    pub fn new(
        url: &str,
        settings: JsValue,
        workers: usize,
        stall_ms: f64,
    ) -> Result<WorkerPool, JsError> {
        let settings = super::settings_from(settings)?;
        if !(stall_ms.is_finite() && stall_ms > 0.0) {
            return Err(JsError::new(&format!("bad stall deadline: {stall_ms} ms")));
        }
        let inner = Rc::new_cyclic(|me| {
            RefCell::new(Inner {
                url: url.to_owned(),
                settings,
                size: workers.max(1),
                stall: Duration::from_micros((stall_ms * 1000.0) as u64),
                me: me.clone(),
                slots: Vec::new(),
                jobs: Vec::new(),
                labels: Vec::new(),
                queue: VecDeque::new(),
                retries: Retries::default(),
                failures: Vec::new(),
                engine_name: None,
                callbacks: None,
                resolve: None,
                ran: false,
                cancelled: false,
                watch: None,
                retired: Vec::new(),
            })
        });
        Ok(WorkerPool { inner })
    }

    /// Runs `jobs` (job JSON strings; `labels[k]` names job `k` for the user) until each
    /// is done or failed twice, or until [`WorkerPool::cancel`]. Calls
    /// `on_partial(k, json)` with positions of a running job as soon as each is complete,
    /// `on_result(k, json, engine_ms)` once per finished job, `on_log(message)` for a
    /// replaced worker. Resolves to `{failures: [{job, reason}], cancelled}`. Once only.
    pub fn run(
        &self,
        jobs: Vec<String>,
        labels: Vec<String>,
        on_result: Function,
        on_partial: Function,
        on_log: Function,
    ) -> Result<Promise, JsError> {
        let Ok(mut inner) = self.inner.try_borrow_mut() else {
            return Err(JsError::new("the engine pool is busy"));
        };
        if inner.ran || inner.cancelled {
            return Err(JsError::new("the engine pool runs once"));
        }
        inner.ran = true;
        let mut resolve = None;
        let promise = Promise::new(&mut |r, _| resolve = Some(r));
        inner.resolve = resolve;
        inner.queue = (0..jobs.len()).collect();
        inner.jobs = jobs;
        inner.labels = labels;
        inner.callbacks = Some(Callbacks {
            on_result,
            on_partial,
            on_log,
        });
        let n = inner.size.min(inner.queue.len());
        drop(inner);
        with(&self.inner, |inner, emits| {
            if n == 0 {
                inner.finish(emits);
                return;
            }
            while inner.slots.len() < n {
                let slot = inner.new_slot();
                inner.slots.push(slot);
            }
            // Engines started early (`start_engines`) take their jobs now; one that died
            // while it waited starts again; one still in its handshake asks when ready.
            for i in 0..inner.slots.len() {
                let slot = &inner.slots[i];
                if i >= n {
                    // More engines were started than there are jobs.
                    inner.retire(i, emits);
                } else if slot.worker.is_none() {
                    inner.start(i, emits);
                } else if slot.job.is_none() && slot.session.is_idle() {
                    inner.next(i, emits);
                }
                if emits.iter().any(|e| matches!(e, Emit::Done)) {
                    return; // no worker could start
                }
            }
            let me = inner.me.clone();
            inner.watch = Some(Interval::new(WATCH_EVERY_MS, move || {
                if let Some(rc) = me.upgrade() {
                    with(&rc, Inner::check);
                }
            }));
        });
        Ok(promise)
    }

    /// Starts the engines before the jobs are known: each worker loads Stockfish and does
    /// its handshake, then waits for [`WorkerPool::run`], which hands out the jobs at
    /// once. Once, before `run`. No deadline applies while they wait (a worker that dies
    /// meanwhile is started again by `run`); dropping (freeing) the pool stops them.
    #[wasm_bindgen(js_name = startEngines)]
    pub fn start_engines(&self) -> Result<(), JsError> {
        {
            let Ok(inner) = self.inner.try_borrow() else {
                return Err(JsError::new("the engine pool is busy"));
            };
            if inner.ran || inner.cancelled || !inner.slots.is_empty() {
                return Err(JsError::new("the engines are started once, before the run"));
            }
        }
        with(&self.inner, |inner, emits| {
            for _ in 0..inner.size {
                let slot = inner.new_slot();
                inner.slots.push(slot);
            }
            for i in 0..inner.size {
                inner.start(i, emits);
            }
        });
        Ok(())
    }

    /// Stops every worker at once; the run resolves with `cancelled: true`.
    pub fn cancel(&self) {
        with(&self.inner, |inner, emits| {
            if inner.cancelled || inner.resolve.is_none() {
                return;
            }
            inner.cancelled = true;
            inner.queue.clear();
            inner.finish(emits);
        });
    }

    /// Test hook: terminates worker `i` without telling the pool (as if it hung); whether
    /// it was running.
    #[wasm_bindgen(js_name = killWorker)]
    pub fn kill_worker(&self, i: usize) -> bool {
        let Ok(inner) = self.inner.try_borrow() else {
            return false;
        };
        match inner.slots.get(i).and_then(|s| s.worker.as_ref()) {
            Some(w) => {
                w.terminate();
                true
            }
            None => false,
        }
    }

    /// Workers the run started (slots, each replaced in place).
    #[wasm_bindgen(js_name = slotCount)]
    pub fn slot_count(&self) -> usize {
        self.inner.try_borrow().map_or(0, |i| i.slots.len())
    }

    /// The job slot `i` runs, if any.
    #[wasm_bindgen(js_name = slotJob)]
    pub fn slot_job(&self, i: usize) -> Option<usize> {
        self.inner.try_borrow().ok()?.slots.get(i)?.job
    }

    /// Slot `i`'s worker, while it runs.
    #[wasm_bindgen(js_name = slotWorker)]
    pub fn slot_worker(&self, i: usize) -> Option<Worker> {
        self.inner.try_borrow().ok()?.slots.get(i)?.worker.clone()
    }

    /// The engine's `id name`, once a worker has told it.
    #[wasm_bindgen(js_name = engineName)]
    pub fn engine_name(&self) -> Option<String> {
        self.inner.try_borrow().ok()?.engine_name.clone()
    }

    /// Engines restarted so far (failed workers replaced).
    pub fn restarts(&self) -> usize {
        self.inner.try_borrow().map_or(0, |i| i.retries.restarts())
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        // The workers' handlers hold only weak references: without the pool they stop.
        if let Ok(mut inner) = self.inner.try_borrow_mut() {
            let mut emits = Vec::new();
            inner.cancelled = true;
            inner.finish(&mut emits);
            inner.resolve = None;
        }
    }
}
