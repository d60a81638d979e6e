//! The byte format of target `builder_ops`: bytes decode to a graph in the form of the WPT
//! vectors (inputs with descriptors and data, operators with `argList` and options), which
//! `webnn_conformance::ops::call` turns into builder calls. Every byte string decodes (missing
//! bytes read as 0), and every WPT vector graph encodes ([`encode_case`]), which is how the
//! seed corpus is made.
//!
//! Layout: `n_inputs` then per input `flags` (bit 0 constant, the rest the data type),
//! `rank`, the dimensions and up to 8 values (cycled to fill the tensor); `n_ops` then per
//! operator its name, `n_args` (< 8) (key, value) pairs and `n_options` (< 12) (key, value)
//! pairs. Values
//! are tagged: operand reference, operand list, integer, integer list, number, number list,
//! boolean, string, string list, null, object. An operand reference `#i` names the `i`-th
//! operand made so far (inputs, then every operator result, modulo their count).

use serde_json::{json, Map, Value};
use std::sync::OnceLock;
use webnn_core::*;

/// Every argument name and option key that `webnn_conformance::ops::call` reads.
pub const KEYS: &[&str] = &[
    "a", "aTranspose", "activations", "alpha", "axes", "axis", "b", "bTranspose",
    "beginningPadding", "beta", "bias", "c", "cellState", "condition", "dataType", "diagonal",
    "dilations", "direction", "endingPadding", "epsilon", "exclusive", "falseValue", "filter",
    "filterLayout", "groups", "hiddenSize", "hiddenState", "indices", "initialCellState",
    "initialHiddenState", "input", "inputLayout", "inputs", "keepDimensions", "label", "layout",
    "maxValue", "mean", "minValue", "mode", "newShape", "outputDataType", "outputPadding",
    "outputShapeRounding", "outputSizes", "padding", "peepholeWeight", "permutation",
    "recurrentBias", "recurrentWeight", "repetitions", "resetAfter", "returnSequence",
    "reversed", "scale", "scales", "sizes", "slope", "splits", "starts", "steps", "strides",
    "trueValue", "type", "updates", "upper", "value", "variance", "weight", "windowDimensions",
    "zeroPoint",
];

/// Integers beyond 0..=127 worth trying (limits of u8, u32, i32, i64, f64's exact range).
const SPECIAL_INTS: &[i64] = &[
    -1,
    -2,
    128,
    255,
    256,
    1000,
    65535,
    65536,
    i32::MAX as i64,
    1 << 31,
    u32::MAX as i64,
    1 << 32,
    i32::MIN as i64,
    1 << 53,
    i64::MAX,
    i64::MIN,
];

/// Numbers worth trying; JSON strings for what JSON numbers cannot hold.
fn numbers() -> &'static [Value] {
    static N: OnceLock<Vec<Value>> = OnceLock::new();
    N.get_or_init(|| {
        let mut v: Vec<Value> = [
            0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 10.0, 100.0, 127.0, -128.0, 255.0, 65504.0,
            1e-5, 1e-40, 3.4e38, -3.4e38, 1e30, 4294967295.0, -2147483648.0,
        ]
        .iter()
        .map(|&x| json!(x))
        .collect();
        v.extend(["NaN", "Infinity", "-Infinity", "-0", "9223372036854775807"].map(|s| json!(s)));
        v
    })
}

