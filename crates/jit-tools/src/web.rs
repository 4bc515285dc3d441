//! Tools that touch no local file, registered with an explicit "touches nothing" reporter.

use jit_core::TouchesNothing;

// `web_fetch`'s `url` is not a local path; saying so is a statement, not a gap.
crate::register!("web_fetch", TouchesNothing);
