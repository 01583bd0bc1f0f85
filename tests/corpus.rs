//! PGN import over the shared corpus of real-world test files (`../shared/data/test-pgns`,
//! collected from other PGN libraries' test suites). When the corpus is absent the tests
//! are ignored, with the reason in `cargo test`'s list (build.rs), except under CI (the
//! `CI` variable set), where they fail.

use std::fs;
use std::path::{Path, PathBuf};

use fairsight::pgn;
use fairsight::{Game, ImportError, ImportErrorKind, Side, Variant};

/// The corpus folder. Outside CI, build.rs has the tests that need it ignored when it is
/// absent (`no_shared_test_pgns`); here it is required, with a clear message.
fn corpus() -> PathBuf {
    shared("../shared/data/test-pgns")
}

/// A folder of the shared data beside the checkout, which must be there.
fn shared(path: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    assert!(
        dir.is_dir(),
        "{path} is missing: the shared data must be beside the checkout (under CI this fails; \
         elsewhere the tests needing it are ignored, see build.rs)"
    );
    dir
}

/// A corpus file as text (lossily, like a browser would decode it).
fn read(dir: &Path, file: &str) -> String {
    let bytes = fs::read(dir.join(file)).unwrap_or_else(|err| panic!("{file}: {err}"));
    String::from_utf8_lossy(&bytes).into_owned()
}

fn split(results: Vec<Result<Game, ImportError>>) -> (Vec<Game>, Vec<ImportError>) {
    let mut games = Vec::new();
    let mut errors = Vec::new();
    for result in results {
        match result {
            Ok(game) => games.push(game),
            Err(err) => errors.push(err),
        }
    }
    (games, errors)
}

fn event_lines(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("[Event ")).count()
}

#[test]
#[cfg_attr(no_shared_test_pgns, ignore = "needs ../shared/data/test-pgns")]
fn legal_examples_all_import() {
    let dir = corpus();
    let text = read(&dir, "rust-pgn-reader/examples_legal.pgn");
    let (games, errors) = split(pgn::import(&text));
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(games.len(), event_lines(&text));
    assert_eq!(games.len(), 100);
    for (i, game) in games.iter().enumerate() {
        assert_eq!(game.index, i);
        assert!(game.plies.iter().all(|p| p.line > game.line));
    }
    // One game was abandoned before a move, from a FEN start with Black to move.
    let empty: Vec<&Game> = games.iter().filter(|g| g.plies.is_empty()).collect();
    assert_eq!(empty.len(), 1);
    assert_eq!(empty[0].index, 62);
    assert!(empty[0].start_fen.contains(" b KQkq "));
    assert_eq!(empty[0].outcome.as_deref(), Some("1-0"));
}

#[test]
#[cfg_attr(no_shared_test_pgns, ignore = "needs ../shared/data/test-pgns")]
fn illegal_examples_fail_with_one_clear_error() {
    let dir = corpus();
    let text = read(&dir, "rust-pgn-reader/examples_illegal.pgn");
    let results = pgn::import(&text);
    assert_eq!(results.len(), event_lines(&text));
    assert_eq!(results.len(), 100);
    // The file is meant to make a validator fail, but only one of its games is illegal:
    // the other 99 replay legally, with every SAN written exactly as shakmaty writes it.
    let (games, errors) = split(results);
    assert_eq!(games.len(), 99);
    let [err] = errors.as_slice() else {
        panic!("expected one error, got {errors:#?}")
    };
    assert_eq!((err.index, err.line), (37, 833));
    assert_eq!(
        err.kind,
        ImportErrorKind::IllegalMove {
            move_number: 1,
            side: Side::Black,
            san: "b4".to_owned(),
            reason: "illegal".to_owned(),
        }
    );
    assert_eq!(
        err.to_string(),
        "game 38 (penguingim1 - Nyezhmetdinov0), line 833: illegal move 1... b4"
    );
    // The games after it are unaffected.
    assert!(games.iter().any(|g| g.index == 38));
    assert_eq!(games.last().map(|g| g.index), Some(99));
}

