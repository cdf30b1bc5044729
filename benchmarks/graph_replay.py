"""Per-call time of a sequence of 10 one-element kernel calls on resident DualViews, made from Python
and replayed from a lapis.graph() (runtime/graph.hpp), side by side in one run, each followed by a
wait for the device (lapis.fence()) so that a GPU's queued work is counted. Prints JSON:
microseconds per call and their ratio. The graph issue's CPU target: replayed <= 0.25 us per call."""
import json

import lapis
import lapis.kernels as K
from python_overhead import device_name, timed_in_turns

CALLS = 10


def main():
    a, b, c = (lapis.zeros(1) for _ in range(3))

    def sequence():
        for _ in range(CALLS // 2):
            K.matadd(a, b, out=c)
            K.add(c, 1.0, out=c)

    with lapis.graph() as graph:
        sequence()
    figures = timed_in_turns({"python": lambda: (sequence(), lapis.fence()),
                              "replayed": lambda: (graph.replay(), lapis.fence())}, calls=2_000)
    result = {"calls": CALLS, "replay_mode": graph.replay_mode, "python_us_per_call": figures["python"] / CALLS, "replayed_us_per_call": figures["replayed"] / CALLS,
              "replayed_over_python": figures["replayed"] / figures["python"], "device": device_name()}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
