//! Compiling a GDL description to a [`Program`]: relations and their
//! evaluation levels, strata, rules with their join orders, and the indexes
//! those read.

use crate::terms::{FxHashMap, TermId, TermStore};
use crate::{Atom, Description, Literal, Sym, Term};

use super::{
    CLit, CRule, IndexSpec, Keywords, MOVE, NONE, Pat, PosKey, Program, ProgramError, RelId,
    RelInfo, STATE, STATIC, Scc,
};

impl Program {
    /// Compiles a description in which the relations with a symbol from
    /// `demand_from` on are demand relations (see [`crate::demand`]): a join
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
                    Literal::Distinct(..) | Literal::Equal(..) => {}
                }
            }
        }
        let level = Self::levels(n, &succ, &kw);
        for (r, info) in rels.iter_mut().enumerate() {
            info.level = level[r];
        }
        let (rule_succ, rcomp_of, sccs) = Self::strata(desc, &head_rels, &level, &symbols, &rels)?;
        let _ = neg_edges;
        let (terms, rules) = Self::compile_rules(
            desc,
            demand_from,
            &head_rels,
            &sccs,
            &rcomp_of,
            lookup_rel,
            &mut rels,
        )?;

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
        // GDL-II: `sees` (the percepts of each role after a joint move) is
        // evaluated with `next`, at the same levels.
        let sees = symbols
            .iter()
            .position(|s| s.eq_ignore_ascii_case("sees"))
            .and_then(|s| rel_by_final.get(&(s as Sym, 2)).copied());
        let (need_percepts_state, need_percepts_move) = {
            let targets: Vec<RelId> = std::iter::once(kw.next).chain(sees).collect();
            let all = closure(&targets);
            (at(all.clone(), STATE), at(all, MOVE))
        };
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
            sees,
            need_percepts_state,
            need_percepts_move,
            state_rels,
            move_rels,
            rule_heads: head_rels,
            rule_succ,
            rcomp_of,
            base_terms: terms,
            nat_value,
        })
    }

    /// The evaluation level of each relation: the highest level of the
    /// relations it depends on, `true` being state-level and `does`
    /// move-level.
    fn levels(n: usize, succ: &[Vec<usize>], kw: &Keywords) -> Vec<u8> {
        // Relation-level components only propagate levels.
        let comps = super::sccs(n, succ);
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
        level
    }

    /// The strata: the components of the rule graph in dependency order,
    /// checked for negation inside a component. Returns the rule graph, the
    /// component of each rule and the components.
    #[allow(clippy::type_complexity)]
    fn strata(
        desc: &Description,
        head_rels: &[RelId],
        level: &[u8],
        symbols: &[String],
        rels: &[RelInfo],
    ) -> Result<(Vec<Vec<usize>>, Vec<usize>, Vec<Scc>), ProgramError> {
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
        Ok((rule_succ, rcomp_of, sccs))
    }

    /// Compiles the rules with their join orders (checking safety) and
    /// registers in `rels` the indexes those orders read. Returns the terms
    /// interned on the way and the rules.
    fn compile_rules(
        desc: &Description,
        demand_from: Sym,
        head_rels: &[RelId],
        sccs: &[Scc],
        rcomp_of: &[usize],
        lookup_rel: impl Fn(&Atom) -> RelId,
        rels: &mut [RelInfo],
    ) -> Result<(TermStore, Vec<CRule>), ProgramError> {
        // Compile the rules.
        let mut terms = TermStore::new();
        let mut rules = Vec::new();
        for (i, r) in desc.rules.iter().enumerate() {
            let h = head_rels[i];
            let nvars = r.var_names.len().max(max_var(r) as usize);
            let head: Box<[Pat]> = r.head.args.iter().map(|t| pat(t, &mut terms)).collect();
            let sc = &sccs[rcomp_of[i]];
            let same_scc = |rel: RelId| sc.recursive && sc.rels.contains(&rel);
            let plain = order_body(r, demand_from, None, nvars, &lookup_rel, rels, &mut terms)
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
                        rels,
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
                        CLit::Neg { .. } | CLit::Distinct(..) | CLit::Equal(..) => {}
                    }
                }
            }
        }
        Ok((terms, rules))
    }
}

fn max_var(r: &super::Rule) -> u32 {
    let mut vs = Vec::new();
    r.head.args.iter().for_each(|t| t.vars(&mut vs));
    r.body.iter().for_each(|l| l.vars(&mut vs));
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
            Literal::Distinct(a, b) | Literal::Equal(a, b) => vec![pat(a, terms), pat(b, terms)],
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
                Literal::Distinct(..) => CLit::Distinct(pats[j][0].clone(), pats[j][1].clone()),
                Literal::Equal(..) => CLit::Equal(pats[j][0].clone(), pats[j][1].clone()),
                Literal::Pos(_) => unreachable!("tests are not positive"),
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
            r.body[j].vars(&mut vs);
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
