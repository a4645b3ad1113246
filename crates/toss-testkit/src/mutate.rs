//! Seeded mutations of game files (byte deletions and insertions, random
//! and "interesting" bytes, duplicated spans, truncation, swapped tokens)
//! for the robustness tests of the front end and of the code generator.

/// A tiny deterministic PRNG (xorshift64*), so failures reproduce.
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> Self {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Bytes worth inserting: structure, operators, keywords' first letters,
/// NUL, stray continuation bytes and truncated multi-byte sequences.
const INTERESTING: &[&[u8]] = &[
    b"\0",
    b"\xff",
    b"\xc0",
    b"\x80",
    b"\xe2\x88",
    b"\xf0\x9f\x98",
    "∧".as_bytes(),
    "¬".as_bytes(),
    b"[",
    b"]",
    b"(",
    b")",
    b"{",
    b"}",
    b"|",
    b";",
    b",",
    b":",
    b"-",
    b"--",
    b"->",
    b"<-",
    b"<->",
    b"=",
    b"!=",
    b"'",
    b"\"",
    b"\n",
    b" ",
    b"\t",
    b"//",
    b"0",
    b"1e999",
    b"-1e-999",
    b"99999999999999999999999",
    b".",
    b"_opt_",
    b"ex ",
    b"not ",
    b"let ",
    b"tc ",
    b"lfp ",
    b"LOC ",
    b"PLAYER ",
    b"START ",
    b"RULE ",
    b"REL ",
    b"~",
    b"*",
    b"^",
];

pub fn mutate(rng: &mut XorShift, src: &[u8]) -> Vec<u8> {
    let mut s = src.to_vec();
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        let len = s.len();
        match rng.below(8) {
            // Delete a short span.
            0 if len > 0 => {
                let at = rng.below(len);
                let n = (1 + rng.below(8)).min(len - at);
                s.drain(at..at + n);
            }
            // Insert random bytes.
            1 => {
                let at = rng.below(len + 1);
                let n = 1 + rng.below(4);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                s.splice(at..at, bytes);
            }
            // Insert an interesting byte string.
            2 | 3 => {
                let at = rng.below(len + 1);
                let piece = INTERESTING[rng.below(INTERESTING.len())];
                s.splice(at..at, piece.iter().copied());
            }
            // Duplicate a span.
            4 if len > 0 => {
                let at = rng.below(len);
                let n = (1 + rng.below(64)).min(len - at);
                let span: Vec<u8> = s[at..at + n].to_vec();
                let to = rng.below(len + 1);
                s.splice(to..to, span);
            }
            // Truncate.
            5 if len > 0 => s.truncate(rng.below(len)),
            // Swap two tokens.
            6 => swap_tokens(rng, &mut s),
            // Replace one byte.
            7 if len > 0 => {
                let at = rng.below(len);
                s[at] = rng.next_u64() as u8;
            }
            _ => {}
        }
    }
    s
}

/// Swaps two whitespace-separated tokens.
fn swap_tokens(rng: &mut XorShift, s: &mut Vec<u8>) {
    let mut tokens: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, b) in s.iter().enumerate() {
        match (b.is_ascii_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(st)) => {
                tokens.push((st, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(st) = start {
        tokens.push((st, s.len()));
    }
    if tokens.len() < 2 {
        return;
    }
    let i = rng.below(tokens.len());
    let j = rng.below(tokens.len());
    let (a, b) = if tokens[i].0 <= tokens[j].0 {
        (tokens[i], tokens[j])
    } else {
        (tokens[j], tokens[i])
    };
    if a.1 > b.0 {
        return;
    }
    let mut out = Vec::with_capacity(s.len());
    out.extend_from_slice(&s[..a.0]);
    out.extend_from_slice(&s[b.0..b.1]);
    out.extend_from_slice(&s[a.1..b.0]);
    out.extend_from_slice(&s[a.0..a.1]);
    out.extend_from_slice(&s[b.1..]);
    *s = out;
}
