//! The arguments of a dynamic builder call ([`GraphBuilder::call`](super::GraphBuilder::call)):
//! the non-operand arguments and option members as one JSON record by IDL name
//! ([`OpParams`]), the operands by slot ([`Slots`]), and the two conversions between IDL
//! values and JSON: [`FromParam`] (a member's value as a binding sends it) and [`IdlValue`] (an
//! IDL default as the op signatures report it).

use crate::error::{Error, Result};
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::Splits;
use crate::types::{DataType, MLNumber};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The non-operand positional arguments and option members of one builder call, by IDL name
/// (`keepDimensions`, `dataType`, ...), as JSON values; absent (or `null`) takes the IDL
/// default. Bindings convert each value with its WebIDL type first; an `MLNumber` is a number
/// or a [`NumberParam`] string. `split()`'s `splits` is a number or a list.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(transparent)]
pub struct OpParams(pub Map<String, Value>);

impl OpParams {
    /// The value of member or argument `name`, if given.
    fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    /// `label` (default "").
    pub(crate) fn label(&self, op: OpKind) -> Result<String> {
        self.member(op, "label", String::new())
    }

    /// An option member: its value converted, or `default` (the options struct's) if absent.
    pub(crate) fn member<T: FromParam>(&self, op: OpKind, name: &str, default: T) -> Result<T> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => T::from_param(v).map_err(|e| Error::type_error(format!("{op}: '{name}' {e}"))),
        }
    }

    /// A required positional argument; TypeError naming it if absent.
    pub(crate) fn required<T: FromParam>(&self, op: OpKind, name: &str) -> Result<T> {
        match self.get(name) {
            None => Err(Error::type_error(format!("{op}: the required argument '{name}' is missing"))),
            Some(v) => T::from_param(v).map_err(|e| Error::type_error(format!("{op}: '{name}' {e}"))),
        }
    }
}

/// The operand arguments of one call, in the op's slot order
/// ([`LimitsKind::inputs`](crate::LimitsKind::inputs)).
#[doc(hidden)]
pub struct Slots<'a> {
    pub(crate) op: OpKind,
    pub(crate) operands: &'a [Option<&'a Operand>],
}

impl<'a> Slots<'a> {
    /// The required operand of slot `i`; TypeError if absent.
    pub(crate) fn required(&self, i: usize) -> Result<&'a Operand> {
        self.operands.get(i).copied().flatten().ok_or_else(|| {
            let name = self.op.limits_kind().inputs().get(i).copied().unwrap_or("operand");
            Error::type_error(format!("{}: the required argument '{name}' is missing", self.op))
        })
    }

    /// Every operand given (concat's `inputs`); TypeError if one is absent.
    pub(crate) fn all(&self) -> Result<Vec<&'a Operand>> {
        (0..self.operands.len()).map(|i| self.required(i)).collect()
    }

    /// The optional operand member `name` of the options dictionary.
    pub(crate) fn member(&self, name: &str) -> Option<Operand> {
        let i = self.op.limits_kind().inputs().iter().position(|slot| *slot == name)?;
        self.operands.get(i).copied().flatten().cloned()
    }
}

/// A value of an IDL type as a binding sends it in JSON; the error says what was wrong
/// (the caller adds the op and member names).
pub trait FromParam: Sized {
    /// Converts `value`.
    fn from_param(value: &Value) -> std::result::Result<Self, String>;
}

/// An IDL value as JSON, for the defaults in the op signatures; `None` where the member has
/// no default (absent optional members, operands).
pub trait IdlValue {
    /// The value, or `None`.
    fn to_idl(&self) -> Option<Value>;
}

macro_rules! json_scalar {
    ($($ty:ty => $get:ident, $what:literal;)+) => {$(
        impl FromParam for $ty {
            fn from_param(value: &Value) -> std::result::Result<Self, String> {
                value.$get().and_then(|v| <$ty>::try_from(v).ok()).ok_or_else(|| format!("must be {}, got {value}", $what))
            }
        }
        impl IdlValue for $ty {
            fn to_idl(&self) -> Option<Value> {
                Some(Value::from(*self))
            }
        }
    )+};
}

json_scalar! {
    u32 => as_u64, "an unsigned long";
    i32 => as_i64, "a long";
    bool => as_bool, "a boolean";
}

impl FromParam for f64 {
    fn from_param(value: &Value) -> std::result::Result<Self, String> {
        value.as_f64().ok_or_else(|| format!("must be a double, got {value}"))
    }
}
impl IdlValue for f64 {
    fn to_idl(&self) -> Option<Value> {
        Some(Value::from(*self))
    }
}

