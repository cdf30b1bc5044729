"""ResNet-18 inference with a dynamic batch: batches of 1, 3 and 2 images (size given on the command
line, default 64) through one set of generated weights, uploaded once; each inference moves its
images up and its logits down, nothing else. Checked against the same network in numpy. Usage:
resnet18_dynamic.py [image_size]."""
import sys

from _example import main
from _resnet import run

main(lambda: run("resnet18_dynamic", [1, 3, 2], int(sys.argv[1]) if len(sys.argv) > 1 else 64))
