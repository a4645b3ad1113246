//! Code generation for Toss in Rust: from a game description to Rust code
//! implementing the runtime's `Game` trait.
//!
//! This crate is an ordinary library (the proc-macro crate `toss-macros`
//! only forwards to [`derive_game`]), so every stage can be unit- and
//! snapshot-tested. Errors never panic: they become `compile_error!`s at the
//! span of the path literal, and a stub impl is still emitted so one error
//! does not cascade into many.
//!
//! Stages: [`attr`] reads `#[toss(...)]`; [`source`] finds and reads the
//! file; `toss-lang` parses and checks it; [`plan`] decides the
//! specialization; `emit` writes the specialized impl, or the
//! interpreter-forwarding one for games outside the fragment (with the
//! `heuristics` key, the plan also compiles the derived heuristics and
//! the impl answers `Game::heuristic_values`); [`ode`]
//! compiles the ODE right-hand sides and update terms of games with
//! continuous dynamics. A GDL game (`gdl = "game.kif"`) takes its own
//! path, [`gdl`]: grounded by `toss-gdl` and emitted as straight-line Rust
//! from its propositional network.
//!
//! Dependency rule: `toss-core`, `toss-lang` (the front end), `toss-runtime`
//! (the interpreter built at build time, the solver that evaluates stable
//! formulas), `toss-heuristics` (derivation) and `toss-gdl` (parsing and
//! grounding GDL); never search or the CLI. Generated code names only
//! `::toss::__private` and the facade.

mod attr;
mod emit;
mod gdl;
pub mod ode;
pub mod plan;
mod source;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

/// The whole derive: `#[derive(Game)] #[toss(file = "...")] struct X;`.
pub fn derive_game(input: TokenStream) -> TokenStream {
    derive_game_with(input, None)
}

/// The derive with game paths relative to `base` instead of the crate's
/// manifest directory (for snapshot tests).
pub fn derive_game_in(input: TokenStream, base: &std::path::Path) -> TokenStream {
    derive_game_with(input, Some(base))
}

fn derive_game_with(input: TokenStream, base: Option<&std::path::Path>) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    match expand(&input, base) {
        Ok(tokens) => tokens,
        Err(e) => {
            let err = e.to_compile_error();
            let stub = emit::stub_impl(&input.ident);
            quote! { #err #stub }
        }
    }
}

fn expand(input: &DeriveInput, base: Option<&std::path::Path>) -> Result<TokenStream, syn::Error> {
    let attr = attr::parse(&input.attrs)?;
    if let (Some(_), Some(gdl)) = (&attr.file, &attr.gdl) {
        return Err(syn::Error::new(
            gdl.span(),
            "give either `file = \"...\"` (Toss) or `gdl = \"...\"` (GDL), not both",
        ));
    }
    let Some(file) = attr.file.as_ref().or(attr.gdl.as_ref()) else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "missing game file: add #[toss(file = \"games/name.toss\")] or \
             #[toss(gdl = \"games/name.kif\")]",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "a game type takes no generics",
        ));
    }
    let base = match base {
        Some(b) => b.to_path_buf(),
        None => source::manifest_dir().map_err(|e| syn::Error::new(file.span(), e))?,
    };
    let path =
        source::resolve(&base, &file.value()).map_err(|e| syn::Error::new(file.span(), e))?;
    let shown = file.value();
    let bytes = source::read(&path, &shown).map_err(|e| syn::Error::new(file.span(), e))?;
    let path_lit = path.to_string_lossy().into_owned();
    let file_name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    if let (Some(span), None) = (attr.translate, &attr.gdl) {
        return Err(syn::Error::new(
            span,
            "`translate` compiles a GDL game through its Toss translation: give `gdl = \"...\"`",
        ));
    }
    let (game, source) = match (&attr.gdl, attr.translate) {
        (Some(_), None) => {
            if let Some(span) = attr.heuristics {
                return Err(syn::Error::new(
                    span,
                    "`heuristics` derives heuristics from Toss payoff formulas; a GDL game has \
                     none (add `translate` to compile its Toss translation, which has them)",
                ));
            }
            return gdl::expand(&input.ident, file, &path, &bytes);
        }
        (Some(_), Some(_)) => {
            let game =
                translate_gdl(&bytes, &shown).map_err(|msg| syn::Error::new(file.span(), msg))?;
            let text = toss_lang::print_game(&game);
            let source = emit::Source::Translated {
                gdl_path: path_lit,
                text,
            };
            (game, source)
        }
        // Bytes that are not UTF-8 are an error at their line and column,
        // shown against the text with them replaced, as the CLI shows them.
        (None, _) => (
            toss_lang::parse_game_bytes(&bytes, &shown).map_err(|diags| {
                let text = String::from_utf8_lossy(&bytes);
                syn::Error::new(file.span(), compile_error_text(&diags, &text, &shown))
            })?,
            emit::Source::File(path_lit),
        ),
    };
    // The interpreter is built here exactly as at run time, so a game that
    // compiles cannot fail to load when the program starts.
    let interp = toss_runtime::Interpreter::new(&game).map_err(|e| {
        let at = match &source {
            emit::Source::File(_) => toss_lang::limits::item_position(
                &String::from_utf8_lossy(&bytes),
                &shown,
                e.item.as_deref(),
            ),
            emit::Source::Translated { .. } => shown.clone(),
        };
        syn::Error::new(file.span(), format!("{at}: {e}"))
    })?;
    if ode::has_dynamics(&game) {
        if let Some(span) = attr.heuristics {
            return Err(syn::Error::new(
                span,
                format!(
                    "{shown}: `heuristics` compiles the derived heuristics into the specialized \
                     code, and games with continuous dynamics are not specialized"
                ),
            ));
        }
        return ode::continuous_impl(&input.ident, &path, &game, &interp)
            .map_err(|e| syn::Error::new(file.span(), format!("{shown}: {e}")));
    }
    // Deriving the heuristics is opt-in: it evaluates stable formulas on
    // the starting structure to find existential descriptions (spec 3.4),
    // which takes seconds for Breakthrough and minutes for chess (see the
    // README), too much for every build of every game.
    let heuristics = attr.heuristics.map(|span| {
        let cfg = toss_heuristics::HeuristicConfig::default();
        (span, toss_heuristics::derive(&game, &cfg))
    });
    let planned = plan::Plan::build_from(&game, &interp, heuristics.as_ref().map(|(_, h)| h));
    Ok(match planned {
        Ok(mut plan) => {
            if let emit::Source::File(_) = &source {
                plan.rule_positions = rule_positions(&game, &bytes, &shown);
            }
            if let Some((span, _)) = &heuristics {
                check_fallback(&plan, &game, &interp)
                    .map_err(|e| syn::Error::new(*span, format!("{shown}: {e}")))?;
            }
            emit::specialized_impl(&input.ident, &source, &file_name, &plan)
        }
        Err(reason) => {
            if let Some((span, _)) = heuristics {
                return Err(syn::Error::new(
                    span,
                    format!(
                        "{shown}: `heuristics` compiles the derived heuristics into the \
                         specialized code, and this game is not specialized: {reason}"
                    ),
                ));
            }
            emit::interpreted_impl(&input.ident, &source, &file_name, &game, &reason)
        }
    })
}

