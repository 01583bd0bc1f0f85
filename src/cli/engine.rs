//! A UCI engine as a child process, driven by the sans-IO [`Session`].
//!
//! The process runs in its own process group (Ctrl-C never reaches it), is killed on drop,
//! and every search has a deadline. A reader thread turns its stdout into lines.

use std::{
    io::{BufRead, BufReader, Write},
    os::unix::process::CommandExt,
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc::{self, Receiver, RecvTimeoutError},
    thread,
    time::{Duration, Instant},
};

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use fairsight::{Deadline, Job, JobResult, Session, Settings};

/// How long the handshake may take (node starting Stockfish.wasm takes well under 1 s).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    session: Session,
    search_timeout: Duration,
}

impl Engine {
    /// Starts `command` (a shell-style command line) and completes the UCI handshake.
    pub fn start(command: &str, settings: &Settings, search_timeout: Duration) -> Result<Engine> {
        let argv = shell_words::split(command).context("cannot split the engine command")?;
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| anyhow!("the engine command is empty"))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot start engine `{command}`"))?;
        let stdin = child.stdin.take().context("engine stdin")?;
        let stdout = child.stdout.take().context("engine stdout")?;
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = Engine {
            child,
            stdin,
            lines,
            session: Session::new(settings),
            search_timeout,
        };
        engine.flush()?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        while !engine.session.is_idle() {
            engine.pump(deadline).with_context(|| {
                format!("engine `{command}` did not complete the UCI handshake")
            })?;
        }
        Ok(engine)
    }

    /// The engine's `id name`.
    pub fn name(&self) -> &str {
        self.session.engine_name().unwrap_or("unknown engine")
    }

    fn flush(&mut self) -> Result<()> {
        for c in self.session.take_commands() {
            writeln!(self.stdin, "{c}").context("engine closed its input")?;
        }
        self.stdin.flush().context("engine closed its input")?;
        Ok(())
    }

    /// Reads one line (until `deadline`) and feeds it to the session.
    fn pump(&mut self, deadline: Instant) -> Result<()> {
        let wait = deadline.saturating_duration_since(Instant::now());
        let line = match self.lines.recv_timeout(wait) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => bail!("engine timed out"),
            Err(RecvTimeoutError::Disconnected) => bail!("engine exited"),
        };
        // A malformed line is not fatal: the engine's next lines decide.
        if let Err(e) = self.session.handle_line(&line) {
            eprintln!("warning: {e}");
        }
        self.flush()
    }

    /// Runs a job to completion; each search must finish within the search timeout (the
    /// core's [`Deadline`] with a search limit and no silence limit).
    pub fn run(&mut self, job: Job) -> Result<JobResult> {
        self.session
            .submit(job)
            .map_err(|e| anyhow!("cannot submit job: {e}"))?;
        self.flush()?;
        let origin = Instant::now();
        let mut deadline = Deadline::new(
            None,
            Some(self.search_timeout),
            Duration::ZERO,
            &self.session,
        );
        loop {
            if let Some(r) = self.session.take_result() {
                return Ok(r);
            }
            self.pump(origin + deadline.due().unwrap_or(self.search_timeout))?;
            deadline.saw_line(origin.elapsed(), &self.session);
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        kill_group(&self.child);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Kills the engine's whole process group (it leads its own: `process_group(0)`), so
/// that an engine started through a wrapper (`sh -c ...`, a script) leaves no process of
/// its own behind, even one that ignores `quit` and the end of its input.
fn kill_group(child: &Child) {
    let Ok(pgid) = libc::pid_t::try_from(child.id()) else {
        return;
    };
    // SAFETY: killpg only sends a signal; the group is the engine's own (created at its
    // start, led by the child we have not reaped yet, so its id cannot be reused).
    #[allow(unsafe_code)]
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// The npm `stockfish` build the CLI runs by default (the browser's default too).
const DEFAULT_ENGINE_JS: &str = "node_modules/stockfish/bin/stockfish-19-lite-single.js";

/// The default engine command: node running the npm stockfish build, found in the current
/// directory, next to the executable, or in the source tree it was built from.
pub(crate) fn default_engine() -> Option<String> {
    let mut roots: Vec<PathBuf> = vec![PathBuf::from(".")];
    if let Ok(exe) = std::env::current_exe() {
        roots.extend(exe.ancestors().skip(1).map(Path::to_path_buf));
    }
    roots.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    roots
        .iter()
        .map(|r| r.join(DEFAULT_ENGINE_JS))
        .find(|p| p.is_file())
        .and_then(|p| p.canonicalize().ok())
        .map(|p| shell_words::join(["node", &p.to_string_lossy()]))
}

/// A stable description of the engine build: the script or binary's file stem.
pub(crate) fn engine_build(command: &str) -> String {
    let argv = shell_words::split(command).unwrap_or_default();
    let target = argv
        .iter()
        .rev()
        .find(|a| a.ends_with(".js") || a.ends_with(".wasm"))
        .or(argv.first());
    target
        .and_then(|t| Path::new(t).file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
