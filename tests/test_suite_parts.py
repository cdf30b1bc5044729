"""The parts of the test suite that the scripts select by marker (conftest.py's SUITE_PARTS) name
tests that exist: a renamed or moved test would otherwise leave its part silently, and a sanitizer
run would select it or lose it without a word."""
import pathlib
import re

import conftest

TESTS = pathlib.Path(conftest.__file__).parent
MARKERS = (TESTS.parent / "pyproject.toml").read_text()


def test_every_entry_names_a_test_that_exists():
    for part, entries in conftest.SUITE_PARTS.items():
        for entry in entries:
            file, _, name = entry.partition("::")
            assert (TESTS / file).is_file(), f"{part}: {file} does not exist"
            if name:
                assert re.search(rf"^def {name}\(", (TESTS / file).read_text(), re.MULTILINE), f"{part}: {entry}"
    for file in conftest.THREAD_TEST_FILES:
        assert re.search(r"^def test_\w*(threads|finalize)", (TESTS / file).read_text(), re.MULTILINE), file


def test_every_part_is_a_registered_marker():
    for part in list(conftest.SUITE_PARTS) + ["threads"]:
        assert f'"{part}: ' in MARKERS, part
