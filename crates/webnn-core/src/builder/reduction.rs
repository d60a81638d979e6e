//! Builder methods of argMin / argMax (§8.9.5), cumulativeSum (§8.9.12) and the reductions
//! (§8.9.39).

use super::GraphBuilder;
use crate::error::{Error, Result};
use crate::graph::Attrs;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::{ArgMinMaxOptions, CumulativeSumOptions, ReduceOptions};
use crate::validate::reduction as v;

macro_rules! reduce_methods {
    ($($(#[$doc:meta])* $name:ident => $kind:ident;)+) => {$(
        $(#[$doc])*
        pub fn $name(&mut self, input: &Operand, options: &ReduceOptions) -> Result<Operand> {
            self.reduce(OpKind::$kind, input, options)
        }
    )+};
}

impl GraphBuilder {
    /// *create an argMin/argMax operation* (§8.9.5) by kind (`op` is ArgMin or ArgMax).
    pub fn arg_min_max(
        &mut self,
        op: OpKind,
        input: &Operand,
        axis: u32,
        options: &ArgMinMaxOptions,
    ) -> Result<Operand> {
        if !matches!(op, OpKind::ArgMin | OpKind::ArgMax) {
            return Err(Error::type_error(format!("{op} is not argMin or argMax")));
        }
        let call = self.begin(op, &options.label, &[Some(input)])?;
        let out = v::arg_min_max(&call, &input.descriptor, axis, options.keep_dimensions, options.output_data_type)?;
        let attrs = Attrs::ArgMinMax { axis, keep_dimensions: options.keep_dimensions };
        self.finish_one(call, &[Some(input)], attrs, out)
    }

    /// `argMin(input, axis, options)` (§8.9.5)
    pub fn arg_min(&mut self, input: &Operand, axis: u32, options: &ArgMinMaxOptions) -> Result<Operand> {
        self.arg_min_max(OpKind::ArgMin, input, axis, options)
    }

    /// `argMax(input, axis, options)` (§8.9.5)
    pub fn arg_max(&mut self, input: &Operand, axis: u32, options: &ArgMinMaxOptions) -> Result<Operand> {
        self.arg_min_max(OpKind::ArgMax, input, axis, options)
    }

    /// `cumulativeSum(input, axis, options)` (§8.9.12)
    pub fn cumulative_sum(&mut self, input: &Operand, axis: u32, options: &CumulativeSumOptions) -> Result<Operand> {
        let call = self.begin(OpKind::CumulativeSum, &options.label, &[Some(input)])?;
        let out = v::cumulative_sum(&call, &input.descriptor, axis)?;
        let attrs = Attrs::CumulativeSum { axis, exclusive: options.exclusive, reversed: options.reversed };
        self.finish_one(call, &[Some(input)], attrs, out)
    }

    /// Any reduction of §8.9.39 by kind. The attributes hold the reduced axes sorted.
    pub fn reduce(&mut self, op: OpKind, input: &Operand, options: &ReduceOptions) -> Result<Operand> {
        if !v::is_reduction(op) {
            return Err(Error::type_error(format!("{op} is not a reduction")));
        }
        let call = self.begin(op, &options.label, &[Some(input)])?;
        let (out, axes) = v::reduce(&call, &input.descriptor, options.axes.as_deref(), options.keep_dimensions)?;
        self.finish_one(call, &[Some(input)], Attrs::Reduce { axes, keep_dimensions: options.keep_dimensions }, out)
    }

    reduce_methods! {
        /// `reduceL1(input, options)` (§8.9.39)
        reduce_l1 => ReduceL1;
        /// `reduceL2(input, options)` (§8.9.39)
        reduce_l2 => ReduceL2;
        /// `reduceLogSum(input, options)` (§8.9.39)
        reduce_log_sum => ReduceLogSum;
        /// `reduceLogSumExp(input, options)` (§8.9.39)
        reduce_log_sum_exp => ReduceLogSumExp;
        /// `reduceMax(input, options)` (§8.9.39)
        reduce_max => ReduceMax;
        /// `reduceMean(input, options)` (§8.9.39)
        reduce_mean => ReduceMean;
        /// `reduceMin(input, options)` (§8.9.39)
        reduce_min => ReduceMin;
        /// `reduceProduct(input, options)` (§8.9.39)
        reduce_product => ReduceProduct;
        /// `reduceSum(input, options)` (§8.9.39)
        reduce_sum => ReduceSum;
        /// `reduceSumSquare(input, options)` (§8.9.39)
        reduce_sum_square => ReduceSumSquare;
    }
}
