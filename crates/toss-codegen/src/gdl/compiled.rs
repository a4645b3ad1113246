//! The impl of a GDL game compiled from its network: straight-line Rust.
//!
//! The state is one bit per fluent in `[u64; W]`, a move the index of the
//! action in its role's list. Three functions evaluate the network, each
//! only the gates its outputs read (their cone), in network order:
//! `state_phase` (terminal and one bitset of legal actions per role),
//! `payoffs` (the goal phase) and `next` (the move phase, given the chosen
//! action of every role). Fluents are read into `bool` locals, and every
//! gate is one `let` of an OR of ANDs; recursive groups are a `loop`
//! re-evaluating the group from all false until nothing changes (their
//! least fixpoint, as `GroundGame` computes it). Nothing is cached between
//! calls, so the game is `Sync` without locks.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;
use toss_gdl::ground::{GroundProgram, Lit};

use super::size;
use crate::emit::module_name;

/// The network with what emitting asks about each signal.
struct Net<'a> {
    p: &'a GroundProgram,
    /// Per gate: the recursive group it belongs to.
    loop_of: Vec<Option<usize>>,
    /// Per gate: for an input set (every clause one positive action of one
    /// role), the role and the bitset of those actions, read as one bit
    /// test of the action chosen.
    input_set: Vec<Option<(usize, Vec<u64>)>>,
    /// Per input signal (from the first): its role and action.
    inputs: Vec<(usize, usize)>,
}

