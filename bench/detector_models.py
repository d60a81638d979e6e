"""Dense-prediction CNNs written as ONNX graphs with onnx.helper and seeded numpy weights.

  * yolov8n: a YOLOv8n detector (Ultralytics' yolov8n.yaml: width 0.25, depth 0.33, so
    channels 16/32/64/128/256 and C2f depths 1/2/2/1) on a float32 image `images`
    [1, 3, 320, 320]: Conv (BatchNorm folded) + SiLU written as Mul(x, Sigmoid(x)), C2f blocks
    (Split, bottlenecks with a residual Add, Concat), SPPF (three 5x5 MaxPools, Concat), a PAN
    neck (Resize nearest x2, Concat, stride-2 Convs), and the Detect head on strides 8/16/32
    decoded as Ultralytics exports it: DFL (Reshape to 4 x 16 bins, Softmax over the bins, a 1x1
    Conv with weights 0..15 for the expectation), distances to boxes around the anchor points
    (centre x, centre y, width, height, times the stride) and Sigmoid class scores: `output0`
    [1, 84, 2100] (4 box values + 80 classes for 40*40 + 20*20 + 10*10 anchors);
  * unet: a UNet segmentation net on `input` [1, 3, 256, 256]: 4 encoder levels (two 3x3
    Conv + ReLU, MaxPool 2), a bottleneck, 4 decoder levels (ConvTranspose 2x2 stride 2, Concat
    with the skip connection, two 3x3 Conv + ReLU), widths 32/64/128/256/512, and a 1x1 Conv to
    2 classes: `logits` [1, 2, 256, 256].

Weights are uniform with fan-in scaling from numpy's default_rng with a fixed seed per model,
so the files are byte-for-byte reproducible and the activations stay finite.

Usage as a script: python3 detector_models.py OUT_DIR  (writes NAME.onnx for every model).
"""

import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cnn_models import Graph, main, parameter_count, write_models  # noqa: E402,F401 - parameter_count re-exported

YOLO_SIZE = 320
YOLO_CLASSES = 80
REG_MAX = 16
# Weight scale of the Conv + SiLU layers over the He scale that Graph.conv uses (made for ReLU):
# SiLU passes less of its input's second moment on than ReLU. With 1.0 the activations shrink to
# a twentieth by the head, with 1.15 they grow a hundredfold; 1.1 keeps them about 0.5-1.
SILU_GAIN = 1.1
UNET_SIZE = 256
UNET_CLASSES = 2


def yolo_anchors(size, strides):
    """Anchor points (cell centres, in cells) [1, 2, N] and each one's stride [1, N], level by
    level, row-major (Ultralytics' make_anchors)."""
    points, stride_of = [], []
    for s in strides:
        n = size // s
        ys, xs = np.meshgrid(np.arange(n) + 0.5, np.arange(n) + 0.5, indexing="ij")
        points.append(np.stack([xs.ravel(), ys.ravel()]))
        stride_of.append(np.full(n * n, s))
    return (np.concatenate(points, axis=1)[None].astype(np.float32),
            np.concatenate(stride_of)[None].astype(np.float32))


