//! Tests of the recurrent kernels against a straightforward f64 reference written from the
//! spec emulation ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gru)/26/33/34): weights
//! sliced per gate by layout offsets, one naive matrix product per term, backward sequences
//! prepended.

use crate::testing::constant_operands::{OneOp, Operand};
use half::f16;
use webnn_core::testing::Rng;
use webnn_core::{
    Attrs, DataType, GruWeightLayout, LstmWeightLayout, OpKind, OperandDescriptor, RecurrentNetworkActivation as A,
    RecurrentNetworkDirection as D,
};

/// Runs `op` twice: the second dispatch reuses the scratch and must give the same result.
fn run_twice(mut op: OneOp) -> Vec<Vec<u8>> {
    let first = op.run();
    let second = op.run();
    assert_eq!(first, second, "second dispatch differs");
    first
}

// ---------------------------------------------------------------------------------------------
// The f64 reference.

fn act(a: A, x: f64) -> f64 {
    match a {
        A::Relu => x.max(0.0),
        A::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        A::Tanh => x.tanh(),
    }
}

/// `a[rows × k] · (w[off .. off + n rows] of k columns)ᵀ` → rows × n.
fn mm_t(a: &[f64], rows: usize, k: usize, w: &[f64], off: usize, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; rows * n];
    for r in 0..rows {
        for j in 0..n {
            let mut s = 0.0;
            for p in 0..k {
                s += a[r * k + p] * w[(off + j) * k + p];
            }
            out[r * n + j] = s;
        }
    }
    out
}

fn at(v: Option<&[f64]>, i: usize) -> f64 {
    v.map_or(0.0, |v| v[i])
}

/// Shapes and options of one reference run.
#[derive(Clone, Copy, Debug)]
struct Geo {
    steps: usize,
    batch: usize,
    input: usize,
    hidden: usize,
}

#[derive(Clone, Copy, Debug)]
struct GruCfg {
    reset_after: bool,
    layout: GruWeightLayout,
    acts: [A; 2],
}

/// gruCell per the emulation: returns the new hidden state [batch, h].
#[allow(clippy::too_many_arguments)]
fn ref_gru_cell(
    g: Geo,
    cfg: GruCfg,
    x: &[f64],
    w: &[f64],
    r: &[f64],
    hs: &[f64],
    b: Option<&[f64]>,
    rb: Option<&[f64]>,
) -> Vec<f64> {
    let (h, n_b) = (g.hidden, g.batch);
    let (zo, ro, no) = match cfg.layout {
        GruWeightLayout::Zrn => (0, h, 2 * h),
        GruWeightLayout::Rzn => (h, 0, 2 * h),
    };
    let (xz, xr, xn) =
        (mm_t(x, n_b, g.input, w, zo, h), mm_t(x, n_b, g.input, w, ro, h), mm_t(x, n_b, g.input, w, no, h));
    let (hz, hr, hn) = (mm_t(hs, n_b, h, r, zo, h), mm_t(hs, n_b, h, r, ro, h), mm_t(hs, n_b, h, r, no, h));
    let mut z = vec![0.0; n_b * h];
    let mut rr = vec![0.0; n_b * h];
    for bi in 0..n_b {
        for j in 0..h {
            let i = bi * h + j;
            z[i] = act(cfg.acts[0], at(b, zo + j) + at(rb, zo + j) + xz[i] + hz[i]);
            rr[i] = act(cfg.acts[0], at(b, ro + j) + at(rb, ro + j) + xr[i] + hr[i]);
        }
    }
    let rh: Vec<f64> = rr.iter().zip(hs).map(|(a, b)| a * b).collect();
    let rhn = mm_t(&rh, n_b, h, r, no, h);
    let mut out = vec![0.0; n_b * h];
    for bi in 0..n_b {
        for j in 0..h {
            let i = bi * h + j;
            let n = if cfg.reset_after {
                act(cfg.acts[1], at(b, no + j) + xn[i] + rr[i] * (at(rb, no + j) + hn[i]))
            } else {
                act(cfg.acts[1], at(b, no + j) + at(rb, no + j) + xn[i] + rhn[i])
            };
            out[i] = z[i] * hs[i] + n * (1.0 - z[i]);
        }
    }
    out
}

