//! The HTTP server loop for the daemon and the hall, under abuse: idle
//! connections time out, connections are capped below the open-file
//! limit, and `/health` keeps answering while the cap is reached.
//!
//! Written by hand around hyper because `axum::serve` sets no timer, so it
//! has no header timeout, and has no connection cap: a few hundred sockets
//! that never send a request would hold every file descriptor.
//!
//! - A connection gets [`Limits::header_timeout`] to send each request's
//!   head (the first and every one after on a kept-alive connection);
//!   then it is closed.
//! - Beyond [`Limits::max_connections`] a new connection is still
//!   accepted, but it is served once, with a short head timeout
//!   ([`Limits::busy_timeout`]): `/health` is answered, anything else gets
//!   503. So a flood costs each extra socket a fraction of a second.
//! - Live streams (SSE, WebSocket) take a [`StreamSlots`] slot each: 503
//!   beyond [`Limits::max_streams`].
//! - When the process runs out of file descriptors, accepting pauses
//!   briefly instead of spinning.
//! - Answers are gzipped for clients that accept it (pages, PGN, JSON;
//!   never an event stream).
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tower::ServiceExt as _;
use tower_http::compression::CompressionLayer;

/// What the server allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections served in full at once.
    pub max_connections: usize,
    /// Live streams (SSE and WebSocket clients) at once.
    pub max_streams: usize,
    /// Time to send a request's head.
    pub header_timeout: Duration,
    /// Time to send the head on a connection beyond the cap.
    pub busy_timeout: Duration,
}

/// File descriptors kept back for the journal, the board, MQTT and logs.
const RESERVED_FILES: u64 = 128;

impl Limits {
    /// Limits that fit `open_files` descriptors: half of what is left
    /// after a reserve goes to connections served in full (the other half
    /// absorbs a flood of connections beyond the cap), at most 4,096; three
    /// quarters of those, at most 1,024, to live streams.
    pub fn for_open_files(open_files: u64) -> Limits {
        let max_connections = (open_files.saturating_sub(RESERVED_FILES) / 2).clamp(16, 4096);
        let max_connections = max_connections as usize;
        Limits {
            max_connections,
            max_streams: (max_connections * 3 / 4).clamp(1, 1024),
            header_timeout: Duration::from_secs(10),
            busy_timeout: Duration::from_millis(250),
        }
    }

    /// Limits for this process: its open-file limit raised to the hard
    /// limit first (systemd's `LimitNOFILE=` sets both).
    pub fn for_this_process() -> Limits {
        Limits::for_open_files(raise_open_files_limit())
    }
}

/// Raises the soft limit of open files to the hard limit; returns the soft
/// limit now in force.
pub fn raise_open_files_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    // `rlim_t` is 32 bits on armhf.
    #[allow(clippy::useless_conversion)]
    u64::from(limit.rlim_cur)
}

/// The live streams' slots.
#[derive(Debug, Clone)]
pub struct StreamSlots {
    slots: Arc<Semaphore>,
    max: usize,
    refused: Arc<AtomicU64>,
    last_warning: Arc<std::sync::Mutex<Option<Instant>>>,
}

impl StreamSlots {
    pub fn new(max: usize) -> StreamSlots {
        StreamSlots {
            slots: Arc::new(Semaphore::new(max)),
            max,
            refused: Arc::default(),
            last_warning: Arc::default(),
        }
    }

    /// A slot for one stream, held as long as the stream lives; or the 503
    /// to answer when every slot is taken.
    #[allow(clippy::result_large_err)]
    pub fn take(&self) -> Result<OwnedSemaphorePermit, Response<Body>> {
        Arc::clone(&self.slots).try_acquire_owned().map_err(|_| {
            let refused = self.refused.fetch_add(1, Ordering::Relaxed) + 1;
            if warn_now(&self.last_warning) {
                tracing::warn!(
                    "HTTP: {} live streams, the most allowed; refusing more with 503 ({refused} refused so far)",
                    self.max
                );
            }
            busy("too many live streams")
        })
    }

