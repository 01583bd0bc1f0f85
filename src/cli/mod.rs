//! The command-line front end: `run` parses the flags and dispatches each command.
//! `fairsight analyze` is split along its stages: [`args`] (flags and validation),
//! [`analyze`] (the flow), [`pool`] (engines, cache, retries), [`progress`] and
//! [`output`]; [`engine`] is the engine process. The commands that fit and measure the
//! shipped models are under [`fit`]; [`corpus`] keeps the analysed corpus.

mod analyze;
mod args;
mod bench;
mod cache;
mod corpus;
mod engine;
mod fit;
mod interrupt;
mod merge;
mod output;
mod pool;
mod progress;
mod quick;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// The shipped opening book (built by `examples/build_book.rs`).
pub(crate) const BUILTIN_BOOK: &[u8] = include_bytes!("../../models/opening-book.bin");

/// Exit code for bad arguments and a missing engine.
pub(crate) const EXIT_USAGE: u8 = 2;

#[derive(Parser)]
#[command(
    name = "fairsight",
    version,
    about = "Chess fair-play analysis on your own machine"
)]
struct Cli {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Subcommand)]
enum Sub {
    /// Analyse every game of one or more PGN files.
    Analyze(Box<args::AnalyzeArgs>),
    /// Fit the assessment model on the corpus, or evaluate it (see models/README.md).
    #[command(subcommand)]
    Assess(fit::assess::AssessCmd),
    /// Measure import throughput and pipeline efficiency (prints; asserts nothing).
    Bench(bench::BenchArgs),
    /// Build the rating ↔ Regan (s, c) calibration table (see models/README.md).
    #[command(subcommand)]
    Calibrate(fit::calibrate::CalibrateCmd),
    /// The analysed corpus under corpus/: add games, rebuild reports (see corpus/README.md).
    #[command(subcommand)]
    Corpus(corpus::CorpusCmd),
    /// Join the JSON reports of a batch's shards (`analyze --shard K/N`) into the whole
    /// batch's report, byte for byte as one run over all the games gives it.
    Merge(merge::MergeArgs),
    /// Sample games and train the move classifier (see models/README.md).
    #[command(subcommand)]
    Train(fit::train::TrainCmd),
}

/// Entry point: returns the process exit code.
pub fn run() -> Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return Ok(ExitCode::from(code));
        }
    };
    match cli.command {
        Sub::Analyze(args) => analyze::analyze(*args),
        Sub::Merge(args) => merge::merge(args),
        Sub::Assess(cmd) => fit::assess::run(cmd).map(|()| ExitCode::SUCCESS),
        Sub::Bench(args) => bench::bench(args).map(|()| ExitCode::SUCCESS),
        Sub::Calibrate(cmd) => fit::calibrate::run(cmd).map(|()| ExitCode::SUCCESS),
        Sub::Corpus(cmd) => corpus::run(cmd),
        Sub::Train(cmd) => fit::train::run(cmd).map(|()| ExitCode::SUCCESS),
    }
}

pub(crate) fn usage_error(msg: impl std::fmt::Display) -> Result<ExitCode> {
    eprintln!("fairsight: {msg}");
    Ok(ExitCode::from(EXIT_USAGE))
}
