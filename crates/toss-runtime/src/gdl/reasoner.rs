//! The bottom-up reasoner: a description compiled to a [`Program`] (relations,
//! strata, rules with a join order and the indexes they need) and an
//! [`Engine`] that holds the facts of the three levels (static, per state,
//! per joint move) and the interned terms.
//!
//! Join orders are chosen when compiling: a negative or `distinct` literal
//! is placed as soon as its variables are bound (safety guarantees that
//! this happens), a positive literal whose arguments are all bound is a
//! membership test, and otherwise the positive literal with the most bound
//! argument positions comes next (a game-independent relation keyed on a
//! bound position before a state literal keyed on a part of its term).
//! Each positive literal reads one hash index of its relation, keyed on the
//! argument positions that are bound at that point; a function-term
//! argument such as `(cell ?x ?y ?c)` with `?x`, `?y` bound is keyed on its
//! functor and bound sub-terms. A rule with a positive literal over an
//! empty relation is not run. Recursive components
//! are evaluated semi-naively: after a first full round, each rule is
//! re-run once per recursive body literal, that literal reading only the
//! facts new in the previous round.

use std::fmt;

use super::terms::{FxHashMap, IdHasher, TermId, TermStore, hash_ids};
use super::{Atom, Description, Literal, Sym, Term};

/// Index of a relation (a symbol with an arity) in a [`Program`].
pub type RelId = usize;

/// Evaluation level of a relation.
pub const STATIC: u8 = 0;
pub const STATE: u8 = 1;
pub const MOVE: u8 = 2;

const NONE: u32 = u32::MAX;

/// Why a description cannot be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgramError {
    /// Negation inside a recursive cycle.
    Unstratified(String),
    /// A variable of a negative literal, `distinct` or the head that no
    /// positive literal binds (rule number, variable name).
    Unsafe(usize, String),
    /// The static part derived more facts than the limit.
    TooLarge(usize),
}

impl fmt::Display for ProgramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgramError::Unstratified(r) => {
                write!(f, "relation `{r}` depends negatively on itself")
            }
            ProgramError::Unsafe(i, v) => {
                write!(
                    f,
                    "rule {i} is unsafe: variable {v} is not bound by a positive literal"
                )
            }
            ProgramError::TooLarge(n) => {
                write!(f, "the game-independent relations exceed {n} facts")
            }
        }
    }
}

impl std::error::Error for ProgramError {}

/// How one argument position takes part in an index key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum PosKey {
    /// Not in the key.
    None,
    /// The whole term.
    Full,
    /// The top symbol and the sub-terms at the set bits.
    Functor(u32),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct IndexSpec(Vec<PosKey>);

/// A pattern: a rule term with its ground parts interned.
#[derive(Clone, Debug)]
enum Pat {
    Var(u32),
    Ground(TermId),
    Fn(Sym, Box<[Pat]>),
}

#[derive(Clone, Debug)]
enum CLit {
    Pos {
        rel: RelId,
        args: Box<[Pat]>,
        /// Index into the relation's indexes, or `NONE` for a full scan.
        index: u32,
        /// Read only the facts of the previous round.
        delta: bool,
    },
    Neg {
        rel: RelId,
        args: Box<[Pat]>,
    },
    Distinct(Pat, Pat),
}

#[derive(Clone, Debug)]
struct CRule {
    head_rel: RelId,
    head: Box<[Pat]>,
    nvars: usize,
    /// The full join order, and for recursive rules one order per recursive
    /// body literal (that literal reading the delta).
    plain: Box<[CLit]>,
    variants: Vec<(RelId, Box<[CLit]>)>,
}

/// A relation of the program.
#[derive(Clone, Debug)]
pub struct RelInfo {
    pub sym: Sym,
    pub arity: usize,
    pub level: u8,
    indexes: Vec<IndexSpec>,
}

#[derive(Clone, Debug)]
struct Scc {
    rels: Vec<RelId>,
    rules: Vec<usize>,
    recursive: bool,
    level: u8,
}

/// Relation ids of the GDL keywords (present even when unused).
#[derive(Clone, Debug)]
pub struct Keywords {
    pub role: RelId,
    pub init: RelId,
    pub true_: RelId,
    pub next: RelId,
    pub legal: RelId,
    pub does: RelId,
    pub goal: RelId,
    pub terminal: RelId,
}

/// A compiled description. Immutable; shared by the engines of a game.
#[derive(Clone, Debug)]
pub struct Program {
    pub symbols: Vec<String>,
    pub rels: Vec<RelInfo>,
    rel_by: FxHashMap<(Sym, usize), RelId>,
    rules: Vec<CRule>,
    sccs: Vec<Scc>,
    pub kw: Keywords,
    /// Rank of each symbol in the canonical order of terms.
    sym_rank: Vec<u32>,
    /// The state-level components needed for `terminal`, `legal`, `goal`
    /// and for the `next` rules; the move-level components `next` needs.
    pub(crate) need_terminal: Vec<usize>,
    pub(crate) need_legal: Vec<usize>,
    pub(crate) need_goal: Vec<usize>,
    pub(crate) need_next_state: Vec<usize>,
    pub(crate) need_next_move: Vec<usize>,
    state_rels: Vec<RelId>,
    move_rels: Vec<RelId>,
    rule_heads: Vec<RelId>,
    rule_succ: Vec<Vec<usize>>,
    rcomp_of: Vec<usize>,
    /// Terms interned when compiling (rule constants).
    base_terms: TermStore,
    /// Symbols of the numbers `0..=100`? No: symbol id -> goal value.
    pub(crate) nat_value: Vec<Option<u64>>,
}

/// Maximum number of facts the static part may derive.
pub const STATIC_FACT_LIMIT: usize = 50_000_000;

impl Program {
    /// The level of a relation, if the program has it.
    pub(crate) fn level_of(&self, sym: Sym, arity: usize) -> Option<u8> {
        self.rel_by.get(&(sym, arity)).map(|&r| self.rels[r].level)
    }

