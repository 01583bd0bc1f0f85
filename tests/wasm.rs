//! Tests of the browser bindings (`src/wasm.rs`), run in headless Chromium by
//! wasm-bindgen-test-runner (see `scripts/test-wasm.sh`). The engine side is a recorded
//! transcript here; the real engine in Web Workers is tested by `tests/browser/`.
#![cfg(target_arch = "wasm32")]

use fairsight::wasm::{
    Analyzer, EngineSession, IMPORT_PROGRESS_EVERY, JobCache, Rerating, Summary, annotate_report,
    move_number, nag_table, normalise_report, plan_input, pv_text, rerate_report, win_percent,
};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[path = "wasm/pool.rs"]
mod pool;

const PGN: &str = "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 *\n\n[White \"Carol\"]\n[Black \"Dave\"]\n\n1. e4 Ke7 *\n";

fn settings() -> JsValue {
    obj(r#"{"limit":{"depth":1},"multipv":1,"maxNodes":50000}"#)
}

/// A plain JS object from JSON, as the page passes settings.
fn obj(json: &str) -> JsValue {
    use serde::Serialize;
    let value: serde_json::Value = serde_json::from_str(json).expect("valid test JSON");
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .expect("serialisable")
}

fn ok<T>(r: Result<T, wasm_bindgen::JsError>) -> T {
    match r {
        Ok(v) => v,
        Err(_) => panic!("unexpected JsError"),
    }
}

#[wasm_bindgen_test]
fn imports_games_and_reports_the_bad_one() {
    let a = ok(Analyzer::new(PGN, settings(), None));
    let games: serde_json::Value = serde_wasm_bindgen::from_value(ok(a.games())).expect("games");
    assert_eq!(games.as_array().map(Vec::len), Some(2));
    assert_eq!(games[0]["white"], "Ann");
    assert_eq!(games[0]["plies"], 2);
    assert!(games[0]["error"].is_null());
    let err = games[1]["error"].as_str().expect("an error");
    assert!(err.contains("Carol - Dave") && err.contains("Ke7"), "{err}");
    assert_eq!(a.job_count(), 1);
    // A job named as the page's messages name it: its game, as an import error does.
    assert_eq!(ok(a.job_label(0)), "game 1 (Ann - Bob), chunk 1");
    assert!(a.job_label(1).is_err());
    assert_eq!(a.total_positions(), 2);
    assert_eq!(a.done_positions(), 0);
}

#[wasm_bindgen_test]
fn import_progress_counts_the_games_as_they_are_read() {
    // 250 games: calls at 100 and 200, then the total; the plan is the constructor's.
    let pgn = "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 *\n\n".repeat(250);
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = seen.clone();
    let f = wasm_bindgen::closure::Closure::<dyn FnMut(f64)>::new(move |n: f64| {
        sink.borrow_mut().push(n)
    });
    let plan: serde_json::Value = serde_wasm_bindgen::from_value(ok(plan_input(
        &pgn,
        settings(),
        None,
        Some(f.as_ref().unchecked_ref::<js_sys::Function>().clone()),
        None,
    )))
    .expect("plan");
    assert_eq!(IMPORT_PROGRESS_EVERY, 100);
    assert_eq!(*seen.borrow(), vec![100.0, 200.0, 250.0]);
    let a = ok(Analyzer::new(&pgn, settings(), None));
    assert_eq!(plan["games"].as_array().map(Vec::len), Some(250));
    assert_eq!(plan["total"].as_u64(), Some(a.total_positions() as u64));
    // A callback that throws is a JsError, not a panic.
    let bad = js_sys::Function::new_with_args("n", "throw new Error('no')");
    assert!(plan_input(&pgn, settings(), None, Some(bad), None).is_err());
}

#[wasm_bindgen_test]
fn the_shipped_book_excludes_the_opening() {
    let bytes = include_bytes!("../models/opening-book.bin").to_vec();
    let a = ok(Analyzer::new(PGN, settings(), Some(bytes)));
    assert_eq!(
        a.total_positions(),
        0,
        "1. e4 e5 is book: nothing to search"
    );
    let report: serde_json::Value = serde_json::from_str(&a.report_json()).expect("JSON");
    assert_eq!(report["games"][0]["plies"][1]["excluded"], "book");
}

#[wasm_bindgen_test]
fn bad_settings_are_a_js_error_not_a_panic() {
    assert!(Analyzer::new(PGN, obj(r#"{"limit":{"depth":0}}"#), None).is_err());
    assert!(Analyzer::new(PGN, obj(r#"{"multipv":"four"}"#), None).is_err());
    assert!(Analyzer::new(PGN, settings(), Some(b"not a book".to_vec())).is_err());
    assert!(EngineSession::new(obj(r#"{"chunkPlies":0}"#)).is_err());
    let mut a = ok(Analyzer::new(PGN, settings(), None));
    assert!(a.add_result_json("{not json").is_err());
    assert!(
        a.add_result_json(r#"{"id":{"game":7,"chunk":0},"positions":[]}"#)
            .is_err()
    );
    assert!(a.job_json(5).is_err());
    assert!(normalise_report("[]").is_err());
    assert!(annotate_report("{}").is_err());
}

/// Drives a session through a recorded engine transcript and checks the report.
#[wasm_bindgen_test]
fn a_session_fed_engine_lines_produces_the_report() {
    let mut a = ok(Analyzer::new(PGN, settings(), None));
    let mut s = ok(EngineSession::new(ok(a.settings())));
    assert_eq!(s.take_commands(), vec!["uci".to_owned()]);
    for line in ["id name Recorded 1", "uciok"] {
        ok(s.handle_line(line));
    }
    let cmds = s.take_commands();
    assert!(
        cmds.contains(&"setoption name Threads value 1".to_owned()),
        "{cmds:?}"
    );
    assert_eq!(cmds.last().map(String::as_str), Some("isready"));
    ok(s.handle_line("readyok"));
    assert!(s.is_idle());
    assert_eq!(s.engine_name().as_deref(), Some("Recorded 1"));

    ok(s.submit(&ok(a.job_json(0))));
    assert!(!s.is_idle());
    let cmds = s.take_commands();
    assert!(
        cmds.contains(&"setoption name MultiPV value 1".to_owned()),
        "{cmds:?}"
    );
    assert!(cmds.contains(&"ucinewgame".to_owned()), "{cmds:?}");
    ok(s.handle_line("readyok"));
    let cmds = s.take_commands();
    assert_eq!(cmds, vec!["position startpos", "go depth 1 nodes 50000"]);
    assert!(s.is_searching());
    ok(s.handle_line(
        "info depth 1 seldepth 2 multipv 1 score cp 30 nodes 20 nps 1000 time 1 pv e2e4 e7e5",
    ));
    ok(s.handle_line("bestmove e2e4 ponder e7e5"));
    let cmds = s.take_commands();
    assert_eq!(
        cmds,
        vec!["position startpos moves e2e4", "go depth 1 nodes 50000"]
    );
    ok(s.handle_line(
        "info depth 1 seldepth 2 multipv 1 score cp -25 nodes 20 nps 1000 time 1 pv e7e5",
    ));
    ok(s.handle_line("bestmove e7e5"));
    let result = ok(s.take_result_json()).expect("the job is done");
    assert!(s.is_idle());
    assert!(
        s.handle_line("bestmove e2e4").is_err(),
        "a bestmove out of a search"
    );

    ok(a.add_result_json(&result));
    assert_eq!(a.done_positions(), 2);
    a.set_engine("Recorded 1", "transcript");
    let json = a.report_json();
    let report: serde_json::Value = serde_json::from_str(&json).expect("report JSON");
    assert_eq!(report["schema"], 1);
    assert_eq!(report["engine"]["name"], "Recorded 1");
    let plies = &report["games"][0]["plies"];
    assert_eq!(plies[0]["san"], "e4");
    assert_eq!(plies[0]["rank"], 1);
    assert_eq!(plies[1]["eval"]["cp"], 25, "White's point of view");
    assert!(report["games"][1]["error"].is_string());
    // A saved report opens as the same JSON, and renders as PGN.
    assert_eq!(ok(normalise_report(&json)), json);
    assert!(ok(annotate_report(&json)).contains("[White \"Ann\"]"));
    assert!(a.annotated_pgn().contains("1. e4"));
}

#[wasm_bindgen_test]
fn the_pages_rules_are_the_cores() {
    // Win chance: a mate counts as 1000 cp, as in the core's accuracy (the page used to
    // show 100/0).
    let mate = win_percent(obj(r#"{"mate":3}"#)).expect("a score");
    let cp1000 = win_percent(obj(r#"{"cp":1000}"#)).expect("a score");
    assert_eq!(mate, cp1000);
    assert!(mate < 100.0 && mate > 90.0);
    assert_eq!(
        win_percent(obj(r#"{"mate":-2}"#)),
        win_percent(obj(r#"{"cp":-1000}"#))
    );
    assert_eq!(win_percent(obj(r#"{"cp":0}"#)), Some(50.0));
    assert_eq!(win_percent(obj(r#"{"pawns":1}"#)), None);
    // Move numbers: as in the annotated PGN, Black's first move numbered.
    assert_eq!(move_number(Some(8.0), "white"), "8.");
    assert_eq!(move_number(Some(8.0), "black"), "8…");
    assert_eq!(move_number(None, "black"), "?…");
    assert_eq!(move_number(Some(8.5), "white"), "?.");
    assert_eq!(move_number(Some(-1.0), "white"), "?.");
    let sans = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        pv_text(12, "black", sans(&["Nc6", "Bb5", "a6"])),
        "12… Nc6 13. Bb5 a6"
    );
    assert_eq!(pv_text(3, "white", sans(&["Nf3", "Nc6"])), "3. Nf3 Nc6");
    // NAG symbols.
    let t: serde_json::Value = serde_wasm_bindgen::from_value(ok(nag_table())).expect("table");
    assert_eq!(t["judgements"]["blunder"], "??");
    assert_eq!(t["judgements"]["inaccuracy"], "?!");
    assert_eq!(t["symbols"]["5"], "!?");
    assert!(
        t.get("betterThanEngine").is_none(),
        "no NAG for better-than-engine"
    );
    // Ratings typed in the page: the core's NAME=ELO.
    let mut a = ok(Analyzer::new(PGN, settings(), None));
    assert!(a.set_rating_text("Ann = 1850").is_ok());
    assert!(a.set_rating_text("Ann=abc").is_err());
    assert!(a.set_rating_text("=1500").is_err());
    assert!(a.set_rating_text("Ann=inf").is_err());
}

/// `reportParts` read as the worker reads it: (head, tail, count, changed).
fn parts(a: &mut Analyzer, all: bool) -> (String, String, usize, Vec<(usize, String)>) {
    let v: serde_json::Value =
        serde_wasm_bindgen::from_value(ok(a.report_parts(all, None))).expect("parts");
    let changed = v["changed"]
        .as_array()
        .expect("changed")
        .iter()
        .map(|c| {
            let i = c[0].as_u64().expect("a position") as usize;
            (i, c[1].as_str().expect("a text").to_owned())
        })
        .collect();
    (
        v["head"].as_str().expect("head").to_owned(),
        v["tail"].as_str().expect("tail").to_owned(),
        v["count"].as_u64().expect("count") as usize,
        changed,
    )
}

#[wasm_bindgen_test]
fn report_parts_give_the_changed_games_and_join_to_the_report() {
    let mut a = ok(Analyzer::new(PGN, settings(), None));
    let mut texts = vec![String::new(); 2];
    let mut view = |a: &mut Analyzer, all: bool| {
        let (head, tail, count, changed) = parts(a, all);
        assert_eq!(count, 2);
        for (i, text) in &changed {
            texts[*i] = text.clone();
        }
        assert_eq!(
            format!("{head}{}{tail}", texts.join(",\n    ")),
            a.report_json(),
            "head, the games' texts and tail are the report"
        );
        changed.iter().map(|c| c.0).collect::<Vec<_>>()
    };
    assert_eq!(view(&mut a, false), [0, 1], "every game the first time");
    assert_eq!(view(&mut a, false), [] as [usize; 0]);
    let result = recorded_result(&a);
    ok(a.add_result_json(&result));
    assert_eq!(view(&mut a, false), [0], "the game with new results");
    assert!(json(&a.report_json())["games"][0]["plies"][0]["searched"] == true);
    assert_eq!(view(&mut a, true), [0, 1], "every game when asked");
    // The page names the engine with each result: no game changes with its name (nor
    // with a build for which the models that apply stay the same: none here).
    a.set_engine("Recorded 1", "test");
    assert_eq!(view(&mut a, false), [] as [usize; 0]);
    assert!(a.report_json().contains("Recorded 1"));
    // A result that matches no job is refused and touches nothing.
    let other = result.replace("\"game\":0", "\"game\":1");
    assert_ne!(other, result);
    assert!(a.add_result_json(&other).is_err());
    assert_eq!(view(&mut a, false), [] as [usize; 0]);
    // A game at a time: the first with the head, the second from `moreParts`.
    let v: serde_json::Value =
        serde_wasm_bindgen::from_value(ok(a.report_parts(true, Some(1)))).expect("parts");
    assert_eq!(
        (v["changed"][0][0].as_u64(), v["pending"].as_u64()),
        (Some(0), Some(1))
    );
    let m: serde_json::Value = serde_wasm_bindgen::from_value(ok(a.more_parts(1))).expect("more");
    assert_eq!(m["changed"][0][0].as_u64(), Some(1));
    assert_eq!(m["pending"].as_u64(), Some(0));
    let whole = json(&a.report_json());
    assert_eq!(
        json(m["changed"][0][1].as_str().expect("a text")),
        whole["games"][1]
    );
}

#[wasm_bindgen_test]
fn a_file_analysed_a_segment_at_a_time_joins_to_the_whole_report() {
    // The analyzer worker's way with thousands of games: the input planned in one pass,
    // then an analyzer a segment, the players over all segments in a summary.
    let pgn = format!("{PGN}\n\n{PGN}");
    let mut whole = ok(Analyzer::new(&pgn, settings(), None));
    let plan: serde_json::Value =
        serde_wasm_bindgen::from_value(ok(plan_input(&pgn, settings(), None, None, Some(2))))
            .expect("plan");
    assert_eq!(plan["games"].as_array().map(Vec::len), Some(4));
    // Where games 1 and 3 start: the segments' marks.
    let marks = plan["marks"].as_array().expect("marks").clone();
    assert_eq!(marks.len(), 2);
    assert_eq!(marks[1]["index"], 2);
    assert_eq!(plan["games"][2]["white"], "Ann");
    assert_eq!(plan["jobs"].as_u64(), Some(whole.job_count() as u64));
    assert_eq!(plan["total"].as_u64(), Some(whole.total_positions() as u64));
    let result = recorded_result(&whole);
    ok(whole.add_result_json(&result));
    whole.set_engine("Recorded 1", "test");
    let expected = whole.report_json();

    let mut summary = ok(Summary::new(ok(whole.settings())));
    summary.set_engine("Recorded 1", "test");
    let mut texts = Vec::new();
    for (start, mark) in [0, 2].into_iter().zip(&marks) {
        let mark = obj(&mark.to_string());
        let mut segment = ok(Analyzer::segment(&pgn, settings(), None, mark, 2));
        segment.set_engine("Recorded 1", "test");
        assert_eq!(segment.job_count(), whole.job_count() / 2);
        if start == 0 {
            ok(segment.add_result_json(&result));
        }
        let (_, _, count, changed) = parts(&mut segment, false);
        assert_eq!(count, 2);
        texts.extend(changed.into_iter().map(|(_, t)| t));
        // The report so far: the games of the segments reached, their players.
        let v: serde_json::Value =
            serde_wasm_bindgen::from_value(ok(summary.parts(start + 2, &segment))).expect("parts");
        let joined = format!(
            "{}{}{}",
            v["head"].as_str().expect("head"),
            texts.join(",\n    "),
            v["tail"].as_str().expect("tail")
        );
        if start == 0 {
            assert_eq!(joined, segment.report_json(), "the first segment's report");
        } else {
            assert_eq!(joined, expected, "the whole report, byte for byte");
        }
        summary.add_segment(&segment);
    }
}

#[wasm_bindgen_test]
fn ratings_applied_a_game_at_a_time_give_the_report_rerate_gives() {
    // The analyzer worker's way with a stored report: its head and tail, then its games
    // one by one, never the whole report at once.
    let pgn =
        format!("{PGN}\n\n[White \"Ann\"]\n[Black \"Carol\"]\n[BlackElo \"1700\"]\n\n1. d4 d5 *\n");
    let mut a = ok(Analyzer::new(&pgn, settings(), None));
    let result = recorded_result(&a);
    ok(a.add_result_json(&result));
    a.set_engine("Recorded 1", "test");
    let (head, tail, count, changed) = parts(&mut a, true);
    assert_eq!(count, 3);
    for lines in [
        vec!["Ann=1500".to_owned(), "carol = 2100".to_owned()],
        Vec::new(),
    ] {
        let mut r = ok(Rerating::new(&head, &tail, lines.clone()));
        let texts: Vec<String> = changed.iter().map(|(_, t)| ok(r.game(t))).collect();
        let v: serde_json::Value =
            serde_wasm_bindgen::from_value(ok(r.parts(count))).expect("parts");
        let joined = format!(
            "{}{}{}",
            v["head"].as_str().expect("head"),
            texts.join(",\n    "),
            v["tail"].as_str().expect("tail")
        );
        assert_eq!(joined, ok(rerate_report(&a.report_json(), lines)));
    }
    let rated = json(&ok(rerate_report(
        &a.report_json(),
        vec!["Ann=1500".into()],
    )));
    assert_eq!(
        rated["players"][0]["rating"], 1500.0,
        "the rating is in the report"
    );
    // A bad line is an error that quotes it.
    assert!(Rerating::new(&head, &tail, vec!["Ann 1500".into()]).is_err());
}

/// Job 0 of `a` analysed through a recorded transcript: its result JSON.
fn recorded_result(a: &Analyzer) -> String {
    let mut s = ok(EngineSession::new(ok(a.settings())));
    for line in ["id name Recorded 1", "uciok", "readyok"] {
        ok(s.handle_line(line));
    }
    ok(s.submit(&ok(a.job_json(0))));
    for line in [
        "readyok",
        "info depth 1 seldepth 2 multipv 1 score cp 30 nodes 20 nps 1000 time 1 pv e2e4 e7e5",
        "bestmove e2e4 ponder e7e5",
        "info depth 1 seldepth 2 multipv 1 score cp -25 nodes 20 nps 1000 time 1 pv e7e5",
        "bestmove e7e5",
    ] {
        ok(s.handle_line(line));
    }
    ok(s.take_result_json()).expect("the job is done")
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).expect("JSON")
}

/// Sets `IDBObjectStore.prototype.put` to `f`, returning the browser's own.
fn replace_idb_put(f: &JsValue) -> JsValue {
    let global = js_sys::global();
    let class = js_sys::Reflect::get(&global, &"IDBObjectStore".into()).expect("IndexedDB");
    let proto = js_sys::Reflect::get(&class, &"prototype".into()).expect("a prototype");
    let own = js_sys::Reflect::get(&proto, &"put".into()).expect("put");
    js_sys::Reflect::set(&proto, &"put".into(), f).expect("settable");
    own
}

#[wasm_bindgen_test]
async fn the_cache_keeps_results_under_the_cores_key_and_answers_the_same_game_elsewhere() {
    let cache = JobCache::open().await;
    assert!(cache.available());
    ok(cache.clear().await);
    let a = ok(Analyzer::new(PGN, settings(), None));
    let job = ok(a.job_json(0));
    let result = recorded_result(&a);
    let get = |job: &str, build: &str, name: &str, hash| {
        cache.get(job.to_owned(), build.to_owned(), name.to_owned(), hash)
    };
    assert_eq!(ok(get(&job, "build", "Recorded 1", 16).await), None);
    assert_eq!(cache.engine_name("build".into()).await, None);
    assert!(ok(cache
        .put(
            job.clone(),
            "build".into(),
            "Recorded 1".into(),
            16,
            result.clone()
        )
        .await));
    assert_eq!(ok(cache.count().await), 1);
    assert_eq!(
        cache.engine_name("build".into()).await.as_deref(),
        Some("Recorded 1"),
        "the name to look the build's jobs up under"
    );
    assert_eq!(
        ok(get(&job, "build", "Recorded 1", 16).await),
        Some(result.clone())
    );
    // The same game second in another input hits, answered under that job's id (the
    // CLI's --cache rule).
    let b = ok(Analyzer::new("1. d4 *\n\n1. e4 e5 *", settings(), None));
    let job_b = ok(b.job_json(1));
    let hit = ok(get(&job_b, "build", "Recorded 1", 16).await).expect("a hit");
    assert_eq!(json(&hit)["id"], json(&job_b)["id"]);
    assert_ne!(json(&hit)["id"], json(&result)["id"]);
    assert_eq!(json(&hit)["positions"], json(&result)["positions"]);
    // The key holds the engine's build and name and the hash size.
    assert_eq!(ok(get(&job, "other", "Recorded 1", 16).await), None);
    assert_eq!(ok(get(&job, "build", "Recorded 2", 16).await), None);
    assert_eq!(ok(get(&job, "build", "Recorded 1", 32).await), None);
    // A stale entry is a miss; a job that is not one is an error.
    let c = ok(Analyzer::new("1. d4 d5 *", settings(), None));
    let job_c = ok(c.job_json(0));
    assert!(ok(cache
        .put(
            job_c.clone(),
            "build".into(),
            "Recorded 1".into(),
            16,
            "{}".into()
        )
        .await));
    assert_eq!(ok(get(&job_c, "build", "Recorded 1", 16).await), None);
    assert!(get("not a job", "build", "Recorded 1", 16).await.is_err());
    ok(cache.clear().await);
    assert_eq!(ok(cache.count().await), 0);
    assert_eq!(ok(get(&job, "build", "Recorded 1", 16).await), None);
}

#[wasm_bindgen_test]
async fn a_full_disk_refuses_the_write_and_says_so_without_an_error() {
    let cache = JobCache::open().await;
    ok(cache.clear().await);
    let a = ok(Analyzer::new(PGN, settings(), None));
    let job = ok(a.job_json(0));
    let result = recorded_result(&a);
    let full = wasm_bindgen::closure::Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(|| {
        Err(
            web_sys::DomException::new_with_message_and_name("full", "QuotaExceededError")
                .expect("a DOMException")
                .into(),
        )
    });
    let own = replace_idb_put(full.as_ref());
    let stored = cache
        .put(
            job.clone(),
            "build".into(),
            "Recorded 1".into(),
            16,
            result.clone(),
        )
        .await;
    // Any other failure is an error with the browser's message.
    let broken =
        wasm_bindgen::closure::Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(|| {
            Err(js_sys::Error::new("storage gone").into())
        });
    replace_idb_put(broken.as_ref());
    let failed = cache
        .put(
            job.clone(),
            "build".into(),
            "Recorded 1".into(),
            16,
            result.clone(),
        )
        .await;
    replace_idb_put(&own);
    assert!(!ok(stored), "not stored, and no error");
    let Err(e) = failed else {
        panic!("a failure other than a full disk is an error")
    };
    let e: JsValue = e.into();
    let message = js_sys::Reflect::get(&e, &"message".into()).expect("a message");
    assert!(
        message
            .as_string()
            .is_some_and(|m| m.contains("storage gone")),
        "{message:?}"
    );
    assert_eq!(ok(cache.count().await), 0);
    // The browser's put back: stored again.
    assert!(ok(cache
        .put(job, "build".into(), "Recorded 1".into(), 16, result)
        .await));
}

/// The old walk of the file's trees, the reference for smartcore's evaluation.
fn walk(trees: &[Vec<fairsight::fit::Node>], x: &[f64]) -> f64 {
    let votes: f64 = trees
        .iter()
        .map(|nodes| {
            let mut n = nodes[0];
            while n[0] >= 0.0 {
                n = nodes[if x[n[0] as usize] <= n[1] { n[2] } else { n[3] } as usize];
            }
            n[1]
        })
        .sum();
    votes / trees.len() as f64
}

#[wasm_bindgen_test]
fn smartcore_runs_the_shipped_forest_in_wasm_with_the_tree_walks_bits() {
    // smartcore's trees, rebuilt in wasm from the shipped file, on an ndarray matrix of
    // rows at the trees' own thresholds (where `<=` decides) and around them.
    let m = fairsight::Classifier::builtin().expect("a shipped move classifier");
    let fairsight::fit::Model::Forest { trees, .. } = &m.model else {
        panic!("the shipped model is a forest")
    };
    let n = m.features.len();
    let splits: Vec<Vec<f64>> = (0..n)
        .map(|f| {
            let s = trees.iter().flatten().filter(|x| x[0] == f as f64);
            s.map(|x| x[1]).collect()
        })
        .collect();
    let x = ndarray::Array2::from_shape_fn((600, n), |(r, f)| {
        let (s, k) = (&splits[f], r * 31 + f * 17);
        if s.is_empty() || k % 3 == 2 {
            (k % 23) as f64 / 4.0 - 2.0
        } else {
            s[k % s.len()] + if k % 3 == 0 { 0.0 } else { 1e-9 }
        }
    });
    let p = m.model.probabilities(&x);
    let mut distinct = std::collections::BTreeSet::new();
    for (row, p) in x.rows().into_iter().zip(&p) {
        assert_eq!(p.to_bits(), walk(trees, &row.to_vec()).to_bits());
        distinct.insert(p.to_bits());
    }
    assert!(distinct.len() >= 20, "{}", distinct.len());
}
