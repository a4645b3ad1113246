//! The `#[toss(...)]` attribute of `#[derive(Game)]`.

use syn::{Attribute, LitStr};

/// What the attribute says.
pub struct GameAttr {
    /// `file = "games/x.toss"`: a Toss description.
    pub file: Option<LitStr>,
    /// `gdl = "games/x.kif"`: a GDL description.
    pub gdl: Option<LitStr>,
    /// `heuristics`: derive the heuristics at build time and compile them
    /// (opt-in: deriving takes seconds to minutes on large boards).
    pub heuristics: Option<proc_macro2::Span>,
    /// `translate` (with `gdl`): compile the game through its Toss
    /// translation (spec chapter 5) rather than its grounded network.
    pub translate: Option<proc_macro2::Span>,
}

/// Reads every `#[toss(...)]` attribute; unknown keys are errors at their
/// span, and all errors are reported together.
pub fn parse(attrs: &[Attribute]) -> Result<GameAttr, syn::Error> {
    let mut out = GameAttr {
        file: None,
        gdl: None,
        heuristics: None,
        translate: None,
    };
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    for attr in attrs.iter().filter(|a| a.path().is_ident("toss")) {
        let res = attr.parse_nested_meta(|meta| {
            for (key, flag) in [
                ("heuristics", &mut out.heuristics),
                ("translate", &mut out.translate),
            ] {
                if !meta.path.is_ident(key) {
                    continue;
                }
                let span = meta
                    .path
                    .get_ident()
                    .map_or_else(proc_macro2::Span::call_site, proc_macro2::Ident::span);
                if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                    return Err(meta.error(format!("`{key}` takes no value: write `{key}`")));
                }
                if flag.is_some() {
                    return Err(syn::Error::new(span, "this key is given twice"));
                }
                *flag = Some(span);
                return Ok(());
            }
            let slot = if meta.path.is_ident("file") {
                &mut out.file
            } else if meta.path.is_ident("gdl") {
                &mut out.gdl
            } else {
                return Err(meta.error(
                    "unknown key in #[toss(...)]: expected `file = \"...\"`, `gdl = \"...\"`, \
                     `heuristics` or `translate`",
                ));
            };
            let lit: LitStr = meta.value()?.parse()?;
            if slot.is_some() {
                return Err(syn::Error::new(lit.span(), "this key is given twice"));
            }
            *slot = Some(lit);
            Ok(())
        });
        if let Err(e) = res {
            push(e);
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(out),
    }
}