    /// Compiles a description. Checks stratification and safety (the parser
    /// reports these with positions; this is the runtime's own guard).
    pub fn new(desc: &Description) -> Result<Program, ProgramError> {
        Program::compile(desc, Sym::MAX)
    }

    /// Compiles a description in which the relations with a symbol from
    /// `demand_from` on are demand relations (see [`super::demand`]): a join
    /// order reads them first, as they bind the arguments their rule was
    /// asked for.
    pub(crate) fn compile(desc: &Description, demand_from: Sym) -> Result<Program, ProgramError> {
        let nsym = desc.symbols.len();
        let mut symbols = desc.symbols.clone();
        let sym_of = |name: &str, symbols: &mut Vec<String>| -> Sym {
            match symbols.iter().position(|s| s.eq_ignore_ascii_case(name)) {
                Some(i) => i as Sym,
                None => {
                    symbols.push(name.to_string());
                    (symbols.len() - 1) as Sym
                }
            }
        };
        let kw_syms: Vec<Sym> = [
            "role", "init", "true", "next", "legal", "does", "goal", "terminal",
        ]
        .iter()
        .map(|n| sym_of(n, &mut symbols))
        .collect();
        let _ = nsym;
        let kw_arity = [1usize, 1, 1, 1, 2, 2, 2, 0];

        let mut rels: Vec<RelInfo> = Vec::new();
        let mut rel_by: FxHashMap<(Sym, usize), RelId> = FxHashMap::default();
        let mut rel_id = |sym: Sym, arity: usize, rels: &mut Vec<RelInfo>| -> RelId {
            *rel_by.entry((sym, arity)).or_insert_with(|| {
                rels.push(RelInfo {
                    sym,
                    arity,
                    level: STATIC,
                    indexes: vec![IndexSpec(vec![PosKey::Full; arity])],
                });
                rels.len() - 1
            })
        };
        let kwr: Vec<RelId> = kw_syms
            .iter()
            .zip(kw_arity)
            .map(|(&s, a)| rel_id(s, a, &mut rels))
            .collect();
        let kw = Keywords {
            role: kwr[0],
            init: kwr[1],
            true_: kwr[2],
            next: kwr[3],
            legal: kwr[4],
            does: kwr[5],
            goal: kwr[6],
            terminal: kwr[7],
        };
        // Relations and the dependency graph.
        let mut head_rels = Vec::new();
        for r in &desc.rules {
            head_rels.push(rel_id(r.head.rel, r.head.args.len(), &mut rels));
            for l in &r.body {
                if let Literal::Pos(a) | Literal::Neg(a) = l {
                    rel_id(a.rel, a.args.len(), &mut rels);
                }
            }
        }
        let rel_by_final = {
            let mut m = FxHashMap::default();
            for (i, r) in rels.iter().enumerate() {
                m.insert((r.sym, r.arity), i);
            }
            m
        };
        let lookup_rel = |a: &Atom| rel_by_final[&(a.rel, a.args.len())];
        let n = rels.len();
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut neg_edges = Vec::new();
        for (i, r) in desc.rules.iter().enumerate() {
            let h = head_rels[i];
            for l in &r.body {
                match l {
                    Literal::Pos(a) => succ[h].push(lookup_rel(a)),
                    Literal::Neg(a) => {
                        let b = lookup_rel(a);
                        succ[h].push(b);
                        neg_edges.push((h, b));
                    }
                    Literal::Distinct(..) => {}
                }
            }
        }
        // Relation-level components only propagate levels.
        let comps = super::sccs(n, &succ);
        let mut comp_of = vec![0usize; n];
        for (ci, c) in comps.iter().enumerate() {
            for &r in c {
                comp_of[r] = ci;
            }
        }
        // Levels, in dependency order.
        let mut level = vec![STATIC; n];
        level[kw.true_] = STATE;
        level[kw.does] = MOVE;
        for c in &comps {
            let mut l = c.iter().map(|&r| level[r]).max().unwrap_or(STATIC);
            for &r in c {
                for &b in &succ[r] {
                    if comp_of[b] != comp_of[r] {
                        l = l.max(level[b]);
                    }
                }
            }
            for &r in c {
                level[r] = l;
            }
        }
        for (r, info) in rels.iter_mut().enumerate() {
            info.level = level[r];
        }
        // Strata are components of the rule graph: a rule depends on the
        // rules whose head may unify with one of its body literals, so that
        // `(<= (goal r 100) (not (goal r 0)))` is stratified.
        let (rule_succ, rule_neg) = super::rule_graph(desc);
        let rcomps = super::sccs(desc.rules.len(), &rule_succ);
        let mut rcomp_of = vec![0usize; desc.rules.len()];
        for (ci, c) in rcomps.iter().enumerate() {
            for &r in c {
                rcomp_of[r] = ci;
            }
        }
        for &(i, j, _) in &rule_neg {
            if rcomp_of[i] == rcomp_of[j] {
                let h = head_rels[i];
                return Err(ProgramError::Unstratified(
                    symbols[rels[h].sym as usize].clone(),
                ));
            }
        }
        let sccs: Vec<Scc> = rcomps
            .iter()
            .map(|c| {
                let mut rs: Vec<RelId> = c.iter().map(|&i| head_rels[i]).collect();
                rs.sort_unstable();
                rs.dedup();
                Scc {
                    level: rs.iter().map(|&r| level[r]).max().unwrap_or(STATIC),
                    rels: rs,
                    rules: c.clone(),
                    recursive: c.len() > 1 || rule_succ[c[0]].contains(&c[0]),
                }
            })
            .collect();
        let _ = neg_edges;
        // Compile the rules.
        let mut terms = TermStore::new();
        let mut rules = Vec::new();
        for (i, r) in desc.rules.iter().enumerate() {
            let h = head_rels[i];
            let nvars = r.var_names.len().max(max_var(r) as usize);
            let head: Box<[Pat]> = r.head.args.iter().map(|t| pat(t, &mut terms)).collect();
            let sc = &sccs[rcomp_of[i]];
            let same_scc = |rel: RelId| sc.recursive && sc.rels.contains(&rel);
            let plain = order_body(r, demand_from, None, nvars, &lookup_rel, &rels, &mut terms)
                .map_err(|v| ProgramError::Unsafe(i, var_name(r, v)))?;
            let mut variants = Vec::new();
            for (j, l) in r.body.iter().enumerate() {
                if let Literal::Pos(a) = l
                    && same_scc(lookup_rel(a))
                {
                    let ord = order_body(
                        r,
                        demand_from,
                        Some(j),
                        nvars,
                        &lookup_rel,
                        &rels,
                        &mut terms,
                    )
                    .map_err(|v| ProgramError::Unsafe(i, var_name(r, v)))?;
                    variants.push((lookup_rel(a), ord));
                }
            }
            // Head variables must be bound by the body.
            let mut bound = vec![false; nvars];
            for l in r.body.iter() {
                if let Literal::Pos(a) = l {
                    let mut vs = Vec::new();
                    a.args.iter().for_each(|t| t.vars(&mut vs));
                    vs.iter().for_each(|&v| bound[v as usize] = true);
                }
            }
            let mut hv = Vec::new();
            r.head.args.iter().for_each(|t| t.vars(&mut hv));
            if let Some(&v) = hv.iter().find(|&&v| !bound[v as usize]) {
                return Err(ProgramError::Unsafe(i, var_name(r, v)));
            }
            rules.push(CRule {
                head_rel: h,
                head,
                nvars,
                plain,
                variants,
            });
        }
        // Register the indexes the join orders use.
        for rule in &mut rules {
            let mut lists: Vec<&mut Box<[CLit]>> = vec![&mut rule.plain];
            for (_, v) in &mut rule.variants {
                lists.push(v);
            }
            for list in lists {
                let mut bound = vec![false; rule.nvars];
                for lit in list.iter_mut() {
                    match lit {
                        CLit::Pos {
                            rel,
                            args,
                            index,
                            delta,
                        } => {
                            if !*delta {
                                let spec =
                                    IndexSpec(args.iter().map(|p| pos_key(p, &bound)).collect());
                                if spec.0.iter().all(|k| *k == PosKey::None) {
                                    *index = NONE;
                                } else {
                                    let ixs = &mut rels[*rel].indexes;
                                    *index = match ixs.iter().position(|s| *s == spec) {
                                        Some(p) => p as u32,
                                        None => {
                                            ixs.push(spec);
                                            (ixs.len() - 1) as u32
                                        }
                                    };
                                }
                            }
                            for p in args.iter() {
                                mark_bound(p, &mut bound);
                            }
                        }
                        CLit::Neg { .. } | CLit::Distinct(..) => {}
                    }
                }
            }
        }

        // What each query needs.
        let closure = |targets: &[RelId]| -> Vec<usize> {
            let mut seen = vec![false; desc.rules.len()];
            let mut stack: Vec<usize> = (0..desc.rules.len())
                .filter(|&i| targets.contains(&head_rels[i]))
                .collect();
            while let Some(r) = stack.pop() {
                if !seen[r] {
                    seen[r] = true;
                    stack.extend(rule_succ[r].iter().copied());
                }
            }
            let mut cs: Vec<usize> = (0..desc.rules.len())
                .filter(|&r| seen[r])
                .map(|r| rcomp_of[r])
                .collect();
            cs.sort_unstable();
            cs.dedup();
            cs
        };
        let at = |cs: Vec<usize>, l: u8| -> Vec<usize> {
            cs.into_iter().filter(|&c| sccs[c].level == l).collect()
        };
        let need_terminal = at(closure(&[kw.terminal]), STATE);
        let need_legal = at(closure(&[kw.legal]), STATE);
        let need_goal = at(closure(&[kw.goal]), STATE);
        let next_all = closure(&[kw.next]);
        let need_next_state = at(next_all.clone(), STATE);
        let need_next_move = at(next_all, MOVE);
        let state_rels = (0..n).filter(|&r| rels[r].level == STATE).collect();
        let move_rels = (0..n).filter(|&r| rels[r].level == MOVE).collect();

        // Canonical order of symbols: numbers by value first, then names.
        let mut order: Vec<usize> = (0..symbols.len()).collect();
        order.sort_by(|&a, &b| {
            let (na, nb) = (super::parse_nat(&symbols[a]), super::parse_nat(&symbols[b]));
            match (na, nb) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => symbols[a]
                    .to_ascii_lowercase()
                    .cmp(&symbols[b].to_ascii_lowercase()),
            }
        });
        let mut sym_rank = vec![0u32; symbols.len()];
        for (i, &s) in order.iter().enumerate() {
            sym_rank[s] = i as u32;
        }
        let nat_value = symbols.iter().map(|s| super::parse_nat(s)).collect();
        Ok(Program {
            symbols,
            rels,
            rel_by: rel_by_final,
            rules,
            sccs,
            kw,
            sym_rank,
            need_terminal,
            need_legal,
            need_goal,
            need_next_state,
            need_next_move,
            state_rels,
            move_rels,
            rule_heads: head_rels,
            rule_succ,
            rcomp_of,
            base_terms: terms,
            nat_value,
        })
    }

    /// The relation with this symbol and arity.
    pub fn relation(&self, sym: Sym, arity: usize) -> Option<RelId> {
        self.rel_by.get(&(sym, arity)).copied()
    }

    /// The state-level components a relation depends on (itself included),
    /// in evaluation order.
    pub fn state_closure(&self, r: RelId) -> Vec<usize> {
        let n = self.rule_heads.len();
        let mut seen = vec![false; n];
        let mut stack: Vec<usize> = (0..n).filter(|&i| self.rule_heads[i] == r).collect();
        while let Some(x) = stack.pop() {
            if !seen[x] {
                seen[x] = true;
                stack.extend(self.rule_succ[x].iter().copied());
            }
        }
        let mut cs: Vec<usize> = (0..n)
            .filter(|&x| seen[x])
            .map(|x| self.rcomp_of[x])
            .filter(|&c| self.sccs[c].level == STATE)
            .collect();
        cs.sort_unstable();
        cs.dedup();
        cs
    }

    /// The name of a relation, `name/arity`.
    pub fn relation_name(&self, r: RelId) -> String {
        format!(
            "{}/{}",
            self.symbols[self.rels[r].sym as usize], self.rels[r].arity
        )
    }

    /// Compares two ground terms in the canonical order (numbers by value,
    /// then symbols by name, then arguments left to right).
    pub fn cmp_terms(&self, terms: &TermStore, a: TermId, b: TermId) -> std::cmp::Ordering {
        if a == b {
            return std::cmp::Ordering::Equal;
        }
        let ((sa, aa), (sb, ba)) = (terms.node(a), terms.node(b));
        aa.len()
            .cmp(&ba.len())
            .then_with(|| self.sym_rank[sa as usize].cmp(&self.sym_rank[sb as usize]))
            .then_with(|| {
                for (&x, &y) in aa.iter().zip(ba) {
                    if x == y {
                        continue;
                    }
                    let o = self.cmp_terms(terms, x, y);
                    if o.is_ne() {
                        return o;
                    }
                }
                std::cmp::Ordering::Equal
            })
    }

    /// A fresh engine with the static relations evaluated.
    pub fn engine(&self) -> Result<Engine, ProgramError> {
        self.engine_with_limit(usize::MAX)
    }

    /// [`Program::engine`] with [`Engine::set_limit`]`(facts)`, which the
    /// static relations must keep to as well.
    pub fn engine_with_limit(&self, facts: usize) -> Result<Engine, ProgramError> {
        let mut e = Engine {
            terms: self.base_terms.clone(),
            dbs: [self.empty_db(), self.empty_db(), self.empty_db()],
            done: vec![false; self.sccs.len()],
            buf: Vec::new(),
            join: JoinScratch::default(),
            limit: facts,
            overflows: 0,
        };
        for c in 0..self.sccs.len() {
            if self.sccs[c].level == STATIC {
                e.eval_scc(self, c);
                let total: usize = e.dbs[0].rels.iter().map(|r| r.len as usize).sum();
                if total > STATIC_FACT_LIMIT {
                    return Err(ProgramError::TooLarge(STATIC_FACT_LIMIT));
                }
                if e.overflows > 0 {
                    return Err(ProgramError::TooLarge(facts));
                }
            }
        }
        Ok(e)
    }

    fn empty_db(&self) -> Db {
        Db {
            rels: self
                .rels
                .iter()
                .map(|r| RelStore {
                    arity: r.arity,
                    data: Vec::new(),
                    len: 0,
                    idx: r.indexes.iter().cloned().map(Index::new).collect(),
                })
                .collect(),
        }
    }
}