impl<'a> Net<'a> {
    fn new(p: &'a GroundProgram) -> Net<'a> {
        let mut loop_of = vec![None; p.gates.len()];
        for (i, l) in p.loops.iter().enumerate() {
            l.clone().for_each(|g| loop_of[g] = Some(i));
        }
        let inputs: Vec<(usize, usize)> = p
            .moves
            .iter()
            .enumerate()
            .flat_map(|(r, ms)| (0..ms.len()).map(move |m| (r, m)))
            .collect();
        let mut net = Net {
            p,
            loop_of,
            input_set: Vec::new(),
            inputs,
        };
        net.input_set = p
            .gates
            .iter()
            .map(|g| {
                let actions: Vec<(usize, usize)> = g
                    .clauses
                    .iter()
                    .filter_map(|c| match c.as_slice() {
                        [l] if !l.negated() => net.input(*l),
                        _ => None,
                    })
                    .collect();
                let role = actions.first()?.0;
                if actions.len() != g.clauses.len() || actions.iter().any(|&(r, _)| r != role) {
                    return None;
                }
                let mut set = vec![0u64; p.moves[role].len().div_ceil(64).max(1)];
                for (_, m) in actions {
                    set[m / 64] |= 1 << (m % 64);
                }
                Some((role, set))
            })
            .collect();
        net
    }

    fn input(&self, l: Lit) -> Option<(usize, usize)> {
        let s = l.signal();
        (s >= self.p.input_base() && s < self.p.gate_base())
            .then(|| self.inputs[(s - self.p.input_base()) as usize])
    }

    fn gate(&self, l: Lit) -> Option<usize> {
        let s = l.signal();
        (s >= self.p.gate_base()).then(|| (s - self.p.gate_base()) as usize)
    }

    fn fluent(&self, l: Lit) -> Option<usize> {
        let s = l.signal();
        (s >= 1 && s < self.p.input_base()).then(|| (s - 1) as usize)
    }

    /// The gates `roots` read, directly or through other gates (a
    /// recursive group whole), in network order, and the fluents they all
    /// read, in order.
    fn cone(&self, roots: &[Lit]) -> (Vec<usize>, Vec<usize>) {
        let mut seen = vec![false; self.p.gates.len()];
        let mut fluents = vec![false; self.p.fluents.len()];
        let mut stack: Vec<Lit> = roots.to_vec();
        while let Some(l) = stack.pop() {
            if let Some(f) = self.fluent(l) {
                fluents[f] = true;
            }
            let Some(g) = self.gate(l) else { continue };
            if seen[g] {
                continue;
            }
            let group = match self.loop_of[g] {
                Some(i) => self.p.loops[i].clone(),
                None => g..g + 1,
            };
            for h in group {
                seen[h] = true;
                stack.extend(self.p.gates[h].clauses.iter().flatten());
            }
        }
        let pick = |v: Vec<bool>| -> Vec<usize> {
            v.iter().enumerate().filter(|x| *x.1).map(|x| x.0).collect()
        };
        (pick(seen), pick(fluents))
    }

    /// A literal as a `bool` expression.
    fn lit(&self, l: Lit) -> TokenStream {
        if l.is_const() {
            return if l == Lit::TRUE {
                quote! { true }
            } else {
                quote! { false }
            };
        }
        let pos = if let Some(f) = self.fluent(l) {
            let v = format_ident!("f{}", f);
            quote! { #v }
        } else if let Some((r, m)) = self.input(l) {
            let c = format_ident!("c{}", r);
            let m = Literal::u32_unsuffixed(m as u32);
            return if l.negated() {
                quote! { (#c != #m) }
            } else {
                quote! { (#c == #m) }
            };
        } else {
            let v = format_ident!("g{}", self.gate(l).unwrap_or(0));
            quote! { #v }
        };
        if l.negated() {
            quote! { !#pos }
        } else {
            pos
        }
    }

    /// Gate `g`'s value. `&` and `|` rather than `&&` and `||`: the operands
    /// are plain locals, so reading them all costs less than a branch on
    /// each.
    fn gate_expr(&self, g: usize) -> TokenStream {
        if let Some((r, set)) = &self.input_set[g] {
            let c = format_ident!("c{}", r);
            let words = set.iter().map(|w| hex(*w));
            return if set.len() == 1 {
                let w = hex(set[0]);
                quote! { (#w >> #c) & 1 != 0 }
            } else {
                quote! { ([#(#words),*][(#c >> 6) as usize] >> (#c & 63)) & 1 != 0 }
            };
        }
        let clauses: Vec<TokenStream> = self.p.gates[g]
            .clauses
            .iter()
            .map(|c| {
                let ls = c.iter().map(|&l| self.lit(l));
                quote! { (#(#ls)&*) }
            })
            .collect();
        quote! { #(#clauses)|* }
    }

    /// Reads the fluents, then evaluates the gates, in order.
    fn body(&self, gates: &[usize], fluents: &[usize]) -> TokenStream {
        let reads = fluents.iter().map(|&f| {
            let v = format_ident!("f{}", f);
            let (w, b) = (
                Literal::usize_unsuffixed(f / 64),
                Literal::usize_unsuffixed(f % 64),
            );
            quote! { let #v = (s.0[#w] >> #b) & 1 != 0; }
        });
        let mut out = quote! { #(#reads)* };
        let mut i = 0;
        while i < gates.len() {
            let g = gates[i];
            match self.loop_of[g] {
                Some(k) => {
                    let group = self.p.loops[k].clone();
                    let vars: Vec<Ident> = group.clone().map(|h| format_ident!("g{}", h)).collect();
                    let exprs = group.clone().map(|h| self.gate_expr(h));
                    out.extend(quote! {
                        #(let mut #vars = false;)*
                        loop {
                            let mut changed = false;
                            #(
                                let v = #exprs;
                                changed |= v != #vars;
                                #vars = v;
                            )*
                            if !changed {
                                break;
                            }
                        }
                    });
                    i += group.len();
                }
                None => {
                    let v = format_ident!("g{}", g);
                    let e = self.gate_expr(g);
                    out.extend(quote! { let #v = #e; });
                    i += 1;
                }
            }
        }
        out
    }
}

/// `0x...u64`.
fn hex(w: u64) -> TokenStream {
    format!("{w:#018x}u64").parse().unwrap_or_default()
}

/// The words of a bitset whose bit `i` is `bits[i]`, as expressions.
fn words(net: &Net, bits: &[Lit], n_words: usize) -> Vec<TokenStream> {
    (0..n_words)
        .map(|w| {
            let terms: Vec<TokenStream> = bits
                .iter()
                .enumerate()
                .skip(w * 64)
                .take(64)
                .filter(|(_, l)| **l != Lit::FALSE)
                .map(|(i, &l)| {
                    let e = net.lit(l);
                    let b = Literal::usize_unsuffixed(i % 64);
                    quote! { ((#e as u64) << #b) }
                })
                .collect();
            if terms.is_empty() {
                quote! { 0 }
            } else {
                quote! { #(#terms)|* }
            }
        })
        .collect()
}

pub(super) fn compiled_impl(
    ident: &Ident,
    path_lit: &str,
    file_name: &str,
    p: &GroundProgram,
) -> TokenStream {
    let net = Net::new(p);
    let module = module_name(ident);
    let nr = p.roles.len();
    let nr_lit = Literal::usize_unsuffixed(nr);
    let nf = p.fluents.len();
    let nf_lit = Literal::usize_unsuffixed(nf);
    let w = nf.div_ceil(64).max(1);
    let w_lit = Literal::usize_unsuffixed(w);
    let lw = p
        .moves
        .iter()
        .map(|m| m.len().div_ceil(64))
        .max()
        .unwrap_or(0)
        .max(1);
    let lw_lit = Literal::usize_unsuffixed(lw);

    let roles = &p.roles;
    let fluents = &p.fluents;
    let parts = p
        .fluent_parts
        .iter()
        .map(|(f, args)| quote! { (#f, &[#(#args),*]) });
    let moves = p.moves.iter().map(|ms| quote! { &[#(#ms),*] });
    let mut init = vec![0u64; w];
    for &f in &p.init {
        init[f as usize / 64] |= 1 << (f % 64);
    }
    let init = init.into_iter().map(hex);

    // The state phase: terminal and the legal actions.
    let mut roots = vec![p.terminal];
    roots.extend(p.legal.iter().flatten());
    let (gates, fl) = net.cone(&roots);
    let state_body = net.body(&gates, &fl);
    let terminal = net.lit(p.terminal);
    let legal = p.legal.iter().map(|ls| {
        let ws = words(&net, ls, lw);
        quote! { [#(#ws),*] }
    });

    // The goal phase: per role, the largest goal value that holds, else 0.
    let roots: Vec<Lit> = p.goals.iter().flatten().map(|&(_, l)| l).collect();
    let (gates, fl) = net.cone(&roots);
    let goal_body = net.body(&gates, &fl);
    let payoffs = p.goals.iter().enumerate().map(|(r, gs)| {
        let r = Literal::usize_unsuffixed(r);
        let mut e = quote! { 0.0 };
        for &(v, l) in gs {
            let c = net.lit(l);
            let v = Literal::f64_unsuffixed(v as f64);
            e = quote! { if #c { #v } else { #e } };
        }
        quote! { out[#r] = #e; }
    });

    // The move phase: the next state.
    let (gates, fl) = net.cone(&p.next);
    let move_body = net.body(&gates, &fl);
    let chosen = (0..nr).map(|r| {
        let c = format_ident!("c{}", r);
        let r = Literal::usize_unsuffixed(r);
        quote! { let #c = chosen[#r]; }
    });
    let next = words(&net, &p.next, w);

    let module_doc = format!(" The compiled network of `{file_name}`: {}.", size(p));
    let impl_doc = format!(
        " The GDL game `{file_name}` ({}). Route: compiled. The network is at most {} \
         literals, so it is compiled to straight-line Rust (the module `{module}`).",
        size(p),
        super::MAX_COMPILED_LITERALS
    );
    quote! {
        #[automatically_derived]
        impl #ident {
            /// The game description, embedded at build time.
            pub const SOURCE: &'static str = ::core::include_str!(#path_lit);

            /// The fluents of `s` in KIF, sorted, joined by spaces.
            pub fn state_to_string(&self, s: &#module::State) -> ::std::string::String {
                let mut v: ::std::vec::Vec<&str> = (0..#nf_lit)
                    .filter(|&f| (s.0[f / 64] >> (f % 64)) & 1 != 0)
                    .map(|f| #module::FLUENTS[f])
                    .collect();
                v.sort_unstable();
                v.join(" ")
            }
        }

        #[doc = #module_doc]
        #[doc(hidden)]
        #[allow(clippy::all, non_snake_case, unused_parens, unused_variables, dead_code)]
        pub mod #module {
            /// Role names.
            pub const ROLES: [&str; #nr_lit] = [#(#roles),*];
            /// The fluents in KIF; fluent `f` is bit `f` of the state.
            pub const FLUENTS: [&str; #nf_lit] = [#(#fluents),*];
            /// Each fluent's functor and argument texts.
            pub const FLUENT_PARTS: [(&str, &[&str]); #nf_lit] = [#(#parts),*];
            /// Each role's actions in KIF; a move is an index into its role's list.
            pub const MOVES: [&[&str]; #nr_lit] = [#(#moves),*];

            /// A state: bit `f` set when fluent `f` holds.
            #[derive(Clone, PartialEq, Eq, Hash, Debug)]
            pub struct State(pub [u64; #w_lit]);

            /// The initial state.
            pub const INITIAL: State = State([#(#init),*]);

            /// Per role, its legal actions as a bitset.
            pub type Legal = [[u64; #lw_lit]; #nr_lit];

            /// The state phase: whether `s` is terminal, and the legal actions.
            pub fn state_phase(s: &State) -> (bool, Legal) {
                #state_body
                (#terminal, [#(#legal),*])
            }

            /// The goal phase: each role's payoff.
            pub fn payoffs(s: &State, out: &mut [f64]) {
                #goal_body
                #(#payoffs)*
            }

            /// The move phase: the state after every role's action `chosen`.
            pub fn next(s: &State, chosen: &[u32; #nr_lit]) -> State {
                #(#chosen)*
                #move_body
                State([#(#next),*])
            }
        }

        #[doc = #impl_doc]
        #[automatically_derived]
        impl ::toss::Game for #ident {
            type State = #module::State;
            type Move = u32;

            fn player_names(&self) -> &[::std::string::String] {
                static NAMES: ::toss::__private::OnceLock<::std::vec::Vec<::std::string::String>> =
                    ::toss::__private::OnceLock::new();
                NAMES.get_or_init(|| #module::ROLES.iter().map(|r| r.to_string()).collect())
            }
            fn initial_state(&self) -> Self::State {
                #module::INITIAL
            }
            fn movers(&self, s: &Self::State, out: &mut ::std::vec::Vec<usize>) {
                out.clear();
                if !#module::state_phase(s).0 {
                    out.extend(0..#nr_lit);
                }
            }
            fn legal_moves(&self, s: &Self::State, player: usize, out: &mut ::std::vec::Vec<u32>) {
                out.clear();
                ::toss::__private::push_members(&#module::state_phase(s).1[player], out);
            }
            fn movers_and_moves(
                &self,
                s: &Self::State,
                movers: &mut ::std::vec::Vec<usize>,
                moves: &mut ::std::vec::Vec<::std::vec::Vec<u32>>,
            ) {
                movers.clear();
                let (terminal, legal) = #module::state_phase(s);
                if terminal {
                    return;
                }
                movers.extend(0..#nr_lit);
                if moves.len() < #nr_lit {
                    moves.resize_with(#nr_lit, ::std::vec::Vec::new);
                }
                for (out, set) in moves.iter_mut().zip(&legal) {
                    out.clear();
                    ::toss::__private::push_members(set, out);
                }
            }
            fn apply(&self, s: &mut Self::State, joint: &[u32], _rng: &mut ::toss::Rng) {
                let mut chosen = [0u32; #nr_lit];
                for (c, m) in chosen.iter_mut().zip(joint) {
                    *c = *m;
                }
                *s = #module::next(s, &chosen);
            }
            fn is_terminal(&self, s: &Self::State) -> bool {
                #module::state_phase(s).0
            }
            fn payoffs(&self, s: &Self::State, out: &mut [f64]) {
                #module::payoffs(s, out)
            }
            fn to_structure(&self, s: &Self::State) -> ::toss::Structure {
                ::toss::__private::fluents_structure(
                    #module::FLUENT_PARTS
                        .iter()
                        .enumerate()
                        .filter(|(f, _)| (s.0[f / 64] >> (f % 64)) & 1 != 0)
                        .map(|(_, &(functor, args))| (functor, args)),
                )
            }
            fn location(&self, _s: &Self::State) -> usize {
                0
            }
            fn has_compound_turns(&self) -> bool {
                false
            }
            fn payoff_bounds(&self) -> ::core::option::Option<(f64, f64)> {
                ::core::option::Option::Some((0.0, 100.0))
            }
            fn move_to_string(&self, _s: &Self::State, player: usize, m: &u32) -> ::std::string::String {
                #module::MOVES[player][*m as usize].to_string()
            }
            /// The trait's playout with the legal actions kept as bitsets:
            /// every role moves in every ply (so a turn is a ply), and the
            /// draws are the trait's, one `index_below` per role in order.
            fn random_playout_from(
                &self,
                s: &mut Self::State,
                rng: &mut ::toss::Rng,
                max_turns: usize,
            ) -> (usize, ::toss::Payoffs) {
                let mut turns = 0;
                'play: loop {
                    let (terminal, legal) = #module::state_phase(s);
                    if terminal || turns >= max_turns {
                        break;
                    }
                    let mut chosen = [0u32; #nr_lit];
                    for (c, set) in chosen.iter_mut().zip(&legal) {
                        let n = ::toss::__private::count_members(set);
                        if n == 0 {
                            break 'play;
                        }
                        *c = ::toss::__private::nth_member(set, ::toss::__private::index_below(rng, n));
                    }
                    *s = #module::next(s, &chosen);
                    turns += 1;
                }
                let mut pay = ::toss::Payoffs::from_elem(0.0, #nr_lit);
                #module::payoffs(s, &mut pay);
                (turns, pay)
            }
        }
    }
}