    /// Streams open now.
    pub fn open(&self) -> usize {
        self.max - self.slots.available_permits()
    }
}

/// One warning per 10 s at most, whatever the flood.
fn warn_now(last: &std::sync::Mutex<Option<Instant>>) -> bool {
    let mut last = last.lock().unwrap_or_else(|p| p.into_inner());
    let now = Instant::now();
    if last.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(10)) {
        *last = Some(now);
        true
    } else {
        false
    }
}

/// 503 with a short reason, closing the connection.
fn busy(reason: &'static str) -> Response<Body> {
    Response::builder()
        .status(StatusCode::SERVICE_UNAVAILABLE)
        .header(header::CONNECTION, "close")
        .header(header::RETRY_AFTER, "5")
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Body::from(format!("{reason}\n")))
        .expect("a valid response")
}

/// A served connection, counted while it lives.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Completes when the server is told to stop.
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stop| *stop).await;
}

/// Serves `app` on `listener` until `shutdown` completes, then lets the
/// open connections finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (stop_tx, stop_rx) = watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    });
    let app = app.layer(CompressionLayer::new());
    let open = Arc::new(AtomicUsize::new(0));
    let last_warning = std::sync::Mutex::new(None);
    let mut stopping = stop_rx.clone();
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopped(&mut stopping) => break,
        };
        let (stream, _) = match accepted {
            Ok(conn) => conn,
            Err(e) => {
                // Out of descriptors (or a connection reset before it was
                // taken): wait for some to close rather than spin.
                if warn_now(&last_warning) {
                    tracing::warn!("HTTP: cannot accept a connection: {e}");
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        // Reap finished connections so the set does not grow.
        while tasks.try_join_next().is_some() {}
        let full = open.load(Ordering::Relaxed) >= limits.max_connections;
        if full && warn_now(&last_warning) {
            tracing::warn!(
                "HTTP: {} connections open, the most served in full; more get /health or 503",
                limits.max_connections
            );
        }
        open.fetch_add(1, Ordering::Relaxed);
        let counted = Counted(Arc::clone(&open));
        let app = app.clone();
        let mut stop = stop_rx.clone();
        tasks.spawn(async move {
            let _counted = counted;
            let io = TokioIo::new(stream);
            let mut builder = http1::Builder::new();
            builder.timer(TokioTimer::new());
            if full {
                builder
                    .header_read_timeout(limits.busy_timeout)
                    .keep_alive(false);
                let service =
                    TowerToHyperService::new(tower::service_fn(move |req: Request<Incoming>| {
                        let app = app.clone();
                        async move {
                            if req.uri().path() == "/health" {
                                app.oneshot(req).await
                            } else {
                                Ok::<_, Infallible>(busy("too many connections"))
                            }
                        }
                    }));
                let _ = builder.serve_connection(io, service).await;
                return;
            }
            builder.header_read_timeout(limits.header_timeout);
            let service = TowerToHyperService::new(app);
            let conn = builder.serve_connection(io, service).with_upgrades();
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stopped(&mut stop) => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
    drop(listener);
    while tasks.join_next().await.is_some() {}
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_fit_the_open_file_limit() {
        let small = Limits::for_open_files(1024);
        assert_eq!(small.max_connections, 448);
        assert_eq!(small.max_streams, 336);
        // Connections in full, a flood's share and the reserve fit.
        assert!(2 * small.max_connections as u64 + RESERVED_FILES <= 1024);
        let large = Limits::for_open_files(65_536);
        assert_eq!(large.max_connections, 4096);
        assert_eq!(large.max_streams, 1024);
        assert_eq!(Limits::for_open_files(10).max_connections, 16);
    }

    #[tokio::test]
    async fn a_stream_beyond_the_slots_gets_503_and_a_freed_slot_is_taken_again() {
        let slots = StreamSlots::new(2);
        let a = slots.take().unwrap();
        let _b = slots.take().unwrap();
        let refused = slots.take().unwrap_err();
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(slots.open(), 2);
        drop(a);
        assert!(slots.take().is_ok());
    }
}
