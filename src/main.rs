//! The `toss` command line: check, format, run and picture games.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;

#[derive(Parser)]
#[command(
    name = "toss",
    version,
    about = "Toss in Rust: structure rewriting games"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check game files and print a summary of each, or its errors.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a game in canonical form.
    Fmt { file: PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let colour = std::io::stderr().is_terminal();
    let result = match cli.command {
        Command::Check { files } => commands::check(&files, colour),
        Command::Fmt { file } => commands::fmt(&file, colour),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            if !message.is_empty() {
                eprint!("{message}");
                if !message.ends_with('\n') {
                    eprintln!();
                }
            }
            ExitCode::FAILURE
        }
    }
}
