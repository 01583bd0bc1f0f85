//! The page's engine pool (`src/wasm/pool.rs`) on fake engines: tiny worker scripts made
//! in the test (Blob URLs) that answer the UCI handshake and the searches of the games
//! `1. e4 e5` and `1. d4 d5`, and die on purpose: by throwing (the worker's `error`
//! event), or by falling silent (terminated behind the pool's back: only the stall
//! deadline notices). The real Stockfish in the real pool is tested by
//! `tests/browser/` (app.test.mjs, reliability.test.mjs).

use std::{cell::RefCell, rc::Rc};

use fairsight::wasm::{Analyzer, WorkerPool};
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue, closure::Closure};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

use super::{ok, settings};

/// A fake engine: the handshake, and one line per search at depth 1 (the best move by
/// position, or the `searchmoves` move for the played move's own search), after
/// `delay_ms`. `on_go` runs first with the position (`pos`): it may throw or return
/// true to stay silent.
fn fake_engine(delay_ms: u32, on_go: &str) -> String {
    let src = format!(
        r#"
let pos = '';
const best = {{ 'position startpos': 'e2e4', 'position startpos moves e2e4': 'e7e5', 'position startpos moves d2d4': 'd7d5' }};
onmessage = (e) => {{
  const cmd = String(e.data);
  if (cmd === 'uci') postMessage('id name Fake 1\nuciok');
  else if (cmd === 'isready') postMessage('readyok');
  else if (cmd.startsWith('position')) pos = cmd;
  else if (cmd.startsWith('go')) {{
    if ((() => {{ {on_go} }})()) return;
    const only = cmd.match(/searchmoves (\S+)/);
    const mv = only ? only[1] : best[pos];
    setTimeout(() => postMessage(`info depth 1 seldepth 1 multipv 1 score cp 20 nodes 20 nps 1000 time 1 pv ${{mv}}\nbestmove ${{mv}}`), {delay_ms});
  }}
}};
"#
    );
    let make = Function::new_with_args(
        "src",
        "return URL.createObjectURL(new Blob([src], { type: 'text/javascript' }))",
    );
    make.call1(&JsValue::NULL, &JsValue::from(src))
        .expect("a Blob URL")
        .as_string()
        .expect("a string")
}

const GAMES: &str = "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 *\n\n[White \"Carol\"]\n[Black \"Dave\"]\n\n1. d4 d5 *\n";

/// What a run told the page.
#[derive(Default)]
struct Heard {
    results: Vec<(usize, String)>,
    partials: Vec<(usize, String)>,
    logs: Vec<String>,
}

/// The page's three callbacks, recording into `heard` (kept alive by the caller).
type Callbacks = (
    Closure<dyn FnMut(f64, String, f64)>,
    Closure<dyn FnMut(f64, String)>,
    Closure<dyn FnMut(String)>,
);

fn callbacks(heard: &Rc<RefCell<Heard>>) -> Callbacks {
    let h = heard.clone();
    let on_result = Closure::<dyn FnMut(f64, String, f64)>::new(move |k: f64, json, _ms| {
        h.borrow_mut().results.push((k as usize, json))
    });
    let h = heard.clone();
    let on_partial = Closure::<dyn FnMut(f64, String)>::new(move |k: f64, json| {
        h.borrow_mut().partials.push((k as usize, json))
    });
    let h = heard.clone();
    let on_log = Closure::<dyn FnMut(String)>::new(move |m| h.borrow_mut().logs.push(m));
    (on_result, on_partial, on_log)
}

fn function<T: ?Sized>(c: &Closure<T>) -> Function {
    c.as_ref().unchecked_ref::<Function>().clone()
}

/// Starts `pool` on the analyzer's jobs; the run's promise.
fn run(pool: &WorkerPool, a: &Analyzer, cb: &Callbacks) -> Promise {
    let jobs: Vec<String> = (0..a.job_count()).map(|i| ok(a.job_json(i))).collect();
    let labels: Vec<String> = (0..a.job_count()).map(|i| ok(a.job_label(i))).collect();
    ok(pool.run(
        jobs,
        labels,
        function(&cb.0),
        function(&cb.1),
        function(&cb.2),
    ))
}

