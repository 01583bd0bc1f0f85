//! Where reports go: files or stdout.

use std::path::Path;

use anyhow::{Context, Result};
use fairsight::{
    Report,
    render::{self, matchlog},
};

use super::args::{AnalyzeArgs, Validated};

/// Writes to stdout; a closed pipe (`fairsight ... | head`) is not an error.
pub(crate) fn stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Whether any of these outputs is stdout (`-`): then no player table goes there too.
pub(crate) fn any_to_stdout(outputs: &[&Option<std::path::PathBuf>]) -> bool {
    outputs.iter().any(|p| p.as_deref() == Some(Path::new("-")))
}

pub(crate) fn write_to(path: &Path, text: &str) -> Result<()> {
    if path == Path::new("-") {
        stdout(text);
        Ok(())
    } else {
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
    }
}

/// The report's outputs; `json` is its JSON form (the report's, with anything added).
pub(crate) fn write_outputs(
    args: &AnalyzeArgs,
    v: &Validated,
    report: &Report,
    json: &str,
) -> Result<()> {
    if let Some(path) = &args.json {
        write_to(path, &(json.to_owned() + "\n"))?;
    }
    if let Some(path) = &args.pgn {
        let text = match &v.crafty {
            Some(opts) => render::crafty_annotate(report, opts),
            None => render::annotated_pgn(report),
        };
        write_to(path, &text)?;
    }
    if let Some(path) = &args.log {
        write_to(path, &matchlog::log(report, &v.tested))?;
    }
    if let Some(path) = &args.results {
        write_to(path, &matchlog::results(report, &v.tested))?;
    }
    Ok(())
}