/// Every string value: data types, the IDL enums' values, special numbers, and a few that
/// are none of these.
pub fn strings() -> &'static [&'static str] {
    static S: OnceLock<Vec<&'static str>> = OnceLock::new();
    S.get_or_init(|| {
        let mut s: Vec<&'static str> = DataType::ALL.iter().map(|d| d.as_str()).collect();
        s.extend(InputOperandLayout::ALL.iter().map(|e| e.as_str()));
        s.extend(Conv2dFilterOperandLayout::ALL.iter().map(|e| e.as_str()));
        s.extend(ConvTranspose2dFilterOperandLayout::ALL.iter().map(|e| e.as_str()));
        s.extend(GruWeightLayout::ALL.iter().map(|e| e.as_str()));
        s.extend(LstmWeightLayout::ALL.iter().map(|e| e.as_str()));
        s.extend(RecurrentNetworkActivation::ALL.iter().map(|e| e.as_str()));
        s.extend(RecurrentNetworkDirection::ALL.iter().map(|e| e.as_str()));
        s.extend(PaddingMode::ALL.iter().map(|e| e.as_str()));
        s.extend(RoundingType::ALL.iter().map(|e| e.as_str()));
        s.extend(InterpolationMode::ALL.iter().map(|e| e.as_str()));
        s.extend(["NaN", "Infinity", "-Infinity", "-0", "", "bogus", "a label"]);
        s.sort_unstable();
        s.dedup();
        s
    })
}

/// The IDL names of the 95 builder operations, in op-table order.
pub fn ops() -> &'static [&'static str] {
    static O: OnceLock<Vec<&'static str>> = OnceLock::new();
    O.get_or_init(|| OpKind::ALL.iter().map(|k| k.idl_name()).collect())
}

/// Reads bytes; past the end every byte is 0.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos = self.pos.saturating_add(1);
        b
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    fn pick<'t, T>(&mut self, table: &'t [T]) -> &'t T {
        &table[self.byte() as usize % table.len()]
    }
    /// A dimension: 0..=63 as is, 255 escapes a u32, the rest is 1..=5.
    fn dim(&mut self) -> u32 {
        match self.byte() {
            255 => self.u32(),
            b @ 0..=63 => b as u32,
            b => (b % 5) as u32 + 1,
        }
    }
    /// An integer: 0..=127 as is, 255 escapes a u32, the rest is a special value.
    fn int(&mut self) -> Value {
        match self.byte() {
            255 => json!(self.u32()),
            b @ 0..=127 => json!(b),
            b => json!(SPECIAL_INTS[(b - 128) as usize % SPECIAL_INTS.len()]),
        }
    }
    /// A number: 255 escapes an f32, the rest picks from [`numbers`].
    fn number(&mut self) -> Value {
        match self.byte() {
            255 => {
                let x = f32::from_bits(self.u32());
                if x.is_finite() {
                    json!(x as f64)
                } else {
                    json!(if x.is_nan() { "NaN" } else if x > 0.0 { "Infinity" } else { "-Infinity" })
                }
            }
            b => numbers()[b as usize % numbers().len()].clone(),
        }
    }
    fn list(&mut self, max: u8, mut item: impl FnMut(&mut Self) -> Value) -> Value {
        let n = self.byte() % (max + 1);
        Value::Array((0..n).map(|_| item(self)).collect())
    }
    fn value(&mut self) -> Value {
        match self.byte() % 11 {
            0 => json!(format!("#{}", self.byte())),
            1 => self.list(6, |r| json!(format!("#{}", r.byte()))),
            2 => self.int(),
            3 => self.list(8, Self::int),
            4 => self.number(),
            5 => self.list(4, Self::number),
            6 => json!(self.byte() & 1 == 1),
            7 => json!(*self.pick(strings())),
            8 => self.list(3, |r| json!(*r.pick(strings()))),
            9 => Value::Null,
            _ => json!({}),
        }
    }
}

/// Decodes bytes into `{"inputs": [...], "operators": [...]}`; see the module doc.
pub fn decode(data: &[u8]) -> Value {
    let mut r = Reader { data, pos: 0 };
    let n_inputs = 1 + r.byte() % 12;
    let inputs: Vec<Value> = (0..n_inputs)
        .map(|_| {
            let flags = r.byte();
            let data_type = DataType::ALL[(flags >> 1) as usize % DataType::ALL.len()];
            let rank = match r.byte() {
                b @ 240..=255 => 6 + b % 3,
                b => b % 6,
            };
            let shape: Vec<u32> = (0..rank).map(|_| r.dim()).collect();
            let values = r.list(8, Reader::number);
            json!({
                "dataType": data_type.as_str(),
                "shape": shape,
                "constant": flags & 1 == 1,
                "values": values,
            })
        })
        .collect();
    let n_ops = 1 + r.byte() % 8;
    let operators: Vec<Value> = (0..n_ops)
        .map(|_| {
            let name = *r.pick(ops());
            let n_args = r.byte() % 8;
            let mut args: Vec<Value> = (0..n_args)
                .map(|_| json!({"name": *r.pick(KEYS), "value": r.value()}))
                .collect();
            let n_options = r.byte() % 12;
            if n_options > 0 {
                let mut options = Map::new();
                for _ in 0..n_options {
                    let key = *r.pick(KEYS);
                    options.insert(key.to_string(), r.value());
                }
                args.push(json!({"kind": "options", "value": options}));
            }
            json!({"name": name, "argList": args})
        })
        .collect();
    json!({"inputs": inputs, "operators": operators})
}