#[derive(Clone, Copy, Debug)]
struct LstmCfg {
    layout: LstmWeightLayout,
    acts: [A; 3],
}

/// lstmCell per the emulation: returns [h', c'].
#[allow(clippy::too_many_arguments)]
fn ref_lstm_cell(
    g: Geo,
    cfg: LstmCfg,
    x: &[f64],
    w: &[f64],
    r: &[f64],
    hs: &[f64],
    cs: &[f64],
    b: Option<&[f64]>,
    rb: Option<&[f64]>,
    p: Option<&[f64]>,
) -> (Vec<f64>, Vec<f64>) {
    let (h, n_b) = (g.hidden, g.batch);
    let (io, oo, fo, go) = match cfg.layout {
        LstmWeightLayout::Iofg => (0, h, 2 * h, 3 * h),
        LstmWeightLayout::Ifgo => (0, 3 * h, h, 2 * h),
    };
    let pre = |off: usize| -> Vec<f64> {
        let xw = mm_t(x, n_b, g.input, w, off, h);
        let hr = mm_t(hs, n_b, h, r, off, h);
        (0..n_b * h).map(|i| at(b, off + i % h) + at(rb, off + i % h) + xw[i] + hr[i]).collect()
    };
    let (pi, po, pf, pg) = (pre(io), pre(oo), pre(fo), pre(go));
    let mut hn = vec![0.0; n_b * h];
    let mut cn = vec![0.0; n_b * h];
    for i in 0..n_b * h {
        let j = i % h;
        let c = cs[i];
        // Peephole packed (i, o, f); the output gate uses the previous cell state.
        let ig = act(cfg.acts[0], c * at(p, j) + pi[i]);
        let fg = act(cfg.acts[0], c * at(p, 2 * h + j) + pf[i]);
        let gg = act(cfg.acts[1], pg[i]);
        let og = act(cfg.acts[0], c * at(p, h + j) + po[i]);
        cn[i] = fg * c + ig * gg;
        hn[i] = og * act(cfg.acts[2], cn[i]);
    }
    (hn, cn)
}

/// A whole network by the emulation: `cell(dir, t, h, c) -> (h, c)`. Returns the final
/// hidden and cell states [dirs, batch, h] and the sequence [steps, dirs, batch, h].
fn ref_network(
    g: Geo,
    direction: D,
    h0: Option<&[f64]>,
    c0: Option<&[f64]>,
    mut cell: impl FnMut(usize, usize, &[f64], &[f64]) -> (Vec<f64>, Vec<f64>),
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let dirs = if direction == D::Both { 2 } else { 1 };
    let bh = g.batch * g.hidden;
    let mut hidden = Vec::new();
    let mut cells = Vec::new();
    let mut seqs: Vec<Vec<Vec<f64>>> = Vec::new();
    for dir in 0..dirs {
        let mut h = h0.map_or(vec![0.0; bh], |v| v[dir * bh..(dir + 1) * bh].to_vec());
        let mut c = c0.map_or(vec![0.0; bh], |v| v[dir * bh..(dir + 1) * bh].to_vec());
        let mut seq: Vec<Vec<f64>> = Vec::new();
        for step in 0..g.steps {
            let t = if dir == 1 || direction == D::Backward { g.steps - step - 1 } else { step };
            (h, c) = cell(dir, t, &h, &c);
            if dir == 1 || direction == D::Backward {
                seq.insert(0, h.clone());
            } else {
                seq.push(h.clone());
            }
        }
        hidden.extend_from_slice(&h);
        cells.extend_from_slice(&c);
        seqs.push(seq);
    }
    let mut sequence = Vec::new();
    for t in 0..g.steps {
        for s in &seqs {
            sequence.extend_from_slice(&s[t]);
        }
    }
    (hidden, cells, sequence)
}

// ---------------------------------------------------------------------------------------------
// Test data and comparison.

