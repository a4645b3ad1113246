//! The impl of a GDL game compiled from its network: straight-line Rust.
//!
//! The state is one bit per fluent in `[u64; W]`, a move the index of the
//! action in its role's list. Three functions evaluate the network, each
//! only the gates its outputs read (their cone), in network order:
//! `state_phase` (terminal and one bitset of legal actions per role),
//! `payoffs` (the goal phase) and `next` (the move phase, given the chosen
//! action of every role). Fluents are read into `bool` locals, and every
//! gate is one `let` of an OR of ANDs, the
//! fluents of one state word in a conjunction read as one mask test, and
//! so the clauses of a single fluent; recursive groups are a `loop`
//! re-evaluating the group from all false until nothing changes (their
//! least fixpoint, as `GroundGame` computes it). Nothing is cached between
//! calls, so the game is `Sync` without locks.
//!
//! In a turn-based game (a turn control found by `fold::find_control`),
//! both `state_phase` and `next` branch first on which control fluent
//! holds, and each branch is the network folded under it: the other roles'
//! legal actions fold to their single `noop`, so only the mover's cone is
//! evaluated. `next` then branches on the mover's action, each arm the
//! network folded under that action, computing only the fluents the action
//! may change (the others are copied from the state as one mask), as long
//! as the arms stay within [`PER_ACTION_BUDGET`].
//!
//! When every arm's terminal pays incrementally (`delta`), the state has
//! one more bit, terminal, that each arm sets from the fluents it changed;
//! the state phase then reads it instead of evaluating terminal. Otherwise
//! terminal is evaluated in the state phase with the legal actions, whose
//! gates it often shares ("no legal move").

use std::cell::Cell;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;
use toss_gdl::ground::{GroundProgram, Lit};

use super::delta::{TerminalDelta, eval_cost};
use super::fold::{Control, Fold, action_fixed, case_fixed, find_control, loop_groups};
use super::size;
use crate::emit::module_name;

/// The network with what emitting asks about each signal.
struct Net<'a> {
    p: &'a GroundProgram,
    /// Per gate: the recursive group it belongs to.
    loop_of: &'a [Option<usize>],
    /// Per input signal (from the first): its role and action.
    inputs: Vec<(usize, usize)>,
    /// When the state carries its terminal bit, set by the move phase:
    /// terminal after each action of the mover, from what it changed.
    /// `None`: terminal is evaluated in the state phase.
    delta: Option<TerminalDelta<'a>>,
    /// What the incremental terminals emitted so far cost
    /// ([`eval_cost`]), against their budget.
    delta_spent: Cell<usize>,
}