/// The run's outcome: the failed jobs' indices and whether it was cancelled.
async fn outcome(p: Promise) -> (Vec<usize>, bool) {
    let o = JsFuture::from(p).await.expect("the run resolves");
    let failures: Vec<serde_json::Value> =
        serde_wasm_bindgen::from_value(Reflect::get(&o, &"failures".into()).expect("failures"))
            .expect("a list");
    let jobs = failures
        .iter()
        .map(|f| f["job"].as_u64().expect("a job") as usize)
        .collect();
    let cancelled = Reflect::get(&o, &"cancelled".into())
        .expect("cancelled")
        .as_bool()
        .expect("a bool");
    (jobs, cancelled)
}

async fn sleep(ms: i32) {
    let p = Promise::new(&mut |resolve, _| {
        web_sys::window()
            .expect("a window")
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .expect("a timer");
    });
    let _ = JsFuture::from(p).await;
}

/// Waits (up to 10 s) until `f` holds.
async fn until(mut f: impl FnMut() -> bool) {
    for _ in 0..200 {
        if f() {
            return;
        }
        sleep(50).await;
    }
    panic!("timed out waiting");
}

/// Each job's result came once, and together they are every position of the games;
/// every one of the pool's `slots` workers is stopped.
fn assert_every_position_once(pool: &WorkerPool, a: &mut Analyzer, heard: &Heard, slots: usize) {
    let mut done: Vec<usize> = heard.results.iter().map(|(k, _)| *k).collect();
    done.sort_unstable();
    assert_eq!(done, vec![0, 1], "each job's result once");
    for (_, json) in &heard.results {
        ok(a.add_result_json(json));
    }
    assert_eq!(a.done_positions(), 4);
    assert!(
        (0..slots).all(|i| pool.slot_worker(i).is_none()),
        "every worker stopped"
    );
}

#[wasm_bindgen_test]
async fn the_pool_runs_every_job_once_on_several_workers() {
    let mut a = ok(Analyzer::new(GAMES, settings(), None));
    assert_eq!(a.job_count(), 2);
    let pool = ok(WorkerPool::new(&fake_engine(5, ""), settings(), 2, 60000.0));
    let heard = Rc::new(RefCell::new(Heard::default()));
    let cb = callbacks(&heard);
    let (failures, cancelled) = outcome(run(&pool, &a, &cb)).await;
    assert_eq!((failures, cancelled), (vec![], false));
    assert_eq!(pool.slot_count(), 2, "two workers");
    assert_eq!(pool.engine_name().as_deref(), Some("Fake 1"));
    assert_eq!(pool.restarts(), 0);
    let heard = heard.borrow();
    assert!(heard.logs.is_empty(), "{:?}", heard.logs);
    assert!(
        !heard.partials.is_empty(),
        "positions are handed out as they come"
    );
    assert_every_position_once(&pool, &mut a, &heard, 2);
}

#[wasm_bindgen_test]
async fn a_worker_that_throws_is_replaced_and_its_job_retried_once_then_skipped() {
    // The fake dies by an uncaught error on 1. d4's position: the second game's chunk
    // fails after its first position is finished, twice; the first game's is done once.
    let a = ok(Analyzer::new(GAMES, settings(), None));
    let url = fake_engine(
        5,
        "if (pos.endsWith('d2d4')) throw new Error('fake engine died');",
    );
    let pool = ok(WorkerPool::new(&url, settings(), 1, 60000.0));
    let heard = Rc::new(RefCell::new(Heard::default()));
    let cb = callbacks(&heard);
    let (failures, cancelled) = outcome(run(&pool, &a, &cb)).await;
    assert_eq!(
        (failures, cancelled),
        (vec![1], false),
        "the chunk failed once"
    );
    let heard = heard.borrow();
    let done: Vec<usize> = heard.results.iter().map(|(k, _)| *k).collect();
    assert_eq!(done, vec![0], "the other chunk is counted once");
    assert_eq!(heard.logs.len(), 2, "{:?}", heard.logs);
    assert!(
        heard.logs[0].starts_with("engine worker error: ")
            && heard.logs[0].contains("fake engine died")
            && heard.logs[0].ends_with(
                "; restarting the engine and retrying job 2: game 2 (Carol - Dave), chunk 1"
            ),
        "{:?}",
        heard.logs
    );
    assert!(
        heard.logs[1]
            .ends_with("; job 2 failed twice and is skipped: game 2 (Carol - Dave), chunk 1"),
        "{:?}",
        heard.logs
    );
    assert_eq!(pool.restarts(), 2, "one worker replaced per failure");
    // Its first position was handed out before each death, the same both times.
    let partials: Vec<&String> = heard
        .partials
        .iter()
        .filter(|(k, _)| *k == 1)
        .map(|(_, j)| j)
        .collect();
    assert_eq!(partials.len(), 2, "{partials:?}");
    assert_eq!(partials[0], partials[1]);
}

