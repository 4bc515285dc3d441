//! Reading a tool call's JSON input: typed field access that names the tool and field on failure.

use jit_base::Error;
use serde_json::Value;

/// A tool call's JSON input, with the tool's name for error messages.
pub(crate) struct Input<'a> {
    tool: &'a str,
    value: &'a Value,
}

impl<'a> Input<'a> {
    pub(crate) fn new(tool: &'a str, value: &'a Value) -> Self {
        Input { tool, value }
    }

    /// The field's value, or an error if the input is not a JSON object.
    fn field(&self, field: &str) -> Result<Option<&'a Value>, Error> {
        match self.value {
            Value::Object(map) => Ok(map.get(field)),
            other => Err(self.invalid(
                field,
                format!(
                    "missing (the input is {}, not a JSON object)",
                    describe(other)
                ),
            )),
        }
    }

    /// A required, non-empty string field.
    pub(crate) fn required_str(&self, field: &str) -> Result<&'a str, Error> {
        match self.field(field)? {
            None => Err(self.invalid(field, "missing")),
            Some(value) => self.non_empty_str(field, value),
        }
    }

    /// An optional string field. Absent, `null` and `""` all mean "not given":
    /// harnesses send all three for an optional argument the model left out.
    pub(crate) fn optional_str(&self, field: &str) -> Result<Option<&'a str>, Error> {
        match self.field(field)? {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => {
                Err(self.invalid(field, format!("expected a string, got {}", describe(other))))
            }
        }
    }

    /// A required array of non-empty strings; a bad element is named by its
    /// index (`paths[2]`).
    pub(crate) fn required_str_list(&self, field: &str) -> Result<Vec<&'a str>, Error> {
        match self.field(field)? {
            None => Err(self.invalid(field, "missing")),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| self.non_empty_str(&format!("{field}[{i}]"), item))
                .collect(),
            Some(other) => Err(self.invalid(
                field,
                format!("expected an array of strings, got {}", describe(other)),
            )),
        }
    }

    fn non_empty_str(&self, field: &str, value: &'a Value) -> Result<&'a str, Error> {
        match value {
            Value::String(s) if s.is_empty() => Err(self.invalid(field, "is an empty string")),
            Value::String(s) => Ok(s),
            other => {
                Err(self.invalid(field, format!("expected a string, got {}", describe(other))))
            }
        }
    }

    fn invalid(&self, field: &str, detail: impl std::fmt::Display) -> Error {
        Error::invalid_tool_input(self.tool, field, detail)
    }
}

/// A short description of a JSON value's type, for error messages.
fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[track_caller]
    fn check_error(result: Result<impl std::fmt::Debug, Error>, expected: &str) {
        let err = result.unwrap_err();
        assert_eq!(err.kind(), jit_base::ErrorKind::InvalidToolInput);
        assert_eq!(err.to_string(), expected);
    }

    #[test]
    fn malformed_fields_are_errors_that_name_tool_and_field() {
        let input = json!({"n": 3, "e": "", "z": null, "list": ["a", 1]});
        let input = Input::new("t", &input);
        check_error(input.required_str("f"), "tool `t`: field `f`: missing");
        check_error(
            input.required_str("n"),
            "tool `t`: field `n`: expected a string, got a number",
        );
        check_error(
            input.required_str("e"),
            "tool `t`: field `e`: is an empty string",
        );
        check_error(
            input.required_str("z"),
            "tool `t`: field `z`: expected a string, got null",
        );
        check_error(
            input.optional_str("n"),
            "tool `t`: field `n`: expected a string, got a number",
        );
        check_error(
            input.required_str_list("list"),
            "tool `t`: field `list[1]`: expected a string, got a number",
        );
        check_error(
            input.required_str_list("n"),
            "tool `t`: field `n`: expected an array of strings, got a number",
        );
        let array = json!(["a"]);
        check_error(
            Input::new("t", &array).required_str("f"),
            "tool `t`: field `f`: missing (the input is an array, not a JSON object)",
        );
    }

    #[test]
    fn optional_fields_treat_absent_null_and_empty_alike() {
        let input = json!({"z": null, "e": "", "s": "x"});
        let input = Input::new("t", &input);
        assert_eq!(input.optional_str("absent").unwrap(), None);
        assert_eq!(input.optional_str("z").unwrap(), None);
        assert_eq!(input.optional_str("e").unwrap(), None);
        assert_eq!(input.optional_str("s").unwrap(), Some("x"));
    }
}