fn max_var(r: &super::Rule) -> u32 {
    let mut vs = Vec::new();
    r.head.args.iter().for_each(|t| t.vars(&mut vs));
    for l in &r.body {
        match l {
            Literal::Pos(a) | Literal::Neg(a) => a.args.iter().for_each(|t| t.vars(&mut vs)),
            Literal::Distinct(a, b) => {
                a.vars(&mut vs);
                b.vars(&mut vs);
            }
        }
    }
    vs.into_iter().map(|v| v + 1).max().unwrap_or(0)
}

fn var_name(r: &super::Rule, v: u32) -> String {
    r.var_names
        .get(v as usize)
        .cloned()
        .unwrap_or_else(|| format!("?v{v}"))
}

fn pat(t: &Term, terms: &mut TermStore) -> Pat {
    match t {
        Term::Var(v) => Pat::Var(*v),
        Term::Const(s) => Pat::Ground(terms.intern(*s, &[])),
        Term::Fn(f, args) => {
            let ps: Vec<Pat> = args.iter().map(|a| pat(a, terms)).collect();
            if ps.iter().all(|p| matches!(p, Pat::Ground(_))) {
                let ids: Vec<TermId> = ps
                    .iter()
                    .map(|p| match p {
                        Pat::Ground(t) => *t,
                        _ => NONE,
                    })
                    .collect();
                Pat::Ground(terms.intern(*f, &ids))
            } else {
                Pat::Fn(*f, ps.into_boxed_slice())
            }
        }
    }
}

