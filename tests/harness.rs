//! The harness example (`examples/harness.rs`) runs here, so a change that breaks it or changes what it prints turns this red.

// The example's file is compiled into this binary as a module: its `main`
// goes unused here.
#[expect(
    dead_code,
    reason = "the example's `main` is only for `cargo run --example harness`"
)]
#[allow(
    unreachable_pub,
    reason = "`run` is public for the example's readers; here it is a module's item"
)]
#[path = "../examples/harness.rs"]
mod example;

/// The audit line, each step's injections, and the prompt after each step,
/// exactly as `cargo run --example harness` prints them.
#[test]
fn the_harness_example_prints_each_step_and_its_prompt() {
    let mut out = Vec::new();
    example::run(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    // The prompt keeps every rule block once through the harness's rebuilds.
    let last = text.rsplit("== step ").next().unwrap();
    assert_eq!(last.matches("<!-- jit:rule file=").count(), 4, "{last}");
    insta::assert_snapshot!("harness_example", text);
}
