//! The op signatures the bindings build their methods from (`webnn_core::signatures`) agree
//! with the IDL text of the CRD (`../shared/spec/webnn-2026.webidl`): every `MLGraphBuilder`
//! operation with its positional arguments (names and types), its options dictionary with
//! every member's type and default, and the values of the enums they use. The expected values
//! are read off the IDL file here, independently of the op table.

use serde_json::Value;
use std::collections::BTreeMap;
use webnn_core::signatures::op_signatures;
use webnn_core::OpKind;

fn idl_text() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/spec/webnn-2026.webidl");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    // Drop comments, then join everything into one line.
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join(" ")
}

/// The body of each `<keyword> Name [: Base] { ... };` block, by name (partial blocks joined).
fn blocks(text: &str, keyword: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    let needle = format!("{keyword} ");
    while let Some(at) = rest.find(&needle) {
        let preceded_ok = at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric();
        let after = &rest[at + needle.len()..];
        let (Some(open), Some(close)) = (after.find('{'), after.find("};")) else { break };
        if preceded_ok && open < close {
            let name = after[..open].split(':').next().unwrap_or("").trim().to_string();
            out.push((name, after[open + 1..close].to_string()));
        }
        rest = &after[close..];
    }
    out
}

/// Splits on `sep` outside parentheses and angle brackets.
fn split_top(s: &str, sep: char) -> Vec<String> {
    let (mut depth, mut cur, mut out) = (0i32, String::new(), Vec::new());
    for c in s.chars() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            _ => {}
        }
        if c == sep && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The type key of an IDL type, as the signatures name them.
fn type_key(idl_type: &str, enums: &BTreeMap<String, Vec<String>>) -> String {
    let t = idl_type.split_whitespace().collect::<Vec<_>>().join(" ");
    match t.as_str() {
        "MLOperand" => "operand".into(),
        "sequence<MLOperand>" => "operandSeq".into(),
        "[EnforceRange] unsigned long" => "u32e".into(),
        "unsigned long" => "u32".into(),
        "[EnforceRange] long" => "i32e".into(),
        "sequence<[EnforceRange] unsigned long>" => "u32eSeq".into(),
        "sequence<unsigned long>" => "u32Seq".into(),
        "sequence<float>" => "floatSeq".into(),
        "double" => "double".into(),
        "boolean" => "boolean".into(),
        "MLNumber" => "number".into(),
        "MLOperandDataType" => "dataType".into(),
        "USVString" => "usv".into(),
        "sequence<MLRecurrentNetworkActivation>" => "activations".into(),
        "([EnforceRange] unsigned long or sequence<[EnforceRange] unsigned long>)" => "splits".into(),
        other if enums.contains_key(other) => format!("enum:{other}"),
        other => panic!("unexpected IDL type {other}"),
    }
}

/// A default value of the IDL text as JSON.
fn default_value(text: &str) -> Value {
    let text = text.trim();
    if let Some(s) = text.strip_prefix('"') {
        return Value::from(s.trim_end_matches('"'));
    }
    match text {
        "true" => Value::from(true),
        "false" => Value::from(false),
        number => serde_json::from_str(number).unwrap_or_else(|_| panic!("default {number}")),
    }
}

