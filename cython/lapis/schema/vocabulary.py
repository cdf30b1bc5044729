"""The words kernels.py states lapis.kernels in: a kernel and the kinds of its arguments.

An array argument has a name, a rank and a role. The roles are one vocabulary for C++ and Python:
`reads` (an input), `writes` (written whole, its old values unread) and `reads_writes` (updated in
place). An argument the kernel writes is either the kernel's result (`result`: `out`, or a new
DualView when it is None, and what the call returns; a numpy array there gets the result copied
back) or an argument written on the device (which must then be a lapis.DualView). Arrays hold the
values the kernel computes in (float32 or float64: the `values` group) or a sparse structure's
indices (int32 or int64: the `indices` group)."""
from dataclasses import dataclass

# A rank that the call's first array of such a rank decides, 1 to 4 (ANY_RANK) or 0 to 4
# (ANY_RANK_OR_SCALAR); every argument given it has that same rank.
ANY_RANK = "1-4"
ANY_RANK_OR_SCALAR = "0-4"

READS, WRITES, READS_WRITES = "reads", "writes", "reads_writes"
VALUES, INDICES = "values", "indices"


@dataclass(frozen=True)
class Array:
    name: str
    rank: object  # an int, ANY_RANK or ANY_RANK_OR_SCALAR
    role: str = READS
    group: str = VALUES
    optional: bool = False  # may be None (the C++ kernel has an overload without it)
    result: bool = False

    @property
    def written(self):
        return self.role != READS


@dataclass(frozen=True)
class Operand:
    """An elementwise operand: an array (rank 0 to 4) or a number passed by value."""
    name: str


@dataclass(frozen=True)
class Integer:
    """An integer setting (a stride, a size): lapis's one rule for integers, its range the kernel's to check."""
    name: str
    default: object = None


@dataclass(frozen=True)
class Number:
    """A floating-point setting (an epsilon)."""
    name: str
    default: object = None


@dataclass(frozen=True)
class MatrixShape:
    """A sparse matrix's (rows, columns), in C++ the settings shape_rows and shape_columns."""
    name: str = "shape"


@dataclass(frozen=True)
class SparseMatrix:
    """A CSR matrix as one argument (lapis.kernels.CSRMatrix, or anything it takes): in C++ its
    indptr, indices and data arrays, named <name>.indptr and so on, and the shape the matrices share."""
    name: str


KEYWORD_ONLY = "*"  # the arguments after it are keyword-only, as in a Python signature


def reads(name, rank, optional=False):
    return Array(name, rank, optional=optional)


def indices(name, rank):
    return Array(name, rank, group=INDICES)


def writes(name, rank):
    return Array(name, rank, role=WRITES)


def reads_writes(name, rank):
    return Array(name, rank, role=READS_WRITES)


def result(name, rank, optional=True, in_place=False):
    """The kernel's result: an argument `name` (optional: None makes a new DualView); with
    in_place, it may be exactly one of the inputs."""
    return Array(name, rank, role=READS_WRITES if in_place else WRITES, result=True, optional=optional)


@dataclass(frozen=True)
class Kernel:
    """One function of lapis.kernels.

    shape: the result's extents, as a C++ call (`kernels::gemm_extents`) and its arguments, each an
      argument's name (an array stands for its extents, checked for its rank) or a C++ expression;
      None for a result of rank 0.
    call: the C++ kernel's arguments in its order (default: the arrays and settings in the Python
      order), each an argument's name or a C++ expression of the settings; `cpp` names the
      function (default: kernels::<name>).
    returns: "result" (the result argument, or the new DualView), "number_or_result" (a
      reduction: a Python float without a result argument, else into it), the name of an argument
      written on the device, or "sparse_matrix" (a new CSRMatrix: the C++ kernel returns its arrays).
    result_checked_first: the C++ kernel reads the shape from the result's extents, so the bridge
      checks them against the shape rule before it runs.
    csr_form: the first argument may be a CSRMatrix standing for the arrays before the vector and
      for the shape: f(A, x).
    """
    name: str
    doc: str
    arguments: list
    shape: tuple = None
    cpp: str = None
    call: list = None
    returns: str = "result"
    result_checked_first: bool = False
    csr_form: bool = False

    @property
    def cpp_function(self):
        return self.cpp or f"kernels::{self.name}"

    def parameters(self):
        """The arguments, without the keyword-only marker."""
        return [a for a in self.arguments if a != KEYWORD_ONLY]

    def arrays(self):
        return [a for a in self.parameters() if isinstance(a, Array)]

    def result_argument(self):
        return next((a for a in self.arrays() if a.result), None)

    def indexed(self):
        return any(a.group == INDICES for a in self.arrays()) or any(
            isinstance(a, SparseMatrix) for a in self.parameters())
