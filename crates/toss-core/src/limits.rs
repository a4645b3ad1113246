//! Resource limits: part of the semantics of a game, the same for every
//! engine (interpreter, generated code, GDL reasoner and grounder) and
//! every command (`check`, `playout`, `match`, `play`, the derive, GGP).
//!
//! A game that runs into one stops with [`Game::fault`] naming the limit
//! (and, where the engine knows it, the file position of the rule or
//! relation), or, when the limit is met while loading, with a load error.
//! The count is kept while enumerating, so a limit trips before the memory
//! it guards is spent: nothing grows without bound.
//!
//! The values are documented in `docs/toss-language.md` and `docs/gdl.md`.
//!
//! [`Game::fault`]: crate::game::Game::fault

/// `message` after the file position `at` (`file:line:col: message`), or
/// alone when the position is unknown or empty: how every fault past a
/// limit names the rule or relation it is about.
pub fn at_position(at: Option<&str>, message: &str) -> String {
    match at {
        Some(p) if !p.is_empty() => format!("{p}: {message}"),
        _ => message.to_string(),
    }
}

/// A named limit. The name is what a fault message says in parentheses,
/// `(limit: matches per rule)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub name: &'static str,
    pub value: usize,
}

impl Limit {
    /// The fault message when `what` exceeds this limit, e.g.
    /// `rule `Move` has more than 1,000,000 matches in one state (limit:
    /// matches per rule)` from `what = "rule `Move` has"` and `unit =
    /// "matches in one state"`.
    pub fn exceeded(&self, what: &str, unit: &str) -> String {
        format!(
            "{what} more than {} {unit} (limit: {})",
            thousands(self.value as u64),
            self.name
        )
    }
}

/// Matches of one rule's left side in one state (for each label and
/// time/parameter choice), counted as the matcher finds them. 1,000,000
/// matches of a few elements each take some tens of MB; board games have
/// at most thousands.
pub const MATCHES_PER_RULE: Limit = Limit {
    name: "matches per rule",
    value: 1_000_000,
};

/// Legal moves of one player in one state, over all its labels (the
/// interpreter and generated code), and the `legal` facts of one state of
/// a GDL game.
pub const LEGAL_MOVES_PER_STATE: Limit = Limit {
    name: "legal moves per state",
    value: 1_000_000,
};

/// Elements of one structure, the starting one and every one rules build
/// (a rule that adds elements makes each play grow the structure).
pub const ELEMENTS_PER_STRUCTURE: Limit = Limit {
    name: "elements per structure",
    value: 1_000_000,
};

/// Facts of one relation in one state of a GDL game under the reasoner
/// (and interned terms: four times as many in all); the reasoner stops the
/// evaluation there.
pub const GDL_FACTS_PER_RELATION: Limit = Limit {
    name: "facts per relation",
    value: 1_000_000,
};

/// Grounding a GDL game: facts per relation of the relaxed program. A game
/// past it is not grounded (the reasoner plays it).
pub const GROUND_FACTS: Limit = Limit {
    name: "ground facts per relation",
    value: 1_000_000,
};

/// Grounding a GDL game: rule instances in all.
pub const GROUND_INSTANCES: Limit = Limit {
    name: "ground rule instances",
    value: 2_000_000,
};

/// Tuples of one table of a defined relation over stable relations
/// (precomputed once per game); a relation with more is evaluated per
/// query instead of tabulated, so the tables' memory stays bounded.
pub const STABLE_TABLE_TUPLES: Limit = Limit {
    name: "stable table tuples",
    value: 1 << 20,
};

/// Move sets of one label (and time/parameter choice) of multiplicity `*`:
/// every set is listed, so a state with more stops the play rather than
/// offer only some of them (17 pairwise disjoint matches give 131,071).
pub const MOVE_SETS_PER_LABEL: Limit = Limit {
    name: "move sets per label",
    value: 1 << 16,
};

/// Elements over which a set quantifier is decided by enumerating all
/// subsets (2^20 evaluations of its body); set quantifiers grounded to SAT
/// have no such limit.
pub const SET_ENUMERATION_ELEMENTS: Limit = Limit {
    name: "set enumeration elements",
    value: 20,
};

