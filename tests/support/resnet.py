"""The numpy network of examples/_resnet.py (NumpyOps): the reference for the layer kernels."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent.parent / "examples"))
from _resnet import NumpyOps  # noqa: E402,F401
