"""Build the gallery on several machines: each executes a slice of the examples, one merges them.

Events: ``build-finished`` (``write_manifest``); config value ``sidebyside_shard``.

* ``make html SHARD=k/N`` (CI's matrix, one job per k) executes slice k of N, balanced by the
  examples' last measured times (``docs/example_times.json``), in reverse file-name order, so that
  every example runs after other examples than in a one-machine build (a leak between examples shows
  as a difference). It writes ``docs/auto_examples/shard.json``, naming the examples it executed.
* ``make merge SHARDS="dir1 dir2 ..."`` copies each shard's generated files (its
  ``docs/auto_examples`` folder) into ``docs/auto_examples``, refusing a gallery with an example
  missing or executed twice, then builds the site from them: nothing is executed again.
* ``make example-times`` refreshes ``docs/example_times.json`` from the last full build.
* CI (.github/workflows/site.yml) asks ``sphinx_extensions/shards.py plan`` how many machines to use: one until the
  examples' times add up to more than ``SECONDS_PER_SHARD``, then enough for that much each.

Usage: ``python sphinx_extensions/shards.py merge DIR...``, ``... times`` or ``... plan``.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GALLERY = ROOT / "gallery"
TIMES = DOCS / "example_times.json"
MANIFEST = "shard.json"
# The one place the threshold is written: the most example time one CI machine executes.
SECONDS_PER_SHARD = 15 * 60


def parse_shard(shard: str) -> tuple[int, int]:
    """ "2/3" -> (2, 3), or a clear error."""
    match = re.fullmatch(r"(\d+)/(\d+)", shard)
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise ValueError(f"SHARD={shard!r}: write k/N with 1 <= k <= N, e.g. SHARD=1/2")
    return int(match[1]), int(match[2])


def example_names(gallery: Path = GALLERY) -> list[str]:
    """Every example as its path in the gallery, e.g. ``10_graphs/plot_20_autograd.py``."""
    return sorted(script.relative_to(gallery).as_posix() for script in gallery.rglob("plot_*.py"))


def examples_in_shard(shard: str, gallery: Path = GALLERY, times: Path = TIMES) -> list[str]:
    """The examples (paths in the gallery) that shard k of N executes.

    Longest first, each to the shard with the least time so far (ties: the lower k), so the slices
    are balanced and the same on every machine. An example with no measured time counts as the
    mean of the others.
    """
    k, n = parse_shard(shard)
    names = example_names(gallery)
    measured = json.loads(times.read_text()) if times.exists() else {}
    known = [measured[name] for name in names if name in measured]
    default = sum(known) / len(known) if known else 1.0
    loads, slices = [0.0] * n, [[] for _ in range(n)]
    for name in sorted(names, key=lambda name: (-measured.get(name, default), name)):
        lightest = loads.index(min(loads))
        loads[lightest] += measured.get(name, default)
        slices[lightest].append(name)
    return sorted(slices[k - 1])


def plan(times: Path = TIMES) -> list[str]:
    """The shards CI runs: ``["1/1"]`` while one machine is enough, else ``["1/N", ..., "N/N"]``."""
    total = sum(json.loads(times.read_text()).values()) if times.exists() else 0.0
    n = max(1, math.ceil(total / SECONDS_PER_SHARD))
    return [f"{k}/{n}" for k in range(1, n + 1)]


class ReverseFileNameSortKey:
    """sphinx-gallery's ``within_subsection_order`` for shards: file names, last first."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename) -> list[int]:
        return reverse_subsections(filename)


def reverse_subsections(path) -> list[int]:
    """sphinx-gallery's ``subsection_order`` for shards: folder names, last first."""
    return [-ord(character) for character in str(path)]


def write_manifest(app, exception) -> None:
    """After a shard's build: ``shard.json`` names the examples it executed."""
    shard = app.config.sidebyside_shard
    if exception is None and shard:
        names = examples_in_shard(shard, Path(app.srcdir).parent / "gallery")
        manifest = Path(app.srcdir) / "auto_examples" / MANIFEST
        manifest.write_text(json.dumps({"shard": shard, "examples": names}, indent=1) + "\n")


def example_files(auto_examples: Path, name: str) -> list[Path]:
    """Every file sphinx-gallery generated for one example: page, code, md5, figures, thumbnail."""
    folder, stem = auto_examples / Path(name).parent, re.escape(Path(name).stem)
    generated = re.compile(rf"{stem}\.|sphx_glr_{stem}_(\d+|thumb)(_dark)?\.png$")
    return sorted(
        path for path in folder.rglob("*") if path.is_file() and generated.match(path.name)
    )


def merge(shard_dirs: list[Path], into: Path, gallery: Path = GALLERY) -> list[str]:
    """Copy each shard's executed examples into ``into`` (a docs/auto_examples folder).

    Raises ``ValueError`` naming every example no shard executed, or that two shards executed.
    Returns the merged examples' names.
    """
    owner: dict[str, Path] = {}
    problems = []
    for shard_dir in shard_dirs:
        manifest = shard_dir / MANIFEST
        if not manifest.exists():
            raise ValueError(f"{shard_dir}: no {MANIFEST}; is it a shard's docs/auto_examples?")
        for name in json.loads(manifest.read_text())["examples"]:
            if name in owner:
                problems.append(f"{name}: executed by two shards ({owner[name]} and {shard_dir})")
            owner[name] = shard_dir
    names = example_names(gallery)
    problems += [f"{name}: executed by no shard" for name in names if name not in owner]
    if problems:
        raise ValueError("cannot merge the shards:\n  " + "\n  ".join(problems))
    for name, shard_dir in sorted(owner.items()):
        files = example_files(shard_dir, name)
        if not any(path.name == f"{Path(name).name}.md5" for path in files):
            raise ValueError(f"{name}: {shard_dir} has no executed output for it")
        for path in files:
            target = into / path.relative_to(shard_dir)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return sorted(owner)


def measured_times(auto_examples: Path) -> dict[str, float]:
    """Each example's last execution time in seconds, from sphinx-gallery's ``.cost.json``."""
    return {
        cost.relative_to(auto_examples).as_posix().removesuffix(".cost.json") + ".py": round(
            json.loads(cost.read_text())["time"], 1
        )
        for cost in sorted(auto_examples.rglob("plot_*.cost.json"))
    }


def setup(app):
    app.add_config_value("sidebyside_shard", "", "env")
    app.connect("build-finished", write_manifest)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(argv: list[str]) -> int:
    if argv[:1] == ["merge"] and len(argv) > 1:
        try:
            names = merge([Path(d) for d in argv[1:]], DOCS / "auto_examples")
        except ValueError as error:
            print(error, file=sys.stderr)
            return 1
        print(f"merged {len(names)} examples from {len(argv) - 1} shards into docs/auto_examples")
        return 0
    if argv == ["times"]:
        times = measured_times(DOCS / "auto_examples")
        if not times:
            print("no measured times: run `make html` first", file=sys.stderr)
            return 1
        TIMES.write_text(json.dumps(times, indent=1, sort_keys=True) + "\n")
        print(f"{TIMES.relative_to(DOCS.parent)}: {len(times)} examples")
        return 0
    if argv == ["plan"]:  # for GitHub Actions: shards=["1/1"] into $GITHUB_OUTPUT
        print(f"shards={json.dumps(plan())}")
        return 0
    print(__doc__.split("Usage: ")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