fn pat_bound(p: &Pat, bound: &[bool]) -> bool {
    match p {
        Pat::Var(v) => bound[*v as usize],
        Pat::Ground(_) => true,
        Pat::Fn(_, a) => a.iter().all(|x| pat_bound(x, bound)),
    }
}

fn mark_bound(p: &Pat, bound: &mut [bool]) {
    match p {
        Pat::Var(v) => bound[*v as usize] = true,
        Pat::Ground(_) => {}
        Pat::Fn(_, a) => a.iter().for_each(|x| mark_bound(x, bound)),
    }
}

fn pos_key(p: &Pat, bound: &[bool]) -> PosKey {
    if pat_bound(p, bound) {
        return PosKey::Full;
    }
    match p {
        Pat::Fn(_, a) => {
            let mut m = 0u32;
            for (j, x) in a.iter().enumerate().take(32) {
                if pat_bound(x, bound) {
                    m |= 1 << j;
                }
            }
            PosKey::Functor(m)
        }
        _ => PosKey::None,
    }
}

/// Orders the body of a rule (with `delta` the literal that reads the
/// previous round's facts, placed first). Returns the unbound variable on
/// an unsafe rule.
fn order_body(
    r: &super::Rule,
    demand_from: Sym,
    delta: Option<usize>,
    nvars: usize,
    lookup_rel: &dyn Fn(&Atom) -> RelId,
    rels: &[RelInfo],
    terms: &mut TermStore,
) -> Result<Box<[CLit]>, u32> {
    let mut bound = vec![false; nvars];
    let mut left: Vec<usize> = (0..r.body.len()).collect();
    let mut out = Vec::new();
    let lit_pats = |l: &Literal, terms: &mut TermStore| -> Vec<Pat> {
        match l {
            Literal::Pos(a) | Literal::Neg(a) => a.args.iter().map(|t| pat(t, terms)).collect(),
            Literal::Distinct(a, b) => vec![pat(a, terms), pat(b, terms)],
        }
    };
    let pats: Vec<Vec<Pat>> = r.body.iter().map(|l| lit_pats(l, terms)).collect();
    if let Some(d) = delta {
        let Literal::Pos(a) = &r.body[d] else {
            unreachable!("delta literals are positive")
        };
        out.push(CLit::Pos {
            rel: lookup_rel(a),
            args: pats[d].clone().into_boxed_slice(),
            index: NONE,
            delta: true,
        });
        pats[d].iter().for_each(|p| mark_bound(p, &mut bound));
        left.retain(|&j| j != d);
    }
    while !left.is_empty() {
        // A test whose variables are all bound.
        if let Some(k) = left.iter().position(|&j| {
            !matches!(r.body[j], Literal::Pos(_)) && pats[j].iter().all(|p| pat_bound(p, &bound))
        }) {
            let j = left.remove(k);
            out.push(match &r.body[j] {
                Literal::Neg(a) => CLit::Neg {
                    rel: lookup_rel(a),
                    args: pats[j].clone().into_boxed_slice(),
                },
                _ => CLit::Distinct(pats[j][0].clone(), pats[j][1].clone()),
            });
            continue;
        }
        // The best positive literal.
        let mut best: Option<(i64, usize)> = None;
        for (k, &j) in left.iter().enumerate() {
            let Literal::Pos(a) = &r.body[j] else {
                continue;
            };
            let rel = lookup_rel(a);
            let mut score: i64 = 0;
            let mut all = true;
            for p in &pats[j] {
                match pos_key(p, &bound) {
                    PosKey::Full => score += 100,
                    PosKey::Functor(m) => {
                        all = false;
                        score += 10 + 60 * m.count_ones() as i64;
                    }
                    PosKey::None => all = false,
                }
            }
            if all {
                score += 100_000;
            }
            if rels[rel].level == MOVE {
                score += 50;
            }
            // Game-independent relations (successor, adjacency) are mostly
            // functional in a bound position: reading one binds the next
            // variable to a single value, where a state literal keyed on
            // some of its positions lists several fluents.
            if rels[rel].level == STATIC && score > 0 {
                score += 40;
            }
            if rels[rel].sym >= demand_from {
                score += 1_000_000;
            }
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, k));
            }
        }
        let Some((_, k)) = best else {
            // Only tests with unbound variables remain: unsafe.
            let j = left[0];
            let mut vs = Vec::new();
            match &r.body[j] {
                Literal::Pos(a) | Literal::Neg(a) => a.args.iter().for_each(|t| t.vars(&mut vs)),
                Literal::Distinct(a, b) => {
                    a.vars(&mut vs);
                    b.vars(&mut vs);
                }
            }
            let v = vs.into_iter().find(|&v| !bound[v as usize]).unwrap_or(0);
            return Err(v);
        };
        let j = left.remove(k);
        let Literal::Pos(a) = &r.body[j] else {
            unreachable!()
        };
        out.push(CLit::Pos {
            rel: lookup_rel(a),
            args: pats[j].clone().into_boxed_slice(),
            index: NONE,
            delta: false,
        });
        pats[j].iter().for_each(|p| mark_bound(p, &mut bound));
    }
    Ok(out.into_boxed_slice())
}

