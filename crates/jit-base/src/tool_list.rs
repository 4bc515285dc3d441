//! A harness's tool list read from JSON tool definitions, for [`audit_tools`](crate::audit_tools).

use serde_json::Value;

use crate::error::{Error, ErrorKind};

/// The tool names in a JSON list of tool definitions, in order, exactly as
/// written (no case folding, no trimming).
///
/// The list is a JSON array, or an object with a `tools` array (a request
/// body); each entry is one of the shapes harnesses send to a model:
///
/// | shape | entry |
/// |---|---|
/// | a plain list | `"read"` |
/// | Anthropic Messages API | `{"name": "read", "description": "…", "input_schema": {…}}` |
/// | OpenAI Chat Completions | `{"type": "function", "function": {"name": "read", …}}` |
/// | OpenAI Responses | `{"type": "function", "name": "read", …}` |
///
/// Entries of different shapes may be mixed. An entry with no name (an
/// OpenAI built-in tool such as `{"type": "web_search"}`, which the harness
/// never runs itself) is an error naming its index, as is anything that is
/// not JSON: a tool list that cannot be read is never audited as empty.
///
/// ```
/// let names = jit_base::tool_names_from_json(r#"[
///     "bash",
///     {"name": "read", "description": "Read a file", "input_schema": {"type": "object"}},
///     {"type": "function", "function": {"name": "write", "parameters": {}}},
///     {"type": "function", "name": "edit", "parameters": {}}
/// ]"#)?;
/// assert_eq!(names, ["bash", "read", "write", "edit"]);
/// assert!(jit_base::tool_names_from_json(r#"[{"type": "web_search"}]"#).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tool_names_from_json(text: &str) -> Result<Vec<String>, Error> {
    let value: Value =
        serde_json::from_str(text).map_err(|err| invalid(format!("not valid JSON: {err}")))?;
    let entries = match &value {
        Value::Array(entries) => entries,
        Value::Object(object) => match object.get("tools") {
            Some(Value::Array(entries)) => entries,
            _ => {
                return Err(invalid(
                    "an object must hold the tool definitions in a `tools` array".to_owned(),
                ));
            }
        },
        _ => {
            return Err(invalid(
                "expected an array of tool names or tool definitions".to_owned(),
            ));
        }
    };
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            entry_name(entry).map_err(|why| invalid(format!("entry {index}: {why}")))
        })
        .collect()
}

/// The name of one entry, or why it has none.
fn entry_name(entry: &Value) -> Result<String, String> {
    let name = match entry {
        Value::String(name) => Some(name),
        Value::Object(object) => {
            let function = object
                .get("function")
                .filter(|_| object.get("type").and_then(Value::as_str) == Some("function"));
            match function {
                // OpenAI Chat Completions: the name is inside `function`.
                Some(function) => match function.get("name") {
                    Some(Value::String(name)) => Some(name),
                    _ => return Err("`function` has no string `name`".to_owned()),
                },
                // Anthropic, and OpenAI Responses: the name is at the top.
                None => match object.get("name") {
                    Some(Value::String(name)) => Some(name),
                    _ => None,
                },
            }
        }
        _ => None,
    };
    match name {
        Some(name) if name.is_empty() => Err("the tool name is empty".to_owned()),
        Some(name) => Ok(name.clone()),
        None => Err(format!(
            "no tool name; expected a string, {{\"name\": …}} or \
             {{\"type\": \"function\", \"function\": {{\"name\": …}}}}, found {}",
            preview(entry)
        )),
    }
}

/// The entry's JSON, cut to a readable length.
fn preview(entry: &Value) -> String {
    let text = entry.to_string();
    match text.char_indices().nth(80) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

fn invalid(message: String) -> Error {
    Error::new(ErrorKind::InvalidToolList, format!("tool list: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[track_caller]
    fn check(text: &str, expected: Result<&[&str], &str>) {
        let actual = tool_names_from_json(text).map_err(|e| {
            assert_eq!(e.kind(), ErrorKind::InvalidToolList);
            e.to_string()
        });
        match expected {
            Ok(names) => assert_eq!(actual, Ok(names.iter().map(|n| (*n).to_owned()).collect())),
            Err(message) => assert_eq!(actual, Err(message.to_owned())),
        }
    }

    #[test]
    fn every_shape_and_a_request_body() {
        check(r#"["read", "Read"]"#, Ok(&["read", "Read"]));
        check(r#"[{"name": "read", "input_schema": {}}]"#, Ok(&["read"]));
        check(
            r#"[{"type": "function", "function": {"name": "read"}}]"#,
            Ok(&["read"]),
        );
        check(r#"[{"type": "function", "name": "read"}]"#, Ok(&["read"]));
        check(r#"{"model": "m", "tools": ["read"]}"#, Ok(&["read"]));
        check("[]", Ok(&[]));
    }

    #[test]
    fn an_unreadable_list_is_an_error_naming_the_entry() {
        check(
            "[",
            Err("tool list: not valid JSON: EOF while parsing a list at line 1 column 1"),
        );
        check(
            r#"{"read": {}}"#,
            Err("tool list: an object must hold the tool definitions in a `tools` array"),
        );
        check(
            "3",
            Err("tool list: expected an array of tool names or tool definitions"),
        );
        check(
            r#"["read", {"type": "web_search"}]"#,
            Err(
                "tool list: entry 1: no tool name; expected a string, {\"name\": …} or {\"type\": \"function\", \"function\": {\"name\": …}}, found {\"type\":\"web_search\"}",
            ),
        );
        check(
            r#"[{"type": "function", "function": {}}]"#,
            Err("tool list: entry 0: `function` has no string `name`"),
        );
        check(r#"[""]"#, Err("tool list: entry 0: the tool name is empty"));
        check(
            r#"[7]"#,
            Err(
                "tool list: entry 0: no tool name; expected a string, {\"name\": …} or {\"type\": \"function\", \"function\": {\"name\": …}}, found 7",
            ),
        );
    }
}
