"""A random sparse matrix in CSR and in doubly compressed (DCSR) form, for the sparse examples."""
import numpy


def random_matrix(r, rows, columns, density):
    dense = r.standard_normal((rows, columns))
    dense[r.random((rows, columns)) > density] = 0
    dense[::3] = 0  # some empty rows, which DCSR leaves out
    return dense


def csr(dense):
    rows, columns = numpy.nonzero(dense)
    indptr = numpy.concatenate([[0], numpy.cumsum((dense != 0).sum(axis=1))])
    return indptr, columns, dense[rows, columns]


def dcsr(dense):
    indptr, indices, data = csr(dense)
    listed = numpy.flatnonzero(numpy.diff(indptr))
    return listed, numpy.concatenate([[0], indptr[listed + 1]]), indices, data
