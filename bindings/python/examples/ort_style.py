"""An ONNX Runtime script ported to webnn by changing the session class: runs an image model on
a random input and prints the top-5 classes. Usage: python ort_style.py MODEL.onnx"""

import sys

import numpy as np

import webnn as ort  # was: import onnxruntime as ort


def main(path: str) -> None:
    session = ort.InferenceSession(path)
    (inp,) = session.get_inputs()
    print(f"input {inp.name}: {inp.type} {inp.shape}")
    shape = [d if isinstance(d, int) else 1 for d in inp.shape]
    image = np.random.default_rng(0).uniform(-1, 1, size=shape).astype(np.float32)
    (logits,) = session.run(None, {inp.name: image})
    top5 = np.argsort(logits[0])[::-1][:5]
    print("top-5 classes:", top5.tolist())


if __name__ == "__main__":
    main(sys.argv[1])
