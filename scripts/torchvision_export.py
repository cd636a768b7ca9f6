#!/usr/bin/python3
"""Export one model of the issue-28 torchvision table (scripts/torchvision_table.py) to ONNX.

Usage: /usr/bin/python3 scripts/torchvision_export.py NAME VARIANT OPSET OUTDIR
Same arguments, perturbation, export modes and OUTDIR/export_log.jsonl line as
../shared/models/export_torchvision.py, whose code this runs unchanged: its text is executed
in two parts, and between them its build(NAME) gets two more models it does not know:
  deeplabv3_resnet50 -> torchvision.models.segmentation.deeplabv3_resnet50(weights=None,
                        weights_backbone=None), input 1x3x224x224
  r3d_18 (and mc3_18, r2plus1d_18) -> torchvision.models.video.*(weights=None),
                        input 1x3x16x112x112 (N, C, frames, H, W: the video models' clip size)
  maskrcnn_resnet50_fpn, retinanet_resnet50_fpn -> torchvision.models.detection.*(weights=None,
                        weights_backbone=None, min_size=320, max_size=320), input one 3x320x320
                        image (the model's transform batches it to 1x3x320x320), as the shared
                        script exports fasterrcnn_mobilenet_v3_large_320_fpn
Every other NAME goes to the shared build() as it is. Needs Debian's python3-torch,
python3-torchvision and python3-onnx; exits 1 naming the file when the shared script is
missing or no longer has the line this splits at."""
import os
import sys

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "models",
                      "export_torchvision.py")
SPLIT = "\nrec = {"  # the first line after build(): the export itself starts here


def extra_build(shared_build):
    """build(name) -> (module, example args): the builders above, else shared_build."""
    import torch
    import torchvision

    def build(name):
        if name == "deeplabv3_resnet50":
            m = torchvision.models.segmentation.deeplabv3_resnet50(weights=None,
                                                                   weights_backbone=None)
            return m, (torch.randn(1, 3, 224, 224),)
        if name in ("r3d_18", "mc3_18", "r2plus1d_18"):
            m = getattr(torchvision.models.video, name)(weights=None)
            return m, (torch.randn(1, 3, 16, 112, 112),)
        if name in ("maskrcnn_resnet50_fpn", "retinanet_resnet50_fpn"):
            m = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None,
                                                            min_size=320, max_size=320)
            return m, ([torch.rand(3, 320, 320)],)
        return shared_build(name)
    return build


def main():
    path = os.path.normpath(SHARED)
    if not os.path.isfile(path):
        sys.exit(f"{path}: error: the shared exporter is missing (this script runs its code); "
                 "check that /work/shared (../shared from the repository) is there")
    text = open(path).read()
    head, sep, tail = text.partition(SPLIT)
    if not sep:
        sys.exit(f"{path}: error: no line starting with 'rec = {{' after build(); this wrapper "
                 "splits the script there to add its builders -- update SPLIT in " + __file__)
    ns = {"__name__": "__export__", "__file__": path}
    exec(compile(head, path, "exec"), ns)
    ns["build"] = extra_build(ns["build"])
    exec(compile("\n" * head.count("\n") + sep.lstrip("\n") + tail, path, "exec"), ns)


if __name__ == "__main__":
    main()
