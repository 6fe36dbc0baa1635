//! systemd readiness and watchdog (`Type=notify`, `WatchdogSec=`): READY=1
//! once the board has been read, WATCHDOG=1 from the scan loop while scans
//! arrive, STOPPING=1 on shutdown. Outside systemd (no `$NOTIFY_SOCKET`)
//! nothing is sent.
//!
//! A journal that cannot commit does not stop the pings: a restart would
//! lose the events the writer holds in memory and make no room on the
//! disk. The failure is reported instead (the record's `storage_failed`,
//! `/health` answering 503, the log); the held events are committed when
//! the journal takes writes again. A journal that hangs (a disk that never
//! answers) fills the writer's queue, the scan loop waits on it, and the
//! pings stop: then systemd restarts the daemon.
use std::time::{Duration, Instant};

use sd_notify::NotifyState;

/// The scan loop's side of the notifications.
pub(crate) struct Notifier {
    ready: bool,
    /// Half the watchdog period, when systemd asks for pings.
    ping_every: Option<Duration>,
    last_ping: Instant,
    last_input: Instant,
}

impl Default for Notifier {
    fn default() -> Self {
        Notifier::new(Instant::now())
    }
}

impl Notifier {
    /// A notifier started at `now` (the scan loop's clock).
    pub fn new(now: Instant) -> Notifier {
        Notifier {
            ready: false,
            ping_every: sd_notify::watchdog_enabled().map(|d| d / 2),
            last_ping: now,
            last_input: now,
        }
    }

    /// The board was read at `now` (a scan or a trace record arrived).
    pub fn input(&mut self, now: Instant) {
        self.last_input = now;
        if !self.ready {
            self.ready = true;
            send(&[NotifyState::Ready, NotifyState::Status("reading the board")]);
        }
    }

    /// Called every tick: pings the watchdog while all is well. A board
    /// that stops answering stops the
    /// pings: systemd then restarts the daemon, which resumes its game
    /// from the journal.
    pub fn tick(&mut self, now: Instant) {
        let Some(every) = self.ping_every else {
            return;
        };
        let inputs = now.saturating_duration_since(self.last_input) < every * 2;
        if self.ready && inputs && now.saturating_duration_since(self.last_ping) >= every {
            self.last_ping = now;
            send(&[NotifyState::Watchdog]);
        }
    }
}

/// STOPPING=1: the daemon is shutting down.
pub fn stopping() {
    send(&[NotifyState::Stopping]);
}

fn send(states: &[NotifyState]) {
    if let Err(e) = sd_notify::notify(states) {
        tracing::warn!("systemd notification: {e}");
    }
}
