"""Transformer encoders written as ONNX graphs with onnx.helper and seeded numpy weights.

  * vit_b16: ViT-B/16 (torchvision.models.vit_b_16's configuration) on a float32 image
    `input` [1, 3, 224, 224]: a 16x16 stride-16 patch Conv (3 -> 768), Reshape/Transpose to 196
    tokens, a class token (Concat) and a position embedding (Add), 12 pre-LayerNorm encoder
    layers (hidden 768, 12 heads, MLP 3072), a final LayerNorm and a Gemm classifier on the
    class token: `logits` [1, 1000];
  * bert_base_128, bert_base_384: a BERT-base encoder (bert-base-uncased's configuration,
    without the pooler) on int64 `input_ids`, `attention_mask` and `token_type_ids` [1, S]:
    word, position and token-type embeddings (Gather, Add, LayerNormalization), an additive
    attention mask (Cast, Sub, Mul) added to the scores before Softmax, 12 post-LayerNorm
    layers (hidden 768, 12 heads, FFN 3072): `last_hidden_state` [1, S, 768].

Written the way the PyTorch exporter writes them at opset 17: LayerNormalization ops, GELU in
its exact form 0.5 * x * (1 + Erf(x / sqrt(2))), attention as MatMul(Q, K^T) * scale -> Softmax
-> MatMul(V) with Reshape/Transpose to and from the heads (the scale as a Mul in ViT, as a Div
by sqrt(64) in BERT, as Hugging Face's export has it), linear layers as MatMul + Add with
[in, out] weights. Weights are uniform with fan-in scaling from numpy's default_rng with a fixed
seed per model, so the files are byte-for-byte reproducible (the two BERTs have the same
weights); QK_GAIN and BRANCH_GAIN make the attention neither uniform nor one-hot (largest
probability about 0.5) and keep the tokens distinct and the activations finite to the output.

Usage as a script: python3 transformer_models.py OUT_DIR  (writes NAME.onnx for every model).
"""

import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cnn_models import Graph, main, parameter_count, write_models  # noqa: E402,F401 - parameter_count re-exported

VOCAB = 30522
MAX_POSITIONS = 512
TYPE_VOCAB = 2
# Query and key weights scaled up (variance x4) so that a query's largest attention probability
# is about 0.5; with fan-in scaling alone attention is nearly uniform. Residual branches scaled
# down (variance x0.5) so that the tokens stay distinct through 12 layers.
QK_GAIN = 4.0
BRANCH_GAIN = 0.5


class TransformerGraph(Graph):
    """Graph with the building blocks of a transformer encoder on [1, S, D] activations."""

    def linear(self, x, cin, cout, gain=1.0, center=False, bias_bound=0.02):
        """MatMul with an [in, out] weight, then Add of the bias. CENTER: every output's weights sum
        to 0 (for the MLP's second layer: GELU's positive mean then adds no vector shared by every
        token, which would make the tokens alike layer after layer)."""
        w = self.uniform((cin, cout), math.sqrt(3.0 * gain / cin))
        if center:
            w = w - w.mean(axis=0, keepdims=True)
        w = self.constant("W", w)
        b = self.constant("B", self.uniform((cout,), bias_bound))
        return self.node("Add", [self.node("MatMul", [x, w]), b], "linear")

    def layer_norm(self, x, dim, eps):
        scale = self.constant("ln_scale", 1.0 + self.uniform((dim,), 0.1))
        bias = self.constant("ln_bias", self.uniform((dim,), 0.05))
        return self.node("LayerNormalization", [x, scale, bias], "layernorm", axis=-1, epsilon=eps)

    def gelu(self, x):
        """0.5 * x * (1 + erf(x / sqrt(2))), node for node as torch.onnx writes nn.GELU()."""
        e = self.node("Erf", [self.node("Div", [x, self.scalar(math.sqrt(2.0))], "div")])
        return self.node("Mul", [self.node("Mul", [x, self.node("Add", [e, self.scalar(1.0)])]),
                                 self.scalar(0.5)], "gelu")

    def attention(self, x, seq, hidden, heads, mask=None, scale_op="Mul", qk_gain=1.0, out_gain=1.0):
        """Multi-head self-attention with the output projection; MASK (additive, [1, 1, 1, S])
        is added to the scaled scores."""
        head_dim = hidden // heads
        split = self.ints([1, seq, heads, head_dim])
        q = self.linear(x, hidden, hidden, gain=qk_gain)
        k = self.linear(x, hidden, hidden, gain=qk_gain)
        v = self.linear(x, hidden, hidden)
        q = self.node("Transpose", [self.node("Reshape", [q, split])], perm=[0, 2, 1, 3])
        k = self.node("Transpose", [self.node("Reshape", [k, split])], perm=[0, 2, 3, 1])
        v = self.node("Transpose", [self.node("Reshape", [v, split])], perm=[0, 2, 1, 3])
        scores = self.node("MatMul", [q, k], "scores")
        if scale_op == "Mul":
            scores = self.node("Mul", [scores, self.scalar(1.0 / math.sqrt(head_dim))], "scale")
        else:
            scores = self.node("Div", [scores, self.scalar(math.sqrt(head_dim))], "scale")
        if mask is not None:
            scores = self.node("Add", [scores, mask], "masked")
        probs = self.node("Softmax", [scores], axis=-1)
        ctx = self.node("Transpose", [self.node("MatMul", [probs, v], "context")], perm=[0, 2, 1, 3])
        ctx = self.node("Reshape", [ctx, self.ints([1, seq, hidden])])
        return self.linear(ctx, hidden, hidden, gain=out_gain)

    def mlp(self, x, hidden, ffn, out_gain=1.0):
        h = self.gelu(self.linear(x, hidden, ffn, gain=2.0))
        return self.linear(h, ffn, hidden, gain=out_gain, center=True)