// ---------------------------------------------------------------- storage

/// A hash index of a relation on some argument positions: the tuples are
/// chained per bucket (`hash & mask`), and the key hash of each tuple is
/// kept, so a lookup follows one chain and skips other keys by their hash
/// (a tuple that passes is then unified in full, so a collision of hashes
/// costs time, never a wrong answer). Index 0 (all positions) is kept up to
/// date on insertion, as it detects duplicates; the others are brought up
/// to date when a join order is about to read them ([`RelStore::sync`]), so
/// an index no rule reads in a state is never built in it.
#[derive(Clone, Debug)]
struct Index {
    spec: IndexSpec,
    /// Bucket -> most recent tuple in it, or `NONE`; a power of two long.
    heads: Vec<u32>,
    /// Tuple -> previous tuple in the same bucket.
    next: Vec<u32>,
    /// Tuple -> its key hash.
    hash: Vec<u32>,
}

impl Index {
    fn new(spec: IndexSpec) -> Index {
        Index {
            spec,
            heads: vec![NONE; 8],
            next: Vec::new(),
            hash: Vec::new(),
        }
    }

    /// Number of tuples indexed.
    #[inline]
    fn built(&self) -> u32 {
        self.next.len() as u32
    }

    /// The most recent tuple in the bucket of `h`.
    #[inline]
    fn first(&self, h: u32) -> u32 {
        self.heads[h as usize & (self.heads.len() - 1)]
    }

    /// Adds the next tuple, with key hash `h`.
    #[inline]
    fn push(&mut self, h: u32) {
        let t = self.next.len() as u32;
        if 2 * (t as usize + 1) > self.heads.len() {
            self.grow();
        }
        let b = h as usize & (self.heads.len() - 1);
        self.next.push(self.heads[b]);
        self.hash.push(h);
        self.heads[b] = t;
    }

