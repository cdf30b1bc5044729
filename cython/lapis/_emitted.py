"""Reading C++ as LAPIS's Kokkos emitter writes it: its top-level statements, the support header it
pastes, the functions it declares and the py_<f> entry points it writes (--py).

The emitter's fixed shapes are what is relied on (mlir/lib/Target/KokkosCpp/TranslateToKokkosCpp.cpp):
- the declarations' section (the --hpp header between `#ifndef LAPIS_MODULE_H`/`#define LAPIS_MODULE_H`
  and `#endif`, or the top of the .cpp without --hpp) starts with the pasted support header, whose
  first line is `#include <Kokkos_Core.hpp>` and whose last top-level construct is `namespace LAPIS
  { ... }`; the emitter itself never opens that namespace;
- each function the module defines is declared there at file scope, one declaration a function,
  with no `template`, `extern` or `static` before it (sparse runtime functions, lapis_initialize and
  lapis_finalize are `extern "C"`); team-level functions are templates, defined in the header;
- with --py, each function f has an `extern "C" void py_f(...)` definition.
Comments, string and character literals (raw strings too) and preprocessor lines are skipped while
reading, so none of them can be mistaken for code."""
from __future__ import annotations

import dataclasses
import re

__all__ = ["AdaptError", "Declaration", "EmittedFile"]


class AdaptError(ValueError):
    """A module that cannot be adapted: names the file, the line and the construct."""


@dataclasses.dataclass(frozen=True)
class Token:
    text: str
    line: int
    start: int  # offset in the file's text
    end: int


@dataclasses.dataclass(frozen=True)
class Declaration:
    """A function the module declares: the name Python calls it by, and where it is declared."""
    name: str
    path: str
    line: int


