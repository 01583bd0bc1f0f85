//! `fairsight`: the native command-line front end. Glue only: parse flags, start engines,
//! feed jobs, write the reports the core renders.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fairsight: error: {e:#}");
            ExitCode::from(1)
        }
    }
}
