//! `touchmove run --config FILE --setup`: the board check in the browser.
//!
//! Instead of keeping a game, the daemon hands every scan of its board to a
//! [`Check`] and serves its page at `/setup` ([`crate::outputs::setup`]): a
//! builder without a keyboard follows the steps on a phone, answering with
//! the page's buttons. No game is kept, journalled or published meanwhile,
//! so a game in progress is never disturbed: setup mode is a separate run
//! of the daemon (stop the service first). At the end the corrected
//! profile is written next to the board's profile (`NAME.checked.toml`) and
//! the page shows the result until the daemon is stopped.
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use crate::outputs::setup::{self, AnswerRequest, SetupState, SetupView};
use touchmove_core::Millis;
use touchmove_hw::bringup::Check;
use touchmove_hw::bringup::for_profile::{check_config, checked_path, write_result};
use touchmove_hw::profile::{self, BoardProfile};
use touchmove_wire::serve::{self, Limits};

/// A running setup server.
pub struct RunningSetup {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    shutdown: tokio::sync::oneshot::Sender<()>,
}

/// Starts the check on `board` and serves it on `bind`; the corrected
/// profile goes to `out` (default: beside the profile).
pub async fn start(
    board: BoardProfile,
    bind: SocketAddr,
    out: Option<PathBuf>,
) -> anyhow::Result<RunningSetup> {
    let listener = TcpListener::bind(bind)
        .await
        .with_context(|| format!("cannot listen on {bind} (`[http] bind`, or --bind)"))?;
    let addr = listener.local_addr()?;
    let out = out.unwrap_or_else(|| checked_path(&board.file));
    let mut check = Check::new(check_config(&board));
    let first = SetupView::of(&check, &board.name, None);
    let (view_tx, view_rx) = watch::channel(Arc::new(serde_json::to_string(&first)?));
    let (answer_tx, mut answer_rx) = mpsc::unbounded_channel::<AnswerRequest>();
    let stop = Arc::new(AtomicBool::new(false));
    let thread_stop = Arc::clone(&stop);
    // The scanner is opened on its thread and never leaves it; an error
    // opening it comes back before the server starts.
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<anyhow::Result<()>>();
    let thread = std::thread::Builder::new()
        .name("setup-scan".into())
        .spawn(move || {
            let mut scanner = match profile::open(&board) {
                Ok(scanner) => {
                    let _ = ready_tx.send(Ok(()));
                    scanner
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(anyhow::anyhow!("{}: {e}", board.file.display())));
                    return;
                }
            };
            let origin = Instant::now();
            let period = board.scan_period();
            let mut written: Option<PathBuf> = None;
            let mut next = Instant::now();
            let mut last_view = String::new();
            while !thread_stop.load(Ordering::Relaxed) {
                let t = origin.elapsed().as_millis() as Millis;
                let was_done = check.outcome().is_some();
                match scanner.scan(t) {
                    Ok(scan) => check.scan(t, &scan),
                    Err(e) => tracing::warn!("reading the board: {e}"),
                }
                let mut replies = Vec::new();
                while let Ok((answer, reply)) = answer_rx.try_recv() {
                    replies.push((reply, check.answer(t, answer).map_err(|e| e.0)));
                }
                // The check ends on an answer or by itself (the walk done).
                if !was_done && check.outcome().is_some() {
                    match write_result(&check, &board, &out) {
                        Ok(path) => written = path,
                        Err(e) => tracing::error!("writing the corrected profile: {e:#}"),
                    }
                }
                for (reply, result) in replies {
                    let _ = reply.send(result);
                }
                let view = SetupView::of(&check, &board.name, written.as_deref());
                if let Ok(text) = serde_json::to_string(&view)
                    && text != last_view
                {
                    last_view.clone_from(&text);
                    let _ = view_tx.send(Arc::new(text));
                }
                next += period;
                let now = Instant::now();
                if next > now {
                    std::thread::sleep(next - now);
                } else {
                    next = now;
                }
            }
        })?;
    ready_rx
        .recv()
        .context("the setup scan loop stopped while starting")??;
    let state = SetupState {
        view: view_rx,
        answers: answer_tx,
    };
    let (shutdown, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
    let app = setup::router(state);
    let server = tokio::spawn(async move {
        serve::serve(listener, app, Limits::for_open_files(1024), async {
            let _ = shutdown_rx.await;
        })
        .await
    });
    Ok(RunningSetup {
        addr,
        stop,
        thread,
        server,
        shutdown,
    })
}

impl RunningSetup {
    /// Stops the scans and the server.
    pub async fn stop(self) -> anyhow::Result<()> {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.shutdown.send(());
        if tokio::time::timeout(Duration::from_secs(5), self.server)
            .await
            .is_err()
        {
            tracing::warn!("HTTP connections still open after 5 s; leaving them");
        }
        let thread = self.thread;
        tokio::task::spawn_blocking(move || thread.join())
            .await?
            .map_err(|_| anyhow::anyhow!("the setup scan loop panicked"))?;
        Ok(())
    }
}