/// Reading a GDL description: the term nodes (symbols and variables)
/// that distributing the rules' `or`s adds (one rule per choice of
/// disjuncts, each with its own copy of the head and the other literals).
/// Distributing is exponential in the number of `or`s of one rule; the
/// corpus's games add at most a few thousand.
pub const GDL_DISTRIBUTED_TERMS: Limit = Limit {
    name: "terms added by distributing or",
    value: 500_000,
};

/// Plies of one turn: a player who would move more plies in a row than
/// this (see [`Game::continues_turn`](crate::game::Game::continues_turn))
/// stops the play with a fault, so the turn limit of a playout and the
/// depth of a search end even in a game where one player can move forever
/// (where perft of one turn would have to count every sequence of plies).
/// No game of the repository has a turn of more than a few plies.
pub const PLIES_PER_TURN: Limit = Limit {
    name: "plies per turn",
    value: 100,
};

/// Every limit, for documentation and tests.
pub const ALL: [Limit; 11] = [
    MATCHES_PER_RULE,
    LEGAL_MOVES_PER_STATE,
    ELEMENTS_PER_STRUCTURE,
    GDL_FACTS_PER_RELATION,
    GROUND_FACTS,
    GROUND_INSTANCES,
    STABLE_TABLE_TUPLES,
    MOVE_SETS_PER_LABEL,
    SET_ENUMERATION_ELEMENTS,
    GDL_DISTRIBUTED_TERMS,
    PLIES_PER_TURN,
];

/// An estimate of the matches of each rule's left side in one state, from
/// the starting structure (the model, when there is one), for `toss
/// check`'s warnings. The left elements fall into groups linked by tuples
/// of arity 2 or more (a piece and the squares next to it); a group is
/// entered at its cheapest element, which has `n` candidates (the
/// structure's elements), or as many as the smallest stable unary relation
/// it is in, and the other elements of the group follow the links (board
/// relations leave them few candidates each, so they count once). Groups
/// multiply: `k` elements without links give `n^k`. `pre` is not looked
/// at, nor the candidates a dense link leaves: the estimate finds rules
/// whose elements are matched independently of each other. One value per
/// rule, in order.
pub fn match_estimates(game: &crate::ir::Game) -> Vec<f64> {
    use crate::analysis::union_find_root;
    let s = game.model.as_ref().unwrap_or(&game.start);
    let n = s.num_elements().max(1) as f64;
    let fluent = crate::analysis::fluent_relations(game);
    let stable_size = |name: &str| {
        s.relation(name)
            .filter(|&r| !fluent.contains(name) && s.arity(r) == 1)
            .map(|r| s.relation_len(r) as f64)
    };
    game.rules
        .iter()
        .map(|rule| {
            let elems = &rule.lhs.elements;
            let pos = |x: &str| elems.iter().position(|e| e == x);
            let mut alone = vec![n; elems.len()];
            // Union-find over the left elements, by the linking tuples.
            let mut group: Vec<usize> = (0..elems.len()).collect();
            for t in rule.lhs.tuples.iter().filter(|t| !t.optional) {
                let args: Vec<usize> = t.args.iter().filter_map(|a| pos(a)).collect();
                if let ([e], Some(size)) = (&args[..], stable_size(&t.relation)) {
                    alone[*e] = alone[*e].min(size);
                }
                for w in args.windows(2) {
                    let (a, b) = (
                        union_find_root(&mut group, w[0]),
                        union_find_root(&mut group, w[1]),
                    );
                    group[a] = b;
                }
            }
            let mut entry: Vec<f64> = vec![f64::INFINITY; elems.len()];
            for (e, &c) in alone.iter().enumerate() {
                let r = union_find_root(&mut group, e);
                entry[r] = entry[r].min(c);
            }
            entry.iter().filter(|c| c.is_finite()).product()
        })
        .collect()
}

/// `n` with commas between groups of three digits: `1,000,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
    }

    #[test]
    fn messages_name_the_limit() {
        assert_eq!(
            MATCHES_PER_RULE.exceeded("rule `Move` has", "matches in one state"),
            "rule `Move` has more than 1,000,000 matches in one state (limit: matches per rule)"
        );
    }

    #[test]
    fn names_are_distinct() {
        for (i, a) in ALL.iter().enumerate() {
            assert!(ALL[i + 1..].iter().all(|b| b.name != a.name), "{}", a.name);
        }
    }
}
