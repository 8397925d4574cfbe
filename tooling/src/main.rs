//! `psxanim`: the command-line front end. Each subcommand lives in its own module under `cli/`.
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "psxanim", version, about = "Skeletal animation toolchain for the original PlayStation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {}

fn main() {
    let cli = Cli::parse();
    match cli.command {}
}
