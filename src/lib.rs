//! Toss in Rust: structure rewriting games, described once in `.toss` (or GDL),
//! interpreted at run time or compiled to specialized Rust.

pub use toss_lang as lang;
pub use toss_runtime as runtime;

pub mod load;
pub mod render;