impl<'a> Net<'a> {
    fn new(p: &'a GroundProgram, loop_of: &'a [Option<usize>], incremental: bool) -> Net<'a> {
        let inputs: Vec<(usize, usize)> = p
            .moves
            .iter()
            .enumerate()
            .flat_map(|(r, ms)| (0..ms.len()).map(move |m| (r, m)))
            .collect();
        Net {
            p,
            loop_of,
            inputs,
            delta: incremental.then(|| TerminalDelta::new(p, loop_of)),
            delta_spent: Cell::new(0),
        }
    }

    /// Words of a state: the fluents, then the terminal bit if any.
    fn state_words(&self) -> usize {
        (self.p.fluents.len() + self.delta.is_some() as usize)
            .div_ceil(64)
            .max(1)
    }

    fn fold(&self, fixed: &[(u32, bool)]) -> Fold<'_> {
        Fold::new(self.p, self.loop_of, fixed)
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
        self.p.fluent_of(l)
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

    /// For an input set (every clause one positive action of one role):
    /// the role and the bitset of those actions, read as one bit test of
    /// the action chosen.
    fn input_set(&self, clauses: &[Vec<Lit>]) -> Option<(usize, Vec<u64>)> {
        let actions: Vec<(usize, usize)> = clauses
            .iter()
            .filter_map(|c| match c.as_slice() {
                [l] if !l.negated() => self.input(*l),
                _ => None,
            })
            .collect();
        let role = actions.first()?.0;
        if actions.len() != clauses.len() || actions.iter().any(|&(r, _)| r != role) {
            return None;
        }
        let mut set = vec![0u64; self.p.moves[role].len().div_ceil(64).max(1)];
        for (_, m) in actions {
            set[m / 64] |= 1 << (m % 64);
        }
        Some((role, set))
    }

    /// Gate `g`'s value in `fold`. `&` and `|` rather than `&&` and `||`:
    /// the operands are plain locals, so reading them all costs less than
    /// a branch on each.
    fn gate_expr(&self, fold: &Fold, g: usize) -> TokenStream {
        let clauses = &fold.clauses[g];
        if let Some((r, set)) = self.input_set(clauses) {
            let c = format_ident!("c{}", r);
            let words = set.iter().map(|w| hex(*w));
            return if set.len() == 1 {
                let w = hex(set[0]);
                quote! { (#w >> #c) & 1 != 0 }
            } else {
                quote! { ([#(#words),*][(#c >> 6) as usize] >> (#c & 63)) & 1 != 0 }
            };
        }
        if clauses.is_empty() {
            return quote! { false };
        }
        // Clauses of one fluent each, per state word and sign, are one
        // mask test of the word ("some cell holds a black piece").
        let mut any: Vec<(usize, bool, u64)> = Vec::new();
        let mut rest: Vec<TokenStream> = Vec::new();
        for c in clauses {
            match c.as_slice() {
                [l] if self.fluent(*l).is_some() => {
                    let f = self.fluent(*l).unwrap_or(0);
                    let key = (f / 64, l.negated());
                    match any.iter_mut().find(|a| (a.0, a.1) == key) {
                        Some(a) => a.2 |= 1 << (f % 64),
                        None => any.push((key.0, key.1, 1 << (f % 64))),
                    }
                }
                _ => rest.push(self.clause(c)),
            }
        }
        let mut terms: Vec<TokenStream> = any
            .iter()
            .map(|&(w, neg, mask)| {
                let (w, m) = (Literal::usize_unsuffixed(w), hex(mask));
                if neg {
                    quote! { ((s.0[#w] & #m) != #m) }
                } else {
                    quote! { ((s.0[#w] & #m) != 0) }
                }
            })
            .collect();
        terms.extend(rest);
        quote! { #(#terms)|* }
    }

    /// A conjunction. Two or more fluents of one state word are one mask
    /// test of the word (a line of four cells is one `and` and one
    /// compare, where four bits read one by one were eight operations).
    fn clause(&self, c: &[Lit]) -> TokenStream {
        if c.is_empty() {
            return quote! { true };
        }
        let masks = self.word_masks(c);
        let masked = |l: &Lit| {
            self.fluent(*l)
                .is_some_and(|f| masks.iter().any(|m| m.0 == f / 64))
        };
        let mut ls: Vec<TokenStream> = masks
            .iter()
            .map(|&(w, mask, pos)| {
                let (wl, mask, pos) = (Literal::usize_unsuffixed(w), hex(mask), hex(pos));
                quote! { ((s.0[#wl] & #mask) == #pos) }
            })
            .collect();
        ls.extend(c.iter().filter(|l| !masked(l)).map(|&l| self.lit(l)));
        quote! { (#(#ls)&*) }
    }

    /// The state words a conjunction reads two or more fluents of, each
    /// with the mask of those fluents and of those read positively.
    fn word_masks(&self, c: &[Lit]) -> Vec<(usize, u64, u64)> {
        let mut masks: Vec<(usize, u64, u64)> = Vec::new();
        for &l in c {
            let Some(f) = self.fluent(l) else { continue };
            let (w, bit) = (f / 64, 1u64 << (f % 64));
            let at = match masks.iter().position(|m| m.0 == w) {
                Some(at) => at,
                None => {
                    masks.push((w, 0, 0));
                    masks.len() - 1
                }
            };
            masks[at].1 |= bit;
            if !l.negated() {
                masks[at].2 |= bit;
            }
        }
        masks.retain(|m| m.1.count_ones() > 1);
        masks
    }

    /// Marks in `need` the fluents that clauses `cs` read as `bool`
    /// locals: those not read in a mask test. `gate`: the clauses are a
    /// gate's, emitted by [`Self::gate_expr`] (which reads the clauses of
    /// a single fluent as masks too), not each by [`Self::clause`].
    fn locals_of(&self, cs: &[Vec<Lit>], gate: bool, need: &mut [bool]) {
        if gate && self.input_set(cs).is_some() {
            return;
        }
        for c in cs {
            if let [l] = c.as_slice()
                && gate
                && self.fluent(*l).is_some()
            {
                continue;
            }
            let masks = self.word_masks(c);
            for &l in c {
                if let Some(f) = self.fluent(l)
                    && !masks.iter().any(|m| m.0 == f / 64)
                {
                    need[f] = true;
                }
            }
        }
    }

    /// Reads the fluents into `bool` locals, then evaluates the gates of
    /// `fold` that `roots` (resolved) read, in order. (A fluent read where
    /// it is used instead made Breakthrough's derive build for two minutes
    /// instead of seconds.)
    fn body(&self, fold: &Fold, roots: &[Lit]) -> TokenStream {
        self.body_with(fold, roots, &[])
    }

    /// [`Self::body`] for `roots` read one by one and the literals of
    /// `clauses` read as conjunctions: only the fluents they or the gates
    /// read outside mask tests are read into locals.
    fn body_with(&self, fold: &Fold, roots: &[Lit], clauses: &[Vec<Lit>]) -> TokenStream {
        let all: Vec<Lit> = roots
            .iter()
            .chain(clauses.iter().flatten())
            .copied()
            .collect();
        let (gates, _) = fold.cone(&all);
        let mut need = vec![false; self.p.fluents.len()];
        for &l in roots {
            if let Some(f) = self.fluent(l) {
                need[f] = true;
            }
        }
        self.locals_of(clauses, false, &mut need);
        for &g in &gates {
            self.locals_of(&fold.clauses[g], true, &mut need);
        }
        let fluents = (0..need.len()).filter(|&f| need[f]);
        let reads = fluents.map(|f| {
            let v = format_ident!("f{}", f);
            let b = self.bit(f);
            quote! { let #v = #b; }
        });
        let mut out = quote! { #(#reads)* };
        let mut i = 0;
        while i < gates.len() {
            let g = gates[i];
            match self.loop_of[g] {
                Some(k) => {
                    let group = self.p.loops[k].clone();
                    let vars: Vec<Ident> = group.clone().map(|h| format_ident!("g{}", h)).collect();
                    let exprs = group.clone().map(|h| self.gate_expr(fold, h));
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
                    let e = self.gate_expr(fold, g);
                    out.extend(quote! { let #v = #e; });
                    i += 1;
                }
            }
        }
        out
    }

    /// The terminal bit of `s`, as a `bool` expression.
    fn terminal_bit(&self) -> TokenStream {
        self.bit(self.p.fluents.len())
    }

    /// Terminal under `fixed`, evaluated on `s`: the body, then the value.
    fn terminal_phase(&self, fixed: &[(u32, bool)]) -> TokenStream {
        let mut fold = self.fold(fixed);
        let res = fold.run(&[self.p.terminal]);
        let body = self.body(&fold, &res);
        let t = self.lit(res[0]);
        quote! { #body #t }
    }

    /// `s` has fluent `f`, as a `bool` expression.
    fn bit(&self, f: usize) -> TokenStream {
        let (w, b) = (
            Literal::usize_unsuffixed(f / 64),
            Literal::usize_unsuffixed(f % 64),
        );
        quote! { (s.0[#w] >> #b) & 1 != 0 }
    }

    /// The state phase under `fixed`: the body, then `(terminal, legal)`,
    /// terminal read from the state's terminal bit if it has one.
    fn state_phase(&self, fixed: &[(u32, bool)], lw: usize) -> TokenStream {
        let p = self.p;
        let evaluates_terminal = self.delta.is_none();
        let mut roots: Vec<Lit> = evaluates_terminal
            .then_some(p.terminal)
            .into_iter()
            .collect();
        roots.extend(p.legal.iter().flatten());
        let mut fold = self.fold(fixed);
        let res = fold.run(&roots);
        let body = self.body(&fold, &res);
        let terminal = if evaluates_terminal {
            self.lit(res[0])
        } else {
            self.terminal_bit()
        };
        let mut at = evaluates_terminal as usize;
        let legal = p.legal.iter().map(|ls| {
            let ws = words(self, &res[at..at + ls.len()], lw);
            at += ls.len();
            quote! { [#(#ws),*] }
        });
        let legal: Vec<TokenStream> = legal.collect();
        quote! {
            #body
            (#terminal, [#(#legal),*])
        }
    }

    /// The move phase under `fixed`, every role's chosen action a
    /// variable: the body, then the next state.
    fn move_phase(&self, fixed: &[(u32, bool)]) -> TokenStream {
        let mut fold = self.fold(fixed);
        let res = fold.run(&self.p.next);
        let body = self.body(&fold, &res);
        let chosen = self.chosen(&fold, &res);
        // Only without the terminal bit (see `phases`).
        let next = words(self, &res, self.state_words());
        quote! {
            #chosen
            #body
            State([#(#next),*])
        }
    }

    /// Terminal in the next state after a move from a state under `fixed`
    /// that changes only the fluents of `changed` (with their new values),
    /// read from `s` (which the caller binds to the next state): the
    /// clauses of [`TerminalDelta`], folded under what is known of the
    /// next state. `None` when that does not pay (it costs more than half
    /// the whole terminal, both in [`eval_cost`]) or all actions together
    /// exceed the budget of [`PER_ACTION_BUDGET`] times the whole, plus
    /// [`PER_ACTION_SLACK`] (the code's size, and the build time).
    fn terminal_after(
        &self,
        fixed: &[(u32, bool)],
        changed: &[(usize, Lit)],
        delta: &TerminalDelta,
    ) -> Option<TokenStream> {
        let p = self.p;
        let mut set = vec![0u64; p.fluents.len().div_ceil(64).max(1)];
        for &(f, _) in changed {
            set[f / 64] |= 1 << (f % 64);
        }
        let clauses = delta.clauses(&set);
        // Known in the next state: the fixed fluents the move keeps, and
        // the fluents it sets to a constant.
        let kept = fixed.iter().filter(|&&(sig, _)| {
            self.fluent(Lit::new(sig, false))
                .is_some_and(|f| set[f / 64] >> (f % 64) & 1 == 0)
        });
        let mut next_fixed: Vec<(u32, bool)> = kept.copied().collect();
        next_fixed.extend(
            changed
                .iter()
                .filter(|(_, l)| l.is_const())
                .map(|&(f, l)| (p.fluent_signal(f), l == Lit::TRUE)),
        );
        let mut fold = self.fold(&next_fixed);
        let lits: Vec<Lit> = clauses.iter().flatten().copied().collect();
        let res = fold.run(&lits);
        let mut at = 0;
        let mut resolved: Vec<Vec<Lit>> = Vec::new();
        for c in &clauses {
            let r = &res[at..at + c.len()];
            at += c.len();
            if !r.contains(&Lit::FALSE) {
                resolved.push(r.iter().copied().filter(|&l| l != Lit::TRUE).collect());
            }
        }
        let cost = eval_cost(&fold, &resolved);
        let budget = PER_ACTION_BUDGET * delta.full_cost + PER_ACTION_SLACK;
        let spent = self.delta_spent.get() + cost;
        if 2 * cost > delta.full_cost || spent > budget {
            return None;
        }
        self.delta_spent.set(spent);
        if resolved.iter().any(Vec::is_empty) {
            return Some(quote! { true });
        }
        if resolved.is_empty() {
            return Some(quote! { false });
        }
        let body = self.body_with(&fold, &[], &resolved);
        let cs = resolved.iter().map(|c| self.clause(c));
        Some(quote! { #body #(#cs)|* })
    }

    /// `let cR = chosen[R];` for the roles whose action `roots` read.
    fn chosen(&self, fold: &Fold, roots: &[Lit]) -> TokenStream {
        let (gates, _) = fold.cone(roots);
        let mut read = vec![false; self.p.roles.len()];
        let lits = gates
            .iter()
            .flat_map(|&g| fold.clauses[g].iter().flatten())
            .chain(roots);
        for &l in lits {
            if let Some((r, _)) = self.input(l) {
                read[r] = true;
            }
        }
        let reads = read.iter().enumerate().filter(|x| *x.1).map(|(r, _)| {
            let c = format_ident!("c{}", r);
            let r = Literal::usize_unsuffixed(r);
            quote! { let #c = chosen[#r]; }
        });
        quote! { #(#reads)* }
    }

    /// The move phase in a case where role `r` alone chooses (the others
    /// are forced, fixed in `fixed`): the fluents no action changes are
    /// computed once; then, per action of `r`, only the fluents it
    /// changes. `None` when the actions' code would exceed
    /// [`PER_ACTION_BUDGET`] times the move phase's, plus
    /// [`PER_ACTION_SLACK`] literals.
    fn move_phase_per_action(&self, fixed: &[(u32, bool)], r: usize) -> Option<TokenStream> {
        let p = self.p;
        let w = self.state_words();
        let mut fold = self.fold(fixed);
        let mut roots = p.next.clone();
        roots.extend(&p.legal[r]);
        let res = fold.run(&roots);
        let (next, legal) = res.split_at(p.fluents.len());
        let budget = PER_ACTION_BUDGET * fold.cost(next) + PER_ACTION_SLACK;
        let mut memo = vec![None; p.gates.len()];
        let dep: Vec<bool> = next
            .iter()
            .map(|&l| fold.reads_input(l, &mut memo))
            .collect();
        // The fluents that read no input and do not keep their bit:
        // computed once, here; the others start as their bit in `s`.
        let same = |f: usize, l: Lit| l == Lit::new(p.fluent_signal(f), false);
        let indep: Vec<Lit> = next
            .iter()
            .zip(&dep)
            .enumerate()
            .map(|(f, (&l, &d))| if d || same(f, l) { Lit::FALSE } else { l })
            .collect();
        let body = self.body(&fold, &indep);
        let indep_words = words(self, &indep, w);
        let mut dep_mask = vec![0u64; w];
        for (f, &l) in next.iter().enumerate() {
            if dep[f] || same(f, l) {
                dep_mask[f / 64] |= 1 << (f % 64);
            }
        }
        let dep_roots: Vec<Lit> = p
            .next
            .iter()
            .zip(&dep)
            .filter(|x| *x.1)
            .map(|x| *x.0)
            .collect();
        let dep_fluents: Vec<usize> = (0..p.fluents.len()).filter(|&f| dep[f]).collect();
        // The fluents every action may change: those computed once.
        let indep_changed: Vec<(usize, Lit)> = next
            .iter()
            .enumerate()
            .filter(|&(f, &l)| !dep[f] && !same(f, l))
            .map(|(f, &l)| (f, l))
            .collect();
        let mut spent = 0;
        let mut arms = Vec::new();
        for (m, &l) in legal.iter().enumerate() {
            if l == Lit::FALSE {
                continue;
            }
            let mut fixed_m = fixed.to_vec();
            fixed_m.extend(action_fixed(p, r, m));
            let mut fold = self.fold(&fixed_m);
            let res = fold.run(&dep_roots);
            // The fluents this action changes (the others keep their bit).
            let changed: Vec<(usize, Lit)> = dep_fluents
                .iter()
                .zip(&res)
                .filter(|&(&f, &l)| !same(f, l))
                .map(|(&f, &l)| (f, l))
                .collect();
            if changed.is_empty() {
                continue;
            }
            let ls: Vec<Lit> = changed.iter().map(|x| x.1).collect();
            spent += fold.cost(&ls) + ls.len();
            if spent > budget {
                return None;
            }
            let body = self.body(&fold, &ls);
            let mut sets = Vec::new();
            for word in 0..w {
                let in_word: Vec<&(usize, Lit)> =
                    changed.iter().filter(|(f, _)| f / 64 == word).collect();
                if in_word.is_empty() {
                    continue;
                }
                let mask = hex(in_word.iter().fold(0u64, |a, (f, _)| a | 1 << (f % 64)));
                let bits = in_word
                    .iter()
                    .filter(|(_, l)| *l != Lit::FALSE)
                    .map(|&&(f, l)| {
                        let e = self.lit(l);
                        let b = Literal::usize_unsuffixed(f % 64);
                        quote! { ((#e as u64) << #b) }
                    });
                let bits: Vec<TokenStream> = bits.collect();
                let word = Literal::usize_unsuffixed(word);
                sets.push(if bits.is_empty() {
                    quote! { o[#word] &= !#mask; }
                } else {
                    quote! { o[#word] = (o[#word] & !#mask) | #(#bits)|*; }
                });
            }
            let m = Literal::u32_unsuffixed(m as u32);
            let arm = quote! { #body #(#sets)* };
            arms.push(match &self.delta {
                Some(delta) => {
                    let mut all_changed = indep_changed.clone();
                    all_changed.extend(&changed);
                    let t = self.terminal_after(fixed, &all_changed, delta)?;
                    quote! { #m => { #arm { let s = &State(o); #t } } }
                }
                None => quote! { #m => { #arm } },
            });
        }
        let c = format_ident!("c{}", r);
        let r_lit = Literal::usize_unsuffixed(r);
        let init = indep_words
            .iter()
            .zip(&dep_mask)
            .enumerate()
            .map(|(i, (e, &m))| {
                let i = Literal::usize_unsuffixed(i);
                if m == 0 {
                    quote! { #e }
                } else {
                    let m = hex(m);
                    quote! { (s.0[#i] & #m) | #e }
                }
            });
        let dispatch = match &self.delta {
            None => quote! {
                match #c {
                    #(#arms)*
                    _ => {}
                }
            },
            Some(delta) => {
                let default_terminal = self.terminal_after(fixed, &indep_changed, delta)?;
                let old_terminal = self.terminal_bit();
                let (tw, tb) = (
                    Literal::usize_unsuffixed(p.fluents.len() / 64),
                    Literal::usize_unsuffixed(p.fluents.len() % 64),
                );
                quote! {
                    let t = match #c {
                        #(#arms)*
                        _ => { let s = &State(o); #default_terminal }
                    };
                    // A move from a terminal state (outside any play):
                    // terminal evaluated whole, as the incremental form
                    // assumes it false.
                    let t = if #old_terminal { terminal(&State(o)) } else { t };
                    o[#tw] |= (t as u64) << #tb;
                }
            }
        };
        Some(quote! {
            let #c = chosen[#r_lit];
            #body
            let mut o = [#(#init),*];
            #dispatch
            State(o)
        })
    }
}

/// Per case of the turn control, the code of a phase, then the code
/// without the control fixed when the cases do not cover every state.
fn by_case(net: &Net, ctl: &Control, cases: Vec<TokenStream>, rest: TokenStream) -> TokenStream {
    let n = cases.len();
    let mut out = if ctl.exclusive {
        quote! { unreachable!() }
    } else {
        rest
    };
    for (k, code) in cases.into_iter().enumerate().rev() {
        if ctl.exclusive && k == n - 1 {
            out = quote! { { #code } };
            continue;
        }
        let test = if ctl.exclusive {
            net.bit(ctl.fluents[k])
        } else {
            let ts = ctl.fluents.iter().enumerate().map(|(i, &f)| {
                let b = net.bit(f);
                if i == k {
                    quote! { (#b) }
                } else {
                    quote! { !(#b) }
                }
            });
            quote! { #(#ts)&&* }
        };
        out = quote! { if #test { #code } else { #out } };
    }
    out
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

/// The per-action move phase is emitted when its actions' code, all
/// together, is at most this many times the literals of the move phase
/// (plus [`PER_ACTION_SLACK`]): each action's code is small, but their
/// number multiplies it, and build time with it. Measured (release, 2
/// shared cores): reversi, 3.4 times, builds in 43 s and plays 2.4 times
/// faster; checkers (5 times) and 2pffa (19 times) stay whole, as their
/// per-action code made checkers build for 10 minutes.
const PER_ACTION_BUDGET: usize = 4;
/// See [`PER_ACTION_BUDGET`].
const PER_ACTION_SLACK: usize = 2_000;

/// The code of the state, move and terminal phases.
struct Phases {
    state: TokenStream,
    next: TokenStream,
    terminal: TokenStream,
}

/// Words of a bitset of the legal actions of any role.
fn legal_words(p: &GroundProgram) -> usize {
    p.moves
        .iter()
        .map(|m| m.len().div_ceil(64))
        .max()
        .unwrap_or(0)
        .max(1)
}

/// The phases of `net`, split on the turn control when there is one:
/// each case evaluates only what its mover's actions need. `None` when
/// `net` has the terminal bit and some move phase is not per action or
/// some action's terminal does not pay incrementally.
fn phases<'a>(net: Net<'a>, ctl: Option<&Control>) -> Option<(Net<'a>, Phases)> {
    let p = net.p;
    let lw = legal_words(p);
    let incremental = net.delta.is_some();
    // The terminal bit needs every state's move phase per action.
    if incremental && !ctl.is_some_and(|c| c.exclusive) {
        return None;
    }
    let Some(ctl) = ctl else {
        let phases = Phases {
            state: net.state_phase(&[], lw),
            next: net.move_phase(&[]),
            terminal: net.terminal_phase(&[]),
        };
        return Some((net, phases));
    };
    let mut states = Vec::new();
    let mut moves = Vec::new();
    let mut terminals = Vec::new();
    for (k, forced) in ctl.forced.iter().enumerate() {
        let fixed = case_fixed(p, &ctl.fluents, k);
        states.push(net.state_phase(&fixed, lw));
        terminals.push(net.terminal_phase(&fixed));
        let mut fixed = fixed;
        for (r, m) in forced.iter().enumerate() {
            if let Some(m) = m {
                fixed.extend(action_fixed(p, r, *m));
            }
        }
        let movers: Vec<usize> = (0..p.roles.len())
            .filter(|&r| forced[r].is_none())
            .collect();
        let per_action = match movers.as_slice() {
            [r] => net.move_phase_per_action(&fixed, *r),
            _ => None,
        };
        match per_action {
            Some(code) => moves.push(code),
            None if incremental => return None,
            None => moves.push(net.move_phase(&fixed)),
        }
    }
    let rest = if ctl.exclusive {
        (TokenStream::new(), TokenStream::new(), TokenStream::new())
    } else {
        (
            net.state_phase(&[], lw),
            net.move_phase(&[]),
            net.terminal_phase(&[]),
        )
    };
    let phases = Phases {
        state: by_case(&net, ctl, states, rest.0),
        next: by_case(&net, ctl, moves, rest.1),
        terminal: by_case(&net, ctl, terminals, rest.2),
    };
    Some((net, phases))
}

pub(super) fn compiled_impl(
    ident: &Ident,
    path_lit: &str,
    file_name: &str,
    p: &GroundProgram,
) -> TokenStream {
    let loop_of = loop_groups(p);
    let ctl = find_control(p, &loop_of);
    // The terminal bit when every move's terminal pays incrementally,
    // otherwise terminal evaluated with the legal actions it shares gates
    // with (as "no legal move" in reversi).
    let (net, phases) = match phases(Net::new(p, &loop_of, true), ctl.as_ref()) {
        Some(done) => done,
        None => phases(Net::new(p, &loop_of, false), ctl.as_ref())
            .expect("without the terminal bit every phase is emitted"),
    };
    let Phases {
        state: state_code,
        next: move_code,
        terminal: terminal_code,
    } = phases;
    let module = module_name(ident);
    let nr = p.roles.len();
    let nr_lit = Literal::usize_unsuffixed(nr);
    let nf = p.fluents.len();
    let nf_lit = Literal::usize_unsuffixed(nf);
    let w = net.state_words();
    let w_lit = Literal::usize_unsuffixed(w);
    let lw_lit = Literal::usize_unsuffixed(legal_words(p));

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
    if net.delta.is_some() {
        let ground = toss_gdl::ground::GroundGame::new(p.clone());
        if ground.terminal(&toss_core::game::Game::initial_state(&ground)) {
            init[nf / 64] |= 1 << (nf % 64);
        }
    }
    let init = init.into_iter().map(hex);

    // The goal phase: per role, the largest goal value that holds, else 0.
    let roots: Vec<Lit> = p.goals.iter().flatten().map(|&(_, l)| l).collect();
    let mut fold = net.fold(&[]);
    let res = fold.run(&roots);
    let goal_body = net.body(&fold, &res);
    let mut at = 0;
    let payoffs = p.goals.iter().enumerate().map(|(r, gs)| {
        let r = Literal::usize_unsuffixed(r);
        let mut e = quote! { 0.0 };
        for &(v, _) in gs {
            let c = net.lit(res[at]);
            at += 1;
            let v = Literal::f64_unsuffixed(v as f64);
            e = quote! { if #c { #v } else { #e } };
        }
        quote! { out[#r] = #e; }
    });
    let payoffs: Vec<TokenStream> = payoffs.collect();

    let (tw, tb) = (
        Literal::usize_unsuffixed(nf / 64),
        Literal::usize_unsuffixed(nf % 64),
    );
    let (state_doc, terminal_bit_code) = if net.delta.is_some() {
        (
            format!(
                " A state: bit `f` set when fluent `f` holds, and bit {nf} when the \
                 state is terminal (set by `next`, from what the move changed)."
            ),
            quote! {
                /// Whether `s` is terminal: its terminal bit.
                pub fn is_terminal(s: &State) -> bool {
                    (s.0[#tw] >> #tb) & 1 != 0
                }
            },
        )
    } else {
        (
            " A state: bit `f` set when fluent `f` holds.".to_string(),
            quote! {
                /// Whether `s` is terminal.
                pub fn is_terminal(s: &State) -> bool {
                    terminal(s)
                }
            },
        )
    };
    let module_doc = format!(" The compiled network of `{file_name}`: {}.", size(p));
    let impl_doc = format!(
        " The GDL game `{file_name}` ({}). Route: compiled. The network is at most {} \
         literals, so it is compiled to straight-line Rust (the module `{module}`). {}",
        size(p),
        super::MAX_COMPILED_LITERALS,
        if net.delta.is_some() {
            "Terminal: incremental, a bit of the state that each action of the mover \
             updates from the fluents it changed."
        } else {
            "Terminal: evaluated in the state phase, with the legal actions."
        }
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

            #[doc = #state_doc]
            #[derive(Clone, PartialEq, Eq, Hash, Debug)]
            pub struct State(pub [u64; #w_lit]);

            /// The initial state.
            pub const INITIAL: State = State([#(#init),*]);

            /// Whether `s` is terminal, evaluated whole.
            pub fn terminal(s: &State) -> bool {
                #terminal_code
            }

            #terminal_bit_code

            /// Per role, its legal actions as a bitset.
            pub type Legal = [[u64; #lw_lit]; #nr_lit];

            /// The state phase: whether `s` is terminal, and the legal actions.
            pub fn state_phase(s: &State) -> (bool, Legal) {
                #state_code
            }

            /// The goal phase: each role's payoff.
            pub fn payoffs(s: &State, out: &mut [f64]) {
                #goal_body
                #(#payoffs)*
            }

            /// The move phase: the state after every role's action `chosen`.
            pub fn next(s: &State, chosen: &[u32; #nr_lit]) -> State {
                #move_code
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
                if !#module::is_terminal(s) {
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
                #module::is_terminal(s)
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
            fn state_key(&self, s: &Self::State, out: &mut ::std::vec::Vec<u64>) -> bool {
                ::toss::__private::hash_words(s, out);
                true
            }
            fn stable_keys(&self) -> bool {
                true
            }
            fn has_chance(&self) -> bool {
                false
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
