//! The SARIF 2.1.0 log of `jit lint --format sarif`, built from `serde-sarif`'s types so that its shape is the schema's.

use serde_sarif::sarif::{
    ArtifactLocation, Location, Message, MultiformatMessageString, PhysicalLocation, Region,
    ReportingDescriptor, Result as SarifResult, ResultLevel, Run, Sarif, Tool, ToolComponent,
};

use super::finding::{Finding, Kind, Severity};

/// The schema a SARIF 2.1.0 log names.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// One run of `jit lint`: every kind as a rule, every finding as a result
/// located at its file (relative to `%SRCROOT%`, the checkout) and line.
pub(super) fn log(findings: &[Finding]) -> Sarif {
    let rules: Vec<ReportingDescriptor> = Kind::ALL
        .iter()
        .map(|kind| {
            ReportingDescriptor::builder()
                .id(kind.as_str())
                .name(kind.as_str())
                .short_description(
                    MultiformatMessageString::builder()
                        .text(kind.describe())
                        .build(),
                )
                .build()
        })
        .collect();
    let results: Vec<SarifResult> = findings
        .iter()
        .map(|f| {
            let index = Kind::ALL.iter().position(|k| *k == f.kind).unwrap_or(0);
            SarifResult::builder()
                .rule_id(f.kind.as_str())
                .rule_index(i64::try_from(index).unwrap_or(0))
                .level(match f.severity {
                    Severity::Error => ResultLevel::Error,
                    Severity::Warning => ResultLevel::Warning,
                    Severity::Info => ResultLevel::Note,
                })
                .message(Message::builder().text(f.message.clone()).build())
                .locations(vec![
                    Location::builder()
                        .physical_location(
                            PhysicalLocation::builder()
                                .artifact_location(
                                    ArtifactLocation::builder()
                                        .uri(uri(&f.file))
                                        .uri_base_id("%SRCROOT%")
                                        .build(),
                                )
                                .region(
                                    Region::builder()
                                        .start_line(i64::try_from(f.line).unwrap_or(i64::MAX))
                                        .build(),
                                )
                                .build(),
                        )
                        .build(),
                ])
                .build()
        })
        .collect();
    let driver = ToolComponent::builder()
        .name("jit lint")
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .information_uri(env!("CARGO_PKG_REPOSITORY"))
        .rules(rules)
        .build();
    Sarif::builder()
        .schema(SCHEMA)
        .version(serde_json::json!("2.1.0"))
        .runs(vec![
            Run::builder()
                .tool(Tool::builder().driver(driver).build())
                .results(results)
                .build(),
        ])
        .build()
}

/// A root-relative path as a URI reference: every byte outside the
/// unreserved set and `/` percent-encoded (a space, `#`, `%`, non-ASCII).
fn uri(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    for byte in file.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("src/ui/CLAUDE.md"), "src/ui/CLAUDE.md");
        assert_eq!(uri("a b/#1.md"), "a%20b/%231.md");
        assert_eq!(uri("文档.md"), "%E6%96%87%E6%A1%A3.md");
    }
}
