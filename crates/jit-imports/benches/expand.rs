//! Benchmark placeholder; the measured cases arrive with the capability they measure.
fn main() {
    divan::main();
}