#[wasm_bindgen_test]
async fn a_silent_worker_is_replaced_at_the_deadline_and_its_job_counted_once() {
    let mut a = ok(Analyzer::new(GAMES, settings(), None));
    let pool = ok(WorkerPool::new(
        &fake_engine(300, ""),
        settings(),
        1,
        1000.0,
    ));
    let heard = Rc::new(RefCell::new(Heard::default()));
    let cb = callbacks(&heard);
    let done = run(&pool, &a, &cb);
    // Terminated behind the pool's back while job 1 runs: nothing more comes from it.
    until(|| pool.slot_job(0) == Some(0)).await;
    assert!(pool.kill_worker(0));
    let (failures, cancelled) = outcome(done).await;
    assert_eq!((failures, cancelled), (vec![], false));
    assert_eq!(pool.restarts(), 1);
    let heard = heard.borrow();
    assert_eq!(
        heard.logs,
        vec![
            "engine silent for 1 s; restarting the engine and retrying job 1: game 1 (Ann - Bob), chunk 1"
        ]
    );
    let mut jobs: Vec<usize> = heard.results.iter().map(|(k, _)| *k).collect();
    jobs.sort_unstable();
    assert_eq!(jobs, vec![0, 1], "each job's result once");
    for (_, json) in &heard.results {
        ok(a.add_result_json(json));
    }
    assert_eq!(a.done_positions(), 4, "nothing lost, nothing doubled");
}

#[wasm_bindgen_test]
async fn cancel_terminates_every_worker_at_once() {
    // Count Worker.terminate calls for the length of the test.
    let install = Function::new_no_args(
        "const t = Worker.prototype.terminate; self.__terminated = 0; self.__terminate = t; \
         Worker.prototype.terminate = function () { self.__terminated++; return t.call(this); };",
    );
    let restore = Function::new_no_args("Worker.prototype.terminate = self.__terminate;");
    let terminated = || {
        Reflect::get(&js_sys::global(), &"__terminated".into())
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(-1.0)
    };
    install.call0(&JsValue::NULL).expect("installed");
    // Engines that never answer a search; a deadline far away.
    let a = ok(Analyzer::new(GAMES, settings(), None));
    let pool = ok(WorkerPool::new(
        &fake_engine(5, "return true;"),
        settings(),
        2,
        60000.0,
    ));
    let heard = Rc::new(RefCell::new(Heard::default()));
    let cb = callbacks(&heard);
    let done = run(&pool, &a, &cb);
    until(|| pool.slot_job(0).is_some() && pool.slot_job(1).is_some()).await;
    assert_eq!(terminated(), 0.0);
    pool.cancel();
    let (failures, cancelled) = outcome(done).await;
    let count = terminated();
    restore.call0(&JsValue::NULL).expect("restored");
    assert_eq!((failures, cancelled), (vec![], true));
    assert_eq!(count, 2.0, "both workers terminated");
    assert!((0..2).all(|i| pool.slot_worker(i).is_none() && pool.slot_job(i).is_none()));
    let heard = heard.borrow();
    assert!(heard.results.is_empty() && heard.logs.is_empty());
    // A cancelled pool stays cancelled.
    pool.cancel();
    assert!(!pool.kill_worker(0));
}

#[wasm_bindgen_test]
async fn a_callback_that_throws_is_said_on_the_console_and_the_run_goes_on() {
    // Record console.error for the length of the test.
    let install = Function::new_no_args(
        "self.__errors = []; self.__error = console.error; \
         console.error = (...args) => self.__errors.push(args.map((a) => String(a)).join(' '));",
    );
    let restore = Function::new_no_args("console.error = self.__error;");
    install.call0(&JsValue::NULL).expect("installed");
    let a = ok(Analyzer::new(GAMES, settings(), None));
    let pool = ok(WorkerPool::new(&fake_engine(5, ""), settings(), 2, 60000.0));
    let heard = Rc::new(RefCell::new(Heard::default()));
    let cb = callbacks(&heard);
    // A page whose result callback throws (a bug of the page, not of the engine).
    let throwing = Function::new_with_args(
        "k, json, ms",
        "throw new Error('the page broke on job ' + k);",
    );
    let jobs: Vec<String> = (0..a.job_count()).map(|i| ok(a.job_json(i))).collect();
    let labels: Vec<String> = (0..a.job_count()).map(|i| ok(a.job_label(i))).collect();
    let done = ok(pool.run(jobs, labels, throwing, function(&cb.1), function(&cb.2)));
    let (failures, cancelled) = outcome(done).await;
    let errors: Vec<String> = serde_wasm_bindgen::from_value(
        Reflect::get(&js_sys::global(), &"__errors".into()).expect("errors"),
    )
    .expect("a list");
    restore.call0(&JsValue::NULL).expect("restored");
    assert_eq!((failures, cancelled), (vec![], false), "every job done");
    assert_eq!(errors.len(), 2, "one error a result: {errors:?}");
    let mut jobs: Vec<&str> = errors
        .iter()
        .map(|e| {
            assert!(
                e.starts_with("fairsight: a pool callback threw: Error: the page broke on job "),
                "{e}"
            );
            &e[e.len() - 1..]
        })
        .collect();
    jobs.sort_unstable();
    assert_eq!(jobs, ["0", "1"]);
    assert!(
        heard.borrow().logs.is_empty(),
        "the pool itself saw no failure"
    );
}