/// Writes the format [`decode`] reads.
struct Writer<'n> {
    out: Vec<u8>,
    /// Operand names in the order the runner registers them.
    names: &'n [String],
}

impl Writer<'_> {
    fn byte(&mut self, b: u8) {
        self.out.push(b)
    }
    fn index(&mut self, table: &[&str], s: &str, what: &str) -> Result<(), String> {
        let i = table.iter().position(|t| *t == s).ok_or_else(|| format!("{what} '{s}' is not in the table"))?;
        self.byte(u8::try_from(i).map_err(|_| format!("{what} '{s}': index {i} > 255"))?);
        Ok(())
    }
    fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes())
    }
    fn dim(&mut self, d: u64) -> Result<(), String> {
        if d < 64 {
            self.byte(d as u8);
        } else {
            self.byte(255);
            self.u32(u32::try_from(d).map_err(|_| format!("dimension {d}"))?);
        }
        Ok(())
    }
    fn int(&mut self, v: i64) -> bool {
        if (0..128).contains(&v) {
            self.byte(v as u8);
        } else if let Some(i) = SPECIAL_INTS.iter().position(|&s| s == v) {
            self.byte(128 + i as u8);
        } else if let Ok(u) = u32::try_from(v) {
            self.byte(255);
            self.u32(u);
        } else {
            return false;
        }
        true
    }
    fn number(&mut self, v: &Value) -> Result<(), String> {
        if let Some(i) = numbers().iter().position(|n| n == v) {
            self.byte(i as u8);
            return Ok(());
        }
        let x = webnn_conformance::values::number(v)?;
        self.byte(255);
        self.u32((x as f32).to_bits());
        Ok(())
    }
    fn reference(&mut self, s: &str) -> Option<Result<(), String>> {
        let i = self.names.iter().position(|n| n == s)?;
        Some(u8::try_from(i).map(|i| self.byte(i)).map_err(|_| format!("operand '{s}' is number {i} > 255")))
    }
    fn value(&mut self, v: &Value) -> Result<(), String> {
        match v {
            Value::String(s) => {
                let at = self.out.len();
                self.byte(0);
                match self.reference(s) {
                    Some(r) => r,
                    None => {
                        self.out[at] = 7;
                        self.index(strings(), s, "string")
                    }
                }
            }
            Value::Array(items) if !items.is_empty() && items.iter().all(|i| i.as_str().is_some_and(|s| self.names.iter().any(|n| n == s))) => {
                self.byte(1);
                self.byte(u8::try_from(items.len()).map_err(|_| "list too long")?);
                items.iter().try_for_each(|i| self.reference(i.as_str().unwrap_or("")).unwrap_or(Ok(())))
            }
            Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_string) => {
                self.byte(8);
                self.byte(items.len() as u8);
                items.iter().try_for_each(|i| self.index(strings(), i.as_str().unwrap_or(""), "string"))
            }
            Value::Array(items) if items.iter().all(|i| i.as_i64().is_some()) => {
                let at = self.out.len();
                self.byte(3);
                self.byte(u8::try_from(items.len()).map_err(|_| "list too long")?);
                if items.iter().all(|i| self.int(i.as_i64().unwrap_or(0))) {
                    return Ok(());
                }
                self.out.truncate(at);
                self.numbers(items)
            }
            Value::Array(items) => self.numbers(items),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    let at = self.out.len();
                    self.byte(2);
                    if self.int(i) {
                        return Ok(());
                    }
                    self.out.truncate(at);
                }
                self.byte(4);
                self.number(v)
            }
            Value::Bool(b) => {
                self.byte(6);
                self.byte(*b as u8);
                Ok(())
            }
            Value::Null => {
                self.byte(9);
                Ok(())
            }
            Value::Object(_) => Err("an object value".into()),
        }
    }
    fn numbers(&mut self, items: &[Value]) -> Result<(), String> {
        self.byte(5);
        self.byte(u8::try_from(items.len()).map_err(|_| "list too long")?);
        items.iter().try_for_each(|i| self.number(i))
    }
}