def yolov8n():
    """YOLOv8n at 320x320 (Ultralytics YOLOv8 with the n scale; BatchNorm folded)."""
    g = Graph("yolov8n", seed=8)

    def conv(x, cin, cout, k=1, s=1):
        return g.conv(x, cin, cout, k, stride=s, act="silu", weight_gain=SILU_GAIN)

    def c2f(x, cin, cout, n, shortcut):
        c = cout // 2
        parts = g.split(conv(x, cin, 2 * c), [c, c], axis=1)
        for _ in range(n):
            h = conv(conv(parts[-1], c, c, 3), c, c, 3)
            parts.append(g.add(parts[-1], h) if shortcut else h)
        return conv(g.node("Concat", parts, axis=1), (2 + n) * c, cout)

    def sppf(x, cin, cout):
        c = cin // 2
        y = [conv(x, cin, c)]
        for _ in range(3):
            y.append(g.max_pool(y[-1], 5, 1, pad=2))
        return conv(g.node("Concat", y, axis=1), 4 * c, cout)

    scales = g.constant("scales", np.array([1, 1, 2, 2], np.float32))

    def upsample(x):
        return g.node("Resize", [x, "", scales], mode="nearest", coordinate_transformation_mode="asymmetric",
                      nearest_mode="floor")

    # Backbone.
    x = conv("images", 3, 16, 3, 2)  # P1/2
    x = conv(x, 16, 32, 3, 2)  # P2/4
    x = c2f(x, 32, 32, 1, True)
    x = conv(x, 32, 64, 3, 2)  # P3/8
    p3 = c2f(x, 64, 64, 2, True)
    x = conv(p3, 64, 128, 3, 2)  # P4/16
    p4 = c2f(x, 128, 128, 2, True)
    x = conv(p4, 128, 256, 3, 2)  # P5/32
    x = c2f(x, 256, 256, 1, True)
    p5 = sppf(x, 256, 256)
    # PAN neck.
    h4 = c2f(g.node("Concat", [upsample(p5), p4], axis=1), 384, 128, 1, False)
    out3 = c2f(g.node("Concat", [upsample(h4), p3], axis=1), 192, 64, 1, False)
    out4 = c2f(g.node("Concat", [conv(out3, 64, 64, 3, 2), h4], axis=1), 192, 128, 1, False)
    out5 = c2f(g.node("Concat", [conv(out4, 128, 128, 3, 2), p5], axis=1), 384, 256, 1, False)
    # Detect head: a box branch (4 x REG_MAX distance bins) and a class branch per level.
    c2 = max(16, 64 // 4, REG_MAX * 4)
    c3 = max(64, min(YOLO_CLASSES, 100))
    levels = []
    for feat, ch in [(out3, 64), (out4, 128), (out5, 256)]:
        box = g.conv(conv(conv(feat, ch, c2, 3), c2, c2, 3), c2, 4 * REG_MAX, 1, weight_gain=2.0)
        cls = g.conv(conv(conv(feat, ch, c3, 3), c3, c3, 3), c3, YOLO_CLASSES, 1, weight_gain=2.0)
        y = g.node("Concat", [box, cls], axis=1)
        levels.append(g.node("Reshape", [y, g.ints([1, 4 * REG_MAX + YOLO_CLASSES, -1])]))
    anchors, strides = yolo_anchors(YOLO_SIZE, [8, 16, 32])
    n = anchors.shape[2]
    y = g.node("Concat", levels, axis=2)  # [1, 144, N]
    box, cls = g.split(y, [4 * REG_MAX, YOLO_CLASSES], axis=1)
    # DFL: the expected distance under a softmax over REG_MAX bins.
    d = g.node("Reshape", [box, g.ints([1, 4, REG_MAX, n])])
    d = g.node("Softmax", [g.node("Transpose", [d], perm=[0, 2, 1, 3])], axis=1)  # [1, 16, 4, N]
    bins = g.constant("dfl_W", np.arange(REG_MAX, dtype=np.float32).reshape(1, REG_MAX, 1, 1))
    d = g.node("Conv", [d, bins], "dfl", kernel_shape=[1, 1])  # [1, 1, 4, N]
    d = g.node("Reshape", [d, g.ints([1, 4, n])])
    # Distances (left, top, right, bottom) to boxes (centre x, centre y, width, height) in pixels.
    lt, rb = g.split(d, [2, 2], axis=1)
    anchor_points = g.constant("anchors", anchors)
    x1y1 = g.node("Sub", [anchor_points, lt])
    x2y2 = g.node("Add", [anchor_points, rb])
    centre = g.node("Div", [g.add(x1y1, x2y2), g.scalar(2.0)], "centre")
    wh = g.node("Sub", [x2y2, x1y1], "wh")
    dbox = g.node("Mul", [g.node("Concat", [centre, wh], axis=1), g.constant("strides", strides)], "dbox")
    out = g.node("Concat", [dbox, g.node("Sigmoid", [cls])], axis=1)
    return g.finish([("images", TensorProto.FLOAT, [1, 3, YOLO_SIZE, YOLO_SIZE])],
                    [(out, "output0", TensorProto.FLOAT, [1, 4 + YOLO_CLASSES, n])])


def unet():
    """UNet (Ronneberger et al. with padded convolutions), base width 32, 2 classes."""
    g = Graph("unet", seed=32)

    def double_conv(x, cin, cout):
        return g.conv(g.conv(x, cin, cout, 3, act="relu"), cout, cout, 3, act="relu")

    def up(x, cin, cout):
        """ConvTranspose 2x2 stride 2: every output pixel sees CIN inputs."""
        bound = math.sqrt(3.0 / cin)
        w = g.constant("W", g.uniform((cin, cout, 2, 2), bound))
        b = g.constant("B", g.uniform((cout,), 0.05))
        return g.node("ConvTranspose", [x, w, b], "convtranspose", kernel_shape=[2, 2], strides=[2, 2])

    widths = [32, 64, 128, 256]
    x, cin, skips = "input", 3, []
    for w in widths:
        x = double_conv(x, cin, w)
        skips.append(x)
        x = g.max_pool(x, 2, 2)
        cin = w
    x = double_conv(x, cin, 2 * widths[-1])
    cin = 2 * widths[-1]
    for w, skip in zip(reversed(widths), reversed(skips)):
        x = g.node("Concat", [skip, up(x, cin, w)], axis=1)
        x = double_conv(x, 2 * w, w)
        cin = w
    return g.model(g.conv(x, cin, UNET_CLASSES, 1), input_shape=(1, 3, UNET_SIZE, UNET_SIZE),
                   output_shape=(1, UNET_CLASSES, UNET_SIZE, UNET_SIZE))


MODELS = {
    "yolov8n": yolov8n,
    "unet": unet,
}

# The models.json "shapes" and "inputs" of each model (see MANIFEST FORMAT in compare.py): static
# float32 inputs, the default values.
MANIFEST = {name: {"shapes": {}, "inputs": {}} for name in MODELS}


def write_all(out_dir):
    """Writes every model as OUT_DIR/NAME.onnx (checked with onnx.checker); returns the paths."""
    return write_models(MODELS, out_dir)


if __name__ == "__main__":
    main(MODELS, "detector_models.py")
