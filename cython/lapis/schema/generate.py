"""Writes what lapis.kernels derives from schema/kernels.py, at build time:

  kernel_entries.hpp, kernel_entries.cpp  the bridge's C++ entry points (kernel_entry_call.hpp runs them)
  kernel_declarations.pxi                 their Cython declarations
  kernel_wrappers.pxi                     the Python functions (calls.pxi's _Call does the checks)
  kernels.pyi                             the type stubs, kernels.pyi.in with the kernels' stubs

Usage: python generate.py OUTPUT_DIRECTORY STUB_TEMPLATE"""
import pathlib
import re
import sys
import textwrap

from kernels import KERNELS
from vocabulary import (ANY_RANK, ANY_RANK_OR_SCALAR, INDICES, KEYWORD_ONLY, VALUES, Array, Integer, MatrixShape,
                        Number, Operand, SparseMatrix)

SPARSE_PARTS = (("indptr", INDICES), ("indices", INDICES), ("data", VALUES))
SHAPE_SETTINGS = ("shape_rows", "shape_columns")


# -- what each argument is in C++ -------------------------------------------------------------------------------


def cpp_name(name):
    return name.replace(".", "_")


def sparse_arrays(matrix):
    """A SparseMatrix argument's arrays, as Array arguments named <name>.indptr and so on."""
    return [Array(f"{matrix.name}.{part}", 1, group=group) for part, group in SPARSE_PARTS]


def cpp_arguments(kernel):
    """The kernel's arguments as the C++ entry point takes them: arrays, operands and settings, in the
    Python order, a sparse matrix as its three arrays (their shared shape last)."""
    found = []
    for argument in kernel.parameters():
        found += sparse_arrays(argument) if isinstance(argument, SparseMatrix) else [argument]
    if any(isinstance(a, SparseMatrix) for a in kernel.parameters()):
        found.append(MatrixShape())
    return found


def cpp_parameter(argument, buffer_type="const Buffer&"):
    if isinstance(argument, Array):
        return f"{buffer_type} {cpp_name(argument.name)}"
    if isinstance(argument, Operand):
        return f"const OperandArg& {argument.name}"
    if isinstance(argument, Integer):
        return f"std::int64_t {argument.name}"
    if isinstance(argument, Number):
        return f"double {argument.name}"
    return ", ".join(f"std::int64_t {name}" for name in SHAPE_SETTINGS)


def rank_text(argument):
    return "rank" if argument.rank in (ANY_RANK, ANY_RANK_OR_SCALAR) else str(argument.rank)


def ranked(arguments):
    """The argument whose rank decides the others' (the first of a variable rank), or None."""
    return next((a for a in arguments if isinstance(a, Array) and a.rank in (ANY_RANK, ANY_RANK_OR_SCALAR)), None)


def with_rank(deciding, body, returns, dereference):
    """body, run for the rank of `deciding` where it has a variable rank."""
    if deciding is None:
        return body
    lowest = "<0>" if deciding.rank == ANY_RANK_OR_SCALAR else ""
    buffer = ("*" if dereference else "") + cpp_name(deciding.name)
    body = textwrap.indent(body, "  ")
    head = "return " if returns else ""
    return f'{head}with_rank{lowest}(kernel, "{deciding.name}", {buffer}, [&](auto rank) {{\n{body}\n}});'


def run_spec(argument):
    """How run_kernel takes an argument: its name, rank and role."""
    if isinstance(argument, Operand):
        return f"operand({argument.name})"
    role = "written" if argument.written else ("index_input" if argument.group == INDICES else "input")
    return f'{role}<{rank_text(argument)}>("{argument.name}", {cpp_name(argument.name)})'


def by_name(arguments):
    table = {}
    for argument in arguments:
        if isinstance(argument, MatrixShape):
            table.update({name: argument for name in SHAPE_SETTINGS})
        else:
            table[argument.name] = argument
    return table


