//! Repository automation. `cargo xtask audit` arrives with the tool registry audit.
fn main() {
    eprintln!("usage: cargo xtask audit (not built yet)");
    std::process::exit(2);
}