    /// Doubles the buckets and rechains the tuples in order, so each chain
    /// still lists its tuples from the most recent.
    fn grow(&mut self) {
        let cap = self.heads.len() * 2;
        self.heads.clear();
        self.heads.resize(cap, NONE);
        let mask = cap - 1;
        for (t, &h) in self.hash.iter().enumerate() {
            let b = h as usize & mask;
            self.next[t] = self.heads[b];
            self.heads[b] = t as u32;
        }
    }

    fn clear(&mut self) {
        if self.next.is_empty() {
            return;
        }
        self.heads.fill(NONE);
        self.next.clear();
        self.hash.clear();
    }
}

#[derive(Clone, Debug)]
pub(crate) struct RelStore {
    arity: usize,
    data: Vec<TermId>,
    len: u32,
    idx: Vec<Index>,
}

/// The key hash of a tuple under an index specification.
fn key_hash(spec: &IndexSpec, tuple: &[TermId], terms: &TermStore) -> u32 {
    let mut h = IdHasher::default();
    for (k, &t) in spec.0.iter().zip(tuple) {
        match k {
            PosKey::None => {}
            PosKey::Full => h.push(t),
            PosKey::Functor(m) => {
                h.push(terms.sym(t));
                let args = terms.args(t);
                let mut m = *m;
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    m &= m - 1;
                    h.push(args.get(j).copied().unwrap_or(NONE));
                }
            }
        }
    }
    h.finish() as u32
}

/// The hash of a whole tuple (the key of index 0).
#[inline]
fn tuple_hash(tuple: &[TermId]) -> u32 {
    hash_ids(tuple.iter().copied()) as u32
}

impl RelStore {
    #[inline]
    pub(crate) fn tuple(&self, t: u32) -> &[TermId] {
        let a = self.arity;
        &self.data[t as usize * a..(t as usize + 1) * a]
    }

    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    fn clear(&mut self) {
        self.data.clear();
        self.len = 0;
        for ix in &mut self.idx {
            ix.clear();
        }
    }

    /// The tuple equal to `tuple` with whole-tuple hash `h`, if present.
    #[inline]
    fn find(&self, tuple: &[TermId], h: u32) -> bool {
        let ix = &self.idx[0];
        let mut t = ix.first(h);
        while t != NONE {
            if ix.hash[t as usize] == h && self.tuple(t) == tuple {
                return true;
            }
            t = ix.next[t as usize];
        }
        false
    }

    /// Whether the ground tuple is present.
    fn contains(&self, tuple: &[TermId]) -> bool {
        self.find(tuple, tuple_hash(tuple))
    }

    /// Adds a ground tuple; returns whether it was new.
    fn insert(&mut self, tuple: &[TermId]) -> bool {
        let h = tuple_hash(tuple);
        if self.find(tuple, h) {
            return false;
        }
        self.data.extend_from_slice(tuple);
        self.len += 1;
        self.idx[0].push(h);
        true
    }