# -- the C++ entry points --------------------------------------------------------------------------------------


def shape_parameters(kernel):
    """The arguments the shape rule reads, in the Python order: those it names, and the settings its
    C++ expressions use."""
    terms = kernel.shape[1]
    words = {word for term in terms for word in re.findall(r"\w+", term)}

    def used(argument):
        if isinstance(argument, MatrixShape):
            return bool(words & set(SHAPE_SETTINGS))
        return argument.name in terms or (isinstance(argument, (Integer, Number)) and argument.name in words)

    return [a for a in cpp_arguments(kernel) if used(a)]


def shape_expression(kernel):
    named = by_name(cpp_arguments(kernel))

    def term(name):
        argument = named.get(name)
        if isinstance(argument, Array):
            return f'extents<{rank_text(argument)}>(kernel, "{name}", {cpp_name(name)})'
        if isinstance(argument, Operand):
            return f"as_argument({name})"
        return name

    function, terms = kernel.shape
    return f"shape_list({function}({', '.join(term(t) for t in terms)}))"


def shape_declaration(kernel):
    parameters = ", ".join(cpp_parameter(a, "const AnyDualBuffer&") for a in shape_parameters(kernel))
    return f"ShapeList {kernel.name}_shape({parameters})"


def shape_definition(kernel):
    body = with_rank(ranked(shape_parameters(kernel)), f"return {shape_expression(kernel)};",
                     returns=True, dereference=False)
    return (f"{shape_declaration(kernel)} {{\n  constexpr const char* kernel = \"{kernel.name}\";\n"
            f"{textwrap.indent(body, '  ')}\n}}\n")


def entry_variants(kernel):
    """(entry name, C++ return type, arguments) of each C++ entry point of `kernel`."""
    arguments = cpp_arguments(kernel)
    if kernel.returns == "number_or_result":
        without = [a for a in arguments if not (isinstance(a, Array) and a.result)]
        return [(kernel.name, "double", without), (f"{kernel.name}_into", "void", arguments)]
    return [(kernel.name, "std::vector<Buffer>" if kernel.returns == "sparse_matrix" else "void", arguments)]


def entry_declaration(kernel, name, returned, arguments):
    leading = ["ElementType type"] + (["ElementType index"] if kernel.indexed() else [])
    return f"{returned} {name}({', '.join(leading + [cpp_parameter(a) for a in arguments])})"


def kernel_call(kernel, arguments, present):
    """The C++ kernel's call on the views of the `present` arguments (an optional array may be absent)."""
    named = by_name(cpp_arguments(kernel))
    terms = kernel.call or [a.name for a in kernel.parameters() if not isinstance(a, MatrixShape)] + (
        list(SHAPE_SETTINGS) if any(isinstance(a, (MatrixShape, SparseMatrix)) for a in kernel.parameters()) else [])
    expanded = []
    for term in terms:
        argument = named.get(term)
        if argument is None and any(isinstance(a, SparseMatrix) and a.name == term for a in kernel.parameters()):
            expanded += [f"{cpp_name(a.name)}_view" for a in sparse_arrays(SparseMatrix(term))]
        elif isinstance(argument, (Array, Operand)):
            if any(argument is a for a in present):
                expanded.append(f"{cpp_name(term)}_view")
        else:
            expanded.append(term)  # a setting, or a C++ expression of the settings
    return f"{kernel.cpp_function}({', '.join(expanded)})"