/// Encodes the graph of one WPT vector case (`case["graph"]`) so that [`decode`] gives back
/// its inputs (with up to 8 of their values) and operators.
pub fn encode_case(case: &Value) -> Result<Vec<u8>, String> {
    let graph = &case["graph"];
    let inputs = graph["inputs"].as_object().ok_or("no inputs")?;
    let operators = graph["operators"].as_array().ok_or("no operators")?;
    if inputs.is_empty() || inputs.len() > 12 || operators.is_empty() || operators.len() > 8 {
        return Err(format!("{} inputs and {} operators", inputs.len(), operators.len()));
    }
    // The names the runner will give: inputs in order, then every operator output.
    let mut names: Vec<String> = inputs.keys().cloned().collect();
    for op in operators {
        match &op["outputs"] {
            Value::String(s) => names.push(s.clone()),
            Value::Array(list) => names.extend(list.iter().filter_map(Value::as_str).map(String::from)),
            _ => return Err("operator without outputs".into()),
        }
    }
    let mut w = Writer { out: Vec::new(), names: &names };
    w.byte(inputs.len() as u8 - 1);
    for input in inputs.values() {
        let d = &input["descriptor"];
        let data_type: DataType = d["dataType"].as_str().unwrap_or("").parse().map_err(|e: Error| e.message)?;
        let type_index = DataType::ALL.iter().position(|t| *t == data_type).unwrap_or(0) as u8;
        w.byte(input["constant"].as_bool().unwrap_or(false) as u8 | type_index << 1);
        let shape = d["shape"].as_array().ok_or("no shape")?;
        match shape.len() {
            r @ 0..=5 => w.byte(r as u8),
            r @ 6..=8 => w.byte(240 + (r as u8 - 6)),
            r => return Err(format!("rank {r}")),
        }
        for dim in shape {
            w.dim(dim.as_u64().ok_or("bad dimension")?)?;
        }
        let values: Vec<Value> = match &input["data"] {
            Value::Array(items) => items.iter().take(8).cloned().collect(),
            single => vec![single.clone()],
        };
        w.byte(values.len() as u8);
        values.iter().try_for_each(|v| w.number(v))?;
    }
    w.byte(operators.len() as u8 - 1);
    for op in operators {
        w.index(ops(), op["name"].as_str().unwrap_or(""), "operator")?;
        let args = op["argList"].as_array().ok_or("no argList")?;
        let (options, positional): (Vec<&Value>, Vec<&Value>) = args.iter().partition(|a| a["kind"] == "options");
        w.byte(u8::try_from(positional.len()).ok().filter(|&n| n < 8).ok_or("too many arguments")?);
        for a in positional {
            w.index(KEYS, a["name"].as_str().unwrap_or(""), "argument")?;
            w.value(&a["value"])?;
        }
        let options = options.first().and_then(|o| o["value"].as_object());
        let options: Vec<(&String, &Value)> = options.map(|m| m.iter().collect()).unwrap_or_default();
        w.byte(u8::try_from(options.len()).ok().filter(|&n| n < 12).ok_or("too many options")?);
        for (key, value) in options {
            w.index(KEYS, key, "option")?;
            w.value(value)?;
        }
    }
    Ok(w.out)
}
