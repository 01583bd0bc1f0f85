//! `fairsight merge`: the shards' JSON reports of one batch (`analyze --shard K/N`) into
//! the report one run over the whole input gives, byte for byte.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::Result;
use clap::Args;
use fairsight::{
    AssessmentModel, Calibration, Classifier, ModelOverrides, Report,
    render::{self, SideFilter, matchlog},
};

use super::{
    output::{stdout, write_to},
    usage_error,
};

#[derive(Args)]
pub(crate) struct MergeArgs {
    /// The shards' JSON reports (`fairsight analyze --shard K/N --json`), in any order.
    #[arg(required = true)]
    pub(crate) shards: Vec<PathBuf>,
    /// Write the merged JSON report here (`-` for stdout).
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
    /// Write the annotated PGN (review mode's) here (`-` for stdout).
    #[arg(long)]
    pub(crate) pgn: Option<PathBuf>,
    /// Screening mode: write the log in Regan's format here (`-` for stdout).
    #[arg(long)]
    pub(crate) log: Option<PathBuf>,
    /// Screening mode: write the results file here (`-` for stdout).
    #[arg(long)]
    pub(crate) results: Option<PathBuf>,
    /// Screening mode: side to test in --log and --results: w, b, wb, or a player's name.
    #[arg(long, default_value = "wb")]
    pub(crate) side: String,
    /// The --calibration the shards were analysed with, if any.
    #[arg(long)]
    pub(crate) calibration: Option<PathBuf>,
    /// The --model the shards were analysed with, if any.
    #[arg(long)]
    pub(crate) model: Option<PathBuf>,
    /// The --assessment the shards were analysed with, if any.
    #[arg(long)]
    pub(crate) assessment: Option<PathBuf>,
    /// No player table on stdout (it is left out too when an output goes to stdout).
    #[arg(long)]
    pub(crate) quiet: bool,
}

fn load<T>(
    path: &Option<PathBuf>,
    flag: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, String> {
    let Some(path) = path else { return Ok(None) };
    std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| parse(&t))
        .map(Some)
        .map_err(|e| format!("{flag} {}: {e}", path.display()))
}

/// The model files given with `--calibration`, `--model` and `--assessment` (each
/// optional), as `analyze` and `merge` both take them; the error names the flag and file.
pub(crate) fn load_models(
    calibration: &Option<PathBuf>,
    model: &Option<PathBuf>,
    assessment: &Option<PathBuf>,
) -> Result<ModelOverrides, String> {
    Ok(ModelOverrides {
        calibration: load(calibration, "--calibration", |t| {
            Calibration::from_json(t).map_err(|e| e.to_string())
        })?,
        classifier: load(model, "--model", |t| {
            Classifier::from_json(t).map_err(|e| e.to_string())
        })?,
        assessment: load(assessment, "--assessment", |t| {
            AssessmentModel::from_json(t).map_err(|e| e.to_string())
        })?,
    })
}

pub(crate) fn merge(args: MergeArgs) -> Result<ExitCode> {
    let tested: SideFilter = match args.side.parse() {
        Ok(s) => s,
        Err(e) => return usage_error(format!("--side: {e}")),
    };
    let models = match load_models(&args.calibration, &args.model, &args.assessment) {
        Ok(m) => m,
        Err(e) => return usage_error(e),
    };
    let mut shards = Vec::new();
    for path in &args.shards {
        let label = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return usage_error(format!("cannot read {label}: {e}")),
        };
        match Report::from_json(&text) {
            Ok(r) => shards.push((label, r)),
            Err(e) => return usage_error(format!("{label}: not a fairsight JSON report: {e}")),
        }
    }
    let report = match fairsight::merge_shards(shards, &models) {
        Ok(r) => r,
        Err(e) => return usage_error(format!("merge: {e}")),
    };
    let screening = report.settings.screening.is_some();
    if !screening && (args.log.is_some() || args.results.is_some()) {
        return usage_error("--log and --results need shards analysed with --mode screening");
    }
    if let Some(path) = &args.json {
        write_to(path, &(report.to_json() + "\n"))?;
    }
    if let Some(path) = &args.pgn {
        write_to(path, &render::annotated_pgn(&report))?;
    }
    if let Some(path) = &args.log {
        write_to(path, &matchlog::log(&report, &tested))?;
    }
    if let Some(path) = &args.results {
        write_to(path, &matchlog::results(&report, &tested))?;
    }
    let to_stdout = [&args.json, &args.pgn, &args.log, &args.results]
        .iter()
        .any(|p| p.as_deref() == Some(Path::new("-")));
    if !args.quiet && !to_stdout {
        stdout(&render::player_table(&report));
    }
    eprintln!(
        "fairsight: merged {} shard(s): {} games",
        args.shards.len(),
        report.games.len()
    );
    Ok(ExitCode::SUCCESS)
}