def run_statement(kernel, returned, arguments, present):
    """The run_kernel call. Its lambda takes the settings by value: a graph keeps it for its replays."""
    views = [a for a in present if isinstance(a, (Array, Operand))]
    parameters = ", ".join(f"auto& {cpp_name(a.name)}_view" for a in views)
    call = kernel_call(kernel, arguments, present)
    if returned == "double":
        lambda_ = f"[=]({parameters}) -> double {{ return {call}; }}"
    elif kernel.returns == "sparse_matrix":
        lambda_ = (f"[=]({parameters}) {{\n    auto c = {call};\n"
                   f"    return std::vector<Buffer>{{c.indptr.buffer(), c.indices.buffer(), c.data.buffer()}};\n  }}")
    else:
        lambda_ = f"[=]({parameters}) {{ {call}; }}"
    index = ", index" if kernel.indexed() else ""
    specs = ", ".join(run_spec(a) for a in views)
    head = "return " if returned != "void" else ""
    return f"{head}run_kernel(kernel, type{index}, {lambda_}, {specs});"


def entry_definition(kernel, name, returned, arguments):
    views = [a for a in arguments if isinstance(a, (Array, Operand))]
    optional = [a for a in views if isinstance(a, Array) and a.optional and not a.result]
    assert len(optional) <= 1, f"{kernel.name}: one optional array at most"
    if optional:
        missing = optional[0]
        body = (f"if ({cpp_name(missing.name)}) {{\n"
                f"{textwrap.indent(run_statement(kernel, returned, arguments, views), '  ')}\n}} else {{\n"
                f"{textwrap.indent(run_statement(kernel, returned, arguments, [a for a in views if a is not missing]), '  ')}"
                f"\n}}")
    else:
        body = run_statement(kernel, returned, arguments, views)
    body = with_rank(ranked(views), body, returns=returned != "void", dereference=True)
    checks = ""
    result = kernel.result_argument()
    if kernel.result_checked_first:
        shape_arguments = ", ".join(f"*{cpp_name(a.name)}" if isinstance(a, Array) else
                                    (", ".join(SHAPE_SETTINGS) if isinstance(a, MatrixShape) else a.name)
                                    for a in shape_parameters(kernel))
        checks = (f"  kernels::detail::require_result_extents(kernel, \"{result.name}\", "
                  f"extents<{result.rank}>(kernel, \"{result.name}\", *{cpp_name(result.name)}), "
                  f"{kernel.name}_shape({shape_arguments}));\n")
    return (f"{entry_declaration(kernel, name, returned, arguments)} {{\n"
            f"  constexpr const char* kernel = \"{kernel.name}\";\n{checks}{textwrap.indent(body, '  ')}\n}}\n")


def entries_header():
    lines = ["// Generated by schema/generate.py from schema/kernels.py: lapis.kernels's C++ entry points.",
             "#pragma once", "", "#include <cstdint>", "#include <vector>", "", '#include "kernels_bridge.hpp"', "",
             "namespace lapis::python {", ""]
    for kernel in KERNELS:
        if kernel.shape:
            lines.append(shape_declaration(kernel) + ";")
        for variant in entry_variants(kernel):
            lines.append(entry_declaration(kernel, *variant) + ";")
    return "\n".join(lines + ["", "}  // namespace lapis::python", ""])


def entries_source():
    parts = ["// Generated by schema/generate.py from schema/kernels.py: lapis.kernels's C++ entry points.",
             '#include "kernel_entries.hpp"', "", '#include "kernel_entry_call.hpp"', "",
             "namespace lapis::python {", "", "using namespace entry;", ""]
    for kernel in KERNELS:
        if kernel.shape:
            parts.append(shape_definition(kernel))
        for variant in entry_variants(kernel):
            parts.append(entry_definition(kernel, *variant))
    return "\n".join(parts + ["}  // namespace lapis::python", ""])


# -- the Cython declarations ----------------------------------------------------------------------------------

def cython_parameters(arguments, buffer_type):
    types = []
    for argument in arguments:
        if isinstance(argument, Array):
            types.append(buffer_type)
        elif isinstance(argument, Operand):
            types.append("const OperandArg&")
        elif isinstance(argument, Integer):
            types.append("int64_t")
        elif isinstance(argument, Number):
            types.append("double")
        else:
            types += ["int64_t", "int64_t"]
    return types


