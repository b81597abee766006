"""The one recipe for building the site: command, environment, language layout, project copy.

``make html``, ``make merge``, ``make gettext``, ``make serve``, tox, ``make bench`` and the tests
all build through this module, so a build means the same everywhere (a test checks that they
call it). ::

    python tools/site_build.py [--languages "en zh_CN"] [--example NAME] [--shard K/N]
                               [--keep-outputs] [--builder gettext] [-- SPHINX OPTIONS]
    python tools/site_build.py --serve PORT [--docs DIR]     # the live preview (make serve)

Build modes are Sphinx config values (``-D sidebyside_example=…``), read once by
``sphinx_extensions/build_modes.py``; nothing in the build reads them from the environment. The
environment below is only what the frameworks and matplotlib read when they start.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GALLERY = ROOT / "gallery"
#: Each language's folder under the site's root (English at the root).
LANGUAGES = {"en": "", "zh_CN": "zh_CN"}
#: What the frameworks, matplotlib and the graph drawings read at start: quiet TensorFlow, no
#: display, one hash seed, one thread per framework (the benchmark pages compare like with like,
#: and say so), torch.compile's kernels kept between builds, Graphviz's layout for the drawings.
ENV = {
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "TF_NUM_INTRAOP_THREADS": "1",
    "TF_NUM_INTEROP_THREADS": "1",
    "TORCHINDUCTOR_CACHE_DIR": str(DOCS / "_build" / "torchinductor"),
    "SIDEBYSIDE_GRAPH_LAYOUT": "dot",
}
#: Where the site is hosted and which repository the Colab links open, set by CI (site.yml) for
#: a fork: passed on as config values.
HOSTING = {"SIDEBYSIDE_BASEURL": "sidebyside_baseurl", "SIDEBYSIDE_REPO": "sidebyside_repo"}


def environment(base: dict | None = None) -> dict:
    """The build's environment: ``base`` (default: this process's) with ENV set where it is not."""
    base = dict(os.environ if base is None else base)
    return {**ENV, **base}


def command(
    docs: Path = DOCS,
    out: Path | None = None,
    *,
    language: str = "en",
    example: str = "",
    shard: str = "",
    keep_outputs: bool = False,
    live: bool = False,
    builder: str = "html",
    strict: bool = True,
    extra: tuple[str, ...] = (),
) -> list[str]:
    """The sphinx-build command for one language of the site.

    Warnings are errors (``strict``), references nitpicky, and it keeps going to report every
    problem. A full build starts from a fresh environment (``-E``) and re-executes every
    example; the edit loop (``example``) re-executes only the matching examples and re-reads
    only the pages that changed. A translation executes nothing: it reuses English's outputs.
    """
    out = Path(out) if out else site_folder(docs, language, builder)
    modes = {
        "language": language,
        "sidebyside_example": example,
        "sidebyside_shard": shard,
        "sidebyside_keep_outputs": "1" if keep_outputs else "0",
        "sidebyside_live": "1" if live else "0",
        "sidebyside_execute": "1" if language == "en" and builder == "html" else "0",
    }
    modes |= {key: os.environ[name] for name, key in HOSTING.items() if os.environ.get(name)}
    fresh = not (example or keep_outputs or live)
    return [
        sys.executable, "-m", "sphinx", "-b", builder, "-n", "--keep-going",
        *(["-W"] if strict else []), *(["-E"] if fresh else []),
        "-d", str(Path(docs) / "_build" / "doctrees" / (language if builder == "html" else builder)),
        *(arg for key, value in modes.items() for arg in ("-D", f"{key}={value}")),
        *extra, str(docs), str(out),
    ]  # fmt: skip


def site_folder(docs: Path, language: str = "en", builder: str = "html") -> Path:
    """Where a language's pages go: the site's root for English, its folder for the others."""
    root = Path(docs) / "_build" / builder
    return root / LANGUAGES[language] if builder == "html" else root


def build(docs: Path = DOCS, languages=("en", "zh_CN"), **modes) -> int:
    """English first (it executes the examples), then each translation; the first failure's
    exit code, or 0."""
    env = environment()
    for language in languages:
        if language != "en" and modes.get("shard"):
            continue  # a shard executes examples for English; the merged build translates
        result = subprocess.run(command(docs, language=language, **modes), env=env, cwd=ROOT)
        if result.returncode:
            return result.returncode
    return 0


def generated_outputs(folder: str, names: list[str]) -> set[str]:
    """For ``shutil.copytree``: what a build generates at the top of docs/ (not its sources, such
    as the catalogues in docs/locale/zh_CN/LC_MESSAGES/auto_examples)."""
    if Path(folder).resolve() != DOCS.resolve():
        return set()
    generated = ("_build", "auto_examples", "jupyter_execute", "gen_modules")
    return {n for n in names if n in generated or n.startswith("sg_")}


def copy_project(
    dest: Path, gallery: Path = GALLERY, index: str | None = None, docs: Path = DOCS
) -> Path:
    """A copy of ``docs/`` (sources only) beside links to ``gallery`` and the extensions, so a
    build there never touches ``docs/``; ``index`` replaces every page by one index page."""
    copied = Path(dest) / "docs"
    shutil.copytree(docs, copied, ignore=generated_outputs)
    (Path(dest) / "gallery").symlink_to(gallery)
    (Path(dest) / "sphinx_extensions").symlink_to(ROOT / "sphinx_extensions")
    if index is not None:
        for page in copied.glob("*.md"):
            page.unlink()
        (copied / "index.md").write_text(index)
    return copied


def serve(docs: Path, port: str) -> int:
    """The live preview: sphinx-autobuild on ``docs``, rebuilding on save; only the edited
    example runs again (its md5 changed), and the browser reloads by itself."""
    cmd = command(docs, live=True, keep_outputs=True, strict=False)
    options = cmd[cmd.index("-b") : -2]  # the builder, the checks and the modes
    autobuild = Path(sys.executable).parent / "sphinx-autobuild"
    ignored = "(auto_examples|jupyter_execute|gen_modules|jupyter_cache|torchinductor|_build)/"
    watch = ["--watch", str(Path(docs).resolve().parent / "gallery"), "--watch", str(ROOT / "src")]
    serve_cmd = [str(autobuild), str(docs), str(Path(docs) / "_build" / "html"), *options,
                 *watch, "--port", port, "--re-ignore", ignored]
    return subprocess.run(serve_cmd, env=environment(), cwd=ROOT).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--languages", default="en zh_CN", help="space-separated, English first")
    parser.add_argument("--example", default="", help="re-execute only examples named so")
    parser.add_argument("--shard", default="", help="execute slice K/N of the examples")
    parser.add_argument("--keep-outputs", action="store_true", help="execute nothing stale")
    parser.add_argument("--builder", default="html", help="html (the site) or gettext")
    parser.add_argument("--docs", type=Path, default=DOCS, help="the Sphinx project to build")
    parser.add_argument("--serve", metavar="PORT", help="live preview on 127.0.0.1:PORT")
    parser.add_argument("sphinx", nargs="*", help="more sphinx-build options, after --")
    args = parser.parse_args()
    if args.serve:
        return serve(args.docs, args.serve)
    if args.builder != "html":
        cmd = command(args.docs, builder=args.builder, strict=False, extra=tuple(args.sphinx))
        return subprocess.run(cmd, env=environment(), cwd=ROOT).returncode
    return build(args.docs, args.languages.split(), example=args.example, shard=args.shard,
                 keep_outputs=args.keep_outputs, extra=tuple(args.sphinx))


if __name__ == "__main__":
    sys.exit(main())
