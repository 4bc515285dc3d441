#!/usr/bin/env bash
# Replays a short Claude Code session on examples/demo through `jit hook`,
# exactly as Claude Code calls it (one process per event, the payload on
# stdin), then summarises the session's event log with `jit stats`.
#
#   bash examples/hook-session.sh            # uses target/release/jit
#   JIT=target/debug/jit bash examples/hook-session.sh
set -euo pipefail
cd "$(dirname "$0")/.."
JIT=${JIT:-target/release/jit}
JIT_STATE_DIR=$(mktemp -d)
export JIT_STATE_DIR
CLAUDE_PROJECT_DIR=$(realpath examples/demo)
export CLAUDE_PROJECT_DIR
call() {
  local payload=${1//\$P/$CLAUDE_PROJECT_DIR}
  echo "\$ jit hook --agent claude-code <<< '$1'"
  printf '%s' "$payload" | "$JIT" hook --agent claude-code
  echo
}
call '{"session_id":"demo","hook_event_name":"SessionStart","source":"startup","cwd":"$P"}'
call '{"session_id":"demo","hook_event_name":"PostToolUse","cwd":"$P","tool_name":"Write","tool_input":{"file_path":"$P/src/ui/Footer.tsx","content":"..."}}'
call '{"session_id":"demo","hook_event_name":"PostToolUse","cwd":"$P","tool_name":"Edit","tool_input":{"file_path":"$P/src/ui/Badge.tsx","old_string":"a","new_string":"b"}}'
call '{"session_id":"demo","hook_event_name":"PostToolUse","cwd":"$P","tool_name":"Read","tool_input":{"file_path":"$P/src/api/handler.ts"}}'
call '{"session_id":"demo","hook_event_name":"PostToolUse","cwd":"$P","tool_name":"Bash","tool_input":{"command":"cat > scripts/report.py <<EOF\nprint(1)\nEOF"}}'
echo "\$ jit stats \$JIT_STATE_DIR/claude-code-demo.events.jsonl"
"$JIT" stats "$JIT_STATE_DIR/claude-code-demo.events.jsonl"
rm -rf "$JIT_STATE_DIR"
