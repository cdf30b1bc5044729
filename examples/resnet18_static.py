"""ResNet-18 inference with a static batch: three batches of 2 images (size given on the command
line, default 64) through the same generated weights. The weights go up once; per inference the
images go up once and the logits come down once; every intermediate stays on the device and is
freed as soon as it is dead. Checked against the same network in numpy. Usage: resnet18_static.py
[image_size]."""
import sys

from _example import main
from _resnet import run

main(lambda: run("resnet18_static", [2, 2, 2], int(sys.argv[1]) if len(sys.argv) > 1 else 64))