/// `n` values in [-scale, scale] (multiples of scale / 10000), exactly representable in `dt`.
fn values(rng: &mut Rng, n: usize, scale: f64, dt: DataType) -> Vec<f64> {
    (0..n).map(|_| round(dt, (rng.below(20001) as f64 / 10000.0 - 1.0) * scale)).collect()
}

fn round(dt: DataType, v: f64) -> f64 {
    match dt {
        DataType::Float16 => f16::from_f64(v).to_f64(),
        _ => v as f32 as f64,
    }
}

fn operand(dt: DataType, shape: &[usize], v: &[f64], constant: bool) -> Operand {
    let desc = OperandDescriptor::new(dt, shape.iter().map(|&d| d as u32).collect::<Vec<_>>());
    let bytes = match dt {
        DataType::Float16 => v.iter().flat_map(|&x| f16::from_f64(x).to_le_bytes()).collect(),
        _ => v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect(),
    };
    (desc, bytes, constant)
}

fn read(dt: DataType, b: &[u8]) -> Vec<f64> {
    match dt {
        DataType::Float16 => crate::testing::from_bytes::<f16>(b).iter().map(|v| v.to_f64()).collect(),
        _ => crate::testing::from_bytes::<f32>(b).iter().map(|&v| v as f64).collect(),
    }
}

fn close(dt: DataType, got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let rel = if dt == DataType::Float16 { 4e-3 } else { 2e-5 };
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rel * (1.0 + w.abs()),
            "{what}: element {i}: got {g}, want {w}\n got {got:?}\nwant {want:?}"
        );
    }
}

/// Which optional operands a case provides.
#[derive(Clone, Copy, Debug)]
struct Present {
    bias: bool,
    rbias: bool,
    peep: bool,
    h0: bool,
    c0: bool,
    constant_weights: bool,
}

const PRESENCE: [Present; 5] = [
    Present { bias: true, rbias: true, peep: true, h0: true, c0: true, constant_weights: true },
    Present { bias: false, rbias: false, peep: false, h0: false, c0: false, constant_weights: false },
    Present { bias: true, rbias: false, peep: false, h0: true, c0: false, constant_weights: true },
    Present { bias: false, rbias: true, peep: true, h0: false, c0: true, constant_weights: false },
    Present { bias: true, rbias: true, peep: false, h0: false, c0: true, constant_weights: true },
];

/// The operands every recurrent network has, drawn in this order: input, weights, recurrent
/// weights, and the biases present.
struct Net {
    g: Geo,
    /// Rows of the weights per direction (gates × hidden size).
    gh: usize,
    x: Vec<f64>,
    w: Vec<f64>,
    r: Vec<f64>,
    b: Option<Vec<f64>>,
    rb: Option<Vec<f64>>,
}

impl Net {
    fn draw(rng: &mut Rng, g: Geo, dirs: usize, gh: usize, pr: Present, dt: DataType) -> Net {
        let x = values(rng, g.steps * g.batch * g.input, 1.0, dt);
        let w = values(rng, dirs * gh * g.input, 0.8, dt);
        let r = values(rng, dirs * gh * g.hidden, 0.8, dt);
        let b = pr.bias.then(|| values(rng, dirs * gh, 0.5, dt));
        let rb = pr.rbias.then(|| values(rng, dirs * gh, 0.5, dt));
        Net { g, gh, x, w, r, b, rb }
    }

    /// Time step `t`'s input and direction `dir`'s weights, recurrent weights and biases.
    #[allow(clippy::type_complexity)]
    fn step(&self, dir: usize, t: usize) -> (&[f64], &[f64], &[f64], Option<&[f64]>, Option<&[f64]>) {
        let (g, gh, h) = (self.g, self.gh, self.g.hidden);
        let xt = &self.x[t * g.batch * g.input..(t + 1) * g.batch * g.input];
        let wd = &self.w[dir * gh * g.input..(dir + 1) * gh * g.input];
        let rd = &self.r[dir * gh * h..(dir + 1) * gh * h];
        let bd = self.b.as_ref().map(|v| &v[dir * gh..(dir + 1) * gh]);
        let rbd = self.rb.as_ref().map(|v| &v[dir * gh..(dir + 1) * gh]);
        (xt, wd, rd, bd, rbd)
    }
}