def vit_b16(layers=12):
    """ViT-B/16 at 224x224 (torchvision.models.vit_b_16: pre-LayerNorm, eps 1e-6)."""
    hidden, heads, ffn, patch, image = 768, 12, 3072, 16, 224
    tokens = (image // patch) ** 2 + 1
    g = TransformerGraph("vit_b16", seed=16)
    x = g.conv("input", 3, hidden, patch, stride=patch, pad=0)  # [1, 768, 14, 14]
    x = g.node("Reshape", [x, g.ints([1, hidden, tokens - 1])])
    x = g.node("Transpose", [x], perm=[0, 2, 1])  # [1, 196, 768]
    cls = g.constant("class_token", g.uniform((1, 1, hidden), 1.0))
    x = g.node("Concat", [cls, x], axis=1)  # [1, 197, 768]
    x = g.add(x, g.constant("pos_embedding", g.uniform((1, tokens, hidden), 0.5)))
    for _ in range(layers):
        h = g.attention(g.layer_norm(x, hidden, 1e-6), tokens, hidden, heads, qk_gain=QK_GAIN, out_gain=BRANCH_GAIN)
        x = g.add(x, h)
        x = g.add(x, g.mlp(g.layer_norm(x, hidden, 1e-6), hidden, ffn, out_gain=BRANCH_GAIN))
    x = g.layer_norm(x, hidden, 1e-6)
    x = g.node("Gather", [x, g.ints(0, "index")], "class_out", axis=1)  # [1, 768]
    bound = 1.0 / math.sqrt(hidden)
    w = g.constant("head_W", g.uniform((1000, hidden), bound))
    b = g.constant("head_B", g.uniform((1000,), bound))
    return g.model(g.node("Gemm", [x, w, b], "gemm", transB=1))


def bert_base(seq, layers=12):
    """BERT-base encoder (post-LayerNorm, eps 1e-12) for sequence length SEQ."""
    hidden, heads, ffn = 768, 12, 3072
    assert seq <= MAX_POSITIONS
    g = TransformerGraph(f"bert_base_{seq}", seed=768)  # the same weights for every SEQ
    words = g.node("Gather", [g.constant("word_embeddings", g.uniform((VOCAB, hidden), 1.0)), "input_ids"],
                   "word_embed", axis=0)
    position_ids = g.ints(np.arange(seq).reshape(1, seq), "position_ids")
    positions = g.node("Gather", [g.constant("position_embeddings", g.uniform((MAX_POSITIONS, hidden), 1.0)),
                                  position_ids], "position_embed", axis=0)
    types = g.node("Gather", [g.constant("token_type_embeddings", g.uniform((TYPE_VOCAB, hidden), 1.0)),
                              "token_type_ids"], "type_embed", axis=0)
    x = g.layer_norm(g.add(g.add(words, positions), types), hidden, 1e-12)
    # (1 - mask) * -10000 as [1, 1, 1, S], broadcast over heads and query positions.
    mask = g.node("Unsqueeze", ["attention_mask", g.ints([1, 2], "axes")])
    mask = g.node("Cast", [mask], to=TensorProto.FLOAT)
    mask = g.node("Mul", [g.node("Sub", [g.scalar(1.0), mask]), g.scalar(-10000.0)], "extended_mask")
    for _ in range(layers):
        h = g.attention(x, seq, hidden, heads, mask=mask, scale_op="Div", qk_gain=QK_GAIN, out_gain=BRANCH_GAIN)
        x = g.layer_norm(g.add(x, h), hidden, 1e-12)
        x = g.layer_norm(g.add(x, g.mlp(x, hidden, ffn, out_gain=BRANCH_GAIN)), hidden, 1e-12)
    ids = [(n, TensorProto.INT64, [1, seq]) for n in ["input_ids", "attention_mask", "token_type_ids"]]
    return g.finish(ids, [(x, "last_hidden_state", TensorProto.FLOAT, [1, seq, hidden])])


MODELS = {
    "vit_b16": vit_b16,
    "bert_base_128": lambda: bert_base(128),
    "bert_base_384": lambda: bert_base(384),
}


def bert_manifest(seq):
    return {
        "shapes": {"input_ids": [1, seq], "attention_mask": [1, seq], "token_type_ids": [1, seq]},
        # Any word-piece id; every position attended; both segments.
        "inputs": {"input_ids": {"low": 0, "high": VOCAB}, "attention_mask": {"value": 1},
                   "token_type_ids": {"low": 0, "high": TYPE_VOCAB}},
    }


# The models.json "shapes" and "inputs" of each model (see MANIFEST FORMAT in compare.py).
MANIFEST = {
    "vit_b16": {"shapes": {}, "inputs": {}},
    "bert_base_128": bert_manifest(128),
    "bert_base_384": bert_manifest(384),
}


def write_all(out_dir):
    """Writes every model as OUT_DIR/NAME.onnx (checked with onnx.checker); returns the paths."""
    return write_models(MODELS, out_dir)


if __name__ == "__main__":
    main(MODELS, "transformer_models.py")
