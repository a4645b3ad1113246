//! What the tests of the `toss` binary share: running it from the package
//! directory, reading its output, writing temporary games.

// Each test file uses a part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Output, Stdio};

/// Runs `toss args` with no standard input.
pub fn toss(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toss"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("run toss")
}

/// Runs `toss args` with `stdin` as its standard input.
pub fn toss_with_stdin(args: &[&str], stdin: &str) -> Output {
    run(Path::new(env!("CARGO_BIN_EXE_toss")), args, stdin)
}

/// Runs `program args` from the package directory with `stdin` piped in.
pub fn run(program: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the program");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("its output")
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The value after `prefix` on the line that starts with it.
pub fn field<'a>(stdout: &'a str, prefix: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` in {stdout}"))
}

/// Writes `contents` to `name` in a directory of this test process
/// (`tag` tells the test files apart).
pub fn temp_file(tag: &str, name: &str, contents: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write game");
    path
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A `toss ggp serve` process on a free loopback port, killed when
/// dropped (on every path).
pub struct Player {
    pub child: Child,
    pub addr: String,
    /// Its standard error.
    pub log: PathBuf,
    _stdout: BufReader<ChildStdout>,
}

impl Drop for Player {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `toss ggp serve --port 0 --host 127.0.0.1 --seed SEED ARGS`,
/// its standard error in `LOG.log` in the target's temporary directory,
/// and returns once it printed the address it bound.
pub fn spawn_player(log: &str, seed: u64, args: &[&str]) -> Player {
    let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{log}.log"));
    let err = std::fs::File::create(&log).expect("log file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toss"))
        .args(["ggp", "serve", "--port", "0", "--host", "127.0.0.1"])
        .args(["--seed", &seed.to_string()])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(err)
        .spawn()
        .expect("run toss ggp serve");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let read = stdout.read_line(&mut line);
    let mut player = Player {
        child,
        addr: String::new(),
        log,
        _stdout: stdout,
    };
    assert!(read.is_ok_and(|n| n > 0), "no address from the player");
    player.addr = line
        .trim()
        .strip_prefix("toss ggp: listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    player
}
