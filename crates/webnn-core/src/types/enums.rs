//! The IDL enums other than `MLOperandDataType`, with their exact IDL strings.

use crate::error::{Error, Result};

/// Declares an IDL enum as a Rust enum with `as_str`, `FromStr`, `Display`, `ALL` and the IDL default.
///
/// Each variant's doc comment is its IDL string, followed by the variant's own doc lines if any.
macro_rules! idl_enum {
    ($(#[$doc:meta])* $name:ident, $idl:literal, default $default:ident { $($(#[$vdoc:meta])* $variant:ident = $s:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $(#[doc = concat!("`\"", $s, "\"`")] $(#[$vdoc])* $variant),+ }

        impl $name {
            /// Every value, in IDL order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The IDL enum name.
            pub const IDL_NAME: &'static str = $idl;
            /// The exact IDL enum string.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $s),+ }
            }
        }
        impl Default for $name {
            fn default() -> Self { $name::$default }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(self.as_str()) }
        }
        impl crate::builder::params::FromParam for $name {
            fn from_param(value: &serde_json::Value) -> std::result::Result<Self, String> {
                String::from_param(value)?.parse().map_err(|e: Error| e.message)
            }
        }
        impl crate::builder::params::IdlValue for $name {
            fn to_idl(&self) -> Option<serde_json::Value> {
                Some(serde_json::Value::from(self.as_str()))
            }
        }
        impl std::str::FromStr for $name {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                match s {
                    $($s => Ok($name::$variant),)+
                    _ => Err(Error::type_error(format!(
                        "The provided value '{s}' is not a valid enum value of type {}.", $idl))),
                }
            }
        }
    };
}

idl_enum!(
    /// `MLPowerPreference` ([spec](https://www.w3.org/TR/webnn/#api-ml)).
    PowerPreference, "MLPowerPreference", default Default {
    Default = "default", HighPerformance = "high-performance", LowPower = "low-power",
});

idl_enum!(
    /// `MLInputOperandLayout` ([spec](https://www.w3.org/TR/webnn/#api-mloperanddescriptor)):
    /// `"nchw"` or `"nhwc"`.
    InputOperandLayout, "MLInputOperandLayout", default Nchw {
    Nchw = "nchw", Nhwc = "nhwc",
});

idl_enum!(
    /// `MLConv2dFilterOperandLayout`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d)).
    Conv2dFilterOperandLayout, "MLConv2dFilterOperandLayout", default Oihw {
    Oihw = "oihw", Hwio = "hwio", Ohwi = "ohwi", Ihwo = "ihwo",
});

idl_enum!(
    /// `MLConvTranspose2dFilterOperandLayout`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d)).
    ConvTranspose2dFilterOperandLayout, "MLConvTranspose2dFilterOperandLayout", default Iohw {
    Iohw = "iohw", Hwoi = "hwoi", Ohwi = "ohwi",
});

idl_enum!(
    /// `MLGruWeightLayout` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru)): gate
    /// order of the stacked weights.
    GruWeightLayout, "MLGruWeightLayout", default Zrn {
    /// Update, reset, new.
    Zrn = "zrn",
    /// Reset, update, new.
    Rzn = "rzn",
});

idl_enum!(
    /// `MLLstmWeightLayout` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstm)): gate
    /// order of the stacked weights.
    LstmWeightLayout, "MLLstmWeightLayout", default Iofg {
    /// Input, output, forget, cell.
    Iofg = "iofg",
    /// Input, forget, cell, output.
    Ifgo = "ifgo",
});

impl GruWeightLayout {
    /// Where each gate sits in the stacked weights' gate axis (as a block index), in the order
    /// update, reset, new — the order the kernels compute the gates in.
    pub fn gate_blocks(self) -> [usize; 3] {
        match self {
            GruWeightLayout::Zrn => [0, 1, 2],
            GruWeightLayout::Rzn => [1, 0, 2],
        }
    }
}

impl LstmWeightLayout {
    /// Where each gate sits in the stacked weights' gate axis (as a block index), in the order
    /// input, output, forget, cell — the order the kernels compute the gates in.
    pub fn gate_blocks(self) -> [usize; 4] {
        match self {
            LstmWeightLayout::Iofg => [0, 1, 2, 3],
            LstmWeightLayout::Ifgo => [0, 3, 1, 2],
        }
    }
}

idl_enum!(
    /// `MLRecurrentNetworkActivation`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru)).
    RecurrentNetworkActivation, "MLRecurrentNetworkActivation", default Relu {
    Relu = "relu", Sigmoid = "sigmoid", Tanh = "tanh",
});

idl_enum!(
    /// `MLRecurrentNetworkDirection` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru)).
    RecurrentNetworkDirection, "MLRecurrentNetworkDirection", default Forward {
    Forward = "forward", Backward = "backward", Both = "both",
});

idl_enum!(
    /// `MLPaddingMode` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pad)).
    /// (`"symmetric"` was removed in 2026.)
    PaddingMode, "MLPaddingMode", default Constant {
    Constant = "constant", Edge = "edge", Reflection = "reflection",
});

idl_enum!(
    /// `MLRoundingType` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d)), used by
    /// `outputShapeRounding`.
    RoundingType, "MLRoundingType", default Floor {
    Floor = "floor", Ceil = "ceil",
});

idl_enum!(
    /// `MLInterpolationMode`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method)).
    InterpolationMode, "MLInterpolationMode", default NearestNeighbor {
    NearestNeighbor = "nearest-neighbor", Linear = "linear",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_unknown() {
        for v in PaddingMode::ALL {
            assert_eq!(v.as_str().parse::<PaddingMode>().unwrap(), *v);
        }
        assert!("symmetric".parse::<PaddingMode>().is_err());
        assert_eq!(InterpolationMode::default().as_str(), "nearest-neighbor");
        assert_eq!(RecurrentNetworkDirection::default(), RecurrentNetworkDirection::Forward);
    }
}
