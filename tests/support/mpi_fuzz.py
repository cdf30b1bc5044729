"""A random program of lapis.mpi calls, run on every rank of `mpiexec -n N python mpi_fuzz.py SEED
STEPS` (tests/test_mpi.py gives each run a time limit, so a hang fails it). Every rank draws the
same program from SEED: a sequence of ring exchanges (blocking and nonblocking), allreduces,
allgathers and broadcasts, about half of them with one bad argument on one random rank (a wrong
dtype or size, a read-only or overlapping buffer, a bad rank, root or tag, something that is not a
DualView, a transfer guard that refuses the copy the call needs on that rank alone), and requests
dropped before they complete (sends the next rank receives whole, receives whose messages must land
in their own dropped DualView). After each step every rank checks that
  - a collective with a bad argument raised the same exception type on every rank, and one without
    raised nowhere;
  - a refused point-to-point call raised on its rank, and the message still arrived (the program
    then makes the call right);
  - every DualView holds what a numpy model of the program predicts: values that MPI did not
    deliver are the ones it held before (device-computed values included), nothing is lost.
Prints "ok" at the end."""
import contextlib
import sys
import warnings

import numpy
from mpi4py import MPI

import lapis
import lapis.kernels as K
import lapis.mpi

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
right, left = (rank + 1) % size, (rank - 1) % size
# where the sides are apart, a host-staged call on a device-computed DualView downloads it first
DOWNLOADS = not lapis.runtime_info()["sides_alias"] and lapis.mpi.communication_side() == "host"
warnings.simplefilter("ignore", ResourceWarning)  # (dropped requests are this program's point)


def guarded(fault):
    """The transfer guard refusing downloads where this rank's fault is "guard"."""
    return lapis.transfer_guard(device_to_host="disallow") if fault else contextlib.nullcontext()


def device_vector(values):
    """A DualView holding `values`, last written on the device (a kernel), as kernel results are."""
    return K.add(lapis.DualView(numpy.asarray(values, dtype=numpy.float64)), 0.0)


def read_only(n):
    array = numpy.zeros(n)
    array.flags.writeable = False
    return lapis.DualView(array)


