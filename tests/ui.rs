//! UI tests of `#[derive(Game)]`'s errors (trybuild): each file in tests/ui/
//! must fail to compile with exactly the message in its `.stderr` file.
//! Errors inside a game file show the file, line, column and a caret.
//!
//! trybuild compiles the cases in a scratch crate, so game paths are
//! resolved against `TOSS_MANIFEST_DIR` (the derive's override of
//! `CARGO_MANIFEST_DIR`), set to this repository's root. The variable is set
//! on a child process running this same test, as the standard library only
//! sets variables of the current process unsafely.

use std::process::Command;

const OVERRIDE: &str = "TOSS_MANIFEST_DIR";

#[test]
fn derive_errors() {
    if std::env::var_os(OVERRIDE).is_none() {
        let exe = std::env::current_exe().expect("the test binary's path");
        let status = Command::new(exe)
            .args([
                "derive_errors",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(OVERRIDE, env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run the UI test in a child process");
        assert!(status.success(), "UI tests failed: {status}");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
