"""Standard CNN topologies written as ONNX graphs with onnx.helper and seeded numpy weights.

MobileNetV2, ResNet-50 (v1.5), SqueezeNet 1.1 and EfficientNet-B0, with torchvision's layer
configurations and BatchNorm folded into the convolutions (as the PyTorch exporter writes them
with constant folding), opset 17, batch 1, float32 input `input` [1, 3, 224, 224] and output
`logits` [1, 1000]. Weights are uniform with fan-in scaling (He for layers before a rectifier),
from numpy's default_rng with a fixed seed per model, so the files are byte-for-byte
reproducible and the activations stay finite through the whole network.

Usage as a script: python3 cnn_models.py OUT_DIR  (writes NAME.onnx for every model).
"""

import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8


class Graph:
    """Collects nodes and initializers; every helper returns the name of its output."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.count = 0
        self.shared = {}

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def constant(self, prefix, array):
        name = self.fresh(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), name))
        return name

    def scalar(self, value):
        """A float scalar initializer, shared by value."""
        if value not in self.shared:
            self.shared[value] = self.constant("scalar", np.array(value, dtype=np.float32))
        return self.shared[value]

    def ints(self, values, prefix="ints"):
        """An int64 initializer (shapes, axes, split sizes, indices), shared by value; a Python int
        gives a scalar."""
        array = np.asarray(values, dtype=np.int64)
        key = ("int64", array.shape, tuple(array.ravel().tolist()))
        if key not in self.shared:
            name = self.fresh(prefix)
            self.initializers.append(numpy_helper.from_array(array, name))
            self.shared[key] = name
        return self.shared[key]

    def node(self, op, inputs, prefix=None, **attrs):
        out = self.fresh(prefix or op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def split(self, x, sizes, axis):
        """Split into parts of SIZES along AXIS; returns the parts' names."""
        base = self.fresh("split")
        parts = [f"{base}_{i}" for i in range(len(sizes))]
        self.nodes.append(helper.make_node("Split", [x, self.ints(sizes, "split")], parts, name=base, axis=axis))
        return parts

    def uniform(self, shape, bound):
        return self.rng.uniform(-bound, bound, size=shape).astype(np.float32)

    def conv(self, x, cin, cout, k, stride=1, groups=1, pad=None, act=None, weight_gain=1.0, bias_bound=0.05):
        """Conv (+ folded BatchNorm bias) (+ activation: 'relu', 'relu6', 'silu' or None)."""
        pad = (k - 1) // 2 if pad is None else pad
        fan_in = cin // groups * k * k
        gain = 1.0 if act is None else 2.0
        w = self.constant("W", self.uniform((cout, cin // groups, k, k), math.sqrt(3.0 * gain / fan_in) * weight_gain))
        b = self.constant("B", self.uniform((cout,), bias_bound))
        y = self.node(
            "Conv", [x, w, b], "conv", kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4,
            group=groups, dilations=[1, 1],
        )
        return self.activation(y, act)

    def activation(self, x, act):
        if act is None:
            return x
        if act == "relu":
            return self.node("Relu", [x])
        if act == "relu6":
            return self.node("Clip", [x, self.scalar(0.0), self.scalar(6.0)], "relu6")
        if act == "silu":
            return self.node("Mul", [x, self.node("Sigmoid", [x])], "silu")
        if act == "sigmoid":
            return self.node("Sigmoid", [x])
        raise ValueError(act)

    def add(self, a, b):
        return self.node("Add", [a, b])

    def max_pool(self, x, k, stride, pad=0, ceil=False):
        return self.node("MaxPool", [x], kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4,
                         ceil_mode=int(ceil))

    def head(self, x, channels, classes=1000):
        """GlobalAveragePool, Flatten, Gemm(transB) as torchvision exports its classifier."""
        pooled = self.node("GlobalAveragePool", [x])
        flat = self.node("Flatten", [pooled], axis=1)
        bound = 1.0 / math.sqrt(channels)
        w = self.constant("fc_W", self.uniform((classes, channels), bound))
        b = self.constant("fc_B", self.uniform((classes,), bound))
        return self.node("Gemm", [flat, w, b], "gemm", transB=1)

    def model(self, output, input_shape=(1, 3, 224, 224), output_shape=(1, 1000)):
        """Float32 input `input` and output `logits` (the output of the last node)."""
        assert self.nodes[-1].output[0] == output
        return self.finish([("input", TensorProto.FLOAT, input_shape)],
                           [(output, "logits", TensorProto.FLOAT, output_shape)])

    def finish(self, inputs, outputs):
        """The model with graph inputs INPUTS, [(name, element type, shape)], and outputs OUTPUTS,
        [(internal name, public name, element type, shape)]: the node that produces an internal
        name (used by no other node) is renamed to write the public one."""
        producers = {o: n for n in self.nodes for o in n.output}
        for internal, public, _, _ in outputs:
            assert not any(internal in n.input for n in self.nodes), f"{internal} is consumed"
            node = producers[internal]
            node.output[list(node.output).index(internal)] = public
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info(name, t, list(shape)) for name, t, shape in inputs],
            [helper.make_tensor_value_info(public, t, list(shape)) for _, public, t, shape in outputs],
            initializer=self.initializers,
        )
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="webnn-rs bench")
        m.ir_version = IR_VERSION
        return m