def expect(call):
    """Runs call(); returns the exception type it raised (None if none)."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - compared with the expected type by the caller
        if not isinstance(error, (ValueError, TypeError, RuntimeError)):
            raise
        return type(error)
    return None


class Program:
    def __init__(self, seed):
        self.draw = numpy.random.default_rng(seed)  # the same on every rank: one program
        self.values = numpy.random.default_rng(seed + 1000 * (rank + 1))  # this rank's data
        self.steps = 0

    def fault(self, kinds):
        """(the rank that gets a bad argument, which one), or (None, None): the same on every rank."""
        if self.draw.random() < 0.5:
            return None, None
        return int(self.draw.integers(size)), kinds[int(self.draw.integers(len(kinds)))]

    def check_agreed(self, who, raised, expected):
        every = comm.allgather(None if raised is None else raised.__name__)
        wanted = None if expected is None else expected.__name__
        assert all(name == wanted for name in every), f"step {self.steps} {who}: ranks raised {every}, expected {wanted}"

    def ring(self):
        """Each rank sends a device-computed vector to the right and receives the left's."""
        n = int(self.draw.integers(1, 6))
        nonblocking = bool(self.draw.random() < 0.5)
        bad_rank, kind = self.fault(["size", "read-only", "source", "tag", "dest"])
        mine = self.values.integers(-9, 9, n).astype(float)
        everyone = numpy.empty((size, n))
        comm.Allgather(mine, everyone)
        x, y = device_vector(mine), device_vector(numpy.full(n, -1.0))
        target = y
        if rank == bad_rank and kind in ("size", "read-only"):  # refused once the message is there
            target = read_only(n) if kind == "read-only" else device_vector(numpy.full(n + 1, -1.0))
            nonblocking = False  # (a nonblocking receive checks the size only when it completes)
        elif rank == bad_rank:  # refused before anything is posted; then the call is made right
            call = {"source": lambda: lapis.mpi.irecv(comm, y, source=size + 3, tag=1),
                    "tag": lambda: lapis.mpi.irecv(comm, y, source=left, tag=-5),
                    "dest": lambda: lapis.mpi.isend(comm, x, dest=-4, tag=1)}[kind]
            assert expect(call) is ValueError, (self.steps, kind)
        raised = None
        if nonblocking:
            lapis.mpi.waitall([lapis.mpi.irecv(comm, target, left, tag=1), lapis.mpi.isend(comm, x, right, tag=1)])
        else:
            if rank % 2 == 0:
                lapis.mpi.send(comm, x, right, tag=1)
            raised = expect(lambda: lapis.mpi.recv(comm, target, left, tag=1))
            if rank % 2 == 1:
                lapis.mpi.send(comm, x, right, tag=1)
        if target is y:
            assert raised is None, (self.steps, raised)
            numpy.testing.assert_array_equal(y.asnumpy(), everyone[left])
        else:
            assert raised is not None and issubclass(raised, ValueError), (self.steps, kind, raised)
            numpy.testing.assert_array_equal(target.asnumpy(), 0.0 if kind == "read-only" else -1.0)
            numpy.testing.assert_array_equal(y.asnumpy(), -1.0)
        numpy.testing.assert_array_equal(x.asnumpy(), mine)

    def allreduce(self):
        n = int(self.draw.integers(2, 6))  # (whole[1:n + 1] overlaps whole[:n])
        mode = ["in place", "out", "same state"][int(self.draw.integers(3))]
        bad_rank, kind = self.fault(["dtype", "size", "read-only", "overlap", "not a DualView", "op", "guard"])
        mine = self.values.integers(-9, 9, n).astype(float)
        everyone = numpy.empty((size, n))
        comm.Allgather(mine, everyone)
        whole = device_vector(numpy.concatenate([mine, [5.0]]))
        dv = whole[:n]
        out = None if mode == "in place" else (lapis.DualView(dv) if mode == "same state" else device_vector(numpy.zeros(n)))
        op = MPI.SUM
        if rank == bad_rank:
            if kind == "dtype":
                out = lapis.zeros(n, numpy.float32)
            elif kind == "size":
                out = lapis.zeros(n + 1)
            elif kind == "read-only":
                out = read_only(n)
            elif kind == "overlap":
                out = whole[1:n + 1]
            elif kind == "op":
                op = "sum"
            elif kind == "not a DualView":
                dv = numpy.zeros(n)
        expected = None if bad_rank is None else {"read-only": lapis.ReadOnlyError, "not a DualView": TypeError,
                                                  "op": TypeError, "guard": lapis.TransferGuardError}.get(kind, ValueError)
        if kind == "guard" and not DOWNLOADS:
            expected = None
        with guarded(rank == bad_rank and kind == "guard"):
            raised = expect(lambda: lapis.mpi.allreduce(comm, dv, out=out, op=op))
        self.check_agreed("allreduce", raised, expected)
        if expected is not None:
            numpy.testing.assert_array_equal(whole.asnumpy(), numpy.concatenate([mine, [5.0]]))
            return
        result = dv if out is None else out
        numpy.testing.assert_array_equal(result.asnumpy(), everyone.sum(axis=0))
        numpy.testing.assert_array_equal(whole.asnumpy()[n], 5.0)  # beyond the part: untouched

    def allgather(self):
        n = int(self.draw.integers(1, 5))
        bad_rank, kind = self.fault(["size", "dtype", "read-only", "overlap", "shape"])
        mine = self.values.integers(-9, 9, n).astype(float)
        everyone = numpy.empty((size, n))
        comm.Allgather(mine, everyone)
        dv, out = device_vector(mine), device_vector(numpy.full((size, n), -1.0))
        expected = None
        if rank == bad_rank:
            if kind == "size":
                out = lapis.zeros(size * n + 1)
            elif kind == "dtype":
                out = lapis.zeros((size, n), numpy.float32)
            elif kind == "read-only":
                out = read_only(size * n)
            elif kind == "overlap":
                out = device_vector(numpy.full(size * n, -1.0))
                dv = out[:n]
            else:
                dv = device_vector(numpy.zeros(n + 1))
        if bad_rank is not None:
            expected = lapis.ReadOnlyError if kind == "read-only" else ValueError
        raised = expect(lambda: lapis.mpi.allgather(comm, dv, out))
        self.check_agreed("allgather", raised, expected)
        if expected is None:
            numpy.testing.assert_array_equal(out.asnumpy(), everyone)
        elif rank != bad_rank:
            numpy.testing.assert_array_equal(out.asnumpy(), -1.0)
            numpy.testing.assert_array_equal(dv.asnumpy(), mine)

    def bcast(self):
        n = int(self.draw.integers(1, 5))
        root = int(self.draw.integers(size))
        bad_rank, kind = self.fault(["root", "other root", "read-only", "dtype", "shape", "guard"])
        if kind == "read-only" and bad_rank == root:  # (the root only reads)
            bad_rank = (root + 1) % size
        mine = self.values.integers(-9, 9, n).astype(float)
        everyone = numpy.empty((size, n))
        comm.Allgather(mine, everyone)
        dv, held, my_root = device_vector(mine), mine, root
        if rank == bad_rank:
            if kind == "root":
                my_root = -1
            elif kind == "other root":
                my_root = (root + 1) % size
            elif kind != "guard":
                dv = {"read-only": lambda: read_only(n), "dtype": lambda: lapis.zeros(n, numpy.float32),
                      "shape": lambda: lapis.zeros(n + 1)}[kind]()
                held = numpy.zeros(dv.shape)
        expected = None if bad_rank is None else (lapis.ReadOnlyError if kind == "read-only" else ValueError)
        if kind == "guard":  # only the root reads its DualView: another rank's guard has nothing to refuse
            expected = lapis.TransferGuardError if DOWNLOADS and bad_rank == root else None
        with guarded(rank == bad_rank and kind == "guard"):
            raised = expect(lambda: lapis.mpi.bcast(comm, dv, root=my_root))
        self.check_agreed("bcast", raised, expected)
        numpy.testing.assert_array_equal(dv.asnumpy(), everyone[root] if expected is None else held)

    def dropped(self):
        """Requests dropped at once: a send still arrives whole at the right although its DualView
        is gone and new DualViews take memory meanwhile; a receive's message lands in its own
        DualView, never in one made after it."""
        n = int(self.draw.choice([3, 2**17]))  # (1 MiB: a rendezvous message, read when received)
        mine = self.values.integers(-9, 9, n).astype(float)
        from_left = numpy.empty(n)
        comm.Sendrecv(mine, right, recvbuf=from_left, source=left)
        lapis.mpi.isend(comm, device_vector(mine), right, tag=3)
        bystander = device_vector(numpy.full(n, -2.0))
        bystander.sync_host()
        got = lapis.empty(n)
        lapis.mpi.recv(comm, got, left, tag=3)
        numpy.testing.assert_array_equal(got.asnumpy(), from_left)
        lapis.mpi.irecv(comm, lapis.empty(n), left, tag=4)
        later = device_vector(numpy.full(n, -3.0))
        later.sync_host()
        lapis.mpi.send(comm, device_vector(mine), right, tag=4)
        comm.Barrier()
        for values in (later.asnumpy(), K.add(later, 0.0).asnumpy(), bystander.asnumpy()):  # both sides
            assert (values < 0).all(), (self.steps, "a dropped request's message landed elsewhere")

    def run(self, steps):
        operations = [self.ring, self.allreduce, self.allgather, self.bcast, self.dropped]
        for self.steps in range(steps):
            operations[int(self.draw.integers(len(operations)))]()
        comm.Barrier()
        while lapis.mpi._dropped:  # every dropped request completes (test_mpi's time limit catches one that never does)
            lapis.mpi._complete_dropped()


if __name__ == "__main__":
    Program(int(sys.argv[1])).run(int(sys.argv[2]))
    print("ok")