/// Each rule's `file:line:col` (`shown` is the path as the attribute gives
/// it), in the order of `game.rules`, as the interpreter's faults name them.
fn rule_positions(game: &toss_core::ir::Game, bytes: &[u8], shown: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let at: std::collections::HashMap<String, String> =
        toss_lang::limits::rule_positions(&text, shown)
            .into_iter()
            .collect();
    game.rules
        .iter()
        .map(|r| at.get(&r.name).cloned().unwrap_or_default())
        .collect()
}

/// Diagnostics as a compile error's message. rustc writes `error: ` before
/// it, so the first diagnostic's own `Error: ` label would say it twice.
pub(crate) fn compile_error_text(
    diags: &[toss_lang::Diagnostic],
    text: &str,
    shown: &str,
) -> String {
    let rendered = toss_lang::render_diagnostics(diags, text, shown, false);
    match rendered.strip_prefix("Error: ") {
        Some(rest) => rest.to_string(),
        None => rendered,
    }
}

/// The Toss translation of a GDL file; the error is the message of a
/// compile error: the file's own errors, or the refusal at its clause.
fn translate_gdl(bytes: &[u8], shown: &str) -> Result<toss_core::ir::Game, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("{shown}: not UTF-8 text: {e}"))?;
    let checked = toss_gdl::kif::check_gdl(text);
    let desc = match checked.description {
        Some(d) if checked.errors.is_empty() => d,
        _ => {
            return Err(compile_error_text(&checked.errors, text, shown));
        }
    };
    let refused = match toss_gdl::translate::translate_located(&desc) {
        Ok(t) => return Ok(t.game),
        Err(l) => l,
    };
    Err(match refused.diagnostic(&checked.rule_spans) {
        Some(d) => compile_error_text(&[d], text, shown),
        None => format!("{shown}: {}", refused.message()),
    })
}

/// The parts of the heuristic that fall back to the solver are embedded
/// as text: they must parse back and compile, as they will at run time.
fn check_fallback(
    plan: &plan::Plan,
    game: &toss_core::ir::Game,
    interp: &toss_runtime::Interpreter,
) -> Result<(), String> {
    let Some(h) = &plan.heuristic else {
        return Ok(());
    };
    let mut parsed = Vec::new();
    for (t, _) in &h.fallback {
        let text = toss_lang::print_real(t);
        let back = toss_lang::parse_term(&text).map_err(|d| {
            format!(
                "the heuristic part `{text}` does not parse back: {}",
                d.message
            )
        })?;
        parsed.push(back);
    }
    let terms = toss_heuristics::Heuristics {
        per_location: vec![parsed],
    };
    toss_heuristics::HeuristicEval::new(game, interp, &terms)
        .map(|_| ())
        .map_err(|e| format!("the derived heuristic does not compile: {e}"))
}