/// `float` (resample2d's scales): the bindings already rounded each item to float32.
impl FromParam for f32 {
    fn from_param(value: &Value) -> std::result::Result<Self, String> {
        f64::from_param(value).map(|v| v as f32)
    }
}
impl IdlValue for f32 {
    fn to_idl(&self) -> Option<Value> {
        Some(Value::from(*self as f64))
    }
}

impl FromParam for String {
    fn from_param(value: &Value) -> std::result::Result<Self, String> {
        value.as_str().map(str::to_owned).ok_or_else(|| format!("must be a string, got {value}"))
    }
}
impl IdlValue for String {
    fn to_idl(&self) -> Option<Value> {
        Some(Value::from(self.as_str()))
    }
}

impl<T: FromParam> FromParam for Vec<T> {
    fn from_param(value: &Value) -> std::result::Result<Self, String> {
        let items = value.as_array().ok_or_else(|| format!("must be a sequence, got {value}"))?;
        items.iter().map(T::from_param).collect()
    }
}
impl<T: IdlValue> IdlValue for Vec<T> {
    fn to_idl(&self) -> Option<Value> {
        self.iter().map(T::to_idl).collect::<Option<Vec<_>>>().map(Value::Array)
    }
}

/// A present optional member is `Some`; absence is handled by `OpParams::member`.
impl<T: FromParam> FromParam for Option<T> {
    fn from_param(value: &Value) -> std::result::Result<Self, String> {
        T::from_param(value).map(Some)
    }
}
impl<T: IdlValue> IdlValue for Option<T> {
    fn to_idl(&self) -> Option<Value> {
        self.as_ref().and_then(T::to_idl)
    }
}

/// Operand members have no default.
impl IdlValue for Operand {
    fn to_idl(&self) -> Option<Value> {
        None
    }
}

impl FromParam for DataType {
    fn from_param(value: &Value) -> std::result::Result<Self, String> {
        String::from_param(value)?.parse().map_err(|e: Error| e.message)
    }
}
impl IdlValue for DataType {
    fn to_idl(&self) -> Option<Value> {
        Some(Value::from(self.as_str()))
    }
}

impl FromParam for MLNumber {
    fn from_param(value: &Value) -> std::result::Result<Self, String> {
        let number = NumberParam::deserialize(value).map_err(|_| format!("must be an MLNumber, got {value}"))?;
        number.to_ml().map_err(|e| e.message)
    }
}
impl IdlValue for MLNumber {
    fn to_idl(&self) -> Option<Value> {
        match *self {
            // An integral default (pad's `value = 0`) is written as the IDL writes it.
            MLNumber::Double(v) if v.fract() == 0.0 && v.abs() < 9.0e15 && !(v == 0.0 && v.is_sign_negative()) => {
                Some(Value::from(v as i64))
            }
            MLNumber::Double(v) => Some(Value::from(v)),
            MLNumber::BigInt(v) => {
                Some(i64::try_from(v).map(Value::from).unwrap_or_else(|_| Value::from(v.to_string())))
            }
        }
    }
}

/// `(unsigned long or sequence<unsigned long>)`: a number is a count, a list the sizes.
impl FromParam for Splits {
    fn from_param(value: &Value) -> std::result::Result<Self, String> {
        match value {
            Value::Array(_) => Vec::from_param(value).map(Splits::Sizes),
            _ => u32::from_param(value)
                .map(Splits::Count)
                .map_err(|_| format!("must be a count or a list of sizes, got {value}")),
        }
    }
}

/// An `MLNumber` argument as bindings send it: a number (an `unrestricted double`) or a
/// string — a decimal integer is a `bigint`; `"NaN"`, `"Infinity"`, `"-Infinity"` and `"-0"`
/// are doubles (JSON has no literals for them).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum NumberParam {
    /// A double.
    Number(f64),
    /// A `bigint` in decimal, or a special double's name.
    Text(String),
}

impl NumberParam {
    /// The `MLNumber`; TypeError for a string that is neither an integer nor a special double.
    pub fn to_ml(&self) -> Result<MLNumber> {
        match self {
            NumberParam::Number(x) => Ok(MLNumber::Double(*x)),
            NumberParam::Text(s) => match s.as_str() {
                "NaN" => Ok(MLNumber::Double(f64::NAN)),
                "Infinity" => Ok(MLNumber::Double(f64::INFINITY)),
                "-Infinity" => Ok(MLNumber::Double(f64::NEG_INFINITY)),
                "-0" => Ok(MLNumber::Double(-0.0)),
                _ => s
                    .parse::<i128>()
                    .map(MLNumber::BigInt)
                    .map_err(|_| Error::type_error(format!("'{s}' is not an MLNumber (a number or an integer)"))),
            },
        }
    }
}
