//! The demand (magic-sets) transformation, restricted to the relations of
//! the state and move levels.
//!
//! Rules written for top-down provers often carry arguments that every
//! caller binds, such as the square a move ignores in
//! `(queenMoveIgnoring ?xIg ?yIg ?x1 ?y1 ?x2 ?y2)`; bottom-up evaluation
//! would derive such a relation for every value of those arguments. Here
//! each call of such a relation gets an adorned copy of it for the argument
//! positions the call binds (one copy per relation, set of bound positions
//! and level of the demand, shared by the calls that agree on these), with
//! a demand relation over those positions: each call site adds the values
//! it asks for (derived from the positive literals before the call, in the
//! order the rule is written, and from its own rule's demand), and each rule
//! of the copy reads its demand first. The copy is then derived only for
//! the values asked for, and is exact on them. A relation called with no
//! bound position is used as it is.
//!
//! Levels: a call in a `next` rule may bind more arguments with `does` than
//! without, as chess.kif's `(rook_threatens ?opponent ?x ?y ?kx ?ky ?u ?v)`
//! binds the ignored square `(?u, ?v)` only through the move. Such a call
//! gets a copy whose demand is at the move level (the copy is then
//! evaluated per joint move, for the squares of that move); a call whose
//! bound positions are the same without the move-level literals gets a
//! state-level copy. A copy is never above its caller's level, so the level
//! of every relation of the description stays as it was (the caller
//! checks this).
//!
//! A negative literal is tested once its variables are bound; its demand
//! comes from the positive literals written before it when they bind all
//! its variables (as a top-down prover requires), else from all positive
//! literals of the rule. Demand can still make a program unstratified (a
//! demand rule reading a relation that depends negatively on the callee);
//! the caller then retries without demand for negative literals, and
//! keeps the untransformed program when that fails too.
//!
//! Termination: a position counts as bound at a call site only if its term
//! is ground, a variable, or a function term whose variables are bound by
//! ordinary literals of the body, so demand values are terms of the
//! untransformed model or one function application over them: a finite set
//! whenever that model is finite.

use std::collections::{HashMap, HashSet, VecDeque};

use super::reasoner::{MOVE, STATE};
use super::{Atom, Description, Literal, Rule, Sym, Term};

/// At most this many adorned copies (the transformation is only an
/// optimisation; past this the description is evaluated as written).
const MAX_COPIES: usize = 4096;

/// Placeholder symbols while the number of copies is unknown: copy `i` is
/// `COPY + i`, the demand relation of copy `i` is `DEMAND + i`.
const COPY: Sym = 1 << 30;
const DEMAND: Sym = 1 << 31;

/// An adorned copy of a relation.
struct Adorned {
    key: (Sym, usize),
    /// Bound argument positions.
    bits: u64,
    /// Level of the demand (and of the copy).
    level: u8,
}

