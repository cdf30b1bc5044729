"""ResNet-18 for the resnet18 examples: generated weights under torchvision's state_dict names (no
download), the network written once over a small set of operations, and two sets of them: lapis's
kernels (weights uploaded once, every intermediate on the device and freed when its last name is
gone) and numpy (the reference)."""
import time

import numpy

import lapis
import lapis.kernels as K

STAGES = [(64, 1), (128, 2), (256, 2), (512, 2)]  # (width, stride of the first block) of layer1..4


def generate_weights(rng, classes=1000, dtype=numpy.float32):
    """name -> array, as torchvision's resnet18().state_dict() names them (He-initialized
    convolutions, batch-norm statistics near the identity)."""
    weights = {}

    def conv(name, k, c, r):
        weights[name + ".weight"] = (rng.standard_normal((k, c, r, r)) * numpy.sqrt(2 / (c * r * r))).astype(dtype)

    def batchnorm(name, c):
        weights[name + ".weight"] = (1 + 0.1 * rng.standard_normal(c)).astype(dtype)
        weights[name + ".bias"] = (0.1 * rng.standard_normal(c)).astype(dtype)
        weights[name + ".running_mean"] = (0.1 * rng.standard_normal(c)).astype(dtype)
        weights[name + ".running_var"] = (1 + 0.1 * numpy.abs(rng.standard_normal(c))).astype(dtype)

    conv("conv1", 64, 3, 7)
    batchnorm("bn1", 64)
    channels = 64
    for stage, (width, stride) in enumerate(STAGES, 1):
        for block in range(2):
            prefix = f"layer{stage}.{block}"
            conv(prefix + ".conv1", width, channels, 3)
            batchnorm(prefix + ".bn1", width)
            conv(prefix + ".conv2", width, width, 3)
            batchnorm(prefix + ".bn2", width)
            if block == 0 and (stride != 1 or channels != width):
                conv(prefix + ".downsample.0", width, channels, 1)
                batchnorm(prefix + ".downsample.1", width)
            channels = width
    weights["fc.weight"] = (rng.standard_normal((classes, 512)) / numpy.sqrt(512)).astype(dtype)
    weights["fc.bias"] = (0.01 * rng.standard_normal(classes)).astype(dtype)
    return weights


def forward(ops, w, x):
    """ResNet-18's forward pass (torchvision's BasicBlock layout) over `ops`; returns the logits."""
    x = ops.relu(ops.batchnorm(ops.conv(x, w["conv1.weight"], stride=2, padding=3), w, "bn1"))
    x = ops.maxpool(x)
    for stage, (width, stride) in enumerate(STAGES, 1):
        for block in range(2):
            prefix = f"layer{stage}.{block}"
            step = stride if block == 0 else 1
            out = ops.relu(ops.batchnorm(ops.conv(x, w[prefix + ".conv1.weight"], step, 1), w, prefix + ".bn1"))
            out = ops.batchnorm(ops.conv(out, w[prefix + ".conv2.weight"], 1, 1), w, prefix + ".bn2")
            if prefix + ".downsample.0.weight" in w:
                x = ops.batchnorm(ops.conv(x, w[prefix + ".downsample.0.weight"], step, 0), w, prefix + ".downsample.1")
            x = ops.relu(ops.add(out, x))
    return ops.linear(ops.global_avgpool(x), w["fc.weight"], w["fc.bias"])


class LapisOps:
    """lapis's kernels; each intermediate is new on the device, then updated in place where the
    layer allows (batch norm, ReLU, the residual add)."""
    eps = 1e-5

    @staticmethod
    def conv(x, weight, stride, padding):
        return K.conv2d_nchw(x, weight, stride=stride, padding=padding)

    def batchnorm(self, x, w, name):
        return K.batchnorm_nchw(x, w[name + ".running_mean"], w[name + ".running_var"], w[name + ".weight"],
                                w[name + ".bias"], eps=self.eps, out=x)

    @staticmethod
    def relu(x):
        return K.maximum(x, 0.0, out=x)

    @staticmethod
    def maxpool(x):
        return K.maxpool_nchw(x, kernel_size=3, stride=2, padding=1, dilation=1)

    @staticmethod
    def add(x, y):
        return K.add(x, y, out=x)

    @staticmethod
    def global_avgpool(x):
        return K.global_avgpool_nchw(x)

    @staticmethod
    def linear(x, weight, bias):
        return K.linear(x, weight, bias)


class NumpyOps:
    eps = 1e-5

    @staticmethod
    def conv(x, weight, stride, padding):
        padded = numpy.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
        windows = numpy.lib.stride_tricks.sliding_window_view(padded, weight.shape[2:], axis=(2, 3))
        return numpy.einsum("ncpqrs,kcrs->nkpq", windows[:, :, ::stride, ::stride], weight, optimize=True)

    def batchnorm(self, x, w, name):
        scale = w[name + ".weight"] / numpy.sqrt(w[name + ".running_var"] + self.eps)
        shift = w[name + ".bias"] - w[name + ".running_mean"] * scale
        return x * scale[:, None, None] + shift[:, None, None]

    @staticmethod
    def relu(x):
        return numpy.maximum(x, 0)

    @staticmethod
    def maxpool(x):
        padded = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-numpy.inf)
        return numpy.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))[:, :, ::2, ::2].max(axis=(4, 5))

    @staticmethod
    def add(x, y):
        return x + y

    @staticmethod
    def global_avgpool(x):
        return x.mean(axis=(2, 3))

    @staticmethod
    def linear(x, weight, bias):
        return x @ weight.T + bias


def run(name, batches, image_size):
    """Runs one inference per batch size in `batches` on lapis and on numpy; prints each one's
    copies and time; returns the exit status."""
    from _example import finish, rng

    r = rng()
    weights = generate_weights(r)
    with lapis.count_transfers() as upload:
        resident = {key: lapis.DualView(value) for key, value in weights.items()}
        for dv in resident.values():
            dv.sync_device()                   # the weights go up once
    print(f"weights: {len(weights)} arrays, {upload.h2d_bytes:,} bytes up once")
    status = 0
    held = lapis.runtime_info()["live_allocations"]  # the weights' device sides (and host ones where they alias)
    for number, batch in enumerate(batches, 1):
        images = r.standard_normal((batch, 3, image_size, image_size)).astype(numpy.float32)
        started = time.perf_counter()
        with lapis.count_transfers() as t:
            logits = forward(LapisOps(), resident, images).asnumpy().copy()  # the result dies here
        elapsed = time.perf_counter() - started
        print(f"inference {number}: batch {batch}, {elapsed * 1e3:.0f} ms; up {t.h2d_count} ({t.h2d_bytes:,} bytes: "
              f"the images), down {t.d2h_count} ({t.d2h_bytes:,} bytes: the logits)")
        left = lapis.runtime_info()["live_allocations"] - held
        print(f"allocations left after the inference beyond the weights: {left}")
        if left:
            print("MISMATCH: intermediates outlived the inference")
            status = 1
        expected = forward(NumpyOps(), weights, images)
        status |= finish(f"{name}, inference {number} ({batch} x 3 x {image_size} x {image_size})", logits, expected,
                         t, rtol=2e-3)
    return status
