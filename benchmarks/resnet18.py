"""Time per ResNet-18 inference: lapis (examples/_resnet.py: weights resident, every intermediate on
the device) next to, where a GPU and PyTorch are there, torch eager (torchvision's resnet18 with the
same weights, or the same network as torch.nn.functional calls when torchvision is missing), both
from host images to host logits; median of ROUNDS after a warm-up. Also checks that the two agree.
Usage: resnet18.py [batch] [image_size]. Prints JSON."""
import json
import pathlib
import statistics
import sys
import time

import numpy

import lapis

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "examples"))
from _resnet import LapisOps, forward, generate_weights  # noqa: E402

ROUNDS = 5


def median_ms(run):
    run()
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return 1e3 * statistics.median(times)


def torch_model(weights):
    import torch
    try:
        import torchvision
        model = torchvision.models.resnet18(num_classes=weights["fc.bias"].shape[0])
        state = {key: torch.as_tensor(value) for key, value in weights.items()}
        loaded = model.load_state_dict(state, strict=False)
        # every weight named as torchvision names it; only num_batches_tracked (unused in eval mode) left out
        assert not loaded.unexpected_keys and all(k.endswith("num_batches_tracked") for k in loaded.missing_keys)
        return model.cuda().eval()
    except ImportError:
        return None


def main(batch, size):
    weights = generate_weights(numpy.random.default_rng(2026))
    images = numpy.random.default_rng(7).standard_normal((batch, 3, size, size)).astype(numpy.float32)
    resident = {key: lapis.DualView(value) for key, value in weights.items()}
    for dv in resident.values():
        dv.sync_device()
    logits = {}

    def lapis_inference():
        logits["lapis"] = forward(LapisOps(), resident, images).asnumpy().copy()

    info = lapis.runtime_info()
    results = {"batch": batch, "image_size": size, "lapis_execution_space": info["execution_space"],
               "lapis_ms": median_ms(lapis_inference)}
    if info["execution_space"] == "Cuda":
        import torch
        model = torch_model(weights)
        if model is None:
            results["torch"] = "torchvision not installed"
        else:
            def torch_inference():
                with torch.no_grad():
                    logits["torch"] = model(torch.as_tensor(images).cuda()).cpu().numpy()

            results["torch_eager_ms"] = median_ms(torch_inference)
            results["lapis_over_torch"] = results["lapis_ms"] / results["torch_eager_ms"]
            results["max_abs_difference"] = float(numpy.abs(logits["lapis"] - logits["torch"]).max())
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8, int(sys.argv[2]) if len(sys.argv) > 2 else 224)