/// The transformed description and the first demand symbol, or `None` when
/// no call binds an argument of a state- or move-level relation. With
/// `negative` false, negative literals call the relations as they are.
pub(crate) fn transform(
    desc: &Description,
    level: &dyn Fn(Sym, usize) -> u8,
    negative: bool,
) -> Option<(Description, Sym)> {
    let keywords: Vec<Sym> = [
        "role", "init", "true", "next", "legal", "does", "goal", "terminal", "sees",
    ]
    .iter()
    .filter_map(|k| desc.symbol(k))
    .collect();
    let mut rules_of: HashMap<(Sym, usize), Vec<usize>> = HashMap::new();
    for (i, r) in desc.rules.iter().enumerate() {
        let key = (r.head.rel, r.head.args.len());
        let l = level(key.0, key.1);
        if (l == STATE || l == MOVE) && key.1 > 0 && key.1 <= 64 && !keywords.contains(&key.0) {
            rules_of.entry(key).or_default().push(i);
        }
    }
    if rules_of.is_empty() {
        return None;
    }
    // Calls of a relation at one demand level share one copy, bound on the
    // positions all of them bind: a copy bound on more positions than
    // another call needs would repeat, per value of the extra positions, a
    // recursion that does not use them (amazons.kif's rays, walked once
    // per destination square instead of once per origin). Narrowing a copy
    // narrows the calls in its rules, so this is repeated until every
    // relation and level has one copy.
    let mut narrow: HashMap<((Sym, usize), u8), u64> = HashMap::new();
    let mut rounds = 0;
    let (t, rules) = loop {
        let mut t = Transform {
            level,
            rules_of: &rules_of,
            negative,
            narrow: &narrow,
            copies: Vec::new(),
            copy_of: HashMap::new(),
            queue: VecDeque::new(),
            used_as_is: HashSet::new(),
            demand_rules: Vec::new(),
            seen: HashSet::new(),
        };
        // The rules of the other relations are the roots; a relation that
        // may be adorned keeps its own rules for the calls that bind nothing
        // (and for `GdlGame::query`), unchanged when no such call is reached.
        let mut rules = vec![None; desc.rules.len()];
        for (i, r) in desc.rules.iter().enumerate() {
            if !rules_of.contains_key(&(r.head.rel, r.head.args.len())) {
                t.queue.push_back((None, i));
            }
        }
        let mut copied = Vec::new();
        while let Some((c, ri)) = t.queue.pop_front() {
            let r = t.instance(&desc.rules[ri], c)?;
            match c {
                None => rules[ri] = Some(r),
                Some(_) => copied.push(r),
            }
        }
        let mut shared: HashMap<((Sym, usize), u8), u64> = HashMap::new();
        for c in &t.copies {
            *shared.entry((c.key, c.level)).or_insert(u64::MAX) &= c.bits;
        }
        if shared.len() == t.copies.len() {
            let mut rules: Vec<Rule> = rules
                .into_iter()
                .zip(&desc.rules)
                .map(|(t, r)| t.unwrap_or_else(|| r.clone()))
                .collect();
            rules.append(&mut copied);
            break (t, rules);
        }
        // Each entry only loses positions, so this ends; the bound is a
        // guard.
        rounds += 1;
        if rounds > 1000 {
            return None;
        }
        for (k, b) in shared {
            *narrow.entry(k).or_insert(u64::MAX) &= b;
        }
    };
    let mut rules = rules;
    let mut t = t;
    if t.copies.is_empty() {
        return None;
    }
    let mut out = desc.clone();
    let nsym = out.symbols.len() as Sym;
    let ncopies = t.copies.len() as Sym;
    // A space never occurs in a KIF symbol, so these names are fresh.
    for c in &t.copies {
        out.symbols.push(format!(
            "{} {}",
            desc.symbols[c.key.0 as usize],
            adornment(c)
        ));
    }
    for c in &t.copies {
        out.symbols.push(format!(
            "demand {} {}",
            desc.symbols[c.key.0 as usize],
            adornment(c)
        ));
    }
    let fix = |s: &mut Sym| {
        if *s >= DEMAND {
            *s = nsym + ncopies + (*s - DEMAND);
        } else if *s >= COPY {
            *s = nsym + (*s - COPY);
        }
    };
    rules.append(&mut t.demand_rules);
    for r in &mut rules {
        fix(&mut r.head.rel);
        for l in &mut r.body {
            if let Literal::Pos(a) | Literal::Neg(a) = l {
                fix(&mut a.rel);
            }
        }
    }
    out.rules = rules;
    Some((out, nsym + ncopies))
}

/// `b` for a bound position, `f` for a free one, then the demand's level.
fn adornment(c: &Adorned) -> String {
    let mut s: String = (0..c.key.1)
        .map(|p| if c.bits >> p & 1 == 1 { 'b' } else { 'f' })
        .collect();
    s.push_str(if c.level == MOVE { " move" } else { " state" });
    s
}

