"""Distributed Jacobi-preconditioned CG: the 2-D Laplacian of an n x n grid, its grid rows split
among the MPI ranks, with examples/pcg_solve.py's loop (pcg) on each rank. Each rank holds its
block of matrix rows as a CSRMatrix over its own unknowns plus one halo grid row from each
neighbour; before each product the boundary rows are exchanged (packed on the device into halo
DualViews of their own, so that only they cross), and dot products are summed over the ranks with
lapis.mpi.allreduce into 0-d DualViews. Every vector stays resident. Each rank prints the bytes that
cross per iteration (MPI messages, and lapis's copies between host and device), and checks its part
of x against the one-process solve of pcg_solve.py.

Usage: mpiexec -n RANKS python mpi_cg.py [n] [--halo=python|module]   (default n = 32, python)
`--halo=module` exchanges the halos in C++, through the module examples/mpi_halo (lapis/mpi.hpp),
built against the installed lapis on first use."""
import pathlib
import sys
import time

import numpy
from mpi4py import MPI

import lapis
import lapis.kernels as K
import lapis.mpi
from _example import finish, main
from _sparse import laplacian_2d
from pcg_solve import pcg


class Partition:
    """This rank's grid rows [first, last) of an n x n grid, and its neighbours' (None at an edge)."""

    def __init__(self, comm, n):
        self.n, self.rank, self.size = n, comm.rank, comm.size
        bounds = numpy.linspace(0, n, comm.size + 1).astype(int)
        self.first, self.last = bounds[comm.rank], bounds[comm.rank + 1]
        self.below = comm.rank - 1 if comm.rank > 0 else None
        self.above = comm.rank + 1 if comm.rank < comm.size - 1 else None
        # the vector the product reads: [halo row below] + own rows + [halo row above], in grid order
        self.start = (self.first - (self.below is not None)) * n
        self.own = slice(self.first * n - self.start, self.last * n - self.start)
        self.extended = (self.last + (self.above is not None)) * n - self.start

    def local_matrix(self, indptr, indices, data):
        """This rank's rows of the global CSR matrix, columns renumbered into the extended vector."""
        rows = slice(self.first * self.n, self.last * self.n + 1)
        begin, end = indptr[rows][0], indptr[rows][-1]
        return lapis.CSRMatrix((data[begin:end], indices[begin:end] - self.start, indptr[rows] - begin),
                               shape=((self.last - self.first) * self.n, self.extended))


class PythonHalos:
    """The halo exchange through lapis.mpi: boundary rows packed on the device into DualViews of
    their own, sent and received host-staged (or device to device where MPI is GPU-aware)."""

    def __init__(self, comm, part):
        self.comm, self.part, n = comm, part, part.n
        self.neighbours = [(rank, side) for rank, side in ((part.below, "below"), (part.above, "above"))
                           if rank is not None]
        self.outgoing = {side: lapis.zeros(n) for _, side in self.neighbours}
        self.incoming = {side: lapis.zeros(n) for _, side in self.neighbours}
        self.bytes_sent = self.bytes_received = 0

    def rows(self, extended, side):
        """(the own boundary row sent to `side`, the halo row received from it), parts of `extended`."""
        n, own = self.part.n, self.part.own
        if side == "below":
            return extended[own.start:own.start + n], extended[:n]
        return extended[own.stop - n:own.stop], extended[own.stop:]

    def exchange(self, extended):
        requests = []
        for rank, side in self.neighbours:
            boundary, _ = self.rows(extended, side)
            K.multiply(boundary, 1.0, out=self.outgoing[side])       # packed on the device
            # a message goes up with tag 0 and down with tag 1: each pairs with the neighbour's receive
            requests.append(lapis.mpi.irecv(self.comm, self.incoming[side], rank, tag=int(side == "above")))
            requests.append(lapis.mpi.isend(self.comm, self.outgoing[side], rank, tag=int(side == "below")))
        lapis.mpi.waitall(requests)
        for _, side in self.neighbours:
            _, halo = self.rows(extended, side)
            K.multiply(self.incoming[side], 1.0, out=halo)            # unpacked on the device
            self.bytes_sent += self.outgoing[side].nbytes
            self.bytes_received += self.incoming[side].nbytes


def halo_module(comm):
    """examples/mpi_halo, built on rank 0 and imported by every rank (a failure raises everywhere)."""
    import _modules
    if comm.rank == 0:
        try:
            built = _modules.build(pathlib.Path(__file__).parent / "mpi_halo")
        except Exception as error:  # noqa: BLE001 - handed to every rank below
            built = error
    built = comm.bcast(built if comm.rank == 0 else None)
    if isinstance(built, Exception):
        raise built
    sys.path.insert(0, str(built))
    import mpi_halo
    return mpi_halo


