//! The case-file format shared by the corpus snapshots and the bash oracle: one command per line, or a `>>>` … `<<<` block for a multi-line one; blank lines and `#` comments between cases.

/// Splits a case file into its commands.
pub(crate) fn cases(text: &str) -> Vec<String> {
    let mut cases = Vec::new();
    let mut block: Option<Vec<&str>> = None;
    for line in text.lines() {
        match (&mut block, line) {
            (None, ">>>") => block = Some(Vec::new()),
            (Some(lines), "<<<") => {
                cases.push(lines.join("\n"));
                block = None;
            }
            (Some(lines), _) => lines.push(line),
            (None, _) if line.is_empty() || line.starts_with('#') => {}
            (None, _) => cases.push(line.to_owned()),
        }
    }
    assert!(block.is_none(), "a `>>>` block is not closed by `<<<`");
    cases
}
