//! The stop signals of the board's and the hall's processes.

/// SIGTERM and SIGINT, listened for from before a board or a hall starts: a
/// stop asked while it starts (systemd, a test that saw it `online`) is a
/// clean stop once it has started (`offline` published, the journal closed),
/// not the signal's default kill.
pub struct StopSignals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl StopSignals {
    /// Listens from now on: call before starting what the signals stop.
    pub fn install() -> anyhow::Result<StopSignals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(StopSignals {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    /// Waits for the first of the two.
    pub async fn wait(mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
    }
}