def mobilenetv2():
    """MobileNetV2 1.0 (torchvision.models.mobilenet_v2)."""
    g = Graph("mobilenetv2", seed=2)
    x = g.conv("input", 3, 32, 3, stride=2, act="relu6")
    cin = 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            h = x
            if t != 1:
                h = g.conv(h, cin, hidden, 1, act="relu6")
            h = g.conv(h, hidden, hidden, 3, stride=stride, groups=hidden, act="relu6")
            h = g.conv(h, hidden, c, 1, weight_gain=0.5)
            x = g.add(x, h) if stride == 1 and cin == c else h
            cin = c
    x = g.conv(x, 320, 1280, 1, act="relu6")
    return g.model(g.head(x, 1280))


def resnet50():
    """ResNet-50 v1.5 (torchvision.models.resnet50: stride on the 3x3 conv)."""
    g = Graph("resnet50", seed=50)
    x = g.conv("input", 3, 64, 7, stride=2, act="relu")
    x = g.max_pool(x, 3, 2, pad=1)
    cin = 64
    for width, blocks, first_stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for b in range(blocks):
            stride = first_stride if b == 0 else 1
            cout = width * 4
            h = g.conv(x, cin, width, 1, act="relu")
            h = g.conv(h, width, width, 3, stride=stride, act="relu")
            h = g.conv(h, width, cout, 1, weight_gain=0.2)
            shortcut = g.conv(x, cin, cout, 1, stride=stride) if stride != 1 or cin != cout else x
            x = g.node("Relu", [g.add(h, shortcut)])
            cin = cout
    return g.model(g.head(x, 2048))


def squeezenet1_1():
    """SqueezeNet 1.1 (torchvision.models.squeezenet1_1): Fire modules, ceil-mode max pools,
    a 1x1 conv classifier with ReLU and global average pooling."""
    g = Graph("squeezenet1_1", seed=11)

    def fire(x, cin, squeeze, e1, e3):
        s = g.conv(x, cin, squeeze, 1, act="relu")
        a = g.conv(s, squeeze, e1, 1, act="relu")
        b = g.conv(s, squeeze, e3, 3, act="relu")
        return g.node("Concat", [a, b], axis=1)

    x = g.conv("input", 3, 64, 3, stride=2, pad=0, act="relu")
    x = g.max_pool(x, 3, 2, ceil=True)
    x = fire(x, 64, 16, 64, 64)
    x = fire(x, 128, 16, 64, 64)
    x = g.max_pool(x, 3, 2, ceil=True)
    x = fire(x, 128, 32, 128, 128)
    x = fire(x, 256, 32, 128, 128)
    x = g.max_pool(x, 3, 2, ceil=True)
    x = fire(x, 256, 48, 192, 192)
    x = fire(x, 384, 48, 192, 192)
    x = fire(x, 384, 64, 256, 256)
    x = fire(x, 512, 64, 256, 256)
    x = g.conv(x, 512, 1000, 1, act="relu")
    x = g.node("GlobalAveragePool", [x])
    return g.model(g.node("Flatten", [x], axis=1))


def efficientnet_b0():
    """EfficientNet-B0 (torchvision.models.efficientnet_b0): MBConv blocks with SiLU
    (Sigmoid * x) and squeeze-and-excitation."""
    g = Graph("efficientnet_b0", seed=0xB0)
    x = g.conv("input", 3, 32, 3, stride=2, act="silu")
    # expand ratio, kernel, stride, in, out, layers
    for e, k, s, cin0, cout, n in [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2),
                                   (6, 3, 2, 40, 80, 3), (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4),
                                   (6, 3, 1, 192, 320, 1)]:
        for i in range(n):
            cin = cin0 if i == 0 else cout
            stride = s if i == 0 else 1
            hidden = cin * e
            h = x
            if e != 1:
                h = g.conv(h, cin, hidden, 1, act="silu")
            h = g.conv(h, hidden, hidden, k, stride=stride, groups=hidden, act="silu")
            squeeze = max(1, cin // 4)
            se = g.node("GlobalAveragePool", [h])
            se = g.conv(se, hidden, squeeze, 1, act="silu", bias_bound=0.1)
            se = g.conv(se, squeeze, hidden, 1, act="sigmoid", bias_bound=0.1)
            h = g.node("Mul", [h, se], "se_scale")
            h = g.conv(h, hidden, cout, 1, weight_gain=0.5)
            x = g.add(x, h) if stride == 1 and cin == cout else h
    x = g.conv(x, 320, 1280, 1, act="silu")
    return g.model(g.head(x, 1280))


MODELS = {
    "mobilenetv2": mobilenetv2,
    "resnet50": resnet50,
    "squeezenet1_1": squeezenet1_1,
    "efficientnet_b0": efficientnet_b0,
}


def parameter_count(model):
    """Elements in the floating-point initializers, scalars excluded (int64 shapes and indices
    are not parameters)."""
    return sum(int(np.prod(t.dims)) for t in model.graph.initializer
               if len(t.dims) > 0 and t.data_type == TensorProto.FLOAT)


def write_models(models, out_dir):
    """Writes every model of `models` (name -> builder) as OUT_DIR/NAME.onnx (checked with
    onnx.checker, one model in memory at a time); returns the paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for name, make in models.items():
        model = make()
        onnx.checker.check_model(model, full_check=True)
        path = os.path.join(out_dir, f"{name}.onnx")
        onnx.save(model, path)
        paths.append(path)
        del model
    return paths


def main(models, script):
    """The command line of a model script: `python3 SCRIPT OUT_DIR` writes its models."""
    if len(sys.argv) != 2:
        sys.exit(f"usage: {script} OUT_DIR")
    for p in write_models(models, sys.argv[1]):
        print(p)


def write_all(out_dir):
    """Writes every model as OUT_DIR/NAME.onnx (checked with onnx.checker); returns the paths."""
    return write_models(MODELS, out_dir)


if __name__ == "__main__":
    main(MODELS, "cnn_models.py")
