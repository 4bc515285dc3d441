//! The `--html` report: one self-contained page (inline SVG and CSS, no script, nothing fetched) with the resident-bytes chart, the timeline and the rules native loading missed.

use std::fmt::Write as _;

use super::simulate::Replay;
use super::{size, tokens};

/// Chart geometry, in SVG user units.
const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 260.0;
const MARGIN_LEFT: f64 = 70.0;
const MARGIN_RIGHT: f64 = 20.0;
const MARGIN_TOP: f64 = 20.0;
const MARGIN_BOTTOM: f64 = 40.0;

/// The page for `report`, replayed from `transcript` on `root` (both as
/// they are shown to the user).
pub(super) fn render(report: &Replay, transcript: &str, root: &str) -> String {
    let s = &report.summary;
    let mut page = String::with_capacity(16 * 1024 + report.steps.len() * 256);
    let name = transcript.rsplit('/').next().unwrap_or(transcript);
    let title = format!("jit replay: {name}");
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n<p class=\"meta\">{} ({}) on {}</p>\n",
        escape(&title),
        escape(&title),
        escape(transcript),
        escape(&s.format),
        escape(root),
    );

    // The summary table.
    page.push_str("<h2>Three strategies over the same calls</h2>\n<table id=\"summary\">\n<tr><th>strategy</th><th>rules</th><th>bytes</th><th>~tokens</th><th>resident</th></tr>\n");
    let _ = writeln!(
        page,
        "<tr><td>eager</td><td>{}</td><td>{}</td><td>{}</td><td>{} at every step</td></tr>",
        s.eager.rules,
        s.eager.bytes,
        tokens(s.eager.bytes),
        size(s.eager.bytes)
    );
    if s.native.known {
        let _ = writeln!(
            page,
            "<tr><td>native</td><td>{}</td><td>{}</td><td>{}</td><td>as recorded</td></tr>",
            s.native.rules,
            s.native.bytes,
            tokens(s.native.bytes)
        );
    } else {
        page.push_str("<tr><td>native</td><td colspan=\"4\">unknown: the transcript does not record the agent's own loads</td></tr>\n");
    }
    let _ = writeln!(
        page,
        "<tr><td>jit</td><td>{}</td><td>{}</td><td>{}</td><td>p50 {}, max {}</td></tr>\n</table>",
        s.jit.rules,
        s.jit.bytes,
        tokens(s.jit.bytes),
        size(s.jit.resident_p50),
        size(s.jit.resident_max)
    );
    let _ = writeln!(
        page,
        "<p>{} calls in {} batches; {} of {} rule files never relevant. ~tokens = bytes ÷ 4, an estimate.</p>",
        s.calls, s.batches, s.jit.never_relevant, s.eager.rules
    );

    chart(&mut page, report);

    // Missed by native loading: the headline.
    page.push_str("<h2>Missed by native loading</h2>\n");
    if !s.native.known {
        page.push_str("<p>Unknown: the transcript does not record what the agent loaded.</p>\n");
    } else if s.missed_by_native.is_empty() {
        page.push_str("<p>None.</p>\n");
    } else {
        page.push_str(
            "<table id=\"missed\">\n<tr><th>rule</th><th>first step</th><th>trigger</th></tr>\n",
        );
        for missed in &s.missed_by_native {
            let _ = writeln!(
                page,
                "<tr><td>{}</td><td><a href=\"#step-{}\">{}</a></td><td>{}</td></tr>",
                escape(&missed.file),
                missed.first_step,
                missed.first_step,
                escape(&missed.trigger)
            );
        }
        page.push_str("</table>\n");
    }

    // The timeline.
    page.push_str("<h2>Timeline</h2>\n<table id=\"timeline\">\n<tr><th>step</th><th>channel</th><th>tool</th><th>paths</th><th>injected</th><th>skipped</th><th>resident</th></tr>\n");
    for step in &report.steps {
        let class = if step.loaded.is_empty() {
            ""
        } else {
            " class=\"inject\""
        };
        let paths: Vec<String> = step.paths.iter().map(|p| escape(p)).collect();
        let loaded: Vec<String> = step
            .loaded
            .iter()
            .map(|l| {
                format!(
                    "<span class=\"rule\">{}</span> <small>{} · {}</small>",
                    escape(&l.file),
                    escape(l.attribution.as_str()),
                    size(l.bytes)
                )
            })
            .collect();
        let reasons = step.skip_counts();
        let skipped: Vec<String> = reasons
            .iter()
            .map(|(r, n)| format!("{n} {}", escape(r.as_str())))
            .collect();
        let _ = writeln!(
            page,
            "<tr id=\"step-{}\"{class}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            step.step,
            step.step,
            escape(&step.channel),
            escape(&step.tool),
            paths.join("<br>"),
            loaded.join("<br>"),
            skipped.join(", "),
            size(step.resident_bytes)
        );
    }
    page.push_str("</table>\n</body>\n</html>\n");
    page
}

