"""Run the PyTorch half of every lesson on a machine with PyTorch and CUDA but no TensorFlow.

A GPU machine lent for a short check (see CONTRIBUTING) has PyTorch with CUDA and no TensorFlow,
so the lessons cannot run whole there. This runs each script statement by statement: a statement
that needs TensorFlow (the import, or a name that only a skipped statement would have defined)
is skipped, everything else runs on the GPU. Any other error is a finding: PyTorch code that
works on a CPU and not on a GPU (a ``.numpy()`` on a CUDA tensor, tensors on two devices, ...).

    python tools/torch_on_cuda.py --hide-tensorflow --out cpu   # first, here, on a CPU
    python tools/torch_on_cuda.py --baseline cpu/torch_on_cuda.json --out $OUT   # on the GPU

prints, per lesson, how many statements ran, were skipped for TensorFlow, or failed, and writes
``torch_on_cuda.json`` to ``--out``. Some statements fail on any machine without TensorFlow (a
value a skipped loop should have filled in): with ``--baseline``, the CPU rehearsal's run, only
failures the CPU did not have are findings. It also checks the package's own GPU paths
(:func:`package_checks`).
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import json
import os
import subprocess
import sys
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEEDS_TF = ("tensorflow", "keras", "FrameworkError")


def _statements(tree: ast.Module) -> list[ast.stmt]:
    """Top-level statements, with ``import a, b`` and ``x, y = f(), g()`` split in parts, so that
    ``torch_device, tf_device = sidebyside.torch_device(), sidebyside.tf_device()`` keeps its
    PyTorch half."""
    parts: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.Import) and len(node.names) > 1:
            parts += [ast.copy_location(ast.Import(names=[alias]), node) for alias in node.names]
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Tuple) and isinstance(node.value, ast.Tuple)
              and len(node.targets[0].elts) == len(node.value.elts)):
            parts += [ast.copy_location(ast.Assign(targets=[t], value=v), node)
                      for t, v in zip(node.targets[0].elts, node.value.elts, strict=True)]
        else:
            parts.append(node)
    return parts


def run_lesson(path: Path) -> dict:
    """Run one lesson statement by statement (in this process: call through ``main``)."""
    import matplotlib

    matplotlib.use("Agg")
    source = path.read_text(encoding="utf-8")
    lesson = types.ModuleType("__main__")  # a real module: Dynamo's guards look names up in it
    lesson.__file__ = str(path)
    sys.modules["__main__"] = lesson
    namespace = lesson.__dict__
    counts = {"ran": 0, "needs TensorFlow": 0, "failed": 0}
    failures = []
    os.chdir(path.parent)
    for node in _statements(ast.parse(source, str(path))):
        code = compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec")
        try:
            exec(code, namespace)  # noqa: S102 - the lesson's own code
            counts["ran"] += 1
        except BaseException as error:  # noqa: BLE001 - every outcome is reported
            text = "".join(traceback.format_exception(error))
            if isinstance(error, NameError | ModuleNotFoundError) or any(
                    word in text for word in NEEDS_TF):
                counts["needs TensorFlow"] += 1
            else:
                counts["failed"] += 1
                failures.append({"line": node.lineno, "traceback": text[-3000:]})
    import torch

    used = torch.cuda.max_memory_allocated() if torch.cuda.is_available() else 0
    return {"lesson": path.stem, "counts": counts, "failures": failures, "cuda_bytes": used}


def package_checks() -> list[str]:
    """The ``sidebyside`` helpers' CUDA branches, which no lesson reaches without TensorFlow."""
    import sidebyside
    from sidebyside import benchmark, parity, timing

    import numpy as np
    import torch

    on_gpu = torch.ones(3, device="cuda")
    checks = {
        "torch_device() picks the GPU": lambda: sidebyside.torch_device() == "cuda",
        "cuDNN's TF32 is off": lambda: torch.backends.cudnn.allow_tf32 is False,
        "tolerance() reads the GPU's": lambda: parity.tolerance(on_gpu)
        == parity.TOLERANCES["cuda"],
        "assert_close takes a CUDA tensor": lambda: parity.assert_close(
            np.ones(3, np.float32), on_gpu, what="ones") == 0.0,
        "gpu_syncs gives torch's": lambda: benchmark.gpu_syncs("cuda", "/CPU:0")[0]
        is torch.cuda.synchronize,
        "time_call with a sync": lambda: timing.time_call(
            lambda: on_gpu @ on_gpu, sync=torch.cuda.synchronize, repeat=3).median > 0,
        "hardware() names the GPU": lambda: torch.cuda.get_device_name(0)
        in benchmark.hardware("cuda"),
    }
    lines = []
    for what, check in checks.items():
        try:
            lines.append(f"{'ok  ' if check() else 'FAIL'} {what}")
        except Exception as error:  # noqa: BLE001 - reported
            lines.append(f"FAIL {what}: {error!r}")
    return lines


def _key(failure: dict) -> tuple:
    return failure["line"], failure["traceback"].rstrip().splitlines()[-1].split(":")[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="lessons whose file name contains one of these")
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--hide-tensorflow", action="store_true",
                        help="rehearse on a machine that has TensorFlow, as if it had not")
    parser.add_argument("--baseline", type=Path, help="the CPU rehearsal's torch_on_cuda.json")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # the child process: one lesson, its result as JSON on the last line
        sys.path.insert(0, str(ROOT / "src"))
        if args.hide_tensorflow:
            sys.modules["tensorflow"] = sys.modules["keras"] = None  # import fails, as if absent
        result = run_lesson(args.one)
        print("\n" + json.dumps(result))
        return 0

    import torch

    print(f"torch {torch.__version__}, CUDA {torch.version.cuda},",
          torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")
    lessons = sorted(p for p in (ROOT / "gallery").glob("*/plot_*.py")
                     if not args.names or any(n in p.name for n in args.names))

    def child(path: Path) -> dict:
        env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        done = subprocess.run([sys.executable, __file__, "--one", str(path),
                               *(["--hide-tensorflow"] if args.hide_tensorflow else [])], env=env,
                              capture_output=True, text=True, timeout=600)
        try:
            return json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            return {"lesson": path.stem, "counts": {"crashed": done.returncode},
                    "failures": [{"line": 0, "traceback": done.stderr[-3000:]}]}

    if torch.cuda.is_available():
        sys.path.insert(0, str(ROOT / "src"))
        print("\n".join(package_checks()))
    baseline = {}
    if args.baseline:
        baseline = {r["lesson"]: {_key(f) for f in r["failures"]}
                    for r in json.loads(args.baseline.read_text())}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(child, lessons))
    findings = 0
    for result in results:
        new = [f for f in result["failures"] if _key(f) not in baseline.get(result["lesson"], ())]
        findings += len(new)
        print(f"{result['lesson']}: {result['counts']}, {len(new)} not on the CPU, "
              f"peak CUDA memory {result.get('cuda_bytes', 0) / 2**20:.0f} MiB")
        for failure in new:
            print(f"  line {failure['line']}:\n    "
                  + failure["traceback"].rstrip().replace("\n", "\n    "))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "torch_on_cuda.json").write_text(json.dumps(results, indent=1))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