#[test]
fn op_signatures_are_the_idl_operations() {
    let text = idl_text();
    let mut enums = BTreeMap::new();
    for (name, body) in blocks(&text, "enum") {
        enums.insert(name, split_top(&body, ',').iter().map(|v| v.trim_matches('"').to_string()).collect::<Vec<_>>());
    }
    let dictionaries: BTreeMap<String, String> = blocks(&text, "dictionary").into_iter().collect();
    let builder: String =
        blocks(&text, "interface").into_iter().filter(|(n, _)| n == "MLGraphBuilder").map(|(_, b)| b).collect();

    let signatures = op_signatures();
    let ops = signatures["ops"].as_array().unwrap();
    assert_eq!(ops.len(), OpKind::ALL.len());
    let mut checked_dictionaries = 0;
    for op in ops {
        let name = op["name"].as_str().unwrap();
        // `MLOperand name(` or `sequence<MLOperand> name(`, then its arguments up to `);`.
        let (start, returns_sequence) = match builder.find(&format!(" MLOperand {name}(")) {
            Some(at) => (at, false),
            None => (
                builder
                    .find(&format!(" sequence<MLOperand> {name}("))
                    .unwrap_or_else(|| panic!("{name} is not an MLGraphBuilder method of the IDL")),
                true,
            ),
        };
        let args_text = &builder[start..];
        let args_text = &args_text[args_text.find('(').unwrap() + 1..];
        let args_text = &args_text[..args_text.find(");").unwrap()];
        let mut args = split_top(args_text, ',');
        let options = args.pop().unwrap();
        let options = options.strip_prefix("optional ").unwrap().split_whitespace().next().unwrap();
        assert_eq!(op["options"], options, "{name}: options dictionary");
        assert_eq!(op["sequence"], returns_sequence, "{name}: returns a sequence");
        let expected: Vec<Value> = args
            .iter()
            .map(|a| {
                let (ty, arg) = a.rsplit_once(' ').unwrap();
                serde_json::json!({ "name": arg, "type": type_key(ty, &enums) })
            })
            .collect();
        assert_eq!(op["args"].as_array().unwrap(), &expected, "{name}: positional arguments");
        assert_eq!(OpKind::from_idl_name(name).map(|k| k.idl_name()), Some(name));

        // The dictionary: every member with its type and default, in IDL order.
        let body = dictionaries.get(options).unwrap_or_else(|| panic!("no dictionary {options}"));
        let expected: Vec<Value> = split_top(body, ';')
            .iter()
            .map(|member| {
                let (decl, default) = match member.split_once('=') {
                    Some((d, v)) => (d.trim(), Some(default_value(v))),
                    None => (member.trim(), None),
                };
                let (ty, member_name) = decl.rsplit_once(' ').unwrap();
                let mut m = serde_json::json!({ "name": member_name, "type": type_key(ty, &enums) });
                if let Some(v) = default {
                    m["default"] = v;
                }
                m
            })
            .collect();
        let actual = &signatures["dictionaries"][options];
        let members = actual["members"].as_array().unwrap();
        if options == "MLOperatorOptions" {
            assert_eq!(members, &expected, "MLOperatorOptions");
            continue;
        }
        assert_eq!(actual["inherits"], "MLOperatorOptions", "{options}");
        assert_eq!(members.len(), expected.len(), "{options}: {members:?} vs {expected:?}");
        for (m, e) in members.iter().zip(&expected) {
            // Doubles compare as numbers (1e-5 is the same value however it is written).
            assert_eq!(m["name"], e["name"], "{options}");
            assert_eq!(m["type"], e["type"], "{options}.{}", e["name"]);
            match (m.get("default"), e.get("default")) {
                (Some(Value::Number(a)), Some(Value::Number(b))) => {
                    assert_eq!(a.as_f64(), b.as_f64(), "{options}.{} default", e["name"])
                }
                (a, b) => assert_eq!(a, b, "{options}.{} default", e["name"]),
            }
        }
        checked_dictionaries += 1;
    }
    assert!(checked_dictionaries > 40, "{checked_dictionaries} ops with their own options checked");

    // Every enum a member uses, with the IDL's values.
    for (name, values) in signatures["enums"].as_object().unwrap() {
        let expected = enums.get(name).unwrap_or_else(|| panic!("{name} is not an IDL enum"));
        assert_eq!(values, &serde_json::json!(expected), "{name}");
    }
    let used = serde_json::to_string(&signatures["dictionaries"]).unwrap();
    for key in used.split("\"enum:").skip(1) {
        let name = &key[..key.find('"').unwrap()];
        assert!(signatures["enums"].get(name).is_some(), "enum {name} used but not listed");
    }
}