/// Runs gru (or gruCell when `cell`) through a plan and checks it against the reference.
#[allow(clippy::too_many_arguments)]
fn check_gru(
    dt: DataType,
    g: Geo,
    direction: D,
    return_sequence: bool,
    cfg: GruCfg,
    pr: Present,
    cell: bool,
    seed: u64,
) {
    let dirs = if direction == D::Both { 2 } else { 1 };
    let (h, gh) = (g.hidden, 3 * g.hidden);
    let mut rng = Rng::new(seed);
    let net = Net::draw(&mut rng, g, dirs, gh, pr, dt);
    let Net { x, w, r, b, rb, .. } = &net;
    let h0 = pr.h0.then(|| values(&mut rng, dirs * g.batch * h, 1.0, dt));

    let cw = pr.constant_weights;
    let (inputs, kind, outs) = if cell {
        let inputs = vec![
            Some(operand(dt, &[g.batch, g.input], x, false)),
            Some(operand(dt, &[gh, g.input], w, cw)),
            Some(operand(dt, &[gh, h], r, cw)),
            Some(operand(dt, &[g.batch, h], h0.as_deref().unwrap_or(&vec![0.0; g.batch * h]), false)),
            b.as_ref().map(|v| operand(dt, &[gh], v, cw)),
            rb.as_ref().map(|v| operand(dt, &[gh], v, false)),
        ];
        (inputs, OpKind::GruCell, vec![OperandDescriptor::new(dt, vec![g.batch as u32, h as u32])])
    } else {
        let inputs = vec![
            Some(operand(dt, &[g.steps, g.batch, g.input], x, false)),
            Some(operand(dt, &[dirs, gh, g.input], w, cw)),
            Some(operand(dt, &[dirs, gh, h], r, cw)),
            b.as_ref().map(|v| operand(dt, &[dirs, gh], v, cw)),
            rb.as_ref().map(|v| operand(dt, &[dirs, gh], v, cw)),
            h0.as_ref().map(|v| operand(dt, &[dirs, g.batch, h], v, false)),
        ];
        let mut outs = vec![OperandDescriptor::new(dt, vec![dirs as u32, g.batch as u32, h as u32])];
        if return_sequence {
            outs.push(OperandDescriptor::new(dt, vec![g.steps as u32, dirs as u32, g.batch as u32, h as u32]));
        }
        (inputs, OpKind::Gru, outs)
    };
    let attrs = Attrs::Gru {
        steps: g.steps as u32,
        hidden_size: h as u32,
        reset_after: cfg.reset_after,
        return_sequence: return_sequence && !cell,
        direction: if cell { D::Forward } else { direction },
        layout: cfg.layout,
        activations: cfg.acts,
    };
    let got = run_twice(OneOp::new(kind, &inputs, attrs, &outs));

    let bh = g.batch * h;
    let (hidden, _, sequence) = ref_network(g, direction, h0.as_deref(), None, |dir, t, hs, _| {
        let (xt, wd, rd, bd, rbd) = net.step(dir, t);
        (ref_gru_cell(g, cfg, xt, wd, rd, hs, bd, rbd), vec![0.0; bh])
    });
    let what = format!("{kind} {dt} {g:?} {direction:?} seq={return_sequence} {cfg:?} {pr:?}");
    close(dt, &read(dt, &got[0]), &hidden, &format!("{what}: hidden"));
    if return_sequence && !cell {
        close(dt, &read(dt, &got[1]), &sequence, &format!("{what}: sequence"));
    }
}

