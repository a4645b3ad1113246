//! The HTTP side of the player (tiny_http): one request at a time, as the
//! protocol has it. A message is the body of a POST (or, as ggp-base
//! allows, the URL-encoded path of a GET); the reply is the body of a
//! `200 OK` with `Content-Type: text/acl` and the CORS headers ggp-base
//! sends, so that browser-based referees work. Errors get a 4xx status
//! and a line of plain text.

use std::io::Read;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tiny_http::{Header, Method, Request, Response, Server};

use super::{GgpPlayer, Handled, PlayerConfig};

/// The largest message accepted (the largest corpus game is 38 KB).
pub const MAX_BODY: usize = 4 << 20;

/// A larger body is read and discarded up to this size, so that the
/// client gets the error reply instead of a reset connection.
const DRAIN_LIMIT: u64 = 64 << 20;

fn header(name: &str, value: &str) -> Header {
    // Names and values are ASCII literals of this file.
    Header::from_bytes(name.as_bytes(), value.as_bytes())
        .unwrap_or_else(|()| unreachable!("invalid header {name}"))
}

fn cors(r: Response<std::io::Cursor<Vec<u8>>>) -> Response<std::io::Cursor<Vec<u8>>> {
    r.with_header(header("Access-Control-Allow-Origin", "*"))
        .with_header(header("Access-Control-Allow-Methods", "POST, GET, OPTIONS"))
        .with_header(header("Access-Control-Allow-Headers", "Content-Type"))
        .with_header(header("Access-Control-Allow-Age", "86400"))
}

fn reply(status: u16, text: String) -> Response<std::io::Cursor<Vec<u8>>> {
    let ctype = if status == 200 {
        "text/acl"
    } else {
        "text/plain; charset=utf-8"
    };
    cors(
        Response::from_string(text)
            .with_status_code(status)
            .with_header(header("Content-Type", ctype)),
    )
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

/// The message of a request, or the error reply.
fn message_of(req: &mut Request) -> Result<String, (u16, String)> {
    match req.method() {
        Method::Post => {
            if let Some(n) = req.body_length()
                && n > MAX_BODY
            {
                let _ = std::io::copy(&mut req.as_reader().take(DRAIN_LIMIT), &mut std::io::sink());
                return Err((
                    413,
                    format!("the message has {n} bytes; at most {MAX_BODY} are accepted"),
                ));
            }
            let mut body = Vec::new();
            req.as_reader()
                .take(MAX_BODY as u64 + 1)
                .read_to_end(&mut body)
                .map_err(|e| (400, format!("cannot read the message: {e}")))?;
            if body.len() > MAX_BODY {
                let _ = std::io::copy(&mut req.as_reader().take(DRAIN_LIMIT), &mut std::io::sink());
                return Err((413, format!("the message has more than {MAX_BODY} bytes")));
            }
            String::from_utf8(body).map_err(|e| {
                (
                    400,
                    format!(
                        "the message is not UTF-8 (invalid byte at offset {})",
                        e.utf8_error().valid_up_to()
                    ),
                )
            })
        }
        Method::Get => {
            let path = req.url().trim_start_matches('/');
            if path.is_empty() {
                return Err((
                    400,
                    "this is a GGP player: send a message such as (INFO) as the body of a POST"
                        .into(),
                ));
            }
            url_decode(path).ok_or_else(|| (400, "the URL is not a valid encoded message".into()))
        }
        m => Err((
            405,
            format!("method {m} is not supported: send messages with POST (or GET)"),
        )),
    }
}

/// Serves one request.
fn serve_one(player: &mut GgpPlayer, mut req: Request) {
    let received = Instant::now();
    if *req.method() == Method::Options {
        let _ = req.respond(reply(200, String::new()));
        return;
    }
    let handled = match message_of(&mut req) {
        Ok(body) => {
            // A fault of the player must not stop the server.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                player.handle(&body, received)
            }))
            .unwrap_or_else(|_| Handled {
                status: 500,
                reply: "internal error of the player".into(),
                log: "ggp ?: internal error (panic) while handling a message".into(),
            })
        }
        Err((status, text)) => Handled {
            status,
            log: format!("ggp ?: error {status}: {text}"),
            reply: text,
        },
    };
    eprintln!("{}", handled.log);
    let mut r = reply(handled.status, handled.reply);
    if handled.status == 405 {
        r = r.with_header(header("Allow", "POST, GET, OPTIONS"));
    }
    if let Err(e) = req.respond(r) {
        eprintln!("ggp: cannot send the reply: {e}");
    }
}

/// Listens on `addr` (e.g. `0.0.0.0:9147`; port 0 picks a free port) and
/// serves forever. `bound` is called with the address actually bound
/// before the first request.
pub fn serve(
    addr: &str,
    config: PlayerConfig,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    let server = Server::http(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| format!("{addr} is not an IP address"))?;
    bound(local);
    let mut player = GgpPlayer::new(config);
    loop {
        match server.recv_timeout(Duration::from_secs(1)) {
            Ok(Some(req)) => serve_one(&mut player, req),
            Ok(None) => {
                for id in player.expire(Instant::now()) {
                    eprintln!("ggp {id}: dropped after its clocks expired without messages");
                }
            }
            Err(e) => {
                eprintln!("ggp: cannot receive a request: {e}");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}