def declarations():
    lines = ["# Generated by schema/generate.py from schema/kernels.py: the C++ entry points of lapis.kernels.",
             'cdef extern from "kernel_entries.hpp" namespace "lapis::python" nogil:']
    cython_return = {"void": "void", "double": "double", "std::vector<Buffer>": "vector[Buffer]"}
    for kernel in KERNELS:
        if kernel.shape:
            parameters = ", ".join(cython_parameters(shape_parameters(kernel), "const AnyDualBuffer&"))
            lines.append(f'    vector[int64_t] k_{kernel.name}_shape "lapis::python::{kernel.name}_shape"({parameters}) '
                         "except +raise_lapis_error")
        for name, returned, arguments in entry_variants(kernel):
            leading = ["ElementType"] * (2 if kernel.indexed() else 1)
            parameters = ", ".join(leading + cython_parameters(arguments, "const Buffer&"))
            lines.append(f'    {cython_return[returned]} k_{name} "lapis::python::{name}"({parameters}) '
                         "except +raise_lapis_error")
    return "\n".join(lines) + "\n"


# -- the Python functions -------------------------------------------------------------------------------------


def local(name):
    return cpp_name(name) + "_"


def python_default(kernel, argument):
    """An argument's default in the Python signature, or None for none. With csr_form every argument
    but the first may be left out: f(A, x) stands for the arrays and the shape."""
    if kernel.csr_form and argument is not kernel.parameters()[0] and not isinstance(argument, (Integer, Number)):
        return "None"
    if isinstance(argument, Array) and argument.optional:
        return "None"
    if isinstance(argument, (Integer, Number)) and argument.default is not None:
        return repr(argument.default)
    return None


def python_signature(kernel):
    parts = []
    for argument in kernel.arguments:
        default = None if argument == KEYWORD_ONLY else python_default(kernel, argument)
        name = "*" if argument == KEYWORD_ONLY else argument.name
        parts.append(name if default is None else f"{name}={default}")
    return f"{kernel.name}({', '.join(parts)})"


def docstring(kernel, indent="    "):
    wrapped = textwrap.fill(kernel.doc, width=100 - len(indent) - 3, initial_indent=indent + '"""',
                            subsequent_indent=indent)
    return wrapped + '"""'


def take_arrays(kernel, arrays):
    lines = []
    for argument in arrays:
        name = argument.name
        if isinstance(argument, Operand):
            lines.append(f'{local(name)} = call.operand("{name}", {name})')
        elif argument.optional:
            lines.append(f'{local(name)} = None if {name} is None else call.input("{name}", {name})')
        elif argument.written:
            lines.append(f'{local(name)} = call.written("{name}", {name})')
        else:
            lines.append(f'{local(name)} = call.input("{name}", {name})')
    return lines


def csr_form_lines(kernel, arrays):
    """spmv(A, x): the arrays before the vector and the shape from a CSRMatrix."""
    parts, vector = arrays[:3], arrays[3]
    assert [a.name for a in parts] == ["indptr", "indices", "data"], kernel.name
    taken = ", ".join(f'call.input("{a.name}", matrix.{a.name})' for a in parts)
    return [
        "if isinstance(indptr, CSRMatrix):",
        "    matrix = <CSRMatrix>indptr",
        f"    vector = {vector.name} if indices is None else indices",
        f"    if data is not None or shape is not None or vector is None or (indices is not None and "
        f"{vector.name} is not None):",
        f'        raise TypeError("{kernel.name}: with a CSRMatrix, call {kernel.name}(A, {vector.name}) '
        f"(its shape is A's)\")",
        f"    {', '.join(local(a.name) for a in parts)} = {taken}",
        "    shape_rows, shape_columns = matrix.shape",
        f'    {local(vector.name)} = call.input("{vector.name}", vector)',
        "else:",
        "    if shape is None:",
        f'        raise ValueError("{kernel.name}: shape=(rows, columns) is required with the CSR arrays")',
        f'    shape_rows, shape_columns = _matrix_shape("{kernel.name}", shape)',
    ] + ["    " + line for line in take_arrays(kernel, arrays)]


