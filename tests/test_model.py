"""Random sequences of modify / sync / export / kernel calls on a DualView, against a pure-Python
model of its two sides and their flags that predicts every value and every copy. The flags evolve
the same way on every device; only the copies (and the values a stale side holds) depend on
whether the sides are apart."""
import numpy
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import lapis
import lapis.kernels as K
from conftest import APART, FUZZ

N = 4
values = st.integers(-1000, 1000).map(float)


class DualViewModel(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.ones = lapis.full(N, 1.0)
        self.ones.sync_device()
        self.array = numpy.zeros(N)  # held here: what the borrowed host side is
        self.dv = lapis.DualView(self.array)
        # the model: each side's value, and which side holds changes the other lacks
        self.host, self.device = 0.0, None
        self.host_modified, self.device_modified = True, False
        self.expected = lapis.TransferStats()
        self.start = lapis.transfer_stats()

    def copy(self, to_device):
        if to_device:
            self.device, self.host_modified = self.host, False
        else:
            self.host, self.device_modified = self.device, False
        if APART:
            h2d, h2d_bytes, d2h, d2h_bytes = self.expected._astuple()
            if to_device:
                self.expected = lapis.TransferStats(h2d + 1, h2d_bytes + 8 * N, d2h, d2h_bytes)
            else:
                self.expected = lapis.TransferStats(h2d, h2d_bytes, d2h + 1, d2h_bytes + 8 * N)

    def write(self, side, value):
        if not APART:
            self.host = self.device = value  # one memory
        if side == "host":
            self.host, self.host_modified = value, True
        else:
            self.device, self.device_modified, self.host_modified = value, True, False

    @rule(value=values)
    def write_host(self, value):
        array = self.dv.asnumpy(writable=True)   # syncs the host side first, then marks it modified
        if self.device_modified:
            self.copy(to_device=False)
        array[:] = value
        self.write("host", value)

    @rule(value=values)
    def fill_device(self, value):
        self.dv.fill(value)                      # overwrites the device side: nothing is uploaded
        self.write("device", value)

    @rule()
    def sync_device(self):
        self.dv.sync_device()
        if self.host_modified:
            self.copy(to_device=True)

    @rule()
    def sync_host(self):
        self.dv.sync_host()
        if self.device_modified:
            self.copy(to_device=False)

    @rule()
    def read_on_host(self):
        array = self.dv.asnumpy()
        if self.device_modified:
            self.copy(to_device=False)
        assert (array == self.host).all()

    @rule()
    def read_on_device(self):
        total = K.dot(self.dv, self.ones)
        if self.host_modified:
            self.copy(to_device=True)
        assert total == N * (self.host if not APART else self.device)

    def teardown(self):
        # the last handle goes: the borrowed host side (the numpy array's memory, still held) gets the
        # device side's changes, one implicit copy, so that no write is lost
        before = lapis.transfer_stats()
        self.dv = None
        written_back = self.device_modified and APART
        assert lapis.transfer_stats() - before == lapis.TransferStats(0, 0, int(written_back), 8 * N * written_back)
        assert (self.array == (self.device if self.device_modified else self.host)).all()

    @invariant()
    def flags_and_copies_match_the_model(self):
        assert self.dv.need_sync_device == self.host_modified
        assert self.dv.need_sync_host == self.device_modified
        assert lapis.transfer_stats() - self.start == self.expected


TestDualViewModel = DualViewModel.TestCase
TestDualViewModel.settings = settings(max_examples=FUZZ(300), stateful_step_count=30, deadline=None)