    /// Brings index `i` up to date with the tuples.
    #[inline]
    fn sync(&mut self, i: usize, terms: &TermStore) {
        let ix = &mut self.idx[i];
        let a = self.arity;
        while ix.built() < self.len {
            let t = ix.built() as usize;
            let h = key_hash(&ix.spec, &self.data[t * a..(t + 1) * a], terms);
            ix.push(h);
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Db {
    rels: Vec<RelStore>,
}

// ---------------------------------------------------------------- engine

#[derive(Clone, Debug, Default)]
struct JoinScratch {
    b: Vec<u32>,
    trail: Vec<u32>,
    tmp: Vec<TermId>,
}

/// The mutable part of evaluation: interned terms and the facts of the
/// three levels. `done` marks the state-level components evaluated for the
/// current state.
#[derive(Clone, Debug)]
pub struct Engine {
    pub terms: TermStore,
    dbs: [Db; 3],
    done: Vec<bool>,
    buf: Vec<TermId>,
    join: JoinScratch,
    /// At most this many facts per relation, and this many more interned
    /// terms than there are facts (set with [`Engine::set_limit`]); an
    /// evaluation that would go beyond stops and counts an overflow, and
    /// the facts of that state are then incomplete.
    limit: usize,
    /// Evaluations stopped by the limit so far.
    overflows: u64,
}

impl Engine {
    /// Bounds the memory of evaluation: at most `facts` facts in one
    /// relation (and one join's results), at most `4 * facts` interned
    /// terms in all. Unlimited by default.
    pub fn set_limit(&mut self, facts: usize) {
        self.limit = facts;
    }

    /// How many evaluations the limit has stopped.
    pub fn overflows(&self) -> u64 {
        self.overflows
    }

    /// The facts of a relation (of any level, as last evaluated).
    pub(crate) fn rel(&self, prog: &Program, r: RelId) -> &RelStore {
        &self.dbs[prog.rels[r].level as usize].rels[r]
    }

    /// Replaces the current state by these fluents (clears the state and
    /// move levels).
    pub fn set_state(&mut self, prog: &Program, fluents: &[TermId]) {
        for &r in &prog.state_rels {
            self.dbs[STATE as usize].rels[r].clear();
        }
        self.done.iter_mut().for_each(|d| *d = false);
        let tr = &mut self.dbs[STATE as usize].rels[prog.kw.true_];
        for &f in fluents {
            tr.insert(&[f]);
        }
    }

    /// Evaluates the state-level components in `need` not yet done.
    pub fn ensure(&mut self, prog: &Program, need: &[usize]) {
        for &c in need {
            if !self.done[c] {
                self.eval_scc(prog, c);
                self.done[c] = true;
            }
        }
    }

    /// Sets the joint move (`does` facts: role term, action term) and
    /// evaluates what `next` needs; the state level must be current.
    pub fn eval_move(&mut self, prog: &Program, does: &[(TermId, TermId)]) {
        self.ensure(prog, &prog.need_next_state);
        for &r in &prog.move_rels {
            self.dbs[MOVE as usize].rels[r].clear();
        }
        let d = &mut self.dbs[MOVE as usize].rels[prog.kw.does];
        for &(r, a) in does {
            d.insert(&[r, a]);
        }
        for &c in &prog.need_next_move {
            self.eval_scc(prog, c);
        }
    }

    /// The tuples of a relation, flattened (`arity` ids per tuple).
    pub fn tuples(&self, prog: &Program, r: RelId) -> impl Iterator<Item = &[TermId]> {
        let s = self.rel(prog, r);
        (0..s.len()).map(move |t| s.tuple(t))
    }

    /// Whether a ground tuple holds (as last evaluated).
    pub fn holds(&self, prog: &Program, r: RelId, tuple: &[TermId]) -> bool {
        self.rel(prog, r).contains(tuple)
    }

    fn eval_scc(&mut self, prog: &Program, c: usize) {
        let scc = &prog.sccs[c];
        let level = scc.level as usize;
        let mut out = std::mem::take(&mut self.buf);
        if !scc.recursive {
            for &ri in &scc.rules {
                let rule = &prog.rules[ri];
                out.clear();
                self.run(prog, rule, &rule.plain, (0, 0), &mut out);
                self.insert_all(rule.head_rel, level, &out);
            }
            self.buf = out;
            return;
        }
        let nrel = scc.rels.len();
        let overflows = self.overflows;
        let mut lo: Vec<u32> = scc
            .rels
            .iter()
            .map(|&r| self.dbs[level].rels[r].len)
            .collect();
        for &ri in &scc.rules {
            let rule = &prog.rules[ri];
            out.clear();
            self.run(prog, rule, &rule.plain, (0, 0), &mut out);
            self.insert_all(rule.head_rel, level, &out);
        }
        loop {
            let hi: Vec<u32> = scc
                .rels
                .iter()
                .map(|&r| self.dbs[level].rels[r].len)
                .collect();
            if (0..nrel).all(|i| lo[i] == hi[i]) || self.overflows != overflows {
                break;
            }
            for &ri in &scc.rules {
                let rule = &prog.rules[ri];
                for (drel, order) in &rule.variants {
                    let k = scc.rels.iter().position(|r| r == drel).unwrap_or(0);
                    if lo[k] == hi[k] {
                        continue;
                    }
                    out.clear();
                    self.run(prog, rule, order, (lo[k], hi[k]), &mut out);
                    self.insert_all(rule.head_rel, level, &out);
                }
            }
            lo = hi;
        }
        self.buf = out;
    }

    fn insert_all(&mut self, rel: RelId, level: usize, out: &[TermId]) {
        let store = &mut self.dbs[level].rels[rel];
        let a = store.arity;
        if a == 0 {
            if !out.is_empty() {
                store.insert(&[]);
            }
        } else {
            for t in out.chunks_exact(a) {
                if store.len as usize >= self.limit {
                    self.overflows += 1;
                    return;
                }
                store.insert(t);
            }
        }
    }

    /// Runs one join order, pushing the head tuples (flattened) to `out`;
    /// for arity 0 a dummy id per derivation.
    fn run(
        &mut self,
        prog: &Program,
        rule: &CRule,
        body: &[CLit],
        delta: (u32, u32),
        out: &mut Vec<TermId>,
    ) {
        // A positive literal over an empty relation leaves nothing to join
        // (relations of lower strata are complete; one of this component
        // is read as it is now, which is what this round joins with).
        for lit in body {
            if let CLit::Pos {
                rel,
                index,
                delta: false,
                ..
            } = lit
            {
                let store = &mut self.dbs[prog.rels[*rel].level as usize].rels[*rel];
                if store.len == 0 {
                    return;
                }
                if *index != NONE && *index != 0 {
                    store.sync(*index as usize, &self.terms);
                }
            }
        }
        let s = &mut self.join;
        s.b.clear();
        s.b.resize(rule.nvars, NONE);
        s.trail.clear();
        let limit = self.limit;
        let mut j = Join {
            prog,
            dbs: &self.dbs,
            terms: &mut self.terms,
            s,
            delta,
            head: &rule.head,
            out,
            stop_on_first: rule.head.is_empty(),
            max_out: limit.saturating_mul(rule.head.len().max(1)),
            max_terms: limit.saturating_mul(4),
            overflow: false,
        };
        j.go(body);
        if j.overflow {
            self.overflows += 1;
        }
    }
}

struct Join<'a> {
    prog: &'a Program,
    dbs: &'a [Db; 3],
    terms: &'a mut TermStore,
    s: &'a mut JoinScratch,
    delta: (u32, u32),
    head: &'a [Pat],
    out: &'a mut Vec<TermId>,
    /// A proposition needs one derivation only.
    stop_on_first: bool,
    /// The bounds of [`Engine::set_limit`], and whether they stopped the join.
    max_out: usize,
    max_terms: usize,
    overflow: bool,
}

impl Join<'_> {
    /// Returns false to stop the whole join.
    fn go(&mut self, body: &[CLit]) -> bool {
        let Some((lit, rest)) = body.split_first() else {
            if self.out.len() >= self.max_out || self.terms.len() >= self.max_terms {
                self.overflow = true;
                return false;
            }
            if self.head.is_empty() {
                self.out.push(0);
                return !self.stop_on_first;
            }
            for p in self.head {
                let t = instantiate(p, &self.s.b, self.terms);
                self.out.push(t);
            }
            return true;
        };
        match lit {
            CLit::Distinct(a, b) => {
                let x = instantiate(a, &self.s.b, self.terms);
                let y = instantiate(b, &self.s.b, self.terms);
                if x != y {
                    return self.go(rest);
                }
                true
            }
            CLit::Neg { rel, args } => {
                let store = &self.dbs[self.prog.rels[*rel].level as usize].rels[*rel];
                let mut tuple = std::mem::take(&mut self.s.tmp);
                tuple.clear();
                let mut present = true;
                for p in args.iter() {
                    match ground(p, &self.s.b, self.terms) {
                        Some(t) => tuple.push(t),
                        None => {
                            present = false;
                            break;
                        }
                    }
                }
                if present {
                    present = store.contains(&tuple);
                }
                self.s.tmp = tuple;
                if !present {
                    return self.go(rest);
                }
                true
            }
            CLit::Pos {
                rel,
                args,
                index,
                delta,
            } => {
                let dbs = self.dbs;
                let store = &dbs[self.prog.rels[*rel].level as usize].rels[*rel];
                if *delta || *index == NONE {
                    let (from, to) = if *delta { self.delta } else { (0, store.len) };
                    for t in from..to {
                        if !self.try_tuple(store, t, args, rest) {
                            return false;
                        }
                    }
                    return true;
                }
                if *index == 0 && args.len() <= 8 {
                    // Every position is bound: a membership test, which
                    // binds nothing.
                    let mut tuple = [0u32; 8];
                    let mut h = IdHasher::default();
                    for (x, p) in tuple.iter_mut().zip(args.iter()) {
                        match ground(p, &self.s.b, self.terms) {
                            Some(t) => {
                                *x = t;
                                h.push(t);
                            }
                            None => return true,
                        }
                    }
                    if store.find(&tuple[..args.len()], h.finish() as u32) {
                        return self.go(rest);
                    }
                    return true;
                }
                let ix = &store.idx[*index as usize];
                // The hash of the key of the bound positions.
                let mut h = IdHasher::default();
                for (k, p) in ix.spec.0.iter().zip(args.iter()) {
                    match k {
                        PosKey::None => {}
                        PosKey::Full => match ground(p, &self.s.b, self.terms) {
                            Some(t) => h.push(t),
                            None => return true,
                        },
                        PosKey::Functor(m) => {
                            let Pat::Fn(f, sub) = p else {
                                return true;
                            };
                            h.push(*f);
                            let mut m = *m;
                            while m != 0 {
                                let j = m.trailing_zeros() as usize;
                                m &= m - 1;
                                match ground(&sub[j], &self.s.b, self.terms) {
                                    Some(t) => h.push(t),
                                    None => return true,
                                }
                            }
                        }
                    }
                }
                let h = h.finish() as u32;
                let mut t = ix.first(h);
                while t != NONE {
                    if ix.hash[t as usize] == h && !self.try_tuple(store, t, args, rest) {
                        return false;
                    }
                    t = ix.next[t as usize];
                }
                true
            }
        }
    }

    #[inline]
    fn try_tuple(&mut self, store: &RelStore, t: u32, args: &[Pat], rest: &[CLit]) -> bool {
        let mark = self.s.trail.len();
        let tuple = store.tuple(t);
        let mut ok = true;
        for (p, &v) in args.iter().zip(tuple) {
            if !unify(p, v, &mut self.s.b, &mut self.s.trail, self.terms) {
                ok = false;
                break;
            }
        }
        let cont = if ok { self.go(rest) } else { true };
        while self.s.trail.len() > mark {
            if let Some(v) = self.s.trail.pop() {
                self.s.b[v as usize] = NONE;
            }
        }
        cont
    }
}

#[inline(always)]
fn unify(p: &Pat, t: TermId, b: &mut [u32], trail: &mut Vec<u32>, terms: &TermStore) -> bool {
    match p {
        Pat::Ground(g) => *g == t,
        Pat::Var(v) => {
            let cur = b[*v as usize];
            if cur == NONE {
                b[*v as usize] = t;
                trail.push(*v);
                true
            } else {
                cur == t
            }
        }
        Pat::Fn(f, sub) => unify_fn(*f, sub, t, b, trail, terms),
    }
}

fn unify_fn(
    f: Sym,
    sub: &[Pat],
    t: TermId,
    b: &mut [u32],
    trail: &mut Vec<u32>,
    terms: &TermStore,
) -> bool {
    let (sym, args) = terms.node(t);
    if sym != f || args.len() != sub.len() {
        return false;
    }
    for (q, &a) in sub.iter().zip(args) {
        if !unify(q, a, b, trail, terms) {
            return false;
        }
    }
    true
}

/// The id of a bound pattern if that term is interned.
#[inline(always)]
fn ground(p: &Pat, b: &[u32], terms: &TermStore) -> Option<TermId> {
    match p {
        Pat::Ground(g) => Some(*g),
        Pat::Var(v) => {
            let t = b[*v as usize];
            (t != NONE).then_some(t)
        }
        Pat::Fn(f, sub) => ground_fn(*f, sub, b, terms),
    }
}

fn ground_fn(f: Sym, sub: &[Pat], b: &[u32], terms: &TermStore) -> Option<TermId> {
    let mut buf = [0u32; 12];
    if sub.len() <= 12 {
        for (i, q) in sub.iter().enumerate() {
            buf[i] = ground(q, b, terms)?;
        }
        terms.lookup(f, &buf[..sub.len()])
    } else {
        let v: Option<Vec<TermId>> = sub.iter().map(|q| ground(q, b, terms)).collect();
        terms.lookup(f, &v?)
    }
}

/// Interns a bound pattern.
fn instantiate(p: &Pat, b: &[u32], terms: &mut TermStore) -> TermId {
    match p {
        Pat::Ground(g) => *g,
        Pat::Var(v) => b[*v as usize],
        Pat::Fn(f, sub) => {
            let mut buf = [0u32; 12];
            if sub.len() <= 12 {
                for (i, q) in sub.iter().enumerate() {
                    buf[i] = instantiate(q, b, terms);
                }
                terms.intern(*f, &buf[..sub.len()])
            } else {
                let v: Vec<TermId> = sub.iter().map(|q| instantiate(q, b, terms)).collect();
                terms.intern(*f, &v)
            }
        }
    }
}
