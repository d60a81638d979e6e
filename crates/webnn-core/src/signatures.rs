//! The op signatures as data, for the bindings that build their `MLGraphBuilder` methods at
//! load time (the Node binding's WebIDL converters, the Python methods and stubs): generated
//! from the op table ([`for_each_op!`](crate::for_each_op)) and the options dictionaries
//! ([`OptionsDict`]), so that no binding keeps its own copy of the IDL.
//!
//! [`op_signatures`] returns one JSON object:
//! - `ops`: one entry per op, in the spec's order: `name` (IDL), `method` (snake_case),
//!   `url` (its spec section), `args` (the positional arguments: `name` and IDL type key, the
//!   operands first), `options` (the dictionary's IDL name) and `sequence` (whether it returns
//!   a sequence of operands);
//! - `dictionaries`: by IDL name, `inherits` and `members` (`name`, `type`, and `default` where
//!   the IDL has one);
//! - `enums`: the values of every IDL enum a member or argument uses, by IDL name.
//!
//! The type keys are those of [`crate::types::options::MemberSignature`],
//! plus `usv` (label), `operandSeq` (concat's inputs), `u32` (`unsigned long` without
//! `[EnforceRange]`), `u32Seq` and `splits` (split's count or sizes).

use crate::ops::OpKind;
use crate::types::options::*;
use crate::types::*;
use serde_json::{json, Map, Value};

fn dictionary<T: OptionsDict>(dictionaries: &mut Map<String, Value>) {
    let members: Vec<Value> = T::members()
        .into_iter()
        .map(|m| {
            let mut member = json!({ "name": m.name, "type": m.idl_type });
            if let Some(default) = m.default {
                member["default"] = default;
            }
            member
        })
        .collect();
    dictionaries.insert(T::IDL_NAME.into(), json!({ "inherits": "MLOperatorOptions", "members": members }));
}

fn enum_values<T: Copy + 'static>(all: &[T], as_str: fn(T) -> &'static str) -> Value {
    Value::from(all.iter().map(|&v| as_str(v)).collect::<Vec<_>>())
}

/// The positional operand arguments of a row (`(a, b)` or concat's `[inputs]`): the first
/// slots of the op, with their IDL names.
macro_rules! positional_operands {
    ($op:ident, [$inputs:ident]) => {
        vec![json!({ "name": $op.limits_kind().inputs()[0], "type": "operandSeq" })]
    };
    ($op:ident, ($($operand:ident),*)) => {{
        let count = [$(stringify!($operand)),*].len();
        $op.limits_kind().inputs()[..count].iter().map(|name| json!({ "name": name, "type": "operand" })).collect::<Vec<_>>()
    }};
}

macro_rules! define_signatures {
    ($($variant:ident $idl:literal $anchor:literal $method:ident by $via:ident $operands:tt
        [$($arg:ident: $argty:ty = $argidl:literal $argkind:literal),*] $options:ident $ret:ident
        $limits_kind:ident: $limits:expr;)+) => {
        fn ops() -> Vec<Value> {
            vec![$({
                let op = OpKind::$variant;
                #[allow(unused_mut)]
                let mut args = positional_operands!(op, $operands);
                $(args.push(json!({ "name": $argidl, "type": $argkind }));)*
                json!({
                    "name": $idl,
                    "method": stringify!($method).trim_end_matches('_'),
                    "url": op.spec_url(),
                    "args": args,
                    "options": <$options as OptionsDict>::IDL_NAME,
                    "sequence": stringify!($ret) == "many",
                })
            }),+]
        }

        fn dictionaries() -> Map<String, Value> {
            let mut dictionaries = Map::new();
            dictionaries.insert(
                "MLOperatorOptions".into(),
                json!({ "inherits": null, "members": [{ "name": "label", "type": "usv", "default": "" }] }),
            );
            $(if !dictionaries.contains_key(<$options as OptionsDict>::IDL_NAME) {
                dictionary::<$options>(&mut dictionaries);
            })+
            dictionaries
        }
    };
}

crate::for_each_op!(define_signatures);

/// The IDL enums of the op signatures.
fn enums() -> Map<String, Value> {
    let mut enums = Map::new();
    enums.insert("MLOperandDataType".into(), enum_values(&DataType::ALL, DataType::as_str));
    macro_rules! add {
        ($($ty:ident),+) => {$(enums.insert($ty::IDL_NAME.into(), enum_values($ty::ALL, $ty::as_str));)+};
    }
    add!(
        InputOperandLayout,
        Conv2dFilterOperandLayout,
        ConvTranspose2dFilterOperandLayout,
        GruWeightLayout,
        LstmWeightLayout,
        RecurrentNetworkActivation,
        RecurrentNetworkDirection,
        PaddingMode,
        RoundingType,
        InterpolationMode
    );
    enums
}

/// The op signatures (see the module documentation).
pub fn op_signatures() -> Value {
    json!({ "ops": ops(), "dictionaries": dictionaries(), "enums": enums() })
}
