//! The GDL derive: `#[derive(Game)] #[toss(gdl = "game.kif")]`.
//!
//! The description is parsed and grounded at build time by `toss-gdl`
//! (`toss_gdl::ground`), exactly as the grounded form is built at run time,
//! so a game that compiles cannot fail to load. The propositional network
//! then takes one of two routes:
//!
//! - `compiled`: at most [`MAX_COMPILED_LITERALS`] literals, it is emitted
//!   as straight-line Rust, one function per phase of the network (the
//!   state phase giving terminal and the legal actions, the goal phase,
//!   the move phase giving the next state), each folded per turn-control
//!   case and the move phase per action of the mover (`fold`);
//! - `forward`: a larger network forwards to
//!   `toss_gdl::ground::GroundGame`, the network interpreted, ground once
//!   from the embedded description at first use.
//!
//! Both agree move for move with `GroundGame` and so with the reasoner
//! (`GdlGame`): the same players, legal actions in the same order, states,
//! goals, and the same random draws in a seeded playout.

mod compiled;
mod delta;
mod fold;
mod forward;

use std::path::Path;

use proc_macro2::TokenStream;
use syn::{Ident, LitStr};
use toss_gdl::ground::GroundProgram;

/// The largest network, in literals of its gates
/// ([`GroundProgram::num_literals`]), that is compiled to Rust; a larger
/// one forwards to the interpreted network, so that no derived game makes
/// a crate build for minutes. Measured on the corpus (a crate deriving one
/// game, release, 2 shared cores): each of the 55 grounded games under the
/// limit builds in at most 14 s (checkers, 55,243 literals: 6 s), while
/// speedChess (70,811) took 90-120 s and pacman3p (165,289) 105-170 s.
/// Literals are a proxy: LLVM's time grows faster than linearly in long
/// disjunctions (a gate "some move is legal" over thousands of moves) and
/// long basic blocks, and othello-comp2007 (324,688) builds in 30 s.
pub const MAX_COMPILED_LITERALS: usize = 60_000;

/// The impl for a GDL game read from `path` (`bytes`; `file` is the path
/// literal, where errors point).
pub(crate) fn expand(
    ident: &Ident,
    file: &LitStr,
    path: &Path,
    bytes: &[u8],
) -> Result<TokenStream, syn::Error> {
    let shown = file.value();
    let err = |msg: String| syn::Error::new(file.span(), msg);
    let text =
        std::str::from_utf8(bytes).map_err(|e| err(format!("{shown}: not UTF-8 text: {e}")))?;
    let desc = toss_gdl::kif::parse_gdl(text, &shown)
        .map_err(|diags| err(crate::compile_error_text(&diags, text, &shown)))?;
    let prog = toss_gdl::ground::ground(&desc).map_err(|e| err(format!("{shown}: {e}")))?;
    let path_lit = path.to_string_lossy().into_owned();
    let file_name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Ok(if prog.num_literals() <= MAX_COMPILED_LITERALS {
        compiled::compiled_impl(ident, &path_lit, &file_name, &prog)
    } else {
        forward::forwarding_impl(ident, &path_lit, &file_name, &prog)
    })
}

/// The size of the network, in the words of the doc comments.
fn size(prog: &GroundProgram) -> String {
    format!(
        "{} role(s), {} fluents, {} actions, {} gates ({} state, {} goal, {} move), \
         {} literals, {} recursive group(s)",
        prog.roles.len(),
        prog.fluents.len(),
        prog.moves.iter().map(Vec::len).sum::<usize>(),
        prog.gates.len(),
        prog.state_gates.len(),
        prog.goal_gates.len(),
        prog.move_gates.len(),
        prog.num_literals(),
        prog.loops.len()
    )
}