#[wasm_bindgen_test]
async fn engines_started_before_the_run_take_its_jobs_and_none_is_started_again() {
    // Engines that take 300 ms to search: the run is still going when looked at.
    let mut a = ok(Analyzer::new(GAMES, settings(), None));
    let pool = ok(WorkerPool::new(
        &fake_engine(300, ""),
        settings(),
        2,
        60000.0,
    ));
    ok(pool.start_engines());
    assert!(pool.start_engines().is_err(), "started once");
    assert_eq!(pool.slot_count(), 2);
    // Both do their handshake and wait, with no job.
    until(|| pool.engine_name().is_some()).await;
    let early: Vec<JsValue> = (0..2)
        .map(|i| pool.slot_worker(i).expect("a waiting worker").into())
        .collect();
    sleep(100).await;
    assert!(
        (0..2).all(|i| pool.slot_job(i).is_none()),
        "no job before the run"
    );
    let heard = Rc::new(RefCell::new(Heard::default()));
    let cb = callbacks(&heard);
    let done = run(&pool, &a, &cb);
    // Each job goes at once to a worker started early, the same Worker objects.
    let mut given: Vec<Option<usize>> = (0..2).map(|i| pool.slot_job(i)).collect();
    given.sort_unstable();
    assert_eq!(given, vec![Some(0), Some(1)]);
    for (i, w) in early.iter().enumerate() {
        let now: JsValue = pool.slot_worker(i).expect("running").into();
        assert!(
            js_sys::Object::is(&now, w),
            "worker {i} is the one started early"
        );
    }
    let (failures, cancelled) = outcome(done).await;
    assert_eq!((failures, cancelled), (vec![], false));
    assert_eq!(pool.restarts(), 0);
    let heard = heard.borrow();
    assert!(heard.logs.is_empty(), "{:?}", heard.logs);
    assert_every_position_once(&pool, &mut a, &heard, 2);
}

#[wasm_bindgen_test]
async fn an_engine_that_died_while_it_waited_is_started_again_by_the_run() {
    // Three engines started early for two jobs; one dies (an uncaught error) while it
    // waits, one is more than the jobs need.
    let mut a = ok(Analyzer::new(GAMES, settings(), None));
    let pool = ok(WorkerPool::new(&fake_engine(5, ""), settings(), 3, 60000.0));
    ok(pool.start_engines());
    until(|| pool.engine_name().is_some()).await;
    let kill = Function::new_with_args(
        "w",
        "w.dispatchEvent(new ErrorEvent('error', { message: 'died while waiting' }));",
    );
    let first: JsValue = pool.slot_worker(0).expect("waiting").into();
    kill.call1(&JsValue::NULL, &first).expect("dispatched");
    until(|| pool.slot_worker(0).is_none()).await;
    assert_eq!(pool.restarts(), 1, "counted as a restart");
    let heard = Rc::new(RefCell::new(Heard::default()));
    let cb = callbacks(&heard);
    let done = run(&pool, &a, &cb);
    let again: JsValue = pool.slot_worker(0).expect("started again").into();
    assert!(!js_sys::Object::is(&again, &first), "a new worker");
    let (failures, cancelled) = outcome(done).await;
    assert_eq!((failures, cancelled), (vec![], false));
    assert_every_position_once(&pool, &mut a, &heard.borrow(), 3);
    assert!(pool.start_engines().is_err(), "not after the run");
}
