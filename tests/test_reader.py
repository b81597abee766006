"""A reader's machine: build the wheel, run the site's install line in a new virtual environment
outside the repository, then run every downloaded script from there, and notebooks in a kernel."""

import html
import json
import os
import re
import shutil
import sys
import zipfile
from pathlib import Path

import sidebyside
from sidebyside import device

import run_downloads as run_downloads_  # tools/run_downloads.py
from conftest import GALLERY_SCRIPTS, ROOT, run
from sphinx_gallery.py_source_parser import (
    remove_config_comments,
    remove_ignore_blocks,
    split_code_and_text_blocks,
)

from sphinx_extensions.downloads import with_install_header


def test_the_package_builds_with_what_a_release_needs(reader):
    wheel = next((reader[1].parent / "dist").glob("sidebyside-*.whl"))
    assert (reader[1].parent / "dist" / f"sidebyside-{sidebyside.__version__}.tar.gz").exists()
    with zipfile.ZipFile(wheel) as archive:
        meta = archive.read(f"sidebyside-{sidebyside.__version__}.dist-info/METADATA").decode()
    for field in (
        "Version: " + sidebyside.__version__,
        "License-Expression: MIT",
        "Summary: ",
        "Project-URL: Documentation",
        "Classifier: ",
        "Requires-Python: >=3.11",
        "Provides-Extra: cpu",
        "Provides-Extra: cuda",
        "Requires-Dist: torch<3,>=2.13\n",  # a range: a reader's own torch stays
        f"Requires-Dist: torch=={device.REQUIRED['torch']}; extra == \"cpu\"",
        f"Requires-Dist: tensorflow-cpu=={device.REQUIRED['tensorflow']};",
    ):
        assert field in meta, f"the wheel's METADATA lacks {field!r}"


def test_the_install_line_is_stated_everywhere_a_reader_needs_it(site, downloads):
    line = sidebyside.INSTALL_LINE
    assert install_line_on(site / "index.html") == line
    for script in GALLERY_SCRIPTS:
        page = next(site.glob(f"auto_examples/*/{script.stem}.html"))
        assert install_line_on(page) == line, f"{page.name}: no install line in its download area"
        assert line in downloads[script.name].read_text(), f"{script.name} (download): no line"
        notebook = json.loads(downloads[script.stem + ".ipynb"].read_text())
        assert line in "".join(notebook["cells"][0]["source"]), f"{script.stem}.ipynb: first cell"


def test_the_reader_environment_does_not_see_the_repository(reader):
    python, home, env = reader
    code = "import sidebyside, sys; print(sidebyside.__file__); print(sys.path)"
    result = run([python, "-c", code], cwd=home, env=env)
    assert result.returncode == 0, result.stderr
    location, path = result.stdout.splitlines()
    assert str(ROOT) not in location and str(ROOT) not in path, result.stdout


def install_line_on(page: Path) -> str:
    """The install command as the page shows it (the console block with class sbs-install)."""
    block = re.search(r'<div class="[^"]*sbs-install[^"]*">(.*?)</pre>', page.read_text(), re.S)
    assert block, f"{page.name} states no install line"
    return html.unescape(re.sub(r"<[^>]+>", "", block[1])).strip()


def failures_of(reader_runs, suffix: str) -> str:
    return run_downloads_.failures([r for r in reader_runs.result() if r["name"].endswith(suffix)])


def test_the_notebooks_first_cell_keeps_the_frameworks_already_there(reader_runs, reader):
    """As on Colab, where torch and TensorFlow come installed: the first cell adds the helpers
    only, and says which versions the page was built with."""
    reader_runs.result()
    ran = run_downloads_.notebooks_to_run(GALLERY_SCRIPTS)[0]
    first = reader[1] / (ran.stem + ".ipynb")  # ran in a kernel, outputs kept
    cell = json.loads(first.read_text())["cells"][0]
    text = "".join("".join(out.get("text", "")) for out in cell["outputs"])
    built = " and ".join(f"{name} {version}" for name, version in device.REQUIRED.items())
    assert f"This page was built with {built}." in text, text
    installed = re.findall(r"Successfully installed (.*)", text)
    assert not re.search(r"\b(torch|tensorflow\S*)-\d", " ".join(installed)), installed


# The lines that crash (SIGSEGV) with PyPI's torch, whose triton ships its own LLVM, as does
# TensorFlow; the first optimizer makes torch import triton, after TensorFlow here.
CRASH = "import tensorflow as tf\nimport torch\ntorch.optim.SGD([torch.zeros(1, requires_grad=True)])\n"


def test_triton_loads_before_tensorflow_whichever_framework_an_example_imports_first(reader):
    python, home, env = reader
    loaded = 'import sys\nassert "triton" in sys.modules, "PyPI\'s torch brings triton: from PyPI?"\n'
    for first, second in (("tensorflow as tf", "torch"), ("torch", "tensorflow as tf")):
        imports = f"import {first}\nimport {second}\n"
        code = imports + CRASH.split("\n", 2)[2] + loaded
        script = home / "imports.py"
        script.write_text(with_install_header(f'"""Imports."""\n{code}'))
        result = run([python, script], cwd=home, env=env)
        assert result.returncode == 0, f"{first} first: exit {result.returncode}\n{result.stderr}"


def test_every_downloaded_script_runs(reader_runs):
    assert not (failures := failures_of(reader_runs, ".py")), failures


def test_downloaded_notebooks_run_top_to_bottom_in_a_kernel(reader_runs):
    assert not (failures := failures_of(reader_runs, ".ipynb")), failures


def code_blocks(script: Path) -> list[str]:
    """The script's code blocks as sphinx-gallery splits it and puts them in a notebook: without
    the lines hidden from the page (``sphinx_gallery_start_ignore`` … ``end_ignore``) and its
    config comments (``# sphinx_gallery_thumbnail_number``); the build runs those too."""
    _, blocks = split_code_and_text_blocks(str(script))
    cleaned = (
        remove_config_comments(remove_ignore_blocks(block.content))
        for block in blocks
        if block.type == "code"
    )
    return [code for content in cleaned if (code := content.strip())]


def test_every_download_holds_exactly_the_code_the_build_ran(downloads):
    """The script is its source plus the install header; the notebook is the install cell, then
    the source's code blocks as code cells, in order, without what the page hides: so what the
    build executed is what runs (the .py runs the hidden checks too)."""
    for script in GALLERY_SCRIPTS:
        source = script.read_text(encoding="utf-8")
        assert downloads[script.name].read_text(encoding="utf-8") == with_install_header(source)
        notebook = json.loads(downloads[script.stem + ".ipynb"].read_text(encoding="utf-8"))
        code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
        cells = ["".join(cell["source"]).strip() for cell in code[1:]]  # [0]: the install line
        assert cells == code_blocks(script), (
            f"{script.stem}.ipynb: its code differs from the source"
        )


def test_a_download_without_the_package_says_what_to_install(downloads, tmp_path):
    bare = tmp_path / "bare"
    assert run([sys.executable, "-m", "venv", "--without-pip", str(bare)]).returncode == 0
    script = shutil.copy(next(p for p in downloads.values() if p.suffix == ".py"), tmp_path)
    result = run([bare / "bin/python", script], cwd=tmp_path, env={"PATH": os.environ["PATH"]})
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"This example needs sidebyside, tensorflow, torch. Install with: {sidebyside.INSTALL_LINE}"
    ]