fn full(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

struct Transform<'a> {
    level: &'a dyn Fn(Sym, usize) -> u8,
    /// The rules of each state- or move-level relation that may be adorned.
    rules_of: &'a HashMap<(Sym, usize), Vec<usize>>,
    negative: bool,
    /// The positions a call may bind, per relation and demand level.
    narrow: &'a HashMap<((Sym, usize), u8), u64>,
    copies: Vec<Adorned>,
    copy_of: HashMap<((Sym, usize), u64, u8), usize>,
    /// Rules still to adorn: (copy or the relation itself, rule of the
    /// description).
    queue: VecDeque<(Option<usize>, usize)>,
    /// The relations called with no bound position.
    used_as_is: HashSet<(Sym, usize)>,
    demand_rules: Vec<Rule>,
    seen: HashSet<Rule>,
}

impl Transform<'_> {
    /// The copy for these bound positions and demand level, made (and its
    /// rules queued) on first use; `None` past [`MAX_COPIES`].
    fn copy(&mut self, key: (Sym, usize), bits: u64, level: u8) -> Option<usize> {
        if let Some(&c) = self.copy_of.get(&(key, bits, level)) {
            return Some(c);
        }
        if self.copies.len() >= MAX_COPIES {
            return None;
        }
        let c = self.copies.len();
        self.copies.push(Adorned { key, bits, level });
        self.copy_of.insert((key, bits, level), c);
        for &ri in &self.rules_of[&key] {
            self.queue.push_back((Some(c), ri));
        }
        Some(c)
    }

    /// Rule `r` with its calls adorned, as a rule of copy `head` (reading
    /// the copy's demand first) or, without `head`, of its own relation;
    /// the demand rules of its call sites go to `demand_rules`.
    fn instance(&mut self, r: &Rule, head: Option<usize>) -> Option<Rule> {
        let lv = self.level;
        let head_demand = head.map(|c| (c, self.copies[c].bits, self.copies[c].level));
        let caller_level = lv(r.head.rel, r.head.args.len()).max(head_demand.map_or(0, |h| h.2));
        let mut head_vars = Vec::new();
        if let Some((_, bits, _)) = head_demand {
            for (p, t) in r.head.args.iter().enumerate() {
                if bits >> p & 1 == 1 {
                    t.vars(&mut head_vars);
                }
            }
        }
        let n = r.body.len();
        // The adorned literals and their levels.
        let mut body = r.body.clone();
        let mut lit_level: Vec<u8> = r
            .body
            .iter()
            .map(|l| match l {
                Literal::Pos(a) | Literal::Neg(a) => lv(a.rel, a.args.len()),
                Literal::Distinct(..) | Literal::Equal(..) => 0,
            })
            .collect();
        let positives: Vec<usize> = (0..n)
            .filter(|&j| matches!(r.body[j], Literal::Pos(_)))
            .collect();
        let negatives: Vec<usize> = (0..n)
            .filter(|&j| matches!(r.body[j], Literal::Neg(_)))
            .collect();
        // Positive literals first (each sees those written before it), then
        // negative ones (which may see all positive literals).
        for j in positives.iter().copied().chain(negatives.iter().copied()) {
            let (Literal::Pos(a) | Literal::Neg(a)) = &r.body[j] else {
                continue;
            };
            let key = (a.rel, a.args.len());
            if !self.rules_of.contains_key(&key) {
                continue;
            }
            let negative = matches!(r.body[j], Literal::Neg(_));
            if negative && !self.negative {
                if self.used_as_is.insert(key) {
                    for &ri in &self.rules_of[&key] {
                        self.queue.push_back((None, ri));
                    }
                }
                continue;
            }
            let before: Vec<usize> = positives.iter().copied().filter(|&k| k < j).collect();
            let mut site = self.site(
                r,
                a,
                &before,
                &lit_level,
                &head_vars,
                head_demand,
                caller_level,
            );
            if negative && site.0 != full(a.args.len()) {
                let all: Vec<usize> = positives.clone();
                site = self.site(
                    r,
                    a,
                    &all,
                    &lit_level,
                    &head_vars,
                    head_demand,
                    caller_level,
                );
            }
            let (bits, level, uses, with_head) = site;
            let bits = bits & self.narrow.get(&(key, level)).copied().unwrap_or(u64::MAX);
            if bits == 0 {
                if self.used_as_is.insert(key) {
                    for &ri in &self.rules_of[&key] {
                        self.queue.push_back((None, ri));
                    }
                }
                continue;
            }
            let c = self.copy(key, bits, level)?;
            let demand_atom = |rel: Sym, args: &[Term], bits: u64| Atom {
                rel,
                args: args
                    .iter()
                    .enumerate()
                    .filter(|(p, _)| bits >> p & 1 == 1)
                    .map(|(_, t)| t.clone())
                    .collect(),
            };
            let mut dbody = Vec::new();
            if with_head && let Some((h, hbits, _)) = head_demand {
                dbody.push(Literal::Pos(demand_atom(
                    DEMAND + h as Sym,
                    &r.head.args,
                    hbits,
                )));
            }
            dbody.extend(uses.iter().map(|&k| body[k].clone()));
            let rule = Rule {
                head: demand_atom(DEMAND + c as Sym, &a.args, bits),
                body: dbody,
                var_names: r.var_names.clone(),
            };
            if self.seen.insert(rule.clone()) {
                self.demand_rules.push(rule);
            }
            if let Literal::Pos(b) | Literal::Neg(b) = &mut body[j] {
                b.rel = COPY + c as Sym;
            }
            lit_level[j] = level;
        }
        let mut out = Rule {
            head: r.head.clone(),
            body,
            var_names: r.var_names.clone(),
        };
        if let Some((c, bits, _)) = head_demand {
            out.head.rel = COPY + c as Sym;
            let args = r
                .head
                .args
                .iter()
                .enumerate()
                .filter(|(p, _)| bits >> p & 1 == 1)
                .map(|(_, t)| t.clone())
                .collect();
            out.body.insert(
                0,
                Literal::Pos(Atom {
                    rel: DEMAND + c as Sym,
                    args,
                }),
            );
        }
        Some(out)
    }

    /// A call of `a` in `r` that may read the positive literals `avail`
    /// and the head's demand: its bound positions, the level of its demand
    /// (the lowest at which it binds as many positions as at the caller's
    /// level), the literals its demand rule reads and whether it reads the
    /// head's demand.
    #[allow(clippy::too_many_arguments)]
    fn site(
        &self,
        r: &Rule,
        a: &Atom,
        avail: &[usize],
        lit_level: &[u8],
        head_vars: &[u32],
        head_demand: Option<(usize, u64, u8)>,
        caller_level: u8,
    ) -> (u64, u8, Vec<usize>, bool) {
        let callee_level = (self.level)(a.rel, a.args.len());
        let at = |l: u8| -> (u64, Vec<usize>, bool) {
            let uses: Vec<usize> = avail
                .iter()
                .copied()
                .filter(|&k| lit_level[k] <= l)
                .collect();
            let with_head = head_demand.is_some_and(|h| h.2 <= l);
            let mut by_lits = Vec::new();
            for &k in &uses {
                if let Literal::Pos(b) = &r.body[k] {
                    b.args.iter().for_each(|t| t.vars(&mut by_lits));
                }
            }
            let mut bits = 0u64;
            for (p, t) in a.args.iter().enumerate() {
                let bound = match t {
                    Term::Const(_) => true,
                    Term::Var(v) => by_lits.contains(v) || (with_head && head_vars.contains(v)),
                    Term::Fn(..) => {
                        let mut vs = Vec::new();
                        t.vars(&mut vs);
                        vs.iter().all(|v| by_lits.contains(v))
                    }
                };
                if bound {
                    bits |= 1 << p;
                }
            }
            (bits, uses, with_head)
        };
        let low = callee_level.max(STATE);
        let high = caller_level.max(low);
        let best = at(high);
        for l in low..high {
            let (bits, uses, with_head) = at(l);
            if bits == best.0 {
                return (bits, l, uses, with_head);
            }
        }
        (best.0, high, best.1, best.2)
    }
}
