//! Toss names for what the translation creates: relations, elements and
//! variables are identifiers (`[A-Za-z_][A-Za-z0-9_]*`, not a keyword), so
//! GDL symbols are spelled with their other characters replaced, and a
//! name already taken gets a numbered suffix.

use std::collections::{HashMap, HashSet};

/// Words of the Toss language that cannot name a relation or an element.
const KEYWORDS: &[&str] = &[
    "ex", "all", "not", "and", "or", "in", "true", "false", "lfp", "gfp", "tc", "let", "emb",
    "with", "update", "dynamics", "pre", "inv", "post",
];

/// A GDL symbol as an identifier part: ASCII letters, digits and `_` kept,
/// anything else `_`.
pub(super) fn mangle(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() { "_".to_string() } else { out }
}

/// Hands out distinct identifiers, one per key, stably: the same key always
/// gets the same name, and names follow the order keys are first asked for.
#[derive(Default)]
pub(super) struct Namer {
    taken: HashSet<String>,
    by_key: HashMap<String, String>,
}

impl Namer {
    /// The name of `key`, made from `wanted` (mangled first) on first use.
    pub fn name(&mut self, key: &str, wanted: &str) -> String {
        if let Some(n) = self.by_key.get(key) {
            return n.clone();
        }
        let mut base = mangle(wanted);
        if !base.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            base = format!("n{base}");
        }
        let mut name = base.clone();
        let mut k = 2;
        while self.taken.contains(&name) || KEYWORDS.contains(&name.as_str()) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        self.by_key.insert(key.to_string(), name.clone());
        name
    }
}
