//! Tools that touch no local file, registered with an explicit "touches nothing" reporter.
//!
//! Registering [`TouchesNothing`] is a statement, not a gap: each tool below
//! says why none of its calls addresses a project file.

use jit_base::TouchesNothing;

// `web_fetch`'s `url` is not a local path.
crate::register!("web_fetch", TouchesNothing);
// `web_search` sends a query to a search engine; the results are web pages.
crate::register!("web_search", TouchesNothing);
// `todo_write` replaces the agent's to-do list, which the harness keeps itself.
crate::register!("todo_write", TouchesNothing);
// `task` launches a sub-agent with a prompt; the sub-agent's own tool calls
// go through the registry one by one.
crate::register!("task", TouchesNothing);
// `bash_output` reads what a background shell printed since the last read.
crate::register!("bash_output", TouchesNothing);
// `kill_shell` stops a background shell by its id.
crate::register!("kill_shell", TouchesNothing);
// `exit_plan_mode` hands the plan text to the user for approval.
crate::register!("exit_plan_mode", TouchesNothing);
// `ask_user` puts a question to the user.
crate::register!("ask_user", TouchesNothing);
// `skill` invokes a skill by name; the skill's files belong to the harness,
// not to a project path the call addressed.
crate::register!("skill", TouchesNothing);
// Gemini CLI's `save_memory` appends a fact to the user's global memory file
// (under the home directory), never to a project file.
crate::register!("save_memory", TouchesNothing);
// `update_plan` replaces the agent's step list, which the harness keeps itself.
crate::register!("update_plan", TouchesNothing);
