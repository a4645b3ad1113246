//! The HTTP side of the player, on the standard library's sockets, built
//! to stay up on an open port. A message is the body of a POST (or, as
//! ggp-base allows, the URL-encoded path of a GET); the reply is the body
//! of a `200 OK` with `Content-Type: text/acl` and the CORS headers
//! ggp-base sends, so that browser-based referees work.
//!
//! Each connection is served by a thread of its own, one request per
//! connection (`Connection: close`, as GGP servers connect for every
//! message), so a slow client holds up nobody else, and the thread ends
//! with the connection. The limits:
//! - at most [`Limits::connections`] connections at once; beyond, a new
//!   one gets `503` and is closed at once;
//! - the request line and headers at most [`MAX_HEAD`] bytes, the body
//!   at most [`MAX_BODY`]: a larger `Content-Length` is refused (`413`)
//!   before anything is allocated for it, and the body is not read;
//! - the whole request must arrive within [`Limits::read_time`] of the
//!   connection (`408` otherwise), the reply must be taken within
//!   [`WRITE_TIME`];
//! - every clock counts from the connection's arrival, so a request that
//!   was slow to come in leaves less time to search.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::{GgpPlayer, Handled, PlayerConfig};

/// The largest message accepted (the largest corpus game is 38 KB).
pub const MAX_BODY: usize = 4 << 20;

/// The largest request line and headers accepted.
pub const MAX_HEAD: usize = 16 << 10;

/// How long a reply may take to be sent.
const WRITE_TIME: Duration = Duration::from_secs(10);

/// The limits of the server.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Connections served at once.
    pub connections: usize,
    /// How long a request may take to arrive, from the connection.
    pub read_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connections: 256,
            read_time: Duration::from_secs(10),
        }
    }
}

/// Decodes `%XX` escapes and `+` (a space, as in ggp-base's GET requests).
pub fn url_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b.get(i + 1..i + 3)?;
                let v = u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
                out.push(v);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// An error reply at the HTTP level: status and a line of text.
type HttpError = (u16, String);

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

