"""Time per ResNet-18 inference: lapis (examples/_resnet.py: weights resident, every intermediate on
the device), the same forward pass recorded once in a lapis.graph() and replayed, next to, on a CPU
build, the same network in numpy (examples/_resnet.py's NumpyOps: its convolutions are im2col,
sliding windows contracted by einsum into one BLAS product), and where a GPU and PyTorch are there,
torch eager (torchvision's resnet18 with the same weights) and the same model replayed from a
torch.cuda.graph, all from host images to host logits; median of ROUNDS after a warm-up, the
contenders in turns. Also checks that they agree. Usage: resnet18.py [batch] [image_size]. Prints
JSON."""
import json
import os
import pathlib
import statistics
import sys
import time

# numpy's OpenBLAS and lapis's keep their threads spinning after each call: kernel_speed.py says why
# a short timeout is set before either loads.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import numpy  # noqa: E402

import lapis  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "examples"))
from _resnet import LapisOps, NumpyOps, forward, generate_weights  # noqa: E402

ROUNDS = 5


def median_ms(runs):
    """name -> median milliseconds of runs[name](), the runs taken in turns, each after a warm-up."""
    times = {name: [] for name in runs}
    for run in runs.values():
        run()
    for _ in range(ROUNDS):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    return {name: 1e3 * statistics.median(values) for name, values in times.items()}


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


def lapis_replayed(resident, images, logits):
    """The forward pass recorded once on a resident input; each inference writes the images into
    its host side, and the replay uploads them (its one copy up) before the first kernel."""
    source = lapis.DualView(images.copy())
    source.sync_device()
    with lapis.graph() as graph:
        result = forward(LapisOps(), resident, source)

    def inference():
        source.asnumpy(writable=True)[...] = images
        source.sync_device()
        graph.replay()
        logits["lapis_replayed"] = result.asnumpy().copy()
    return inference


def torch_replayed(model, images, logits):
    """torch's recipe for CUDA graphs: warm-up calls on a side stream, then the model captured on a
    static input; each inference copies the images into it and replays."""
    import torch
    static_input = torch.as_tensor(images).cuda()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(side):
        for _ in range(3):
            model(static_input)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph):
        static_output = model(static_input)

    def inference():
        static_input.copy_(torch.as_tensor(images))
        graph.replay()
        logits["torch_graph"] = static_output.cpu().numpy()
    return inference


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
    results = {"batch": batch, "image_size": size, "lapis_execution_space": info["execution_space"]}
    runs = {"lapis": lapis_inference, "lapis_replayed": lapis_replayed(resident, images, logits)}
    peer = None  # the run every other one's logits are held to, and lapis's time over
    if info["execution_space"] != "Cuda":
        def numpy_inference():
            logits["numpy"] = forward(NumpyOps(), weights, images)

        runs["numpy"], peer = numpy_inference, "numpy"
    else:
        import torch
        model = torch_model(weights)
        if model is None:
            results["torch"] = "torchvision not installed"
        else:
            def torch_inference():
                with torch.no_grad():
                    logits["torch_eager"] = model(torch.as_tensor(images).cuda()).cpu().numpy()

            runs.update(torch_eager=torch_inference, torch_graph=torch_replayed(model, images, logits))
            peer = "torch_eager"
    results.update({name + "_ms": ms for name, ms in median_ms(runs).items()})
    if peer is not None:
        results[f"lapis_over_{peer.split('_')[0]}"] = results["lapis_ms"] / results[peer + "_ms"]
    reference = peer or "lapis"
    results["max_abs_difference"] = max(float(numpy.abs(logits[name] - logits[reference]).max())
                                        for name in logits if name != reference)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8, int(sys.argv[2]) if len(sys.argv) > 2 else 224)
