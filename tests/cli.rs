//! End-to-end tests of the `fairsight` CLI with real engines: the npm `stockfish` build
//! under node (installed by `npm ci`), and Debian's `stockfish` when present.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures").join(name)
}

fn tmp(name: &str) -> PathBuf {
    let dir = root().join("target/test-out");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn fairsight(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairsight"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("fairsight runs")
}

/// Fails with a clear message when an outside requirement is missing. Outside CI,
/// build.rs has the tests that need a missing one ignored, with the reason in `cargo
/// test`'s list (`no_node_stockfish`, `no_debian_stockfish`); under CI (the `CI`
/// variable set) they run and fail here.
fn require(path: &Path, install: &str) {
    assert!(
        path.is_file(),
        "{} is missing: {install} (under CI this fails; elsewhere the tests needing it are \
         ignored, see build.rs)",
        path.display()
    );
}

/// The default engine, node's Stockfish (the npm package).
fn require_node_engine() {
    require(
        &root().join("node_modules/stockfish/bin/stockfish-19-lite-single.js"),
        "run `npm ci`",
    );
}

/// Debian's Stockfish, a second engine.
const DEBIAN_STOCKFISH: &str = "/usr/games/stockfish";

fn require_debian_engine() {
    require(
        Path::new(DEBIAN_STOCKFISH),
        "run `apt-get install stockfish`",
    );
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// `fairsight analyze ARGS --quiet --json OUT`, which must succeed; the JSON report.
fn analyze_json(out: &Path, args: &[&str]) -> Value {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    all.extend(["--quiet", "--json", out.to_str().unwrap()]);
    let o = fairsight(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    read_json(out)
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn analyses_a_short_game_and_flags_the_known_blunder() {
    require_node_engine();
    let json = tmp("legal.json");
    let pgn = tmp("legal.pgn");
    let o = fairsight(&[
        "analyze",
        fixture("legal-trap.pgn").to_str().unwrap(),
        "--depth",
        "8",
        "--jobs",
        "1",
        "--json",
        json.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(
        table.contains("Trapper") && table.contains("Greedy"),
        "{table}"
    );

    let r = read_json(&json);
    assert_eq!(r["schema"], 1);
    assert!(r["engine"]["name"].as_str().unwrap().contains("Stockfish"));
    assert_eq!(r["engine"]["build"], "stockfish-19-lite-single");
    let game = &r["games"][0];
    assert!(game["error"].is_null());
    let plies = game["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 13);
    // The built-in book knows 1. e4 e5 2. Nf3 d6 3. Bc4 (Philidor): not searched.
    assert_eq!(r["settings"]["book"], "builtin");
    for p in &plies[..5] {
        assert_eq!(p["excluded"], "book", "{p}");
        assert_eq!(p["searched"], false);
    }
    assert_eq!(
        plies[5]["excluded"],
        Value::Null,
        "3... Bg4 leaves the book"
    );
    // 7. Nd5# is analysed; every ply has a verdict on whether it counts.
    let searched = plies.iter().filter(|p| p["searched"] == true).count();
    assert_eq!(searched, 7, "plies 6-13 but the forced 6... Ke7");
    // 5... Bxd1?? allows mate in two: a blunder with a huge loss.
    let bxd1 = &plies[9];
    assert_eq!(bxd1["san"], "Bxd1");
    assert_eq!(bxd1["side"], "black");
    assert_eq!(bxd1["judgement"], "blunder", "{bxd1}");
    assert!(bxd1["cpLoss"].as_i64().unwrap() >= 300, "{bxd1}");
    assert!(bxd1["winLoss"].as_f64().unwrap() >= 15.0);
    assert_eq!(bxd1["lines"].as_array().unwrap().len(), 4);
    assert_eq!(bxd1["depthEvals"].as_array().unwrap().len(), 8);
    // The mating move is the engine's choice.
    assert_eq!(plies[12]["best"], "c3d5");
    assert_eq!(plies[12]["rank"], 1);
    // Clocks: 4... g6 took 56 - 50 + 1 = 7 s.
    assert_eq!(plies[7]["timeSpent"].as_f64(), Some(7.0));
    let black = &game["sides"]["black"];
    assert_eq!(black["player"], "Greedy");
    assert!(black["blunders"].as_u64().unwrap() >= 1);
    assert!(black["engineScore"].as_f64().is_some());
    assert_eq!(black["analysedPlies"], 3, "Bg4, g6, Bxd1");
    assert_eq!(black["excluded"]["book"], 2);
    assert_eq!(black["excluded"]["forced"], 1);
    // Time use of Bg4, g6, Bxd1 (3, 7 and 6 s; book and forced moves left out).
    assert_eq!(black["time"]["moves"], 3);
    assert!((black["time"]["mean"].as_f64().unwrap() - 16.0 / 3.0).abs() < 1e-9);
    assert_eq!(black["time"]["fastMoves"], 0);
    let white = &game["sides"]["white"];
    assert!(white["acpl"].as_f64().unwrap() < black["acpl"].as_f64().unwrap());
    assert_eq!(r["players"].as_array().unwrap().len(), 2);
    // Haworth's competence and Regan's fit per player, from the analysed moves.
    let greedy = &r["players"][1];
    assert_eq!(greedy["name"], "Greedy");
    assert_eq!(greedy["competence"]["moves"], 3);
    assert_eq!(greedy["regan"]["moves"], 3);
    assert!(greedy["regan"]["s"].as_f64().unwrap() > 0.0);

    let annotated = std::fs::read_to_string(&pgn).unwrap();
    assert!(annotated.contains("[%eval"), "{annotated}");
    assert!(annotated.contains("Bxd1 $4"), "{annotated}");
    let back = fairsight::pgn::import(&annotated);
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].as_ref().unwrap().plies.len(), 13);
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn one_and_two_engines_give_byte_identical_json() {
    require_node_engine();
    let one = tmp("opera-j1.json");
    let two = tmp("opera-j2.json");
    for (jobs, out) in [("1", &one), ("2", &two)] {
        let o = fairsight(&[
            "analyze",
            "samples/opera-1858.pgn",
            "--depth",
            "7",
            "--chunk",
            "6",
            "--jobs",
            jobs,
            "--json",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let a = std::fs::read(&one).unwrap();
    let b = std::fs::read(&two).unwrap();
    assert!(a.len() > 10_000);
    assert!(a == b, "--jobs 1 and --jobs 2 reports differ");
    // Morphy's decided attack leaves fewer than 8 counted moves: no stretch scan.
    let r = read_json(&one);
    assert!(r["games"][0]["sides"]["white"]["stretch"].is_null());
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn the_node_cap_stops_deep_searches_deterministically() {
    require_node_engine();
    let outs = [tmp("cap-a.json"), tmp("cap-b.json")];
    let args = [
        "tests/fixtures/legal-trap.pgn",
        "--depth",
        "60",
        "--max-nodes",
        "20000",
        "--multipv",
        "2",
    ];
    let r = analyze_json(&outs[0], &args);
    analyze_json(&outs[1], &args);
    assert_eq!(r["settings"]["maxNodes"], 20000);
    for p in r["games"][0]["plies"].as_array().unwrap() {
        if p["searched"] == true {
            let depth = p["lines"][0]["depth"].as_u64().unwrap();
            assert!((1..60).contains(&depth), "stopped by nodes, not depth: {p}");
        }
    }
    assert!(
        std::fs::read(&outs[0]).unwrap() == std::fs::read(&outs[1]).unwrap(),
        "a node-capped search gives the same report every time"
    );
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn nothing_to_analyse_and_an_output_that_cannot_be_written_are_errors() {
    require_node_engine();
    // An empty file, text that is not PGN, a file whose only game is illegal: not a clean
    // result (exit code 1), and said.
    for (name, text) in [
        ("nothing-empty.pgn", ""),
        (
            "nothing-prose.pgn",
            "Hello! Here is my game, can you check it?\n",
        ),
        (
            "nothing-illegal.pgn",
            "[White \"Ann\"]\n[Black \"Bob\"]\n\n1. e4 e5 2. Ke3 *\n",
        ),
    ] {
        let f = tmp(name);
        std::fs::write(&f, text).unwrap();
        let o = fairsight(&["analyze", f.to_str().unwrap(), "--depth", "2"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains("no game with a move to analyse in the input"),
            "{name}: {err}"
        );
    }
    // One game with moves among them is a result: exit code 0 without the message.
    let o = fairsight(&[
        "analyze",
        fixture("legal-trap.pgn").to_str().unwrap(),
        "--depth",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("no game with a move"));
    // An output that cannot be written is refused before any search, not after it.
    for flag in ["--json", "--pgn"] {
        let o = fairsight(&[
            "analyze",
            fixture("legal-trap.pgn").to_str().unwrap(),
            "--depth",
            "2",
            flag,
            "/nonexistent-fairsight-dir/out",
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{flag}: {err}");
        assert!(
            err.contains(&format!(
                "{flag} /nonexistent-fairsight-dir/out: cannot write"
            )),
            "{flag}: {err}"
        );
        assert!(!err.contains("positions searched"), "{flag}: {err}");
    }
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn an_illegal_game_is_reported_and_the_others_analysed() {
    require_node_engine();
    let json = tmp("three.json");
    let o = fairsight(&[
        "analyze",
        fixture("three-games-one-illegal.pgn").to_str().unwrap(),
        "--book",
        "none",
        "--depth",
        "5",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("game 2 (Carol - Dave), line 13: illegal move 3. Qxd5"),
        "{err}"
    );
    let r = read_json(&json);
    let games = r["games"].as_array().unwrap();
    assert_eq!(games.len(), 3);
    assert!(games[1]["error"].as_str().unwrap().contains("Qxd5"));
    assert!(games[1]["plies"].as_array().unwrap().is_empty());
    for g in [&games[0], &games[2]] {
        assert!(g["error"].is_null());
        assert!(
            g["plies"]
                .as_array()
                .unwrap()
                .iter()
                .all(|p| p["searched"] == true)
        );
    }
    // Alice and Bob each played two games, one with each colour.
    let players = r["players"].as_array().unwrap();
    assert_eq!(players.len(), 2);
    assert_eq!(players[0]["games"], 2);
    assert_eq!(players[0]["whiteGames"], 1);
}

#[test]
#[cfg_attr(
    no_debian_stockfish,
    ignore = "needs /usr/games/stockfish: apt-get install stockfish"
)]
fn debian_stockfish_works_as_any_uci_engine() {
    require_debian_engine();
    let path = DEBIAN_STOCKFISH;
    let json = tmp("debian.json");
    let o = fairsight(&[
        "analyze",
        fixture("legal-trap.pgn").to_str().unwrap(),
        "--engine",
        path,
        "--nodes",
        "20000",
        "--multipv",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_json(&json);
    assert!(
        r["engine"]["name"]
            .as_str()
            .unwrap()
            .starts_with("Stockfish 15")
    );
    assert_eq!(r["settings"]["limit"]["nodes"], 20000);
    assert_eq!(r["games"][0]["plies"][9]["judgement"], "blunder");
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn annotate_mode_writes_craftys_comments() {
    require_node_engine();
    let pgn = tmp("legal-crafty.pgn");
    let o = fairsight(&[
        "analyze",
        fixture("legal-trap.pgn").to_str().unwrap(),
        "--mode",
        "annotate",
        "--side",
        "b",
        "--margin",
        "1.0",
        "--depth",
        "8",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&pgn).unwrap();
    // 5... Bxd1 loses more than a pawn: `{real (depth:best PV)}`.
    let at = text.find("Bxd1").expect("the move is there");
    let after = &text[at..];
    let comment = &after[after.find('{').unwrap()..after.find('}').unwrap()];
    assert!(comment.contains("(8:"), "{comment}");
    // White's moves are not annotated.
    let nxe5 = text.find("Nxe5").unwrap();
    assert!(!text[nxe5..at].contains('{'), "{text}");
}

#[test]
fn bad_arguments_and_missing_engines_exit_with_2() {
    for args in [
        vec!["analyze", "samples/opera-1858.pgn", "--depth", "0"],
        vec![
            "analyze",
            "samples/opera-1858.pgn",
            "--depth",
            "3",
            "--nodes",
            "9",
        ],
        vec![
            "analyze",
            "samples/opera-1858.pgn",
            "--mode",
            "annotate",
            "--moves",
            "9-3",
        ],
        vec![
            "analyze",
            "samples/opera-1858.pgn",
            "--mode",
            "screening",
            "--slm-depth",
            "8",
            "--min-depth",
            "9",
        ],
        vec!["analyze", "samples/opera-1858.pgn", "--log", "x.log"],
        vec!["analyze", "samples/opera-1858.pgn", "--depth", "61"],
        vec!["analyze", "samples/opera-1858.pgn", "--hash", "0"],
        vec!["analyze", "no-such-file.pgn"],
        vec!["analyze"],
        vec!["frobnicate"],
        vec![
            "analyze",
            "samples/opera-1858.pgn",
            "--engine",
            "/nonexistent/engine",
        ],
    ] {
        let o = fairsight(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty());
    }
    let o = fairsight(&[
        "analyze",
        "samples/opera-1858.pgn",
        "--engine",
        "/nonexistent/engine",
    ]);
    assert!(stderr(&o).contains("cannot start engine"), "{}", stderr(&o));
    // Settings are checked by the core's rule (as the page's are), named by flag.
    let o = fairsight(&["analyze", "samples/opera-1858.pgn", "--multipv", "65"]);
    assert!(
        stderr(&o).contains("--multipv: lines (MultiPV) must be 1 to 64"),
        "{}",
        stderr(&o)
    );
    // A bad --shard spec, before any engine starts.
    for spec in ["0/3", "4/3", "3", "a/b", "1/0", "-1/3"] {
        let o = fairsight(&[
            "analyze",
            "samples/opera-1858.pgn",
            "--engine",
            "/nonexistent/engine",
            &format!("--shard={spec}"),
        ]);
        assert_eq!(o.status.code(), Some(2), "{spec}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("--shard {spec}: expected K/N with 1 ≤ K ≤ N")),
            "{spec}: {}",
            stderr(&o)
        );
    }
    // A model file that is not one: named in the error.
    let bad = tmp("not-a-model.json");
    std::fs::write(&bad, "{\"variants\": 3}").unwrap();
    for flag in ["--assessment", "--model", "--calibration"] {
        let o = fairsight(&[
            "analyze",
            "samples/opera-1858.pgn",
            flag,
            bad.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("{flag} ")),
            "{flag}: {}",
            stderr(&o)
        );
    }
}

/// A fake engine: answers the handshake, then never finishes a search.
const HANGING_ENGINE: &str = r#"
while read -r line; do
  case "$line" in
    uci) echo "id name Hang"; echo uciok ;;
    isready) echo readyok ;;
    quit) exit 0 ;;
  esac
done
"#;

#[test]
fn a_hanging_engine_hits_the_deadline_and_the_run_fails_cleanly() {
    let script = tmp("hang.sh");
    std::fs::write(&script, HANGING_ENGINE).unwrap();
    let json = tmp("hang.json");
    let o = fairsight(&[
        "analyze",
        fixture("legal-trap.pgn").to_str().unwrap(),
        "--engine",
        &format!("bash {}", script.display()),
        "--search-timeout",
        "1",
        "--jobs",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("restarting and retrying"), "{err}");
    assert!(err.contains("was not analysed: engine timed out"), "{err}");
    // The report is still written, with the plies marked as not searched.
    let r = read_json(&json);
    assert!(
        r["games"][0]["plies"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["searched"] == false)
    );
}

/// A proxy in front of the real engine: the first engine started (of all `--jobs`)
/// passes three `bestmove`s through (a chunk's warm-up and two finished positions), then
/// `die`s (exit 3) or goes `silent` (reads on, answers nothing); every later start is the
/// real engine, passed through. Arguments: MARKER MODE ENGINE.js (the engine last, so the
/// report names the same build as a direct run).
const FAULTY_PROXY: &str = r#"
const { spawn } = require('child_process');
const fs = require('fs');
const [marker, mode, engine] = process.argv.slice(2);
let first = true;
try { fs.closeSync(fs.openSync(marker, 'wx')); } catch { first = false; }
const child = spawn(process.execPath, [engine], { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
let buf = '', bestmoves = 0, silent = false;
child.stdout.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i + 1);
    buf = buf.slice(i + 1);
    if (silent) continue;
    process.stdout.write(line);
    if (first && line.startsWith('bestmove') && ++bestmoves === 3) {
      if (mode === 'die') { child.kill('SIGKILL'); process.exit(3); }
      silent = true;
    }
  }
});
child.on('exit', () => process.exit(0));
"#;

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn an_engine_that_dies_or_falls_silent_mid_chunk_loses_no_ply() {
    require_node_engine();
    let engine_js = root().join("node_modules/stockfish/bin/stockfish-19-lite-single.js");
    let proxy = tmp("faulty-proxy.js");
    std::fs::write(&proxy, FAULTY_PROXY).unwrap();
    // 13 plies in chunks of 6 (three chunks), two engines at once.
    let common = [
        fixture("legal-trap.pgn").to_str().unwrap().to_owned(),
        "--book".into(),
        "none".into(),
        "--depth".into(),
        "5".into(),
        "--chunk".into(),
        "6".into(),
        "--jobs".into(),
        "2".into(),
    ];
    let clean_json = tmp("faulty-clean.json");
    let args: Vec<&str> = common.iter().map(String::as_str).collect();
    analyze_json(&clean_json, &args);
    let clean = std::fs::read(&clean_json).unwrap();
    let r: Value = serde_json::from_slice(&clean).unwrap();
    let plies = r["games"][0]["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 13);
    // Every ply but the forced one (6... Ke7, the only legal move) is searched.
    assert_eq!(plies.iter().filter(|p| p["searched"] == true).count(), 12);
    for mode in ["die", "silent"] {
        let marker = tmp(&format!("faulty-{mode}.marker"));
        let _ = std::fs::remove_file(&marker);
        let json = tmp(&format!("faulty-{mode}.json"));
        let engine = format!(
            "node {} {} {mode} {}",
            proxy.display(),
            marker.display(),
            engine_js.display()
        );
        let mut all: Vec<&str> = vec!["analyze"];
        all.extend(args.iter());
        all.extend([
            "--engine",
            &engine,
            "--search-timeout",
            "3",
            "--json",
            json.to_str().unwrap(),
        ]);
        let o = fairsight(&all);
        // Documented: exit 0 when every position was analysed in the end.
        assert_eq!(o.status.code(), Some(0), "{mode}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(marker.exists(), "{mode}: the faulty engine never started");
        assert!(err.contains("restarting and retrying"), "{mode}: {err}");
        // No ply lost, none counted twice: the same bytes as the undisturbed run.
        assert!(
            std::fs::read(&json).unwrap() == clean,
            "{mode}: the report differs from the clean run's"
        );
    }
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn a_polyglot_book_or_none_replaces_the_builtin_one() {
    require_node_engine();
    // A one-entry Polyglot book: 1. e4 from the start position.
    let book = tmp("e4.bin");
    let mut entry = 0x463b_9618_1691_fc9c_u64.to_be_bytes().to_vec();
    entry.extend_from_slice(&(4u16 | (3 << 3) | (4 << 6) | (1 << 9)).to_be_bytes());
    entry.extend_from_slice(&[0, 1, 0, 0, 0, 0]);
    std::fs::write(&book, &entry).unwrap();
    let json = tmp("polyglot.json");
    let r = analyze_json(
        &json,
        &[
            "tests/fixtures/legal-trap.pgn",
            "--book",
            book.to_str().unwrap(),
            "--depth",
            "3",
        ],
    );
    assert_eq!(r["settings"]["book"], "file:e4.bin");
    let plies = r["games"][0]["plies"].as_array().unwrap();
    assert_eq!(plies[0]["excluded"], "book");
    assert_eq!(
        plies[1]["excluded"],
        Value::Null,
        "1... e5 is not in that book"
    );

    let r = analyze_json(
        &json,
        &[
            "tests/fixtures/legal-trap.pgn",
            "--book",
            "none",
            "--depth",
            "3",
        ],
    );
    assert_eq!(r["settings"]["book"], "none");
    assert_eq!(r["games"][0]["plies"][0]["excluded"], Value::Null);

    // A bad book file is a usage error naming the file.
    let bad = tmp("bad.bin");
    std::fs::write(&bad, b"not a book").unwrap();
    let o = fairsight(&[
        "analyze",
        "tests/fixtures/legal-trap.pgn",
        "--book",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.bin") && stderr(&o).contains("Polyglot"),
        "{}",
        stderr(&o)
    );
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn calibration_chain_fits_a_table_and_screens_players_against_their_rating() {
    require_node_engine();
    let base = [
        "--book",
        "none",
        "--depth",
        "6",
        "--multipv",
        "2",
        "--quiet",
    ];
    let report = tmp("rated.json");
    let mut args = vec![
        "analyze",
        "tests/fixtures/rated.pgn",
        "--json",
        report.to_str().unwrap(),
    ];
    args.extend(base);
    let o = fairsight(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_json(&report);
    assert!(
        r["calibration"].is_null(),
        "the shipped table is for the defaults only"
    );
    assert!(r["players"][0]["zScores"].is_null());
    assert_eq!(r["players"][0]["rating"], 1850.0);
    assert!(
        r["players"][0]["verdict"]
            .as_str()
            .unwrap()
            .starts_with("no verdict: the rating calibration does not apply"),
        "the real reason: the player is rated, the settings are not the calibrated ones"
    );

    // Fit a table from this report (bands of Ann's 1850 and Ben's 2150).
    let table = tmp("rated-calibration.json");
    let o = fairsight(&[
        "calibrate",
        "fit",
        report.to_str().unwrap(),
        "--out",
        table.to_str().unwrap(),
        "--source",
        "fixture",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = read_json(&table);
    let bands = t["bands"].as_array().unwrap();
    assert_eq!(bands.len(), 2, "{t}");
    assert_eq!(bands[0]["lo"], 1800);
    assert_eq!(bands[1]["meanElo"], 2150.0);
    assert_eq!(t["settings"]["limit"]["depth"], 6);

    // The validation pass screens every rated side against its own rating.
    let o = fairsight(&[
        "calibrate",
        "validate",
        report.to_str().unwrap(),
        "--calibration",
        table.to_str().unwrap(),
        "--min-moves",
        "5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("4 sides screened"), "{out}");
    assert!(
        out.contains("z MM ") && out.contains("IPR - Elo over 4 rated sides"),
        "{out}"
    );

    // Analysed again with that table: IPR and screening z-scores per player.
    let screened = tmp("rated-screened.json");
    let mut args = vec![
        "analyze",
        "tests/fixtures/rated.pgn",
        "--calibration",
        table.to_str().unwrap(),
        "--rating",
        "ann=1500",
        "--json",
        screened.to_str().unwrap(),
    ];
    // With the player table on stdout.
    args.extend(base.iter().filter(|a| **a != "--quiet"));
    let o = fairsight(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_json(&screened);
    assert!(r["calibration"].as_str().unwrap().starts_with("fixture"));
    let ann = &r["players"][0];
    assert_eq!(ann["name"], "Ann");
    assert_eq!(
        ann["rating"], 1500.0,
        "the entered rating wins over the tags"
    );
    assert_eq!(ann["zScores"]["rating"], 1500.0);
    assert!(ann["zScores"]["mm"].is_number());
    assert!(ann["zScores"]["moves"].as_u64().unwrap() >= 10);
    let ipr = ann["ipr"].as_f64().unwrap();
    let range = ann["iprRange"].as_array().unwrap();
    assert!(range[0].as_f64().unwrap() <= ipr && ipr <= range[1].as_f64().unwrap());
    assert_eq!(r["players"][1]["zScores"]["rating"], 2150.0);
    // Never a verdict from a handful of moves.
    assert!(
        ann["verdict"]
            .as_str()
            .unwrap()
            .contains("fewer than the 100 required"),
        "{ann}"
    );
    assert_eq!(ann["evidence"].as_array().unwrap().len(), 0);
    // The table says why once, then each player's moves and IPR.
    let out = stdout(&o);
    let block = &out[out.find("screening (calibration: fixture").expect(&out)..];
    assert_eq!(
        block.matches("fewer than the 100").count() + block.matches("needs 100").count(),
        1,
        "{block}"
    );
    assert!(
        block.contains("  no verdict (Regan's rule needs 100 analysed moves or more):\n"),
        "{block}"
    );
    for p in r["players"].as_array().unwrap() {
        let line = format!(
            "    {}: {} analysed moves, IPR ",
            p["name"].as_str().unwrap(),
            p["zScores"]["moves"]
        );
        assert!(block.contains(&line), "{line} in {block}");
    }

    // A table made with other settings does not apply.
    let other_json = tmp("rated-other.json");
    let o = fairsight(&[
        "analyze",
        "tests/fixtures/rated.pgn",
        "--calibration",
        table.to_str().unwrap(),
        "--book",
        "none",
        "--depth",
        "5",
        "--multipv",
        "2",
        "--json",
        other_json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let other = read_json(&other_json);
    assert!(other["players"][0]["zScores"].is_null());
    // One reason for both players: said once, their names under it.
    let out = stdout(&o);
    let block = &out[out.find("\nscreening").expect(&out)..];
    assert_eq!(block.matches("does not apply").count(), 1, "{block}");
    assert!(block.contains(":\n    Ann, Ben\n"), "{block}");

    // Bad values are usage errors.
    let o = fairsight(&["analyze", "tests/fixtures/rated.pgn", "--rating", "Ann"]);
    assert_eq!(o.status.code(), Some(2));
    let o = fairsight(&[
        "analyze",
        "tests/fixtures/rated.pgn",
        "--calibration",
        "Cargo.toml",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn screening_mode_writes_regans_log_and_results() {
    require_node_engine();
    let json = tmp("screening.json");
    let log = tmp("screening.log");
    let results = tmp("screening-results.txt");
    let o = fairsight(&[
        "analyze",
        fixture("legal-trap.pgn").to_str().unwrap(),
        "--mode",
        "screening",
        "--slm-depth",
        "9",
        "--min-depth",
        "5",
        "--depth",
        "7",
        "--multipv",
        "5",
        "--jobs",
        "1",
        "--side",
        "Greedy",
        "--json",
        json.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--results",
        results.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_json(&json);
    assert_eq!(r["settings"]["screening"]["slmDepth"], 9);
    assert_eq!(r["settings"]["multipv"], 5);
    let plies = r["games"][0]["plies"].as_array().unwrap();
    let searched: Vec<&Value> = plies.iter().filter(|p| p["searched"] == true).collect();
    assert!(searched.len() >= 6);
    for p in &searched {
        let z = &p["screening"];
        let bits = z["bits"].as_str().unwrap();
        assert_eq!(bits.len(), 5, "depths 5..=9: {p}");
        let slm = z["slmBest"].as_array().unwrap();
        assert_eq!(slm.len(), 9, "the SLM reached d = 9 in this easy game");
        // FULL/MAIN iff the SLM's final choice is the played move.
        let final_match = slm[8] == p["uci"];
        let ty = z["matchType"].as_str().unwrap();
        assert_eq!(final_match, ty == "full" || ty == "main", "{p}");
        assert_eq!(ty == "full", bits == "11111", "{p}");
        // The MLM gave up to 5 lines (fewer only with fewer legal moves).
        assert!(p["lines"].as_array().unwrap().len() <= 5);
    }
    // 5... Bxd1, the blunder: not the engine's choice at any depth from 5.
    let bxd1 = &plies[9];
    assert_eq!(bxd1["san"], "Bxd1");
    assert_eq!(bxd1["screening"]["matchType"], "non");
    assert!(bxd1["screening"]["delta"].as_f64().unwrap() < -3.0);
    let greedy = r["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Greedy")
        .unwrap();
    let m = &greedy["matches"];
    let total = ["full", "main", "part", "non"]
        .iter()
        .map(|k| m[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(total, m["moves"].as_u64().unwrap());
    assert_eq!(m["byDepth"].as_array().unwrap().len(), 5);

    // The log: only Greedy's (Black's) tested moves, one MATCH line each, in Regan's form.
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("# engine: Stockfish"), "{text}");
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(" MATCH (")).collect();
    let black_searched = searched.iter().filter(|p| p["side"] == "black").count();
    assert_eq!(lines.len(), black_searched, "{text}");
    for l in &lines {
        assert!(l.starts_with("Greedy "), "{l}");
        let (head, value) = l.split_once(" = ").unwrap();
        assert!(!head.contains('='), "{l}");
        assert!(
            head.ends_with("), delta") || head.ends_with("), delta2"),
            "{l}"
        );
        let v = value.split_whitespace().next().unwrap();
        assert!(v == "NaN" || v.parse::<f64>().is_ok(), "{l}");
        assert!(!v.starts_with('+'));
    }
    assert!(text.contains("NON MATCH (5...Bxd1), delta2 = -"), "{text}");

    // The results: totals and the lines sorted by the value after '='.
    let res = std::fs::read_to_string(&results).unwrap();
    assert!(res.contains(&format!("moves {}", m["moves"])), "{res}");
    assert!(res.contains("matches at depth  5:"), "{res}");
    let values: Vec<f64> = res
        .lines()
        .filter(|l| l.contains(" MATCH ("))
        .filter_map(|l| {
            l.split(" = ")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(values.len(), lines.len());
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn the_cache_makes_a_second_run_free_and_identical() {
    require_node_engine();
    let dir = tmp("cache-dir");
    let _ = std::fs::remove_dir_all(&dir);
    let run = |out: &Path, depth: &str| {
        let o = fairsight(&[
            "analyze",
            fixture("legal-trap.pgn").to_str().unwrap(),
            "--depth",
            depth,
            "--multipv",
            "2",
            "--cache",
            dir.to_str().unwrap(),
            "--quiet",
            "--json",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        stderr(&o)
    };
    let (a, b, c) = (
        tmp("cache-a.json"),
        tmp("cache-b.json"),
        tmp("cache-c.json"),
    );
    let first = run(&a, "6");
    assert!(!first.contains("from the cache"), "{first}");
    let second = run(&b, "6");
    assert!(second.contains("positions from the cache"), "{second}");
    assert!(
        second.contains("fairsight: 0 positions searched"),
        "{second}"
    );
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap()
    );
    // Other settings are not answered from the cache.
    let third = run(&c, "5");
    assert!(!third.contains("from the cache"), "{third}");
    assert_ne!(read_json(&a)["settings"], read_json(&c)["settings"]);
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn the_training_chain_fits_a_model_that_analyze_applies() {
    require_node_engine();
    // `train sample` cuts games to a FEN start after the skipped plies.
    let o = fairsight(&[
        "train",
        "sample",
        "tests/fixtures/selfplay.pgn",
        "--games",
        "4",
        "--skip-min",
        "4",
        "--max-plies",
        "20",
        "--min-plies",
        "10",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cut = stdout(&o);
    assert_eq!(cut.matches("[FEN ").count(), 4, "{cut}");
    assert!(
        !cut.contains("1. e4 c5"),
        "the first 4 plies are skipped: {cut}"
    );

    // Engine self-play against the human fixtures, shallow and without the book.
    let shallow = [
        "--book",
        "none",
        "--depth",
        "6",
        "--multipv",
        "2",
        "--quiet",
    ];
    let engine = tmp("train-engine.json");
    let mut args = vec![
        "analyze",
        "tests/fixtures/selfplay.pgn",
        "--json",
        engine.to_str().unwrap(),
    ];
    args.extend(shallow);
    let o = fairsight(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let human = tmp("train-human.json");
    let mut args = vec![
        "analyze",
        "tests/fixtures/rated.pgn",
        "tests/fixtures/legal-trap.pgn",
        "tests/fixtures/three-games-one-illegal.pgn",
        "--json",
        human.to_str().unwrap(),
    ];
    args.extend(shallow);
    let o = fairsight(&args);
    assert!(
        o.status.code() == Some(0) || o.status.code() == Some(1),
        "{}",
        stderr(&o)
    );
    assert!(
        read_json(&engine)["classifier"].is_null(),
        "the shipped model is for the defaults only"
    );

    let model = tmp("train-model.json");
    let card = tmp("train-card.md");
    let o = fairsight(&[
        "train",
        "fit",
        "--engine",
        engine.to_str().unwrap(),
        "--human",
        human.to_str().unwrap(),
        "--out",
        model.to_str().unwrap(),
        "--card",
        card.to_str().unwrap(),
        "--folds",
        "2",
        "--trees",
        "10",
        "--source",
        "fixtures",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = read_json(&model);
    assert_eq!(m["settings"]["limit"]["depth"], 6);
    assert!(
        matches!(m["model"]["kind"].as_str(), Some("forest" | "logistic")),
        "{m}"
    );
    assert!(!m["features"].as_array().unwrap().is_empty());
    let card_text = std::fs::read_to_string(&card).unwrap();
    for model in ["random forest", "logistic", "naive Bayes"] {
        assert!(
            card_text.to_lowercase().contains(&model.to_lowercase()),
            "{model}: {card_text}"
        );
    }
    assert!(card_text.contains("Reliability"), "{card_text}");

    // analyze --model applies it to reports with the model's settings.
    let scored = tmp("train-scored.json");
    let mut args = vec![
        "analyze",
        "tests/fixtures/selfplay.pgn",
        "--model",
        model.to_str().unwrap(),
        "--json",
        scored.to_str().unwrap(),
        "--pgn",
    ];
    let annotated = tmp("train-scored.pgn");
    args.push(annotated.to_str().unwrap());
    args.extend(shallow);
    let o = fairsight(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = read_json(&scored);
    assert_eq!(r["classifier"], m["name"]);
    let probs: Vec<Value> = r["games"][0]["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["engineProbability"].clone())
        .collect();
    assert!(
        probs.iter().filter(|p| p.is_number()).count() >= 5,
        "{probs:?}"
    );
    assert!(
        r["games"][0]["sides"]["white"]["classifier"]["classified"]
            .as_u64()
            .unwrap()
            >= 3
    );
    assert!(r["players"][0]["classifier"].is_object());

    // `train probabilities` gives the same numbers from the saved report.
    let o = fairsight(&[
        "train",
        "probabilities",
        scored.to_str().unwrap(),
        "--model",
        model.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let again: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(again[0], Value::Array(probs));

    // Engine-like moves get their confidence in a comment of the annotated PGN when
    // flagged, and no NAG ($5 reads as "interesting move" to chess players).
    let flagged = r["games"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["plies"].as_array().unwrap())
        .filter(|p| p["engineLike"] == true)
        .count();
    let pgn = std::fs::read_to_string(&annotated).unwrap();
    assert_eq!(pgn.matches("Engine-like move").count(), flagged, "{pgn}");
    assert!(!pgn.contains("$5") && !pgn.contains("$3"), "{pgn}");

    // Other settings: the model does not apply.
    let other = analyze_json(
        &tmp("train-other.json"),
        &[
            "tests/fixtures/legal-trap.pgn",
            "--model",
            model.to_str().unwrap(),
            "--book",
            "none",
            "--depth",
            "5",
            "--multipv",
            "2",
        ],
    );
    assert!(other["classifier"].is_null());
}

#[test]
#[cfg(unix)] // xz2 is a dev-dependency on unix only
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn the_corpus_stores_games_once_and_rebuilds_their_report_byte_for_byte() {
    require_node_engine();
    let dir = tmp("corpus-round-trip");
    let _ = std::fs::remove_dir_all(&dir);
    let corpus = dir.join("corpus");
    let direct = dir.join("direct.json");
    let selfplay = fixture("selfplay.pgn");
    // `corpus add` of a file into this corpus, shallow.
    let corpus_add = |file: &Path, label: &str, source: &str, more: &[&str]| {
        let mut args = vec![
            "corpus",
            "add",
            file.to_str().unwrap(),
            "--label",
            label,
            "--source",
            source,
            "--depth",
            "6",
            "--jobs",
            "2",
            "--corpus",
            corpus.to_str().unwrap(),
        ];
        args.extend(more);
        fairsight(&args)
    };
    // Engine games after their 4-ply "book", at most `max_plies` plies each.
    let add_cut = |games: &str, max_plies: &str, json: Option<&Path>| {
        let mut more = vec![
            "--games",
            games,
            "--skip-min",
            "4",
            "--max-plies",
            max_plies,
            "--min-plies",
            "10",
        ];
        if let Some(j) = json {
            more.extend(["--json", j.to_str().unwrap()]);
        }
        corpus_add(&selfplay, "engine", "fixture-selfplay", &more)
    };
    let add = |games: &str, json: &Path| add_cut(games, "24", Some(json));
    let o = add("2", &direct);
    assert!(o.status.success(), "{}", stderr(&o));
    let records: Vec<_> = std::fs::read_dir(corpus.join("games/fixture-selfplay"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(
        records.iter().all(|r| r.ends_with(".json.xz")),
        "{records:?}"
    );
    // Rebuilt without an engine: byte-identical to the analysis that made the records...
    let rebuilt = dir.join("rebuilt.json");
    let o = fairsight(&[
        "corpus",
        "report",
        "--corpus",
        corpus.to_str().unwrap(),
        "--json",
        rebuilt.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rebuilt_text = std::fs::read_to_string(&rebuilt).unwrap();
    assert_eq!(std::fs::read_to_string(&direct).unwrap(), rebuilt_text);
    // ... and to `analyze` of the same sample.
    let sample = dir.join("sample.pgn");
    let o = fairsight(&[
        "train",
        "sample",
        selfplay.to_str().unwrap(),
        "--games",
        "2",
        "--skip-min",
        "4",
        "--max-plies",
        "24",
        "--min-plies",
        "10",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(&sample, &o.stdout).unwrap();
    let analysed = dir.join("analysed.json");
    analyze_json(
        &analysed,
        &[sample.to_str().unwrap(), "--depth", "6", "--jobs", "2"],
    );
    assert_eq!(std::fs::read_to_string(&analysed).unwrap(), rebuilt_text);
    let report = read_json(&rebuilt);
    let long_pvs = report["games"][0]["plies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            p["lines"][0]["pv"]
                .as_array()
                .is_some_and(|pv| pv.len() > 1)
        })
        .count();
    assert!(long_pvs > 5, "the deepest lines keep their whole PV");
    // Adding more of the same file analyses only the new games.
    let more = dir.join("more.json");
    let o = add("4", &more);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("4 taken, 2 already in the corpus, 2 to analyse"),
        "{}",
        stderr(&o)
    );
    assert_eq!(read_json(&more)["games"].as_array().unwrap().len(), 2);
    let manifest = read_json(&corpus.join("manifest.json"));
    let source = &manifest["sources"]["fixture-selfplay"];
    assert_eq!(source["games"], 4);
    assert_eq!(source["label"], "engine");
    assert!(source["positions"].as_u64().unwrap() >= 4 * 10);
    assert_eq!(manifest["games"].as_object().unwrap().len(), 4);
    assert_eq!(manifest["commands"].as_array().unwrap().len(), 2);
    // The same games cut otherwise are refused, not silently kept.
    let o = add_cut("4", "20", None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("stored cut differently"),
        "{}",
        stderr(&o)
    );
    // The same games again at the quick setting, into their own folder with the same
    // splits; a second run finds them all stored.
    let quick_dir = dir.join("quick");
    let quick = || {
        fairsight(&[
            "corpus",
            "quick",
            "--from",
            corpus.to_str().unwrap(),
            "--corpus",
            quick_dir.to_str().unwrap(),
            "--nodes",
            "2000",
            "--jobs",
            "2",
        ])
    };
    let o = quick();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("4 games stored"), "{}", stderr(&o));
    let quick_manifest = read_json(&quick_dir.join("manifest.json"));
    let games = |m: &Value| -> Vec<(String, Value, Value)> {
        m["games"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(id, g)| (id.clone(), g["split"].clone(), g["positions"].clone()))
            .collect()
    };
    assert_eq!(games(&quick_manifest), games(&manifest));
    let o = quick();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("0 games stored"), "{}", stderr(&o));
    // The check finds nothing wrong, then a record that lost a position.
    let check = || fairsight(&["corpus", "check", "--corpus", corpus.to_str().unwrap()]);
    let o = check();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("4 games"), "{}", stdout(&o));
    // Records of a corpus from before xz (gzip) still read alike, and `corpus compact`
    // rewrites them as xz with the same JSON and the manifest's sizes.
    let source_dir = corpus.join("games/fixture-selfplay");
    let report_all = |name: &str| {
        let out = dir.join(name);
        let o = fairsight(&[
            "corpus",
            "report",
            "--corpus",
            corpus.to_str().unwrap(),
            "--source",
            "fixture-selfplay",
            "--json",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(out).unwrap()
    };
    let xz_report = report_all("xz.json");
    let mut texts = Vec::new();
    for e in std::fs::read_dir(&source_dir).unwrap() {
        let path = e.unwrap().path();
        let text = xz_text(&path);
        std::fs::write(path.with_extension("gz"), gzip(text.as_bytes())).unwrap();
        std::fs::remove_file(&path).unwrap();
        texts.push((path, text));
    }
    assert_eq!(report_all("gz.json"), xz_report);
    // A game stored in both forms is a problem the check names.
    std::fs::write(&texts[0].0, xz(texts[0].1.as_bytes())).unwrap();
    let o = check();
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains("stored twice"), "{}", stderr(&o));
    std::fs::remove_file(&texts[0].0).unwrap();
    let o = check();
    assert!(o.status.success(), "{}", stderr(&o));
    let o = fairsight(&["corpus", "compact", "--corpus", corpus.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("4 records rewritten"), "{}", stderr(&o));
    for (path, text) in &texts {
        assert!(!path.with_extension("gz").exists(), "{}", path.display());
        assert_eq!(&xz_text(path), text, "{}", path.display());
    }
    assert_eq!(report_all("compacted.json"), xz_report);
    let stored: u64 = std::fs::read_dir(&source_dir)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    let manifest = read_json(&corpus.join("manifest.json"));
    assert_eq!(manifest["sources"]["fixture-selfplay"]["bytes"], stored);
    let o = check();
    assert!(o.status.success(), "{}", stderr(&o));
    let first = source_dir.join(&records[0]);
    let mut record: Value = serde_json::from_str(&xz_text(&first)).unwrap();
    record["positions"].as_array_mut().unwrap().pop();
    std::fs::write(&first, xz(record.to_string().as_bytes())).unwrap();
    let o = check();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("positions stored"), "{}", stderr(&o));
    // One source, one file and label.
    let o = corpus_add(&fixture("rated.pgn"), "human", "fixture-selfplay", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("pick another name"), "{}", stderr(&o));
    // Growing one split: Ann and Ben are new, so their first game goes to the split
    // asked for (whatever its event's hash), and their second game follows them.
    let rated = fixture("rated.pgn");
    let add_split = |file: &Path, label: &str, source: &str, split: &str| {
        let more = [
            "--split",
            split,
            "--rated",
            "--games",
            "2",
            "--min-plies",
            "10",
        ];
        corpus_add(file, label, source, &more)
    };
    let o = add_split(&rated, "human", "fixture-rated", "test");
    assert!(o.status.success(), "{}", stderr(&o));
    let manifest = read_json(&corpus.join("manifest.json"));
    assert_eq!(manifest["newPlayers"]["fixture-rated"], "test");
    for id in ["fixture-rated/1", "fixture-rated/2"] {
        assert_eq!(manifest["games"][id]["split"], "test", "{id}");
    }
    assert_eq!(manifest["players"]["ann"], "test");
    // Their games in another source cannot grow validation: none is taken.
    let copy = dir.join("rated-copy.pgn");
    std::fs::copy(&rated, &copy).unwrap();
    let o = add_split(&copy, "human", "fixture-rated-2", "validation");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("0 taken"), "{}", stderr(&o));
    // A source whose games of two new players go to validation can still grow test, by
    // its games with a player already in test; its games of two new players stay out.
    let text = std::fs::read_to_string(&rated).unwrap();
    let first = &text[..text[1..].find("[Event ").unwrap() + 1];
    let game = |white: &str, black: &str| {
        first
            .replace("[White \"Ann\"]", &format!("[White \"{white}\"]"))
            .replace("[Black \"Ben\"]", &format!("[Black \"{black}\"]"))
    };
    let mix = dir.join("mix.pgn");
    let games = [game("Cal", "Dee"), game("Ann", "Eve"), game("Fay", "Gus")];
    std::fs::write(&mix, games.join("\n")).unwrap();
    let add_mix = |split: &str, games: &str| {
        let more = [
            "--split",
            split,
            "--rated",
            "--games",
            games,
            "--min-plies",
            "10",
        ];
        corpus_add(&mix, "human", "fixture-mix", &more)
    };
    let o = add_mix("validation", "1");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = add_mix("test", "3");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 of 3 picked games kept"),
        "{}",
        stderr(&o)
    );
    let manifest = read_json(&corpus.join("manifest.json"));
    assert_eq!(manifest["newPlayers"]["fixture-mix"], "validation");
    assert_eq!(manifest["games"]["fixture-mix/1"]["split"], "validation");
    assert_eq!(manifest["games"]["fixture-mix/2"]["split"], "test");
    assert_eq!(manifest["players"]["eve"], "test");
    assert!(
        manifest["games"].get("fixture-mix/3").is_none(),
        "{manifest}"
    );
    // An engine source sent to one split (makes held out of training): all its games
    // go there, whatever their hash; it cannot be sent to another one later, and a
    // source whose engine games were split by game cannot be sent to one.
    let o = add_split(&copy, "engine", "fixture-rated-3", "test");
    assert!(o.status.success(), "{}", stderr(&o));
    let manifest = read_json(&corpus.join("manifest.json"));
    assert_eq!(manifest["newPlayers"]["fixture-rated-3"], "test");
    for id in ["fixture-rated-3/1", "fixture-rated-3/2"] {
        assert_eq!(manifest["games"][id]["split"], "test", "{id}");
    }
    let o = add_split(&copy, "engine", "fixture-rated-3", "validation");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("go to Test"), "{}", stderr(&o));
    let o = corpus_add(
        &selfplay,
        "engine",
        "fixture-selfplay",
        &["--split", "test"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("split by game"), "{}", stderr(&o));
}

/// The JSON text of an xz-compressed corpus record.
#[cfg(unix)]
fn xz_text(path: &Path) -> String {
    use std::io::Read;
    let mut s = String::new();
    xz2::read::XzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    s
}

#[cfg(unix)]
fn xz(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[cfg(unix)]
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn the_committed_corpus_is_consistent_with_its_plans_and_manifest() {
    // No engine: every record imports, holds exactly the positions its settings plan,
    // and the manifest lists it with its counts; no player is in two splits.
    let o = fairsight(&["corpus", "check"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let games: usize = stdout(&o)
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(games >= 40, "{}", stdout(&o));
}

/// The processes whose parent is `pid` (from /proc).
fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: the comm may hold spaces, so read after its `)`.
        let after = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
        if after.split(' ').nth(1).and_then(|p| p.parse::<u32>().ok()) == Some(pid) {
            out.push(child);
        }
    }
    out
}

/// Whether a process is still running (not gone, not a zombie waiting to be reaped).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| rest.starts_with('Z')))
        .is_some_and(|zombie| !zombie)
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn no_engine_outlives_the_cli_when_it_finishes_or_is_killed() {
    require_node_engine();
    // SIGTERM stands for a signal that ends the CLI (it stops after the searches under
    // way, as Ctrl-C does: `ctrl_c_keeps_the_finished_games_and_a_cached_run_goes_on_from_them`;
    // both reach only the CLI, whose engines have their own process group).
    for signal in [None, Some("-TERM")] {
        let out = tmp("orphans.json");
        let mut cli = Command::new(env!("CARGO_BIN_EXE_fairsight"))
            .args([
                "analyze",
                "samples/opera-1858.pgn",
                "--jobs",
                "2",
                "--quiet",
            ])
            .args(["--depth", if signal.is_some() { "18" } else { "4" }])
            .arg("--json")
            .arg(&out)
            .current_dir(root())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Wait for both engines to be started.
        let started = std::time::Instant::now();
        let mut engines = Vec::new();
        while engines.len() < 2 && started.elapsed() < std::time::Duration::from_secs(30) {
            std::thread::sleep(std::time::Duration::from_millis(50));
            engines = children_of(cli.id());
            if cli.try_wait().unwrap().is_some() {
                break;
            }
        }
        assert!(
            !engines.is_empty(),
            "{signal:?}: the engines were seen running"
        );
        if let Some(sig) = signal {
            assert_eq!(
                engines.len(),
                2,
                "{sig}: two engines running before the signal"
            );
            let killed = Command::new("kill")
                .args([sig, &cli.id().to_string()])
                .status()
                .unwrap();
            assert!(killed.success());
        }
        let status = cli.wait().unwrap();
        if signal.is_none() {
            assert!(status.success(), "a clean run succeeds");
        } else {
            assert!(!status.success(), "{signal:?}: the run was interrupted");
        }
        // The engines end with the CLI: killed on drop after a run, and when the CLI
        // dies they read the end of their input and quit.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while engines.iter().any(|&p| running(p)) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let left: Vec<u32> = engines.iter().copied().filter(|&p| running(p)).collect();
        assert!(
            left.is_empty(),
            "{signal:?}: engines left running: {left:?}"
        );
    }
}

#[test]
#[cfg(unix)]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn ctrl_c_keeps_the_finished_games_and_a_cached_run_goes_on_from_them() {
    use std::os::unix::process::CommandExt;
    require_node_engine();
    // Twelve games (the sample twice), analysed by two engines; Ctrl-C once the first
    // game is written.
    let input = tmp("stop-input.pgn");
    let sample = std::fs::read_to_string(root().join("samples/club-blitz.pgn")).unwrap();
    std::fs::write(&input, format!("{sample}\n\n{sample}")).unwrap();
    let cache = tmp("stop-cache");
    let _ = std::fs::remove_dir_all(&cache);
    let (json, ndjson, resumed) = (
        tmp("stop.json"),
        tmp("stop.ndjson"),
        tmp("stop-resumed.json"),
    );
    let _ = std::fs::remove_file(&ndjson);
    let args = |out: &Path| -> Vec<String> {
        [
            "analyze",
            input.to_str().unwrap(),
            "--depth",
            "8",
            "--jobs",
            "2",
            "--quiet",
            "--cache",
            cache.to_str().unwrap(),
            "--json",
            out.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_fairsight"));
    command
        .args(args(&json))
        .arg("--ndjson")
        .arg(&ndjson)
        .current_dir(root())
        .stderr(std::process::Stdio::piped());
    // A test harness may run with SIGINT ignored (a background job), which the CLI then
    // leaves ignored: the child gets the default, as in a terminal.
    // SAFETY: `signal` is async-signal-safe, as `pre_exec` requires.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut cli = command.spawn().unwrap();
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&ndjson).is_ok_and(|t| t.contains("\"kind\":\"game\""))
        && started.elapsed() < std::time::Duration::from_secs(120)
    {
        assert!(
            cli.try_wait().unwrap().is_none(),
            "the run ended before a game was written"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let engines = children_of(cli.id());
    let pid = libc::pid_t::try_from(cli.id()).unwrap();
    // SAFETY: sends a signal to the child just spawned (not yet reaped).
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let out = cli.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("stopped by Ctrl-C (SIGINT): the outputs hold the")
            && err.contains("Run the same command again to go on"),
        "{err}"
    );
    // The report holds the games finished, the first ones of the input, whole; the
    // streamed report ends as a whole run's does, with the same count.
    let stopped = read_json(&json);
    let games = stopped["games"].as_array().unwrap();
    assert!(
        !games.is_empty() && games.len() < 12,
        "{} games in the stopped run's report",
        games.len()
    );
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g["index"], i, "the games finished are the first, in order");
    }
    let text = std::fs::read_to_string(&ndjson).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "end");
    assert_eq!(last["games"], games.len());
    assert!(
        err.contains(&format!("the {} game(s) finished before it", games.len())),
        "{err}"
    );
    // "The rest of the input" was left out only when some of its 12 games were not yet
    // taken for analysis.
    let under: usize = err
        .split("; ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("games under analysis: {err}"));
    assert_eq!(
        err.contains("and the rest of the input were left out"),
        games.len() + under < 12,
        "{err}"
    );
    // No engine outlives the stopped run.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while engines.iter().any(|&p| running(p)) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!engines.iter().any(|&p| running(p)), "engines left running");
    // The same command again goes on from the cache: every game, the stopped run's
    // games as they were.
    let o = Command::new(env!("CARGO_BIN_EXE_fairsight"))
        .args(args(&resumed))
        .current_dir(root())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("positions from the cache"),
        "{}",
        stderr(&o)
    );
    let whole = read_json(&resumed);
    let all = whole["games"].as_array().unwrap();
    assert_eq!(all.len(), 12);
    assert_eq!(&all[..games.len()], games.as_slice());
}

/// An engine that answers the handshake, never searches, and ignores `quit` and the end
/// of its input (it sleeps on as the same process): only being killed ends it.
const DEAF_ENGINE: &str = r#"
while read -r line; do
  case "$line" in
    uci) echo "id name Deaf"; echo uciok ;;
    isready) echo readyok ;;
  esac
done
exec sleep 600
"#;

#[test]
fn no_engine_outlives_a_failed_run() {
    let script = tmp("deaf.sh");
    std::fs::write(&script, DEAF_ENGINE).unwrap();
    // A wrapper that runs the deaf engine as its child (not `exec`): killing the wrapper
    // alone would leave that child running; the engine's whole process group must end.
    let wrapper = tmp("deaf-wrapper.sh");
    std::fs::write(&wrapper, format!("bash {}\necho done\n", script.display())).unwrap();
    for engine in [&script, &wrapper] {
        let mut cli = Command::new(env!("CARGO_BIN_EXE_fairsight"))
            .args(["analyze", fixture("legal-trap.pgn").to_str().unwrap()])
            .args(["--engine", &format!("bash {}", engine.display())])
            .args(["--search-timeout", "1", "--jobs", "2", "--quiet"])
            .arg("--json")
            .arg(tmp("deaf.json"))
            .current_dir(root())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Every engine started (two, each restarted once per failed chunk) and every
        // process they started, until the end.
        let mut engines = std::collections::BTreeSet::new();
        let mut theirs = std::collections::BTreeSet::new();
        let status = loop {
            for e in children_of(cli.id()) {
                engines.insert(e);
                theirs.extend(children_of(e));
            }
            if let Some(status) = cli.try_wait().unwrap() {
                break status;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert_eq!(
            status.code(),
            Some(1),
            "{engine:?}: documented: a chunk that failed twice"
        );
        assert!(engines.len() >= 2, "{engine:?}: engines seen: {engines:?}");
        if engine == &wrapper {
            assert!(!theirs.is_empty(), "the wrapped engines were seen running");
        }
        let left: Vec<u32> = engines
            .iter()
            .chain(&theirs)
            .copied()
            .filter(|&p| running(p))
            .collect();
        assert!(
            left.is_empty(),
            "{engine:?}: processes left running: {left:?}"
        );
    }
}

/// Checks a Chess960 report of `tests/fixtures/chess960.pgn`: both castlings written king
/// takes rook and read back as O-O, searched with lines whose moves replay.
fn assert_chess960_report(r: &Value, engine: &str) {
    let g = &r["games"][0];
    assert_eq!(g["error"], Value::Null, "{engine}: {}", g["error"]);
    assert_eq!(g["variant"], "chess960", "{engine}");
    let plies = g["plies"].as_array().unwrap();
    let castles: Vec<&Value> = plies.iter().filter(|p| p["san"] == "O-O").collect();
    assert_eq!(castles.len(), 2, "{engine}: both sides castle");
    assert_eq!(castles[0]["uci"], "f1h1", "{engine}: king takes rook");
    assert_eq!(castles[1]["uci"], "f8h8", "{engine}: king takes rook");
    for p in &castles {
        assert_eq!(p["searched"], true, "{engine}: {p}");
        let lines = p["lines"].as_array().unwrap();
        assert!(!lines.is_empty(), "{engine}: lines at the castling ply");
        // Every line's moves replayed into SAN: the engine spoke Chess960.
        for l in lines {
            assert_eq!(
                l["pvSan"].as_array().map(Vec::len),
                l["pv"].as_array().map(Vec::len),
                "{engine}: {l}"
            );
        }
    }
    let searched = plies.iter().filter(|p| p["searched"] == true).count();
    assert!(searched >= 20, "{engine}: {searched} plies searched");
}

/// A standard game from a FEN with Black to move (`tests/fixtures/fen-start.pgn`): the
/// engine searched from that position (every line replays from it), castling written the
/// standard way (`e1g1`).
fn assert_fen_start_report(r: &Value, engine: &str) {
    let g = &r["games"][0];
    assert_eq!(g["error"], Value::Null, "{engine}: {}", g["error"]);
    assert_eq!(g["variant"], "standard", "{engine}");
    let plies = g["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 17, "{engine}");
    assert_eq!(
        (&plies[0]["moveNumber"], &plies[0]["side"], &plies[0]["san"]),
        (&Value::from(5), &Value::from("black"), &Value::from("d6")),
        "{engine}: the game starts with 5... d6"
    );
    let castles: Vec<&str> = plies
        .iter()
        .filter(|p| p["san"] == "O-O")
        .map(|p| p["uci"].as_str().unwrap())
        .collect();
    assert_eq!(castles, ["e1g1", "e8g8"], "{engine}: standard castling");
    for p in plies {
        assert_eq!(p["searched"], true, "{engine}: {p}");
        for l in p["lines"].as_array().unwrap() {
            assert_eq!(
                l["pvSan"].as_array().map(Vec::len),
                l["pv"].as_array().map(Vec::len),
                "{engine}: a line that does not replay from the FEN: {l}"
            );
        }
    }
}

/// Both fixtures through ENGINE_ARGS (none: the default engine), two engines at once.
fn analyse_variant_fixtures(name: &str, engine_args: &[&str]) -> (Value, Value) {
    let run = |fixture_name: &str| {
        let game = fixture(fixture_name);
        let mut args = vec![game.to_str().unwrap().to_owned()];
        args.extend(engine_args.iter().map(|a| a.to_string()));
        args.extend(["--depth", "4", "--multipv", "2", "--jobs", "2"].map(String::from));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        analyze_json(&tmp(&format!("{name}-{fixture_name}.json")), &args)
    };
    (run("chess960.pgn"), run("fen-start.pgn"))
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn chess960_and_fen_start_games_go_through_node_stockfish() {
    require_node_engine();
    let (chess960, fen) = analyse_variant_fixtures("node", &[]);
    assert_chess960_report(&chess960, "node stockfish");
    assert_fen_start_report(&fen, "node stockfish");
}

#[test]
#[cfg_attr(
    no_debian_stockfish,
    ignore = "needs /usr/games/stockfish: apt-get install stockfish"
)]
fn chess960_and_fen_start_games_go_through_debian_stockfish() {
    require_debian_engine();
    let (chess960, fen) = analyse_variant_fixtures("debian", &["--engine", DEBIAN_STOCKFISH]);
    assert_chess960_report(&chess960, "Debian stockfish");
    assert_fen_start_report(&fen, "Debian stockfish");
}

/// A line of `assess rows`' CSV as its fields, a quoted player's name with its commas as
/// one.
fn csv_fields(line: &str) -> Vec<&str> {
    let mut quoted = false;
    line.split(|c| {
        quoted ^= c == '"';
        c == ',' && !quoted
    })
    .collect()
}

#[test]
fn assess_rows_fits_the_move_odds_again_only_when_asked() {
    let d14 = "corpus/depth/d14";
    // The CSV's `switchOdds` column, one value a row.
    let switch_odds = |args: &[&str]| {
        let out = fairsight(&[&["assess", "rows", "--corpus", d14][..], args].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        let csv = String::from_utf8(out.stdout.clone()).unwrap();
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let col = header
            .iter()
            .position(|h| *h == "switchOdds")
            .expect("switchOdds");
        let values: Vec<String> = csv
            .lines()
            .skip(1)
            .map(|l| csv_fields(l)[col].to_owned())
            .collect();
        (values, stderr(&out))
    };
    // The shipped tables read the slice's sides (those with a rating and enough moves).
    let (shipped, _) = switch_odds(&[]);
    let read = shipped.iter().filter(|v| !v.is_empty()).count();
    assert!(read >= 30, "{shipped:?}");
    // Fitted again on the slice's train split, which has no switched side: no table, so
    // no value, and it says why.
    let (refit, err) = switch_odds(&["--refit-odds"]);
    assert_eq!(refit.len(), shipped.len());
    assert!(refit.iter().all(String::is_empty), "{refit:?}");
    assert!(
        err.contains("too few moves of clean humans or of switched sides' engines for switchOdds"),
        "{err}"
    );
    // A source to leave out that the train split does not have is an error naming it,
    // and leaving one out means nothing without a refit.
    let out = fairsight(&[
        "assess",
        "rows",
        "--corpus",
        d14,
        "--refit-odds",
        "--odds-without-source",
        "slice-engin",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("slice-engin"), "{}", stderr(&out));
    let out = fairsight(&[
        "assess",
        "rows",
        "--corpus",
        d14,
        "--odds-without-source",
        "slice-engine",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--refit-odds"), "{}", stderr(&out));
}

#[test]
fn thresholds_are_set_again_from_the_clean_sides_a_model_never_saw() {
    // A model's variant for rated input without clocks.
    fn rated_variant(model: &Value) -> &Value {
        model["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["rated"] == true && v["clocks"] == false)
            .unwrap()
    }
    // The depth study's default-setting folder: 18 clean human train games and 2
    // validation ones. Fitted on this very manifest, the model has seen the train games:
    // only the validation sides are unseen, fewer than the 200 a kind of input needs.
    let d14 = "corpus/depth/d14";
    let fitted = format!("{d14}/manifest.json");
    let out_model = tmp("thresholds-model.json");
    let run_with = |fitted: &str, min: &str, more: &[&str]| {
        let mut args = vec![
            "assess",
            "thresholds",
            "--corpus",
            d14,
            "--fitted-manifest",
            fitted,
            "--min-sides",
            min,
            "--out",
            out_model.to_str().unwrap(),
        ];
        args.extend_from_slice(more);
        fairsight(&args)
    };
    let run = |fitted: &str, min: &str| run_with(fitted, min, &[]);
    let out = run(&fitted, "200");
    assert!(out.status.success(), "{}", stderr(&out));
    let mut shipped: Value =
        serde_json::from_str(&std::fs::read_to_string("models/assessment.json").unwrap()).unwrap();
    // A band as an object (files made before bands could be several) is written back
    // as a list of one.
    for v in shipped["variants"].as_array_mut().unwrap() {
        if let Some(b) = v.get("lowerRated").filter(|b| b.is_object()).cloned() {
            v["lowerRated"] = Value::Array(vec![b]);
        }
    }
    // Its thresholds are the shipped model's.
    let kept_model = read_json(&out_model);
    assert_eq!(
        kept_model["variants"],
        shipped["variants"],
        "{}",
        stderr(&out)
    );
    assert!(
        kept_model["source"]
            .as_str()
            .unwrap()
            .ends_with("a 40-game corpus: a side's from the clean sides it did not see (too few: kept), a player's kept (never below a side's)"),
        "{}",
        kept_model["source"]
    );
    let kept = stderr(&out);
    assert!(
        kept.contains("rated, no clocks: 4 unseen clean sides, fewer than 200: thresholds kept"),
        "{kept}"
    );
    // With a lower bar the same 4 validation sides set the thresholds: the 33 train sides
    // the model has seen are left out.
    let out = run(&fitted, "4");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("rated, no clocks: 4 unseen clean sides: unclear"),
        "{}",
        stderr(&out)
    );
    assert_ne!(read_json(&out_model), shipped);
    // `--side-moves` gives a model without them a typical clean side's moves (harmonic
    // means) from the rated clean human sides of the train split it was fitted on. A game
    // side reads as before, so the side thresholds set from the same 4 sides are the same.
    let mut bare = read_json(Path::new("models/assessment.json"));
    bare["lateReference"]
        .as_object_mut()
        .unwrap()
        .remove("sideMoves");
    let bare_file = tmp("thresholds-bare.json");
    std::fs::write(&bare_file, bare.to_string()).unwrap();
    let bare_file = bare_file.to_str().unwrap();
    let out = run_with(&fitted, "4", &["--model", bare_file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let without = read_json(&out_model);
    assert!(without["lateReference"].get("sideMoves").is_none());
    let out = run_with(&fitted, "4", &["--model", bare_file, "--side-moves"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let with = read_json(&out_model);
    assert_eq!(with["variants"], without["variants"]);
    let moves = &with["lateReference"]["sideMoves"];
    let (late, top) = (
        moves["late"].as_f64().unwrap(),
        moves["top"].as_f64().unwrap(),
    );
    assert!(late > 1.0 && top > 1.0, "{moves}");
    let rows = fairsight(&["assess", "rows", "--corpus", d14]);
    assert!(rows.status.success(), "{}", stderr(&rows));
    let csv = String::from_utf8(rows.stdout).unwrap();
    let train_rated = csv
        .lines()
        .skip(1)
        .map(csv_fields)
        .filter(|f| f[2] == "human" && f[3] == "train" && !f[5].is_empty())
        .count();
    assert!(train_rated >= 30, "{csv}");
    assert!(
        stderr(&out).contains(&format!(
            "a typical clean side's moves, from {train_rated} rated clean train sides: later half {late:.1}, top lines {top:.1}"
        )),
        "{}",
        stderr(&out)
    );
    // A model that has them (the shipped one) keeps its own.
    let out = run_with(&fitted, "4", &["--side-moves"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("a typical clean side's moves"));
    assert_eq!(
        read_json(&out_model)["lateReference"]["sideMoves"],
        read_json(Path::new("models/assessment.json"))["lateReference"]["sideMoves"]
    );
    // A model fitted on none of these games (every game of its manifest in validation):
    // all 20 games' clean sides are unseen, and the rule is the fit's. All are rated, and
    // the shipped model reads rated sides with clocks or without by its one rated
    // variant; its unrated variants have none of them, fewer than `--min-sides`.
    let mut none_seen = read_json(Path::new(&fitted));
    for g in none_seen["games"].as_object_mut().unwrap().values_mut() {
        g["split"] = Value::from("validation");
    }
    let none_file = tmp("thresholds-fitted.json");
    std::fs::write(&none_file, none_seen.to_string()).unwrap();
    let out = run(none_file.to_str().unwrap(), "30");
    assert!(out.status.success(), "{}", stderr(&out));
    let model = read_json(&out_model);
    // The same sides' probabilities under the shipped model, from `assess eval --sides`.
    let sides_file = tmp("thresholds-sides.tsv");
    let eval = fairsight(&[
        "assess",
        "eval",
        "--corpus",
        d14,
        "--sides",
        sides_file.to_str().unwrap(),
    ]);
    assert!(eval.status.success(), "{}", stderr(&eval));
    let tsv = std::fs::read_to_string(&sides_file).unwrap();
    let mut clean: Vec<f64> = tsv
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[2] != "Test" && f[3] == "Human" && f[6] == "true")
        .map(|f| f[8].parse().unwrap())
        .collect();
    clean.sort_by(f64::total_cmp);
    assert!(clean.len() >= 30, "{tsv}");
    let said = stderr(&out);
    assert!(
        said.contains(&format!(
            "rated, no clocks: {} unseen clean sides",
            clean.len()
        )),
        "{said}"
    );
    let rated = rated_variant(&model);
    // Fewer than 200 sides: 0.5% of them is no side, so `look closer` lies just above
    // the highest, and `unclear` at their 90th percentile.
    let highest = *clean.last().unwrap();
    let look_closer = rated["lookCloser"].as_f64().unwrap();
    assert!(
        (look_closer - (highest + 1e-9).clamp(0.5, 0.999)).abs() < 1e-12,
        "{look_closer} {highest}"
    );
    let pos = 0.9 * (clean.len() - 1) as f64;
    let (lo, hi) = (clean[pos.floor() as usize], clean[pos.ceil() as usize]);
    let unclear = rated["unclear"].as_f64().unwrap();
    assert!(
        (unclear - (lo + (hi - lo) * pos.fract()).min(look_closer)).abs() < 1e-12,
        "{unclear}"
    );
    // A player's threshold is kept, never below a side's.
    let shipped_rated = rated_variant(&shipped);
    let player = shipped_rated["lookCloserPlayer"]
        .as_f64()
        .unwrap()
        .max(look_closer);
    assert_eq!(rated["lookCloserPlayer"].as_f64().unwrap(), player);
    // The other kinds of input, with too few unseen sides, are kept whole.
    for (new, old) in model["variants"]
        .as_array()
        .unwrap()
        .iter()
        .zip(shipped["variants"].as_array().unwrap())
    {
        if new["rated"] != true || new["clocks"] != false {
            assert_eq!(new, old);
        }
    }
    assert!(
        model["source"]
            .as_str()
            .unwrap()
            .contains("a side's from the clean sides it did not see (rated, no clocks from "),
        "{}",
        model["source"]
    );
    // With `--clocks-scale` the model says which experts read a game side with clocks on
    // a scale of their own and from how many clean such sides; with too few, that it
    // reads them as every side.
    let with_clocks = tsv
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[2] != "Test" && f[3] == "Human" && f[6] == "true" && f[7] == "true")
        .count();
    assert!(with_clocks >= 5, "{tsv}");
    for (min, want) in [
        (
            with_clocks,
            format!(
                "; the experts top engines, weaker engines of the rated kinds on a scale of their own for game sides with clocks, from the clean such sides the models never saw (rated, no clocks {with_clocks}; spread from the 95.0th percentile)"
            ),
        ),
        (
            with_clocks + 1,
            format!(
                "; game sides with clocks read as every side (fewer than {} unseen clean such sides)",
                with_clocks + 1
            ),
        ),
    ] {
        let out = run_with(
            none_file.to_str().unwrap(),
            &min.to_string(),
            &["--clocks-scale", "--clocks-experts", "top,weaker"],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let source = read_json(&out_model)["source"].as_str().unwrap().to_owned();
        assert!(source.ends_with(&want), "{source}");
    }
    // `--unrated-player-scale` fits an unrated kind's scaling of a player's games on the
    // validation split's pseudo-players of 5 read without their rating: here 4 of each
    // label, fewer than the 20 it needs, so each unrated kind keeps the shipped scaling,
    // and says so (the fit itself: unit test
    // `a_players_scaling_is_fitted_on_the_pseudo_players_it_reads`).
    let out = run_with(
        none_file.to_str().unwrap(),
        "30",
        &["--players", "--unrated-player-scale"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    for basis in ["unrated, no clocks", "unrated, clocks"] {
        assert!(
            said.contains(&format!(
                "players, {basis}: too few pseudo-players of 5 games to fit a player's scaling"
            )),
            "{said}"
        );
    }
    let scaled = read_json(&out_model);
    for (new, old) in scaled["variants"]
        .as_array()
        .unwrap()
        .iter()
        .zip(shipped["variants"].as_array().unwrap())
    {
        assert_eq!(new["plattPlayer"], old["plattPlayer"]);
    }
    assert!(
        !scaled["source"]
            .as_str()
            .unwrap()
            .contains("a player's scaling fitted again"),
        "{}",
        scaled["source"]
    );
    // `--player-games-scale` fits every kind's scaling of a player's games, with a games
    // term, on the pseudo-players of 2, 3, 4, 5, 10 and 20 games at once: a kind with 20
    // of each label gets one (and says its formula), one with fewer keeps the shipped
    // scaling (and says so); the rated kinds' players of 2-4 games get bars of their own,
    // above their clean pseudo-players of 2-4 games and never below the 5+ ones.
    let out = run_with(
        none_file.to_str().unwrap(),
        "30",
        &["--players", "--player-games-scale", "all"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    let scaled = read_json(&out_model);
    for (new, old) in scaled["variants"]
        .as_array()
        .unwrap()
        .iter()
        .zip(shipped["variants"].as_array().unwrap())
    {
        let basis = format!(
            "{}, {}",
            if new["rated"] == true {
                "rated"
            } else {
                "unrated"
            },
            if new["clocks"] == true {
                "clocks"
            } else {
                "no clocks"
            }
        );
        let fitted = format!("players, {basis}: the player reading scaled as sigmoid((");
        let kept = format!(
            "players, {basis}: too few pseudo-players of 2, 3, 4, 5, 10, 20 games to fit a player's scaling"
        );
        if said.contains(&fitted) {
            assert!(
                said.contains("g = ln(games / 5) for 2-20 games, fitted on"),
                "{said}"
            );
            assert_eq!(new["plattPlayerGames"].as_array().map(Vec::len), Some(2));
        } else {
            assert!(said.contains(&kept), "{basis}: {said}");
            assert_eq!(new["plattPlayer"], old["plattPlayer"]);
            assert_eq!(new["plattPlayerGames"], old["plattPlayerGames"]);
        }
    }
    let rated_bars = said
        .lines()
        .find(|l| l.starts_with("players of 5+ games, rated, no clocks: look closer from"))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(
        rated_bars.contains("; 2 games: ")
            && rated_bars.contains("; 4 games: ")
            && rated_bars.contains("; 2-4 games: look closer from "),
        "{rated_bars}"
    );
    for v in scaled["variants"].as_array().unwrap() {
        let (five, few) = (&v["lookCloserPlayer"], &v["lookCloserFew"]);
        assert!(
            few.as_f64().unwrap() >= five.as_f64().unwrap() && few.as_f64() < Some(1.0),
            "{v}"
        );
    }
    // With `--unrated-withheld` every unseen clean rated side is also read with its
    // rating withheld, by the unrated kind its clocks call for, and the unrated kinds'
    // thresholds are set from those readings (this folder has no unrated side, so
    // without the flag they were kept, above).
    let without_clocks = clean.len() - with_clocks;
    let out = run_with(none_file.to_str().unwrap(), "4", &["--unrated-withheld"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    for want in [
        format!(
            "{} unseen clean rated sides read with their rating withheld",
            clean.len()
        ),
        format!("unrated, no clocks: {without_clocks} unseen clean sides: unclear"),
        format!("unrated, clocks: {with_clocks} unseen clean sides: unclear"),
        format!(
            "rated, no clocks: {} unseen clean sides: unclear",
            clean.len()
        ),
    ] {
        assert!(said.contains(&want), "{want}\n{said}");
    }
    let withheld_model = read_json(&out_model);
    for (new, old) in withheld_model["variants"]
        .as_array()
        .unwrap()
        .iter()
        .zip(shipped["variants"].as_array().unwrap())
    {
        if new["rated"] == false {
            assert_ne!(new["lookCloser"], old["lookCloser"], "{new}");
        }
    }
    assert!(
        withheld_model["source"]
            .as_str()
            .unwrap()
            .contains(&format!(
                "; an unrated kind's with {} rated ones read with their rating withheld",
                clean.len()
            )),
        "{}",
        withheld_model["source"]
    );
    // With `--players` too, an unrated kind's player thresholds are set from the rated
    // clean pseudo-players read with their rating withheld (this folder has no unrated
    // side, so without the flag the unrated kinds have no pseudo-player at all).
    let players_card = |more: &[&str]| {
        let out = run_with(none_file.to_str().unwrap(), "4", more);
        assert!(out.status.success(), "{}", stderr(&out));
        let said = stderr(&out);
        said.lines()
            .find(|l| l.starts_with("players of 5+ games, unrated, no clocks: look closer from"))
            .unwrap_or_else(|| panic!("no unrated player line: {said}"))
            .to_owned()
    };
    let with = players_card(&["--players", "--unrated-withheld"]);
    let without = players_card(&["--players"]);
    assert!(without.contains("5 games: 0 players"), "{without}");
    assert!(!with.contains("5 games: 0 players"), "{with}");
    assert!(with.contains("unclear from"), "{with}");
    // With `--keep-rated-from` the shipped file's rated kinds come back whole in place of
    // those this run set again (its sides read anew), and the unrated kinds stay as the
    // run set them.
    let out = run_with(
        none_file.to_str().unwrap(),
        "4",
        &[
            "--unrated-withheld",
            "--keep-rated-from",
            "models/assessment.json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the 1 rated kinds of input kept whole from assessment.json"),
        "{}",
        stderr(&out)
    );
    let merged = read_json(&out_model);
    assert_ne!(rated_variant(&withheld_model), rated_variant(&shipped));
    for ((m, w), s) in merged["variants"]
        .as_array()
        .unwrap()
        .iter()
        .zip(withheld_model["variants"].as_array().unwrap())
        .zip(shipped["variants"].as_array().unwrap())
    {
        assert_eq!(m, if m["rated"] == true { s } else { w });
    }
    assert_eq!(merged["lateReference"], withheld_model["lateReference"]);
    assert!(
        merged["source"].as_str().unwrap().ends_with(
            "; then the rated kinds of input put back whole from assessment.json (their experts, scalings, thresholds and bands as set there)"
        ),
        "{}",
        merged["source"]
    );
    // A file that is not a model: a clear error naming it.
    let out = run_with(
        none_file.to_str().unwrap(),
        "4",
        &["--keep-rated-from", "corpus/depth/d14/manifest.json"],
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("corpus/depth/d14/manifest.json"),
        "{}",
        stderr(&out)
    );
    // `assess folds` deals the train games to folds, each manifest leaving one fold out;
    // validation games stay in every one.
    let folds_dir = tmp("thresholds-folds");
    let out = fairsight(&[
        "assess",
        "folds",
        "--corpus",
        d14,
        "--k",
        "2",
        "--out",
        folds_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let fold_files: Vec<String> = (1..=2)
        .map(|i| {
            folds_dir
                .join(format!("fold-{i}.json"))
                .to_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let folds: Vec<Value> = fold_files.iter().map(|f| read_json(Path::new(f))).collect();
    let whole = read_json(Path::new(&fitted));
    // The games with a scored side (`assess rows`); a train game without one is read by
    // no model and stays in both.
    let rows_file = tmp("thresholds-rows.csv");
    let rows = fairsight(&[
        "assess",
        "rows",
        "--corpus",
        d14,
        "--out",
        rows_file.to_str().unwrap(),
    ]);
    assert!(rows.status.success(), "{}", stderr(&rows));
    let scored: std::collections::HashSet<String> = std::fs::read_to_string(&rows_file)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_owned())
        .collect();
    for (id, g) in whole["games"].as_object().unwrap() {
        let kept = folds
            .iter()
            .filter(|f| f["games"].get(id).is_some())
            .count();
        let expected = if g["split"] == "train" && scored.contains(id) {
            1
        } else {
            2
        };
        assert_eq!(kept, expected, "{id}: in {kept} of the 2 fold manifests");
    }
    for f in &folds {
        assert!(f["games"].as_object().unwrap().len() < whole["games"].as_object().unwrap().len());
    }
    // `--cross`: the train sides the model saw, each read by a fold model fitted without
    // it (here the shipped model again, with each fold's manifest), count among the
    // unseen: the thresholds are those of a model that saw none of them.
    let cross: Vec<String> = fold_files
        .iter()
        .map(|f| format!("models/assessment.json={f}"))
        .collect();
    let out = run_with(&fitted, "30", &["--cross", &cross[0], "--cross", &cross[1]]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains(&format!(
            "{} clean train sides the model saw, read by the 2 fold models that did not",
            clean.len() - 4
        )),
        "{said}"
    );
    let crossed = read_json(&out_model);
    for key in ["unclear", "lookCloser"] {
        assert_eq!(
            rated_variant(&crossed)[key],
            rated_variant(&model)[key],
            "{key}"
        );
    }
    assert!(
        crossed["source"]
            .as_str()
            .unwrap()
            .contains("and those it saw, each read by one of 2 models fitted without its fold"),
        "{}",
        crossed["source"]
    );
    // `--band-apart`: a rated kind of input's thresholds from its sides rated at or above
    // the band's bound alone; the band's from those under it. Few sides: each threshold
    // lies just above its set's highest, and the band is kept only when above the kind's.
    // The clean rated train and validation sides' probabilities in the bands under each
    // bound (ascending), and at or above the last.
    let banded_sides = |bounds: &[f64]| {
        let mut bands = vec![Vec::new(); bounds.len() + 1];
        for f in tsv
            .lines()
            .skip(1)
            .map(|l| l.split('\t').collect::<Vec<_>>())
        {
            if f[2] != "Test" && f[3] == "Human" && f[6] == "true" {
                let p: f64 = f[8].parse().unwrap();
                let band = f[4]
                    .parse::<f64>()
                    .ok()
                    .and_then(|e| bounds.iter().position(|b| e < *b))
                    .unwrap_or(bounds.len());
                bands[band].push(p);
            }
        }
        bands
    };
    let [under, above]: [Vec<f64>; 2] = banded_sides(&[1800.0]).try_into().unwrap();
    assert!(above.len() >= 5 && under.len() >= 5, "{above:?} {under:?}");
    let just_above =
        |v: &[f64]| (v.iter().cloned().fold(f64::MIN, f64::max) + 1e-9).clamp(0.5, 0.999);
    let out = run_with(
        none_file.to_str().unwrap(),
        &above.len().to_string(),
        &[
            "--band-apart",
            "--lower-rated",
            "1800",
            "--min-band-sides",
            &under.len().to_string(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let apart = read_json(&out_model);
    let rated = rated_variant(&apart);
    // The band is kept whether or not it comes out above the kind's (a side is held to
    // the higher of the two).
    let (kind, band) = (just_above(&above), just_above(&under));
    assert!(
        (rated["lookCloser"].as_f64().unwrap() - kind).abs() < 1e-12,
        "{rated}"
    );
    assert!((rated["lowerRated"][0]["lookCloser"].as_f64().unwrap() - band).abs() < 1e-12);
    assert!(
        apart["source"]
            .as_str()
            .unwrap()
            .contains("(rated, no clocks from the sides rated 1800 or more)"),
        "{}",
        apart["source"]
    );
    // Two bounds: a band under each, the kind's threshold from the sides rated at or
    // above the higher alone; a band with fewer sides than `--min-band-sides` gets none,
    // and says that the kind's threshold holds its sides.
    let [low, mid, high]: [Vec<f64>; 3] = banded_sides(&[1500.0, 1800.0]).try_into().unwrap();
    assert!(low.len() >= 2 && mid.len() >= 2, "{low:?} {mid:?}");
    let min_band = low.len().min(mid.len());
    let out = run_with(
        none_file.to_str().unwrap(),
        &high.len().to_string(),
        &[
            "--band-apart",
            "--lower-rated",
            "1800,1500",
            "--min-band-sides",
            &min_band.to_string(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let two = read_json(&out_model);
    let rated = rated_variant(&two);
    assert!((rated["lookCloser"].as_f64().unwrap() - just_above(&high)).abs() < 1e-12);
    let bands = rated["lowerRated"].as_array().unwrap();
    assert_eq!(bands.len(), 2, "{rated}");
    for (b, (below, sides)) in bands.iter().zip([(1500.0, &low), (1800.0, &mid)]) {
        assert_eq!(b["below"], below);
        assert!(
            (b["lookCloser"].as_f64().unwrap() - just_above(sides)).abs() < 1e-12,
            "{b}"
        );
        assert_eq!(b["sides"], sides.len());
    }
    assert!(
        stderr(&out).contains(&format!(
            "clean sides rated 1500-1799 (train and validation), {} of them",
            mid.iter().filter(|&&p| p >= just_above(&high)).count()
        )),
        "{}",
        stderr(&out)
    );
    let out = run_with(
        none_file.to_str().unwrap(),
        &high.len().to_string(),
        &[
            "--band-apart",
            "--lower-rated",
            "1500,1800",
            "--min-band-sides",
            &(min_band + 1).to_string(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(": the kind's threshold, set without them, holds them"),
        "{}",
        stderr(&out)
    );
    // `--lower-rated`: a game side rated under the bound is held to a threshold of its
    // own, above all but 1% of the band's clean sides in the train and validation splits
    // (the ones the fit saw too). With a variant's own threshold lowered to 0.3, the
    // band's, just above the highest of its few sides, lies above it.
    let mut band: Vec<f64> = tsv
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| {
            f[2] != "Test" && f[3] == "Human" && f[4].parse().is_ok_and(|e: f64| e < 1400.0)
        })
        .map(|f| f[8].parse().unwrap())
        .collect();
    band.sort_by(f64::total_cmp);
    assert!(band.len() >= 2 && band[band.len() - 1] > 0.3, "{band:?}");
    let mut lowered = shipped.clone();
    for v in lowered["variants"].as_array_mut().unwrap() {
        if v["rated"] == true {
            v["lookCloser"] = Value::from(0.3);
            v.as_object_mut().unwrap().remove("lowerRated");
        }
    }
    let lowered_file = tmp("thresholds-lowered.json");
    std::fs::write(&lowered_file, lowered.to_string()).unwrap();
    // The lowered model's band under 1400, with at least `min` sides.
    let under_1400 = |min: usize| {
        run_with(
            &fitted,
            "200",
            &[
                "--model",
                lowered_file.to_str().unwrap(),
                "--lower-rated",
                "1400",
                "--min-band-sides",
                &min.to_string(),
            ],
        )
    };
    let out = under_1400(band.len());
    assert!(out.status.success(), "{}", stderr(&out));
    let highest = band[band.len() - 1];
    let expected = (highest + 1e-9).clamp(0.5, 0.999);
    // `unclear` at the band's 90th percentile, never above its `look closer`.
    let pos = 0.9 * (band.len() - 1) as f64;
    let (lo, hi) = (band[pos.floor() as usize], band[pos.ceil() as usize]);
    let unclear = (lo + (hi - lo) * pos.fract()).min(expected);
    assert!(
        stderr(&out).contains(&format!(
            "rated, no clocks: {} clean sides rated under 1400 (train and validation), {} of them at look closer 0.300: theirs {expected:.3}, unclear {:.3}\n",
            band.len(),
            band.iter().filter(|&&p| p >= 0.3).count(),
            unclear.max(rated_variant(&shipped)["unclear"].as_f64().unwrap())
        )),
        "{}",
        stderr(&out)
    );
    let banded = read_json(&out_model);
    let b = &rated_variant(&banded)["lowerRated"][0];
    assert_eq!(b["below"], 1400.0);
    assert!(
        (b["lookCloser"].as_f64().unwrap() - expected).abs() < 1e-12,
        "{b}"
    );
    assert!(
        (b["unclear"].as_f64().unwrap() - unclear).abs() < 1e-12,
        "{b}"
    );
    assert_eq!(b["sides"], band.len());
    // With a band at 1% the model's clean side rate, against which a player's game sides
    // each at `look closer` are weighed, is 1%; with none, 0.5%.
    assert_eq!(banded["sideLookCloserRate"], 0.01);
    assert!(
        banded["source"]
            .as_str()
            .unwrap()
            .ends_with(&format!("a game side's of a rating band from 1% of the band's clean train and validation sides (rated, no clocks under 1400 from {})", band.len())),
        "{}",
        banded["source"]
    );
    // One side more than the band has: the band's threshold is kept (here, none).
    let out = under_1400(band.len() + 1);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("fewer than"), "{}", stderr(&out));
    assert!(
        rated_variant(&read_json(&out_model))
            .get("lowerRated")
            .is_none()
    );
    // `--lower-rated 0`: one threshold for every rating; nothing else changes.
    let out = run_with(&fitted, "200", &["--lower-rated", "0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut one = read_json(&out_model);
    assert!(rated_variant(&one).get("lowerRated").is_none());
    assert_eq!(one["sideLookCloserRate"], 0.005);
    let mut expected = shipped.clone();
    for m in [&mut one, &mut expected] {
        for v in m["variants"].as_array_mut().unwrap() {
            v.as_object_mut().unwrap().remove("lowerRated");
        }
    }
    assert_eq!(one["variants"], expected["variants"]);
    // `--players`, for the model fitted on this very manifest: a player's threshold set
    // above the clean pseudo-players of the sides it never saw, the 4 validation sides
    // here, too few for one of 5 games, so at a side's.
    let out = run_with(&fitted, "30", &["--players"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("players of 5+ games, rated, no clocks: look closer from")
            && said.contains("5 games: 0 players"),
        "{said}"
    );
    // For the model fitted on none of them, the 36 train sides are unseen too, and make
    // pseudo-players of 5 and 10 games: the threshold lies above every one of them and
    // above their normal tail (each printed to 3 decimals), never below a side's.
    // The card's line of a player's threshold for rated input, from a run with `flags`.
    let players_line = |flags: &[&str]| -> String {
        let out = run_with(none_file.to_str().unwrap(), "30", flags);
        assert!(out.status.success(), "{}", stderr(&out));
        let said = stderr(&out);
        said.lines()
            .find(|l| l.starts_with("players of 5+ games, rated, no clocks: look closer from"))
            .unwrap_or_else(|| panic!("{said}"))
            .to_owned()
    };
    let line = players_line(&["--players"]);
    let number_after = |part: &str, key: &str| -> f64 {
        let rest = &part[part.find(key).unwrap_or_else(|| panic!("{line}")) + key.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        rest[..end].parse().unwrap_or_else(|_| panic!("{line}"))
    };
    let mut bound = look_closer;
    for n in [5, 10, 20] {
        let part = line
            .split("; ")
            .find(|p| p.starts_with(&format!("{n} games: ")))
            .unwrap_or_else(|| panic!("{line}"));
        let players = number_after(part, &format!("{n} games: "));
        if n == 5 {
            assert!(players >= 10.0, "{line}");
        }
        if players > 0.0 {
            bound = bound
                .max(number_after(part, "highest "))
                .max(number_after(part, "tail "));
        }
    }
    let model = read_json(&out_model);
    let player = rated_variant(&model)["lookCloserPlayer"].as_f64().unwrap();
    assert!(
        player >= look_closer && (player - bound.min(0.999)).abs() <= 0.0006,
        "{player} {bound} {line}"
    );
    assert!(
        model["source"]
            .as_str()
            .unwrap()
            .ends_with("a player's from the clean pseudo-players of the same sides"),
        "{}",
        model["source"]
    );
    // `--real-players`: the real players of 5 or more games among the same sides are
    // read too, each on all their games pooled, and bound the threshold with their
    // highest and their tail (`real_players_bound`, unit-tested); said, and in the source.
    let line = players_line(&["--players", "--real-players"]);
    let part = line
        .split("; ")
        .find(|p| p.starts_with("real players: "))
        .unwrap_or_else(|| panic!("{line}"));
    let with_real = read_json(&out_model);
    let player_real = rated_variant(&with_real)["lookCloserPlayer"]
        .as_f64()
        .unwrap();
    if number_after(part, "real players: ") > 0.0 {
        let real = number_after(part, "highest ").max(number_after(part, "tail "));
        assert!(
            player_real >= player.max(real.min(0.999)) - 0.0006,
            "{line}"
        );
    } else {
        assert_eq!(player_real, player, "{line}");
    }
    assert!(
        with_real["source"].as_str().unwrap().ends_with(
            "a player's from the clean pseudo-players and real players of the same sides"
        ),
        "{}",
        with_real["source"]
    );
    // With `--band-apart`, a band's players have a threshold of their own, from the
    // pseudo-players of its mean ratings, never under the band's side threshold.
    let out = run_with(
        none_file.to_str().unwrap(),
        "30",
        &[
            "--players",
            "--band-apart",
            "--lower-rated",
            "1800",
            "--min-band-sides",
            "2",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("players of 5+ games, rated, no clocks, rated under 1800: look closer from"),
        "{said}"
    );
    let model = read_json(&out_model);
    let b = &rated_variant(&model)["lowerRated"][0];
    assert!(
        b["lookCloserPlayer"].as_f64().unwrap() >= b["lookCloser"].as_f64().unwrap(),
        "{b}"
    );
}

#[test]
fn each_slices_auc_has_an_interval_and_a_model_compared_with_itself_differs_by_nothing() {
    // The depth study's default-setting folder: clean humans, top and weaker engines,
    // no switched sides.
    let eval = |split: &str, extra: [&str; 2]| {
        let mut args = vec![
            "assess",
            "eval",
            "--corpus",
            "corpus/depth/d14",
            "--split",
            split,
        ];
        args.extend(extra);
        fairsight(&args)
    };
    let out = eval("train", ["--compare", "models/assessment.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let mut checked = 0;
    for slice in [
        "all sides",
        "engines rated 2600 or less, used by players rated 200+ below them, vs humans",
    ] {
        // The slice table's combined AUC ...
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("| {slice} |")))
            .unwrap_or_else(|| panic!("{slice}: {text}"));
        let combined = row.split('|').nth(3).unwrap().trim();
        let a: f64 = combined.parse().unwrap_or_else(|_| panic!("{row}"));
        // ... stands with its interval around it, the same under the compared model,
        // and the paired difference is nothing in every draw.
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("  {slice}: {combined} (95% ")))
            .unwrap_or_else(|| panic!("{slice}: {text}"));
        let interval = line
            .split("(95% ")
            .nth(1)
            .unwrap()
            .split(')')
            .next()
            .unwrap();
        let (lo, hi) = interval.split_once('-').unwrap();
        let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
        assert!(lo <= a && a <= hi && lo < hi, "{line}");
        assert!(
            line.contains(&format!(
                "; compared: {combined} (95% {interval}); difference +0.000 (95% +0.000 to +0.000)"
            )),
            "{line}"
        );
        checked += 1;
    }
    assert_eq!(checked, 2);
    // No switched sides in the folder: no number.
    assert!(
        text.contains("\n  switched sides vs clean sides: -; 0 / 33 sides"),
        "{text}"
    );
    // Nor by their helper's make.
    for make in [
        "switched to Stockfish (the judge's make)",
        "switched to engines of other makes",
    ] {
        assert!(
            text.contains(&format!("\n  {make} vs clean sides: -; 0 / 33 sides")),
            "{text}"
        );
        assert!(
            text.contains(&format!("\n| {make} vs clean sides | 0 / 33 |")),
            "{text}"
        );
    }
    // Each slice's best single signal against the combined probability: the signal the
    // table shows highest on that slice, with a paired difference inside its interval.
    let best = text
        .split("against each slice's best single signal")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let line = best
        .lines()
        .find(|l| l.starts_with("  all sides: combined "))
        .unwrap_or_else(|| panic!("{best}"));
    let (signal, rest) = line.split_once(", ").unwrap().1.split_once(' ').unwrap();
    // The cells of the slice table's line that starts so.
    let cells = |start: &str| -> Vec<&str> {
        let line = text.lines().find(|l| l.starts_with(start));
        line.unwrap().split('|').map(str::trim).collect()
    };
    let (row, header) = (cells("| all sides |"), cells("| slice |"));
    let single: f64 = rest.split(' ').next().unwrap().parse().unwrap();
    let column = header.iter().position(|h| *h == signal).unwrap();
    // The table rounds to two places; every other signal's AUC is no higher.
    assert_eq!(format!("{:.2}", single), row[column], "{line}");
    for (h, v) in header.iter().zip(&row).skip(4) {
        if let Ok(v) = v.parse::<f64>() {
            assert!(v <= (single * 100.0).round() / 100.0, "{h} {v}: {line}");
        }
    }
    let difference: f64 = line
        .split("difference ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let (lo, hi) = line
        .split("(95% ")
        .nth(1)
        .unwrap()
        .trim_end_matches(')')
        .split_once(" to ")
        .unwrap();
    let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
    assert!(lo <= difference && difference <= hi && lo < hi, "{line}");
    assert!(
        best.contains("\n  switched sides vs clean sides: -\n"),
        "{best}"
    );
    // The clean sides' false-positive rate by rating band: the bands hold every clean
    // side the overall rate counts, once.
    let overall = text
        .lines()
        .find(|l| l.starts_with("  false-positive rate (clean humans), look closer or above: "))
        .unwrap_or_else(|| panic!("{text}"));
    let count = |l: &str| -> (usize, usize) {
        let (k, n) = l
            .split(": ")
            .nth(1)
            .unwrap()
            .split(" = ")
            .next()
            .unwrap()
            .split_once('/')
            .unwrap();
        (k.parse().unwrap(), n.parse().unwrap())
    };
    let bands: Vec<(usize, usize)> = text
        .split("by the side's rating, look closer; unclear or above; the engine-assisted sides of the band at look closer:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"))
        .lines()
        .take_while(|l| l.starts_with("    "))
        .map(|l| if l.contains(": -;") { (0, 0) } else { count(l) })
        .collect();
    assert_eq!(bands.len(), 6, "{text}");
    let (k, n) = count(overall);
    let summed = bands.iter().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    assert_eq!(summed, (k, n), "{text}");
    assert!(bands.iter().filter(|b| b.1 > 0).count() >= 2, "{text}");
    // So do they every engine-assisted side of a kind, once.
    for (kind, overall) in [
        ("top engines", "top engines"),
        ("weaker engines", "weaker engines"),
    ] {
        let line = text
            .lines()
            .find(|l| {
                l.starts_with(&format!(
                    "  true-positive rate, {overall}, look closer or above: "
                ))
            })
            .unwrap_or_else(|| panic!("{text}"));
        let by_band = text
            .lines()
            .filter(|l| l.starts_with("    ") && l.contains(&format!(" {kind} ")))
            .filter_map(|l| {
                let after = l
                    .split(&format!(" {kind} "))
                    .nth(1)?
                    .split([' ', ','])
                    .next()?;
                let (k, n) = after.split_once('/')?;
                Some((k.parse::<usize>().ok()?, n.parse::<usize>().ok()?))
            })
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        assert_eq!(by_band, count(line), "{kind}: {text}");
        assert!(by_band.1 > 0, "{kind}: {text}");
    }
    // The rated sides read without their rating, at the unrated model's thresholds: the
    // sides of the slice table's "rating withheld" row, clean and engine-assisted.
    let withheld = text
        .split("with their rating withheld (a file without Elo tags), at the unrated model's thresholds:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let withheld_count = |start: &str| -> (usize, usize) {
        count(
            withheld
                .lines()
                .find(|l| l.starts_with(start))
                .unwrap_or_else(|| panic!("{start}: {withheld}")),
        )
    };
    let row = cells("| rated sides, rating withheld |");
    let (assisted, clean) = row[2].split_once(" / ").unwrap();
    let (k, n) = withheld_count("  false-positive rate (clean humans), look closer or above: ");
    assert_eq!(n, clean.parse::<usize>().unwrap(), "{withheld}");
    assert!(k <= withheld_count("  false-positive rate (clean humans), unclear or above: ").0);
    let engines: usize = ["top engines", "weaker engines", "switched sides"]
        .iter()
        .map(|kind| {
            withheld_count(&format!(
                "  true-positive rate, {kind}, look closer or above: "
            ))
            .1
        })
        .sum();
    assert_eq!(engines, assisted.parse::<usize>().unwrap(), "{withheld}");
    // Without the engine games' source, the split has its humans alone; a source with
    // no game in the split is an error that names it.
    let out = eval("train", ["--without-source", "slice-engine"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let without = stdout(&out);
    assert!(without.contains("| all sides | 0 / 33 |"), "{without}");
    assert!(text.contains("| all sides | 24 / 33 |"), "{text}");
    // Its pseudo-players too: engine-assisted ones with the engines, none without.
    assert!(
        text.contains("  true-positive rate, top engines, look closer: 1/1 "),
        "{text}"
    );
    for kind in ["top engines", "weaker engines", "switched sides"] {
        assert!(
            without.contains(&format!("  true-positive rate, {kind}, look closer: 0/0 ")),
            "{kind}: {without}"
        );
    }
    let out = eval("test", ["--without-source", "slice-human"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--without-source slice-human: no game of the Test split"));
}

#[test]
fn pseudo_players_pool_one_side_of_each_game_in_groups_of_the_size_asked() {
    // The depth study's default-setting folder: 18 clean human train games, so 36 sides,
    // White and Black together, never two sides of one game or of one player in a
    // pseudo-player, nor online (lichess) and over-the-board (TWIC) sides: 5 of 5 (6 when
    // the two scales could share one, 7 if one player's sides could too: some players
    // have several games here); of 10, 1 (2 with the scales mixed).
    let eval = |option: &str, value: &str| {
        fairsight(&[
            "assess",
            "eval",
            "--corpus",
            "corpus/depth/d14",
            "--split",
            "train",
            option,
            value,
        ])
    };
    let out = eval("--player-games", "5,10");
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    // `--sides`: every side of the folder, each split, with its probability and experts.
    let file = tmp("depth-sides.tsv");
    let out = eval("--sides", file.to_str().unwrap());
    assert!(out.status.success(), "{}", stderr(&out));
    let tsv = std::fs::read_to_string(&file).unwrap();
    let mut lines = tsv.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    assert_eq!(
        header[8..13],
        [
            "probability",
            "top engines",
            "weaker engines",
            "switched",
            "engine moves"
        ]
    );
    // Then each signal as the model reads it, in the rows' order.
    assert_eq!(header[13], "classifier", "{header:?}");
    let acpl = header.iter().position(|h| *h == "acpl").unwrap();
    let late_odds = header.iter().position(|h| *h == "lateOdds").unwrap();
    let sides: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    // At most two sides of each of the 18 clean train games (a side needs 8 moves).
    let clean = sides
        .iter()
        .filter(|f| f[2] == "Train" && f[3] == "Human")
        .count();
    assert!(
        (30..=36).contains(&clean),
        "{clean} clean train sides: {tsv}"
    );
    for (split, kind) in [("Test", "TopEngine"), ("Validation", "WeakEngine")] {
        assert!(
            sides.iter().any(|f| f[2] == split && f[3] == kind),
            "{split} {kind}: {tsv}"
        );
    }
    for f in &sides {
        assert_eq!(f.len(), header.len(), "{f:?}");
        let p: f64 = f[8].parse().unwrap_or_else(|_| panic!("{f:?}"));
        assert!((0.0..=1.0).contains(&p), "{f:?}");
        let top: f64 = f[9].parse().unwrap_or_else(|_| panic!("{f:?}"));
        assert!(top.is_finite(), "{f:?}");
        // No switched side here: no engine moves to count.
        assert_eq!(f[12], "", "{f:?}");
        // Every side has its ACPL; a rated one the later half's odds the model's
        // reference reads.
        let v: f64 = f[acpl].parse().unwrap_or_else(|_| panic!("{f:?}"));
        assert!(v >= 0.0, "{f:?}");
        if f[6] == "true" {
            assert!(f[late_odds].parse::<f64>().is_ok(), "{f:?}");
        }
    }
    // Each expert's own AUC, by slice, beside the combined one of the slice table.
    let experts = text
        .split("each expert's own score")
        .nth(1)
        .unwrap_or_else(|| panic!("no experts' table: {text}"));
    let all = experts.lines().nth(1).unwrap();
    assert!(all.starts_with("  all sides: top engines 0."), "{all}");
    for kind in ["weaker engines 0.", "switched 0."] {
        assert!(all.contains(kind), "{all}");
    }
    let combined = all.split("; combined ").nth(1).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("| all sides |") && l.contains(&format!("| {combined} |"))),
        "{combined} is not the slice table's: {text}"
    );
    // Clean sides by rating scale: the folder's lichess and TWIC games, together every
    // clean side with a level.
    let count = |line: &str, what: &str| -> (usize, usize) {
        let kn = line
            .split(what)
            .nth(1)
            .unwrap_or_else(|| panic!("no {what:?}: {line}"))
            .split(' ')
            .next()
            .unwrap();
        let (k, n) = kn.split_once('/').unwrap();
        (k.parse().unwrap(), n.parse().unwrap())
    };
    let scales = text
        .lines()
        .find(|l| l.contains("false-positive rate (clean humans) by rating scale"))
        .unwrap_or_else(|| panic!("no rates by scale: {text}"));
    let online = count(scales, "online (a Site on a chess server): ");
    let board = count(scales, "over the board: ");
    let all = count(
        text.lines()
            .find(|l| l.contains("false-positive rate (clean humans), look closer or above"))
            .unwrap(),
        "look closer or above: ",
    );
    assert!(online.1 > 0 && board.1 > 0, "{scales}");
    assert_eq!((online.0 + board.0, online.1 + board.1), all, "{scales}");
    // Engine-assisted sides by source, and by name for `--by-name`: the folder's one
    // engine source holds every engine side the rates above count, and its engines'
    // lines (names from the games' tags) add up to it.
    let by_source = |text: &str| -> Vec<String> {
        text.split("engine-assisted sides by source")
            .nth(1)
            .unwrap_or_else(|| panic!("no sides by source: {text}"))
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("    "))
            .map(str::to_string)
            .collect()
    };
    let lines = by_source(&text);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let source = count(&lines[0], "    slice-engine: ");
    let engines = ["top engines", "weaker engines", "switched sides"]
        .iter()
        .map(|kind| {
            let line = text
                .lines()
                .find(|l| {
                    l.starts_with(&format!(
                        "  true-positive rate, {kind}, look closer or above: "
                    ))
                })
                .unwrap();
            count(line, "look closer or above: ")
        })
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    assert_eq!(source, engines, "{lines:?}");
    assert!(
        lines[0].contains("; AUC 0.") || lines[0].contains("; AUC 1.000"),
        "{lines:?}"
    );
    let out = eval("--by-name", "slice-engine");
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = by_source(&stdout(&out));
    assert!(lines.len() > 2, "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("      Stockfish")),
        "{lines:?}"
    );
    let players = lines[1..]
        .iter()
        .map(|l| {
            assert!(l.starts_with("      "), "{l}");
            count(l, ": ")
        })
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    assert_eq!(players, source, "{lines:?}");
    // A source with no engine-assisted side in the split is an error that names it.
    let out = eval("--by-name", "slice-human");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--by-name slice-human: no engine-assisted side"),
        "{}",
        stderr(&out)
    );
    // The pseudo-players' table that follows `head`, whose clean ones (`clean` of them)
    // none reaches `look closer`.
    let player_table = |head: &str, size: usize, clean: usize| -> &str {
        let table = text
            .split(head)
            .nth(1)
            .unwrap_or_else(|| panic!("no table {head:?}: {text}"));
        let fpr = table.lines().nth(1).unwrap();
        assert!(
            fpr.contains(&format!("look closer: 0/{clean} ")),
            "{size}: {fpr}"
        );
        table
    };
    let mut both_colours = false;
    for (size, clean) in [(5, 5), (10, 1)] {
        let table = player_table(&format!("per player of {size} games"), size, clean);
        // The reliability line bins every pseudo-player the rates count, once.
        let counted: usize = table
            .lines()
            .take_while(|l| !l.starts_with("per player of"))
            .filter(|l| l.contains("-positive rate") && l.contains(", look closer: "))
            .map(|l| {
                let of = l.split(", look closer: ").nth(1).unwrap();
                of.split(['/', ' '])
                    .nth(1)
                    .unwrap()
                    .parse::<usize>()
                    .unwrap()
            })
            .sum();
        let reliability = table
            .lines()
            .find(|l| {
                l.starts_with(
                    "  reliability (predicted → observed share of engine-assisted pseudo-players):",
                )
            })
            .unwrap_or_else(|| panic!("no reliability line: {table}"));
        let binned: usize = reliability
            .split('(')
            .skip(2)
            .map(|b| b.split(')').next().unwrap().parse::<usize>().unwrap())
            .sum();
        assert!(counted >= clean, "{table}");
        assert_eq!(binned, counted, "{reliability}");
        // Too few clean players to fit their tail, and the table says so.
        assert!(
            table.contains("from a normal fitted to the clean players' logits: none (no kind of input has 10 clean players)"),
            "{table}"
        );
        // The highest ones named, each with `size` sides, never both sides of one game.
        let named: Vec<&str> = table
            .lines()
            .take_while(|l| !l.contains("player-level AUC"))
            .filter(|l| l.contains("a highest clean pseudo-player"))
            .collect();
        assert!(!named.is_empty(), "{table}");
        for line in named {
            let members = line.split("; ").nth(1).unwrap();
            let games: Vec<&str> = members
                .split(", ")
                .map(|m| m.split(' ').next().unwrap())
                .collect();
            assert_eq!(games.len(), size, "{line}");
            let mut unique = games.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), size, "one game twice in {line}");
            both_colours |= members.contains(" White ") && members.contains(" Black ");
        }
    }
    assert!(both_colours, "a real player plays both colours: {text}");
    // The same pseudo-players read again with their rating withheld, at the unrated
    // kinds' thresholds: as many clean ones (every side here is rated), each read by an
    // unrated kind.
    let withheld_words = "pooled, read with their rating withheld (a file without Elo tags), at the unrated model's thresholds";
    for (size, clean) in [(5, 5), (10, 1)] {
        let table = player_table(
            &format!(
                "per player of {size} games (pseudo-players: {size} game sides of one kind, humans of similar rating on one scale (online or over the board), {withheld_words}):"
            ),
            size,
            clean,
        );
        let named: Vec<&str> = table
            .lines()
            .take_while(|l| !l.contains("player-level AUC"))
            .filter(|l| l.contains("a highest clean pseudo-player"))
            .collect();
        assert!(!named.is_empty(), "{table}");
        for line in named {
            assert!(line.contains(" (unrated, "), "{line}");
        }
    }
    // Real players: the 3 of the split's 18 clean games' players with 2 or more of them
    // (3 + 2 + 2 games), each assessed on their own games pooled.
    let out = eval("--real-player-games", "2");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let real = text
        .split("real players of 2 or more clean games")
        .nth(1)
        .unwrap_or_else(|| panic!("no real players: {text}"));
    assert!(real.contains("3 players, 7 games in all"), "{real}");
    assert!(real.contains("look closer or above: 0/3 "), "{real}");
    let named: Vec<&str> = real
        .lines()
        .filter(|l| l.contains("a highest real player"))
        .collect();
    let games: usize = named
        .iter()
        .map(|l| {
            let before = l.split(" games, rated").next().unwrap();
            before
                .rsplit(", ")
                .next()
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!((named.len(), games), (3, 7), "{real}");
    // And read with their rating withheld, by the unrated kinds.
    let real = text
        .split("real players of 2 or more clean games (all their games pooled, read with their rating withheld (a file without Elo tags), at the unrated model's thresholds;")
        .nth(1)
        .unwrap_or_else(|| panic!("no real players with the rating withheld: {text}"));
    assert!(real.contains(" 3 players, 7 games in all"), "{real}");
    let named: Vec<&str> = real
        .lines()
        .filter(|l| l.contains("a highest real player"))
        .collect();
    assert_eq!(named.len(), 3, "{real}");
    assert!(named.iter().all(|l| l.contains(" (unrated, ")), "{real}");
    // A player is read as one from 2 games (with a rating): pseudo-players of 2 are
    // measured too, of 1 (a game side) refused.
    let out = eval("--player-games", "2");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("per player of 2 games"),
        "{}",
        stdout(&out)
    );
    let out = eval("--player-games", "1");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("2 or more"), "{}", stderr(&out));
}

/// `fairsight assess depth ARGS`, which must succeed: its output and the cells of the
/// first table's rows (the second gives the weaker engines' matched AUCs).
fn depth_study(args: &[&str]) -> (String, Vec<Vec<String>>) {
    let out = fairsight(&[&["assess", "depth"], args].concat());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = text.split("\nweaker engines against").next().unwrap();
    let rows = first
        .lines()
        .filter(|l| l.starts_with("| corpus"))
        .map(|l| l.split('|').map(|c| c.trim().to_owned()).collect())
        .collect();
    (text, rows)
}

/// The depth study of a full-network folder against the main corpus as the reference:
/// two rows, the defaults' (lite) and the full network's, over the same positions and
/// sides; its output, rows and (engine-assisted, human) sides.
fn against_the_corpus(folder: &str) -> (String, Vec<Vec<String>>, (usize, usize)) {
    let (text, rows) = depth_study(&["--reference", "corpus", "--corpus", folder]);
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[0][1].starts_with("corpus (") && rows[0][1].contains("lite"),
        "{text}"
    );
    assert!(rows[1][1].contains("stockfish-19-single"), "{text}");
    assert_eq!(rows[0][2..4], rows[1][2..4], "{text}");
    let sides: Vec<usize> = rows[0][3]
        .split(" / ")
        .map(|n| n.parse().unwrap())
        .collect();
    (text, rows, (sides[0], sides[1]))
}

#[test]
fn the_depth_study_compares_the_same_sides_at_each_setting() {
    // The committed depth study's folders: the same 40 games at the defaults and at depth
    // 18. Every side of one setting is matched with the same side of the other.
    let (text, rows) = depth_study(&[
        "--corpus",
        "corpus/depth/d14",
        "--corpus",
        "corpus/depth/d18",
    ]);
    assert!(text.contains("the same 74 game sides"), "{text}");
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0][1].contains("depth 14") && rows[1][1].contains("depth 18"));
    for cells in &rows {
        let row = cells.join(" | ");
        // The positions of the games compared (the 37 games with a side in both).
        assert_eq!(cells[2], "1338", "{row}");
        assert_eq!(cells[3], "38 / 36", "{row}");
        // Every AUC is a number in [0, 1], but the switched sides' (none in this slice).
        assert_eq!((cells[8].as_str(), cells[9].as_str()), ("-", "-"), "{row}");
        for c in cells[4..8].iter().chain(&cells[10..cells.len() - 1]) {
            let v: f64 = c.parse().unwrap_or_else(|_| panic!("{row}"));
            assert!((0.0..=1.0).contains(&v), "{row}");
        }
    }
    // The second slice against the main corpus as the reference: its games are matched
    // with the records they were cut from (`SliceOf`), no game analysed again; the first
    // slice's games, cut shorter than their records, are left out.
    let (text, rows, (engines, humans)) = against_the_corpus("corpus/depth/full14");
    assert!(text.contains("sides left out"), "{text}");
    assert!(engines >= 40 && humans >= 40, "{text}");
    for row in &rows {
        // The weaker engines' matched AUC is a number.
        assert!(row[7].parse::<f64>().is_ok(), "{text}");
    }

    // The third slice: switched sides over the board against clean humans of their band,
    // with the full network. Only switched sides are engine-assisted here, so the
    // combination over all of them is the switched column's; the top and weaker engines'
    // columns have no number.
    let (text, rows, (switched, humans)) = against_the_corpus("corpus/depth/switched-full14");
    assert!(switched >= 55 && humans >= 45, "{text}");
    for row in &rows {
        assert_eq!((row[5].as_str(), row[6].as_str()), ("-", "-"), "{text}");
        assert_eq!(row[4], row[8], "{text}");
        // The switched sides' combination and their cross-validated lateOdds.
        for c in &row[8..10] {
            let v: f64 = c.parse().unwrap_or_else(|_| panic!("{text}"));
            assert!((0.5..=1.0).contains(&v), "{text}");
        }
    }

    // The fourth slice: switches to an engine of another make, analysed into a folder of
    // their own, read as one setting with the third slice's folder (its humans): more
    // switched sides than the third slice alone, the same humans.
    let (text, rows, (joined, joined_humans)) =
        against_the_corpus("corpus/depth/switched-full14,corpus/depth/ethereal-full14");
    assert!(joined >= switched + 40 && joined_humans == humans, "{text}");
    assert!(
        rows[1][1].contains("switched-full14, corpus/depth/ethereal-full14 ("),
        "{text}"
    );
    // One source of them against the humans: the fourth slice's switched sides alone.
    let (text, rows) = depth_study(&[
        "--reference",
        "corpus",
        "--corpus",
        "corpus/depth/switched-full14,corpus/depth/ethereal-full14",
        "--source",
        "slice3-human",
        "--source",
        "slice4-switched",
    ]);
    assert_eq!(rows.len(), 2, "{text}");
    for row in &rows {
        assert_eq!(
            row[3],
            format!("{} / {humans}", joined - switched),
            "{text}"
        );
    }
    // Folders of two settings are not one.
    let out = fairsight(&[
        "assess",
        "depth",
        "--corpus",
        "corpus/depth/d14,corpus/depth/d18",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("one setting's folders must share it"), "{err}");

    // A folder with no games is an error, not an empty table.
    let empty = std::env::temp_dir().join(format!("fairsight-depth-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let out = fairsight(&["assess", "depth", "--corpus", empty.to_str().unwrap()]);
    assert!(!out.status.success());
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn bench_refuses_a_bad_compare_spec_before_measuring() {
    let out = fairsight(&["bench", "--compare", "depth=deep"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--compare depth=deep"), "{err}");
    // Nothing was measured.
    assert!(!String::from_utf8_lossy(&out.stdout).contains("import:"));
}

/// A shipped model file (`models/NAME`) moved to other settings' limit, so that it
/// applies to a shallow test run; renamed, written to the test folder.
fn model_at_depth(name: &str, depth: u32) -> PathBuf {
    let mut m = read_json(&root().join("models").join(name));
    m["settings"]["limit"] = serde_json::json!({ "depth": depth });
    if m.get("name").is_some() {
        m["name"] = format!(
            "{} (test copy at depth {depth})",
            m["name"].as_str().unwrap()
        )
        .into();
    }
    if m.get("source").is_some() {
        m["source"] = format!(
            "{} (test copy at depth {depth})",
            m["source"].as_str().unwrap()
        )
        .into();
    }
    let out = tmp(&format!("depth{depth}-{name}"));
    std::fs::write(&out, m.to_string()).unwrap();
    out
}

/// `fairsight merge ARGS`.
fn merge(args: &[&Path], more: &[&str]) -> Output {
    let mut all: Vec<&str> = vec!["merge"];
    all.extend(args.iter().map(|p| p.to_str().unwrap()));
    all.extend_from_slice(more);
    fairsight(&all)
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn three_shards_merge_into_the_whole_runs_report_byte_for_byte() {
    require_node_engine();
    // Seven games over two files, a failed one among them (game 6), one player in four
    // games spread over every shard; the shipped models moved to depth 4 so that the
    // classifier, the calibration (with entered ratings) and the assessment all apply
    // and the merge must rebuild players, screening, assessments and verdicts.
    let (calibration, model, assessment) = (
        model_at_depth("regan-calibration.json", 4),
        model_at_depth("move-classifier.json", 4),
        model_at_depth("assessment.json", 4),
    );
    let files = [
        fixture("selfplay.pgn"),
        fixture("three-games-one-illegal.pgn"),
    ];
    let models = [
        "--calibration",
        calibration.to_str().unwrap(),
        "--model",
        model.to_str().unwrap(),
        "--assessment",
        assessment.to_str().unwrap(),
    ];
    let run = |out: &Path, shard: Option<&str>, depth: &str| {
        let mut args: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
        args.extend(["--depth", depth, "--jobs", "2", "--rating"]);
        args.extend(["Stockfish 19 lite d8=2600", "--rating", "alice=1700"]);
        args.extend(models);
        let spec;
        if let Some(s) = shard {
            spec = format!("--shard={s}");
            args.push(&spec);
        }
        // Every run streams its report too (a shard's beside its JSON report).
        let streamed = out.with_extension("ndjson");
        args.extend(["--ndjson", streamed.to_str().unwrap()]);
        analyze_json(out, &args)
    };
    let whole = tmp("shards-whole.json");
    let w = run(&whole, None, "4");
    // The streamed report's games and players are the whole report's, models and all.
    let lines = ndjson_lines(&std::fs::read(tmp("shards-whole.ndjson")).unwrap());
    let of = |kind: &str| -> Value {
        let items = lines.iter().filter(|(k, _)| k == kind);
        Value::Array(items.map(|(_, v)| v.clone()).collect())
    };
    assert_eq!(of("game"), w["games"]);
    assert_eq!(of("player"), w["players"]);
    assert_eq!(of("head")[0]["assessment"], w["assessment"]);
    let shards: Vec<PathBuf> = (1..=3)
        .map(|k| tmp(&format!("shards-{k}-of-3.json")))
        .collect();
    for (k, out) in shards.iter().enumerate() {
        let r = run(out, Some(&format!("{}/3", k + 1)), "4");
        let indices: Vec<u64> = r["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["index"].as_u64().unwrap())
            .collect();
        let expected: Vec<u64> = (0..7).filter(|g| g % 3 == k as u64).collect();
        assert_eq!(
            indices,
            expected,
            "shard {}/3 keeps the games' numbers",
            k + 1
        );
        assert_eq!(r["shard"]["games"], 7);
        assert_eq!(r["shard"]["sources"][0]["name"], "selfplay.pgn");
        // A shard's player aggregates cover its games only: the merge rebuilds them.
        assert_ne!(r["players"], w["players"]);
    }
    // The whole run exercises what the merge must rebuild.
    assert!(w["assessment"].is_string() && w["calibration"].is_string());
    assert!(w["classifier"].is_string());
    assert!(w.get("shard").is_none());
    let sf = &w["players"][0];
    assert_eq!(sf["games"], 8);
    assert_eq!(sf["rating"], 2600.0);
    assert!(
        sf["zScores"].is_object() && sf["assessment"].is_object(),
        "{sf}"
    );
    assert!(w["games"][5]["error"].is_string());

    let merged = tmp("shards-merged.json");
    let mut reordered: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    reordered.rotate_left(1);
    let mut more = vec!["--quiet", "--json", merged.to_str().unwrap()];
    more.extend(models);
    let o = merge(&reordered, &more);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read(&merged).unwrap() == std::fs::read(&whole).unwrap(),
        "the merged report differs from the whole run's"
    );

    // Refusals, each with exit code 2 and the reason.
    let refused = |paths: &[&Path], extra: &[&str], why: &str| {
        let mut more = vec!["--json", "-"];
        more.extend_from_slice(extra);
        let o = merge(paths, &more);
        assert_eq!(o.status.code(), Some(2), "{why}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{why}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "nothing written when refused");
    };
    let [s1, s2, s3] = [&shards[0], &shards[1], &shards[2]].map(PathBuf::as_path);
    // A shard left out: which, and its games (1-based).
    refused(&[s1, s2], &models, "shard 3/3 missing (2 game(s): 3, 6)");
    // A game twice (a shard's report given twice).
    refused(&[s1, s2, s3, s1], &models, "are both shard 1/3");
    // Not a shard's report; not a report at all.
    refused(&[s1, s2, &whole], &models, "is not a shard's report");
    let junk = tmp("shards-junk.json");
    std::fs::write(&junk, "{\"schema\": 1").unwrap();
    refused(
        &[s1, &junk],
        &models,
        "shards-junk.json: not a fairsight JSON report",
    );
    refused(&[s1, &tmp("shards-none.json")], &models, "cannot read");
    // The models the shards were made with must be given again.
    refused(&[s1, s2, s3], &[], "give merge the same --model as analyze");
    // Another setting: a real shard at depth 3.
    let other = tmp("shards-3-of-3-depth3.json");
    run(&other, Some("3/3"), "3");
    refused(&[s1, s2, &other], &models, "were made with other settings");
    // Another input file, or a game that is not its shard's.
    let mut r = read_json(s3);
    r["shard"]["sources"][1]["fnv1a"] = "0000000000000000".into();
    let edited = tmp("shards-3-of-3-edited.json");
    std::fs::write(&edited, r.to_string()).unwrap();
    refused(
        &[s1, s2, &edited],
        &models,
        "were made with other input files",
    );
    let mut r = read_json(s3);
    r["games"][0]["index"] = 1.into();
    std::fs::write(&edited, r.to_string()).unwrap();
    refused(
        &[s1, s2, &edited],
        &models,
        "is not in shard 3/3 of 7 games",
    );

    // The shards' streamed reports merge too, a game at a time: into the whole run's
    // streamed report and its JSON report, byte for byte.
    let streamed: Vec<PathBuf> = shards.iter().map(|p| p.with_extension("ndjson")).collect();
    let end = ndjson_lines(&std::fs::read(&streamed[2]).unwrap());
    let (kind, last) = end.last().unwrap();
    assert_eq!(kind, "end");
    assert_eq!(
        last["shard"]["index"], 3,
        "a shard's end line names it: {last}"
    );
    assert_eq!(last["shard"]["games"], 7);
    let whole_streamed = tmp("shards-whole.ndjson");
    assert!(
        ndjson_lines(&std::fs::read(&whole_streamed).unwrap())
            .last()
            .is_some_and(|(k, v)| k == "end" && v.get("shard").is_none()),
        "one run's end line has no shard record"
    );
    let mut reordered: Vec<&Path> = streamed.iter().map(PathBuf::as_path).collect();
    reordered.rotate_left(2);
    let (merged_streamed, merged_json) = (tmp("shards-merged.ndjson"), tmp("shards-merged-2.json"));
    let mut more = vec!["--quiet", "--ndjson", merged_streamed.to_str().unwrap()];
    more.extend(["--json", merged_json.to_str().unwrap()]);
    more.extend(models);
    let o = merge(&reordered, &more);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read(&merged_streamed).unwrap() == std::fs::read(&whole_streamed).unwrap(),
        "the streamed shards' merge differs from the whole run's streamed report"
    );
    assert!(
        std::fs::read(&merged_json).unwrap() == std::fs::read(&whole).unwrap(),
        "the streamed shards' merged JSON differs from the whole run's"
    );
    // And the whole shards' merge writes the streamed report as well.
    let from_json = tmp("shards-merged-from-json.ndjson");
    let mut more = vec!["--quiet", "--ndjson", from_json.to_str().unwrap()];
    more.extend(models);
    let o = merge(&[s1, s2, s3], &more);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(&from_json).unwrap() == std::fs::read(&whole_streamed).unwrap());

    // Streamed refusals: a mix of kinds, a shard cut short, a game lost, a shard left
    // out, the models not given again; none leaves a merged file behind.
    let [n1, n2, n3] = [&streamed[0], &streamed[1], &streamed[2]].map(PathBuf::as_path);
    let refused_streamed = |paths: &[&Path], extra: &[&str], why: &str| {
        let out = tmp("shards-refused.ndjson");
        let _ = std::fs::remove_file(&out);
        let mut more = vec!["--ndjson", out.to_str().unwrap()];
        more.extend_from_slice(extra);
        let o = merge(paths, &more);
        assert_eq!(o.status.code(), Some(2), "{why}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{why}: {}", stderr(&o));
        assert!(!out.exists(), "{why}: no merged file when refused");
        let left: Vec<String> = std::fs::read_dir(out.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with("shards-refused.ndjson.partial"))
            .collect();
        assert!(
            left.is_empty(),
            "{why}: a partial file left behind: {left:?}"
        );
    };
    refused_streamed(
        &[n1, n2, s3],
        &models,
        "is a streamed report (--ndjson) and",
    );
    let text = std::fs::read_to_string(n3).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cut = tmp("shards-3-of-3-cut.ndjson");
    std::fs::write(&cut, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
    refused_streamed(
        &[n1, n2, &cut],
        &models,
        "shards-3-of-3-cut.ndjson has no end line",
    );
    // Game 6 (its second game line) taken out: the end line still counts it.
    let lost = tmp("shards-3-of-3-lost.ndjson");
    let kept: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 2)
        .map(|(_, l)| *l)
        .collect();
    std::fs::write(&lost, kept.join("\n") + "\n").unwrap();
    refused_streamed(&[n1, n2, &lost], &models, "lacks game 6 of its shard");
    refused_streamed(&[n1, n2], &models, "shard 3/3 missing (2 game(s): 3, 6)");
    refused_streamed(&[n1, n2, n3], &[], "give merge the same --model as analyze");
}

/// An engine that answers the handshake and nothing else: enough for runs that search
/// nothing.
const HANDSHAKE_ONLY_ENGINE: &str = r#"
while read -r line; do
  case "$line" in
    uci) echo "id name Handshake only"; echo uciok ;;
    isready) echo readyok ;;
    quit) exit 0 ;;
  esac
done
"#;

/// A generated PGN of `n` games between 150 players (each plays both colours), of 10
/// to 39 plies of one opening, with clocks; every 97th game has an illegal move.
fn generated_pgn(n: usize) -> String {
    const MOVES: [&str; 40] = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3",
        "d6", "c3", "O-O", "h3", "Nb8", "d4", "Nbd7", "c4", "c6", "cxb5", "axb5", "Nc3", "Bb7",
        "Bg5", "b4", "Nb1", "h6", "Bh4", "c5", "dxe5", "Nxe4", "Bxe7", "Qxe7", "exd6", "Qf6",
        "Nbd2", "Nxd6",
    ];
    let mut pgn = String::new();
    for i in 0..n {
        let (white, black) = (i % 150, (i * 7 + 1) % 150);
        pgn += &format!(
            "[Event \"Generated {i}\"]\n[White \"Player {white}\"]\n[Black \"Player {black}\"]\n\
             [TimeControl \"180+2\"]\n[Result \"*\"]\n\n"
        );
        let plies = 10 + i % 30;
        for (k, m) in MOVES[..plies].iter().enumerate() {
            if k % 2 == 0 {
                pgn += &format!("{}. ", k / 2 + 1);
            }
            let m = if i % 97 == 96 && k == 5 { "Ke2" } else { m };
            pgn += &format!("{m} {{ [%clk 0:02:{:02}] }} ", 59 - k);
        }
        pgn += "*\n\n";
    }
    pgn
}

/// Runs `fairsight ARGS` with stdin from `input` (when given) and stdout and stderr to
/// files; returns its exit code, stdout, stderr and peak resident memory in bytes (the
/// child's own, from `wait4`).
#[cfg(unix)]
#[allow(clippy::zombie_processes)] // the child is reaped by wait4, which gives its peak memory
fn fairsight_measured(
    args: &[&str],
    input: Option<&Path>,
    name: &str,
) -> (i32, Vec<u8>, String, u64) {
    use std::process::Stdio;
    let (out, err) = (
        tmp(&format!("{name}.stdout")),
        tmp(&format!("{name}.stderr")),
    );
    let child = Command::new(env!("CARGO_BIN_EXE_fairsight"))
        .args(args)
        .current_dir(root())
        .stdin(match input {
            Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
            None => Stdio::null(),
        })
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("fairsight runs");
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, with valid pointers to locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    assert!(libc::WIFEXITED(status), "fairsight was killed: {status}");
    let rss = u64::try_from(usage.ru_maxrss).unwrap() * 1024; // kB on Linux
    (
        libc::WEXITSTATUS(status),
        std::fs::read(&out).unwrap(),
        std::fs::read_to_string(&err).unwrap(),
        rss,
    )
}

/// The lines of a streamed report, each with its kind taken out.
fn ndjson_lines(bytes: &[u8]) -> Vec<(String, Value)> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            let kind = v.as_object_mut().unwrap().remove("kind").unwrap();
            (kind.as_str().unwrap().to_owned(), v)
        })
        .collect()
}

#[test]
#[cfg(unix)]
fn a_streamed_run_of_10000_games_holds_little_memory_and_writes_every_game_in_order() {
    // Issue 14: a 9,870-game file with every ply excluded (no search) took 1.55 GB when
    // every game and its report were held to the end.
    let engine = tmp("handshake-only.sh");
    std::fs::write(&engine, HANDSHAKE_ONLY_ENGINE).unwrap();
    let engine = format!("bash {}", engine.display());
    let pgn = tmp("generated-10000.pgn");
    std::fs::write(&pgn, generated_pgn(10_000)).unwrap();
    let ndjson = tmp("generated-10000.ndjson");
    let no_search = ["--engine", &engine, "--min-move", "1000", "--quiet"];
    let mut args = vec![
        "analyze",
        pgn.to_str().unwrap(),
        "--ndjson",
        ndjson.to_str().unwrap(),
    ];
    args.extend(no_search);
    let (code, _, err, rss) = fairsight_measured(&args, None, "generated-10000");
    assert_eq!(code, 0, "{err}");
    assert!(
        rss < 300_000_000,
        "peak memory {} MB for 10,000 games",
        rss / 1_000_000
    );
    // Each bad game is named on stderr with its number and line; the others go on.
    assert!(
        err.contains("skipped game 97 (Player 96 - Player 73), line 775: illegal move 3... Ke2"),
        "{err}"
    );
    assert_eq!(err.matches("skipped game").count(), 103);

    // In two streamed shards, merged a game at a time: the same lines, in bounded memory.
    // (Before this test reads the lines: a child's peak memory as wait4 gives it can
    // start from this process's.)
    let mut parts = Vec::new();
    for k in 1..=2 {
        let part = tmp(&format!("generated-10000-{k}-of-2.ndjson"));
        let spec = format!("{k}/2");
        let mut args = vec!["analyze", pgn.to_str().unwrap(), "--shard", &spec];
        args.extend(["--ndjson", part.to_str().unwrap()]);
        args.extend(no_search);
        let (code, _, err, _) = fairsight_measured(&args, None, "generated-10000-shard");
        assert_eq!(code, 0, "{err}");
        parts.push(part);
    }
    let merged = tmp("generated-10000-merged.ndjson");
    let args = vec![
        "merge",
        parts[1].to_str().unwrap(),
        parts[0].to_str().unwrap(),
        "--ndjson",
        merged.to_str().unwrap(),
        "--quiet",
    ];
    let (code, _, err, rss) = fairsight_measured(&args, None, "generated-10000-merge");
    assert_eq!(code, 0, "{err}");
    assert!(
        rss < 300_000_000,
        "peak memory {} MB merging 10,000 games",
        rss / 1_000_000
    );
    assert!(
        std::fs::read(&merged).unwrap() == std::fs::read(&ndjson).unwrap(),
        "the merged shards give other lines than one run"
    );

    let streamed = std::fs::read(&ndjson).unwrap();
    let lines = ndjson_lines(&streamed);
    assert_eq!(lines.len(), 1 + 10_000 + 150 + 1);
    assert_eq!(lines[0].0, "head");
    assert_eq!(lines[0].1["settings"]["minMove"], 1000);
    assert_eq!(lines[0].1["engine"]["name"], "Handshake only");
    for (i, (kind, g)) in lines[1..=10_000].iter().enumerate() {
        assert_eq!(kind, "game");
        assert_eq!(g["index"], i, "games in input order");
        assert_eq!(g["tags"]["Event"], format!("Generated {i}"));
        if i % 97 == 96 {
            assert!(
                g["error"]
                    .as_str()
                    .unwrap()
                    .contains("illegal move 3... Ke2"),
                "{g}"
            );
        } else {
            assert!(g["error"].is_null(), "{g}");
            let plies = g["plies"].as_array().unwrap();
            assert_eq!(plies.len(), 10 + i % 30);
            assert!(
                plies
                    .iter()
                    .all(|p| p["excluded"] == "early" && p["searched"] == false)
            );
        }
    }
    let players: Vec<&Value> = lines[10_001..10_151]
        .iter()
        .map(|(k, p)| {
            assert_eq!(k, "player");
            p
        })
        .collect();
    // Player 0 plays White in games 0, 150, ... and Black wherever 7i + 1 = 0 (mod 150).
    let games_of = |n: usize| {
        (0..10_000)
            .filter(|i| i % 97 != 96 && (i % 150 == n || (i * 7 + 1) % 150 == n))
            .count()
    };
    assert_eq!(players[0]["name"], "Player 0");
    assert_eq!(players[0]["games"], games_of(0));
    assert!(players[0]["excluded"]["early"].as_u64().unwrap() > 0);
    assert_eq!(lines[10_151].0, "end");
    assert_eq!(
        lines[10_151].1,
        serde_json::json!({"games": 10_000, "players": 150})
    );

    // The same games from stdin, the streamed report to stdout: the same lines.
    let mut args = vec!["analyze", "-", "--ndjson", "-"];
    args.extend(no_search);
    let (code, out, err, _) = fairsight_measured(&args, Some(&pgn), "generated-10000-stdin");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("-: skipped game 97 "), "{err}");
    assert!(out == streamed, "stdin gives other lines than the file");
}

#[test]
fn the_streamed_reports_games_and_players_are_the_whole_reports() {
    // No search: the lines of a streamed run equal the parts of the whole report, with
    // the whole report asked for in the same run and without it (analysed moves and
    // every model: `three_shards_merge_into_the_whole_runs_report_byte_for_byte`).
    let engine = tmp("handshake-only-2.sh");
    std::fs::write(&engine, HANDSHAKE_ONLY_ENGINE).unwrap();
    let engine = format!("bash {}", engine.display());
    let pgn = tmp("generated-300.pgn");
    std::fs::write(&pgn, generated_pgn(300)).unwrap();
    let (alone, both, json) = (
        tmp("g300-alone.ndjson"),
        tmp("g300-both.ndjson"),
        tmp("g300.json"),
    );
    let common = [
        pgn.to_str().unwrap(),
        "--engine",
        &engine,
        "--min-move",
        "1000",
        "--quiet",
    ];
    let mut args = vec!["analyze", "--ndjson", alone.to_str().unwrap()];
    args.extend(common);
    let o = fairsight(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut args = vec![
        "analyze",
        "--ndjson",
        both.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend(common);
    let o = fairsight(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let streamed = std::fs::read(&alone).unwrap();
    assert!(streamed == std::fs::read(&both).unwrap());
    let r = read_json(&json);
    let lines = ndjson_lines(&streamed);
    let of = |kind: &str| -> Vec<Value> {
        lines
            .iter()
            .filter(|(k, _)| k == kind)
            .map(|(_, v)| v.clone())
            .collect()
    };
    assert_eq!(Value::Array(of("game")), r["games"]);
    assert_eq!(Value::Array(of("player")), r["players"]);
    let head = &of("head")[0];
    for key in [
        "schema",
        "settings",
        "engine",
        "calibration",
        "classifier",
        "assessment",
    ] {
        assert_eq!(head[key], r[key], "{key}");
    }
    assert_eq!(r["players"].as_array().unwrap().len(), 150);
    assert!(r["games"][96]["error"].is_string());
}

/// The quick assessment moved to a node budget a test can afford.
fn quick_model_at_nodes(nodes: u64) -> PathBuf {
    let mut m = read_json(&root().join("models/quick-assessment.json"));
    assert_eq!(
        m["settings"]["multipv"], 2,
        "the quick model is fitted at 2 lines"
    );
    m["settings"]["limit"] = serde_json::json!({ "nodes": nodes });
    m["name"] = format!(
        "{} (test copy at {nodes} nodes)",
        m["name"].as_str().unwrap()
    )
    .into();
    let out = tmp(&format!("nodes{nodes}-quick-assessment.json"));
    std::fs::write(&out, m.to_string()).unwrap();
    out
}

#[test]
#[cfg_attr(no_node_stockfish, ignore = "needs node_modules/stockfish: run npm ci")]
fn the_quick_screen_ranks_players_and_the_full_test_analyses_only_the_flagged_players_games() {
    require_node_engine();
    let model = quick_model_at_nodes(2000);
    let input = root().join("samples/club-blitz.pgn");
    let common = [
        input.to_str().unwrap(),
        "--mode",
        "quick",
        "--nodes",
        "2000",
        "--jobs",
        "2",
        "--assessment",
        model.to_str().unwrap(),
    ];
    // The quick pass alone: 2 lines at the node budget, the quick assessment applied, the
    // table marked quick.
    let quick_out = tmp("quick.json");
    let mut args = vec!["analyze"];
    args.extend(common);
    args.extend(["--json", quick_out.to_str().unwrap()]);
    let o = fairsight(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let q = read_json(&quick_out);
    assert_eq!(q["settings"]["limit"]["nodes"], 2000);
    assert_eq!(q["settings"]["multipv"], 2);
    assert!(
        q["assessment"].as_str().unwrap().contains("quick"),
        "{}",
        q["assessment"]
    );
    let players = q["players"].as_array().unwrap();
    assert!(players.len() >= 4);
    assert!(
        players
            .iter()
            .all(|p| p["assessment"]["probability"].is_f64())
    );
    let table = stdout(&o);
    assert!(
        table.contains("quick screen (2000 nodes, 2 lines"),
        "{table}"
    );
    assert!(table.contains("(quick)"), "{table}");

    // Then the full test (depth 4 here) of the two players ranked highest.
    let full_out = tmp("quick-full.json");
    let mut args = vec!["analyze"];
    args.extend(common);
    args.extend(["--full-for", "2", "--depth", "4"]);
    args.extend(["--json", full_out.to_str().unwrap()]);
    let o = fairsight(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let f = read_json(&full_out);
    let mut ranked: Vec<(f64, String)> = players
        .iter()
        .map(|p| {
            (
                p["assessment"]["probability"].as_f64().unwrap(),
                p["name"].as_str().unwrap().to_lowercase(),
            )
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let top: Vec<String> = ranked.iter().take(2).map(|r| r.1.clone()).collect();
    let screen = f["quickScreen"]["players"].as_array().unwrap();
    assert_eq!(
        screen.len(),
        players.len(),
        "every player keeps a quick verdict"
    );
    let flagged: Vec<String> = screen
        .iter()
        .filter(|p| p["fullTest"] == true)
        .map(|p| p["name"].as_str().unwrap().to_lowercase())
        .collect();
    assert_eq!(flagged, top, "the two highest quick probabilities");
    // The full report holds exactly the flagged players' games, searched at depth 4
    // with 4 lines, numbered as in the input.
    let expected: Vec<u64> = q["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| {
            ["white", "black"].iter().any(|s| {
                let name = g["sides"][s]["player"].as_str().unwrap().to_lowercase();
                top.contains(&name)
            })
        })
        .map(|g| g["index"].as_u64().unwrap())
        .collect();
    let got: Vec<u64> = f["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["index"].as_u64().unwrap())
        .collect();
    assert!(!got.is_empty() && got.len() < q["games"].as_array().unwrap().len());
    assert_eq!(got, expected);
    assert_eq!(f["settings"]["limit"]["depth"], 4);
    assert_eq!(f["settings"]["multipv"], 4);
    // --assessment was the quick pass's model: the full test takes the shipped one (which
    // applies at depth 14 only, so none here), never the quick model.
    assert_eq!(f["assessment"], Value::Null, "{}", f["assessment"]);
    // Four lines in the full test, two at most in the quick pass.
    let most_lines = |r: &Value| {
        r["games"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["plies"].as_array().unwrap())
            .map(|p| p["lines"].as_array().unwrap().len())
            .max()
            .unwrap()
    };
    assert_eq!(most_lines(&f), 4);
    assert_eq!(most_lines(&q), 2);
    let table = stdout(&o);
    assert!(table.contains("no: quick verdict"), "{table}");
    assert!(table.contains("the full test"), "{table}");
    assert!(stderr(&o).contains("full test: "), "{}", stderr(&o));
}

#[test]
fn full_for_needs_the_quick_mode_and_a_clear_rule() {
    let input = root().join("samples/club-blitz.pgn");
    let input = input.to_str().unwrap();
    for (args, message) in [
        (
            vec![input, "--full-for", "2"],
            "--full-for needs --mode quick",
        ),
        (
            vec![input, "--mode", "quick", "--full-for", "0"],
            "--full-for 0",
        ),
        (
            vec![input, "--mode", "quick", "--full-for", "p>=2"],
            "--full-for p>=2",
        ),
        (vec!["-", "--mode", "quick", "--full-for", "3"], "not stdin"),
    ] {
        let mut all = vec!["analyze"];
        all.extend(args);
        let o = fairsight(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert!(stderr(&o).contains(message), "{all:?}: {}", stderr(&o));
    }
}

/// The old walk of the file's trees (`[feature, threshold, left, right]`, a leaf
/// `[-1, class, 0, 0]`): the reference smartcore's evaluation must match bit for bit.
fn walk_trees(trees: &[Value], x: &[f64]) -> f64 {
    let votes: f64 = trees
        .iter()
        .map(|t| {
            let node = |i: usize| -> Vec<f64> {
                t[i].as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect()
            };
            let mut n = node(0);
            while n[0] >= 0.0 {
                n = node(if x[n[0] as usize] <= n[1] { n[2] } else { n[3] } as usize);
            }
            n[1]
        })
        .sum();
    votes / trees.len() as f64
}

#[test]
fn the_classifier_through_smartcore_scores_a_real_report_as_the_tree_walk_did() {
    // Real games rebuilt from the committed corpus at the defaults (no engine needed),
    // where the shipped move classifier applies: every candidate move's probability in
    // the report (smartcore's trees on an ndarray matrix of the game's moves) equals the
    // old tree walk of the file on that move's features, bit for bit.
    let o = fairsight(&[
        "corpus",
        "report",
        "--source",
        "tcec",
        "--source",
        "lichess-2025-05",
        "--limit",
        "1",
        "--json",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json = stdout(&o);
    let report = fairsight::Report::from_json(&json).unwrap();
    let model: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("models/move-classifier.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report.classifier.as_deref(), model["name"].as_str());
    let trees = model["model"]["trees"].as_array().unwrap();
    let columns: Vec<usize> = model["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            fairsight::fit::FEATURE_NAMES
                .iter()
                .position(|n| *n == f.as_str().unwrap())
                .unwrap()
        })
        .collect();
    let mut scored = 0;
    for g in &report.games {
        for (i, p) in g.plies.iter().enumerate() {
            let v = fairsight::fit::move_vector(&g.plies, i, g.variant, None);
            assert_eq!(v.is_some(), p.engine_probability.is_some(), "ply {i}");
            if let (Some(v), Some(prob)) = (v, p.engine_probability) {
                let x: Vec<f64> = columns.iter().map(|&c| v.values[c]).collect();
                assert_eq!(
                    prob.to_bits(),
                    walk_trees(trees, &x).to_bits(),
                    "ply {i}: {x:?}"
                );
                scored += 1;
            }
        }
    }
    assert!(scored >= 40, "{scored} candidate moves scored");
}

#[test]
fn a_player_of_one_game_is_assessed_as_that_game_side() {
    // Real games from the committed corpus, rebuilt without an engine: lichess players,
    // the switched copies of some of their games, and engines. A player of one game gets
    // the assessment of their one side (the signals only a single side has included),
    // so the player table and the game rows give the same answer; a player of two or
    // more games is read pooled.
    let json = tmp("one-game-players.json");
    let o = fairsight(&[
        "corpus",
        "report",
        "--source",
        "lichess-2025-05",
        "--source",
        "switched-lichess",
        "--source",
        "tcec",
        "--limit",
        "4",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = read_json(&json);
    let sides: Vec<(&str, &Value)> = report["games"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| {
            ["White", "Black"].map(|c| {
                (
                    g["tags"][c].as_str().unwrap(),
                    &g["sides"][c.to_lowercase()]["assessment"],
                )
            })
        })
        .collect();
    let (mut single, mut pooled) = (0, 0);
    for p in report["players"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let theirs: Vec<&Value> = sides
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, a)| *a)
            .collect();
        assert_eq!(theirs.len() as u64, p["games"].as_u64().unwrap(), "{name}");
        if p["assessment"].is_null() {
            continue;
        }
        if theirs.len() == 1 {
            assert_eq!(&p["assessment"], theirs[0], "{name}");
            single += 1;
        } else {
            pooled += 1;
        }
    }
    assert!(single >= 5 && pooled >= 2, "{single} {pooled}");
}