#[test]
#[cfg_attr(no_shared_test_pgns, ignore = "needs ../shared/data/test-pgns")]
fn crlf_file_without_blank_lines_has_fifteen_games() {
    let dir = corpus();
    let text = read(
        &dir,
        "pgnmentor_raw/WorldChamp2018_raw_crlf_no_blank_lines.pgn",
    );
    let (games, errors) = split(pgn::import(&text));
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(games.len(), 15);
    for game in &games {
        assert!(game.tag("Event").is_some_and(|e| e.starts_with("WCh")));
        assert!(game.plies.len() > 20, "game {} is short", game.index);
        assert!(game.outcome.is_some());
        // Tags end on the line before the movetext.
        assert_eq!(game.plies[0].line, game.line + game.tags.len() as u32);
    }
    assert_eq!(games[0].player(Side::White), "Caruana, Fabiano");
    assert_eq!(games[0].plies.len(), 229);
    assert_eq!(games[0].plies[228].san, "Ra8");
    assert_eq!(games[0].plies[228].line, 35);
    assert_eq!(games[0].plies[0].line, 18);
}

#[test]
#[cfg_attr(no_shared_test_pgns, ignore = "needs ../shared/data/test-pgns")]
fn variants_are_refused_by_name() {
    let dir = corpus();
    let refused = |file: &str| -> Vec<String> {
        pgn::import(&read(&dir, file))
            .into_iter()
            .filter_map(|r| match r {
                Err(ImportError {
                    kind: ImportErrorKind::UnsupportedVariant { variant },
                    ..
                }) => Some(variant),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        refused("python-chess/data_pgn/saturs-jannlee-zh-lichess.pgn"),
        ["Crazyhouse"]
    );
    assert_eq!(
        refused("python-chess/data_pgn/knightvuillaume-jannlee-zh-lichess.pgn"),
        ["Crazyhouse"]
    );
    assert_eq!(
        refused("python-chess/data_pgn/antichess-programfox.pgn"),
        ["Antichess", "Antichess"]
    );
    assert_eq!(
        refused("rust-pgn-reader/rewrite-example.pgn"),
        ["Antichess"]
    );
    assert_eq!(refused("lichess-pgn-viewer/demo_pgns.pgn"), ["Horde"]);

    let results = pgn::import(&read(
        &dir,
        "python-chess/data_pgn/saturs-jannlee-zh-lichess.pgn",
    ));
    let Some(Err(err)) = results.first() else {
        panic!("{results:?}")
    };
    assert_eq!(
        err.to_string(),
        "game 1 (saturos - JannLee), line 1: unsupported variant \"Crazyhouse\" \
         (only standard chess and Chess960)"
    );
}

#[test]
#[cfg_attr(no_shared_test_pgns, ignore = "needs ../shared/data/test-pgns")]
fn chess960_games_import() {
    let dir = corpus();
    let text = read(&dir, "python-chess/data_pgn/cutechess-fischerrandom.pgn");
    let (games, errors) = split(pgn::import(&text));
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(games.len(), 4);
    assert!(games.iter().all(|g| g.variant == Variant::Chess960));
    let castles: Vec<&str> = games
        .iter()
        .flat_map(|g| &g.plies)
        .filter(|p| p.san.starts_with("O-O"))
        .map(|p| p.uci.as_str())
        .collect();
    assert!(!castles.is_empty());
    // King takes rook: the king's and the rook's squares hold pieces of the same side.
    for game in &games {
        for ply in game.plies.iter().filter(|p| p.san.starts_with("O-O")) {
            let (from, to) = ply.uci.split_at(2);
            assert_ne!(from, to);
            assert!(to.ends_with('1') || to.ends_with('8'), "{}", ply.uci);
        }
    }
}

#[test]
#[cfg_attr(no_shared_test_pgns, ignore = "needs ../shared/data/test-pgns")]
fn uci_notation_and_bom_files_import() {
    let dir = corpus();
    let (games, errors) = split(pgn::import(&read(
        &dir,
        "python-chess/data_pgn/uci-moves.pgn",
    )));
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].plies.len(), 113);
    assert_eq!(games[0].plies[0].san, "Nf3");
    assert_eq!(games[0].outcome.as_deref(), Some("1/2-1/2"));

    let (games, errors) = split(pgn::import(&read(
        &dir,
        "python-chess/data_pgn/utf8-bom.pgn",
    )));
    assert!(errors.is_empty(), "{errors:#?}");
    let events: Vec<Option<&str>> = games.iter().map(|g| g.tag("Event")).collect();
    assert_eq!(events, [Some("A"), Some("B")]);
}