/// Runs lstm (or lstmCell when `cell`) through a plan and checks it against the reference.
#[allow(clippy::too_many_arguments)]
fn check_lstm(
    dt: DataType,
    g: Geo,
    direction: D,
    return_sequence: bool,
    cfg: LstmCfg,
    pr: Present,
    cell: bool,
    seed: u64,
) {
    let dirs = if direction == D::Both { 2 } else { 1 };
    let (h, gh) = (g.hidden, 4 * g.hidden);
    let mut rng = Rng::new(seed);
    let net = Net::draw(&mut rng, g, dirs, gh, pr, dt);
    let Net { x, w, r, b, rb, .. } = &net;
    let p = pr.peep.then(|| values(&mut rng, dirs * 3 * h, 0.7, dt));
    let h0 = pr.h0.then(|| values(&mut rng, dirs * g.batch * h, 1.0, dt));
    let c0 = pr.c0.then(|| values(&mut rng, dirs * g.batch * h, 1.0, dt));

    let cw = pr.constant_weights;
    let zeros = vec![0.0; g.batch * h];
    let (inputs, kind, mut outs) = if cell {
        let inputs = vec![
            Some(operand(dt, &[g.batch, g.input], x, false)),
            Some(operand(dt, &[gh, g.input], w, cw)),
            Some(operand(dt, &[gh, h], r, cw)),
            Some(operand(dt, &[g.batch, h], h0.as_deref().unwrap_or(&zeros), false)),
            Some(operand(dt, &[g.batch, h], c0.as_deref().unwrap_or(&zeros), false)),
            b.as_ref().map(|v| operand(dt, &[gh], v, cw)),
            rb.as_ref().map(|v| operand(dt, &[gh], v, cw)),
            p.as_ref().map(|v| operand(dt, &[3 * h], v, false)),
        ];
        (inputs, OpKind::LstmCell, vec![OperandDescriptor::new(dt, vec![g.batch as u32, h as u32]); 2])
    } else {
        let inputs = vec![
            Some(operand(dt, &[g.steps, g.batch, g.input], x, false)),
            Some(operand(dt, &[dirs, gh, g.input], w, cw)),
            Some(operand(dt, &[dirs, gh, h], r, cw)),
            b.as_ref().map(|v| operand(dt, &[dirs, gh], v, cw)),
            rb.as_ref().map(|v| operand(dt, &[dirs, gh], v, cw)),
            p.as_ref().map(|v| operand(dt, &[dirs, 3 * h], v, cw)),
            h0.as_ref().map(|v| operand(dt, &[dirs, g.batch, h], v, false)),
            c0.as_ref().map(|v| operand(dt, &[dirs, g.batch, h], v, false)),
        ];
        (inputs, OpKind::Lstm, vec![OperandDescriptor::new(dt, vec![dirs as u32, g.batch as u32, h as u32]); 2])
    };
    if return_sequence && !cell {
        outs.push(OperandDescriptor::new(dt, vec![g.steps as u32, dirs as u32, g.batch as u32, h as u32]));
    }
    let attrs = Attrs::Lstm {
        steps: g.steps as u32,
        hidden_size: h as u32,
        return_sequence: return_sequence && !cell,
        direction: if cell { D::Forward } else { direction },
        layout: cfg.layout,
        activations: cfg.acts,
    };
    let got = run_twice(OneOp::new(kind, &inputs, attrs, &outs));

    let (hidden, cells, sequence) = ref_network(g, direction, h0.as_deref(), c0.as_deref(), |dir, t, hs, cs| {
        let (xt, wd, rd, bd, rbd) = net.step(dir, t);
        let pd = p.as_ref().map(|v| &v[dir * 3 * h..(dir + 1) * 3 * h]);
        ref_lstm_cell(g, cfg, xt, wd, rd, hs, cs, bd, rbd, pd)
    });
    let what = format!("{kind} {dt} {g:?} {direction:?} seq={return_sequence} {cfg:?} {pr:?}");
    close(dt, &read(dt, &got[0]), &hidden, &format!("{what}: hidden"));
    close(dt, &read(dt, &got[1]), &cells, &format!("{what}: cell"));
    if return_sequence && !cell {
        close(dt, &read(dt, &got[2]), &sequence, &format!("{what}: sequence"));
    }
}