def python_terms(arguments, array_term):
    """The Python wrapper's values of `arguments`, as a C++ function takes them; array_term(argument)
    gives an array's."""
    terms = []
    for argument in arguments:
        if isinstance(argument, Array):
            terms.append(array_term(argument))
        elif isinstance(argument, Operand):
            terms.append(f"{argument.name}_arg")
        elif isinstance(argument, MatrixShape):
            terms += list(SHAPE_SETTINGS)
        else:
            terms.append(local(argument.name))
    return terms


def python_shape_arguments(kernel):
    return ", ".join(python_terms(shape_parameters(kernel), lambda a: f"{local(a.name)}._buffer()[0]"))


def entry_arguments(kernel, arguments):
    def buffer(argument):
        optional = argument.optional and not argument.result
        return f"{cpp_name(argument.name)}_buffer" if optional else f"{local(argument.name)}.buffer"

    leading = ["values_type"] + (["index_type"] if kernel.indexed() else [])
    return ", ".join(leading + python_terms(arguments, buffer))


def wrapper(kernel):
    parameters = kernel.parameters()
    arrays = [a for a in parameters if isinstance(a, (Array, Operand)) and not getattr(a, "result", False)]
    matrices = [a for a in parameters if isinstance(a, SparseMatrix)]
    result = kernel.result_argument()
    operands = any(isinstance(a, Operand) for a in parameters)
    updates = any(isinstance(a, Array) and a.written and not a.result for a in parameters)
    body = []
    if matrices:
        names = [m.name for m in matrices]
        body += [f"cdef CSRMatrix {local(n)} = {n} if isinstance({n}, CSRMatrix) else CSRMatrix({n})" for n in names]
        body += [f"if {local(names[0])}.shape != {local(names[1])}.shape:",
                 f'    raise ValueError(f"{kernel.name}: shapes {{{local(names[0])}.shape}} and '
                 f'{{{local(names[1])}.shape}} differ")']
    out = result.name if result is not None else "None"
    body.append(f'cdef _Call call = _Call("{kernel.name}", {out}{", updates=True" if updates else ""})')
    typed = "_Operand" if operands else "DualView"
    if arrays:
        body.append(f"cdef {typed} {', '.join(local(a.name) for a in arrays)}")
    for matrix in matrices:
        views = ", ".join(f"{local(a.name)} = {local(matrix.name)}.{a.name.split('.')[1]}" for a in sparse_arrays(matrix))
        body.append(f"cdef DualView {views}")
    shaped = any(isinstance(a, MatrixShape) for a in parameters)
    if shaped or matrices:
        body.append("cdef int64_t shape_rows, shape_columns")
    if kernel.csr_form:
        body += csr_form_lines(kernel, arrays)
    else:
        if shaped:
            body.append(f'shape_rows, shape_columns = _matrix_shape("{kernel.name}", shape)')
        if matrices:
            body.append(f"shape_rows, shape_columns = {local(matrices[0].name)}.shape")
        body += take_arrays(kernel, arrays)
    for argument in parameters:
        if isinstance(argument, Integer):
            body.append(f'cdef int64_t {local(argument.name)} = _int_setting("{kernel.name}", "{argument.name}", '
                        f"{argument.name})")
        elif isinstance(argument, Number):
            body.append(f'cdef double {local(argument.name)} = _number_setting("{kernel.name}", "{argument.name}", '
                        f"{argument.name})")
    every_array = [a for a in cpp_arguments(kernel) if isinstance(a, Array) and not a.result]
    index_arrays = [a for a in every_array if a.group == INDICES]
    value_arrays = [a for a in every_array if a.group == VALUES]
    if index_arrays:
        listed = ", ".join(f'("{a.name}", {local(a.name)})' for a in index_arrays)
        body.append(f"cdef ElementType index_type = call.index([{listed}])")
    if operands:
        listed = ", ".join(f'("{a.name}", {local(a.name)})' for a in arrays)
        body.append(f"cdef ElementType values_type = call.operand_scalar([{listed}])")
        body.append(f"cdef OperandArg {', '.join(f'{a.name}_arg = {local(a.name)}.arg()' for a in arrays)}")
        dtype = "_DTYPES[values_type]"
    else:
        required = [a for a in value_arrays if not a.optional]
        if len(value_arrays) == 2 and not any(a.optional for a in value_arrays):
            a, b = value_arrays
            body.append(f'cdef ElementType values_type = call.scalar_of_two("{a.name}", {local(a.name)}, '
                        f'"{b.name}", {local(b.name)})')
        else:
            listed = "[" + ", ".join(f'("{a.name}", {local(a.name)})' for a in required) + "]" + "".join(
                f' + ([] if {local(a.name)} is None else [("{a.name}", {local(a.name)})])'
                for a in value_arrays if a.optional)
            body.append(f"cdef ElementType values_type = call.scalar({listed})")
        dtype = f"{local(required[0].name)}.dtype"
    for argument in every_array:
        if argument.optional:
            body += [f"cdef Buffer {cpp_name(argument.name)}_buffer",
                     f"if {local(argument.name)} is not None:",
                     f"    {cpp_name(argument.name)}_buffer = {local(argument.name)}.buffer"]
    if kernel.returns == "number_or_result":
        without = entry_variants(kernel)[0][2]
        body += ["cdef double number", f"if {result.name} is None:", "    with nogil:",
                 f"        number = k_{kernel.name}({entry_arguments(kernel, without)})",
                 "    call.done()", "    return number"]
    if result is not None:
        shape = f"k_{kernel.name}_shape({python_shape_arguments(kernel)})" if kernel.shape else "[]"
        in_place = "True" if result.role != "writes" else "False"
        body.append(f'cdef DualView {local(result.name)} = call.output({shape}, {dtype}, {in_place}, "{result.name}")')
    name, returned, arguments = entry_variants(kernel)[-1]
    if kernel.returns == "sparse_matrix":
        body += ["cdef vector[Buffer] c", "with nogil:", f"    c = k_{name}({entry_arguments(kernel, arguments)})",
                 f"return CSRMatrix((wrap(c[2], None), wrap(c[1], None), wrap(c[0], None)), "
                 f"shape={local(matrices[0].name)}.shape)"]
    else:
        body += ["with nogil:", f"    k_{name}({entry_arguments(kernel, arguments)})"]
        if result is not None:
            body.append(f"return call.finish({local(result.name)})")
        else:
            body += ["call.done()", f"return {local(kernel.returns)}"]
    return f"def {python_signature(kernel)}:\n{docstring(kernel)}\n" + textwrap.indent("\n".join(body), "    ") + "\n"


