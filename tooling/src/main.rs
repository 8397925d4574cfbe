//! `psxanim`: the command-line front end. Each subcommand lives in its own module under `cli/`.
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "psxanim", version, about = "Skeletal animation toolchain for the original PlayStation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Inspect(psxanim::cli::inspect::Args),
    Convert(psxanim::cli::convert::Args),
    Validate(psxanim::cli::validate::Args),
    Import(psxanim::cli::import::Args),
    Preview(psxanim::cli::preview::Args),
    CompileClips(psxanim::cli::compile_clips::Args),
    Run(psxanim::cli::run::Args),
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Inspect(args) => psxanim::cli::inspect::run(args),
        Command::Convert(args) => psxanim::cli::convert::run(args),
        Command::Validate(args) => psxanim::cli::validate::run(args),
        Command::Import(args) => psxanim::cli::import::run(args),
        Command::Preview(args) => psxanim::cli::preview::run(args),
        Command::CompileClips(args) => psxanim::cli::compile_clips::run(args),
        Command::Run(args) => psxanim::cli::run::run(args),
    };
    std::process::exit(code);
}