const SMALL: [Geo; 3] = [
    Geo { steps: 3, batch: 2, input: 5, hidden: 3 },
    Geo { steps: 1, batch: 1, input: 1, hidden: 1 },
    Geo { steps: 4, batch: 3, input: 2, hidden: 4 },
];

const GRU_ACTS: [[A; 2]; 4] = [[A::Sigmoid, A::Tanh], [A::Relu, A::Relu], [A::Tanh, A::Sigmoid], [A::Sigmoid, A::Relu]];
const LSTM_ACTS: [[A; 3]; 4] = [
    [A::Sigmoid, A::Tanh, A::Tanh],
    [A::Relu, A::Relu, A::Relu],
    [A::Tanh, A::Sigmoid, A::Relu],
    [A::Sigmoid, A::Relu, A::Sigmoid],
];

#[test]
fn gru_matches_reference_for_every_option() {
    let mut n = 0u64;
    for dt in [DataType::Float32, DataType::Float16] {
        for layout in [GruWeightLayout::Zrn, GruWeightLayout::Rzn] {
            for reset_after in [true, false] {
                for direction in [D::Forward, D::Backward, D::Both] {
                    for return_sequence in [false, true] {
                        n += 1;
                        let g = SMALL[n as usize % SMALL.len()];
                        let cfg = GruCfg { reset_after, layout, acts: GRU_ACTS[n as usize % GRU_ACTS.len()] };
                        let pr = PRESENCE[n as usize % PRESENCE.len()];
                        check_gru(dt, g, direction, return_sequence, cfg, pr, false, n);
                    }
                }
            }
        }
    }
    assert_eq!(n, 48);
}

#[test]
fn gru_cell_matches_reference_for_every_option() {
    let mut n = 0u64;
    for dt in [DataType::Float32, DataType::Float16] {
        for layout in [GruWeightLayout::Zrn, GruWeightLayout::Rzn] {
            for reset_after in [true, false] {
                for (ai, acts) in GRU_ACTS.into_iter().enumerate() {
                    n += 1;
                    let mut g = SMALL[(n as usize + ai) % SMALL.len()];
                    g.steps = 1;
                    let cfg = GruCfg { reset_after, layout, acts };
                    check_gru(dt, g, D::Forward, false, cfg, PRESENCE[n as usize % PRESENCE.len()], true, 100 + n);
                }
            }
        }
    }
    assert_eq!(n, 32);
}

#[test]
fn lstm_matches_reference_for_every_option() {
    let mut n = 0u64;
    for dt in [DataType::Float32, DataType::Float16] {
        for layout in [LstmWeightLayout::Iofg, LstmWeightLayout::Ifgo] {
            for direction in [D::Forward, D::Backward, D::Both] {
                for return_sequence in [false, true] {
                    for pr in [PRESENCE[0], PRESENCE[1], PRESENCE[3]] {
                        n += 1;
                        let g = SMALL[n as usize % SMALL.len()];
                        let cfg = LstmCfg { layout, acts: LSTM_ACTS[n as usize % LSTM_ACTS.len()] };
                        check_lstm(dt, g, direction, return_sequence, cfg, pr, false, 200 + n);
                    }
                }
            }
        }
    }
    assert_eq!(n, 72);
}

#[test]
fn lstm_cell_matches_reference_for_every_option() {
    let mut n = 0u64;
    for dt in [DataType::Float32, DataType::Float16] {
        for layout in [LstmWeightLayout::Iofg, LstmWeightLayout::Ifgo] {
            for acts in LSTM_ACTS {
                for pr in PRESENCE {
                    n += 1;
                    let mut g = SMALL[n as usize % SMALL.len()];
                    g.steps = 1;
                    check_lstm(dt, g, D::Forward, false, LstmCfg { layout, acts }, pr, true, 300 + n);
                }
            }
        }
    }
    assert_eq!(n, 80);
}