/// The line chart: eager's resident bytes (flat) and JIT's per step.
fn chart(page: &mut String, report: &Replay) {
    let eager = report.summary.eager.bytes as f64;
    let points: Vec<(u64, f64)> = report
        .steps
        .iter()
        .map(|s| (s.step, s.resident_bytes as f64))
        .collect();
    let last_step = points.last().map_or(1, |p| p.0).max(1) as f64;
    let top = points.iter().map(|p| p.1).fold(eager, f64::max).max(1.0);
    let plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT;
    let plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;
    let x = |step: f64| MARGIN_LEFT + step / last_step * plot_w;
    let y = |bytes: f64| MARGIN_TOP + plot_h - bytes / top * plot_h;

    page.push_str("<h2>Rule bytes resident in context, per step</h2>\n");
    let _ = writeln!(
        page,
        "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"resident rule bytes per step, eager and jit\">"
    );
    // Axes and labels.
    let _ = writeln!(
        page,
        "<line class=\"axis\" x1=\"{MARGIN_LEFT}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
        MARGIN_TOP + plot_h,
        MARGIN_LEFT + plot_w,
        MARGIN_TOP + plot_h
    );
    let _ = writeln!(
        page,
        "<line class=\"axis\" x1=\"{MARGIN_LEFT}\" y1=\"{MARGIN_TOP}\" x2=\"{MARGIN_LEFT}\" y2=\"{:.1}\"/>",
        MARGIN_TOP + plot_h
    );
    let _ = writeln!(
        page,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
        MARGIN_LEFT - 6.0,
        MARGIN_TOP + 4.0,
        escape(&size(top as u64))
    );
    let _ = writeln!(
        page,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">0</text>",
        MARGIN_LEFT - 6.0,
        MARGIN_TOP + plot_h
    );
    let _ = writeln!(
        page,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">step</text>",
        MARGIN_LEFT + plot_w / 2.0,
        HEIGHT - 8.0
    );
    let _ = writeln!(
        page,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
        MARGIN_LEFT + plot_w,
        MARGIN_TOP + plot_h + 16.0,
        last_step as u64
    );
    // Eager: the whole project's rules at every step.
    let _ = writeln!(
        page,
        "<polyline id=\"eager\" class=\"eager\" points=\"{:.1},{:.1} {:.1},{:.1}\"/>",
        x(0.0),
        y(eager),
        x(last_step),
        y(eager)
    );
    // JIT: a step line through each step's resident bytes.
    let mut jit = String::new();
    let mut previous: Option<f64> = None;
    for (step, bytes) in &points {
        let sx = x(*step as f64);
        if let Some(before) = previous {
            let _ = write!(jit, "{sx:.1},{:.1} ", y(before));
        }
        let _ = write!(jit, "{sx:.1},{:.1} ", y(*bytes));
        previous = Some(*bytes);
    }
    let _ = writeln!(
        page,
        "<polyline id=\"jit\" class=\"jit\" points=\"{}\"/>",
        jit.trim_end()
    );
    // Injections marked on the JIT line.
    for step in report.steps.iter().filter(|s| !s.loaded.is_empty()) {
        let _ = writeln!(
            page,
            "<circle class=\"mark\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"><title>step {}: {}</title></circle>",
            x(step.step as f64),
            y(step.resident_bytes as f64),
            step.step,
            escape(
                &step
                    .loaded
                    .iter()
                    .map(|l| l.file.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        );
    }
    // Legend.
    let _ = writeln!(
        page,
        "<text class=\"eager-label\" x=\"{:.1}\" y=\"{:.1}\">eager</text>\n<text class=\"jit-label\" x=\"{:.1}\" y=\"{:.1}\">jit</text>",
        MARGIN_LEFT + 8.0,
        (y(eager) - 6.0).max(12.0),
        MARGIN_LEFT + 60.0,
        (y(eager) - 6.0).max(12.0)
    );
    page.push_str("</svg>\n");
}

/// Text for HTML content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => {
                let _ = write!(out, "&#x{:x};", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}\
tr.inject{background:#eef7ee}.rule{font-family:monospace}.meta{color:#666}\
svg .axis{stroke:#444;stroke-width:1}svg text{font-size:12px;fill:#444}\
svg .eager{fill:none;stroke:#c0392b;stroke-width:2;stroke-dasharray:6 4}svg .jit{fill:none;stroke:#2471a3;stroke-width:2}\
svg .mark{fill:#2471a3}svg .eager-label{fill:#c0392b}svg .jit-label{fill:#2471a3}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_names_is_escaped() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(escape("a\u{1b}b"), "a&#x1b;b");
    }
}
