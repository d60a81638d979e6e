//! Builder methods of gru ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru)), gruCell
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-grucell)), lstm
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstm)) and lstmCell
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstmcell)).

use super::GraphBuilder;
use crate::error::Result;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::{GruCellOptions, GruOptions, LstmCellOptions, LstmOptions};
use crate::validate::recurrent::{self as v, CellArgs, LstmOperands, RecurrentArgs};

impl GraphBuilder {
    /// `gru(input, weight, recurrentWeight, steps, hiddenSize, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru)). Returns `[output0]`, or
    /// `[output0, output1]` when `returnSequence` is true.
    pub fn gru(
        &mut self,
        input: &Operand,
        weight: &Operand,
        recurrent_weight: &Operand,
        steps: u32,
        hidden_size: u32,
        options: &GruOptions,
    ) -> Result<Vec<Operand>> {
        let bias = options.bias.as_ref();
        let recurrent_bias = options.recurrent_bias.as_ref();
        let initial_hidden_state = options.initial_hidden_state.as_ref();
        let inputs = [Some(input), Some(weight), Some(recurrent_weight), bias, recurrent_bias, initial_hidden_state];
        let call = self.begin(OpKind::Gru, &options.label, &inputs)?;
        let args = RecurrentArgs {
            input: &input.descriptor,
            weight: &weight.descriptor,
            recurrent_weight: &recurrent_weight.descriptor,
            steps,
            hidden_size,
        };
        let (outs, attrs) = v::gru(
            &call,
            &args,
            bias.map(|o| &o.descriptor),
            recurrent_bias.map(|o| &o.descriptor),
            initial_hidden_state.map(|o| &o.descriptor),
            options,
        )?;
        self.finish(call, &inputs, attrs, outs)
    }

    /// `gruCell(input, weight, recurrentWeight, hiddenState, hiddenSize, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-grucell))
    pub fn gru_cell(
        &mut self,
        input: &Operand,
        weight: &Operand,
        recurrent_weight: &Operand,
        hidden_state: &Operand,
        hidden_size: u32,
        options: &GruCellOptions,
    ) -> Result<Operand> {
        let bias = options.bias.as_ref();
        let recurrent_bias = options.recurrent_bias.as_ref();
        let inputs = [Some(input), Some(weight), Some(recurrent_weight), Some(hidden_state), bias, recurrent_bias];
        let call = self.begin(OpKind::GruCell, &options.label, &inputs)?;
        let args = CellArgs {
            input: &input.descriptor,
            weight: &weight.descriptor,
            recurrent_weight: &recurrent_weight.descriptor,
            hidden_state: &hidden_state.descriptor,
            cell_state: None,
            hidden_size,
        };
        let (out, attrs) =
            v::gru_cell(&call, &args, bias.map(|o| &o.descriptor), recurrent_bias.map(|o| &o.descriptor), options)?;
        self.finish_one(call, &inputs, attrs, out)
    }

    /// `lstm(input, weight, recurrentWeight, steps, hiddenSize, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstm)). Returns `[hidden, cell]`,
    /// plus the sequence when `returnSequence` is true.
    pub fn lstm(
        &mut self,
        input: &Operand,
        weight: &Operand,
        recurrent_weight: &Operand,
        steps: u32,
        hidden_size: u32,
        options: &LstmOptions,
    ) -> Result<Vec<Operand>> {
        let inputs = [
            Some(input),
            Some(weight),
            Some(recurrent_weight),
            options.bias.as_ref(),
            options.recurrent_bias.as_ref(),
            options.peephole_weight.as_ref(),
            options.initial_hidden_state.as_ref(),
            options.initial_cell_state.as_ref(),
        ];
        let call = self.begin(OpKind::Lstm, &options.label, &inputs)?;
        let args = RecurrentArgs {
            input: &input.descriptor,
            weight: &weight.descriptor,
            recurrent_weight: &recurrent_weight.descriptor,
            steps,
            hidden_size,
        };
        let ops = LstmOperands {
            bias: options.bias.as_ref().map(|o| &o.descriptor),
            recurrent_bias: options.recurrent_bias.as_ref().map(|o| &o.descriptor),
            peephole_weight: options.peephole_weight.as_ref().map(|o| &o.descriptor),
            initial_hidden_state: options.initial_hidden_state.as_ref().map(|o| &o.descriptor),
            initial_cell_state: options.initial_cell_state.as_ref().map(|o| &o.descriptor),
        };
        let (outs, attrs) = v::lstm(&call, &args, &ops, options)?;
        self.finish(call, &inputs, attrs, outs)
    }

    /// `lstmCell(input, weight, recurrentWeight, hiddenState, cellState, hiddenSize, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-lstmcell)). Returns `[hiddenState',
    /// cellState']`.
    #[allow(clippy::too_many_arguments)]
    pub fn lstm_cell(
        &mut self,
        input: &Operand,
        weight: &Operand,
        recurrent_weight: &Operand,
        hidden_state: &Operand,
        cell_state: &Operand,
        hidden_size: u32,
        options: &LstmCellOptions,
    ) -> Result<Vec<Operand>> {
        let inputs = [
            Some(input),
            Some(weight),
            Some(recurrent_weight),
            Some(hidden_state),
            Some(cell_state),
            options.bias.as_ref(),
            options.recurrent_bias.as_ref(),
            options.peephole_weight.as_ref(),
        ];
        let call = self.begin(OpKind::LstmCell, &options.label, &inputs)?;
        let args = CellArgs {
            input: &input.descriptor,
            weight: &weight.descriptor,
            recurrent_weight: &recurrent_weight.descriptor,
            hidden_state: &hidden_state.descriptor,
            cell_state: Some(&cell_state.descriptor),
            hidden_size,
        };
        let ops = LstmOperands {
            bias: options.bias.as_ref().map(|o| &o.descriptor),
            recurrent_bias: options.recurrent_bias.as_ref().map(|o| &o.descriptor),
            peephole_weight: options.peephole_weight.as_ref().map(|o| &o.descriptor),
            ..Default::default()
        };
        let (outs, attrs) = v::lstm_cell(&call, &args, &ops, options)?;
        self.finish(call, &inputs, attrs, outs)
    }
}