/// Sizes that take the 8-lane dot products and the multi-threaded paths.
#[test]
fn large_networks_match_reference() {
    let big = Geo { steps: 5, batch: 4, input: 37, hidden: 64 };
    let odd = Geo { steps: 3, batch: 1, input: 130, hidden: 129 };
    for (i, g) in [big, odd].into_iter().enumerate() {
        for direction in [D::Forward, D::Both] {
            let seed = 400 + i as u64 * 10 + (direction == D::Both) as u64;
            let gcfg = GruCfg { reset_after: i == 0, layout: GruWeightLayout::Zrn, acts: [A::Sigmoid, A::Tanh] };
            check_gru(DataType::Float32, g, direction, true, gcfg, PRESENCE[0], false, seed);
            let gcfg = GruCfg { reset_after: i != 0, layout: GruWeightLayout::Rzn, acts: [A::Sigmoid, A::Tanh] };
            check_gru(DataType::Float32, g, direction, true, gcfg, PRESENCE[1], false, seed + 1);
            let lcfg = LstmCfg { layout: LstmWeightLayout::Ifgo, acts: [A::Sigmoid, A::Tanh, A::Tanh] };
            check_lstm(DataType::Float32, g, direction, true, lcfg, PRESENCE[0], false, seed + 2);
            check_lstm(DataType::Float16, g, direction, true, lcfg, PRESENCE[3], false, seed + 3);
        }
    }
}

/// The same network with constant and with runtime weights gives bitwise identical results.
#[test]
fn constant_and_runtime_weights_agree_bitwise() {
    let g = Geo { steps: 3, batch: 2, input: 20, hidden: 17 };
    let mut rng = Rng::new(77);
    let dt = DataType::Float32;
    let (h, gh) = (g.hidden, 4 * g.hidden);
    let x = values(&mut rng, g.steps * g.batch * g.input, 1.0, dt);
    let w = values(&mut rng, 2 * gh * g.input, 0.5, dt);
    let r = values(&mut rng, 2 * gh * h, 0.5, dt);
    let b = values(&mut rng, 2 * gh, 0.5, dt);
    let p = values(&mut rng, 2 * 3 * h, 0.5, dt);
    let outs = vec![
        OperandDescriptor::new(dt, vec![2, 2, 17]),
        OperandDescriptor::new(dt, vec![2, 2, 17]),
        OperandDescriptor::new(dt, vec![3, 2, 2, 17]),
    ];
    let attrs = Attrs::Lstm {
        steps: 3,
        hidden_size: 17,
        return_sequence: true,
        direction: D::Both,
        layout: LstmWeightLayout::Ifgo,
        activations: [A::Sigmoid, A::Tanh, A::Tanh],
    };
    let run = |constant: bool| {
        let inputs = vec![
            Some(operand(dt, &[3, 2, 20], &x, false)),
            Some(operand(dt, &[2, gh, 20], &w, constant)),
            Some(operand(dt, &[2, gh, h], &r, constant)),
            Some(operand(dt, &[2, gh], &b, constant)),
            Some(operand(dt, &[2, gh], &b, constant)),
            Some(operand(dt, &[2, 3 * h], &p, constant)),
            None,
            None,
        ];
        run_twice(OneOp::new(OpKind::Lstm, &inputs, attrs.clone(), &outs))
    };
    assert_eq!(run(true), run(false));
}

