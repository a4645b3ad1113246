//! The lexical nesting check: brackets and binders counted on the raw text
//! before the recursive parser runs.

use crate::diagnostic::Diagnostic;

use super::{MAX_CONNECTIVES, MAX_NESTING, PResult};

/// Rejects inputs nested deeper than [`MAX_NESTING`], or with more than
/// [`MAX_CONNECTIVES`] `and`s and `or`s, before the (recursive) parser sees
/// them. Counts open brackets, plus binders, which extend as far
/// right as possible and so nest everything after them up to the closing
/// bracket of their level.
pub fn check_nesting(source: &str) -> PResult<()> {
    let bytes = source.as_bytes();
    // binders[i]: binders seen at bracket level i (level 0 = outside).
    let mut binders: Vec<usize> = vec![0];
    let mut total = 0usize;
    let mut connectives = 0usize;
    let mut i = 0;
    let too_deep = |at: usize, len: usize| {
        Diagnostic::new(
            format!("nesting too deep: more than {MAX_NESTING} levels of brackets and binders"),
            at..at + len,
        )
        .with_note(format!(
            "the front end accepts at most {MAX_NESTING} nested brackets, quantifiers, fixed points and lets"
        ))
    };
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            b'(' | b'[' | b'{' => {
                total += 1;
                binders.push(0);
                if total > MAX_NESTING {
                    return Err(too_deep(i, 1));
                }
            }
            b')' | b']' | b'}' if binders.len() > 1 => {
                let b = binders.pop().unwrap_or(0);
                total = total.saturating_sub(b + 1);
            }
            b';' => {
                if let Some(last) = binders.last_mut() {
                    total -= *last;
                    *last = 0;
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = &source[start..i];
                match word {
                    "ex" | "all" | "lfp" | "gfp" | "tc" | "let" => {
                        total += 1;
                        if let Some(last) = binders.last_mut() {
                            *last += 1;
                        }
                        if total > MAX_NESTING {
                            return Err(too_deep(start, word.len()));
                        }
                    }
                    "and" | "or" => {
                        connectives += 1;
                        if connectives > MAX_CONNECTIVES {
                            return Err(Diagnostic::new(
                                format!(
                                    "too many connectives: more than {MAX_CONNECTIVES} `and`s \
                                     and `or`s in one description"
                                ),
                                start..i,
                            )
                            .with_note(format!(
                                "the front end accepts at most {MAX_CONNECTIVES} `and`s and `or`s \
                                 in a file; this limit bounds the memory and time of loading"
                            )));
                        }
                    }
                    "REL" | "RULE" | "LOC" | "START" | "MODEL" | "HISTORY" | "PLAYERS" | "DATA"
                    | "PLAYER" | "PAYOFF" | "MOVES" | "pre" | "inv" | "post" | "update"
                    | "dynamics" | "emb" | "with" => {
                        if let Some(last) = binders.last_mut() {
                            total -= *last;
                            *last = 0;
                        }
                    }
                    _ => {}
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}