class ModuleHalos(PythonHalos):
    """The same exchange, its messages sent and received by C++ (examples/mpi_halo, lapis/mpi.hpp)."""

    def __init__(self, comm, part):
        super().__init__(comm, part)
        self.module = halo_module(comm)

    def exchange(self, extended):
        for _, side in self.neighbours:
            boundary, _ = self.rows(extended, side)
            K.multiply(boundary, 1.0, out=self.outgoing[side])
        below, above = self.part.below, self.part.above
        self.module.exchange(self.outgoing.get("below"), self.incoming.get("below"), -1 if below is None else below,
                             self.outgoing.get("above"), self.incoming.get("above"), -1 if above is None else above)
        for _, side in self.neighbours:
            _, halo = self.rows(extended, side)
            K.multiply(self.incoming[side], 1.0, out=halo)
            self.bytes_sent += self.outgoing[side].nbytes
            self.bytes_received += self.incoming[side].nbytes


def run():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 32
    halo_kind = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--halo=")), "python")
    comm = MPI.COMM_WORLD
    part = Partition(comm, n)
    indptr, indices, data = laplacian_2d(n)
    b = numpy.sin(numpy.arange(n * n) + 1.0)
    dinv = 1.0 / data[indices == numpy.repeat(numpy.arange(n * n), numpy.diff(indptr))]
    mine = slice(part.first * n, part.last * n)
    halos = (ModuleHalos if halo_kind == "module" else PythonHalos)(comm, part)
    scalars = {"allreduces": 0}

    def dot(u, v, out=None):
        local = K.dot(u, v, out=lapis.empty(()) if out is None else out)
        lapis.mpi.allreduce(comm, local)
        scalars["allreduces"] += 1
        return float(local.asnumpy()) if out is None else local

    def sum_over_ranks(scalar):
        lapis.mpi.allreduce(comm, scalar)
        scalars["allreduces"] += 1

    with lapis.count_transfers() as t:
        matrix = part.local_matrix(indptr, indices, data)
        for array in (matrix.data, matrix.indices, matrix.indptr):
            array.sync_device()
        extended = lapis.zeros(part.extended)            # the search direction p, with its halo rows
        p = extended[part.own]

        def spmv(v, out=None):
            if v is p:
                halos.exchange(extended)
                return K.spmv(matrix, extended, out=out)
            padded = lapis.zeros(part.extended)            # x, once, before the loop
            K.multiply(v, 1.0, out=padded[part.own])
            halos.exchange(padded)
            return K.spmv(matrix, padded, out=out)

        x = lapis.zeros(part.last * n - part.first * n)
        before = (halos.bytes_sent, halos.bytes_received, scalars["allreduces"])
        comm.Barrier()
        started = time.perf_counter()
        iterations, loop = pcg(spmv, lapis.DualView(dinv[mine]), lapis.DualView(b[mine]), x, max_iterations=10 * n,
                               dot=dot, p=p, sum_over_ranks=sum_over_ranks)
        seconds = time.perf_counter() - started
        host = x.asnumpy()
    sent, received, allreduces = (after - start for after, start in
                                  zip((halos.bytes_sent, halos.bytes_received, scalars["allreduces"]), before))
    products = iterations + 1  # one per iteration, and r = b - A x before the loop
    print(f"rank {comm.rank} of {comm.size} (grid rows {part.first}-{part.last - 1}, halos by {halo_kind}, "
          f"communication side {lapis.mpi.communication_side()}): {iterations} iterations, "
          f"{1e6 * seconds / iterations:.1f} us each; per product MPI sent "
          f"{sent / products:.0f} and received {received / products:.0f} halo bytes; {allreduces} scalars summed; "
          f"in the loop lapis copied {loop.h2d_bytes / iterations:.0f} bytes up and {loop.d2h_bytes / iterations:.0f} "
          f"down per iteration")
    lapis.fence()
    single_x = lapis.zeros(n * n)
    matrix_1 = (lapis.DualView(indptr), lapis.DualView(indices), lapis.DualView(data))
    pcg(lambda v, out=None: K.spmv(*matrix_1, v, shape=(n * n, n * n), out=out), lapis.DualView(dinv),
        lapis.DualView(b), single_x, max_iterations=10 * n)
    status = finish(f"mpi_cg ({n} x {n} Laplacian, rank {comm.rank} of {comm.size})", host,
                    single_x.asnumpy()[mine], t, rtol=1e-10)
    return comm.allreduce(status, MPI.MAX)


if __name__ == "__main__":
    main(run)