/// The output-gate peephole uses the previous cell state (spec emulation), not the new one.
#[test]
fn lstm_cell_output_peephole_uses_previous_cell_state() {
    let dt = DataType::Float32;
    // h = 1, batch 1, input 1; all weights 0 except peephole of o = 1; relu everywhere.
    // i = relu(c·0) = 0 → c' = f·c with f = relu(0) = 0 → c' = 0. o = relu(c·1) = c (previous).
    // h' = o · relu(c') = 0 either way, so use tanh as the cell filter and a nonzero g:
    // bias g = 1, bias i = 1 → i = 1, g = 1, f = 0 → c' = 1; o = relu(c_prev · 1 + 0) = c_prev.
    let x = [0.0];
    let w = [0.0; 4];
    let r = [0.0; 4];
    let bias = [1.0, 0.0, 0.0, 1.0]; // iofg: i, o, f, g
    let peep = [0.0, 1.0, 0.0]; // i, o, f
    let c_prev = 0.5;
    let inputs = vec![
        Some(operand(dt, &[1, 1], &x, false)),
        Some(operand(dt, &[4, 1], &w, false)),
        Some(operand(dt, &[4, 1], &r, false)),
        Some(operand(dt, &[1, 1], &[0.0], false)),
        Some(operand(dt, &[1, 1], &[c_prev], false)),
        Some(operand(dt, &[4], &bias, true)),
        None,
        Some(operand(dt, &[3], &peep, true)),
    ];
    let attrs = Attrs::Lstm {
        steps: 1,
        hidden_size: 1,
        return_sequence: false,
        direction: D::Forward,
        layout: LstmWeightLayout::Iofg,
        activations: [A::Relu, A::Relu, A::Tanh],
    };
    let outs = vec![OperandDescriptor::new(dt, vec![1, 1]); 2];
    let got = run_twice(OneOp::new(OpKind::LstmCell, &inputs, attrs, &outs));
    let (h, c) = (read(dt, &got[0])[0], read(dt, &got[1])[0]);
    assert_eq!(c, 1.0);
    assert_eq!(h, (0.5f32 * 1.0f32.tanh()) as f64, "o must be c_prev = 0.5, not c' = 1");
}

/// Sequence output of a backward gru is indexed by input time: with zero recurrent weights
/// each step's state depends only on its own input, so sequence[t] = cell(x[t]).
#[test]
fn backward_sequence_is_indexed_by_input_time() {
    let dt = DataType::Float32;
    let x = [1.0, 2.0, 3.0];
    let inputs = vec![
        Some(operand(dt, &[3, 1, 1], &x, false)),
        Some(operand(dt, &[1, 3, 1], &[0.0, 0.0, 1.0], true)),
        Some(operand(dt, &[1, 3, 1], &[0.0, 0.0, 0.0], true)),
        None,
        None,
        None,
    ];
    let attrs = Attrs::Gru {
        steps: 3,
        hidden_size: 1,
        reset_after: true,
        return_sequence: true,
        direction: D::Backward,
        layout: GruWeightLayout::Zrn,
        activations: [A::Relu, A::Relu],
    };
    let outs = vec![OperandDescriptor::new(dt, vec![1, 1, 1]), OperandDescriptor::new(dt, vec![3, 1, 1, 1])];
    let got = run_twice(OneOp::new(OpKind::Gru, &inputs, attrs, &outs));
    // z = 0, n = relu(x) → h = x.
    assert_eq!(read(dt, &got[1]), vec![1.0, 2.0, 3.0]);
    assert_eq!(read(dt, &got[0]), vec![1.0], "final state of the backward pass is at t = 0");
}

/// NaN and infinities in the data never panic.
#[test]
fn special_values_do_not_panic() {
    let dt = DataType::Float16;
    let x = [f64::NAN, f64::INFINITY, -f64::INFINITY, 65504.0];
    let inputs = vec![
        Some(operand(dt, &[2, 2, 1], &x, false)),
        Some(operand(dt, &[2, 8, 1], &[1e4; 16], true)),
        Some(operand(dt, &[2, 8, 2], &[1e4; 32], false)),
        None,
        None,
        Some(operand(dt, &[2, 6], &[f64::INFINITY; 12], true)),
        None,
        None,
    ];
    let attrs = Attrs::Lstm {
        steps: 2,
        hidden_size: 2,
        return_sequence: true,
        direction: D::Both,
        layout: LstmWeightLayout::Iofg,
        activations: [A::Sigmoid, A::Tanh, A::Tanh],
    };
    let outs = vec![
        OperandDescriptor::new(dt, vec![2, 2, 2]),
        OperandDescriptor::new(dt, vec![2, 2, 2]),
        OperandDescriptor::new(dt, vec![2, 2, 2, 2]),
    ];
    let got = run_twice(OneOp::new(OpKind::Lstm, &inputs, attrs, &outs));
    assert_eq!(got[2].len(), 32);
}
