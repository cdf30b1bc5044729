"""Sphinx configuration of lapis-dualview's documentation site.

Build it with `python -m sphinx -W --keep-going -b html docs build/docs` (tests/test_docs.py does, with
warnings as errors). The pages are Markdown, read by myst-parser; the Python API reference is generated
by autodoc from the docstrings of the installed `lapis` package, so install lapis first.
"""
import os
import re
from importlib.metadata import version as _installed_version

project = "lapis-dualview"
author = "the lapis-dualview developers"
copyright = "2026, the lapis-dualview developers"
# The installed distribution's version (meson.build's), the lapis whose docstrings autodoc reads.
release = version = _installed_version("lapis-dualview")

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# Headings become link targets (`page.md#heading`) down to the third level.
myst_heading_anchors = 3

# Members are listed as the source orders them, documented or not (a Cython property may have no
# docstring); a Cython function's signature is its docstring's first line (embedsignature).
autodoc_member_order = "bysource"
autodoc_default_options = {"undoc-members": True}

html_theme = "alabaster"
html_title = "lapis-dualview"

# autodoc reads the compiled modules themselves, whose docstrings are the documentation, never the
# type stubs beside them (newer Sphinx versions document a native module's .pyi instead).
os.environ["SPHINX_AUTODOC_IGNORE_NATIVE_MODULE_TYPE_STUBS"] = "1"

# The docstrings are written for help(): `code` in single backquotes, examples indented by four
# spaces, keyword-only markers (`*,`) in signature lines.
default_role = "code"


def _plain_text_docstring(app, what, name, obj, options, lines):
    """Reads a help()-style docstring as reStructuredText: a block indented by four spaces after a
    blank line is an example, shown as a literal block, and a lone `*` among parameters is a star."""
    out = []
    in_example = False
    for line in lines:
        indented = line.startswith("    ") and line.strip()
        if indented and not in_example and len(out) > 1 and not out[-1].strip():
            if not out[-2].rstrip().endswith("::"):
                out[-1:] = ["", "::", ""]
            in_example = True
        elif in_example and line.strip() and not line.startswith("    "):
            out.append("")
            in_example = False
        out.append(line if in_example else _LONE_STAR.sub(r"\\*", line))
    lines[:] = out


_LONE_STAR = re.compile(r"(?<=[(, ])\*(?=[,)])")


def setup(app):
    app.connect("autodoc-process-docstring", _plain_text_docstring)
