//! TOML configs (Codex's `.codex/config.toml`), edited with toml_edit so that the user's
//! comments, order and layout survive; only the keys cds adds are new.

use serde_json::Value;
use toml_edit::{Array, DocumentMut, Item, Table};

use super::{Change, Op};

/// Applies `ops` to the TOML `text`; returns the new text. A key that exists is left as it is
/// (noted in `change` when it is not a table where cds needs one).
pub fn apply(text: &str, ops: &[Op], change: &mut Change) -> Result<String, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        // toml_edit's messages span several lines (with a caret); keep the first.
        let msg = e.to_string();
        let first = msg.lines().find(|l| !l.trim().is_empty()).unwrap_or("invalid TOML");
        first.trim().trim_start_matches("TOML parse error ").to_string()
    })?;
    for op in ops {
        let Op::Set(path, value) = op else { unreachable!("the TOML kits only set keys") };
        set(doc.as_table_mut(), path, 0, value, change);
    }
    Ok(doc.to_string())
}

/// Sets `path[depth..]` under `table` to `value` unless the key is there.
fn set(table: &mut Table, path: &[String], depth: usize, value: &Value, change: &mut Change) {
    let key = path[depth].as_str();
    if depth + 1 == path.len() {
        if !table.contains_key(key) {
            table.insert(key, to_item(value));
            change.added.push(path.join("."));
        }
        return;
    }
    if !table.contains_key(key) {
        let mut t = Table::new();
        // No empty `[mcp_servers]` header: the subtable's header says it all.
        t.set_implicit(true);
        table.insert(key, Item::Table(t));
    }
    match table.get_mut(key) {
        Some(Item::Table(t)) => set(t, path, depth + 1, value, change),
        _ => change.keep(format!("{} (not a table)", path[..=depth].join("."))),
    }
}

/// A JSON value as a TOML item: objects become `[tables]`, arrays inline arrays.
fn to_item(value: &Value) -> Item {
    match value {
        Value::Object(map) => {
            let mut t = Table::new();
            for (k, v) in map {
                t.insert(k, to_item(v));
            }
            Item::Table(t)
        }
        other => Item::Value(to_value(other)),
    }
}

fn to_value(value: &Value) -> toml_edit::Value {
    match value {
        Value::String(s) => s.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64().unwrap_or(0.0).into(),
        },
        Value::Array(items) => {
            let mut a = Array::new();
            for v in items {
                a.push(to_value(v));
            }
            toml_edit::Value::Array(a)
        }
        Value::Object(map) => {
            let mut t = toml_edit::InlineTable::new();
            for (k, v) in map {
                t.insert(k, to_value(v));
            }
            toml_edit::Value::InlineTable(t)
        }
        Value::Null => "".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ops() -> Vec<Op> {
        vec![
            Op::Set(vec!["sandbox_mode".into()], json!("read-only")),
            Op::Set(
                vec!["mcp_servers".into(), "cds".into()],
                json!({"command": "cds-mcp", "enabled_tools": ["a", "b"]}),
            ),
        ]
    }

    #[test]
    fn fresh_file() {
        let mut change = Change::default();
        let out = apply("", &ops(), &mut change).unwrap();
        assert_eq!(
            out,
            "sandbox_mode = \"read-only\"\n\n[mcp_servers.cds]\ncommand = \"cds-mcp\"\nenabled_tools = [\"a\", \"b\"]\n"
        );
        assert_eq!(change.added, ["sandbox_mode", "mcp_servers.cds"]);
    }

    #[test]
    fn keeps_the_users_layout_and_values() {
        let text = "# mine\nmodel = \"o3\"   # fast\nsandbox_mode = \"workspace-write\"\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let mut change = Change::default();
        let out = apply(text, &ops(), &mut change).unwrap();
        assert!(out.starts_with(text), "{out}");
        assert_eq!(
            &out[text.len()..],
            "\n[mcp_servers.cds]\ncommand = \"cds-mcp\"\nenabled_tools = [\"a\", \"b\"]\n"
        );
        assert_eq!(change.added, ["mcp_servers.cds"]);
        let mut again = Change::default();
        assert_eq!(apply(&out, &ops(), &mut again).unwrap(), out);
        assert!(again.added.is_empty());
    }

    #[test]
    fn reports_what_it_cannot_merge() {
        let mut change = Change::default();
        let out = apply("mcp_servers = 3\n", &ops(), &mut change).unwrap();
        assert!(out.starts_with("sandbox_mode") || out.contains("mcp_servers = 3"));
        assert_eq!(change.kept, ["mcp_servers (not a table)"]);
        let err = apply("[a\nb = 1\n", &ops(), &mut Change::default()).unwrap_err();
        assert!(err.contains("line 1"), "{err}");
    }
}
