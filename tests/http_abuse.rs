//! HTTP under abuse: `touchmove run --demo` under the common limit of 1,024
//! open files. 1,100 sockets that never send a request (and 100 that send
//! half of one) must not keep `/health` from answering; idle sockets are
//! closed after the header timeout; live streams beyond the cap get 503
//! while `/health` still answers.
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use touchmove_wire::serve::{Limits, raise_open_files_limit};

mod process;

const OPEN_FILES: u64 = 1024;

struct Daemon {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The demo with at most `OPEN_FILES` open files (soft and hard).
fn demo() -> Daemon {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!(
            "ulimit -n {OPEN_FILES} && exec \"$0\" run --demo --seed 7 --bind 127.0.0.1:0"
        ))
        .arg(env!("CARGO_BIN_EXE_touchmove"))
        .stderr(Stdio::null());
    let (child, addr) = process::spawn_serving(command, |_| {});
    Daemon { child, addr }
}

/// `GET path` with `timeout` for the whole answer: the status code.
fn get(addr: SocketAddr, path: &str, timeout: Duration) -> Result<u16, String> {
    let began = Instant::now();
    let mut stream =
        TcpStream::connect_timeout(&addr, timeout).map_err(|e| format!("connect: {e}"))?;
    stream.set_read_timeout(Some(timeout)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| format!("write: {e}"))?;
    let mut head = [0u8; 12];
    stream
        .read_exact(&mut head)
        .map_err(|e| format!("read after {:?}: {e}", began.elapsed()))?;
    let text = String::from_utf8_lossy(&head);
    text[9..12]
        .parse()
        .map_err(|_| format!("not an HTTP answer: {text:?}"))
}

fn idle_sockets(addr: SocketAddr, n: usize, half_request: bool) -> Vec<TcpStream> {
    (0..n)
        .map(|i| {
            let mut s =
                TcpStream::connect(addr).unwrap_or_else(|e| panic!("idle socket {i} of {n}: {e}"));
            if half_request {
                s.write_all(b"GET /state HTTP/1.1\r\nHost: t\r\nX-Wait: ")
                    .unwrap();
            }
            s
        })
        .collect()
}

#[test]
fn idle_sockets_beyond_the_open_file_limit_do_not_keep_health_from_answering() {
    assert!(
        raise_open_files_limit() > 2_000,
        "the test needs 2,000 sockets"
    );
    let daemon = demo();
    assert_eq!(get(daemon.addr, "/health", Duration::from_secs(5)), Ok(200));

    let began = Instant::now();
    let mut held = idle_sockets(daemon.addr, 1_100, false);
    held.extend(idle_sockets(daemon.addr, 100, true));
    eprintln!("1,200 idle sockets open in {:?}", began.elapsed());

    // Throughout the header timeout and past it, /health answers within 1 s.
    let limits = Limits::for_open_files(OPEN_FILES);
    let until = Instant::now() + limits.header_timeout + Duration::from_secs(2);
    let mut slowest = Duration::ZERO;
    let mut probes = 0;
    while Instant::now() < until {
        let asked = Instant::now();
        let answer = get(daemon.addr, "/health", Duration::from_secs(1));
        let took = asked.elapsed();
        assert_eq!(answer, Ok(200), "probe {probes} after {took:?}");
        assert!(took < Duration::from_secs(1), "probe {probes}: {took:?}");
        slowest = slowest.max(took);
        probes += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("{probes} probes, the slowest answered in {slowest:?}");

    // The server closed every idle socket: each reads end-of-file.
    for (i, s) in held.iter_mut().enumerate().step_by(50) {
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut buf = [0u8; 256];
        let n = s.read(&mut buf);
        assert!(
            matches!(n, Ok(0)) || matches!(&n, Ok(k) if buf[..*k].starts_with(b"HTTP/1.1 408")),
            "idle socket {i}: {n:?}"
        );
    }
}

#[test]
fn live_streams_beyond_the_cap_get_503_and_health_still_answers() {
    assert!(
        raise_open_files_limit() > 2_000,
        "the test needs 2,000 sockets"
    );
    let daemon = demo();
    let limits = Limits::for_open_files(OPEN_FILES);
    let open_stream = |i: usize| -> (TcpStream, String) {
        let mut s = TcpStream::connect(daemon.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        write!(s, "GET /events HTTP/1.1\r\nHost: t\r\n\r\n").unwrap();
        let mut head = [0u8; 12];
        s.read_exact(&mut head)
            .unwrap_or_else(|e| panic!("stream {i}: {e}"));
        (s, String::from_utf8_lossy(&head).into_owned())
    };
    let streams: Vec<(TcpStream, String)> = (0..limits.max_streams).map(open_stream).collect();
    assert!(
        streams.iter().all(|(_, head)| head.ends_with("200")),
        "every stream up to the cap is served"
    );
    let (_, refused) = open_stream(limits.max_streams);
    assert!(refused.ends_with("503"), "{refused}");
    assert_eq!(get(daemon.addr, "/health", Duration::from_secs(1)), Ok(200));
    drop(streams);
    // Slots come back as streams close.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, head) = open_stream(0);
        if head.ends_with("200") {
            break;
        }
        assert!(Instant::now() < deadline, "no slot freed: {head}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