def wrappers():
    names = sorted(["CSRMatrix"] + [k.name for k in KERNELS])
    listed = textwrap.fill(", ".join(f'"{n}"' for n in names), width=96, subsequent_indent="           ")
    head = ("# Generated by schema/generate.py from schema/kernels.py: the functions of lapis.kernels.\n\n"
            f"__all__ = [{listed}]\n")
    return "\n\n".join([head] + [wrapper(k) for k in KERNELS])


# -- the type stubs -------------------------------------------------------------------------------------------


def stub_type(kernel, argument):
    if isinstance(argument, Operand):
        return "_ScalarOrArray"
    if isinstance(argument, Integer):
        return "_Int"
    if isinstance(argument, Number):
        return "_Number"
    if isinstance(argument, MatrixShape):
        return "_MatrixShape"
    if isinstance(argument, SparseMatrix):
        return "CSRMatrix | _SupportsToCSR"
    if argument.written and not argument.result:
        return "DualView"
    return "_ArrayArg | None" if argument.optional else "_ArrayArg"


def stub_parameter(kernel, argument, with_default=True):
    annotation = stub_type(kernel, argument)
    default = None
    if isinstance(argument, Array) and argument.optional:
        default = "None"
    elif isinstance(argument, (Integer, Number)) and argument.default is not None:
        default = repr(argument.default)
    if default is None or not with_default:
        return f"{argument.name}: {annotation}"
    return f"{argument.name}: {annotation} = {default}"


