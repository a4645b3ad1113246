//! The shared material beside the checkout (`../shared`): the GDL corpus and
//! the reference files. A test that needs it fails, with the path it looked
//! at, when it is missing: it never passes by skipping.

use std::path::PathBuf;

/// The `shared` folder beside the workspace (`TOSS_SHARED` overrides it).
/// Panics when it is not there.
pub fn shared_dir() -> PathBuf {
    let dir = match std::env::var_os("TOSS_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    assert!(
        dir.is_dir(),
        "the shared folder {} is missing: the tests read the GDL corpus and the references \
         from ../shared beside the checkout (or from $TOSS_SHARED)",
        dir.display()
    );
    dir
}

/// The GDL corpus, `shared/corpus/gdl`. Panics when it is not there.
pub fn gdl_dir() -> PathBuf {
    let dir = shared_dir().join("corpus/gdl");
    assert!(dir.is_dir(), "the GDL corpus {} is missing", dir.display());
    dir
}

/// A file of the GDL corpus (`name` relative to it), read whole. Panics with
/// the path when it cannot be read.
pub fn gdl_source(name: &str) -> String {
    let path = gdl_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
