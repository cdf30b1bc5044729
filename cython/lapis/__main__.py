"""python -m lapis --includes | --pkgconfigdir: compiler flags for lapis's C++ headers, and the
folder of its pkg-config file (lapis-dualview.pc), for C++ and Cython projects that build on it."""
import argparse
import os

import lapis


def main():
    parser = argparse.ArgumentParser(prog="python -m lapis", description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--includes", action="store_true", help="print -I flags for the C++ headers")
    group.add_argument("--pkgconfigdir", action="store_true", help="print the folder holding lapis-dualview.pc")
    args = parser.parse_args()
    if args.includes:
        print(f"-I{lapis.get_include()}")
    else:
        print(os.path.join(os.path.dirname(lapis.__file__), "lib", "pkgconfig"))


if __name__ == "__main__":
    main()