def stub(kernel):
    result = kernel.result_argument()
    returned = {"number_or_result": "float", "sparse_matrix": "CSRMatrix"}.get(kernel.returns, "DualView")

    def signature(parameters, result_text, returns, defaults=True):
        listed = [p if isinstance(p, str) else stub_parameter(kernel, p, defaults) for p in parameters]
        if result_text is not None:
            listed.append(result_text)
        return f"def {kernel.name}({', '.join(listed)}) -> {returns}: ..."

    before = [("*" if a == KEYWORD_ONLY else a) for a in kernel.arguments if a is not result]
    if result is None:
        return signature(before, None, returned) + "\n"
    if not result.optional:
        return signature(before, f"{result.name}: _OutT", "_OutT") + "\n"
    if kernel.csr_form:
        return csr_form_stubs(kernel, returned)
    overloads = [signature(before, f"{result.name}: None = None", returned)]
    defaulted = any(isinstance(a, (Integer, Number)) and a.default is not None for a in before)
    if defaulted and "*" not in before:
        overloads.append(signature(before, f"{result.name}: _OutT", "_OutT", defaults=False))
        overloads.append(signature(before + ["*"], f"{result.name}: _OutT", "_OutT"))
    else:
        overloads.append(signature(before, f"{result.name}: _OutT", "_OutT"))
    return "".join(f"@overload\n{o}\n" for o in overloads)


def csr_form_stubs(kernel, returned):
    """f(A, x) with x in the second place or as x=, and f(indptr, indices, data, x, shape=...)."""
    vector = [a for a in kernel.arrays() if not a.result][3].name
    forms = [f"indptr: CSRMatrix, indices: _ArrayArg, data: None = None, {vector}: None = None, *, "
             f"shape: None = None",
             f"indptr: CSRMatrix, indices: None = None, data: None = None, *, {vector}: _ArrayArg, "
             f"shape: None = None",
             f"indptr: _ArrayArg, indices: _ArrayArg, data: _ArrayArg, {vector}: _ArrayArg, *, shape: _MatrixShape"]
    stubs = []
    for form in forms:
        stubs.append(f"@overload\ndef {kernel.name}({form}, out: None = None) -> {returned}: ...\n")
        stubs.append(f"@overload\ndef {kernel.name}({form}, out: _OutT) -> _OutT: ...\n")
    return "".join(stubs)


def stubs(template):
    names = sorted(["CSRMatrix"] + [k.name for k in KERNELS])
    listed = "__all__ = [\n" + "".join(f'    "{n}",\n' for n in names) + "]"
    return template.replace("@ALL@", listed).replace("@KERNELS@", "".join(stub(k) for k in KERNELS).rstrip("\n"))


def main(output, template):
    output = pathlib.Path(output)
    files = {"kernel_entries.hpp": entries_header(), "kernel_entries.cpp": entries_source(),
             "kernel_declarations.pxi": declarations(), "kernel_wrappers.pxi": wrappers(),
             "kernels.pyi": stubs(pathlib.Path(template).read_text())}
    for name, text in files.items():
        path = output / name
        if not path.exists() or path.read_text() != text:  # unchanged files keep their time: nothing rebuilds
            path.write_text(text)


if __name__ == "__main__":
    main(*sys.argv[1:])