/// Writes a complete response and closes the connection.
fn respond(
    stream: &mut TcpStream,
    status: u16,
    body: &str,
    reason: Option<&str>,
    write_time: Duration,
) {
    let ctype = if status == 200 {
        "text/acl"
    } else {
        "text/plain; charset=utf-8"
    };
    let mut head = format!(
        "HTTP/1.0 {status} {}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\
         Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Methods: POST, GET, OPTIONS\r\n\
         Access-Control-Allow-Headers: Content-Type\r\nAccess-Control-Allow-Age: 86400\r\n\
         Connection: close\r\n",
        reason_phrase(status),
        body.len()
    );
    if status == 405 {
        head.push_str("Allow: POST, GET, OPTIONS\r\n");
    }
    if let Some(r) = reason {
        // One line of printable ASCII.
        let r: String = r
            .chars()
            .map(|c| if c.is_ascii_graphic() { c } else { ' ' })
            .take(300)
            .collect();
        head.push_str(&format!("X-Toss-Reason: {r}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.set_write_timeout(Some(write_time));
    let mut all = head.into_bytes();
    all.extend_from_slice(body.as_bytes());
    if let Err(e) = stream.write_all(&all).and_then(|()| stream.flush()) {
        eprintln!("ggp: cannot send the reply: {e}");
    }
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

/// Reads into `buf` until `want` says enough or the deadline passes.
fn read_until(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    limit: usize,
    deadline: Instant,
    mut want: impl FnMut(&[u8]) -> bool,
) -> Result<(), HttpError> {
    let mut chunk = [0u8; 8192];
    while !want(buf) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err((408, "the request did not arrive in time".into()));
        }
        let _ = stream.set_read_timeout(Some(left));
        let room = (limit + 1).saturating_sub(buf.len()).min(chunk.len());
        if room == 0 {
            return Err((
                431,
                format!("the request head is longer than {MAX_HEAD} bytes"),
            ));
        }
        match stream.read(&mut chunk[..room]) {
            Ok(0) => {
                return Err((
                    400,
                    "the connection closed before the request was complete".into(),
                ));
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err((408, "the request did not arrive in time".into()));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err((400, format!("cannot read the request: {e}"))),
        }
    }
    Ok(())
}

/// The end of the head (after the blank line) in `buf`, if it has come.
fn head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A request read from a connection: `None` for OPTIONS (a CORS preflight).
fn read_request(stream: &mut TcpStream, deadline: Instant) -> Result<Option<String>, HttpError> {
    let mut buf = Vec::with_capacity(1024);
    read_until(stream, &mut buf, MAX_HEAD, deadline, |b| {
        head_end(b).is_some()
    })?;
    let end = head_end(&buf).unwrap_or(buf.len());
    let head = std::str::from_utf8(&buf[..end])
        .map_err(|_| (400, "the request head is not UTF-8".to_string()))?;
    let mut lines = head.lines();
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err((
            400,
            format!("not an HTTP request line: `{}`", super::quote(request_line)),
        ));
    };
    if !version.starts_with("HTTP/") {
        return Err((
            400,
            format!("not an HTTP request line: `{}`", super::quote(request_line)),
        ));
    }
    let mut length: Option<u64> = None;
    for l in lines {
        let Some((k, v)) = l.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        if k.eq_ignore_ascii_case("content-length") {
            let n = v
                .parse::<u64>()
                .map_err(|_| (400, format!("invalid Content-Length `{}`", super::quote(v))))?;
            if length.is_some_and(|m| m != n) {
                return Err((400, "conflicting Content-Length headers".into()));
            }
            length = Some(n);
        } else if k.eq_ignore_ascii_case("transfer-encoding") && !v.eq_ignore_ascii_case("identity")
        {
            return Err((
                501,
                format!(
                    "Transfer-Encoding `{}` is not supported: send a Content-Length",
                    super::quote(v)
                ),
            ));
        }
    }
    match method {
        "OPTIONS" => Ok(None),
        "POST" => {
            let Some(n) = length else {
                return Err((411, "a POST needs a Content-Length".into()));
            };
            if n > MAX_BODY as u64 {
                return Err((
                    413,
                    format!("the message has {n} bytes; at most {MAX_BODY} are accepted"),
                ));
            }
            let n = n as usize;
            let mut body = buf.split_off(end);
            if body.len() > n {
                body.truncate(n);
            }
            body.reserve_exact(n - body.len());
            read_until(stream, &mut body, n, deadline, |b| b.len() >= n)?;
            body.truncate(n);
            String::from_utf8(body).map(Some).map_err(|e| {
                (
                    400,
                    format!(
                        "the message is not UTF-8 (invalid byte at offset {})",
                        e.utf8_error().valid_up_to()
                    ),
                )
            })
        }
        "GET" => {
            let path = target.trim_start_matches('/');
            if path.is_empty() {
                return Err((
                    400,
                    "this is a GGP player: send a message such as (INFO) as the body of a POST"
                        .into(),
                ));
            }
            url_decode(path)
                .map(Some)
                .ok_or_else(|| (400, "the URL is not a valid encoded message".into()))
        }
        m => Err((
            405,
            format!(
                "method {} is not supported: send messages with POST (or GET)",
                super::quote(m)
            ),
        )),
    }
}

/// Reads and discards what the client still sends after an error reply,
/// for a second at most: closing a socket with unread data resets the
/// connection, and the client might lose the reply.
fn drain(stream: &mut TcpStream) {
    let until = Instant::now() + Duration::from_secs(1);
    let mut chunk = [0u8; 8192];
    let mut total = 0usize;
    while total < 16 << 20 {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => total += n,
        }
    }
}

/// Serves one connection that arrived at `arrived`.
fn serve_connection(player: &GgpPlayer, mut stream: TcpStream, arrived: Instant, limits: &Limits) {
    let _ = stream.set_nodelay(true);
    let handled = match read_request(&mut stream, arrived + limits.read_time) {
        Ok(None) => {
            respond(&mut stream, 200, "", None, WRITE_TIME);
            return;
        }
        Ok(Some(body)) => {
            // A fault of the player must not stop the server.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                player.handle(&body, arrived)
            }))
            .unwrap_or_else(|_| Handled {
                status: 500,
                reply: "internal error of the player".into(),
                reason: Some("internal error of the player".into()),
                log: "ggp ?: internal error (panic) while handling a message".into(),
            })
        }
        Err((status, text)) => {
            eprintln!("ggp ?: error {status}: {text}");
            respond(&mut stream, status, &text, Some(&text), WRITE_TIME);
            drain(&mut stream);
            return;
        }
    };
    eprintln!("{}", handled.log);
    respond(
        &mut stream,
        handled.status,
        &handled.reply,
        handled.reason.as_deref(),
        WRITE_TIME,
    );
}

/// Counts a connection while it is served.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Listens on `addr` (e.g. `0.0.0.0:9147`; port 0 picks a free port) and
/// serves forever. `bound` is called with the address actually bound
/// before the first request.
pub fn serve(
    addr: &str,
    config: PlayerConfig,
    limits: Limits,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    let listener = TcpListener::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    bound(local);
    let player = Arc::new(GgpPlayer::new(config));
    {
        // Silent matches are dropped even when no request comes.
        let player = player.clone();
        std::thread::Builder::new()
            .name("ggp-expire".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(1));
                    for id in player.expire(Instant::now()) {
                        eprintln!("ggp {id}: dropped after its clocks expired without messages");
                    }
                }
            })
            .map_err(|e| format!("cannot start a thread: {e}"))?;
    }
    let active = Arc::new(AtomicUsize::new(0));
    let limits = Arc::new(limits);
    loop {
        let (mut stream, peer) = match listener.accept() {
            Ok(c) => c,
            Err(e) => {
                // Out of descriptors, for instance: wait for some to close.
                eprintln!("ggp: cannot accept a connection: {e}");
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        let arrived = Instant::now();
        if active.fetch_add(1, Ordering::AcqRel) >= limits.connections {
            active.fetch_sub(1, Ordering::AcqRel);
            eprintln!(
                "ggp: refused a connection from {peer}: {} connections are open",
                limits.connections
            );
            // A short timeout: the accepting thread must not wait.
            respond(
                &mut stream,
                503,
                "too many connections",
                Some("too many connections"),
                Duration::from_millis(100),
            );
            continue;
        }
        let slot = Slot(active.clone());
        let (player, limits) = (player.clone(), limits.clone());
        let spawned = std::thread::Builder::new()
            .name("ggp-connection".into())
            .spawn(move || {
                let _slot = slot;
                serve_connection(&player, stream, arrived, &limits);
            });
        if let Err(e) = spawned {
            eprintln!("ggp: cannot start a thread for a connection: {e}");
        }
    }
}