_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>(?:u8|[uUL])?R"(?P<delimiter>[^()\\\s]{0,16})\()
  | (?P<string>(?:u8|[uUL])?"(?:\\.|[^"\\\n])*")
  | (?P<char>(?:u8|[uUL])?'(?:\\.|[^'\\\n])+')
  | (?P<word>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[\w.']|[eEpP][+-])*)
  | (?P<punct>::|->|<<=|>>=|[-+*/%&|^!=<>]=|&&|\|\||\+\+|--|[^\s\w])
""", re.S | re.X)
_DIRECTIVE = re.compile(r"#(?:[^\n\\/]|\\.|/(?![/*]))*", re.S)  # to the line's end or a comment


def _tokens(text: str, path: str) -> list[Token]:
    """The file's tokens; a preprocessor line is one token (its whole text, continuations included)."""
    tokens: list[Token] = []
    position, line = 0, 1
    while position < len(text):
        if text[position] == "#" and not text[text.rfind("\n", 0, position) + 1:position].strip():
            directive = _DIRECTIVE.match(text, position)
            assert directive is not None
            tokens.append(Token(directive.group().strip(), line, position, directive.end()))
            line += directive.group().count("\n")
            position = directive.end()
            continue
        match = _TOKEN.match(text, position)
        if match is None:
            raise AdaptError(f"{path}:{line}: cannot read {text[position:position + 20]!r}")
        kind = match.lastgroup
        end = match.end()
        if kind == "raw":
            close = text.find(")" + match.group("delimiter") + '"', end)
            if close < 0:
                raise AdaptError(f"{path}:{line}: a raw string literal that never ends")
            end = close + len(match.group("delimiter")) + 2
        if kind not in ("space", "comment"):
            tokens.append(Token(text[position:end], line, position, end))
        line += text.count("\n", position, end)
        position = end
    return tokens


@dataclasses.dataclass
class Statement:
    """A top-level construct: its tokens, and whether it has a body in braces (a block)."""
    tokens: list[Token]
    block: bool

    @property
    def line(self) -> int:
        return self.tokens[0].line

    def words(self) -> list[str]:
        return [token.text for token in self.tokens]


_CLOSING = {"(": ")", "[": "]", "{": "}"}


def _statements(tokens: list[Token], path: str) -> list[Statement]:
    """The file's top-level constructs: declarations (ending in ';'), blocks (a function's, a
    namespace's, an extern "C" block's; a struct's with its ';') and preprocessor lines."""
    statements: list[Statement] = []
    current: list[Token] = []
    opened: list[Token] = []  # the brackets open at this point
    for token in tokens:
        if token.text.startswith("#") and not opened:
            if current:
                raise AdaptError(f"{path}:{token.line}: a preprocessor line inside the declaration that starts "
                                 f"at line {current[0].line}")
            statements.append(Statement([token], False))
            continue
        current.append(token)
        if token.text in _CLOSING:
            opened.append(token)
        elif token.text in (")", "]", "}"):
            if not opened or _CLOSING[opened[-1].text] != token.text:
                raise AdaptError(f"{path}:{token.line}: syntax error: '{token.text}' closes nothing"
                                 + (f" ('{opened[-1].text}' opened at line {opened[-1].line})" if opened else ""))
            bracket = opened.pop()
            initializer = current[current.index(bracket) - 1].text == "=" if current[0] is not bracket else False
            if token.text == "}" and not opened and not initializer:
                if current[0].text not in ("struct", "class", "union", "enum"):
                    statements.append(Statement(current, True))
                    current = []
        elif token.text == ";" and not opened:
            statements.append(Statement(current, current[-2].text == "}" if len(current) > 1 else False))
            current = []
    if opened:
        raise AdaptError(f"{path}:{opened[-1].line}: syntax error: '{opened[-1].text}' is never closed")
    if current:
        raise AdaptError(f"{path}:{current[0].line}: syntax error: the declaration that starts here never ends "
                         "(no ';')")
    return statements


_NOT_EXPORTED = {"template", "extern", "static", "typedef", "using", "struct", "class", "union", "enum",
                 "namespace", "friend", "inline", "constexpr", "static_assert"}


class EmittedFile:
    """One file of a module: its text, its top-level statements, the pasted support header if it
    holds one, and the functions it declares."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.statements = _statements(_tokens(text, path), path)

    def includes(self) -> list[tuple[str, int]]:
        """The files it includes with quotes ("gemm.hpp"), and the line of each."""
        found = []
        for statement in self.statements:
            match = re.fullmatch(r'#\s*include\s*"([^"]+)"', statement.tokens[0].text)
            if match and len(statement.tokens) == 1:
                found.append((match.group(1), statement.line))
        return found

    def pasted_header(self) -> tuple[int, int] | None:
        """The offsets [start, end) of the pasted support header, or None where there is none: from
        the first construct of the declarations' section through the last top-level `namespace
        LAPIS { ... }` block."""
        last = None
        for index, statement in enumerate(self.statements):
            if statement.block and statement.words()[:3] == ["namespace", "LAPIS", "{"]:
                last = index
        if last is None:
            return None
        first = 0
        words = [s.words()[0] for s in self.statements[:2]]
        if (len(words) == 2 and re.fullmatch(r"#\s*ifndef\s+LAPIS_MODULE_H", words[0])
                and re.fullmatch(r"#\s*define\s+LAPIS_MODULE_H", words[1])):
            first = 2
        opening = self.statements[first].tokens[0]
        if not re.fullmatch(r"#\s*include\s*<Kokkos_Core\.hpp>", opening.text):
            raise AdaptError(f"{self.path}:{opening.line}: the pasted support header starts with "
                             f"#include <Kokkos_Core.hpp>, not {opening.text!r}: is this the emitter's output?")
        return opening.start, self.statements[last].tokens[-1].end

    def declarations(self) -> list[Declaration]:
        """The functions it declares (not defines) at file scope that Python can call."""
        found = []
        for statement in self.statements:
            words = statement.words()
            if statement.block or words[0].startswith("#") or words[0] in _NOT_EXPORTED or "(" not in words:
                continue
            name_at = words.index("(") - 1
            if name_at < 1 or "=" in words[:name_at] or not re.fullmatch(r"[A-Za-z_]\w*", words[name_at]) \
                    or words[name_at - 1] == "operator":
                continue
            found.append(Declaration(words[name_at], self.path, statement.tokens[name_at].line))
        return found

    def py_entry_points(self) -> list[tuple[str, int]]:
        """The functions f whose `extern "C" void py_f(...)` it defines, and the line of each."""
        found = []
        for statement in self.statements:
            words = statement.words()
            if statement.block and words[:3] == ["extern", '"C"', "void"] and words[3].startswith("py_"):
                found.append((words[3][3:], statement.tokens[3].line))
        return found