#[test]
#[cfg_attr(no_shared_test_pgns, ignore = "needs ../shared/data/test-pgns")]
fn games_without_tags_are_split_like_pgn_reader() {
    let dir = corpus();
    let results = pgn::import(&read(&dir, "lichess-pgn-viewer/demo_pgns.pgn"));
    // Nine games with tags, and three without tags after the first (separated by blank
    // lines).
    assert_eq!(results.len(), 12);
    let tagless: Vec<usize> = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .filter(|g| g.tags.is_empty())
        .map(|g| g.plies.len())
        .collect();
    assert_eq!(tagless, [3, 5, 2]);
}

#[test]
#[cfg_attr(no_shared_test_pgns, ignore = "needs ../shared/data/test-pgns")]
fn every_corpus_file_imports_without_panicking() {
    let dir = corpus();
    let mut files = Vec::new();
    let mut folders = vec![dir];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).expect("readable corpus") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "pgn") {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 30, "{files:?}");
    for path in files {
        let bytes = fs::read(&path).expect("readable file");
        let text = String::from_utf8_lossy(&bytes);
        let results = pgn::import(&text);
        for (i, result) in results.iter().enumerate() {
            let (index, line) = match result {
                Ok(game) => (game.index, game.line),
                Err(err) => (err.index, err.line),
            };
            assert_eq!(index, i, "{}", path.display());
            assert!(line >= 1, "{}", path.display());
            if let Ok(game) = result {
                let mut last = game.line;
                for ply in &game.plies {
                    assert!(ply.line >= last, "{} game {i}", path.display());
                    last = ply.line;
                }
            }
        }
        // Lazily or all at once: the same games.
        assert_eq!(pgn::games(&text).count(), results.len());
    }
}

fn shared_openings() -> PathBuf {
    shared("../shared/data/openings")
}

#[test]
#[cfg_attr(no_shared_openings, ignore = "needs ../shared/data/openings")]
fn polyglot_test_books_read_like_python_chess() {
    use fairsight::{Book, PolyglotBook, polyglot_key};
    let dir = shared_openings();
    // python-chess's lasker-trap.bin: after 7. Ke2 the book gives the underpromotion.
    let lasker = PolyglotBook::from_bytes(
        &std::fs::read(dir.join("polyglot/python-chess_lasker-trap.bin")).unwrap(),
    )
    .unwrap();
    assert_eq!(lasker.len(), 7);
    let fen = "rnbqk1nr/ppp2ppp/8/4P3/1BP5/8/PP2KpPP/RN1Q1BNR b kq - 1 7";
    let moves = lasker.moves(polyglot_key(fen).unwrap());
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0].0, "f2g1n");
    assert!(lasker.is_book_move(fen, "f2g1n"));
    assert!(!lasker.is_book_move(fen, "f2g1q"));

    // The 1.5 MB book: the start position has book moves, every one legal there.
    let big = PolyglotBook::from_bytes(
        &std::fs::read(dir.join("polyglot/python-chess_performance.bin")).unwrap(),
    )
    .unwrap();
    assert!(big.len() > 50_000, "{}", big.len());
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let moves = big.moves(polyglot_key(start).unwrap());
    assert!(moves.len() >= 3, "{moves:?}");
    let game = fairsight::pgn::import("1. e4 *").remove(0).unwrap();
    let legal = game.plies[0].legal_moves;
    assert_eq!(legal, 20);
    for (m, _) in &moves {
        let text = format!("[FEN \"{start}\"]\n[SetUp \"1\"]\n\n1. {m} *");
        assert!(
            fairsight::pgn::import(&text).remove(0).is_ok(),
            "book move {m} is legal"
        );
    }
}

#[test]
#[cfg_attr(no_shared_openings, ignore = "needs ../shared/data/openings")]
fn the_shipped_book_is_what_the_build_script_makes_from_the_data() {
    use fairsight::PositionSet;
    let dir = shared_openings();
    let shipped = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/opening-book.bin"
    ))
    .unwrap();
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/opening-book-rebuilt.bin");
    let status = std::process::Command::new(env!("CARGO"))
        .args([
            "run",
            "--quiet",
            "--release",
            "--example",
            "build_book",
            "--",
        ])
        .arg(&dir)
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        std::fs::read(&out).unwrap() == shipped,
        "models/opening-book.bin is stale: rerun examples/build_book"
    );
    let set = PositionSet::from_bytes(&shipped).unwrap();
    assert!(set.len() > 200_000);
}
