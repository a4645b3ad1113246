//! Finding and reading the game file named in `#[toss(file = "...")]`.
//!
//! Paths are relative to the deriving crate's manifest directory, like
//! `include_str!` relative to a crate root; absolute paths are refused so a
//! crate builds the same on every machine. `TOSS_MANIFEST_DIR` overrides the
//! base directory (trybuild compiles UI tests from a scratch crate).

use std::path::{Path, PathBuf};

/// The variable that overrides `CARGO_MANIFEST_DIR` as the base of game paths.
pub const MANIFEST_DIR_OVERRIDE: &str = "TOSS_MANIFEST_DIR";

/// Why a game file could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum SourceError {
    Absolute(String),
    NoManifestDir,
    /// `shown` is the path as written in the attribute (the absolute path
    /// would leak the build machine's directories into error messages).
    Unreadable {
        shown: String,
        reason: String,
    },
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceError::Absolute(p) => write!(
                f,
                "game path `{p}` is absolute; give it relative to the crate's Cargo.toml directory"
            ),
            SourceError::NoManifestDir => {
                write!(f, "CARGO_MANIFEST_DIR is not set; build with cargo")
            }
            SourceError::Unreadable { shown, reason } => write!(
                f,
                "cannot read game file `{shown}` (relative to the crate's Cargo.toml directory): {reason}"
            ),
        }
    }
}

/// The base directory game paths are relative to.
pub fn manifest_dir() -> Result<PathBuf, SourceError> {
    std::env::var_os(MANIFEST_DIR_OVERRIDE)
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .ok_or(SourceError::NoManifestDir)
}

/// Resolves `relative` against `base`, refusing absolute paths.
pub fn resolve(base: &Path, relative: &str) -> Result<PathBuf, SourceError> {
    let p = Path::new(relative);
    if p.is_absolute() || p.has_root() {
        return Err(SourceError::Absolute(relative.to_string()));
    }
    Ok(base.join(p))
}

/// Reads a game file as text; `shown` is how errors name it.
pub fn read(path: &Path, shown: &str) -> Result<Vec<u8>, SourceError> {
    std::fs::read(path).map_err(|e| SourceError::Unreadable {
        shown: shown.to_string(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_are_refused() {
        let base = Path::new("base");
        assert_eq!(
            resolve(base, "/etc/game.toss"),
            Err(SourceError::Absolute("/etc/game.toss".into()))
        );
        assert_eq!(
            resolve(base, "games/a.toss"),
            Ok(PathBuf::from("base/games/a.toss"))
        );
    }

    #[test]
    fn missing_file_names_the_path() {
        let err = read(Path::new("/base/no/such/game.toss"), "no/such/game.toss")
            .err()
            .map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e
                .starts_with("cannot read game file `no/such/game.toss` (")
                && !e.contains("/base")),
            "{err:?}"
        );
    }
}
